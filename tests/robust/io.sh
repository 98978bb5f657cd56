#!/bin/sh
# I/O failures through the CLI: each must exit 2 with a message naming the
# file, and leave no partial output, no temporary, and any earlier output
# untouched (as GCC leaves an old .o when a compile fails).
#   io.sh CASE HLOPLAN SAMPLE.hlo WORKDIR
set -eu
case_=$1 hloplan=$2 sample=$3 work=$4/$1
rm -rf "$work"
mkdir -p "$work"
cd "$work"

fail() {
	echo "io.sh: $case_: $*" >&2
	exit 1
}

# try STATUS ARGS...: hloplan exits STATUS; its stderr is in err.txt.
try() {
	want=$1
	shift
	status=0
	$prefix "$hloplan" "$@" >out.txt 2>err.txt || status=$?
	cat err.txt >&2
	[ "$status" = "$want" ] || fail "exit status $status, not $want"
}
prefix=""

# said TEXT: stderr says it.
said() {
	grep -q -F -- "$1" err.txt || fail "stderr does not say '$1'"
}

# clean: no temporary file left in the directory.
clean() {
	left=$(ls -A | grep -v -e '^err.txt$' -e '^out.txt$' -e '^old.h$' \
		-e '^in.hlo$' -e '^ro$' -e '^file$' || true)
	[ -z "$left" ] || fail "left behind: $left"
}

# old: plan.h still holds what it held before the run.
old() {
	cmp -s old.h plan.h || fail "plan.h was changed"
	rm plan.h
}

cp "$sample" in.hlo
echo "/* an earlier plan */" >old.h

# Permissions bind no one as root: the two cases that need them run hloplan
# as nobody through setpriv, or are skipped (77).
as_user=""
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null
	then
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 777 .
	else
		as_user=skip
	fi
fi

case $case_ in
missing_input)
	try 2 missing.hlo -o plan.h
	said "missing.hlo"
	said "No such file or directory"
	clean ;;
directory_input)	# an XLA dump's folder, here with no module in it
	mkdir dir
	try 1 dir -o plan.h
	said "holds no *after_optimizations.txt"
	rmdir dir
	clean ;;
unreadable_input)
	[ "$as_user" != skip ] || { echo "io.sh: root: skipped" >&2; exit 77; }
	chmod 000 in.hlo
	prefix=$as_user
	try 2 in.hlo -o plan.h
	said "Permission denied"
	chmod 644 in.hlo
	clean ;;
missing_directory)
	try 2 in.hlo -o nodir/plan.h
	said "cannot write 'nodir/plan.h'"
	[ ! -e nodir ] || fail "nodir was created"
	clean ;;
not_a_directory)
	: >file
	try 2 in.hlo -o file/plan.h
	said "cannot write 'file/plan.h'"
	clean ;;
readonly_directory)
	[ "$as_user" != skip ] || { echo "io.sh: root: skipped" >&2; exit 77; }
	mkdir ro
	cp old.h ro/plan.h
	chmod 555 ro
	prefix=$as_user
	try 2 in.hlo -o ro/plan.h
	said "cannot write 'ro/plan.h'"
	chmod 755 ro
	cmp -s old.h ro/plan.h || fail "ro/plan.h was changed"
	[ "$(ls ro)" = plan.h ] || fail "left behind in ro: $(ls ro)"
	rm -r ro
	clean ;;
full_disk)
	# A device that is always full: ENOSPC on the first write.
	try 2 in.hlo -o /dev/full
	said "cannot write '/dev/full'"
	said "No space left on device"
	clean ;;
full_disk_second)
	# The header would fit but the JSON beside it does not: neither is
	# committed, and the earlier header stays.
	cp old.h plan.h
	try 2 in.hlo -o plan.h --json /dev/full
	said "cannot write '/dev/full'"
	old
	clean ;;
mid_write)
	# The file size limit cuts the header mid-write (EFBIG, with SIGXFSZ
	# ignored), as a full disk would: the earlier plan.h stays whole.
	cp old.h plan.h
	status=0
	(
		trap '' XFSZ
		ulimit -f 8
		exec "$hloplan" in.hlo -o plan.h
	) >out.txt 2>err.txt || status=$?
	cat err.txt >&2
	[ "$status" = 2 ] || fail "exit status $status, not 2"
	said "cannot write 'plan.h'"
	said "File too large"
	old
	clean ;;
stdout_full)
	status=0
	"$hloplan" in.hlo -o - >/dev/full 2>err.txt || status=$?
	cat err.txt >&2
	[ "$status" = 2 ] || fail "exit status $status, not 2"
	said "standard output"
	clean ;;
bad_input_keeps_output)
	# Bad input: exit 1, and the earlier output is neither removed nor
	# replaced.
	cp old.h plan.h
	printf 'HloModule m\nENTRY e {\n  ROOT a = f32[8] negate(b)\n}\n' \
		>in.hlo
	try 1 in.hlo -o plan.h --json plan.json
	old
	clean ;;
*)
	fail "unknown case" ;;
esac
echo "io.sh: $case_: ok" >&2
