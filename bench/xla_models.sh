#!/bin/sh
# XLA's own model benchmarks, the large models beyond corpus/hlo that
# issue 40's bounds are for (Mixtral, torax, Llama, Gemma, MobileNet): the
# *.hlo of 100 KB or more under the benchmark folders of an openxla/xla git
# directory (the fork Ashutosh0x/xla, brought by `fetch`), written to OUT,
# one file each, named by path.  Files the snapshot holds as pointers
# (empty here) are skipped.  Then, unless --extract-only:
# bench/e2e_bench.sh over OUT, best of 3 per model.  Nothing is copied into
# the repository.
#   bench/xla_models.sh [--extract-only] GIT_DIR OUT [HLOPLAN] [THREADS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
extract_only=0
if [ "${1:-}" = --extract-only ]; then
	extract_only=1
	shift
fi
if [ $# -lt 2 ]; then
	echo "usage: bench/xla_models.sh [--extract-only] GIT_DIR OUT [HLOPLAN] [THREADS]" >&2
	exit 2
fi
git=$1
out=$2
hloplan=${3:-$top/build/hloplan}
threads=${4:-0}
mkdir -p "$out"
seen=$(mktemp)
trap 'rm -f "$seen"' EXIT
git --git-dir="$git" ls-tree -r -l HEAD -- \
	xla/tools/benchmarks/hlo \
	xla/backends/cpu/benchmarks/hlo \
	xla/backends/cpu/benchmarks/huge_hlo \
	xla/tools/data/benchmarking |
while read -r mode type obj size path; do
	case $path in *.hlo) ;; *) continue ;; esac
	case $size in '' | *[!0-9]*) continue ;; esac	# not in the snapshot
	[ "$type" = blob ] && [ "$size" -ge 100000 ] || continue
	name=$(basename "$path" .hlo)
	if grep -qx "$name" "$seen"; then
		echo "bench/xla_models.sh: $path: $name.hlo taken; skipped" >&2
		continue
	fi
	echo "$name" >>"$seen"
	git --git-dir="$git" cat-file blob "$obj" >"$out/$name.hlo"
	[ -s "$out/$name.hlo" ] || rm -f "$out/$name.hlo"
done
ls "$out"/*.hlo | wc -l | sed 's/$/ models/' >&2
[ $extract_only = 1 ] || sh "$top/bench/e2e_bench.sh" "$hloplan" "$out" "$threads"
