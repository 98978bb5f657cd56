#!/usr/bin/env bash
# hloplan's GPU plan beside XLA's own buffer assignment, module by module:
#   bench/vs_xla.sh DIR [HLOPLAN] [JOBS]
# DIR is made by ../shared/tools/xla_ba_pairs.py (modules after XLA's
# optimizations, each beside XLA's buffer assignment, and MANIFEST.tsv with
# XLA's figures).  Per module: XLA's total and temporary allocation; hloplan
# with everything in the arena (its arena plus its constants, against XLA's
# total) and with --io-out-of-arena (its arena, against XLA's temporaries);
# the copies hloplan adds and their bytes per loop iteration; XLA's own peak
# of live bytes (bench/xla_assignment.py) and, for a module more than 10%
# below XLA, why.  Then a summary: refused, with copies, above and below
# XLA, the geometric mean of hloplan/XLA, and the reasons for being far
# below.  "above" allows 4 KiB of alignment slack.
set -u
dir=${1:?usage: bench/vs_xla.sh DIR [HLOPLAN] [JOBS]}
hloplan=${2:-build/hloplan} jobs=${3:-2}
command -v jq >/dev/null || { echo "vs_xla.sh: needs jq" >&2; exit 2; }
[ -f "$dir/MANIFEST.tsv" ] || { echo "vs_xla.sh: no $dir/MANIFEST.tsv" >&2; exit 2; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

# One module: name file xla_temp xla_total -> one TSV row.
one() {
	local name=$1 file=$2 xtemp=$3 xtotal=$4 t=$tmp/$1 row
	if ! "$hloplan" --target=gpu --json "$t.a.json" --stats-json "$t.s.json" \
		-o /dev/null \
		"$dir/$file" 2>"$t.err"; then
		printf '%s\t%s\t%s\trefused\t\t\t\t\t%s\n' "$name" "$xtotal" \
			"$xtemp" "$(head -c 120 "$t.err" | tr '\t\n' '  ')"
		return
	fi
	"$hloplan" --target=gpu --io-out-of-arena --json "$t.b.json" \
		-o /dev/null "$dir/$file" 2>/dev/null || echo '{}' >"$t.b.json"
	# XLA's allocations as its allocator takes them: each rounded up to
	# 256 bytes (BFC's smallest granule; hloplan aligns offsets to 256).
	xal=$(awk '/^allocation [0-9]+: size / { s = $4 + 0; n += int((s + 255) / 256) * 256 }
		END { printf "%.0f", n }' "$dir/${file%.txt}-buffer-assignment.txt" 2>/dev/null)
	row=$(jq -r -s '
		(.[0].plans[0]) as $a | (.[1].plans[0] // {}) as $b |
		[([$a.arenas[].size] | add // 0),
		 ([$a.buffers[] | select(.flags % 8 >= 4) | .bytes] | add // 0),
		 ([$b.arenas[]?.size] | add // 0),
		 ($a.copies | length),
		 (.[2].plans[0].bytes_copied_per_iteration // 0)]
		| @tsv' "$t.a.json" "$t.b.json" "$t.s.json")
	# XLA's own peak of live bytes over all its allocations, by its
	# live ranges (xla_assignment.py; 0 without python3).
	xpeak=$(python3 "$here/xla_assignment.py" \
		"$dir/${file%.txt}-buffer-assignment.txt" 2>/dev/null | cut -f6)
	printf '%s\t%s\t%s\tok\t%s\t%s\t%s\n' "$name" "$xtotal" "$xtemp" "$row" "${xal:-$xtotal}" "${xpeak:-0}"
}
export -f one
here=$(cd "$(dirname "$0")" && pwd)
export dir hloplan tmp here

tail -n +2 "$dir/MANIFEST.tsv" | cut -f1,4,5,9 |
	while IFS=$'\t' read -r name xtemp xtotal file; do
		printf '%s\t%s\t%s\t%s\n' "$name" "$file" "$xtemp" "$xtotal"
	done |
	xargs -P "$jobs" -d '\n' -n 1 bash -c \
		'IFS=$'"'"'\t'"'"' read -r a b c d <<<"$0"; one "$a" "$b" "$c" "$d"' |
	sort >"$tmp/rows.tsv"

awk -F'\t' '
BEGIN {
	print "| module | XLA total | XLA total, 256-aligned | XLA peak | hloplan total | ratio | XLA temp | hloplan arena (io out) | ratio | copies | bytes/iter | why below |"
	print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
}
$4 == "refused" {
	refused++; n++
	printf "| %s | %s | refused: %s | | | | %s | | | | | |\n", $1, $2, $9, $3
	next
}
{
	n++
	tot = $5 + $6; r = $2 > 0 ? tot / $2 : 1; r2 = $3 > 0 ? $7 / $3 : 1
	if (tot > $2 + 4096) above++
	if (tot > $10) above_al++
	if (tot < $2 - 4096) below++
	why = ""
	if (r < 0.9) {
		far++
		# At or above the peak of XLA live bytes: its allocations hold bytes
		# idle there.  Below it: hloplan shares what XLA does not.
		if ($11 > 0 && tot >= $11 - 4096) { why = "XLA idle"; idle++ }
		else if ($11 > 0) { why = "shares more"; more++ }
	}
	if ($8 > 0) copies++
	if ($2 > 0 && tot > 0) { lg += log(r); ng++ }
	if ($3 > 0 && $7 > 0) { lg2 += log(r2); ng2++ }
	printf "| %s | %.0f | %.0f | %.0f | %.0f | %.4f | %.0f | %.0f | %.4f | %d | %.0f | %s |\n", \
		$1, $2, $10, $11, tot, r, $3, $7, r2, $8, $9, why
}
END {
	printf "\n%d modules: %d refused, %d with copies, %d above XLA\047s total (4 KiB slack), %d above it with each allocation 256-aligned, %d below (%d more than 10%% below); geometric mean hloplan/XLA %.4f (total), %.4f (io out of arena vs XLA temp)\n", \
		n, refused, copies, above, above_al, below, far, \
		ng ? exp(lg / ng) : 0, ng2 ? exp(lg2 / ng2) : 0
	printf "of the %d more than 10%% below: %d where hloplan is at or above XLA\047s own peak of live bytes (XLA\047s allocations hold bytes idle there), %d below it (hloplan shares what XLA does not)\n", \
		far, idle, more
}' "$tmp/rows.tsv"
