#!/usr/bin/env python3
"""GPU test for `cudoctor check` (the deployment checks) against the binary given as $1:
on this machine the nvidia module is loaded and nouveau is not, the kernel log is read as
root, every Xid line dmesg shows is one of check's events; and an Xid 79 line naming a real
GPU's PCI address (a fake /dev/kmsg under CUDOCTOR_HOST_ROOT, the real driver libraries)
is reported as an error on that GPU, by its CUDA ordinal and name."""
import json
import os
import re
import subprocess
import sys
import tempfile

binary = sys.argv[1]
env = {k: v for k, v in os.environ.items() if k != "CUDOCTOR_HOST_ROOT"}


def run(args, extra=None):
    e = dict(env, **(extra or {}))
    p = subprocess.run([binary, "--json"] + args, capture_output=True, text=True, env=e, timeout=120)
    assert p.returncode in (0, 1), "%s exited %d: %s" % (args, p.returncode, p.stderr)
    return json.loads(p.stdout), p.returncode


j, rc = run(["check", "--no-load"])
mods = j["modules"]
assert mods.get("nvidia") is True, "check did not see the nvidia module: %s" % mods
assert mods.get("nouveau") is False, "nouveau is loaded on the GPU machine: %s" % mods
log = j["kernel_log"]
ids = [f["id"] for f in j["findings"]]
if os.geteuid() == 0:
    assert log["state"] == "read", log
else:
    assert log["state"] in ("read", "restricted to root"), log
    if log["state"] != "read":
        assert "kernel-log-unread" in ids, ids
if log["state"] == "read" and os.geteuid() == 0 and not log["bound_reached"] and not log["events_truncated"]:
    # every Xid dmesg shows is among check's events (same number and device)
    d = subprocess.run(["dmesg"], capture_output=True, text=True)
    seen = {(e["xid"], e["pci"]) for e in log["events"] if e["kind"] == "Xid"}
    for m in re.finditer(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+)", d.stdout):
        assert (int(m.group(2)), m.group(1)) in seen, "dmesg's Xid %s on %s is not in check's events" % (m.group(2), m.group(1))
print("check: rc %d, kernel log %s with %d NVIDIA event(s), findings: %s" % (rc, log["state"], len(log["events"]), ", ".join(ids) or "none"))

# an Xid 79 on the first GPU, through a fake kernel log and the real driver
dev, _ = run(["devices"])
gpu = next(g for g in dev["gpus"] if g.get("pci_bus_id") and g.get("cuda_ordinal") is not None)
short = gpu["pci_bus_id"].rsplit(".", 1)[0]
libs = {"CUDOCTOR_LIBCUDA": dev["driver"]["library_path"], "CUDOCTOR_LIBNVML": dev["driver"]["nvml"]["library_path"]}
with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "dev"))
    os.makedirs(os.path.join(root, "proc"))
    with open(os.path.join(root, "dev", "kmsg"), "w") as f:
        f.write("4,100,7000000,-;NVRM: Xid (PCI:%s): 79, GPU has fallen off the bus\n" % short)
    with open(os.path.join(root, "proc", "modules"), "w") as f:
        f.write("nvidia 54439936 1 nvidia_uvm, Live 0x0\n")
    k, krc = run(["check", "--no-load"], dict(libs, CUDOCTOR_HOST_ROOT=root))
xid = [f for f in k["findings"] if f["id"] == "xid-errors"]
assert krc == 1, "an Xid 79 must exit 1"
want = "GPU %d (%s)" % (gpu["cuda_ordinal"], gpu["name"])
assert len(xid) == 1 and xid[0]["severity"] == "error" and xid[0]["subject"] == want, (xid, want)
assert k["kernel_log"]["events"][0]["gpu_index"] == gpu["cuda_ordinal"], k["kernel_log"]
print("check: a fake Xid 79 on PCI %s is named on %s" % (short, want))
