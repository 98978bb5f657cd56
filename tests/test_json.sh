#!/bin/sh
# The JSON plan read back: jq checks the schema and version, turns every
# plan, arena, buffer (with its values, parameter and output), position
# and copy into
# a line, and the lines must equal what the
# library API gives for the same input (plan_tsv).  Exits 77 (skipped)
# without jq.  usage: test_json.sh HLOPLAN PLAN_TSV JQ INPUT OUTDIR [TARGET]
hloplan=$1 tsv=$2 jq=$3 input=$4 outdir=$5 target=${6:-all}

if [ -z "$jq" ] || [ ! -f "$input" ]; then
	echo "no jq, or no $input: skipped"
	exit 77
fi
name=$(basename "$input" .hlo)_$target
json=$outdir/$name.json
mkdir -p "$outdir" && rm -f "$json" || exit 1
"$hloplan" "$input" --target="$target" --json "$json" || exit 1
"$jq" -e '.schema == "hloplan.plan" and .version == 7 and
	  (.plans | length) > 0' "$json" >/dev/null ||
	{ echo "FAIL: schema or version of $json"; exit 1; }
# Names are written once (version 7): a step's from its [computation,
# instruction] pair and "computations"; positions, values and constants
# name theirs by step.
"$jq" -r '.plans[] as $p | $p.target as $t |
	def cname: $p.computations[$p.schedule.steps[.][0]];
	def iname: $p.schedule.steps[.][1];
	(["plan", $p.module, $t, $p.prefix, $p.align, $p.steps] | @tsv),
	($p.arenas[] | ["arena", $t, .space, .size, .lower_bound] | @tsv),
	($p.buffers[] | ["buf", $t, .id, .name, (.offset // -1), .size,
	  .bytes, .interval[0], .interval[1], .space, .flags, .slots,
	  .stride, (if .in_arena then 1 else 0 end)] | @tsv),
	($p.buffers[] | .id as $id |
	  ((.values[] | ["val", $t, $id, (.step | cname), (.step | iname),
	    (.index | map(tostring) | join(","))] | @tsv),
	   (select(has("parameter")) | ["param", $t, $id, .parameter,
	    (.param_index | map(tostring) | join(","))] | @tsv),
	   (select(has("output_index")) | ["output", $t, $id,
	    (.output_index | map(tostring) | join(","))] | @tsv))),
	($p.positions[] | ["pos", $t, (.step | cname), (.step | iname),
	  (.index | map(tostring) | join(",")), .buffer, .slot,
	  (if .defines or .copied then 1 else 0 end), (.parameter // -1),
	  (if .output then 1 else 0 end), .size] | @tsv),
	($p.copies[] | ["copy", $t, .src, .dst, .step,
	  (if .when == "after" then 1 else 0 end), .bytes, .loop] | @tsv),
	($p.loops[] | ["loop", $t, .first, .cond_last, .step, .parent,
	  .trips, .trips_from] | @tsv)' \
	"$json" > "$outdir/$name.jq.tsv" || exit 1
if [ "$target" = all ]; then
	"$tsv" "$input" > "$outdir/$name.api.tsv" || exit 1
else
	"$tsv" "$input" "$target" > "$outdir/$name.api.tsv" || exit 1
fi
if ! cmp -s "$outdir/$name.api.tsv" "$outdir/$name.jq.tsv"; then
	echo "FAIL: the JSON of $input differs from the plan"
	diff "$outdir/$name.api.tsv" "$outdir/$name.jq.tsv" | head -20
	exit 1
fi
echo "$(wc -l < "$outdir/$name.jq.tsv") lines agree"
