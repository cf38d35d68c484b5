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
