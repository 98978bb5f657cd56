#!/bin/sh
# The scheduling benchmark: for each corpus module, its instructions, the
# peak of live bytes under the text order and under the order hloplan
# chooses (--schedule=auto), the reduction, and the median wall time of the
# whole run over 3 runs.  A table, not a test.
# Usage: bench/schedule_bench.sh [hloplan] [corpus/hlo dir]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hloplan=${1:-$top/build/hloplan}
dir=${2:-$top/../shared/corpus/hlo}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median_ms() {
	for i in 1 2 3; do
		s=$(date +%s%N)
		"$hloplan" "$1" --target=gpu -o "$tmp/p.h"
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 ))
	done | sort -n | sed -n 2p | awk '{ printf "%.1f", $1 / 1000 }'
}

printf '| file | module | instructions | text peak | chosen | order | reduction | ms |\n'
printf '|---|---|---:|---:|---:|---|---:|---:|\n'
for f in "$dir"/*.hlo; do
	n=$(grep -cE '^ *(ROOT +)?%?[A-Za-z_][A-Za-z0-9_.-]* *= ' "$f" || true)
	ms=$(median_ms "$f")
	"$hloplan" "$f" --target=gpu --stats -o "$tmp/p.h" 2>"$tmp/s"
	awk -v file="$(basename "$f")" -v n="$n" -v ms="$ms" '
	/: module / { mod = $3; sub(",", "", mod) }
	/schedule: / {
		order = $3; chosen = $6; text = $10; sub("\\)", "", text)
		printf "| %s | %s | %s | %s | %s | %s | %.1f%% | %s |\n", file,
		    mod, n, text, chosen, order,
		    (text > 0 ? 100 * (text - chosen) / text : 0), ms
	}' "$tmp/s"
done
