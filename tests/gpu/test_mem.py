#!/usr/bin/env python3
"""GPU test for `cudoctor mem` (usage: test_mem.py CUDOCTOR [OUTDIR]).

1. probe: `mem probe --max 1` finds the largest block; a direct cuMemAlloc (ctypes,
   libcuda) of that size must succeed and one 1 % larger must fail; the memory the
   probe took is back within a second of its exit.
2. estimate vs reality: a Llama-3-8B-shaped model (the real config.json, written here;
   random bf16 weights, no download) built in plain PyTorch, a prompt of C tokens run
   with its KV cache kept; torch.cuda.max_memory_allocated against the estimate without
   the CUDA context, NVML's per-process usage against the estimate's total (each within 10 %).
3. `mem status` and `mem probe --demo` outputs are saved.
Exit 0 when every check passed; prints one line per check."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/cudoctor")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("OUT") or tempfile.mkdtemp()
os.makedirs(OUT, exist_ok=True)
failures = []
summary = {}

LLAMA3_8B = {  # meta-llama/Meta-Llama-3-8B config.json (shapes only)
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "hidden_act": "silu", "attention_bias": False,
}


def check(name, ok, detail):
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")
    summary[name] = {"ok": bool(ok), "detail": detail}
    if not ok:
        failures.append(name)


def run(args, save=None):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    if save:
        with open(os.path.join(OUT, save), "w") as f:
            f.write(f"$ cudoctor {' '.join(args)}\n(exit {p.returncode})\n{p.stdout}{p.stderr}")
    return p


def nvml_used_by(pid):
    q = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                       capture_output=True, text=True).stdout
    rows = [[x.strip() for x in line.split(",")] for line in q.splitlines() if line.count(",") == 1]
    for r in rows:
        if r[0] == str(pid):
            return int(r[1]) << 20
    if len(rows) == 1 and rows[0][1].isdigit():  # another PID namespace: the only process is us
        return int(rows[0][1]) << 20
    return None


# ---- 1. probe, checked by direct allocation in a context of our own (ctypes, no torch) ----
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
cuda.cuDeviceGet(ctypes.byref(dev), 0)
cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
cuda.cuCtxSetCurrent(ctx)


def free_now():
    f, t = ctypes.c_size_t(), ctypes.c_size_t()
    cuda.cuMemGetInfo_v2(ctypes.byref(f), ctypes.byref(t))
    return f.value


def alloc_ok(n):
    p = ctypes.c_uint64()
    r = cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(int(n)))
    if r == 0:
        cuda.cuMemFree_v2(p)
    return r == 0


free0 = free_now()
p = run(["--json", "mem", "probe", "--max", "1"], save="probe.json")
t_exit = time.monotonic()
back = None
while time.monotonic() - t_exit < 5:
    if free_now() >= free0 - (64 << 20):
        back = time.monotonic() - t_exit
        break
    time.sleep(0.01)
probe = json.loads(p.stdout)["probe"][0]
largest = probe["largest_block_bytes"]
summary["probe"] = probe
ok_at, ok_above = alloc_ok(largest), alloc_ok(largest * 1.01)
check("probe largest block confirmed", ok_at and not ok_above,
      f"largest {largest} B ({largest / 2**30:.2f} GiB); direct cuMemAlloc of it: {'ok' if ok_at else 'FAILED'}, "
      f"of 1.01x: {'ok (probe too low)' if ok_above else 'fails'}; free before {free0} B")
check("probe returns the memory within a second", back is not None and back < 1.0,
      f"free memory back {back if back is None else round(back * 1000, 1)} ms after exit; "
      f"probe ran {probe['elapsed_ms']:.1f} ms over {probe['alloc_calls']} calls")
run(["mem", "probe", "--demo"], save="probe_demo.txt")
cuda.cuCtxSetCurrent(None)
cuda.cuDevicePrimaryCtxRelease(dev)

# ---- 2. estimate vs a real PyTorch run ----
try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("  skip estimate vs PyTorch: torch is not installed here")
    torch = None

cfgdir = os.path.join(OUT, "llama3-8b")
os.makedirs(cfgdir, exist_ok=True)
with open(os.path.join(cfgdir, "config.json"), "w") as f:
    json.dump(LLAMA3_8B, f, indent=1)


def llama_forward_peak(cfg, ctx, batch):
    """Random bf16 weights in the config's shapes; one prompt forward keeping K/V."""
    h, I, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_hidden_layers"]
    H, KV, V = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"]
    hd = h // H
    d = dict(device="cuda", dtype=torch.bfloat16)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    # what is already allocated (the 32 MiB cuBLAS workspace of an earlier run stays) is not weights
    before = torch.cuda.memory_allocated()
    W = {"embed": torch.empty(V, h, **d), "norm": torch.ones(h, **d), "lm_head": torch.empty(V, h, **d)}
    layers = []
    for _ in range(L):
        layers.append({"q": torch.empty(H * hd, h, **d), "k": torch.empty(KV * hd, h, **d),
                       "v": torch.empty(KV * hd, h, **d), "o": torch.empty(h, H * hd, **d),
                       "gate": torch.empty(I, h, **d), "up": torch.empty(I, h, **d),
                       "down": torch.empty(h, I, **d), "n1": torch.ones(h, **d), "n2": torch.ones(h, **d)})
    for t in [W["embed"], W["lm_head"]] + [x for l in layers for x in l.values()]:
        if t.dim() == 2:
            t.normal_(0, 0.02)
    weights = torch.cuda.memory_allocated() - before
    inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, device="cuda").float() / hd))
    pos = torch.arange(ctx, device="cuda").float()
    ang = torch.outer(pos, inv)
    cos, sin = ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)

    def rope(x):
        x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    def rms(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(x.dtype) * w

    cache = []
    with torch.inference_mode():
        ids = torch.randint(0, V, (batch, ctx), device="cuda")
        x = F.embedding(ids, W["embed"])
        for l in layers:
            a = rms(x, l["n1"])
            q = (a @ l["q"].T).view(batch, ctx, H, hd).transpose(1, 2)
            k = (a @ l["k"].T).view(batch, ctx, KV, hd).transpose(1, 2)
            v = (a @ l["v"].T).view(batch, ctx, KV, hd).transpose(1, 2)
            q, k = rope(q), rope(k)
            cache.append((k.contiguous(), v.contiguous()))
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            x = x + o.transpose(1, 2).reshape(batch, ctx, H * hd) @ l["o"].T
            m = rms(x, l["n2"])
            x = x + (F.silu(m @ l["gate"].T) * (m @ l["up"].T)) @ l["down"].T
        logits = (rms(x[:, -1:], W["norm"]) @ W["lm_head"].T).float()
        torch.softmax(logits, -1)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
        nvml = nvml_used_by(os.getpid())
    kv = sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in cache)
    del cache, layers, W
    torch.cuda.empty_cache()
    return {"weights": weights, "kv": kv, "peak_allocated": peak, "nvml_process": nvml,
            "reserved": torch.cuda.max_memory_reserved()}


