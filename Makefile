# Front door: `make run` builds and runs cudoctor doctor; `make check` runs every test.
# Both install missing build dependencies first (tools/deps.sh).
JOBS ?= 2
PREFIX ?= /usr/local
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps build run check install deb clean

all: build

deps:
	@sh tools/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >$(BUILD).configure.log 2>&1 || { cat $(BUILD).configure.log; exit 1; }
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

check: deps
	@sh tests/check.sh

install: build
	install -D -m 755 $(BUILD)/cudoctor $(DESTDIR)$(PREFIX)/bin/cudoctor
	install -D -m 644 docs/cudoctor.1 $(DESTDIR)$(PREFIX)/share/man/man1/cudoctor.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	./$(BUILD)/cudoctor completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/cudoctor
	./$(BUILD)/cudoctor completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_cudoctor
	./$(BUILD)/cudoctor completion fish >$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/cudoctor.fish

# A Debian binary package (dpkg-deb) in $(BUILD)/deb/: the binary, man page, completions, docs.
deb: build
	@sh tools/make_deb.sh $(BUILD)/cudoctor $(BUILD)/deb | sed 's/^/deb: /'

clean:
	rm -rf build build-asan build-fuzz build*.configure.log
