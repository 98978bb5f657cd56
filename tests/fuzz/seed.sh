# The seeds, length limit and dictionary of each fuzz target, for
# tests/fuzz/run.sh and bench/fuzz_long.sh (sourced, POSIX sh).  The caller
# sets src (the source tree), corpus (the shared corpus) and work
# (BUILD_DIR/fuzz).
#   fuzz_setup TARGET   fills $work/seeds/TARGET anew, makes
#                       $work/corpus/TARGET and $work/artifacts, and sets
#                       max (bytes) and dict; 1 for an unknown target.

# Seeds: the samples, the error goldens, small corpus files and every
# regression input.  Files over the size limit would only be cut.
fuzz_seed() {
	t=$1 max=$2
	rm -rf "$work/seeds/$t"
	mkdir -p "$work/seeds/$t" "$work/corpus/$t" "$work/artifacts"
	shift 2
	for f in "$@" "$src/tests/fuzz/regress/$t"/*; do
		[ -f "$f" ] || continue
		[ "$(wc -c <"$f")" -le "$max" ] || continue
		cp "$f" "$work/seeds/$t/$(basename "$(dirname "$f")")_$(basename "$f")"
	done
}

fuzz_setup() {
	case $1 in
	frontend|pipeline)
		max=16384
		[ "$1" = pipeline ] && max=8192
		fuzz_seed "$1" $max "$src"/samples/*.hlo \
			"$src"/tests/errors/*.hlo "$corpus"/hlo/*.hlo
		dict=$src/tests/fuzz/hlo.dict ;;
	intervals)
		max=8192
		fuzz_seed "$1" $max "$src"/tests/fuzz/seeds/intervals/*.csv \
			"$corpus"/intervals/*/*.csv
		dict=$src/tests/fuzz/csv.dict ;;
	xla_assignment)
		max=8192
		fuzz_seed "$1" $max \
			"$src"/tests/fuzz/seeds/xla_assignment/*.txt \
			"$src"/tests/xla_dump/*.txt
		dict=$src/tests/fuzz/xla.dict ;;
	*)
		return 1 ;;
	esac
}
