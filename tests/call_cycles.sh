#!/bin/sh
# Calls flow one way too: from the library's object files, which file
# defines each external symbol and which files use it; fails, naming the
# cycle, when a folder calls into a folder that calls it back, or a file
# into one that calls it back.  The files or folders named together with -u
# (a comma-separated list) are one unit: they may call each other both
# ways, not the rest.  Objects of generated sources (not in SRC) belong to
# the folder named with -g.
# Usage: call_cycles.sh NM SRC [-g FOLDER] [-u FILE,...]... OBJECT...
# (an OBJECT argument may be a CMake list: paths separated by ';').
set -eu
nm=$1 src=$2
shift 2
gen=. units=" "
while [ $# -gt 0 ]; do
	case $1 in
	-g) gen=$2; shift 2 ;;
	-u) units="$units$2 "; shift 2 ;;
	*) break ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
tmp=${TMPDIR:-/tmp}/call_cycles.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

# "D file symbol" for each definition, "U file symbol" for each use; a
# file is its source's path in the tree (CMake names an object after it).
: >"$tmp.syms"
n=0
set -f
IFS=';
'
for o in $*; do
	f=${o##*/CMakeFiles/*.dir/}
	f=${f%.o}
	f=${f%.obj}
	[ -e "$src/$f" ] || f="$gen/${f##*/}"
	if ! "$nm" -P "$o" >"$tmp.nm" 2>/dev/null; then
		echo "call_cycles: $nm cannot read $o: skipped"
		exit 77
	fi
	awk -v f="$f" '
	$2 ~ /^[TDBRCGSVW]$/ { print "D", f, $1 }
	$2 == "U" { print "U", f, $1 }' "$tmp.nm" >>"$tmp.syms"
	n=$((n + 1))
done
unset IFS
if [ "$n" -eq 0 ]; then
	echo "call_cycles: no object files: skipped"
	exit 77
fi

# "user definer" per symbol defined in exactly one file (a symbol defined
# in several, a common or weak one, says nothing of who calls whom).
awk '
$1 == "D" { ndef[$3]++; def[$3] = $2; next }
{ nuse++; user[nuse] = $2; sym[nuse] = $3 }
END {
	for (k = 1; k <= nuse; k++)
		if (ndef[sym[k]] == 1 && def[sym[k]] != user[k])
			print user[k], def[sym[k]]
}' "$tmp.syms" | LC_ALL=C sort -u >"$tmp.edges"

status=0
# Files: those of a -u list count as the list.
awk -v units="$units" '
BEGIN {
	ngroup = split(units, group, " ")
	for (g = 1; g <= ngroup; g++) {
		n = split(group[g], m, ",")
		for (i = 1; i <= n; i++)
			unit_of[m[i]] = "{" group[g] "}"
	}
}
function unit(f,    d) {
	if (f in unit_of)
		return unit_of[f]
	d = f
	if (!sub(/\/[^\/]*$/, "", d))
		d = "."
	return d in unit_of ? unit_of[d] : f
}
{ print unit($1), unit($2) }' "$tmp.edges" |
	awk -v prefix="call_cycles: file " -f "$here/cycles.awk" || status=1
# Folders: the top of the tree is ".".
awk -v folders=1 -v prefix="call_cycles: folder " -f "$here/cycles.awk" \
	"$tmp.edges" || status=1
[ "$status" -eq 0 ] && echo "call_cycles: $n objects, $(wc -l <"$tmp.edges" |
	tr -d ' ') calls from file to file, no cycle"
exit "$status"
