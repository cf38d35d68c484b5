#!/usr/bin/env python3
"""Compare `cudoctor --json devices` field by field with nvidia-smi --query-gpu and with
torch.cuda.get_device_properties, on a machine with an NVIDIA GPU.

usage: compare_devices.py [PATH_TO_CUDOCTOR]   (default: build/cudoctor)

Prints one table row per compared field. Static fields must agree exactly (exit 1
otherwise); fields that change from one moment to the next (temperature, power draw,
current clocks and link generation) are compared within a tolerance and only reported.
A field the reference cannot give (older nvidia-smi, torch without that property) is
listed as "skip", never as agreement."""
import json
import os
import subprocess
import sys

BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/cudoctor")

# nvidia-smi field -> (cudoctor key, how to convert nvidia-smi's text, kind)
# kind: "exact" must agree; a number: allowed absolute difference, report only.
SMI_FIELDS = [
    ("index", "nvml_index", int, "exact"),
    ("name", "name", str, "exact"),
    ("uuid", "uuid", str, "exact"),
    ("pci.bus_id", "pci_bus_id", "busid", "exact"),
    ("pci.device_id", "pci_device_id", "hex", "exact"),
    ("pci.sub_device_id", "pci_subsystem_id", "hex", "exact"),
    ("compute_cap", "compute_capability", str, "exact"),
    ("driver_version", "@driver.version", str, "exact"),
    ("memory.total", "nvml_memory_total_bytes", "mib", "exact"),
    ("pcie.link.gen.max", "pcie_link_gen_max", int, "exact"),
    ("pcie.link.width.max", "pcie_link_width_max", int, "exact"),
    ("pcie.link.gen.gpumax", "pcie_link_gen_gpu_max", int, "exact"),
    ("pcie.link.width.current", "pcie_link_width_current", int, "exact"),
    ("persistence_mode", "persistence_mode", "enabled", "exact"),
    ("mig.mode.current", "mig_mode_current", "enabled", "exact"),
    ("ecc.mode.current", "ecc_mode_current", "enabled", "exact"),
    ("ecc.errors.corrected.volatile.total", "ecc_errors_corrected_volatile", int, "exact"),
    ("ecc.errors.uncorrected.volatile.total", "ecc_errors_uncorrected_volatile", int, "exact"),
    ("ecc.errors.corrected.aggregate.total", "ecc_errors_corrected_aggregate", int, "exact"),
    ("ecc.errors.uncorrected.aggregate.total", "ecc_errors_uncorrected_aggregate", int, "exact"),
    ("retired_pages.pending", "retired_pages_pending", "yesno", "exact"),
    ("compute_mode", "compute_mode_name", "computemode", "exact"),
    ("power.limit", "power_limit_mw", "watts", "exact"),
    ("enforced.power.limit", "power_enforced_limit_mw", "watts", "exact"),
    ("clocks.max.sm", "clock_max_sm_mhz", int, "exact"),
    ("clocks.max.graphics", "clock_max_graphics_mhz", int, "exact"),
    ("clocks.max.memory", "clock_max_memory_mhz", int, "exact"),
    ("pcie.link.gen.current", "pcie_link_gen_current", int, 5),
    ("temperature.gpu", "temperature_gpu_c", int, 5),
    ("power.draw", "power_draw_mw", "watts", 60000),
    ("clocks.sm", "clock_sm_mhz", int, 2000),
    ("clocks.mem", "clock_memory_mhz", int, 2000),
    ("pstate", "pstate", "pstate", 15),
    ("memory.used", "memory_used_bytes", "mib", 1 << 30),
    ("clocks_event_reasons.active", "clock_event_reasons", "hex", 1 << 20),
]

