#!/bin/sh
# The corpus round trip for one file: hloplan --dump=ir prints the parsed
# module as HLO; printing that again must give the same text, twice over.
# usage: test_corpus.sh HLOPLAN CORPUS_HLO_DIR FILE OUTDIR
# Exits 77 (ctest: skipped) when the corpus directory does not exist.
hloplan=$1 dir=$2 file=$3 outdir=$4

if [ ! -d "$dir" ]; then
	echo "no corpus at $dir: skipped"
	exit 77
fi
name=$(basename "$file" .hlo)
a=$outdir/$name.a.hlo b=$outdir/$name.b.hlo c=$outdir/$name.c.hlo
mkdir -p "$outdir" && rm -f "$a" "$b" "$c" || exit 1
"$hloplan" --dump=ir "$file" -o "$a" || { echo "FAIL: $file"; exit 1; }
"$hloplan" --dump=ir "$a" -o "$b" || { echo "FAIL: re-parse of $a"; exit 1; }
"$hloplan" --dump=ir "$b" -o "$c" || { echo "FAIL: re-parse of $b"; exit 1; }
cmp "$a" "$b" || { diff "$a" "$b" | head -20; exit 1; }
cmp "$b" "$c" || { diff "$b" "$c" | head -20; exit 1; }
rm -f "$a" "$b" "$c"
