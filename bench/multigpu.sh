#!/bin/sh
# The multi-GPU comparison: cudoctor topo against nvidia-smi (topo -m, -p2p r/w), and the P2P
# peers nvbandwidth and cuda-samples' p2pBandwidthLatencyTest, built here from their public
# sources (never committed) and judged against the link theory `cudoctor topo` gives.
# The GPU machine has no network, so the sources come as directories fetched beforehand (a
# source tree or a bare git directory; the latter is exported with git archive):
#   sh bench/multigpu.sh --nvbandwidth SRC --cuda-samples SRC [--bin build/cudoctor] [--out DIR]
# Builds into .peers/multigpu/ (git-ignored); raw outputs and a summary go to --out
# (default bench/results/multigpu_<date>). Exit 0 when every step ran, 1 when a comparison
# failed (a mismatch, or lab p2p under its target against the peers), 3 when something could
# not be built or run.
set -u
NVBW_SRC="" SAMPLES_SRC="" BIN=build/cudoctor OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--nvbandwidth) NVBW_SRC=$2; shift 2 ;;
	--cuda-samples) SAMPLES_SRC=$2; shift 2 ;;
	--bin) BIN=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "usage: $0 --nvbandwidth SRC --cuda-samples SRC [--bin build/cudoctor] [--out DIR]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
peers=$root/.peers/multigpu
OUT=${OUT:-$root/bench/results/multigpu_$(date +%Y%m%d_%H%M)}
mkdir -p "$peers" "$OUT"
BIN=$(realpath "$BIN")
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
status=0

# NVLink SHARP / multicast stays off for every program started here
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

log() { echo "$*" | tee -a "$OUT/summary.txt"; }

# tree SRC NAME: a directory with the sources of NAME (exports a bare git directory)
tree() {
	if [ -d "$1/objects" ] && [ -f "$1/HEAD" ]; then
		rm -rf "$peers/$2-src" && mkdir -p "$peers/$2-src" &&
			git --git-dir="$1" archive HEAD | tar -x -C "$peers/$2-src" && echo "$peers/$2-src"
	else
		echo "$1"
	fi
}

log "# multi-GPU run $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
log "cudoctor: $BIN ($("$BIN" --version 2>&1))"
nvidia-smi -L | tee "$OUT/nvidia-smi-L.txt" >>"$OUT/summary.txt"
ngpu=$(nvidia-smi -L | grep -c '^GPU ')
log "GPUs: $ngpu"

# ---- topo against nvidia-smi, every cell
nvidia-smi topo -m >"$OUT/nvidia-smi-topo-m.txt" 2>&1
for c in r w n a p; do nvidia-smi topo -p2p $c >"$OUT/nvidia-smi-topo-p2p-$c.txt" 2>&1; done
"$BIN" --color=never topo >"$OUT/cudoctor-topo.txt" 2>&1
"$BIN" --json topo >"$OUT/cudoctor-topo.json" 2>&1
if python3 "$root/tests/gpu/test_topo.py" "$BIN" >"$OUT/topo-compare.txt" 2>&1; then
	log "topo vs nvidia-smi: $(tail -1 "$OUT/topo-compare.txt")"
else
	log "topo vs nvidia-smi: MISMATCH ($(tail -1 "$OUT/topo-compare.txt")), see topo-compare.txt"
	status=1
fi

# ---- nvbandwidth
if [ -n "$NVBW_SRC" ]; then
	src=$(tree "$NVBW_SRC" nvbandwidth)
	if [ ! -f /usr/include/boost/program_options.hpp ]; then
		log "nvbandwidth: NOT BUILT (needs libboost-program-options-dev: /usr/include/boost/program_options.hpp is missing)"
		status=3
	elif cmake -S "$src" -B "$peers/nvbandwidth" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" >"$OUT/nvbandwidth-build.log" 2>&1 &&
		cmake --build "$peers/nvbandwidth" -j"$(nproc)" >>"$OUT/nvbandwidth-build.log" 2>&1; then
		nvbw=$peers/nvbandwidth/nvbandwidth
		for t in device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce \
			device_to_device_bidirectional_memcpy_read_ce device_to_device_bidirectional_memcpy_write_ce \
			device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm \
			device_to_device_bidirectional_memcpy_read_sm device_to_device_bidirectional_memcpy_write_sm \
			host_to_device_memcpy_ce device_to_host_memcpy_ce; do
			"$nvbw" -t "$t" >"$OUT/nvbandwidth-$t.txt" 2>&1 || log "nvbandwidth -t $t: exit $?"
		done
		log "nvbandwidth: built ($("$nvbw" --help 2>&1 | head -1))"
	else
		log "nvbandwidth: BUILD FAILED, see nvbandwidth-build.log"
		status=3
	fi
fi