if torch is not None:
    torch.cuda.init()
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()
    ctx_nvml = nvml_used_by(os.getpid())
    summary["torch_context_nvml_bytes"] = ctx_nvml
    print(f"  info torch CUDA context (NVML, with a 2 MiB segment): {ctx_nvml} B")
    for ctxlen, batch in [(4096, 1), (32768, 1), (8192, 4)]:
        m = llama_forward_peak(LLAMA3_8B, ctxlen, batch)
        p = run(["--json", "mem", "estimate", os.path.join(cfgdir, "config.json"), "--context", str(ctxlen),
                 "--batch", str(batch), "--cuda-context", str(ctx_nvml or (512 << 20))],
                save=f"estimate_llama3_8b_{ctxlen}x{batch}.json")
        est = json.loads(p.stdout)["breakdown"]
        est_alloc = est["total_bytes"] - est["cuda_context_bytes"]
        key = f"llama3-8b ctx {ctxlen} x batch {batch}"
        summary[key] = {"measured": m, "estimate": est}
        check(f"{key}: weights exact", est["weights_bytes"] == m["weights"],
              f"estimate {est['weights_bytes']} B, torch {m['weights']} B")
        check(f"{key}: KV cache = formula", est["kv_cache_bytes"] == m["kv"],
              f"estimate {est['kv_cache_bytes']} B, tensors kept {m['kv']} B")
        err = est_alloc / m["peak_allocated"] - 1
        check(f"{key}: max_memory_allocated within 10%", abs(err) <= 0.10,
              f"estimate w/o context {est_alloc / 2**30:.2f} GiB vs torch peak {m['peak_allocated'] / 2**30:.2f} GiB "
              f"({err * 100:+.1f}%)")
        if m["nvml_process"]:
            err2 = est["total_bytes"] / m["nvml_process"] - 1
            check(f"{key}: NVML process usage within 10%", abs(err2) <= 0.10,
                  f"estimate {est['total_bytes'] / 2**30:.2f} GiB vs NVML {m['nvml_process'] / 2**30:.2f} GiB "
                  f"({err2 * 100:+.1f}%; torch reserved peak {m['reserved'] / 2**30:.2f} GiB)")
        else:
            check(f"{key}: NVML process usage", False, "this process is not in NVML's list")

run(["mem", "status"], save="status.txt")
run(["--json", "mem", "status"], save="status.json")
with open(os.path.join(OUT, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1, default=str)
print(f"mem gpu test: {len(summary) - len(failures)} checks ok, {len(failures)} failed")
sys.exit(1 if failures else 0)
