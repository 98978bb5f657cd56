#!/bin/sh
# Only hloplan_* leaves the library: lists every global that ARCHIVE
# defines under another name and fails if there is one.
# usage: exports.sh NM ARCHIVE
nm=$1 lib=$2
[ -f "$lib" ] || { echo "exports: no $lib"; exit 1; }
out=$("$nm" -g --defined-only "$lib" | awk 'NF == 3 && $3 !~ /^hloplan_/')
n=$("$nm" -g --defined-only "$lib" | awk 'NF == 3 && $3 ~ /^hloplan_/' |
	wc -l | tr -d ' ')
if [ -n "$out" ]; then
	echo "exports: $lib defines globals outside hloplan_*:"
	echo "$out"
	exit 1
fi
[ "$n" -gt 0 ] || { echo "exports: $lib defines no hloplan_* at all"; exit 1; }
echo "exports: $lib: $n globals, all hloplan_*"
