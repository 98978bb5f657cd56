#!/bin/sh
# The command line's outputs: every output at once, --opt=V and --opt V
# alike, the CSV's header line, the SVG well-formed (xmllint), depfiles as
# GCC writes them, an unchanged output left alone (mtime kept), and a failed
# run leaving every old output as it was and no temporary behind, nor a run
# that SIGTERM ends.  Exits 77 (skipped) at the end when xmllint is
# missing.
# usage: test_outputs.sh HLOPLAN SAMPLES_DIR OUTDIR [XMLLINT]
h=$1 samples=$2 dir=$3 xmllint=${4:-}
n=0

fail() {
	echo "FAIL: $*"
	exit 1
}

# run EXPECTED-STATUS ARGS...: runs hloplan, requires the status.
run() {
	want=$1
	shift
	n=$((n + 1))
	"$h" "$@" > "stdout.$n" 2> "stderr.$n"
	got=$?
	[ "$got" = "$want" ] ||
		fail "hloplan $* exited $got, not $want: $(cat "stderr.$n")"
}

# same FILE TEXT: FILE holds exactly TEXT and a newline.
same() {
	printf '%s\n' "$2" | cmp -s - "$1" || fail "$1 is '$(cat "$1")', not '$2'"
}

mtime() {
	stat -c %Y "$1"
}

rm -rf "$dir" && mkdir -p "$dir/sub" && cd "$dir" || exit 1
cp "$samples/mlp.hlo" m.hlo || exit 1

# Every output at once.  The constants blob is each plan's constants'
# bytes from a multiple of 64 (test_api checks them against the plans; it
# is empty while no pass fills them in).
run 0 m.hlo -o plan.h --json plan.json --csv plan.csv --svg plan.svg \
	--stats-json stats.json --constants plan.bin
for f in plan.h plan.json plan.csv plan.svg stats.json; do
	[ -s "$f" ] || fail "$f is missing or empty"
done
[ -f plan.bin ] || fail "plan.bin is missing"
[ $(($(wc -c < plan.bin) % 64)) = 0 ] || fail "plan.bin: not 64-byte parts"
[ ! -s stdout.$n ] || fail "something went to stdout"
head -1 plan.csv > csv_head.txt
same csv_head.txt "buffer_id,buffer_name,offset,size,definition_time,end_time,unpadded_size,memory_space,slots,stride,class,plan,module,target,dtype,shape,parameter,param_index,output_index,values"
[ "$(wc -l < plan.csv)" = 19 ] || fail "plan.csv: not 18 rows"
# Each row names its plan: nine of the GPU's, then nine of the TPU's.
cut -d, -f12,14 plan.csv | sed 1d | uniq -c | sed 's/^ *//' > csv_plans.txt
same csv_plans.txt "9 HLOPLAN_GPU,gpu
9 HLOPLAN_TPU,tpu"

# Each plan's part of a dump starts with a line naming the stage and the
# plan (an HLO comment in --dump=hlo); --dump=ir is of the file, before
# any target, and has none.
for stage in schedule values plan; do
	run 0 m.hlo --dump=$stage
	grep '^==' stdout.$n > labels.txt
	same labels.txt "== $stage HLOPLAN_GPU (module mlp, target gpu)
== $stage HLOPLAN_TPU (module mlp, target tpu)"
	head -1 stdout.$n | grep -q '^== ' || fail "--dump=$stage: no label first"
done
run 0 m.hlo --dump=hlo --target=tpu
head -1 stdout.$n > labels.txt
same labels.txt "// == hlo HLOPLAN_TPU (module mlp, target tpu)"
run 0 stdout.$n --target=tpu -o relabel.h
run 0 m.hlo --dump=ir
grep -q '==' stdout.$n && fail "--dump=ir has a label"
if [ -n "$xmllint" ]; then
	"$xmllint" --noout plan.svg || fail "plan.svg is not well-formed XML"
fi

# --opt=VALUE and --opt VALUE; without -o and with another output, no
# header on stdout; with neither, the header on stdout.
run 0 m.hlo --svg=b.svg --csv c.csv
cmp -s plan.svg b.svg || fail "--svg=FILE and --svg FILE differ"
[ ! -s stdout.$n ] || fail "a header went to stdout beside --svg"
run 0 m.hlo
grep -q '^#ifndef HLOPLAN_GPU_PLAN_H$' stdout.$n || fail "no header on stdout"
cp stdout.$n implicit.h
run 0 m.hlo -o -
cmp -s stdout.$n implicit.h || fail "the header differs from -o -'s"

