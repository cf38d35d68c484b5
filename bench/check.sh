#!/bin/sh
# bench/check.sh [SECONDS]: `cudoctor check`'s load tests against gpu-burn
# (https://github.com/wilicc/gpu-burn) on the same GPU in the same run, one after the other.
# GPU_BURN_SRC=path to a gpu-burn checkout (required; copied to a scratch directory and built
# there with its Makefile and nvcc, for this GPU's compute capability; nothing is written into
# the checkout or this repository). CUDOCTOR=path/to/cudoctor (default build/cudoctor);
# GPU=the CUDA ordinal to test (default 0); SECONDS: each tool's run (default 60).
# Prints, for cudoctor: GiB tested per pattern, passes, the memory test's seconds and seconds
# per GiB pass, its bandwidth, the GEMM type and TFLOP/s (sustained median and first batch);
# for gpu-burn: the memory it used, its seconds per GiB of it, and its last Gflop/s reading
# (SGEMM 8192^3 with -tc: TF32 tensor cores where the GPU has them, as gpu-burn asks cuBLAS).
# The GEMMs differ in type (cudoctor: the GPU's fastest GemmEx type, bf16 from sm_80), so the
# ratio of the rates is printed beside the types, not as a verdict. Run by hand on a GPU.
set -u
secs=${1:-60}
bin=$(realpath "${CUDOCTOR:-build/cudoctor}")
gpu=${GPU:-0}
[ -n "${GPU_BURN_SRC:-}" ] && [ -f "$GPU_BURN_SRC/gpu_burn-drv.cpp" ] ||
	{ echo "bench/check.sh: set GPU_BURN_SRC to a gpu-burn checkout (https://github.com/wilicc/gpu-burn)" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "bench/check.sh: no nvidia-smi: needs a GPU" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cc=$(nvidia-smi -i "$gpu" --query-gpu=compute_cap --format=csv,noheader | tr -d ' .')
cp -r "$GPU_BURN_SRC" "$work/gpu-burn"
cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
make -s -C "$work/gpu-burn" CUDAPATH="$cuda" COMPUTE="$cc" >"$work/build.log" 2>&1 ||
	{ echo "bench/check.sh: gpu-burn did not build:" >&2; tail -20 "$work/build.log" >&2; exit 1; }

CUDA_VISIBLE_DEVICES=$gpu "$bin" --json check --duration "$secs" >"$work/check.json" 2>"$work/check.err"
echo "cudoctor check --duration $secs: exit $?"
# gpu-burn reads compare.fatbin from its working directory
start=$(date +%s.%N)
(cd "$work/gpu-burn" && CUDA_VISIBLE_DEVICES=$gpu ./gpu_burn -tc "$secs") >"$work/burn.log" 2>&1
rc=$?
wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "gpu_burn -tc $secs: exit $rc, $wall s wall"
python3 - "$work/check.json" "$work/burn.log" "$wall" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
burn = open(sys.argv[2], errors="replace").read()
wall = float(sys.argv[3])
g = (j.get("load", {}).get("gpus") or [{}])[0]
if "bytes" not in g:
    sys.exit("cudoctor's load did not run: %s" % (g.get("error") or j.get("load")))
gib = g["bytes"] / 2**30
print("cudoctor memory test: %.1f GiB per pattern x %d passes in %.1f s: %.3f s per GiB pass, %.0f GB/s, %d errors"
      % (gib, g["passes"], g["seconds"], g["seconds"] / (gib * g["passes"]), g["bandwidth_bytes_per_s"] / 1e9, g["errors"]))
if "gemm_flops" in g:
    print("cudoctor GEMM %s %d^3: %.1f TFLOP/s sustained (median of the last batches), %.1f first batch, %d mismatches"
          % (g["gemm_dtype"], g["gemm_n"], g["gemm_flops"] / 1e12, g["gemm_first_flops"] / 1e12, g["gemm_mismatches"]))
else:
    print("cudoctor GEMM not run: %s" % g.get("gemm_error"))
mem = re.search(r"Initialized device \d+ with (\d+) MB of memory", burn)
rates = re.findall(r"proc'd: \d+ \((\d+) Gflop/s\)", burn)
errs = re.findall(r"errors: (\d+)", burn)
if mem:
    used = int(mem.group(1)) / 1024
    print("gpu-burn memory: %.1f GiB used (filled with GEMM results, each compared), %.3f s per GiB over its %.1f s"
          % (used, wall / used, wall))
if rates:
    tf = int(rates[-1]) / 1000
    print("gpu-burn SGEMM 8192^3 (-tc): %.1f TFLOP/s (its last reading), %s errors" % (tf, errs[-1] if errs else "?"))
    if "gemm_flops" in g:
        print("ratio cudoctor %s / gpu-burn fp32-tc: %.2f" % (g["gemm_dtype"], g["gemm_flops"] / 1e12 / tf))
else:
    print("gpu-burn printed no rate; its log ends:\n" + burn[-800:])
PY
