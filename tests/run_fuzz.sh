#!/bin/sh
# One fuzz test (tests/fuzz/CMakeLists.txt registers one per harness): runs the libFuzzer
# harness for SECONDS over a scratch copy of its seed corpus (tests/fuzz/corpus/NAME).
# A crash, leak or timeout is a failure; the input is kept in FINDINGS and named in the output.
# usage: run_fuzz.sh HARNESS SECONDS FINDINGS
set -u
h=$1 seconds=$2 findings=$3
name=$(basename "$h" | sed 's/^fuzz_//')
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$findings" "$work/corpus" || exit 1
[ -d "$here/fuzz/corpus/$name" ] && cp -r "$here/fuzz/corpus/$name/." "$work/corpus/"
# the file parsers (whose cost once grew with the square of the input) get inputs of up to
# 4 MiB (safetensors, JSON parsed by jansson under ASan at ~4 s per MiB: 1 MiB, inside the
# 10 s limit per input); the others libFuzzer's default, from their seeds
case $name in
ar|cubin|cubin_attrs|decompress|devcode|elf|fatbin|gguf|pe|ptx) max_len=-max_len=4194304 ;;
safetensors) max_len=-max_len=1048576 ;;
*) max_len= ;;
esac
if "$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 $max_len -print_final_stats=0 \
	-artifact_prefix="$findings/" "$work/corpus" >"$work/log" 2>&1; then
	echo "clean for ${seconds}s ($(grep -o 'exec/s: [0-9]*' "$work/log" | tail -n 1))"
else
	sed -n '/ERROR/,$p' "$work/log" | head -n 40
	echo "FOUND A PROBLEM (its input: $findings/)"
	exit 1
fi
