#!/bin/sh
# The whole run, end to end, per module of the corpus: both targets planned
# and the header written, as `hloplan FILE -o plan.h` does.  Per module:
# its MB, the median wall ms of 5 runs, MB/s, the largest peak RSS (MiB),
# and the ms of each stage of --stats-json in one more run (the stages sum
# to that run's total; "analyses" is schedule, values, liveness, copies,
# reuse and double-buffering).  A table, not a test: the machine is shared.
# --generated adds two rows: bench/gen_module's module of 12,001
# computations (50 MB), with names repeated in every computation and with
# unique names (issue 20).
#   bench/e2e_bench.sh [--generated] [HLOPLAN] [CORPUS_HLO_DIR] [THREADS]
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
runs=5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '| module | MB | ms | MB/s | peak MiB | read | parse | order | analyses | buffers | packing | verify | codegen | write | other | total |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
# row FILE NAME: one module's row.
row() {
	f=$1
	i=0
	: >"$tmp/runs"
	while [ $i -lt $runs ]; do
		s=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$tmp/t" "$hloplan" "$f" \
			--threads "$threads" -o "$tmp/p.h" 2>/dev/null || true
		e=$(date +%s%N)
		echo "$(( (e - s) / 1000 )) $(cat "$tmp/t")" >>"$tmp/runs"
		i=$((i + 1))
	done
	"$hloplan" "$f" --threads "$threads" --stats-json "$tmp/s.json" \
		-o "$tmp/p.h" 2>/dev/null || true
	bytes=$(wc -c <"$f")
	ms=$(sort -n "$tmp/runs" | sed -n "$(( (runs + 1) / 2 ))p" |
		awk '{ print $1 / 1000 }')
	rss=$(awk '$2 > m { m = $2 } END { printf "%.0f", m / 1024 }' \
		"$tmp/runs")
	stages=$(jq -r '.time_ms | [.read, .parse, .order,
		(.schedule + .values + .liveness + .copies + .reuse +
		 ."double-buffering"), .buffers, .packing, .verify, .codegen,
		.write, .other, .total] | map(. * 10 | round / 10) |
		join(" | ")' "$tmp/s.json" 2>/dev/null || echo "-")
	awk -v n="$2" -v b="$bytes" -v ms="$ms" \
		-v rss="$rss" -v st="$stages" 'BEGIN {
		printf "| %s | %.2f | %.0f | %.1f | %s | %s |\n", n, b / 1e6,
		    ms, (ms > 0 ? b / 1e6 / (ms / 1000) : 0), rss, st }'
}

for f in "$dir"/*.hlo; do
	row "$f" "$(basename "$f" .hlo)"
done
if [ $generated = 1 ]; then
	gen=$(dirname "$hloplan")/bench/gen_module
	for names in repeat unique; do
		"$gen" 12001 $names >"$tmp/gen.hlo"
		row "$tmp/gen.hlo" "generated_12001_$names"
	done
fi
