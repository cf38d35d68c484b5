#!/bin/sh
# bench/check_gemm.sh [SECONDS]: `cudoctor check --gemm` against gpu-burn
# (https://github.com/wilicc/gpu-burn) in the types both run, on the same GPU in the same run, one
# after the other: TF32 (cudoctor --gemm tf32; gpu_burn -tc: SGEMM 8192^3 on the tensor cores)
# and FP64 (cudoctor --gemm fp64; gpu_burn -d: DGEMM 8192^3). GPU_BURN_SRC=a gpu-burn checkout
# (required; copied to a scratch directory and built there); CUDOCTOR=path/to/cudoctor (default
# build/cudoctor); GPU=the CUDA ordinal (default 0); SECONDS: each run (default 30). Prints each
# tool's rate and the ratio cudoctor / gpu-burn per type. Run by hand on a GPU.
set -u
secs=${1:-30}
bin=$(realpath "${CUDOCTOR:-build/cudoctor}")
gpu=${GPU:-0}
[ -n "${GPU_BURN_SRC:-}" ] && [ -f "$GPU_BURN_SRC/gpu_burn-drv.cpp" ] ||
	{ echo "bench/check_gemm.sh: set GPU_BURN_SRC to a gpu-burn checkout (https://github.com/wilicc/gpu-burn)" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "bench/check_gemm.sh: no nvidia-smi: needs a GPU" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cc=$(nvidia-smi -i "$gpu" --query-gpu=compute_cap --format=csv,noheader | tr -d ' .')
cp -r "$GPU_BURN_SRC" "$work/gpu-burn"
cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
make -s -C "$work/gpu-burn" CUDAPATH="$cuda" COMPUTE="$cc" >"$work/build.log" 2>&1 ||
	{ echo "bench/check_gemm.sh: gpu-burn did not build:" >&2; tail -20 "$work/build.log" >&2; exit 1; }
nvidia-smi -i "$gpu" --query-gpu=name,driver_version --format=csv,noheader
for pair in "tf32 -tc" "fp64 -d"; do
	set -- $pair
	CUDA_VISIBLE_DEVICES=$gpu "$bin" --json check --duration "$secs" --gemm "$1" >"$work/check_$1.json" 2>/dev/null
	(cd "$work/gpu-burn" && CUDA_VISIBLE_DEVICES=$gpu ./gpu_burn "$2" "$secs") >"$work/burn_$1.log" 2>&1
	python3 - "$1" "$2" "$work/check_$1.json" "$work/burn_$1.log" <<'PY'
import json, re, sys
t, flag, cj, bl = sys.argv[1:5]
rows = [x for x in json.load(open(cj)).get("load", {}).get("gemm_types", []) if x.get("dtype") == t]
burn = open(bl, errors="replace").read()
rates = re.findall(r"proc'd: \d+ \((\d+) Gflop/s\)", burn)
errs = re.findall(r"errors: (\d+)", burn)
mine = rows[0]["flops"] / 1e12 if rows and "flops" in rows[0] else None
theirs = int(rates[-1]) / 1000 if rates else None
print("%s: cudoctor check --gemm %s: %s TFLOP/s (%s^3, %s mismatches); gpu_burn %s: %s TFLOP/s (8192^3, %s errors)%s"
      % (t, t, "%.1f" % mine if mine else "not run", rows[0].get("n") if rows else "?",
         rows[0].get("mismatches") if rows else "?", flag, "%.1f" % theirs if theirs else "none",
         errs[-1] if errs else "?", "; ratio %.2f" % (mine / theirs) if mine and theirs else ""))
PY
done
