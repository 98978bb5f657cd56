#!/usr/bin/env bash
# What a plan header costs its user's compiler: for each corpus module, the
# header hloplan writes (both targets, the default), its bytes, and the wall
# time of compiling a translation unit that includes it (-c, not
# -fsyntax-only, so that the tables' code generation counts) by GCC and
# Clang as C99, C11 and C++17 under -Wall -Wextra -Wpedantic -Werror.
# One run a build, the median of 3 for headers of 4 MB or more; the machine
# is shared and noisy, so read small differences as noise.  A table, not a
# test, but it exits 1 when any build fails.  Modules hloplan rejects are
# listed as rejected.
#   bench/header_compile.sh [--xla-tests] [HLOPLAN] [CORPUS_DIR]
# --xla-tests adds the many small modules of CORPUS_DIR/xla-tests.
set -u
xla=0
if [ "${1:-}" = --xla-tests ]; then
	xla=1
	shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
hloplan=${1:-$top/build/hloplan}
corpus=${2:-$top/../shared/corpus}
big=${BIG:-4000000}	# bytes: from here on, the median of 3 runs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include "plan.h"\nint main(void) { return 0; }\n' >"$tmp/tu.c"
builds="gcc:c99 gcc:c11 g++:c++17 clang:c99 clang:c11 clang++:c++17"

# One build's wall time in seconds, or FAIL (its errors on stderr).
build_s() {
	local cc=$1 std=$2 lang=c s e
	case $std in c++*) lang=c++ ;; esac
	s=$(date +%s%N)
	if ! "$cc" -std="$std" -Wall -Wextra -Wpedantic -Werror -x "$lang" \
		-I"$tmp" -c "$tmp/tu.c" -o /dev/null 2>"$tmp/err"; then
		echo "$m: $cc -std=$std failed:" >&2
		head -n 5 "$tmp/err" >&2
		echo FAIL
		return
	fi
	e=$(date +%s%N)
	awk -v ns=$((e - s)) 'BEGIN { printf "%.2f\n", ns / 1e9 }'
}

# The median of runs builds (1 or 3); FAIL if any failed.
median_s() {
	local i
	for ((i = 0; i < $3; i++)); do build_s "$1" "$2"; done |
		sort -g | sed -n "$((($3 + 1) / 2))p"
}

echo "| module | header bytes | gcc c99 | gcc c11 | g++ c++17 |" \
	"clang c99 | clang c11 | clang++ c++17 |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
n=0 rejected=0 failed=0
max=(0 0 0 0 0 0 0) slowest=0 slowest_at=-
modules() {
	ls "$corpus"/hlo/*.hlo
	if [ $xla = 1 ]; then find "$corpus/xla-tests" -name '*.hlo' | sort; fi
}
while read -r f; do
	m=${f#"$corpus"/}
	m=${m#hlo/}
	m=${m%.hlo}
	n=$((n + 1))
	if ! "$hloplan" "$f" -o "$tmp/plan.h" 2>/dev/null; then
		rejected=$((rejected + 1))
		echo "| $m | rejected | | | | | | |"
		continue
	fi
	bytes=$(wc -c <"$tmp/plan.h")
	runs=1
	[ "$bytes" -ge $big ] && runs=3
	row="| $m | $bytes |" k=1
	max[0]=$((bytes > max[0] ? bytes : max[0]))
	for b in $builds; do
		t=$(median_s "${b%:*}" "${b#*:}" $runs)
		row="$row $t |"
		if [ "$t" = FAIL ]; then
			failed=$((failed + 1))
		elif awk -v t="$t" -v m="${max[k]}" 'BEGIN { exit !(t > m) }'
		then
			max[k]=$t
		fi
		if [ "$t" != FAIL ] && awk -v t="$t" -v m="$slowest" \
			'BEGIN { exit !(t > m) }'; then
			slowest=$t slowest_at="$m, ${b%:*} -std=${b#*:}"
		fi
		k=$((k + 1))
	done
	echo "$row"
done < <(modules)
echo "| max | ${max[0]} | ${max[1]} | ${max[2]} | ${max[3]} |" \
	"${max[4]} | ${max[5]} | ${max[6]} |"
echo
echo "$n modules, $rejected rejected, $failed failed builds;" \
	"slowest build $slowest s ($slowest_at)"
[ $failed = 0 ]
