#!/bin/sh
# cudoctor arch on a GPU machine: the GPUs here are found through libcuda, and cudoctor's own
# lab kernels (embedded for every arch nvcc knows, plus PTX) are judged runnable on each.
set -u
bin=$1
out=$("$bin" --json arch "$bin")
rc=$?
[ "$rc" -le 1 ] || { echo "arch exited $rc"; exit 1; }
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
gpus = j["gpus"]
assert gpus, "no GPU found through libcuda"
assert j["driver"].get("cuda_version"), "driver version unknown"
f = j["files"][0]
if not any(i["section"] for i in f["images"]):
    print("arch: skipped, this build has no embedded lab kernels (no nvcc)"); sys.exit(0)
for v in f["verdicts"]:
    assert v["result"] in ("native", "jit"), v
print("arch: %d GPU(s), lab kernels %s" % (len(gpus), ", ".join(v["result"] for v in f["verdicts"])))
'