# torch property -> (cudoctor key, conversion)
TORCH_FIELDS = [
    ("name", "name", str),
    ("uuid", "uuid", "torchuuid"),
    ("major", "compute_capability_major", int),
    ("minor", "compute_capability_minor", int),
    ("total_memory", "memory_total_bytes", int),
    ("multi_processor_count", "multiprocessor_count", int),
    ("max_threads_per_multi_processor", "max_threads_per_multiprocessor", int),
    ("max_threads_per_block", "max_threads_per_block", int),
    ("warp_size", "warp_size_threads", int),
    ("regs_per_multiprocessor", "registers_per_multiprocessor", int),
    ("shared_memory_per_block", "shared_memory_per_block_bytes", int),
    ("shared_memory_per_block_optin", "shared_memory_per_block_optin_bytes", int),
    ("shared_memory_per_multiprocessor", "shared_memory_per_multiprocessor_bytes", int),
    ("L2_cache_size", "l2_cache_bytes", int),
    ("memory_bus_width", "memory_bus_width_bits", int),
    ("memory_clock_rate", "memory_clock_rate_khz", int),
    ("clock_rate", "clock_rate_khz", int),
    ("pci_bus_id", "pci_bus", int),
    ("pci_device_id", "pci_device", int),
    ("pci_domain_id", "pci_domain", int),
    ("is_integrated", "integrated", bool),
    ("is_multi_gpu_board", "multi_gpu_board", bool),
]

TORCH_SCRIPT = r"""
import json, torch
out = []
for i in range(torch.cuda.device_count()):
    p = torch.cuda.get_device_properties(i)
    d = {}
    for k in %r:
        if hasattr(p, k):
            v = getattr(p, k)
            d[k] = v if isinstance(v, (int, float, str, bool)) else str(v)
    out.append(d)
print(json.dumps({"version": torch.__version__, "cuda": torch.version.cuda, "gpus": out}))
""" % [f[0] for f in TORCH_FIELDS]


def convert(text, how):
    t = text.strip()
    if t in ("[N/A]", "N/A", "[Not Supported]", "Not Supported", "[Unknown Error]"):
        return None
    if how == "busid":
        dom, rest = t.split(":", 1)
        dom = int(dom, 16)
        return ("%04x" % dom if dom <= 0xFFFF else "%08x" % dom) + ":" + rest.lower()
    if how == "hex":
        return int(t, 16)
    if how == "mib":
        return int(float(t))
    if how == "watts":
        return round(float(t) * 1000)
    if how == "enabled":
        return {"enabled": True, "disabled": False}.get(t.lower())
    if how == "yesno":
        return {"yes": True, "no": False}.get(t.lower())
    if how == "computemode":
        return {"default": "default", "exclusive_process": "exclusive_process",
                "prohibited": "prohibited"}.get(t.lower().replace(" ", "_"), t)
    if how == "pstate":
        return int(t.lstrip("P"))
    return how(t)


def ours(gpu, doc, key, how):
    v = gpu.get(key)
    if key.startswith("@"):  # a path from the report's top: "@driver.version"
        v = doc
        for part in key[1:].split("."):
            v = v.get(part) if isinstance(v, dict) else None
    if v is None:
        return None
    if how == "mib":
        return v >> 20  # nvidia-smi prints MiB, rounded down
    if how == "watts":
        return v  # already milliwatts; nvidia-smi's watts are converted to mW
    return v


def smi_query(fields):
    """nvidia-smi values per GPU for the fields this nvidia-smi knows ({} for unknown ones)."""
    def run(fs):
        p = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fs), "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            return None
        return [[c.strip() for c in line.split(",")] for line in p.stdout.strip().splitlines()]

    rows = run(fields)
    if rows is not None and all(len(r) == len(fields) for r in rows):
        return [dict(zip(fields, r)) for r in rows], []
    # some field is unknown to this nvidia-smi: ask one by one
    per_gpu, unknown = None, []
    for f in fields:
        r = run([f])
        if r is None:
            unknown.append(f)
            continue
        if per_gpu is None:
            per_gpu = [{} for _ in r]
        for i, line in enumerate(r):
            if i < len(per_gpu):
                per_gpu[i][f] = line[0]
    return per_gpu or [], unknown


