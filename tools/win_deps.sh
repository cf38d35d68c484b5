#!/bin/sh
# Builds the static MinGW-w64 libraries cudoctor.exe links that Debian does not ship for
# MinGW (jansson, lz4, zstd), from the Debian pool's original tarballs of the versions
# bookworm ships, each checked against its sha256 here. Cached outside the repository:
#   sh tools/win_deps.sh [PREFIX]     default ~/.cache/cudoctor-build/mingw64
# zlib comes from apt (libz-mingw-w64-dev, tools/deps.sh windows).
set -eu
cache=${CUDOCTOR_BUILD_CACHE:-$HOME/.cache/cudoctor-build}
prefix=${1:-$cache/mingw64}
cc=x86_64-w64-mingw32-gcc
ar=x86_64-w64-mingw32-ar
pool=http://deb.debian.org/debian/pool/main
stamp=$prefix/.built-jansson-2.14-lz4-1.9.4-zstd-1.5.4
[ -f "$stamp" ] && exit 0
command -v $cc >/dev/null || { echo "win_deps: $cc not found: run sh tools/deps.sh windows" >&2; exit 1; }

fetch() { # fetch URL SHA256: into $cache, checked
	f=$cache/$(basename "$1")
	if [ ! -f "$f" ] || ! echo "$2  $f" | sha256sum -c --status; then
		echo "win_deps: downloading $1" >&2
		curl -sSfL -o "$f.part" "$1" || { echo "win_deps: cannot download $1" >&2; exit 1; }
		echo "$2  $f.part" | sha256sum -c --status || { echo "win_deps: $1: sha256 differs from $2" >&2; rm -f "$f.part"; exit 1; }
		mv "$f.part" "$f"
	fi
	echo "$f"
}
mkdir -p "$cache" "$prefix/include" "$prefix/lib"
work=$(mktemp -d "$cache/work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# static archive from sources: lib NAME CFLAGS SOURCES...
lib() {
	name=$1 flags=$2; shift 2
	mkdir -p "$work/obj-$name"
	for s in "$@"; do
		$cc -O2 $flags -c "$s" -o "$work/obj-$name/$(basename "$s").o"
	done
	rm -f "$prefix/lib/lib$name.a"
	$ar rcs "$prefix/lib/lib$name.a" "$work/obj-$name"/*.o
}

tar -C "$work" -xzf "$(fetch $pool/j/jansson/jansson_2.14.orig.tar.gz c739578bf6b764aa0752db9a2fdadcfe921c78f1228c7ec0bb47fa804c55d17b)"
tar -C "$work" -xzf "$(fetch $pool/l/lz4/lz4_1.9.4.orig.tar.gz 0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b)"
tar -C "$work" -xJf "$(fetch $pool/libz/libzstd/libzstd_1.5.4+dfsg2.orig.tar.xz 8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953)"

# jansson: its two generated headers, as its CMakeLists.txt writes them for MinGW
j=$work/jansson-2.14/src
sed -e 's/@json_inline@/inline/' -e 's/@json_have_localeconv@/1/' \
    -e 's/@json_have_atomic_builtins@/1/' -e 's/@json_have_sync_builtins@/1/' \
    -e 's/@json_have_long_long@/1/' "$j/jansson_config.h.in" >"$j/jansson_config.h"
cat >"$j/jansson_private_config.h" <<'H'
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_LOCALE_H 1
#define HAVE_SETLOCALE 1
#define HAVE_ATOMIC_BUILTINS 1
#define HAVE_SYNC_BUILTINS 1
#define INITIAL_HASHTABLE_ORDER 3
#define USE_WINDOWS_CRYPTOAPI 1
H
lib jansson "-DHAVE_CONFIG_H -I$j" "$j"/*.c
cp "$j/jansson.h" "$j/jansson_config.h" "$prefix/include/"

# lz4: the block format is all cudoctor reads
l=$work/lz4-1.9.4/lib
lib lz4 "" "$l/lz4.c"
cp "$l/lz4.h" "$prefix/include/"

# zstd: decompression only, no assembly
z=$work/zstd-1.5.4/lib
lib zstd "-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -DZSTD_MULTITHREAD=0 -I$z -I$z/common" \
	"$z"/common/*.c "$z"/decompress/*.c
cp "$z/zstd.h" "$z/zstd_errors.h" "$prefix/include/"

touch "$stamp"
echo "win_deps: $prefix" >&2
