#!/bin/sh
# Outputs grow with the input, not with a name times its uses: a module
# whose one computation has a 4,000-byte name and 2,000 instructions (as
# FRONTEND_MAX_NAME allows) gives a JSON at most 16 times its bytes and a
# CSV at most twice (each name once: the JSON's "computations" and steps;
# before, every position, value and CSV row repeated the computation's
# name: 645x and 211x).  usage: amplify_json.sh HLOPLAN OUTDIR
hloplan=$1 dir=$2
mkdir -p "$dir" || exit 1
in=$dir/amplify.hlo
awk 'BEGIN {
	name = "c"; for (i = 0; i < 3999; i++) name = name "x"
	print "HloModule amplify\n"
	print "ENTRY %" name " (p: f32[4]) -> f32[4] {"
	print "  %p = f32[4]{0} parameter(0)"
	prev = "p"
	for (i = 0; i < 2000; i++) {
		printf "  %%a%d = f32[4]{0} add(%%%s, %%p)\n", i, prev
		prev = "a" i
	}
	print "  ROOT %r = f32[4]{0} negate(%" prev ")\n}"
}' > "$in" || exit 1
"$hloplan" "$in" --json "$dir/a.json" --csv "$dir/a.csv" -o /dev/null ||
	exit 1
n=$(wc -c < "$in") j=$(wc -c < "$dir/a.json") c=$(wc -c < "$dir/a.csv")
echo "input $n bytes, JSON $j ($((j / n))x), CSV $c"
[ "$j" -le $((16 * n)) ] || { echo "FAIL: the JSON is over 16x the input"; exit 1; }
[ "$c" -le $((2 * n)) ] || { echo "FAIL: the CSV is over 2x the input"; exit 1; }