def main():
    rows, disagreements = [], 0
    p = subprocess.run([BIN, "--json", "devices"], capture_output=True, text=True, timeout=120)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        print("cudoctor --json devices did not print JSON (exit %d): %s" % (p.returncode, p.stderr))
        return 1
    print("cudoctor devices: exit %d, %d GPU(s), findings: %s" % (
        p.returncode, len(doc["gpus"]), ", ".join(f["id"] for f in doc["findings"]) or "none"))
    by_uuid = {g["uuid"]: g for g in doc["gpus"] if g.get("uuid")}
    by_ordinal = {g["cuda_ordinal"]: g for g in doc["gpus"] if g.get("cuda_ordinal") is not None}

    smi, unknown = smi_query([f[0] for f in SMI_FIELDS])
    for f in unknown:
        rows.append(("*", f, "", "unknown to this nvidia-smi", "skip"))
    for i, s in enumerate(smi):
        g = by_uuid.get(s.get("uuid", ""))
        if g is None:
            rows.append((str(i), "uuid", "", s.get("uuid", "?"), "DIFF (GPU missing from cudoctor)"))
            disagreements += 1
            continue
        for field, key, how, kind in SMI_FIELDS:
            if field not in s:
                continue
            ref = convert(s[field], how)
            mine = ours(g, doc, key, how)
            label = "nvidia-smi " + field
            if ref is None and mine is None:
                verdict = "ok (both n/a)"
            elif ref is None or mine is None:
                verdict = "DIFF" if kind == "exact" else "~ (one n/a)"
            elif kind == "exact":
                verdict = "ok" if ref == mine else "DIFF"
            else:
                verdict = "~ ok" if abs(ref - mine) <= kind else "~ differs (changes over time)"
            if verdict == "DIFF":
                disagreements += 1
            rows.append((str(i), key, repr(mine), "%s = %r" % (label, ref), verdict))

    tp = subprocess.run([sys.executable, "-c", TORCH_SCRIPT], capture_output=True, text=True, timeout=300)
    if tp.returncode != 0:
        rows.append(("*", "torch", "", (tp.stderr.strip().splitlines() or ["no output"])[-1], "skip"))
    else:
        t = json.loads(tp.stdout)
        print("torch %s (CUDA %s): %d GPU(s)" % (t["version"], t["cuda"], len(t["gpus"])))
        for i, props in enumerate(t["gpus"]):
            g = by_ordinal.get(i)
            if g is None:
                rows.append((str(i), "cuda_ordinal", "", "torch device %d" % i, "DIFF (missing from cudoctor)"))
                disagreements += 1
                continue
            for prop, key, how in TORCH_FIELDS:
                if prop not in props:
                    rows.append((str(i), key, repr(g.get(key)), "torch %s: not in this torch" % prop, "skip"))
                    continue
                ref = props[prop]
                mine = g.get(key)
                if how == "torchuuid":
                    ref = "GPU-" + str(ref) if not str(ref).startswith("GPU-") else str(ref)
                else:
                    ref = how(ref)
                verdict = "ok" if ref == mine else "DIFF"
                if verdict == "DIFF":
                    disagreements += 1
                rows.append((str(i), key, repr(mine), "torch %s = %r" % (prop, ref), verdict))

    widths = [max(len(r[c]) for r in rows + [("gpu", "cudoctor key", "cudoctor", "reference", "verdict")])
              for c in range(5)]
    for r in [("gpu", "cudoctor key", "cudoctor", "reference", "verdict")] + rows:
        print("  ".join(r[c].ljust(widths[c]) for c in range(5)).rstrip())
    compared = sum(1 for r in rows if r[4].startswith("ok") or r[4] == "DIFF")
    print("compare_devices: %d exact fields compared, %d disagree" % (compared, disagreements))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
