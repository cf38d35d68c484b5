#!/bin/sh
# arch_cmp_lib.sh RESULTS DIR CUOBJDUMP LIB: one library's cuobjdump --list-elf --list-ptx
# against cudoctor arch --cuobjdump (called by arch_gpu.sh, eight at a time). Prints
# "same NAME N lines", "DIFF NAME ..." or "none NAME" (no device code in either).
R=$1 D=$2 CUOBJDUMP=$3 f=$4
n=$(echo "$f" | sed 's|.*/site-packages/||; s|/|_|g')
"$CUOBJDUMP" --list-elf --list-ptx "$f" >"$R/libs/$n.cuobjdump" 2>/dev/null
"$D/cudoctor" arch --cuobjdump "$f" >"$R/libs/$n.ours" 2>&1
a=$(grep -c . "$R/libs/$n.cuobjdump"); b=$(grep -c . "$R/libs/$n.ours")
if [ "$a" -eq 0 ] && [ "$b" -eq 0 ]; then
	rm -f "$R/libs/$n.cuobjdump" "$R/libs/$n.ours"; echo "none $n"
elif cmp -s "$R/libs/$n.cuobjdump" "$R/libs/$n.ours"; then
	rm -f "$R/libs/$n.ours"; gzip -f "$R/libs/$n.cuobjdump"; echo "same $n $a lines"
else
	gzip -f "$R/libs/$n.cuobjdump" "$R/libs/$n.ours"; echo "DIFF $n cuobjdump=$a ours=$b"
fi
