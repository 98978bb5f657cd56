#!/bin/sh
# XLA dumps in, answers out: hloplan over a dump directory and several
# files (a table, the target from each file's name, XLA's assignment read
# from beside each module), --xla-assignment with --stats, and the misuses
# that are refused before anything is written.  The assignment is a small
# one written by hand in XLA's format (tests/xla_dump/): its allocations
# sum to 4632 bytes, its temporary allocation of 3072 has at most 2064
# live at once (d and tup{0}, aliases at one offset, count once).
# usage: xla_dump_cli.sh HLOPLAN SOURCE_DIR OUTDIR
h=$1 src=$2 dir=$3
n=0

fail() {
	echo "FAIL: $*"
	exit 1
}

run() {
	want=$1
	shift
	n=$((n + 1))
	"$h" "$@" > "stdout.$n" 2> "stderr.$n"
	got=$?
	[ "$got" = "$want" ] ||
		fail "hloplan $* exited $got, not $want: $(cat "stderr.$n")"
}

has() {
	grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(cat "$1")"
}

rm -rf "$dir" && mkdir -p "$dir/dump" && cd "$dir" || exit 1
a=dump/module_0001.jit_mlp.sm_8.0_gpu_after_optimizations
b=dump/module_0002.jit_loop.sm_8.0_gpu_after_optimizations
cp "$src/samples/mlp.hlo" "$a.txt" &&
cp "$src/tests/xla_dump/mlp-buffer-assignment.txt" \
	"$a-buffer-assignment.txt" &&
cp "$src/samples/while_loop.hlo" "$b.txt" &&
echo "not a module" > dump/notes.txt || exit 1

# The directory: a row per module, by name; XLA's figures where its
# assignment lies beside the module; the GPU plan alone (the file's name).
run 0 dump
has stdout.1 "| module_0001.jit_mlp.sm_8.0_gpu_after_optimizations.txt | gpu | 4632 | 3072 | 2064 | 1008 |"
has stdout.1 "| module_0002.jit_loop.sm_8.0_gpu_after_optimizations.txt | gpu | | | | |"
has stdout.1 "2 modules: 0 refused, 1 with XLA's assignment beside them"
[ "$(grep -c '^| module_' stdout.1)" = 2 ] || fail "not two rows"
# The plan's total is its arena and constants, as --stats counts them.
total=$("$h" "$a.txt" --stats -o /dev/null 2>&1 |
	sed -n 's/.*this plan \([0-9]*\) bytes.*/\1/p')
[ -n "$total" ] || fail "no plan total in --stats"
has stdout.1 "| 1008 | $total |"

# Several files, and --target over the file's name.
run 0 "$a.txt" "$b.txt" --target=tpu
has stdout.2 "| module_0001.jit_mlp.sm_8.0_gpu_after_optimizations.txt | tpu |"
[ "$(grep -c '^| module_' stdout.2)" = 2 ] || fail "not two rows"
run 0 dump -o table.md
cmp -s table.md stdout.1 || fail "-o table.md differs from stdout"

# One module: XLA's assignment in --stats, named or found beside it.
run 0 "$src/samples/mlp.hlo" --target=gpu --stats -o out.h \
	--xla-assignment "$a-buffer-assignment.txt"
has stderr.4 "XLA's assignment: 4632 bytes in 5 allocations: parameters 1024, outputs 512, constants 16, thread-local 8, temporaries 3072"
has stderr.4 "XLA's temporary allocation 3072 bytes, at most 2064 of them live at once: 1008 unused at its peak"
run 0 "$a.txt" --stats -o out2.h
has stderr.5 "XLA's assignment: 4632 bytes"
has stderr.5 "HLOPLAN_GPU:"
grep -q "HLOPLAN_TPU" stderr.5 && fail "the GPU dump's file name did not set the target"

# Misuses: refused, nothing written.
rm -f out.h
run 2 "$a.txt" --xla-assignment "$a-buffer-assignment.txt" -o out.h
has stderr.6 "--xla-assignment reports in --stats, --json and --svg"
run 2 "$a.txt" --stats --xla-assignment missing.txt -o out.h
has stderr.7 "missing.txt: error:"
run 1 "$a.txt" --stats --xla-assignment "$b.txt" -o out.h
has stderr.8 "not XLA's buffer assignment"
[ -e out.h ] && fail "a refused run wrote out.h"
run 2 dump --json out.json
has stderr.9 "prints a table"
run 2 dump --dump plan
has stderr.10 "drop --dump"
[ -e out.json ] && fail "a refused run wrote out.json"
run 2 dump missing_dir_or_file
has stdout.11 "1 refused"
# XLA's figures in the JSON (each plan's "xla") and the SVG, named or found
# beside the module; none without an assignment.
run 0 "$a.txt" --json x.json --svg x.svg -o x.h
has x.json '"xla": {"allocations": 5, "total": 4632, "parameters": 1024, "outputs": 512, "constants": 16, "thread_local": 8, "temporaries": 3072, "temp_size": 3072, "temp_peak": 2064, "plan_total": '"$total"', "saved": '"$((4632 - total))"'},'
has x.svg "XLA's assignment 4,632 bytes (temporaries 3,072, at most 2,064 live); gpu "
run 0 "$src/samples/mlp.hlo" --target=gpu --json y.json \
	--xla-assignment "$a-buffer-assignment.txt" -o y.h
