#!/bin/sh
# The oracle --from-json (every plan rebuilt from hloplan's JSON) over
# every corpus module, beside the library-plan run: a table of exit
# statuses (0 same, 1 wrong, 2 error, 3 refused, 77 skipped) and every
# module whose two statuses differ.  usage: bench/contract_data.sh
# [ORACLE [CORPUS]]   (run it under nice: it takes a while)
oracle=${1:-build/tests/oracle/oracle}
corpus=${2:-../shared/corpus}
flags="--quiet --fill-elided --max-arena 268435456"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
find "$corpus/hlo" "$corpus/xla-tests" -name '*.hlo' | sort > "$tmp/files"
n=0 differ=0
: > "$tmp/rows"
while read -r f; do
	"$oracle" $flags --from-json "$f" > "$tmp/c.out" 2>&1; c=$?
	"$oracle" $flags "$f" > "$tmp/l.out" 2>&1; l=$?
	n=$((n + 1))
	echo "$c $l" >> "$tmp/rows"
	if [ "$c" != "$l" ]; then
		differ=$((differ + 1))
		echo "DIFFERENT STATUS: $f: contract $c, library $l"
		head -5 "$tmp/c.out"
	fi
done < "$tmp/files"
printf '%-10s %8s %8s\n' status contract library
for s in 0 1 2 3 77; do
	printf '%-10s %8d %8d\n' "$s" \
		"$(awk -v s=$s '$1 == s' "$tmp/rows" | wc -l)" \
		"$(awk -v s=$s '$2 == s' "$tmp/rows" | wc -l)"
done
echo "$n modules, $differ with a different status"
[ "$differ" -eq 0 ]
