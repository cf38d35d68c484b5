#!/usr/bin/env python3
"""make_log.py [--edges] SIZE_MB PATH: a synthetic training log for bench/explain.sh. Mostly
progress and info lines (what a long run prints), with NCCL INFO lines, warnings that mention
CUDA, and one real-looking CUDA error every ~50 MB, so the scanner's slow path is exercised too.

--edges (for tests/unit/test_explain_scan.c): errors every few KB, and at the places a
buffer-wide scan could get wrong: at every 1 MiB boundary (explain reads stdin in 1 MiB
pieces) an error or a short pattern is put across, at, or just before it; CRLF lines; empty
lines; an OOM message followed by its numbers; lines longer than explain's 4096-byte chunk
with errors inside and across a chunk's end; and a line of several MiB with no newline."""
import random, sys

args = sys.argv[1:]
edges = args[:1] == ["--edges"]
if edges:
    args = args[1:]
size = int(args[0]) << 20
rng = random.Random(42)
common = [
    "Epoch {e} | step {s}/{n} | loss {l:.4f} | lr 3.0e-04 | grad_norm {g:.3f} | {t:.1f} samples/s",
    "[rank{r}] iteration {s}: elapsed time per iteration (ms): {t:.1f} | tokens per second {g:.0f}",
    "2024-06-22 15:13:{ss:02d},079 - INFO - Saving checkpoint to /data/ckpt/step_{s}.pt",
    "node01:{p}:{p} [{r}] NCCL INFO Channel {c:02d}/0 : {r}[{r}] -> {q}[{q}] via P2P/CUMEM/read",
    "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:124: UserWarning: TF32 is enabled for cuda matmuls",
    "  warnings.warn(f'Using {t:.0f} MiB of CUDA memory for the cache', UserWarning)",
]
errors = [
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 1.08 GiB is free.",
    "CUDA error 209 at ggml-cuda.cu:6701: no kernel image is available for execution on the device",
]
# more kinds for --edges: short patterns, names, numbers in a CUDA context, NCCL, Xid
edge_errors = errors + [
    "gpu",
    "Xid 79",
    "cudaErrorNoKernelImageForDevice",
    "CUDA_ERROR_OUT_OF_MEMORY",
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
    "node01:1200:1300 [0] NCCL WARN Call to ibv_create_qp failed",
    "RuntimeError: CUDA error: invalid device ordinal",
    "cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510",
    "RuntimeError: No CUDA GPUs are available",
]
oom_tail = [
    "Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.21 GiB already allocated; "
    "3.75 MiB free; 14.38 GiB reserved in total by PyTorch)",
    "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
]


def progress(s):
    return rng.choice(common).format(e=s // 1000, s=s, n=10**6, l=rng.random(), g=rng.random() * 9,
                                     t=rng.random() * 900, r=s % 8, q=(s + 1) % 8, p=1200 + s % 8,
                                     c=s % 32, ss=s % 60)


def plain():
    written = 0
    next_err = 50 << 20
    with open(args[1], "w") as f:
        buf = []
        s = 0
        while written < size:
            s += 1
            line = progress(s)
            if written >= next_err:
                line = errors[(next_err >> 20) % len(errors)]
                next_err += 50 << 20
            buf.append(line)
            written += len(line) + 1
            if len(buf) == 10000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")


def with_edges():
    out = bytearray()
    s = 0
    boundary = 1 << 20
    case = 0

    def put(text, end="\n"):
        out.extend(text.encode() + end.encode())

    def pad_to(target):
        """a filler line ending so the next byte is at target (False when too close)"""
        room = target - len(out) - 1
        if room < 1:
            return False
        put(("x" * room)[:room])
        return True

    while len(out) < size:
        s += 1
        if len(out) + 300 >= boundary:
            e = edge_errors[case % len(edge_errors)]
            kind = case % 6
            case += 1
            if kind == 0 and pad_to(boundary - len(e) // 2):
                put(e)                       # across the boundary
            elif kind == 1 and pad_to(boundary):
                put(e)                       # starting at it
            elif kind == 2 and pad_to(boundary - len(e) - 1):
                put(e)                       # its newline the piece's last byte
            elif kind == 3 and pad_to(boundary - len(e) - 1):
                put(e, "\r\n")               # CRLF split by the boundary
            elif kind == 4 and pad_to(boundary - 1):
                put("gpu error code=2 cuda")  # short patterns from the piece's last byte
            elif kind == 5 and pad_to(boundary - 2):
                put("Xid 13 cuda")
            boundary += 1 << 20
            continue
        r = rng.random()
        if r < 0.01:
            put(rng.choice(edge_errors), rng.choice(["\n", "\r\n"]))
        elif r < 0.012:
            put(errors[1])
            for t in oom_tail:
                put(t, rng.choice(["\n", "\r\n"]))
        elif r < 0.013:
            put("")
        elif r < 0.0135:
            # longer than a chunk: errors inside, one across the 4096-byte mark
            e = rng.choice(errors)
            head = "y" * (4096 - len(e) // 2)
            put(head + e + " " + "z" * rng.randrange(100, 9000) + e + " cuda")
        else:
            put(progress(s), "\r\n" if r > 0.97 else "\n")
        if len(out) > size // 2 and b"MiB-line" not in out:
            # a line of several MiB: it crosses pieces, taken in chunks as it grows
            put("MiB-line " + ("w" * 3000 + " CUDA error: an illegal memory access was encountered ") * 1000)
    out.extend(b"RuntimeError: CUDA error: device-side assert triggered")  # no final newline
    with open(args[1], "wb") as f:
        f.write(out)


with_edges() if edges else plain()
