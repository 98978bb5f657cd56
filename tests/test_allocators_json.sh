#!/bin/sh
# --allocators in the JSON: every plan gets an "allocators" object naming
# the six models, each with peaks where reserved >= allocated >= the S(0)
# arena's lower bound (no allocator holds less than the live bytes), the
# BFC its region; without the option no plan has one.  Exits 77 (skipped)
# without jq.  usage: test_allocators_json.sh HLOPLAN JQ INPUT OUTDIR
hloplan=$1 jq=$2 input=$3 outdir=$4

if [ -z "$jq" ] || [ ! -f "$input" ]; then
	echo "no jq, or no $input: skipped"
	exit 77
fi
mkdir -p "$outdir" || exit 1
json=$outdir/$(basename "$input" .hlo).allocators.json
plain=$outdir/$(basename "$input" .hlo).plain.json
"$hloplan" "$input" --allocators --json "$json" -o /dev/null || exit 1
"$hloplan" "$input" --json "$plain" -o /dev/null || exit 1
"$jq" -e '[.plans[] | has("allocators")] | any | not' "$plain" >/dev/null ||
	{ echo "FAIL: allocators without --allocators"; exit 1; }
"$jq" -e '(.plans | length) > 0 and all(.plans[];
	(.arenas[] | select(.space == 0) | .lower_bound) as $lb |
	.allocators as $a |
	($a | keys) == (["best_fit", "bfc", "bfc_growth", "buffers",
			 "first_fit", "torch_caching", "torch_expandable"]) and
	$a.buffers > 0 and $a.bfc.region_size >= $a.bfc.peak_allocated and
	all($a | to_entries[] | select(.key != "buffers") | .value;
	    .peak_reserved >= .peak_allocated and
	    .peak_allocated >= $lb and .reservations >= 1))' "$json" \
	>/dev/null || { echo "FAIL: allocators in $json:"; \
		"$jq" '.plans[] | .allocators' "$json"; exit 1; }
echo "ok"