# ---- p2pBandwidthLatencyTest
if [ -n "$SAMPLES_SRC" ]; then
	src=$(tree "$SAMPLES_SRC" cuda-samples)
	cu=$src/Samples/5_Domain_Specific/p2pBandwidthLatencyTest/p2pBandwidthLatencyTest.cu
	if "$NVCC" -O3 -arch=native -I"$src/Common" -o "$peers/p2pBandwidthLatencyTest" "$cu" >"$OUT/p2p-build.log" 2>&1; then
		"$peers/p2pBandwidthLatencyTest" >"$OUT/p2pBandwidthLatencyTest.txt" 2>&1 || log "p2pBandwidthLatencyTest: exit $?"
		"$peers/p2pBandwidthLatencyTest" --p2p_read >"$OUT/p2pBandwidthLatencyTest-read.txt" 2>&1 || true
		log "p2pBandwidthLatencyTest: built and run"
	else
		log "p2pBandwidthLatencyTest: BUILD FAILED, see p2p-build.log"
		status=3
	fi
fi

# ---- cudoctor lab p2p against the peers: >= 97% of nvbandwidth per pair and direction,
# 4-byte latency within 10% of p2pBandwidthLatencyTest (bench/p2p_compare.py)
if "$BIN" lab list 2>/dev/null | grep -q '^ *p2p '; then
	"$BIN" --json lab p2p --plot "$OUT/plots" >"$OUT/cudoctor-lab-p2p.json" 2>"$OUT/cudoctor-lab-p2p.err"
	log "cudoctor lab p2p: exit $?"
	"$BIN" --color=never lab p2p >"$OUT/cudoctor-lab-p2p.txt" 2>&1
	python3 "$here/p2p_compare.py" "$OUT" >"$OUT/p2p-compare.txt" 2>&1
	case $? in
	0) log "lab p2p vs peers: $(tail -1 "$OUT/p2p-compare.txt")" ;;
	1) log "lab p2p vs peers: BELOW TARGET, see p2p-compare.txt ($(grep -c '^  OUT:' "$OUT/p2p-compare.txt") cells)"; status=1 ;;
	*) log "lab p2p vs peers: could not compare ($(tail -1 "$OUT/p2p-compare.txt"))"; status=3 ;;
	esac
	if python3 "$root/tests/gpu/test_p2p.py" "$BIN" >"$OUT/test-p2p.txt" 2>&1; then
		log "tests/gpu/test_p2p.py: ok"
	else
		log "tests/gpu/test_p2p.py: FAILED, see test-p2p.txt"
		status=1
	fi
else
	log "cudoctor lab p2p: not in this build"
fi

# ---- the peers' numbers against the link theory of each pair
python3 - "$OUT" <<'PY' | tee -a "$OUT/summary.txt"
import json, os, re, sys
out = sys.argv[1]

def matrices(path):
    """nvbandwidth / p2pBandwidthLatencyTest text: [(title, {(row, col): value})]."""
    if not os.path.exists(path):
        return []
    res, title, cols, cells = [], None, None, {}
    for line in open(path, errors="replace"):
        s = line.rstrip("\n")
        if re.search(r"(bandwidth|Bandwidth|Latency).*\((GB/s|us)\)", s):
            if title and cells:
                res.append((title, cells))
            title, cols, cells = s.strip(), None, {}
            continue
        f = s.split()
        if title and f and cols is None and all(x.isdigit() for x in f[-max(1, len(f) - 1):]):
            cols = [int(x) for x in f if x.isdigit()]
            continue
        if title and cols and f and (f[0].isdigit() or f[0] in ("GPU", "CPU")) and len(f) >= 2:
            row = f[1] if f[0] in ("GPU", "CPU") else f[0]
            vals = f[2:] if f[0] in ("GPU", "CPU") else f[1:]
            tag = f[0] if f[0] in ("GPU", "CPU") else ""
            for c, v in zip(cols, vals):
                try:
                    cells[(tag + row, c)] = float(v)
                except ValueError:
                    pass
    if title and cells:
        res.append((title, cells))
    return res

try:
    topo = json.load(open(os.path.join(out, "cudoctor-topo.json")))["topology"]
except Exception as e:
    print(f"theory: no cudoctor topo JSON ({e})")
    sys.exit(0)
theory = {(p["a"], p["b"]): p["theory"] for p in topo["pairs"]}
if not theory:
    print("theory: one GPU, no pair to compare")
    sys.exit(0)
for name in sorted(os.listdir(out)):
    if not (name.startswith("nvbandwidth-device_to_device") or name.startswith("p2pBandwidthLatencyTest")):
        continue
    for title, cells in matrices(os.path.join(out, name)):
        if "(us)" in title:
            print(f"{name}: {title}: " + ", ".join(f"{r}->{c} {v:.2f} us" for (r, c), v in sorted(cells.items())
                                                    if str(r).lstrip("GPUC") != str(c)))
            continue
        bidir = "bidirectional" in title.lower() or "<->" in title
        for (r, c), v in sorted(cells.items()):
            try:
                a, b = int(str(r).lstrip("GPUC")), int(c)
            except ValueError:
                continue
            th = theory.get((a, b))
            if a == b or not th:
                continue
            limit = th["gbs_per_direction"] * (2 if bidir and "SM" in title else 1)
            print(f"{name}: {a}->{b} {v:.1f} GB/s = {100 * v / limit:.0f}% of {th['text']}")
PY
log "results in $OUT"
exit $status
