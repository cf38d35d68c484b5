#!/bin/sh
# cudoctor arch on a GPU machine: the GPUs here are found (through NVML, else libcuda), and
# cudoctor's own lab kernels (embedded for every arch nvcc knows, plus PTX) are judged
# runnable on each; with NVML hidden (libcuda's cuInit) the GPUs and verdicts are the same.
set -u
bin=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" --json arch "$bin" >"$tmp/nvml.json"
rc=$?
[ "$rc" -le 1 ] || { echo "arch exited $rc"; exit 1; }
CUDOCTOR_LIBNVML=/nonexistent/libnvidia-ml.so.1 "$bin" --json arch "$bin" >"$tmp/cuinit.json"
python3 - "$tmp/nvml.json" "$tmp/cuinit.json" <<'PY'
import json, sys
j, k = (json.load(open(p)) for p in sys.argv[1:3])
gpus = j["gpus"]
assert gpus, "no GPU found through NVML or libcuda"
assert j["driver"].get("cuda_version"), "driver version unknown"
assert gpus == k["gpus"], "NVML and cuInit see different GPUs: %s vs %s" % (gpus, k["gpus"])
assert j["driver"]["cuda_version"] == k["driver"]["cuda_version"], (j["driver"], k["driver"])
f = j["files"][0]
assert [v["result"] for v in f["verdicts"]] == [v["result"] for v in k["files"][0]["verdicts"]]
if not any(i["section"] for i in f["images"]):
    print("arch: skipped, this build has no embedded lab kernels (no nvcc)"); sys.exit(0)
for v in f["verdicts"]:
    assert v["result"] in ("native", "jit"), v
print("arch: %d GPU(s), lab kernels %s; NVML and cuInit agree" % (len(gpus), ", ".join(v["result"] for v in f["verdicts"])))
PY
