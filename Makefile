# Front door: `make run` builds and runs cudoctor doctor; `make check` runs every test.
# Both install missing build dependencies first (tools/deps.sh).
JOBS ?= 2
PREFIX ?= /usr/local
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps build run check install clean

all: build

deps:
	@sh tools/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >$(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }
	@grep -E 'lab kernels:' $(BUILD).configure.log | sed 's/^-- /build: /' || true
	@cmake --build $(BUILD) -j$(JOBS) --target cudoctor

run: build
	./$(BUILD)/cudoctor doctor

check: deps
	@sh tests/check.sh

install: build
	install -D -m 755 $(BUILD)/cudoctor $(DESTDIR)$(PREFIX)/bin/cudoctor
	install -D -m 644 docs/cudoctor.1 $(DESTDIR)$(PREFIX)/share/man/man1/cudoctor.1

clean:
	rm -rf build build-asan build-fuzz build*.configure.log
