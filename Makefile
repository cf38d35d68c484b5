# Front door: `make run` builds and runs cudoctor doctor; `make check` runs every test.
# Each installs what it is missing first (tools/deps.sh): `make run` only what building and
# running the binary needs, `make check` also what the tests need. The builds themselves are
# the presets in CMakePresets.json (`make build` is `cmake --preset default`).
JOBS ?= 2
PREFIX ?= /usr/local
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps test-deps build run check install deb dist windows clean explain-score

all: build

deps:
	@sh tools/deps.sh build

test-deps:
	@sh tools/deps.sh test

build: deps
	@cmake --preset default -B $(BUILD) $(CMAKE_FLAGS) >$(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }
	@grep -E 'lab kernels:' $(BUILD).configure.log | sed 's/^-- /build: /' || true
	@echo "build: compiling cudoctor (log: $(BUILD).build.log)"
	@cmake --build $(BUILD) -j$(JOBS) --target cudoctor >$(BUILD).build.log 2>&1 || { tail -n 40 $(BUILD).build.log; echo "build: failed; the whole log is in $(BUILD).build.log"; exit 1; }
	@echo "build: $(BUILD)/cudoctor"

# The report's exit status is its answer, not a build failure: say what it means and end 0.
run: build
	@./$(BUILD)/cudoctor doctor; rc=$$?; case $$rc in \
	0) echo "run: cudoctor exited 0: no error finding";; \
	1) echo "run: cudoctor exited 1: the report above has an error finding; that is its answer, the build is fine";; \
	2) echo "run: cudoctor exited 2: usage error";; \
	*) echo "run: cudoctor exited $$rc: it could not finish (see above)"; exit $$rc;; esac

check: test-deps
	@JOBS=$(JOBS) sh tests/check.sh

# How right explain is on a directory of error texts with their .expect files (the corpus's
# format): `make explain-score DIR=new-reports/`. A measurement, not a test.
DIR ?= tests/explain
explain-score:
	@test -x $(BUILD)/cudoctor || $(MAKE) --no-print-directory build
	@python3 tools/explain_score.py --bin $(BUILD)/cudoctor $(DIR)

# The install rules of CMakeLists.txt: the binary, the man page, the completions, the docs
# and, where it was built, the fleet's MPI plug-in. DESTDIR is honoured.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# A Debian binary package (dpkg-deb) in $(BUILD)/deb/, laid out by the same install rules.
deb: build
	@sh tools/make_deb.sh $(BUILD)/cudoctor $(BUILD)/deb | sed 's/^/deb: /'

# The Linux wheel (py3-none-manylinux_2_17), the Windows wheel (py3-none-win_amd64, cudoctor.exe of
# `make windows`), the Linux tarball and the Windows zip in dist/: the Linux binary is the portable one of
# tools/portable.sh (zig's C compiler for glibc 2.17, in build-dist/), packed by the same install
# rules (tools/make_dist.py reads the tag from the glibc the binary needs).
dist: build windows
	@bin=$$(sh tools/portable.sh build-dist | tail -n 1) && \
		python3 tools/make_dist.py --windows build-windows/cudoctor.exe "$$bin" dist && \
		cp build-windows/cudoctor-*-windows-x86_64.zip dist/ && ls dist/cudoctor-*-windows-x86_64.zip

# cudoctor.exe cross-compiled with MinGW-w64 (docs/windows.md): build-windows/cudoctor.exe,
# static, and the release zip beside it. jansson, lz4 and zstd are built for MinGW from
# Debian's source tarballs into ~/.cache/cudoctor-build (tools/win_deps.sh); the preset
# `windows` reuses build/'s lab fatbin when there is one (nvcc runs once for both builds).
windows:
	@sh tools/deps.sh windows
	@sh tools/win_deps.sh
	@cmake --preset windows $(CMAKE_FLAGS) >build-windows.configure.log 2>&1 || { cat build-windows.configure.log; exit 1; }
	@echo "windows: compiling cudoctor.exe (log: build-windows.build.log)"
	@cmake --build --preset windows -j$(JOBS) >build-windows.build.log 2>&1 || { tail -n 40 build-windows.build.log; echo "windows: failed; the whole log is in build-windows.build.log"; exit 1; }
	@echo "windows: build-windows/cudoctor.exe and $$(ls build-windows/cudoctor-*-windows-x86_64.zip)"

clean:
	rm -rf build build-asan build-fuzz build-dist build-windows dist build*.configure.log build*.build.log build*.test.log
