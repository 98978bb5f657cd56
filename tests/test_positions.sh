#!/bin/sh
# The JSON's positions (issue 37 item 1) as a runtime reads them: every
# step has positions, in schedule order; every position's buffer exists
# and its slot is -1 or one of the buffer's; each get-tuple-element lies
# where its operand's element does (in an in-place tuple custom-call, the
# aliased operand's buffer), and each async -done at its start's {1}
# (in the computations the schedule runs: a fusion's have no positions);
# every step's operands are root positions of earlier steps of its
# computation, and a get-tuple-element's or -done's first is its operand's.
# Exits 77 (skipped) without jq.  usage: test_positions.sh HLOPLAN JQ
# INPUT OUTDIR
hloplan=$1 jq=$2 input=$3 outdir=$4
[ -n "$jq" ] || { echo "skipped: no jq"; exit 77; }
json=$outdir/$(basename "$input" .hlo).positions.json
mkdir -p "$outdir" && rm -f "$json" || exit 1
"$hloplan" "$input" --json "$json" || exit 1
# Names are written once (version 7): give each position its step's
# computation and instruction names, as the checks below read them.
"$jq" '.plans[] |= (. as $p | .positions |= map(. + {computation:
	$p.computations[$p.schedule.steps[.step][0]],
	instruction: $p.schedule.steps[.step][1]}))' "$json" > "$json.named" &&
	mv "$json.named" "$json" || exit 1
"$jq" -e 'all(.plans[]; . as $p |
	([.positions[].step] | unique) == [range(0; .steps)] and
	([.positions[].step] | . == sort) and
	all(.positions[]; .buffer >= 0 and .buffer < ($p.buffers | length)
	    and .offset == 0 and
	    (.slot == -1 or .slot < $p.buffers[.buffer].slots)))' "$json" \
	>/dev/null || { echo "FAIL: steps, buffers or slots of $json"; exit 1; }
# Each step's operands: one list a step, each entry a root position (index
# []) of an earlier step of the same computation.
"$jq" -e 'all(.plans[]; . as $p | (.operands | length) == .steps and
	([.positions[] | select(.index == [])] |
	  map({key: (.step | tostring), value: .}) | from_entries) as $root |
	all(range(0; .steps); . as $t | all($p.operands[$t][];
	  $p.positions[.].index == [] and $p.positions[.].step < $t and
	  $p.positions[.].computation ==
	    $root[$t | tostring].computation)))' "$json" \
	>/dev/null || { echo "FAIL: operands of $json"; exit 1; }
# "computation name operand index" of every get-tuple-element, and of
# every all-gather, collective-permute and async -done (its start's {1})
pairs=$(awk '
	!/ = / && /{ *$/ { c = $1 == "ENTRY" ? $2 : $1; sub(/^%/, "", c) }
	/ = / {
		nm = $1 == "ROOT" ? $2 : $1; sub(/^%/, "", nm)
		if (match($0, /get-tuple-element\(%?[^)]*\), index=[0-9]+/)) {
			t = substr($0, RSTART, RLENGTH)
			gsub(/get-tuple-element\(%?|\), index=/, " ", t)
			print c, nm, t
		} else if (match($0, /(all-gather|collective-permute|async)-done\(%?[^),]*/)) {
			t = substr($0, RSTART, RLENGTH); sub(/.*\(%?/, "", t)
			print c, nm, t, 1
		}
	}' "$input")
[ -n "$pairs" ] || { echo "FAIL: no get-tuple-element or -done in $input"; exit 1; }
echo "$pairs" | while read -r comp name op k; do
	"$jq" -e --arg c "$comp" --arg n "$name" --arg o "$op" \
	  --argjson k "$k" 'all(.plans[]; . as $p | [.positions[] |
	    select(.computation == $c and .instruction == $n and
		   .index == [])] as $a |
	    ([.positions[] | select(.computation == $c)] | length) == 0 or
	    ($a | length) > 0 and all($a[]; . as $x |
	      any($p.positions[]; .computation == $c and .instruction == $o
		  and .index == [$k] and .buffer == $x.buffer)))' "$json" \
	  >/dev/null || { echo "FAIL: $comp/$name is not at $op{$k} in $json"; exit 1; }
	# and its first operand is that operand's root position
	"$jq" -e --arg c "$comp" --arg n "$name" --arg o "$op" \
	  'all(.plans[]; . as $p | all(.positions[] |
	    select(.computation == $c and .instruction == $n and
		   .index == []);
	      $p.positions[$p.operands[.step][0]] |
	      .instruction == $o and .computation == $c))' "$json" \
	  >/dev/null || { echo "FAIL: $comp/$name's operand is not $op in $json"; exit 1; }
done || exit 1
echo "$(echo "$pairs" | wc -l) forwarding positions checked"
