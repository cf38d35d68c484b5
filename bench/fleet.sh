#!/bin/sh
# Times `cudoctor fleet` over 1,000 and 10,000 synthetic node reports (devices reports with
# a few odd nodes: another driver, ECC errors, a missing GPU, a slow GPU in a lab report).
# Usage: bench/fleet.sh [build/cudoctor]. Prints "fleet: N reports in S s (judge only: S s)".
set -eu
bin=$(realpath "${1:-build/cudoctor}")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def gpu(i, ecc=0):
    return {"cuda_ordinal": i, "name": "NVIDIA H100 80GB HBM3", "mig_mode_current": False,
            "persistence_mode": True, "ecc_mode_current": True,
            "ecc_errors_uncorrected_volatile": ecc}
for n in (1000, 10000):
    d = os.path.join(work, str(n)); os.makedirs(d)
    bundles = []
    for k in range(n):
        name = "node%05d" % k
        gpus = [gpu(i) for i in range(8 if k % 331 else 7)]
        findings = []
        if k % 997 == 5:
            findings.append({"id": "ecc-errors", "severity": "error", "subject": "GPU 3",
                             "title": "2 uncorrectable ECC error(s) since the driver loaded", "evidence": [], "why": "",
                             "fix": ["nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER"]})
        dev = {"tool": "cudoctor", "version": "0.1.0", "command": "devices", "node": name, "findings": findings,
               "driver": {"version": "535.104.05" if k % 97 == 3 else "580.159.04",
                          "cuda_version": "12.2" if k % 97 == 3 else "13.0"}, "gpus": gpus}
        lab = {"tool": "cudoctor", "version": "0.1.0", "command": "lab", "node": name, "findings": [], "fleet_gpu": 0,
               "labs": [{"name": "bandwidth", "verdict": "confirmed", "measurements": [
                   {"label": "device-to-device copy", "unit": "GB/s",
                    "value": 2900.0 + (k * 37) % 40 - (1400.0 if k % 613 == 1 else 0)}]}]}
        bundle = {"tool": "cudoctor", "version": "0.1.0", "command": "fleet-node", "node": name, "failure": None,
                  "reports": [dev, lab]}
        with open(os.path.join(d, name + ".json"), "w") as f:
            json.dump(bundle, f)
PY
for n in 1000 10000; do
	start=$(date +%s.%N)
	rc=0
	(cd "$work/$n" && "$bin" --json fleet ./*.json >"$work/out.$n.json") || rc=$?
	# exit 1 is "error findings"; anything else is a failure
	[ "$rc" -le 1 ] || { echo "fleet failed: $rc" >&2; exit 3; }
	end=$(date +%s.%N)
	python3 - "$work/out.$n.json" "$n" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n, t = int(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3])
assert d["node_count"] == n, (d["node_count"], n)
ids = sorted(set(f["id"] for f in d["findings"]))
print("fleet: %d reports in %.3f s; findings %s; outliers %d" % (n, t, ",".join(ids), len(d["outliers"])))
PY
done
