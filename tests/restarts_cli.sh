#!/bin/sh
# The search's restarts: at the default effort, minimalloc's D and J (one
# piece each, where the plain bisection stalls at 1034240 and 1039360)
# pack at or below 1031168 and 1036288, with one plan for 1, 2 and 0 (one
# per processor) threads.
#   restarts_cli.sh HLOPLAN INTERVALS_DIR WORKDIR
set -eu
hloplan=$1 dir=$2 work=$3
mkdir -p "$work"
cd "$work"
for p in D:1031168 J:1036288; do
	name=${p%%:*} want=${p#*:}
	in=$dir/minimalloc/$name.1048576.csv
	for n in 1 2 0; do
		"$hloplan" --intervals --threads "$n" "$in" -o "$name$n.csv"
	done
	for n in 2 0; do
		cmp -s "${name}1.csv" "$name$n.csv" || {
			echo "restarts_cli.sh: $name: --threads $n packs otherwise than 1" >&2
			exit 1
		}
	done
	top=$(awk -F, 'NR > 1 && $5 + $4 > h { h = $5 + $4 } END { print h }' "${name}1.csv")
	[ "$top" -le "$want" ] || {
		echo "restarts_cli.sh: $name: height $top, want at most $want" >&2
		exit 1
	}
	echo "restarts_cli.sh: $name: height $top (at most $want)"
done
