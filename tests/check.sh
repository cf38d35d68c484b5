#!/bin/sh
# `make check`: a -Werror build and an ASan+UBSan build each run every unit test, each fuzz
# harness runs for FUZZ_SECONDS (default 10), and the GPU tests run where a GPU exists.
# The last line is "N passed, N failed" over all of it.
set -u
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
total_pass=0 total_fail=0 total_skip=0
tally() { # tally LOGFILE: add the "label: N passed, N failed, N skipped" line to the totals
	line=$(grep -E '^[a-z -]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	p=$(echo "$line" | sed 's/.*: \([0-9]*\) passed.*/\1/'); f=$(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')
	s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	total_pass=$((total_pass + ${p:-0})); total_fail=$((total_fail + ${f:-1})); total_skip=$((total_skip + ${s:-0}))
}
build() { # build DIR CMAKE_ARGS...
	dir=$1; shift
	echo "== build $dir"
	cmake -S . -B "$dir" "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
	cmake --build "$dir" -j"$JOBS" >"$dir.build.log" 2>&1 || { tail -n 60 "$dir.build.log"; return 1; }
}
log=$(mktemp); trap 'rm -f "$log"' EXIT

if build build -DCMAKE_BUILD_TYPE=RelWithDebInfo; then
	sh tests/run_unit.sh build/tests/unit unit | tee "$log"; tally "$log"
else
	echo "unit: 0 passed, 1 failed"; total_fail=$((total_fail + 1))
fi

fatbin=$(ls build/generated/lab_kernels.fatbin 2>/dev/null)
if build build-asan -DCMAKE_BUILD_TYPE=Debug -DCUDOCTOR_SANITIZE=ON \
	-DCUDOCTOR_PREBUILT_FATBIN="$fatbin" -DCUDOCTOR_FIXTURES_DIR="$PWD/build/fixtures"; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		sh tests/run_unit.sh build-asan/tests/unit asan | tee "$log"; tally "$log"
else
	echo "asan: 0 passed, 1 failed"; total_fail=$((total_fail + 1))
fi

if ls tests/fuzz/fuzz_*.c >/dev/null 2>&1; then
	if CC=clang build build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDOCTOR_FUZZ=ON \
		-DCUDOCTOR_PREBUILT_FATBIN="$fatbin"; then
		sh tests/run_fuzz.sh build-fuzz/fuzz "$FUZZ_SECONDS" | tee "$log"; tally "$log"
	else
		echo "fuzz: 0 passed, 1 failed"; total_fail=$((total_fail + 1))
	fi
fi

if [ -x tests/gpu/run.sh ] && nvidia-smi -L >/dev/null 2>&1; then
	sh tests/gpu/run.sh build/cudoctor | tee "$log"; tally "$log"
else
	echo "gpu: skipped (no NVIDIA GPU on this machine)"
fi

echo "check: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
