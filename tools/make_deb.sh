#!/bin/sh
# `make deb`: a Debian binary package of a built cudoctor, with dpkg-deb. Its files are what
# `cmake --install` puts under /usr for component "cudoctor" (CMakeLists.txt's install rules:
# the binary, stripped; the man page, gzip'd here as Debian wants; the bash/zsh/fish
# completions; README and docs under /usr/share/doc/cudoctor; the NHC module and the
# node-problem-detector config under /usr/share/cudoctor, the NHC module also in
# /etc/nhc/scripts, where NHC reads its checks, a conffile).
# usage: make_deb.sh BINARY OUTDIR [MAINTAINER], BINARY in its CMake build tree.
# The Maintainer field is whoever builds the package: MAINTAINER, else Debian's own
# DEBFULLNAME/DEBEMAIL, else git's user.name/user.email; an address that is no one's (a
# noreply, example or localhost one) is never written: then the field names the project
# and says the package is a local build, without an address.
# Prints the path of the .deb on its last line.
set -eu
bin=$1 out=$2
real_address() {
	case $1 in
	*@*.*) case $1 in *noreply*|*@localhost*|*.example|*.example.*|*@example.*|*.invalid|*.test) return 1;; esac;;
	*) return 1;;
	esac
}
maint=${3:-}
if [ -z "$maint" ] && [ -n "${DEBFULLNAME:-}" ] && real_address "${DEBEMAIL:-}"; then
	maint="$DEBFULLNAME <$DEBEMAIL>"
fi
if [ -z "$maint" ]; then
	name=$(git config user.name 2>/dev/null || true) mail=$(git config user.email 2>/dev/null || true)
	[ -n "$name" ] && real_address "$mail" && maint="$name <$mail>"
fi
maint=${maint:-cudoctor project (local build, no maintainer address)}
tree=$(dirname "$bin")
[ -f "$tree/cmake_install.cmake" ] || { echo "make_deb: $tree is not a CMake build tree (no cmake_install.cmake)" >&2; exit 1; }
version=$("$bin" --version | sed -n '1s/^cudoctor \([0-9][0-9A-Za-z.+~-]*\)\( (commit [0-9a-z-]*)\)\{0,1\}$/\1/p')
[ -n "$version" ] || { echo "make_deb: '$bin --version' names no version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
root=$out/root
rm -rf "$root"
mkdir -p "$root/DEBIAN"
DESTDIR=$root cmake --install "$tree" --prefix /usr --component cudoctor --strip >/dev/null
gzip -9n "$root/usr/share/man/man1/cudoctor.1"
# sysconfdir under prefix /usr is Debian's /etc
mkdir -p "$root/etc"
mv "$root/usr/etc/nhc" "$root/etc/nhc"
rmdir "$root/usr/etc"
echo /etc/nhc/scripts/cudoctor.nhc >"$root/DEBIAN/conffiles"
# the newest glibc symbol version the binary needs: its one dependency (lz4, zstd and
# jansson are linked in statically)
glibc=$(objdump -T "$root/usr/bin/cudoctor" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
find "$root" -type d -exec chmod 755 {} +
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: cudoctor
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: libc6 (>= $glibc)
Section: devel
Priority: optional
Description: checks the CUDA stack of a machine and explains CUDA errors
 cudoctor reads the NVIDIA driver, the GPUs, CUDA toolkits, runtimes, Python
 frameworks and the platform, checks them against each other and explains
 CUDA errors with evidence from this machine. It also lists the kernel images
 binaries carry (arch), prints nvcc flags for GPUs (gencode), estimates model
 memory (mem) and runs small experiments on the GPU (lab).
CONTROL
deb=$out/cudoctor_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
