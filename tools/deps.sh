#!/bin/sh
# Installs from Debian what is missing (as root), or prints the one command to run.
#   sh tools/deps.sh        what building and running cudoctor needs (`make build`, `make run`)
#   sh tools/deps.sh test   that, and what the tests need (`make check`): cmocka, clang
#                           for the fuzz build, Open MPI, chromium, zsh, MinGW-w64 and Wine
#                           (cudoctor.exe is built and run by the tests), LLVM 22 (its
#                           llvm-readobj), and the Python packages in tests/requirements.txt
#   sh tools/deps.sh windows  what `make windows` needs: MinGW-w64 and its zlib
# Nothing is installed by hand.
set -u
windows=false
case ${1:-build} in
build) tests=false ;;
test) tests=true windows=true ;;
windows) tests=false windows=true ;;
*) echo "usage: sh tools/deps.sh [build|test|windows]" >&2; exit 2 ;;
esac
missing=""
need() { # need PACKAGE TEST...
	pkg=$1; shift
	"$@" >/dev/null 2>&1 || missing="$missing $pkg"
}
have_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/include/x86_64-linux-gnu/$1" ] || [ -f "/usr/include/aarch64-linux-gnu/$1" ]; }

need cmake command -v cmake
need make command -v make
need gcc command -v gcc
need liblz4-dev have_header lz4.h
need libzstd-dev have_header zstd.h
need libjansson-dev have_header jansson.h
need zlib1g-dev have_header zlib.h      # inflates zip members: arch on wheels
if $windows; then
	need gcc-mingw-w64-x86-64 command -v x86_64-w64-mingw32-gcc  # cudoctor.exe, and the PE fixtures of tests/fixtures/build.sh
	need libz-mingw-w64-dev test -f /usr/x86_64-w64-mingw32/include/zlib.h
	need curl command -v curl  # tools/win_deps.sh fetches jansson, lz4 and zstd's sources
	need xz-utils command -v xz
fi
if $tests; then
	need clang command -v clang
	need libclang-rt-dev sh -c 'echo "int LLVMFuzzerTestOneInput(const char*d,unsigned long s){return 0;}" | clang -x c -fsanitize=fuzzer -o /dev/null -'
	need libcmocka-dev have_header cmocka.h
	need openmpi-bin command -v mpirun          # the fleet's MPI tests (tests/unit/test_fleet_mpi.c)
	need libopenmpi-dev command -v mpicc      # builds the fleet's MPI plug-in (plugins/)
	need python3 command -v python3
	need chromium sh -c 'command -v chromium || command -v chromium-browser'  # draws --html pages in the tests
	need zsh command -v zsh          # the completion test loads the zsh script
	need wine64 sh -c 'command -v wine64 || [ -x /usr/lib/wine/wine64 ]'  # runs cudoctor.exe (tests/unit/test_windows.c)
	need python3-pip sh -c 'python3 -m pip --version'
	need zstd command -v zstd          # compresses the conda packages test_conda builds (tests/wheels/conda_files.py)
	need llvm-22 test -x /usr/lib/llvm-22/bin/llvm-readobj  # arch --llvm-offloading is compared with its llvm-readobj --offloading
	need wine64 sh -c 'command -v wine64 || test -x /usr/lib/wine/wine64'  # runs the MinGW fakes nvcuda.dll/nvml.dll (tests/unit/test_win_fakes.c)
fi

if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "deps: installing$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
			echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
	else
		echo "deps: missing$missing; run: sudo apt-get install -y$missing" >&2
		exit 1
	fi
fi

# Python packages the tests use to write real model files (gguf, safetensors).
if $tests && [ -f tests/requirements.txt ]; then
	if ! python3 tools/have_py_reqs.py tests/requirements.txt 2>/dev/null; then
		echo "deps: installing the Python packages in tests/requirements.txt" >&2
		python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt >&2 ||
			python3 -m pip install --quiet --disable-pip-version-check --break-system-packages -r tests/requirements.txt >&2 || {
			echo "deps: pip install -r tests/requirements.txt failed" >&2; exit 1; }
	fi
fi
exit 0
