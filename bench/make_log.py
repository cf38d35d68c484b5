#!/usr/bin/env python3
"""make_log.py SIZE_MB PATH: a synthetic training log for bench/explain.sh. Mostly progress
and info lines (what a long run prints), with NCCL INFO lines, warnings that mention CUDA, and
one real-looking CUDA error every ~50 MB, so the scanner's slow path is exercised too."""
import random, sys

size = int(sys.argv[1]) << 20
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
written = 0
next_err = 50 << 20
with open(sys.argv[2], "w") as f:
    buf = []
    s = 0
    while written < size:
        s += 1
        line = rng.choice(common).format(e=s // 1000, s=s, n=10**6, l=rng.random(), g=rng.random() * 9,
                                         t=rng.random() * 900, r=s % 8, q=(s + 1) % 8, p=1200 + s % 8,
                                         c=s % 32, ss=s % 60)
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
