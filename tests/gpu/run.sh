#!/bin/sh
# Runs every GPU test script here (tests/gpu/test_*.sh and test_*.py) against a built cudoctor
# and prints "gpu: N passed, N failed". Each script gets the binary as $1 and exits 0 on success.
# Without an NVIDIA GPU each script would fail on purpose, so `make check` only calls this
# where `nvidia-smi -L` answers.
set -u
bin=$(realpath "${1:-build/cudoctor}")
here=$(dirname "$0")
passed=0 failed=0
for t in "$here"/test_*.sh "$here"/test_*.py; do
	[ -f "$t" ] || continue
	case "$t" in
	*.py) runner=python3 ;;
	*) runner=sh ;;
	esac
	if $runner "$t" "$bin"; then
		passed=$((passed + 1)); echo "  $(basename "$t"): ok"
	else
		failed=$((failed + 1)); echo "  $(basename "$t"): FAILED"
	fi
done
echo "gpu: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
