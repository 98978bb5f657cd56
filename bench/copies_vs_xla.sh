#!/usr/bin/env bash
# hloplan's copies beside XLA's on the modules of copy_expectations.tsv
# (the copies XLA's copy insertion tests expect):
#   bench/copies_vs_xla.sh [HLOPLAN] [CORPUS_DIR]
# Prints a Markdown table; "error" where hloplan does not plan the module.
set -u
hloplan=${1:-build/hloplan} corpus=${2:-$(dirname "$0")/../../shared/corpus}
tsv=$corpus/xla-tests/copy_expectations.tsv
echo "| module | XLA | hloplan (GPU) | hloplan (GPU, io out of arena) |"
echo "| --- | ---: | ---: | ---: |"
tail -n +2 "$tsv" | while IFS=$'\t' read -r file xla _ _; do
	n() { "$hloplan" --target=gpu "$@" --stats-json /dev/stdout \
		-o /dev/null "$corpus/xla-tests/$file" 2>/dev/null |
		jq -r '.plans[0].copies' 2>/dev/null || true; }
	a=$(n) b=$(n --io-out-of-arena)
	echo "| ${file#*/} | $xla | ${a:-error} | ${b:-error} |"
done
