#!/usr/bin/env python3
"""GPU test for `cudoctor mem estimate --train` (usage: test_mem_train.py CUDOCTOR [OUTDIR]).

Three public decoder configs (written here from their config.json; random weights, no
download) are built in plain PyTorch the way Hugging Face's Llama/Qwen2 modules compute:
nn.Embedding, RMSNorm in fp32 (LlamaRMSNorm), q/k/v/o nn.Linear (Qwen2: q/k/v with bias),
SDPA flash attention with enable_gqa (K/V not repeated), SwiGLU MLP, lm_head (tied where the
config ties it); no rotary embedding (it keeps no tensor for backward). bf16 parameters,
torch.optim.AdamW(foreach=True), PyTorch's default on CUDA (states in bf16, one sqrt(v)
temporary in the step). Each config runs two steps with and without torch.utils.checkpoint
per block (use_reentrant=False). A step is:

    logits = model(ids)                                            # forward
    loss = F.cross_entropy(logits.float().flatten(0, 1), labels)   # loss
    del logits; loss.backward()    # a hook on the logits' gradient ends the loss phase
    opt.step(); opt.zero_grad()    # optimizer (set_to_none)

torch.cuda.max_memory_allocated is read and reset at each phase's end (the loss phase ends
when the logits' gradient exists: the fp32 loss tensors are freed by then). The second
step (optimizer states exist, gradients None at its start) is compared with
`cudoctor mem estimate DIR --train --context S --batch B --dtype bf16 [--checkpointing]
--cuda-context 0 --json`: total within 3 %, the peak phase the same.

Every number is printed before any verdict (one run must give the calibration data):
the per-phase table of both steps, then the comparison table. Exit 1 if any check failed."""
import json
import os
import subprocess
import sys
import tempfile
import traceback

BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/cudoctor")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("OUT") or tempfile.mkdtemp()
os.makedirs(OUT, exist_ok=True)
TOLERANCE = 0.03
PHASES = ("forward", "loss", "backward", "optimizer")

# (name, source, config.json fields that shape the model, batch, sequence)
CONFIGS = [
    ("Llama-3.2-1B", "https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json",
     {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 128256, "hidden_size": 2048,
      "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
      "head_dim": 64, "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "tie_word_embeddings": True,
      "attention_bias": False, "mlp_bias": False, "hidden_act": "silu", "torch_dtype": "bfloat16"}, 2, 2048),
    ("Qwen2.5-0.5B", "https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json",
     {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896,
      "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
      "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
      "hidden_act": "silu", "torch_dtype": "bfloat16"}, 2, 2048),
    ("TinyLlama-1.1B", "https://huggingface.co/TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T/blob/main/config.json",
     {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 32000, "hidden_size": 2048,
      "intermediate_size": 5632, "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4,
      "max_position_embeddings": 2048, "rms_norm_eps": 1e-5, "tie_word_embeddings": False,
      "hidden_act": "silu", "torch_dtype": "bfloat16"}, 2, 2048),
]

failures = []
REPEAT_KV = [False]  # set when flash SDPA refuses enable_gqa: K/V then repeated (HF's repeat_kv), said in the output
rows = []       # the comparison table
phase_rows = []  # the calibration table


def fail(what):
    print(f"  FAIL {what}", flush=True)
    failures.append(what)


