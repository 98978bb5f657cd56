#!/bin/sh
# The contract by value identity (issue 37 item 4): for every real model of
# the corpus and every module of XLA's GPU dumps, hloplan writes the JSON
# and the oracle runs every plan in it by value identity (oracle --identity
# --json: no array data, each byte range tagged with the value instance it
# holds, every read checked).  One row per module: its status, the
# planning and identity times, and the GPU plan's figures; then per set
# and in all "N modules, N clean, N failed, N refused (why)", the
# reasons with names left out ('X').
#   usage: bench/identity.sh [HLOPLAN [ORACLE [CORPUS [XLA_BA]]]]
# (run it under nice: the big models take seconds each)
hloplan=${1:-build/hloplan}
oracle=${2:-build/tests/oracle/oracle}
corpus=${3:-../shared/corpus}
xla=${4:-../xla-ba}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/rows"

now() { date +%s.%N; }

# One module: set, file -> a row "set name status plan_s id_s figures".
one() {
	set_=$1 f=$2 n=$(basename "$2" | sed 's/_after_optimizations.txt$//;s/\.hlo$//')
	t0=$(now)
	if ! "$hloplan" "$f" --json "$tmp/p.json" -o /dev/null 2> "$tmp/err"
	then
		why=$(head -1 "$tmp/err" | cut -c1-80)
		echo "$set_ $n failed - - hloplan: $why" >> "$tmp/rows"
		return
	fi
	t1=$(now)
	"$oracle" --identity --json "$tmp/p.json" "$f" > "$tmp/out" 2>&1
	rc=$?
	t2=$(now)
	ps=$(echo "$t1 - $t0" | bc) is=$(echo "$t2 - $t1" | bc)
	case $rc in
	0) st=clean
	   fig=$(grep -m1 'clean by value identity' "$tmp/out" |
		 sed 's/.*identity: //;s/ steps,/ st/;s/ reads,/ rd/;s/ values,/ val/;s/ copies,/ cp/;s/at most \([0-9]*\) ranges/\1 rng/') ;;
	77) st=refused fig=$(grep -v 'clean by' "$tmp/out" | head -1 |
			     sed 's/.*refused: //' | cut -c1-80) ;;
	*) st=failed fig=$(grep -v 'clean by' "$tmp/out" | head -1 |
			   sed 's/^.*: [gt]pu: //' | cut -c1-200) ;;
	esac
	printf '%s %s %s %.2f %.2f %s\n' "$set_" "$n" "$st" "$ps" "$is" \
		"$fig" >> "$tmp/rows"
}

for f in "$corpus"/hlo/*.hlo; do
	[ -f "$f" ] && one corpus "$f"
done
for f in "$xla"/*_after_optimizations.txt; do
	[ -f "$f" ] && one xla-ba "$f"
done

printf '%-7s %-58s %-8s %7s %7s  %s\n' set module status plan_s ident_s \
	"steps, reads, values, copies, most ranges (GPU plan) / why"
while read -r s n st ps is rest; do
	printf '%-7s %-58s %-8s %7s %7s  %s\n' "$s" "$(echo "$n" | cut -c1-58)" \
		"$st" "$ps" "$is" "$rest"
done < "$tmp/rows"
echo
for s in corpus xla-ba all; do
	awk -v s=$s '
	s == "all" || $1 == s {
		n++; c[$3]++
		if ($3 != "clean") {
			w = $0
			sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", w)
			gsub(/'"'"'[^'"'"']*'"'"'/, "X", w)
			gsub(/\([^)]*\)/, "(X)", w)
			why[$3 ": " w]++
		}
	}
	END {
		printf "%s: %d modules, %d clean, %d failed, %d refused", s, n,
		       c["clean"], c["failed"], c["refused"]
		sep = " ("
		for (w in why) { printf "%s%s x%d", sep, w, why[w]; sep = "; " }
		print (sep == "; " ? ")" : "")
	}' "$tmp/rows"
done
! grep -q ' failed ' "$tmp/rows"
