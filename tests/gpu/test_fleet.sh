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

# --nccl: one rank on the one GPU runs the verified all-reduce (busbw is 0 for one rank by
# definition); two ranks on the one GPU must end in fleet-nccl-failed naming NCCL's error
# (NCCL refuses two ranks of one communicator on one device: ncclInvalidUsage).
timeout -s KILL 300 mpirun --oversubscribe -n 1 "$bin" --json fleet --nccl --timeout 120 >"$work/nccl1.json" 2>"$work/nccl1.err"
echo "test_fleet --nccl -n 1: mpirun exit $?"
timeout -s KILL 300 mpirun --oversubscribe -n 2 "$bin" --json fleet --nccl --timeout 120 >"$work/nccl2.json" 2>"$work/nccl2.err"
echo "test_fleet --nccl -n 2: mpirun exit $?"
python3 - "$work/nccl1.json" "$work/nccl2.json" <<'PY'
import json, sys
one, two = (json.load(open(p))["nccl"] for p in sys.argv[1:3])
print("n=1:", json.dumps(one)[:1500], "\nn=2:", json.dumps(two)[:1500])
if not one["ran"] and "libnccl" in one.get("why", ""):
    print("test_fleet --nccl: skipped (no libnccl.so.2 here)"); sys.exit(0)
assert one["ran"] and one["sizes"], one
r = one["ranks"][0]
assert not r["error"] and r["wrong_sizes"] == 0 and r["device"] == 0, r
assert all(s["algbw_gbs"] > 0 for s in one["sizes"])
assert two["ran"] and any("ncclCommInitRank" in r["error"] for r in two["ranks"]), two
PY
