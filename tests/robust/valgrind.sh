#!/bin/sh
# The CLI under valgrind (memcheck, leaks in full) over every sample, each
# with every output, and over a few runs that fail: any error fails.
#   tests/robust/valgrind.sh HLOPLAN [WORKDIR]
set -eu
hloplan=$1
work=${2:-${TMPDIR:-/tmp}/hloplan-valgrind}
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"

# vg STATUS ARGS...: hloplan under valgrind exits STATUS, valgrind clean.
vg() {
	want=$1
	shift
	status=0
	valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		"$hloplan" "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?
	if [ "$status" != "$want" ]; then
		cat "$work/err.txt" >&2
		echo "valgrind.sh: hloplan $*: exit $status, not $want" >&2
		exit 1
	fi
	echo "valgrind.sh: hloplan $*: clean" >&2
}

for f in "$src"/samples/*.hlo; do
	n=$(basename "$f" .hlo)
	vg 0 "$f" -o "$work/$n.h" --json "$work/$n.json" --csv "$work/$n.csv" \
		--svg "$work/$n.svg" --stats-json "$work/$n.stats.json" --stats \
		-MD
done
vg 0 "$src/samples/scan_layers.hlo" --target tpu --no-reuse \
	--io-out-of-arena --schedule mem -o "$work/s.h"
vg 0 "$src/samples/mlp.hlo" --dump values -o "$work/values.txt"
vg 0 --intervals "$src/tests/fuzz/seeds/intervals/minimalloc_a_head.csv" \
	-o "$work/solution.csv"
vg 1 "$src/tests/errors/several.hlo" -o "$work/bad.h"
vg 1 "$src/tests/errors/tuple_shape.hlo" -o "$work/bad.h"
vg 1 "$src/tests/errors/over_capacity.hlo" --capacity 0:400000 -o "$work/bad.h"
vg 2 "$src/samples/mlp.hlo" -o /dev/full
vg 2 "$work/missing.hlo" -o "$work/bad.h"
rm -rf "$work"
