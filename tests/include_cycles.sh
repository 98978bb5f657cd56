#!/bin/sh
# Includes flow one way: no folder includes a header of a folder that
# includes one of its own, and no file includes one that includes it back,
# where x.c and x.h count as one unit.  Reads the #include "..." lines of
# every .c and .h under SRC but tests/ (test code may reach into anything)
# and build trees; names each cycle it finds.
# Usage: include_cycles.sh SRC
set -eu
src=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)
tmp=${TMPDIR:-/tmp}/include_cycles.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

cd "$src"
# Every source file, without tests/, the build trees (build*/, as
# .gitignore has them, or any folder with a CMakeCache.txt) and .git.
find . \( -name .git -o -path ./tests -o -path './build*' -o \
	-type d -exec sh -c 'test -e "$1/CMakeCache.txt"' sh {} \; \) \
	-prune -o -type f \( -name '*.c' -o -name '*.h' \) -print |
	sed 's|^\./||' | LC_ALL=C sort >"$tmp.files"

# One line per include that names a file of the tree: "from to", looked up
# beside the includer, then from the top and include/ (the -I of the build);
# what is not found (generated, or a system header) is not ours.
xargs awk '
FNR == 1 && NR == FNR {
	while ((getline f < list) > 0)
		have[f] = 1
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	name = $0
	sub(/^[^"]*"/, "", name)
	sub(/".*$/, "", name)
	file = FILENAME
	dir = file
	if (!sub(/\/[^\/]*$/, "", dir))
		dir = ""
	to = ""
	if (dir != "" && ((dir "/" name) in have))
		to = dir "/" name
	else if (name in have)
		to = name
	else if (("include/" name) in have)
		to = "include/" name
	if (to != "")
		print file, to
}' list="$tmp.files" <"$tmp.files" >"$tmp.edges"

status=0
# Files: x.c and x.h are one unit.
sed 's/\.[ch]\( \)/\1/; s/\.[ch]$//' "$tmp.edges" |
	awk -v prefix="include_cycles: file " -f "$here/cycles.awk" || status=1
# Folders: the top of the tree is ".".
awk -v folders=1 -v prefix="include_cycles: folder " -f "$here/cycles.awk" \
	"$tmp.edges" || status=1
[ "$status" -eq 0 ] && echo "include_cycles: $(wc -l <"$tmp.files" |
	tr -d ' ') files, $(wc -l <"$tmp.edges" | tr -d ' ') includes, no cycle"
exit "$status"
