#!/bin/sh
# A joint plan's header (issue 41): the same bytes twice; compiles in two
# translation units of one program as C99, C11 and C++ with every warning an
# error; the JSON parses (when jq is there); and for llm.txt,
# samples/joint/bind.c binds both programs in one arena and agrees.
# Usage: joint_header.sh HLOPLAN DECL WORKDIR
set -eu
hloplan=$1 decl=$2 work=$3
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work"
"$hloplan" --programs "$decl" -o plan.h --json plan.json
"$hloplan" --programs "$decl" -o plan2.h --json plan2.json
cmp plan.h plan2.h
cmp plan.json plan2.json
if command -v jq >/dev/null 2>&1; then
	jq -e '.schema == "hloplan.joint"' plan.json >/dev/null
fi
printf '#include "plan.h"\nint tu1(void) { return (int)sizeof HLOPLAN_JOINT_GPU_shared; }\n' >tu1.c
printf '#include "plan.h"\nint tu1(void);\nint main(void) { return tu1() > 0 ? 0 : 1; }\n' >tu2.c
for std in c99 c11; do
	cc -std=$std -Wall -Wextra -Wpedantic -Werror -I. tu1.c tu2.c -o tu
	./tu
done
c++ -x c++ -Wall -Wextra -Wpedantic -Werror -I. tu1.c tu2.c -o tu
./tu
case $decl in
*llm.txt)
	cp plan.h llm_plan.h
	cc -std=c99 -Wall -Wextra -Wpedantic -Werror -I. \
		"$here/samples/joint/bind.c" -o bind
	./bind
	;;
esac
