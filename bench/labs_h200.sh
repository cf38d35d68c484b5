#!/bin/sh
# The labs added after the first fourteen, on the H200: `lab all` with every verdict (through
# tests/gpu/test_lab.sh: time limits, sanitizers over every lab, peers where present), then
# the libraries lab alone: its numbers, cuBLAS's fraction of the bf16 peak at 8192^3 (target
# >= 70%), a missing CUDOCTOR_LIBCUBLAS, and memcheck and racecheck of the lab with --quick;
# occupancy, texture, sync and device-malloc with their numbers, verdicts, run times and
# sanitizers (sync: what its divergent barriers did, and no hang); and one --html page of
# `lab all --quick` ($OUT/labs.html) to screenshot elsewhere.
# Usage: sh bench/labs_h200.sh [path/to/cudoctor]; results under $OUT (default: a temp dir).
set -u
bin=$(realpath "${1:-build/cudoctor}")
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no NVIDIA GPU here"; exit 0; fi

mkdir -p "$out/test_lab"
OUT="$out/test_lab" sh "$root/tests/gpu/test_lab.sh" "$bin" || bad "tests/gpu/test_lab.sh"

"$bin" lab libraries --plot "$out/plots" >"$out/libraries.txt" 2>&1
"$bin" --json lab libraries >"$out/libraries.json" 2>"$out/libraries.err"
python3 - "$out/libraries.json" <<'PY' || bad "libraries: verdict or bf16 peak fraction"
import json, sys
lab = json.load(open(sys.argv[1]))["labs"][0]
m = {x["label"]: x["value"] for x in lab["measurements"]}
for k, v in m.items():
    print("  %-46s %10.2f" % (k, v))
print("verdict:", lab["verdict"], "--", lab["decided"])
bf = m.get("bf16 8192^3 cuBLAS", 0)
peak = [v for k, v in m.items() if k.startswith("bf16 peak (")]
frac = bf / peak[0] if peak and peak[0] > 0 else 0
print("cuBLAS bf16 8192^3: %.1f TFLOP/s = %.1f%% of the bf16 dense peak (target >= 70%%)" % (bf, frac * 100))
sys.exit(0 if lab["verdict"] == "confirmed" and frac >= 0.70 else 1)
PY

CUDOCTOR_LIBCUBLAS=/nonexistent/libcublas.so.13 "$bin" lab libraries --quick >"$out/libraries_missing.txt" 2>&1
grep -q "CUDOCTOR_LIBCUBLAS=/nonexistent/libcublas.so.13" "$out/libraries_missing.txt" &&
	grep -q "verdict.*inconclusive" "$out/libraries_missing.txt" || bad "a missing CUDOCTOR_LIBCUBLAS is not named"
grep -E "verdict|note" "$out/libraries_missing.txt"

# the labs after libraries: numbers and verdict, full and --quick, each within its time budget
for lab in occupancy texture sync device-malloc; do
	for mode in full quick; do
		flag=; limit=3; [ $mode = quick ] && { flag=--quick; limit=1; }
		t0=$(date +%s.%N)
		"$bin" --json lab $lab $flag >"$out/${lab}_$mode.json" 2>"$out/${lab}_$mode.err"
		t1=$(date +%s.%N)
		python3 - "$out/${lab}_$mode.json" "$lab $mode" "$(awk "BEGIN{print $t1 - $t0}")" "$limit" <<'PY' || bad "$lab $mode"
import json, sys
lab = json.load(open(sys.argv[1]))["labs"][0]
print("== %s (%.2f s, budget %s s)" % (sys.argv[2], float(sys.argv[3]), sys.argv[4]))
for x in lab["measurements"]:
    print("  %-66s %10.2f %s" % (x["label"], x["value"], x["unit"]))
print("verdict:", lab["verdict"], "--", lab["decided"])
if lab.get("note"):
    print("note:", lab["note"])
# the process time includes context creation and module load (~0.3 s)
sys.exit(0 if lab["verdict"] == "confirmed" and float(sys.argv[3]) < float(sys.argv[4]) + 0.5 else 1)
PY
	done
done

# sync must never leave a kernel behind: no "still ran" failure, and the GPU idle afterwards
grep -q "still ran" "$out/sync_full.json" "$out/sync_quick.json" && bad "sync: a divergent-barrier kernel outlived its limit"
nvidia-smi --query-gpu=utilization.gpu,clocks.sm --format=csv,noheader
for lab in libraries occupancy texture sync device-malloc; do
	for tool in memcheck racecheck; do
		CUDOCTOR_LAB_TINY=1 timeout 300 compute-sanitizer --tool $tool "$bin" lab $lab --quick \
			>"$out/sanitizer_${tool}_$lab.log" 2>&1
		summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$out/sanitizer_${tool}_$lab.log" | tail -n 1)
		echo "compute-sanitizer $tool, $lab: ${summary:-no summary (timed out?)}"
		case "$summary" in *"SUMMARY: 0 errors"* | *"SUMMARY: 0 hazards"*) ;; *) bad "$tool $lab" ;; esac
	done
done

# one page with every lab, its chart and verdict
"$bin" --html "$out/labs.html" lab all --quick >"$out/labs_all_quick.txt" 2>&1
grep -q "<figure><svg" "$out/labs.html" && grep -q "lab occupancy" "$out/labs.html" &&
	grep -q "lab texture" "$out/labs.html" && grep -q "lab sync" "$out/labs.html" &&
	grep -q "lab device-malloc" "$out/labs.html" || bad "--html page of lab all"
grep -E "^lab |verdict" "$out/labs_all_quick.txt"
[ $fail -eq 0 ] && echo "labs_h200: ok" || echo "labs_h200: FAILED"
exit $fail
