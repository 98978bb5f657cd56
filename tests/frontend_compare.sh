#!/usr/bin/env bash
# frontend_compare.sh REF NEW MUTATIONS SEED FILE...: runs two hloplan
# binaries with --dump ir over each FILE and over MUTATIONS random
# mutations of them (bytes deleted, tokens inserted, pieces repeated), and
# reports each input whose stdout, stderr or exit status differ.  Used to
# check a new frontend against the last one (issue 30: flex and bison
# against the parser by hand); the mutants are kept in $TMPDIR on a
# difference.
set -u
ref=$1 new=$2 nmut=$3 seed=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 d=0

# run BIN FILE OUT: stdout, stderr and status of BIN on FILE, named as
# the file's base name so that messages compare.
run() {
	(cd "$(dirname "$2")" && timeout 60 "$1" "$(basename "$2")" --dump ir \
		>"$3.out" 2>"$3.err"; echo $? >"$3.st")
}

check() {
	n=$((n + 1))
	run "$ref" "$1" "$work/r"
	run "$new" "$1" "$work/n"
	for k in out err st; do
		if ! cmp -s "$work/r.$k" "$work/n.$k"; then
			d=$((d + 1))
			echo "differ: $1 ($k)"
			[ -n "${2:-}" ] && cp "$1" "${TMPDIR:-/tmp}/"
			return
		fi
	done
}

for f in "$@"; do
	check "$f"
done
if [ "$nmut" -gt 0 ]; then
	python3 - "$work/mut" "$nmut" "$seed" "$@" <<'PY'
import os, random, sys
out, count, seed, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
rng = random.Random(seed)
os.makedirs(out, exist_ok=True)
pieces = [b"{", b"}", b"(", b")", b"[", b"]", b",", b"=", b":", b"#", b"->",
	  b"<=", b"...", b"ROOT ", b"ENTRY ", b"HloModule ", b"%x", b"f32[2]{0}",
	  b"\"", b"'", b"/*", b"*/", b"//", b"\n", b" ", b"-", b"1", b"-1.5e3",
	  b"2x3", b"0_1x1_1", b"b01f_01io->b01f", b"[2,2]<=[4]", b"\xff", b"\0",
	  b"FileNames", b"s32[]", b"(f32[], s32[])", b"{1,0:T(8,128)}",
	  b"metadata={op_name=\"x\"}", b"?", b"*", b"!", b"parameter(0)"]
for i in range(count):
	src = open(rng.choice(files), "rb").read()
	if len(src) > 200000:
		src = src[:200000]
	for _ in range(rng.randint(1, 3)):
		k = rng.randrange(4)
		p = rng.randrange(len(src) + 1)
		if k == 0:
			src = src[:p] + src[p + rng.randint(1, 8):]
		elif k == 1:
			src = src[:p] + rng.choice(pieces) + src[p:]
		elif k == 2:
			q = min(len(src), p + rng.randint(1, 40))
			src = src[:q] + src[p:q] + src[q:]
		else:
			q = rng.randrange(len(src) + 1)
			src = src[:p] + src[q:q + rng.randint(1, 20)] + src[p:]
	open(os.path.join(out, "m%05d.hlo" % i), "wb").write(src)
PY
	for f in "$work"/mut/*.hlo; do
		check "$f" keep
	done
fi
echo "compared $n inputs: $d differ"
[ "$d" = 0 ]
