#!/bin/sh
# cudoctor lab nccl on real GPUs: NCCL is found (on a machine with PyTorch, its wheel's copy is
# among those the search lists), a one-rank communicator runs and every result verifies on one
# GPU, every collective on two or more; NVLink SHARP stays off; compute-sanitizer memcheck over
# the lab's own kernels and NCCL's. Usage: sh tests/gpu/test_nccl.sh [path/to/cudoctor].
set -u
bin=$(realpath "${1:-build/cudoctor}")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
out=${OUT:-$work}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skipped: no NVIDIA GPU here"; exit 0; fi
ngpu=$(nvidia-smi -L | grep -c '^GPU ')

check() { # check JSON: the nccl lab's verdict, verification and set-up
	python3 - "$1" "$ngpu" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
lab = [l for l in d["labs"] if l["name"] == "nccl"][0]
m = {x["label"]: x["value"] for x in lab["measurements"]}
print("  verdict: %s: %s" % (lab["verdict"], lab["decided"][:200]))
print("  set-up: %s" % lab["setup"][:300])
print("  note: %s" % lab.get("note", "")[:400])
ok = True
def need(c, what):
    global ok
    if not c: print("  FAIL: " + what); ok = False
need(m.get("GPUs in the communicator") == n, "ranks = %d visible GPUs" % n)
sizes = sum(1 for k in m if k.startswith("all-reduce busbw "))
need(sizes >= 2 and m.get("results verified") == 4 * sizes, "every collective verified at every size")
need("NCCL_NVLS_ENABLE=0" in lab["setup"], "NVLS off")
need(lab["verdict"] == "confirmed" if n == 1 else lab["verdict"] in ("confirmed", "inconclusive"), "verdict")
need(not any(f["severity"] == "error" for f in d["findings"]), "no error finding")
for k in sorted(m):
    if " busbw " in k or " algbw " in k or " time " in k:
        print("    %-32s %10.3f" % (k, m[k]))
sys.exit(0 if ok else 1)
PY
}

"$bin" --json lab nccl --quick >"$out/nccl_quick.json"; echo "lab nccl --quick: exit $?"
check "$out/nccl_quick.json" || bad "lab nccl --quick"
t0=$(date +%s.%N); "$bin" --json lab nccl >"$out/nccl.json"; rc=$?; t1=$(date +%s.%N)
echo "lab nccl: exit $rc, $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
check "$out/nccl.json" || bad "lab nccl"
# the PyTorch wheel's libnccl is among the copies found, and it runs too
wheel=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 2>/dev/null | head -n 1)
if [ -n "$wheel" ]; then
	grep -q "site-packages/nvidia/nccl/lib/libnccl.so.2" "$out/nccl.json" || bad "the search did not list $wheel"
	CUDOCTOR_LIBNCCL=$wheel "$bin" --json lab nccl --quick >"$out/nccl_wheel.json"
	check "$out/nccl_wheel.json" || bad "lab nccl with $wheel"
	grep -q "$wheel" "$out/nccl_wheel.json" || bad "CUDOCTOR_LIBNCCL not honoured"
else
	echo "  no PyTorch wheel under /opt/torch/.venv: wheel check skipped"
fi
# the user's choice of NVLS is kept, and said
NCCL_NVLS_ENABLE=0 "$bin" --json lab nccl --quick >"$out/nccl_env.json"
grep -q "from your environment" "$out/nccl_env.json" || bad "NCCL_NVLS_ENABLE from the environment not reported"
if command -v compute-sanitizer >/dev/null; then
	CUDOCTOR_LAB_TINY=1 timeout 300 compute-sanitizer --tool memcheck --report-api-errors no "$bin" lab nccl --quick >"$out/nccl_memcheck.log" 2>&1
	summary=$(grep -E "ERROR SUMMARY" "$out/nccl_memcheck.log" | tail -n 1)
	echo "compute-sanitizer memcheck, lab nccl: ${summary:-no summary}"
	case "$summary" in *"ERROR SUMMARY: 0 errors"*) ;; *) bad "memcheck"; tail -n 20 "$out/nccl_memcheck.log" ;; esac
fi
exit $fail
