#!/bin/sh
# Builds the portable Linux cudoctor of the wheel and the tarball in DIR (default build-dist/):
# the same sources and static libraries as `make build`, compiled by zig's C compiler for glibc
# 2.17, so the binary runs on any glibc >= 2.17 and the wheel's manylinux_2_17 tag is true.
#   sh tools/portable.sh [DIR]     prints the binary's path on its last line
# zig comes from the package index (the `ziglang` wheel, pinned below) into a cache outside the
# repo, once; the libraries' headers are copied beside it so that zig sees them and not the
# build machine's glibc headers. The lab fatbin is build/'s when it exists (nvcc is not needed
# twice).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build-dist}
ZIG_VERSION=0.17.1
cache=${CUDOCTOR_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudoctor-build}
zigdir=$cache/ziglang-$ZIG_VERSION
machine=$(uname -m)
if [ ! -x "$zigdir/ziglang/zig" ]; then
	rm -rf "$zigdir.tmp"
	PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: \
		--target "$zigdir.tmp" "ziglang==$ZIG_VERSION" >&2 ||
		{ echo "portable.sh: pip could not install ziglang==$ZIG_VERSION from the package index" >&2; exit 3; }
	rm -rf "$zigdir" && mv "$zigdir.tmp" "$zigdir"
fi
# the headers of the four libraries cudoctor links (and nothing else of /usr/include)
inc=$cache/depinc-$machine
rm -rf "$inc" && mkdir -p "$inc"
for h in jansson.h jansson_config.h lz4.h zstd.h zstd_errors.h zlib.h zconf.h; do
	for d in /usr/include /usr/include/$machine-linux-gnu; do
		if [ -f "$d/$h" ]; then cp "$d/$h" "$inc/" && break; fi
	done
	[ -f "$inc/$h" ] || { echo "portable.sh: $h not found: run \`make deps\`" >&2; exit 3; }
done
cc=$cache/zigcc-$machine
cat >"$cc.tmp" <<CC
#!/bin/sh
exec "$zigdir/ziglang/zig" cc -target $machine-linux-gnu.2.17 -isystem "$inc" "\$@"
CC
chmod +x "$cc.tmp" && mv "$cc.tmp" "$cc"
fatbin=
[ -f build/generated/lab_kernels.fatbin ] && fatbin=$PWD/build/generated/lab_kernels.fatbin
cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_LIBRARY_PATH="/usr/lib/$machine-linux-gnu" \
	-DCMAKE_BUILD_TYPE=Release -DCUDOCTOR_TESTS=OFF ${fatbin:+-DCUDOCTOR_PREBUILT_FATBIN="$fatbin"} >"$dir.configure.log" 2>&1 ||
	{ cat "$dir.configure.log" >&2; exit 1; }
cmake --build "$dir" -j"${JOBS:-2}" --target cudoctor >"$dir.build.log" 2>&1 ||
	{ tail -n 40 "$dir.build.log" >&2; echo "(the whole log: $dir.build.log)" >&2; exit 1; }
echo "$dir/cudoctor"
