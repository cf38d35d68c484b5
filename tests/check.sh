#!/bin/sh
# `make check`: the builds of CMakePresets.json one after another, each with its CTest tests.
# check (build/, -Werror) and asan (build-asan/, ASan+UBSan) run every test but the GPU ones
# (build/ also with cudoctor.exe, `make windows`, whose tests run under Wine there only),
# fuzz (build-fuzz/, clang) runs each harness for FUZZ_SECONDS (default 10), and the gpu tests
# run where `nvidia-smi -L` finds a GPU. JOBS (default 2) compile jobs and tests at a time.
# Each phase adds up its tests' tallies (tests/run_test.sh: cmocka's test cases, or a test as
# one); the last line is "check: N passed, N failed, N skipped" over all of it.
set -u
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
total_pass=0 total_fail=0 total_skip=0
started=$(date +%s)

since() { echo $(($(date +%s) - $1)); }

build() { # build PRESET DIR [CMAKE_ARGS...]
	preset=$1 dir=$2; shift 2
	t0=$(date +%s)
	echo "== build $dir (preset $preset)"
	cmake --preset "$preset" "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
	cmake --build --preset "$preset" -j"$JOBS" >"$dir.build.log" 2>&1 ||
		{ tail -n 60 "$dir.build.log"; echo "(the whole log: $dir.build.log)"; return 1; }
	echo "   built in $(since "$t0") s"
}

# ctest starts the slowest tests first by the times it kept from its last run in that tree;
# build-asan/ runs the same tests as build/, so on its first run it borrows build/'s
borrow_costs() { # borrow_costs FROM TO
	costs=Testing/Temporary/CTestCostData.txt
	if [ ! -f "$2/$costs" ] && [ -f "$1/$costs" ]; then
		mkdir -p "$2/Testing/Temporary" && cp "$1/$costs" "$2/$costs"
	fi
}

# run_tests LABEL PRESET DIR: ctest with the preset's tests, then their tallies
run_tests() {
	label=$1 preset=$2 dir=$3
	t0=$(date +%s) p=0 f=0 s=0 bad=""
	rm -rf "$dir/tests/tally"
	ctest --preset "$preset" -j"$JOBS" >"$dir.test.log" 2>&1
	names=$(ctest --preset "$preset" -N | sed -n 's/^ *Test *#[0-9]*: //p')
	[ -n "$names" ] || { echo "$label: no tests registered in $dir"; f=1; }
	for name in $names; do
		tally=$dir/tests/tally/$name
		if [ -f "$tally" ]; then
			read -r tp tf ts <"$tally"
			sed '1d' "$tally" | sed "s|^|  $name: |"
		else
			tp=0 tf=1 ts=0
			echo "  $name: no result: not run, timed out or killed (see $dir.test.log)"
		fi
		p=$((p + tp)) f=$((f + tf)) s=$((s + ts))
		[ "$tf" -gt 0 ] && bad="$bad $name"
	done
	[ -n "$bad" ] && echo "$label: failing:$bad (ctest's output: $dir.test.log; one alone: ctest --test-dir $dir -R '^NAME$' --output-on-failure)"
	echo "$label: $p passed, $f failed, $s skipped ($(since "$t0") s, $JOBS at a time)"
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
}

# cudoctor.exe (`make windows`), which test_windows runs under Wine in the unit phase
windows() {
	t0=$(date +%s)
	echo "== build build-windows (make windows)"
	make windows JOBS="$JOBS" >build-windows.make.log 2>&1 ||
		{ tail -n 40 build-windows.make.log; echo "(the whole log: build-windows.make.log)"; return 1; }
	echo "   built in $(since "$t0") s"
}

if build check build; then
	windows || { echo "windows: 0 passed, 1 failed"; total_fail=$((total_fail + 1)); }
	# the portable binary `make dist` ships (tests/unit/test_wheel.c packs and runs it)
	t0=$(date +%s)
	echo "== build build-dist (tools/portable.sh: zig cc for glibc 2.17)"
	if JOBS=$JOBS sh tools/portable.sh build-dist >/dev/null; then
		echo "   built in $(since "$t0") s"
	else
		echo "portable: the build of build-dist/ failed"; total_fail=$((total_fail + 1))
	fi
	run_tests unit check build
else
	echo "unit: 0 passed, 1 failed"; total_fail=$((total_fail + 1))
fi

if build asan build-asan; then
	borrow_costs build build-asan
	run_tests asan asan build-asan
else
	echo "asan: 0 passed, 1 failed"; total_fail=$((total_fail + 1))
fi

if build fuzz build-fuzz -DCUDOCTOR_FUZZ_SECONDS="$FUZZ_SECONDS"; then
	run_tests fuzz fuzz build-fuzz
else
	echo "fuzz: 0 passed, 1 failed"; total_fail=$((total_fail + 1))
fi

if nvidia-smi -L >/dev/null 2>&1; then
	run_tests gpu gpu build
else
	echo "gpu: skipped (no NVIDIA GPU on this machine)"
fi

echo "check: took $(since "$started") s"
echo "check: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
