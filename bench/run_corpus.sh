#!/bin/sh
# samples/aot/run.c (a runtime from the header alone: every operand and
# result bound through the positions) over many modules: for each module
# and target, hloplan writes the header, run.c is compiled against it and
# run, once per plan the header holds.  Prints each module and target that
# is not OK, then the count of module-target runs.  Modules
# hloplan refuses (an input error) are counted apart.
# usage: bench/run_corpus.sh [HLOPLAN [TARGETS]] < list-of-modules
#   find ../shared/corpus -name '*.hlo' | nice -n 19 bench/run_corpus.sh
#   ls ../xla-ba/*optimizations.txt | nice -n 19 bench/run_corpus.sh
hloplan=${1:-build/hloplan}
targets=${2:-gpu tpu}
src=${RUN_C:-$(dirname "$0")/../samples/aot/run.c}
cc=${CC:-cc}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
n=0 ok=0 refused=0 bad=0
while read -r f; do
	for t in $targets; do
		n=$((n + 1))
		if ! "$hloplan" "$f" --target="$t" -o "$tmp/plan.h" \
			2> "$tmp/err"; then
			refused=$((refused + 1))
			echo "REFUSED $t $f: $(head -1 "$tmp/err")"
			continue
		fi
		# each plan of the header (a file of several modules has a
		# prefix per module)
		for pre in $(sed -n 's/^#define \(.*\)_NUM_OPERANDS .*/\1/p' \
			"$tmp/plan.h"); do
			if ! $cc -std=c11 -O1 -w -I"$tmp" \
				-DPLAN_HEADER='"plan.h"' -DPLAN_PREFIX="$pre" \
				"$src" -o "$tmp/run" 2> "$tmp/err"; then
				bad=$((bad + 1))
				echo "NO BUILD $pre $f: $(head -3 "$tmp/err")"
				continue 2
			fi
			if ! "$tmp/run" > "$tmp/out" 2>&1 ||
			   ! grep -qx OK "$tmp/out"; then
				bad=$((bad + 1))
				echo "FAIL $pre $f:"
				head -4 "$tmp/out"
				continue 2
			fi
		done
		ok=$((ok + 1))
	done
done
echo "$n runs: $ok OK, $bad failed, $refused refused by hloplan"
[ "$bad" -eq 0 ]
