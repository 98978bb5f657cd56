#!/bin/sh
# Several programs, one arena (issue 41): per family, the joint arena beside
# the alternatives, for the GPU, all in bytes:
#   joint       hloplan --programs: the shared arrays placed once, every
#               program's buffers packed around them
#   separate    each program planned alone, the arenas summed
#   executorch  ExecuTorch's layout: a state arena (the shared arrays, bump
#               allocated) plus the largest program's temporaries, planned
#               alone
#   bfc, bfc_growth, torch   the call sequence replayed through the
#               allocator models of --allocators (XLA's BFC preallocated
#               and growing, PyTorch's caching allocator)
#   lower       the largest, over programs and steps, of the bytes live
#               then (the program's own and the shared arrays live in it)
# and joint/lower.  The sample families are samples/joint/*.txt; the real
# ones are the jitted functions of one application's run in XLA_BA (one
# xla_dump folder each, at most 8 programs in dump order), their shared
# arrays inferred by bench/joint_families.py (which says how).
# Usage: joint_bench.sh [BUILD [XLA_BA]]   (defaults: build, ../xla-ba)
set -eu
build=${1:-build}
xla=${2:-../xla-ba}
here=$(cd "$(dirname "$0")/.." && pwd)
hloplan=$build/hloplan
tmp=${TMPDIR:-/tmp}/joint_bench.$$
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/fam"

row() {	# NAME DECL
	if ! "$hloplan" --programs "$2" --target gpu --stats --allocators \
		-o "$tmp/plan.h" 2>"$tmp/err"; then
		printf '| %s | error: %s |\n' "$1" \
			"$(grep -m1 'error' "$tmp/err" | cut -c1-100)"
		return
	fi
	awk -v name="$1" -v progs="$(grep -c '^program' "$2")" '
	/: arena [0-9]+ bytes; lower bound/ {
		arena = $3; lower = $7; sub(/,/, "", lower)
		nshared = $(NF - 4); shared = $(NF - 1)
	}
	/separate plans, summed/ {
		sep = $5; et = $9
	}
	/the calls under bfc:/ { bfc = $6 }
	/the calls under bfc_growth:/ { bfcg = $6 }
	/the calls under torch_caching:/ { torch = $6 }
	END {
		printf "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.4f |\n",
			name, progs, nshared, shared, arena, sep, et, bfc,
			bfcg, torch, lower, lower ? arena / lower : 1
	}' "$tmp/err"
}

echo "| family | programs | shared | shared bytes | joint | separate | executorch | bfc | bfc_growth | torch | lower | joint/lower |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for d in "$here"/samples/joint/*.txt; do
	row "samples/joint/$(basename "$d" .txt)" "$d"
done
if [ -f "$xla/MANIFEST.tsv" ]; then
	python3 "$here/bench/joint_families.py" "$xla" "$tmp/fam" 8 >"$tmp/names"
	while read -r n; do
		row "$n" "$tmp/fam/$n.txt"
	done <"$tmp/names"
else
	echo "(no $xla/MANIFEST.tsv: the real families are skipped)"
fi
