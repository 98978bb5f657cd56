#!/bin/sh
# Long fuzzing: each libFuzzer target of a -DHLOPLAN_FUZZ=ON build for
# SECONDS, one target after the other, in fork mode (one child process at a
# time; a crash, leak, timeout or out-of-memory is kept as an artifact and
# the run goes on), then a table of what each run did.  Seeds, dictionaries
# and corpora are tests/fuzz/run.sh's (tests/fuzz/seed.sh); the corpora in
# BUILD_DIR/fuzz/corpus keep growing.  A table, not a test.
#   bench/fuzz_long.sh BUILD_DIR SECONDS [frontend|pipeline|intervals|xla_assignment ...]
# This run's logs and findings: BUILD_DIR/fuzz/long-DATE/ (TARGET.log,
# artifacts/TARGET-*).  Exit status 1 when there is a finding, 2 on misuse.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: bench/fuzz_long.sh BUILD_DIR SECONDS [TARGET ...]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
secs=$2
shift 2
targets=${*:-frontend pipeline intervals xla_assignment}
src=$(cd "$(dirname "$0")/.." && pwd)
corpus=${HLOPLAN_CORPUS_DIR:-$src/../shared/corpus}
work=$build/fuzz

. "$src/tests/fuzz/seed.sh"

for t in $targets; do
	if [ ! -x "$build/tests/fuzz/fuzz_$t" ]; then
		echo "fuzz_long.sh: no $build/tests/fuzz/fuzz_$t; configure" \
		     "with -DCMAKE_C_COMPILER=clang -DHLOPLAN_FUZZ=ON and build" \
		     "it (README, Fuzzing)" >&2
		exit 2
	fi
done
run=$work/long-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run/artifacts"

# The fork mode's parent prints its totals on each status line; the last
#   #12345: cov: 2120 ft: 9060 corp: 1030 exec/s 205 oom/timeout/crash:
#   0/0/0 time: 60s job: 12 dft_time: 0
# gives inputs run (#), cov and ft, or "-" when there is none.
last_stat() {
	v=$(grep -E '^#[0-9]+: cov: ' "$2" | tail -n 1 | sed -n "$1")
	echo "${v:--}"
}

table="| target | seconds | inputs run | cov | ft | corpus | findings |
|---|---:|---:|---:|---:|---:|---:|"
found=0
for t in $targets; do
	fuzz_setup "$t" || { echo "fuzz_long.sh: unknown target '$t'" >&2
			     exit 2; }
	echo "== fuzz_$t: $secs s, fork mode, log in $run/$t.log" >&2
	start=$(date +%s)
	"$build/tests/fuzz/fuzz_$t" -fork=1 -ignore_crashes=1 \
	    -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" \
	    -timeout=20 -rss_limit_mb=2048 -max_len="$max" -dict="$dict" \
	    -artifact_prefix="$run/artifacts/$t-" \
	    "$work/corpus/$t" "$work/seeds/$t" >"$run/$t.log" 2>&1 ||
		echo "fuzz_long.sh: fuzz_$t exited with status $?" >&2
	took=$(( $(date +%s) - start ))
	n=$(find "$run/artifacts" -name "$t-*" -type f | wc -l)
	found=$((found + n))
	table="$table
| $t | $took | $(last_stat 's/^#\([0-9]*\):.*/\1/p' "$run/$t.log") \
| $(last_stat 's/.* cov: \([0-9]*\).*/\1/p' "$run/$t.log") \
| $(last_stat 's/.* ft: \([0-9]*\).*/\1/p' "$run/$t.log") \
| $(find "$work/corpus/$t" -type f | wc -l) | $n |"
done

echo "$table"
echo
if [ "$found" -gt 0 ]; then
	echo "findings: $found, in $run/artifacts/ (each target's log says" \
	     "how each came about); each becomes a regression input in" \
	     "tests/fuzz/regress/TARGET/ and a fix"
	exit 1
fi
echo "findings: none (logs in $run/)"
