#!/bin/sh
# cudoctor lab nccl beside nccl-tests, same machine, same libnccl, same sizes.
# Usage: sh bench/nccl.sh NCCL_TESTS_SRC [path/to/cudoctor]
#   NCCL_TESTS_SRC: a checkout of https://github.com/NVIDIA/nccl-tests (never committed here).
# Builds all_reduce_perf, all_gather_perf, reduce_scatter_perf and broadcast_perf against the
# libnccl cudoctor loads (CUDOCTOR_LIBNCCL if set, else the one `lab nccl` reports), runs each
# in one process over every visible GPU (-g N, as ncclCommInitAll) at nccl-tests' sizes
# 8 B x 4^k .. 4 GiB, runs `cudoctor lab nccl` with the same library, and compares busbw
# (out of place) size by size. NVLink SHARP and multicast stay off for every program.
# Target: cudoctor's busbw >= 98% of nccl-tests' from 64 MiB up, >= 90% below.
# Exit 0 when every size meets it. OUT=DIR keeps the logs (default: a temporary directory).
set -u
src=$(realpath "${1:?usage: sh bench/nccl.sh NCCL_TESTS_SRC [cudoctor]}")
bin=$(realpath "${2:-build/cudoctor}")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
out=${OUT:-$work}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ngpu=$(nvidia-smi -L | grep -c '^GPU ')
[ "$ngpu" -ge 1 ] || { echo "no GPU"; exit 1; }

# 1. the library cudoctor loads
if [ -z "${CUDOCTOR_LIBNCCL:-}" ]; then
	"$bin" --json lab nccl --quick >"$out/probe.json" || true
	CUDOCTOR_LIBNCCL=$(python3 -c '
import json, re, sys
l = [x for x in json.load(open(sys.argv[1]))["labs"] if x["name"] == "nccl"][0]
m = re.search(r"from (/\S+) \(", l["setup"])
print(m.group(1) if m else "")' "$out/probe.json")
fi
[ -f "$CUDOCTOR_LIBNCCL" ] || { echo "no libnccl found by cudoctor"; exit 1; }
export CUDOCTOR_LIBNCCL
libdir=$(dirname "$CUDOCTOR_LIBNCCL")
echo "libnccl: $CUDOCTOR_LIBNCCL"

# 2. nccl.h beside the library (wheel: ../include; toolkit or distribution: /usr/include)
inc=""
for d in "$libdir/../include" "$libdir/../../include" /usr/include /usr/local/cuda/include; do
	[ -f "$d/nccl.h" ] && { inc=$(realpath "$d"); break; }
done
[ -n "$inc" ] || { echo "nccl.h not found near $libdir"; exit 1; }
home="$work/nccl_home"
mkdir -p "$home/lib"
ln -s "$inc" "$home/include"
ln -s "$CUDOCTOR_LIBNCCL" "$home/lib/libnccl.so"
ln -s "$CUDOCTOR_LIBNCCL" "$home/lib/libnccl.so.2"
grep -m1 -E '#define NCCL_(MAJOR|MINOR|PATCH)' "$inc/nccl.h" >/dev/null || echo "warning: $inc/nccl.h has no version defines"

# 3. nccl-tests, built outside its checkout
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
make -C "$src" -j"$(nproc)" BUILDDIR="$work/nt" NCCL_HOME="$home" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
	NVCC_GENCODE="-gencode=arch=compute_$cc,code=sm_$cc" >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log"; echo "nccl-tests did not build"; exit 1; }

# 4. the peers, then cudoctor, with the same library
for t in all_reduce all_gather reduce_scatter broadcast; do
	LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}" "$work/nt/${t}_perf" -b 8 -e 4G -f 4 -g "$ngpu" -w 5 -n 20 \
		>"$out/$t.txt" 2>&1 || { tail -n 20 "$out/$t.txt"; echo "${t}_perf failed"; exit 1; }
done
"$bin" --json lab nccl >"$out/cudoctor.json" || true

# 5. busbw side by side
python3 - "$out" "$ngpu" <<'PY'
import json, os, re, sys
out, n = sys.argv[1], int(sys.argv[2])
lab = [l for l in json.load(open(os.path.join(out, "cudoctor.json")))["labs"] if l["name"] == "nccl"][0]
print("cudoctor: %s\n  %s" % (lab["verdict"], lab["setup"]))
mine = {}
for m in lab["measurements"]:
    g = re.match(r"(\S+) busbw (\d+) (B|KiB|MiB|GiB)$", m["label"])
    if g:
        size = int(g.group(2)) << {"B": 0, "KiB": 10, "MiB": 20, "GiB": 30}[g.group(3)]
        mine[(g.group(1), size)] = m["value"]
names = {"all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter", "broadcast": "broadcast"}
ok = True
print("%-15s %12s %12s %12s %7s" % ("collective", "bytes", "nccl-tests", "cudoctor", "ratio"))
for t, name in names.items():
    col = None
    for line in open(os.path.join(out, t + ".txt")):
        tok = line.split()
        if line.startswith("#") and "busbw" in tok and col is None:
            col = tok[1:].index("busbw")
            continue
        if col is None or not tok or not tok[0].isdigit() or len(tok) <= col:
            continue
        size, peer = int(tok[0]), float(tok[col])
        if (name, size) not in mine or (n == 1 and name != "broadcast"):
            continue  # with one rank busbw is 0 except for broadcast
        r = mine[(name, size)] / peer if peer > 0 else float("nan")
        need = 0.98 if size >= 64 << 20 else 0.90
        good = peer > 0 and r >= need
        ok &= good
        print("%-15s %12d %12.2f %12.2f %6.1f%%%s" % (name, size, peer, mine[(name, size)], 100 * r, "" if good else "  < %d%%" % (need * 100)))
sys.exit(0 if ok else 1)
PY
