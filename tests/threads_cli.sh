#!/bin/sh
# --threads: the plan is the same for every number of threads.  A raw
# problem of 100,000 overlapping buffers in one piece (above PK_CUT_MIN, so
# its windows are packed on the threads) is planned with 1, 2, 3 and 0 (one
# per processor) threads; every output must be the same bytes.
#   threads_cli.sh HLOPLAN WORKDIR
set -eu
hloplan=$1 work=$2
mkdir -p "$work"
cd "$work"
awk 'BEGIN {
	print "id,lower,upper,size"
	s = 12345
	for (i = 0; i < 100000; i++) {
		s = (s * 1103515245 + 12345) % 2147483648
		len = 1 + s % 40
		s = (s * 1103515245 + 12345) % 2147483648
		size = 64 * (1 + s % 32)
		print i "," i "," i + len "," size
	}
}' >in.csv
for n in 1 2 3 0; do
	"$hloplan" --intervals --threads "$n" in.csv -o "out$n.csv"
done
for n in 2 3 0; do
	cmp -s out1.csv "out$n.csv" || {
		echo "threads_cli.sh: --threads $n packs otherwise than 1" >&2
		exit 1
	}
done
echo "threads_cli.sh: one plan for 1, 2, 3 and 0 threads"
