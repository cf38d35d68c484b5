#!/bin/sh
# Runs every cmocka test binary in DIR and prints "LABEL: N passed, N failed, N skipped".
# A binary that dies from a signal counts as one failure. Exit 1 if anything failed.
set -u
dir=$1
label=${2:-unit}
passed=0 failed=0 skipped=0 bad=""
for t in "$dir"/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^\[  (FAILED|SKIPPED) \]|^\[  ERROR   \]|^\[ +FAILED +\] [a-z_]' | sed "s/^/  $name: /"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	passed=$((passed + ${p:-0})); skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
		f=1
		printf '%s\n' "$out" | tail -n 20 | sed "s/^/  $name: /"
		echo "  $name: exited with status $rc"
	fi
	if [ "${f:-0}" -gt 0 ]; then
		failed=$((failed + f)); bad="$bad $name"
	fi
done
[ -n "$bad" ] && echo "$label: failing binaries:$bad"
echo "$label: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