has y.json '"temp_peak": 2064'
run 0 "$b.txt" --json z.json --svg z.svg -o z.h
grep -q '"xla"' z.json && fail "an \"xla\" key without XLA's assignment"
grep -q "XLA's" z.svg && fail "XLA's line in the SVG without its assignment"

# XLA's assignment read strictly: cut short, or whose allocations do not
# add up to its total, it is the module's error, in its row and on stderr,
# never a total (issue 38).
ba=$src/tests/xla_dump/mlp-buffer-assignment.txt
mkdir -p bad empty
cp "$a.txt" bad/module_0003.jit_mlp.sm_8.0_gpu_after_optimizations.txt
head -n 10 "$ba" > bad/module_0003.jit_mlp.sm_8.0_gpu_after_optimizations-buffer-assignment.txt
run 1 bad
has stdout.$n "| module_0003.jit_mlp.sm_8.0_gpu_after_optimizations.txt | gpu | error: XLA's assignment |"
has stdout.$n "1 modules: 0 refused, 0 with XLA's assignment beside them, 1 beside an assignment in error"
has stderr.$n "module_0003.jit_mlp.sm_8.0_gpu_after_optimizations-buffer-assignment.txt:10:1: error: ends before its 'Total bytes used' line: cut short"
head -c 1000 "$ba" > cut.txt
run 1 "$a.txt" --stats --xla-assignment cut.txt -o out.h
has stderr.$n "cut.txt:"
has stderr.$n ": error: ends within a line: cut short"
sed 's/^Total bytes used: 4632/Total bytes used: 4633/' "$ba" > sum.txt
run 1 "$a.txt" --stats --xla-assignment sum.txt -o out.h
has stderr.$n "sum.txt:19:1: error: the allocations add up to 4632 bytes, not the 4633 of 'Total bytes used'"
sed 's/(size=1024,offset=2048)/(size=1024,offset=2560)/' "$ba" > past.txt
run 1 "$a.txt" --stats --xla-assignment past.txt -o out.h
has stderr.$n "past.txt:14:1: error: a value past the end of its allocation"
sed '/Live ranges at/,$d' "$ba" > noranges.txt
run 1 "$a.txt" --stats --xla-assignment noranges.txt -o out.h
has stderr.$n "error: ends before its 'Live ranges at N (peak):' line: cut short"
# Values XLA prints as '<id name (phi) @n>' count (they were skipped): in
# this loop, init{} 16 bytes, w{0} 4 and w{1} 64 live at step 3.
run 0 "$src/samples/mlp.hlo" --target=gpu --stats -o out.h \
	--xla-assignment "$src/tests/fuzz/seeds/xla_assignment/phi_loop.txt"
has stderr.$n "XLA's temporary allocation 384 bytes, at most 84 of them live at once: 300 unused at its peak"
rm -f out.h
run 2 "$a.txt" --stats --xla-assignment bad -o out.h
has stderr.$n "bad: error:"
[ -e out.h ] && fail "a refused run wrote out.h"

# An empty directory: an error, nothing on stdout.
run 1 empty
has stderr.$n "'empty' holds no *after_optimizations.txt"
[ -s stdout.$n ] && fail "an empty directory wrote a table"
run 1 empty -o table2.md
[ -e table2.md ] && fail "an empty directory wrote table2.md"
# An empty directory beside a module: the table, and exit status 1.
run 1 empty "$a.txt"
has stdout.$n "1 modules: 0 refused, 1 with XLA's assignment"

# What cannot apply to a table is refused, not ignored.
for o in --stats --allocators "--prefix=P" "-MT x"; do
	run 2 dump $o
	has stderr.$n "does not apply"
	[ -s stdout.$n ] && fail "$o in directory mode wrote a table"
done

# The summary: above XLA's total by the rows' rule (saved below 0), the
# ratio over all bytes, and a geometric mean only over modules of 1 MiB or
# more in XLA (this one has 4632 bytes).
has stdout.1 "hloplan/XLA over all bytes"
has stdout.1 "no module of 1 MiB or more in XLA for a geometric mean"
saved=$(sed -n 's/^| module_0001.* | \(-*[0-9]*\) | [0-9.]* |$/\1/p' stdout.1)
if [ "$saved" -lt 0 ]; then above=1; else above=0; fi
has stdout.1 ": $above above XLA's total"
echo "ok: $n runs"
