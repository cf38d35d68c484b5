#!/bin/sh
# Runs one CTest test (cmake/CudoctorTest.cmake registers each through here) and writes its
# tally for tests/check.sh: usage run_test.sh TALLY COMMAND [ARGS...].
# TALLY's first line is "PASSED FAILED SKIPPED": cmocka's own counts of test cases when the
# command is a cmocka binary, else the command as one test (exit 0 passed, 77 skipped, other
# failed); then the lines check prints under the test's name: the skipped and failed cases,
# the output's tail when the command failed, or a passing command's last line (a fuzz run's
# speed). The output goes through to ctest; the exit status is 0, 77 or 1 accordingly.
set -u
tally=$1; shift
mkdir -p "$(dirname "$tally")" && rm -f "$tally" || exit 1
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
"$@" >"$log" 2>&1
rc=$?
cat "$log"
p=0 f=0 s=0
if grep -q '^\[==========\] [0-9]* test(s) run\.' "$log"; then
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	p=${p:-0} f=${f:-0} s=${s:-0}
	notes=$(grep -E '^\[ +(FAILED|SKIPPED) +\] [a-z_]|^\[  ERROR   \]|^\[   LINE   \]' "$log" | awk '!seen[$0]++')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then # it died between cases (a signal, a sanitizer)
		f=1 notes=$(printf '%s\n%s\nexited with status %s' "$notes" "$(tail -n 20 "$log")" "$rc")
	fi
	rc=$((f > 0))
else
	case $rc in
	0) p=1 notes=$(tail -n 1 "$log") ;;
	77) s=1 notes=$(tail -n 1 "$log") ;;
	*) f=1 notes=$(printf '%s\nexited with status %s' "$(tail -n 20 "$log")" "$rc") rc=1 ;;
	esac
fi
printf '%s %s %s\n%s\n' "$p" "$f" "$s" "$notes" | sed '/^$/d' >"$tally"
exit "$rc"
