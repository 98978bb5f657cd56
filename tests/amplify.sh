#!/bin/sh
# Outputs grow with the input, not with a name times its uses: a module
# whose one computation has a 4,000-byte name and 2,000 instructions (as
# FRONTEND_MAX_NAME allows) gives a JSON at most 16 times its bytes, a
# CSV at most twice and a header at most 4 times (each name once: the
# JSON's "computations" and steps, the header's P_computations[]; before,
# every position, value, CSV row and header step repeated the
# computation's name: 645x, 211x and 113x).  usage: amplify.sh HLOPLAN OUTDIR
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
"$hloplan" "$in" --json "$dir/a.json" --csv "$dir/a.csv" -o "$dir/a.h" ||
	exit 1
n=$(wc -c < "$in") j=$(wc -c < "$dir/a.json") c=$(wc -c < "$dir/a.csv")
h=$(wc -c < "$dir/a.h")
echo "input $n bytes, JSON $j ($((j / n))x), CSV $c, header $h ($((h / n))x)"
[ "$j" -le $((16 * n)) ] || { echo "FAIL: the JSON is over 16x the input"; exit 1; }
[ "$c" -le $((2 * n)) ] || { echo "FAIL: the CSV is over 2x the input"; exit 1; }
[ "$h" -le $((4 * n)) ] || { echo "FAIL: the header is over 4x the input"; exit 1; }
