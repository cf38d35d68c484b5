#!/bin/sh
# `make deb`: a Debian binary package of a built cudoctor, with dpkg-deb: the binary, the man
# page, the bash/zsh/fish completions (made by the binary itself) and README and docs under
# /usr/share/doc/cudoctor. usage: make_deb.sh BINARY OUTDIR [MAINTAINER]
# Prints the path of the .deb on its last line.
set -eu
bin=$1 out=$2
maint=${3:-$(git log -1 --format='%an <%ae>' 2>/dev/null || echo 'cudoctor developers <root@localhost>')}
version=$("$bin" --version | sed -n 's/^cudoctor \([0-9][0-9A-Za-z.+~-]*\)$/\1/p')
[ -n "$version" ] || { echo "make_deb: '$bin --version' names no version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
# the newest glibc symbol version the binary needs: its one dependency (lz4, zstd and
# jansson are linked in statically)
glibc=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
root=$out/root
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/cudoctor/docs" \
	"$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
	"$root/usr/share/fish/vendor_completions.d"
install -m 755 "$bin" "$root/usr/bin/cudoctor"
strip --strip-unneeded "$root/usr/bin/cudoctor" 2>/dev/null || true
gzip -9n <docs/cudoctor.1 >"$root/usr/share/man/man1/cudoctor.1.gz"
"$bin" completion bash >"$root/usr/share/bash-completion/completions/cudoctor"
"$bin" completion zsh >"$root/usr/share/zsh/vendor-completions/_cudoctor"
"$bin" completion fish >"$root/usr/share/fish/vendor_completions.d/cudoctor.fish"
install -m 644 README.md "$root/usr/share/doc/cudoctor/README.md"
for f in docs/*.md docs/cudoctor.schema.json; do
	install -m 644 "$f" "$root/usr/share/doc/cudoctor/docs/$(basename "$f")"
done
chmod 644 "$root"/usr/share/man/man1/* "$root"/usr/share/*/*completion*/* 2>/dev/null || true
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
