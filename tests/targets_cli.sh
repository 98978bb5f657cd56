#!/bin/sh
# Both targets of a large module are planned at once, on two threads
# (driver.c's plan_both), and the plans after the first are written beside
# it (codegen's put_plans): what comes out must be what planning and
# writing them in turn gives.  A module of some 1,500 instructions (above
# TARGETS_AT_ONCE and PUT_AT_ONCE) is planned with --threads 1, 2 and 0:
# the header, JSON and CSV must be the same bytes.  Then the same module
# with an in-place custom-call whose layouts only the TPU rejects: the
# same message and exit status for each.
#   targets_cli.sh HLOPLAN WORKDIR
set -eu
hloplan=$1 work=$2
mkdir -p "$work"
cd "$work"
# gen BAD: a chain of layers, each a while loop over a dynamic-update-slice
# and a few element-wise ops; BAD adds the TPU-only error at the end.
gen() {
	awk -v bad="$1" 'BEGIN {
	L = 120
	print "HloModule targets_at_once"
	for (l = 0; l < L; l++) {
		printf "body%d {\n", l
		printf "  s = (s32[], f32[64,128]{1,0}, f32[8,64,128]{2,1,0}) parameter(0)\n"
		printf "  i = s32[] get-tuple-element(s), index=0\n"
		printf "  x = f32[64,128]{1,0} get-tuple-element(s), index=1\n"
		printf "  a = f32[8,64,128]{2,1,0} get-tuple-element(s), index=2\n"
		printf "  one = s32[] constant(1)\n"
		printf "  j = s32[] add(i, one)\n"
		printf "  y = f32[64,128]{1,0} multiply(x, x)\n"
		printf "  z = f32[64,128]{1,0} add(y, x)\n"
		printf "  r = f32[1,64,128]{2,1,0} reshape(z)\n"
		printf "  zero = s32[] constant(0)\n"
		printf "  u = f32[8,64,128]{2,1,0} dynamic-update-slice(a, r, i, zero, zero)\n"
		printf "  ROOT t = (s32[], f32[64,128]{1,0}, f32[8,64,128]{2,1,0}) tuple(j, z, u)\n}\n"
		printf "cond%d {\n", l
		printf "  s = (s32[], f32[64,128]{1,0}, f32[8,64,128]{2,1,0}) parameter(0)\n"
		printf "  i = s32[] get-tuple-element(s), index=0\n"
		printf "  n = s32[] constant(8)\n"
		printf "  ROOT c = pred[] compare(i, n), direction=LT\n}\n"
	}
	print "ENTRY main {"
	print "  x0 = f32[64,128]{1,0} parameter(0)"
	print "  a0 = f32[8,64,128]{2,1,0} parameter(1)"
	print "  i0 = s32[] constant(0)"
	for (l = 0; l < L; l++) {
		printf "  s%d = (s32[], f32[64,128]{1,0}, f32[8,64,128]{2,1,0}) tuple(i0, x%d, a%d)\n", l, l, l
		printf "  w%d = (s32[], f32[64,128]{1,0}, f32[8,64,128]{2,1,0}) while(s%d), condition=cond%d, body=body%d\n", l, l, l, l
		printf "  x%d = f32[64,128]{1,0} get-tuple-element(w%d), index=1\n", l + 1, l
		printf "  a%d = f32[8,64,128]{2,1,0} get-tuple-element(w%d), index=2\n", l + 1, l
	}
	if (bad)
		printf "  b = f32[64,128]{1,0:T(8)} custom-call(x%d), custom_call_target=\"baz\", output_to_operand_aliasing={{}: (0, {})}\n  ROOT o = (f32[64,128]{1,0:T(8)}, f32[8,64,128]{2,1,0}) tuple(b, a%d)\n}\n", L, L
	else
		printf "  ROOT o = (f32[64,128]{1,0}, f32[8,64,128]{2,1,0}) tuple(x%d, a%d)\n}\n", L, L
	}'
}
gen 0 >good.hlo
gen 1 >bad.hlo
for n in 1 2 0; do
	"$hloplan" --threads "$n" good.hlo -o "p$n.h" --json "p$n.json" \
		--csv "p$n.csv"
	sed "s/P$n/P/g" "p$n.h" >"q$n.h"
	st=0
	"$hloplan" --threads "$n" bad.hlo -o "b$n.h" 2>"e$n.txt" || st=$?
	echo "$st" >"s$n.txt"
	[ ! -e "b$n.h" ] || {
		echo "targets_cli.sh: --threads $n wrote a header for bad.hlo" >&2
		exit 1
	}
done
grep -q 'TPU' e1.txt || {
	echo "targets_cli.sh: bad.hlo is not refused on the TPU:" >&2
	cat e1.txt >&2
	exit 1
}
[ "$(cat s1.txt)" != 0 ] || {
	echo "targets_cli.sh: bad.hlo exits 0" >&2
	exit 1
}
for n in 2 0; do
	for pair in "q$n.h q1.h" "p$n.json p1.json" "p$n.csv p1.csv" \
		    "s$n.txt s1.txt" "e$n.txt e1.txt"; do
		set -- $pair
		cmp -s "$1" "$2" || {
			echo "targets_cli.sh: --threads $n: $1 differs from $2" >&2
			exit 1
		}
	done
done
echo "targets_cli.sh: the same outputs and errors for 1, 2 and 0 threads"