def build_model(torch, cfg):
    nn = torch.nn
    F = torch.nn.functional
    h, f, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H, KV = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim", h // H)
    bias = cfg.get("attention_bias", False) or cfg["model_type"] == "qwen2"
    eps = cfg["rms_norm_eps"]

    class RMSNorm(nn.Module):  # transformers' LlamaRMSNorm / Qwen2RMSNorm
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(h))

        def forward(self, x):
            xf = x.to(torch.float32)
            var = xf.pow(2).mean(-1, keepdim=True)
            xf = xf * torch.rsqrt(var + eps)
            return self.weight * xf.to(x.dtype)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_layernorm = RMSNorm()
            self.q_proj = nn.Linear(h, H * hd, bias=bias)
            self.k_proj = nn.Linear(h, KV * hd, bias=bias)
            self.v_proj = nn.Linear(h, KV * hd, bias=bias)
            self.o_proj = nn.Linear(H * hd, h, bias=False)
            self.post_attention_layernorm = RMSNorm()
            self.gate_proj = nn.Linear(h, f, bias=False)
            self.up_proj = nn.Linear(h, f, bias=False)
            self.down_proj = nn.Linear(f, h, bias=False)

        def forward(self, x):
            b, s, _ = x.shape
            n = self.input_layernorm(x)
            q = self.q_proj(n).view(b, s, H, hd).transpose(1, 2)
            k = self.k_proj(n).view(b, s, KV, hd).transpose(1, 2)
            v = self.v_proj(n).view(b, s, KV, hd).transpose(1, 2)
            if REPEAT_KV[0] and KV != H:
                k = k.repeat_interleave(H // KV, dim=1)
                v = v.repeat_interleave(H // KV, dim=1)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=KV != H and not REPEAT_KV[0])
            x = x + self.o_proj(o.transpose(1, 2).reshape(b, s, H * hd))
            n = self.post_attention_layernorm(x)
            return x + self.down_proj(F.silu(self.gate_proj(n)) * self.up_proj(n))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(V, h)
            self.layers = nn.ModuleList(Block() for _ in range(cfg["num_hidden_layers"]))
            self.norm = RMSNorm()
            self.lm_head = nn.Linear(h, V, bias=False)
            if cfg["tie_word_embeddings"]:
                self.lm_head.weight = self.embed_tokens.weight
            self.checkpointing = False

        def forward(self, ids):
            x = self.embed_tokens(ids)
            for layer in self.layers:
                if self.checkpointing:
                    x = torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)
                else:
                    x = layer(x)
            return self.lm_head(self.norm(x))

    return Decoder()


def measure(torch, cfg, batch, seq, ckpt):
    """Per-phase peaks of two steps; a list of {phase: bytes} and the parameter count."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    torch.manual_seed(0)
    default_dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)  # built in bf16 on the GPU: no fp32 copy, no CPU init
    try:
        with torch.device("cuda"):
            model = build_model(torch, cfg)
    finally:
        torch.set_default_dtype(default_dtype)
    model.checkpointing = ckpt
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    V = cfg["vocab_size"]
    ids = torch.randint(0, V, (batch, seq), device="cuda")
    labels = torch.randint(0, V, (batch * seq,), device="cuda")
    steps = []
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        for _ in range(2):
            peaks = {}

            def end_of_loss(grad):
                torch.cuda.synchronize()
                peaks["loss"] = torch.cuda.max_memory_allocated()
                torch.cuda.reset_peak_memory_stats()

            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            peaks["start"] = torch.cuda.memory_allocated()  # weights + states (step 2) + workspaces
            logits = model(ids)
            torch.cuda.synchronize()
            peaks["forward"] = torch.cuda.max_memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            logits.register_hook(end_of_loss)
            loss = F.cross_entropy(logits.float().flatten(0, 1), labels)
            del logits
            loss.backward()
            del loss
            torch.cuda.synchronize()
            peaks["backward"] = torch.cuda.max_memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            opt.step()
            torch.cuda.synchronize()
            peaks["optimizer"] = torch.cuda.max_memory_allocated()
            opt.zero_grad(set_to_none=True)
            peaks["end"] = torch.cuda.memory_allocated()
            steps.append(peaks)
    del model, opt, ids, labels
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return steps, params


def estimate(cfg, name, batch, seq, ckpt):
    d = tempfile.mkdtemp(prefix="train-" + name + "-")
    with open(os.path.join(d, "config.json"), "w") as fh:
        json.dump(cfg, fh, indent=1)
    args = [BIN, "--json", "mem", "estimate", d, "--train", "--context", str(seq), "--batch", str(batch),
            "--dtype", "bf16", "--optimizer", "adamw", "--cuda-context", "0", "--gpu-memory", "141GB"]
    if ckpt:
        args.append("--checkpointing")
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    tag = f"{name}_{'ckpt' if ckpt else 'full'}"
    with open(os.path.join(OUT, f"estimate_{tag}.json"), "w") as fh:
        fh.write(f"$ {' '.join(args)}\n(exit {p.returncode})\n{p.stdout}{p.stderr}")
    doc = json.loads(p.stdout)
    return doc["breakdown"], doc["model"]


def gib(n):
    return f"{n / 2**30:8.3f}"


def main():
    try:
        import torch
        import torch.utils.checkpoint  # noqa: F401 (not loaded by `import torch` everywhere)
    except ImportError:
        print("torch is not installed")
        return 1
    if not torch.cuda.is_available():
        print("no CUDA device for torch")
        return 1
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}, AdamW(foreach=True), bf16, flash SDPA",
          flush=True)
    for name, url, cfg, batch, seq in CONFIGS:
        for ckpt in (False, True):
            tag = f"{name} {'ckpt' if ckpt else 'full'} b{batch} s{seq}"
            try:
                try:
                    steps, params = measure(torch, cfg, batch, seq, ckpt)
                except RuntimeError as ex:
                    if REPEAT_KV[0] or "kernel" not in str(ex):
                        raise
                    print(f"flash SDPA refused enable_gqa ({ex}); K/V repeated from here on: the estimate "
                          "counts K/V at the KV heads' width, expect it low", flush=True)
                    REPEAT_KV[0] = True
                    torch.cuda.empty_cache()
                    steps, params = measure(torch, cfg, batch, seq, ckpt)
            except Exception:  # keep going: every other number must still be printed
                traceback.print_exc()
                fail(f"{tag}: the PyTorch run failed")
                continue
            for i, st in enumerate(steps):
                phase_rows.append((tag, i + 1, st))
            measured = steps[1]
            peak_phase = max(PHASES, key=lambda ph: measured[ph])
            try:
                bd, model = estimate(cfg, name, batch, seq, ckpt)
            except Exception:
                traceback.print_exc()
                fail(f"{tag}: cudoctor mem estimate failed (see {OUT})")
                continue
            est = bd["total_bytes"]
            rows.append((name, ckpt, measured[peak_phase], est, peak_phase, bd.get("peak_phase"), bd, params,
                         model.get("parameters")))
    print("\nmeasured per phase (torch.cuda.max_memory_allocated, GiB), source of each config in the script")
    print(f"{'config':34} {'step':>4} {'start':>8} " + " ".join(f"{p:>9}" for p in PHASES) + f" {'end':>8}")
    for tag, step, st in phase_rows:
        print(f"{tag:34} {step:>4} {gib(st['start'])} " + " ".join(f"{gib(st[p]):>9}" for p in PHASES) +
              f" {gib(st['end'])}")
    print("\nestimated per phase (GiB)")
    for name, ckpt, _, _, _, _, bd, params, est_params in rows:
        print(f"{name:16} {'ckpt' if ckpt else 'full':4} " +
              " ".join(f"{p}={gib(bd.get(f'phase_{p}_bytes', 0)).strip()}" for p in PHASES) +
              f"  params torch {params} cudoctor {est_params}")
    print("\n| config | ckpt | measured | estimated | ratio | phase measured | phase estimated |")
    print("|---|---|---|---|---|---|---|")
    for name, ckpt, meas, est, ph, eph, _, _, _ in rows:
        print(f"| {name} | {'yes' if ckpt else 'no'} | {meas / 2**30:.3f} GiB | {est / 2**30:.3f} GiB | "
              f"{est / meas:.3f} | {ph} | {eph} |")
    print()
    for name, ckpt, meas, est, ph, eph, _, params, est_params in rows:
        tag = f"{name} {'ckpt' if ckpt else 'full'}"
        if params != est_params:
            fail(f"{tag}: parameters {params} in torch, {est_params} by cudoctor's formula")
        if abs(est / meas - 1) > TOLERANCE:
            fail(f"{tag}: estimate {est} is {100 * (est / meas - 1):+.1f} % of the measured peak {meas}")
        if ph != eph:
            fail(f"{tag}: the peak is in the {ph} phase, cudoctor names {eph}")
    print(f"mem train: {len(failures)} failed" if failures else "mem train: all within 3 %, phases named right")
    with open(os.path.join(OUT, "train_phases.json"), "w") as fh:
        json.dump({"measured": [{"run": t, "step": s, **st} for t, s, st in phase_rows],
                   "compared": [{"config": r[0], "checkpointing": r[1], "measured": r[2], "estimated": r[3],
                                 "phase": r[4], "estimated_phase": r[5]} for r in rows]}, fh, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
