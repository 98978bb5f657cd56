#!/bin/sh
# The whole run, end to end, per module of the corpus: both targets planned
# and the header written, as `hloplan FILE -o plan.h` does (issue 40).  Per
# module, of the best of 3 runs (the lowest total of --stats-json): its MB,
# the ms of each stage (they sum to the total; "analyses" is schedule,
# values, liveness, copies, reuse and double-buffering, which "order"
# holds instead when the chosen order's trial is kept as the real run: an
# unscheduled module of 2,000 instructions or more whose candidate orders
# differ), the whole run over
# its parse stage in that same run (x parse; the issue's bound is 8), the
# same without codegen (no cg), the header's bytes over the input's
# (header x), and the largest peak RSS of the 3 (MiB).  A table, not a
# test: the machine is shared.  --generated adds two rows: bench/gen_module's
# module of 12,001 computations (50 MB), with names repeated in every
# computation and with unique names (issue 20).
#   bench/e2e_bench.sh [--generated] [HLOPLAN] [CORPUS_HLO_DIR|FILE] [THREADS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
generated=0
if [ "${1:-}" = --generated ]; then
	generated=1
	shift
fi
hloplan=${1:-$top/build/hloplan}
dir=${2:-$top/../shared/corpus/hlo}
threads=${3:-0}
runs=3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '| module | MB | read | parse | order | analyses | buffers | packing | verify | codegen | write | other | total | x parse | no cg | header x | peak MiB |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
# row FILE NAME: one module's row.
row() {
	f=$1
	i=0
	best=
	rss=0
	while [ $i -lt $runs ]; do
		/usr/bin/time -f '%M' -o "$tmp/t" "$hloplan" "$f" \
			--threads "$threads" --stats-json "$tmp/s.json" \
			-o "$tmp/plan.h" 2>/dev/null || true
		rss=$(awk -v r="$rss" '{ print ($1 > r ? $1 : r) }' "$tmp/t")
		t=$(jq '.time_ms.total' "$tmp/s.json" 2>/dev/null || echo -)
		if [ "$t" != - ] && { [ -z "$best" ] ||
		    awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then
			best=$t
			cp "$tmp/s.json" "$tmp/best.json"
		fi
		i=$((i + 1))
	done
	bytes=$(wc -c <"$f")
	hbytes=$(wc -c <"$tmp/plan.h" 2>/dev/null || echo 0)
	stages=$(jq -r '.time_ms | [.read, .parse, .order,
		(.schedule + .values + .liveness + .copies + .reuse +
		 ."double-buffering"), .buffers, .packing, .verify, .codegen,
		.write, .other, .total] | map(. * 10 | round / 10) |
		join(" | ")' "$tmp/best.json" 2>/dev/null || echo "-")
	ratio=$(jq -r '.time_ms | if .parse > 0 then
		"\(.total / .parse * 10 | round / 10) | \((.total - .codegen) /
		 .parse * 10 | round / 10)" else "- | -" end' \
		"$tmp/best.json" 2>/dev/null || echo "- | -")
	awk -v n="$2" -v b="$bytes" -v h="$hbytes" -v rss="$rss" \
		-v st="$stages" -v r="$ratio" 'BEGIN {
		printf "| %s | %.2f | %s | %s | %.1f | %.0f |\n", n, b / 1e6,
		    st, r, h / b, rss / 1024 }'
}

if [ -d "$dir" ]; then
	set -- "$dir"/*.hlo
else
	set -- "$dir"
fi
for f in "$@"; do
	[ -f "$f" ] || continue	# an empty folder: the generated rows only
	row "$f" "$(basename "$f" .hlo)"
done
if [ $generated = 1 ]; then
	gen=$(dirname "$hloplan")/bench/gen_module
	for names in repeat unique; do
		"$gen" 12001 $names >"$tmp/gen.hlo"
		row "$tmp/gen.hlo" "generated_12001_$names"
	done
fi
