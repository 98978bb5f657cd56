#!/usr/bin/env bash
# Fragmentation, measured (issue 21): for each module of
# ../shared/corpus/hlo planned for the GPU, the buffers of S(0) replayed
# through the runtimes' allocators (hloplan --allocators): the lower bound
# (peak of live bytes), the static plan's arena, and each allocator's peak
# reserved bytes: XLA's BFC with one preallocated region (the region it
# needs) and growing, PyTorch's caching allocator with expandable segments
# off and on, first fit and best fit.  Two Markdown tables: bytes, then
# ratios to the lower bound (with their geometric means).
#   bench/allocators.sh [HLOPLAN] [CORPUS_DIR] > table.md
# Needs jq.  A file with several modules gives a row per module.
set -u
hloplan=${1:-$(dirname "$0")/../build/hloplan}
corpus=${2:-$(dirname "$0")/../../shared/corpus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cols="bfc bfc_growth torch_caching torch_expandable first_fit best_fit"
rows() {	# file -> "module lower plan bfc ... best_fit" per plan
	"$hloplan" --target=gpu --allocators --json "$tmp/p.json" \
		-o "$tmp/p.h" "$1" 2>/dev/null || return 0
	jq -r '.plans[] | select(.allocators) | [.module,
	  ([.arenas[] | select(.space == 0) | .lower_bound] | add // 0),
	  ([.arenas[] | select(.space == 0) | .size] | add // 0),
	  (.allocators | .bfc.peak_reserved, .bfc_growth.peak_reserved,
	   .torch_caching.peak_reserved, .torch_expandable.peak_reserved,
	   .first_fit.peak_reserved, .best_fit.peak_reserved)] | @tsv' \
		"$tmp/p.json"
}
for f in "$corpus"/hlo/*.hlo; do
	rows "$f" | sed "s/^/$(basename "$f" .hlo)\t/"
done > "$tmp/all.tsv"
head="| file | module | lower bound | plan | BFC prealloc | BFC growth |"
head="$head PyTorch caching | PyTorch expandable | first fit | best fit |"
rule="| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
echo "Bytes of S(0) (GPU):"
echo
echo "$head"
echo "$rule"
awk -F'\t' '{ printf "| %s | %s", $1, $2;
	for (i = 3; i <= 10; i++) printf " | %s", $i; print " |" }' \
	"$tmp/all.tsv"
echo
echo "Ratio to the lower bound (1.000 is no fragmentation):"
echo
echo "$head"
echo "$rule"
awk -F'\t' '{ printf "| %s | %s | %s", $1, $2, $3;
	for (i = 4; i <= 10; i++) {
		r = $3 > 0 ? $i / $3 : 1; printf " | %.3f", r;
		if ($3 > 0) { s[i] += log(r); n[i]++ }
		if ($3 >= 64 * 1048576) { S[i] += log(r); N[i]++ } }
	print " |" }
	END { printf "| geometric mean | all | "; for (i = 4; i <= 10; i++)
		printf " | %.3f", n[i] ? exp(s[i] / n[i]) : 1; print " |"
	printf "| geometric mean | bound >= 64 MiB | ";
	for (i = 4; i <= 10; i++)
		printf " | %.3f", N[i] ? exp(S[i] / N[i]) : 1; print " |" }' \
	"$tmp/all.tsv"
