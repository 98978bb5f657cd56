#!/bin/sh
# The verifier's cost: for each corpus module, the median over 5 runs of
# the whole run's wall time (parse to header, both targets) and of the
# verify stage (--stats), and their ratio; largest modules first.  A
# table, not a test.  Usage: bench/verify_bench.sh [hloplan] [dir] [runs]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hloplan=${1:-$top/build/hloplan}
dir=${2:-$top/../shared/corpus/hlo}
runs=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() {
	sort -n | sed -n "$(( (runs + 1) / 2 ))p"
}

printf '| file | MB | whole ms | verify ms | verify/whole |\n'
printf '|---|---:|---:|---:|---:|\n'
for f in $(ls -S "$dir"/*.hlo); do
	i=0
	: >"$tmp/w"
	: >"$tmp/v"
	while [ $i -lt $runs ]; do
		s=$(date +%s%N)
		"$hloplan" "$f" --stats -o "$tmp/p.h" 2>"$tmp/s" || true
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 )) >>"$tmp/w"
		grep -o 'verify [0-9.]* ms' "$tmp/s" | awk '{ v += $2 }
		    END { printf "%d\n", v * 1000 }' >>"$tmp/v"
		i=$((i + 1))
	done
	w=$(median <"$tmp/w")
	v=$(median <"$tmp/v")
	awk -v f="$(basename "$f")" -v b="$(wc -c <"$f")" -v w="$w" -v v="$v" \
	    'BEGIN { printf "| %s | %.1f | %.1f | %.1f | %.3f |\n", f,
		b / 1e6, w / 1000, v / 1000, (w > 0 ? v / w : 0) }'
done
