#!/bin/sh
# The plan benchmark: for each corpus module, buffers, lower bound (peak of
# live bytes), arena, arena / lower bound, and the median wall time of the
# whole run (parse to header) over 5 runs.  A table, not a test.
# Usage: bench/plan_bench.sh [hloplan] [corpus/hlo dir] [target]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hloplan=${1:-$top/build/hloplan}
dir=${2:-$top/../shared/corpus/hlo}
target=${3:-gpu}
runs=5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median_ms() {
	i=0
	while [ $i -lt $runs ]; do
		s=$(date +%s%N)
		"$hloplan" "$1" --target="$target" -o "$tmp/p.h"
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 ))
		i=$((i + 1))
	done | sort -n | sed -n "$(( (runs + 1) / 2 ))p" |
		awk '{ printf "%.1f", $1 / 1000 }'
}

printf '| file | module | buffers | lower bound | arena | arena/lower | ms (median of %d) |\n' $runs
printf '|---|---|---:|---:|---:|---:|---:|\n'
for f in "$dir"/*.hlo; do
	ms=$(median_ms "$f")
	"$hloplan" "$f" --target="$target" --stats -o "$tmp/p.h" 2>"$tmp/s"
	awk -v file="$(basename "$f")" -v ms="$ms" '
	/: module / { mod = $3; sub(",", "", mod); nb = $4 }
	/arena S\(/ {
		size = $4; lower = $8; sub(",", "", lower)
		printf "| %s | %s | %s | %s | %s | %.4f | %s |\n", file, mod, nb,
		    lower, size, (lower > 0 ? size / lower : 1), ms
	}' "$tmp/s"
done
