#!/bin/sh
# Runs the libFuzzer targets of a -DHLOPLAN_FUZZ=ON build, each for SECONDS,
# and fails on any finding (a crash, a leak, a timeout, a broken property).
#   tests/fuzz/run.sh BUILD_DIR SECONDS [frontend|pipeline|intervals|xla_assignment ...]
# The working corpora stay in BUILD_DIR/fuzz/corpus and grow from run to
# run; findings land in BUILD_DIR/fuzz/artifacts.  A finding becomes a
# regression input: copy it to tests/fuzz/regress/TARGET/ and fix it.
set -eu
build=$1
secs=$2
shift 2
targets=${*:-frontend pipeline intervals xla_assignment}
src=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${HLOPLAN_CORPUS_DIR:-$src/../shared/corpus}
work=$build/fuzz

. "$src/tests/fuzz/seed.sh"

fail=0
for t in $targets; do
	if ! fuzz_setup "$t"; then
		echo "run.sh: unknown target '$t'" >&2
		exit 2
	fi
	echo "== fuzz_$t: $secs s"
	if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" \
	    -timeout=20 -rss_limit_mb=2048 -max_len=$max -dict="$dict" \
	    -print_final_stats=1 -artifact_prefix="$work/artifacts/$t-" \
	    "$work/corpus/$t" "$work/seeds/$t" 2>"$work/$t.log"; then
		tail -n 60 "$work/$t.log"
		echo "run.sh: fuzz_$t found a problem; the input is in" \
		     "$work/artifacts/" >&2
		fail=1
	fi
	grep -E '^stat::(number_of_executed_units|peak_rss_mb)' \
		"$work/$t.log" || true
done
exit $fail