# Depfiles: -MD beside the output, -MF, -MT (several), -MQ, stdin.
run 0 m.hlo -o plan.h -MD
same plan.d "plan.h: m.hlo"
run 0 m.hlo -o sub/x.plan.h -MD
same sub/x.plan.d "sub/x.plan.h: m.hlo"
run 0 m.hlo -o plan.h -MF deps.txt -MT a -MT b
same deps.txt "a b: m.hlo"
run 0 m.hlo -o plan.h -MD -MQ 'x y$'
same plan.d 'x\ y$$: m.hlo'
run 0 m.hlo --json j.json -MD
same j.d "j.json: m.hlo"
run 0 m.hlo --constants k.bin -MD
same k.d "k.bin: m.hlo"
run 0 m.hlo -MF t.d -MT t
same t.d "t: m.hlo"
run 0 - -o s.h -MD < m.hlo
same s.d "s.h:"
run 2 m.hlo -MD
run 2 m.hlo -MF x.d
run 2 m.hlo -o plan.h -MT
run 2 m.hlo --dump=ir --json x.json
run 2 m.hlo --dump=ir --constants x.bin
run 2 m.hlo -o plan.h --constants -

# Unchanged outputs keep their mtime; changed ones are replaced.
run 0 m.hlo -o plan.h --json plan.json --constants plan.bin -MD
touch -d @1000000000 plan.h plan.json plan.bin plan.d
run 0 m.hlo -o plan.h --json plan.json --constants plan.bin -MD
for f in plan.h plan.json plan.bin plan.d; do
	[ "$(mtime $f)" = 1000000000 ] || fail "unchanged $f was rewritten"
done
run 0 m.hlo -o plan.h --json plan.json -MD --target=gpu
[ "$(mtime plan.h)" != 1000000000 ] || fail "changed plan.h was not"
[ "$(mtime plan.d)" = 1000000000 ] || fail "unchanged plan.d was rewritten"

# What is not a regular file is written in place, not renamed over.
mkfifo fifo || exit 1
cat fifo > from_fifo &
reader=$!
run 0 m.hlo -o fifo
if [ ! -p fifo ]; then
	kill $reader
	fail "the FIFO was replaced by a file"
fi
wait $reader
grep -q '^#ifndef HLOPLAN_GPU_FIFO$' from_fifo || fail "nothing came through the FIFO"

# A failed run changes nothing and leaves no temporary: bad input (1), an
# output that cannot be written (2, and the others are not committed).
cp plan.h before.h && cp plan.json before.json
echo old > old.bin && cp old.bin before.bin
printf 'HloModule bad\nENTRY e {\n  ROOT x = f32[] bogus()\n}\n' > bad.hlo
run 1 bad.hlo -o plan.h --json plan.json -MD --constants old.bin
run 2 m.hlo -o plan.h --json plan.json --svg no/such/dir.svg
run 2 m.hlo --target=tpu -o plan.h --json no/such/dir.json
run 2 m.hlo -o plan.h --constants old.bin --csv no/such/dir.csv
run 2 m.hlo -o plan.h --constants no/such/dir.bin
cmp -s plan.h before.h || fail "a failed run changed plan.h"
cmp -s plan.json before.json || fail "a failed run changed plan.json"
cmp -s old.bin before.bin || fail "a failed run changed old.bin"
ls ./*.tmp* sub/*.tmp* 2>/dev/null && fail "temporaries left behind"

# No temporary before the outputs are written: while the input is read (a
# FIFO no one writes), a dump is kept in memory and nothing is beside -o.
mkfifo never.hlo never.json || exit 1
"$h" --dump=ir never.hlo -o sig.h 2>/dev/null &
pid=$!
sleep 0.5
ls sig.h* 2>/dev/null && { kill $pid; fail "a temporary before the outputs"; }
kill -TERM $pid
wait $pid
got=$?
[ "$got" = 143 ] || fail "SIGTERM while reading: exit status $got, not 143"
n=$((n + 1))

# SIGTERM while an output's temporary exists (the header's is written, and
# the JSON goes to a FIFO no one reads): the signal ends the run, and the
# temporary goes with it.
"$h" m.hlo -o sig.h --json never.json 2>/dev/null &
pid=$!
i=0
while [ -z "$(ls sig.h.tmp* 2>/dev/null)" ] && [ $i -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ $i -lt 1200 ] || { kill $pid; fail "no temporary appeared for sig.h"; }
kill -TERM $pid
wait $pid
got=$?
[ "$got" = 143 ] || fail "SIGTERM: exit status $got, not 143"
ls sig.h* 2>/dev/null && fail "SIGTERM left sig.h or its temporary"
n=$((n + 1))

if [ -z "$xmllint" ]; then
	echo "no xmllint: the SVG was not checked; skipped"
	exit 77
fi
echo "$n runs as expected"
