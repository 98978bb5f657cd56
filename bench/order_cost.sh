#!/bin/sh
# What choosing the order costs and gives (issue 40): per module, the whole
# run with the default search (--schedule auto: on a module not scheduled,
# the text order, the list schedule and the depth-first one are each planned
# up to their peak and the lowest kept) against the text order alone
# (--schedule text).  Both targets, the header written, best of 3 by total
# for each: the total ms and its ratio to that run's own parse stage (the
# issue's bound is 8), the orders each target chose, and the bytes of every
# arena of every plan with each, and their ratio (text / auto).  A table,
# not a test: the machine is shared.
#   bench/order_cost.sh [HLOPLAN] [CORPUS_HLO_DIR|FILE] [THREADS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hloplan=${1:-$top/build/hloplan}
dir=${2:-$top/../shared/corpus/hlo}
threads=${3:-0}
runs=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best FILE SCHEDULE: the stats of the fastest of $runs runs in
# $tmp/best.json (none when every run failed).
best() {
	i=0
	b=
	rm -f "$tmp/best.json"
	while [ $i -lt $runs ]; do
		"$hloplan" "$1" --schedule "$2" --threads "$threads" \
			--stats-json "$tmp/s.json" -o "$tmp/plan.h" \
			2>/dev/null || true
		t=$(jq '.time_ms.total' "$tmp/s.json" 2>/dev/null || echo -)
		if [ "$t" != - ] && { [ -z "$b" ] ||
		    awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; }; then
			b=$t
			cp "$tmp/s.json" "$tmp/best.json"
		fi
		rm -f "$tmp/s.json"
		i=$((i + 1))
	done
}

# cols: "total | x parse | orders | arena bytes" of $tmp/best.json.
cols() {
	jq -r '[(.time_ms.total * 10 | round / 10),
		(if .time_ms.parse > 0 then
		 .time_ms.total / .time_ms.parse * 10 | round / 10
		 else "-" end),
		([.plans[].schedule] | join("/")),
		([.plans[].arenas[].size] | add)] | join(" | ")' \
		"$tmp/best.json" 2>/dev/null || echo "- | - | - | -"
}

printf '| module | MB | auto ms | auto x parse | auto orders | auto arenas | text ms | text x parse | text orders | text arenas | text/auto arenas |\n'
printf '|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|\n'
if [ -d "$dir" ]; then
	set -- "$dir"/*.hlo
else
	set -- "$dir"
fi
for f in "$@"; do
	[ -f "$f" ] || continue
	best "$f" auto
	a=$(cols)
	best "$f" text
	t=$(cols)
	awk -v n="$(basename "$f" .hlo)" -v b="$(wc -c <"$f")" -v a="$a" \
	    -v t="$t" 'BEGIN {
		split(a, x, / \| /)
		split(t, y, / \| /)
		r = x[4] > 0 ? sprintf("%.3f", y[4] / x[4]) : "-"
		printf "| %s | %.2f | %s | %s | %s |\n", n, b / 1e6, a, t, r }'
done
