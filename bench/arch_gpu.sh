#!/bin/sh
# What the arch work ran on the GPU machine (H200, cuobjdump 13), in one call:
#   mkdir -p /work/main/.gpu/arch/fx && cp build/cudoctor bench/*.py bench/*.sh \
#      /work/main/.gpu/arch/ && cp build/fixtures/arch/* /work/main/.gpu/arch/fx/ && \
#      gcc ... bench/arch_driver_check.c -o /work/main/.gpu/arch/arch_driver_check (see docs/arch.md)
#   run: sh .gpu/arch/arch_gpu.sh   (carry .gpu/arch; results come back as $OUT/arch_results.tgz)
# 1. cuobjdump --list-elf --list-ptx vs cudoctor arch --cuobjdump on every fixture and on every
#    CUDA library of the Python environment (nvidia wheels, torch/lib);
# 2. bench/arch.sh on libtorch_cuda.so and libcublasLt.so.13, and a warm --python scan;
# 3. arch_driver_check (cuModuleLoadData per container vs kb/compat's prediction) and
#    cudoctor arch --json, each plain, with CUDA_FORCE_PTX_JIT=1 and with CUDA_DISABLE_PTX_JIT=1.
set -u
D=$(cd "$(dirname "$0")" && pwd)
R=$(mktemp -d)
mkdir -p "$R/fixtures" "$R/libs"
export PATH="$PATH:/usr/local/cuda/bin"
CUOBJDUMP=$(command -v cuobjdump)
start=$(date +%s)
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; "$CUOBJDUMP" --version | tail -2;
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_arch_list())'; uname -r; nproc; } >"$R/env.txt" 2>&1

# 1a. fixtures (paths relative to the fixture folder, as the unit test runs them)
cd "$D/fx"
for f in *; do
	case "$f" in *.txt) continue ;; esac
	"$CUOBJDUMP" --list-elf --list-ptx "$f" >"$R/fixtures/$f.cuobjdump" 2>"$R/fixtures/$f.cuobjdump.err"
	echo $? >"$R/fixtures/$f.cuobjdump.rc"
	"$D/cudoctor" arch --cuobjdump "$f" >"$R/fixtures/$f.ours" 2>&1
	if cmp -s "$R/fixtures/$f.cuobjdump" "$R/fixtures/$f.ours"; then echo "same $f"; else echo "DIFF $f"; fi >>"$R/fixtures/summary.txt"
done
cd "$D"

# 1b. the Python environment's CUDA libraries
SP=${SP:-$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')}
find "$SP/nvidia" "$SP/torch/lib" -name '*.so*' -type f 2>/dev/null | sort >"$R/libs/all.txt"
xargs -P 8 -n 1 sh "$D/arch_cmp_lib.sh" "$R" "$D" "$CUOBJDUMP" <"$R/libs/all.txt" >"$R/libs/summary.txt" 2>&1
echo "after listings: $(( $(date +%s) - start )) s" >>"$R/env.txt"

# 2. bench
TORCH_CUDA="$SP/torch/lib/libtorch_cuda.so"
LT=$(grep 'libcublasLt.so' "$R/libs/all.txt" | head -1)
CUDOCTOR="$D/cudoctor" RUNS=5 sh "$D/arch.sh" "$TORCH_CUDA" "$LT" $(grep -E 'libcusparse.so|libcufft.so|libcudnn_engines_precompiled' "$R/libs/all.txt") >"$R/bench.txt" 2>&1
for i in 1 2 3; do python3 "$D/measure.py" 1 "$D/cudoctor" arch --python; done >"$R/python_scan.txt" 2>&1
"$D/cudoctor" arch --python >"$R/python_scan_report.txt" 2>&1
"$D/cudoctor" --json arch --python >"$R/python_scan.json" 2>&1
echo "after bench: $(( $(date +%s) - start )) s" >>"$R/env.txt"

# 3. verdicts vs the driver (cold JIT cache)
cd "$D/fx"
FX=$(ls | grep -v '\.txt$')
for v in plain CUDA_FORCE_PTX_JIT=1 CUDA_DISABLE_PTX_JIT=1; do
	e=""; [ "$v" = plain ] || e=$v
	env CUDA_CACHE_DISABLE=1 $e "$D/arch_driver_check" $FX >"$R/driver_check_$v.txt" 2>&1
	env CUDA_CACHE_DISABLE=1 $e "$D/cudoctor" --json arch $FX >"$R/arch_here_$v.json" 2>&1
	env CUDA_CACHE_DISABLE=1 $e "$D/cudoctor" --json arch --gpu 9.0 $FX >"$R/arch_gpu90_$v.json" 2>&1
	env $e "$D/cudoctor" arch $FX >"$R/arch_here_$v.txt" 2>&1
done
"$D/cudoctor" arch "$TORCH_CUDA" "$LT" >"$R/arch_libs_here.txt" 2>&1
echo "total: $(( $(date +%s) - start )) s" >>"$R/env.txt"
tar czf "$OUT/arch_results.tgz" -C "$R" .
cat "$R/env.txt" "$R/fixtures/summary.txt"; grep -c same "$R/libs/summary.txt"; grep -v '^same\|^none' "$R/libs/summary.txt" | head -20
cat "$R/bench.txt" "$R/python_scan.txt"; for x in "$R"/driver_check_*.txt; do tail -n 1 "$x"; done
