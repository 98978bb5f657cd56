#!/bin/sh
# Runs hloplan on one input that once broke it (tests/robust/known, or a
# regression beside it) with the options in NAME.args, if any: it must plan
# (exit 0) or reject the input cleanly (exit 1), never crash or fail its own
# verification ("internal error").
#   check_input.sh HLOPLAN NAME.hlo OUTDIR
set -u
hloplan=$1 input=$2 out=$3
args=""
[ -f "${input%.hlo}.args" ] && args=$(cat "${input%.hlo}.args")
mkdir -p "$out"
status=0
# shellcheck disable=SC2086
"$hloplan" "$input" $args -o "$out/$(basename "${input%.hlo}").h" \
	2>"$out/err.txt" || status=$?
cut -c1-300 "$out/err.txt" >&2
if grep -q "internal error" "$out/err.txt"; then
	echo "check_input.sh: an internal error" >&2
	exit 1
fi
case $status in
0|1) exit 0 ;;
*) echo "check_input.sh: exit status $status" >&2; exit 1 ;;
esac
