#!/bin/sh
# On a GPU machine: `mpirun -n 2 cudoctor fleet` (both ranks on the one node, so one leader)
# gives the same findings as `cudoctor doctor` there, plus nothing of the fleet's own but
# what the single node implies. Needs Open MPI (openmpi-bin) and the plug-in next to the
# binary (build/plugins/); prints "skipped" and succeeds where mpirun is absent.
set -u
bin=$(realpath "${1:-build/cudoctor}")
command -v mpirun >/dev/null 2>&1 || { echo "test_fleet: skipped (no mpirun; apt-get install openmpi-bin libopenmpi-dev, rebuild)"; exit 0; }
[ -f "$(dirname "$bin")/plugins/libcudoctor-fleet-mpi.so" ] || { echo "test_fleet: no MPI plug-in beside $bin" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$bin" --json doctor >"$work/doctor.json"
timeout -s KILL 300 mpirun --oversubscribe -n 2 "$bin" --json fleet --timeout 120 >"$work/fleet.json" 2>"$work/fleet.err"
echo "test_fleet: mpirun exit $?"
python3 - "$work/doctor.json" "$work/fleet.json" <<'PY'
import json, sys
doctor, fleet = (json.load(open(p)) for p in sys.argv[1:3])
want = sorted(set(f["id"] for f in doctor["findings"] if f["severity"] in ("warn", "error")))
got = sorted(set(f["id"] for f in fleet["findings"] if not f["id"].startswith("fleet-")))
print("doctor:", want, "\nfleet: ", got, "\nnodes:", fleet["node_list"], "expected", fleet["expected_nodes"])
assert fleet["node_count"] == 1 and fleet["expected_nodes"] == 1, "two ranks on one node must elect one leader"
assert got == want, "the fleet's findings differ from doctor's"
assert not fleet["missing"] and not fleet["skipped"]
PY
[ $? -eq 0 ] || fail=1

# --nccl: one rank on the one GPU runs the verified all-reduce (busbw is 0 for one rank by
# definition: the factor 2(n-1)/n); two ranks on the one GPU must end, within the timeout, in
# fleet-nccl-failed naming NCCL's error (NCCL refuses two ranks of one communicator on one
# device: ncclInvalidUsage), not in a hang.
timeout -s KILL 300 mpirun --oversubscribe -n 1 "$bin" --json fleet --nccl --timeout 120 >"$work/nccl1.json" 2>"$work/nccl1.err"
echo "test_fleet --nccl -n 1: mpirun exit $?"
start=$(date +%s)
timeout -s KILL 300 mpirun --oversubscribe -n 2 "$bin" --json fleet --nccl --timeout 60 >"$work/nccl2.json" 2>"$work/nccl2.err"
echo "test_fleet --nccl -n 2: mpirun exit $? after $(( $(date +%s) - start )) s"
python3 - "$work/nccl1.json" "$work/nccl2.json" <<'PY'
import json, sys
one_r, two_r = (json.load(open(p)) for p in sys.argv[1:3])
one, two = one_r["nccl"], two_r["nccl"]
print("n=1:", json.dumps(one)[:1500], "\nn=2:", json.dumps(two)[:1500])
if not one["ran"] and "libnccl" in one.get("why", ""):
    print("test_fleet --nccl: skipped (no libnccl.so.2 here)"); sys.exit(0)
assert one["ran"] and one["sizes"], one
r = one["ranks"][0]
assert not r["error"] and r["wrong_sizes"] == 0 and r["device"] == 0, r
assert all(s["algbw_gbs"] > 0 and "busbw_gbs" in s for s in one["sizes"]), one["sizes"]
assert not [f for f in one_r["findings"] if f["id"] == "fleet-nccl-failed"], "n=1 must verify"
assert two["ran"] and any("ncclCommInitRank" in r["error"] for r in two["ranks"]), two
failed = [f for f in two_r["findings"] if f["id"] == "fleet-nccl-failed"]
assert failed and any("ncclCommInitRank" in f["title"] for f in failed), failed
print("test_fleet --nccl: ok")
PY
[ $? -eq 0 ] || fail=1

# --nccl=pairs needs two GPUs (one per rank): every GPU of the node a rank, every pair once,
# each verified; all pairs are intra-node here.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${gpus:-0}" -lt 2 ]; then
	echo "test_fleet --nccl=pairs: skipped (this node has ${gpus:-0} GPU; pairs need 2 or more)"
else
	n=$gpus; [ "$n" -gt 8 ] && n=8
	timeout -s KILL 400 mpirun --oversubscribe -n "$n" "$bin" --json fleet --nccl=pairs --timeout 120 \
		>"$work/pairs.json" 2>"$work/pairs.err"
	echo "test_fleet --nccl=pairs -n $n: mpirun exit $?"
	python3 - "$work/pairs.json" "$n" <<'PY'
import json, sys
rep, n = json.load(open(sys.argv[1])), int(sys.argv[2])
p = rep["nccl_pairs"]
print(json.dumps({k: p[k] for k in p if k != "pairs"})[:1500])
for x in p["pairs"][:10]:
    print("  round %(round)d  %(rank_a)d-%(rank_b)d  %(class)s  %(busbw_gbs)s GB/s  %(error)s" % x)
assert p["ran"] and not p["stopped"], p.get("why") or p.get("stopped")
assert p["rounds_done"] == (n - 1 if n % 2 == 0 else n)
assert len(p["pairs"]) == n * (n - 1) // 2
assert all(not x["error"] and x["busbw_gbs"] > 0 for x in p["pairs"]), [x for x in p["pairs"] if x["error"]]
assert all(x["class"] == "intra-node" for x in p["pairs"])
print("test_fleet --nccl=pairs: ok; slow nodes:", p["slow_nodes"])
PY
	[ $? -eq 0 ] || fail=1
fi

# --check --quick: the node's leader runs check with its load on every GPU (60 s for all);
# one node alone is no fleet to compare against, so the point is that the load ran through
# the fleet, its GPUs' numbers reached rank 0 as samples, and no load finding was raised.
timeout -s KILL 400 mpirun --oversubscribe -n 1 "$bin" --json fleet --check --quick --timeout 200 >"$work/check.json" 2>"$work/check.err"
echo "test_fleet --check --quick: mpirun exit $?"
python3 - "$work/check.json" <<'PY'
import json, sys
fl = json.load(open(sys.argv[1]))
node = fl["nodes"][0]
print("node", node["name"], "samples", node["samples"], "findings", [(f["id"], f["severity"]) for f in node["findings"]])
assert node["samples"] >= 3, "check's load numbers did not reach the fleet: %s" % node
bad = [f for f in fl["findings"] if f["id"].startswith("load-") and f["severity"] in ("warn", "error")]
assert not bad, bad
print("test_fleet --check: ok")
PY
[ $? -eq 0 ] || fail=1
exit $fail
