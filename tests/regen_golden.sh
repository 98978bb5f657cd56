#!/bin/sh
# Regenerates the golden plans from the samples: a deliberate act; read the
# diff (git diff tests/golden) and say in the commit why each change is right.
# Usage: tests/regen_golden.sh [path/to/hloplan]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
hloplan=${1:-$top/build/hloplan}
grep -v '^#' "$top/tests/goldens.txt" | while read -r golden sample opts; do
	[ -n "$golden" ] || continue
	# NAME.json is the JSON plan, NAME.csv the CSV, NAME.STAGE.dump
	# --dump=STAGE, NAME.stats --stats but its time line, NAME.stats.json
	# --stats-json with "time_ms" emptied; anything else the header.
	case $golden in
	*.stats.json) flag=--stats-json ;;
	*.json) flag=--json ;;
	*.csv) flag=--csv ;;
	*.dump) stage=${golden%.dump} flag="--dump=${stage##*.} -o" ;;
	*.stats) flag="--stats -o" ;;
	*) flag=-o ;;
	esac
	# An input with a '/' is under the top, others under samples/.
	case $sample in */*) ;; *) sample=samples/$sample ;; esac
	# Same directory layout as the test, so that paths in the output agree.
	(cd "$top/tests/golden" &&
	 "$hloplan" "$top/$sample" $opts $flag "$golden" 2>stats.tmp)
	case $golden in
	*.stats)
		grep -Ev '^hloplan: (time|allocator replays) ' \
			"$top/tests/golden/stats.tmp" >"$top/tests/golden/$golden" ;;
	*.stats.json)
		sed -i 's/"time_ms": {[^}]*}/"time_ms": {}/' \
			"$top/tests/golden/$golden" ;;
	esac
	rm -f "$top/tests/golden/stats.tmp"
done
