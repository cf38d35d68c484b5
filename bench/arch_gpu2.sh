#!/bin/sh
# The second arch call on the GPU machine (H200, 16 cores), after run 1 (arch_gpu.sh):
#   staged like arch_gpu.sh, plus the libFuzzer harnesses in fuzz/ and their corpora in corpus/;
#   run: sh .gpu/arch/arch_gpu2.sh   (carry .gpu/arch; results in $OUT/arch_results2.tgz)
# 1. fixture listings again (this build), bench/arch.sh on the big libraries, the Python
#    environment scanned warm with and without a cuInit;
# 2. arch_driver_check again (family table now from kb);
# 3. every arch fuzz harness in parallel, 2 workers each, for the rest of a 230 s budget.
set -u
D=$(cd "$(dirname "$0")" && pwd)
R=$(mktemp -d)
mkdir -p "$R/fixtures"
export PATH="$PATH:/usr/local/cuda/bin"
CUOBJDUMP=$(command -v cuobjdump)
start=$(date +%s)
cd "$D/fx"
for f in *; do
	case "$f" in *.txt) continue ;; esac
	"$CUOBJDUMP" --list-elf --list-ptx "$f" >"$R/fixtures/$f.cuobjdump" 2>/dev/null
	"$D/cudoctor" arch --cuobjdump "$f" >"$R/fixtures/$f.ours" 2>&1
	if cmp -s "$R/fixtures/$f.cuobjdump" "$R/fixtures/$f.ours"; then echo "same $f"; else echo "DIFF $f"; fi >>"$R/fixtures/summary.txt"
done
FX=$(ls | grep -v '\.txt$')
for v in plain CUDA_FORCE_PTX_JIT=1 CUDA_DISABLE_PTX_JIT=1; do
	e=""; [ "$v" = plain ] || e=$v
	env CUDA_CACHE_DISABLE=1 $e "$D/arch_driver_check" $FX >"$R/driver_check_$v.txt" 2>&1
done
cd "$D"
SP=$(python3 -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')
LT=$(find "$SP/nvidia" -name 'libcublasLt.so*' -type f | head -1)
CUDOCTOR="$D/cudoctor" RUNS=5 sh "$D/arch.sh" "$SP/torch/lib/libtorch_cuda.so" "$LT" >"$R/bench.txt" 2>&1
{
	echo "# best of 5, warm: cudoctor arch FILE (GPU probe with cuInit, installed driver)"
	for f in "$SP/torch/lib/libtorch_cuda.so" "$LT"; do echo "$(basename "$f") $(python3 "$D/measure.py" 5 "$D/cudoctor" arch "$f")"; done
	echo "# cudoctor arch --python: GPU probe (cuInit) / --gpu 9.0 --driver 13.0 (no libcuda) / --cuobjdump"
	python3 "$D/measure.py" 1 "$D/cudoctor" arch --python >/dev/null
	echo "probe $(python3 "$D/measure.py" 5 "$D/cudoctor" arch --python)"
	echo "named $(python3 "$D/measure.py" 5 "$D/cudoctor" arch --python --gpu 9.0 --driver 13.0)"
	echo "cuobjdump-mode $(python3 "$D/measure.py" 5 "$D/cudoctor" arch --cuobjdump --python)"
	echo "python3 startup alone $(python3 "$D/measure.py" 5 python3 -c 'import site')"
	echo "files with device code: $("$D/cudoctor" --json arch --python --gpu 9.0 --driver 13.0 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["files"]))')"
	echo "all .so files: $(find "$SP" -name '*.so*' -type f | wc -l), $(du -shL "$SP" | cut -f1) in site-packages"
} >"$R/timing.txt" 2>&1
"$D/cudoctor" arch --python >"$R/python_scan_report.txt" 2>&1
echo "before fuzz: $(( $(date +%s) - start )) s" >>"$R/timing.txt"

left=$(( 230 - ($(date +%s) - start) ))
[ "$left" -lt 30 ] && left=30
mkdir -p "$R/fuzz"
for h in "$D"/fuzz/fuzz_*; do
	n=$(basename "$h" | sed 's/^fuzz_//')
	w=$(mktemp -d); cp -r "$D/corpus/$n/." "$w/" 2>/dev/null
	(cd "$R/fuzz" && "$h" -fork=2 -ignore_crashes=0 -max_total_time=$((left - 10)) -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "$w" >"$R/fuzz/$n.log" 2>&1; echo "rc=$?" >>"$R/fuzz/$n.log") &
done
wait
for l in "$R"/fuzz/*.log; do
	echo "$(basename "$l" .log): $(grep -E '^#[0-9]+: cov' "$l" | tail -n 1) $(tail -n 1 "$l")"
done >"$R/fuzz_summary.txt"
echo "total: $(( $(date +%s) - start )) s" >>"$R/timing.txt"
tar czf "$OUT/arch_results2.tgz" -C "$R" .
cat "$R/fixtures/summary.txt" | grep -c same; grep DIFF "$R/fixtures/summary.txt"
for x in "$R"/driver_check_*.txt; do tail -n 1 "$x"; done
cat "$R/bench.txt" "$R/timing.txt" "$R/fuzz_summary.txt"
