#!/usr/bin/env bash
# Before/after table over the real models: for each module of
# ../shared/corpus/hlo and each target, the arena (summed over memory
# spaces), its lower bound, the copies and the bytes copied once per run
# and in every loop iteration, as two hloplan binaries plan it.
#   bench/plan_table.sh OLD_HLOPLAN NEW_HLOPLAN [CORPUS_DIR] > table.md
# Needs jq.  Prints a Markdown table; a module one binary cannot plan
# shows "-" on that side.
set -u
old=$1 new=$2 corpus=${3:-$(dirname "$0")/../../shared/corpus}
figures() {	# binary target file -> "arena lower copies run iter"
	"$1" --target="$2" --stats-json /dev/stdout -o /dev/null "$3" \
		2>/dev/null | jq -r '.plans[0] | [([.arenas[].size] | add),
		  ([.arenas[].lower_bound] | add), .copies,
		  (.bytes_copied_per_run // 0),
		  (.bytes_copied_per_iteration // 0)] | @tsv' 2>/dev/null ||
		true
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%+.2f%%",
	100 * (b - a) / a; else printf "-" }'; }
echo "| module | target | arena before | arena after | change | lower bound |" \
	"copies before → after | bytes copied per iteration before → after |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for f in "$corpus"/hlo/*.hlo; do
	m=$(basename "$f" .hlo)
	for t in gpu tpu; do
		read -r oa ol oc orun oit <<<"$(figures "$old" $t "$f")"
		read -r na nl nc nrun nit <<<"$(figures "$new" $t "$f")"
		echo "| $m | $t | ${oa:--} | ${na:--} |" \
			"$(pct "${oa:-0}" "${na:-0}") | ${nl:--} |" \
			"${oc:--} → ${nc:--} | ${oit:--} → ${nit:--} |"
	done
done
