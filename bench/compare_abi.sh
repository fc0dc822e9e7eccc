#!/bin/bash
# bench/compare_abi.sh -- the cost of the standard ABI's binding: the same
# bench/latency.c and bench/bw.c built twice from one source, with mpicc
# (libmpi.so.12, MPICH's ABI) and with mpicc_abi (libmpi_abi.so.1, the MPI 5.0
# standard ABI, whose entry points convert handles, ranks, tags, statuses and
# error codes), run alternately in the same minutes on 2 ranks.
# Prints, per library, the median over RUNS runs of each run's median 0-byte
# one-way latency and 1-byte message rate (bw.c's window of 64 MPI_Isend), and
# the ratio abi/mpich (latency below 1 and rate above 1: the standard ABI is
# faster).
# Also bench/abi_overhead.c on one rank (no other process's scheduling in the
# number): the minimum over batches of a 0-byte self Isend/Irecv/Waitall and of
# an MPI_Send to MPI_PROC_NULL, ns per iteration.
# Usage: bench/compare_abi.sh PREFIX [RUNS]   (RUNS default 9; OUT=dir for the raw output;
#        BATCHES=N the batches of each latency/bw run, default 20)
set -eu
PREFIX=$(cd "${1:?usage: compare_abi.sh PREFIX [RUNS]}" && pwd)
RUNS=${2:-9}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d /tmp/canal-abi-bench.XXXXXX)}
mkdir -p "$OUT"
"$PREFIX/bin/mpicc" -O2 -o "$OUT/lat_mpich" "$SRC/latency.c"
"$PREFIX/bin/mpicc_abi" -O2 -o "$OUT/lat_abi" "$SRC/latency.c"
"$PREFIX/bin/mpicc" -O2 -o "$OUT/bw_mpich" "$SRC/bw.c"
"$PREFIX/bin/mpicc_abi" -O2 -o "$OUT/bw_abi" "$SRC/bw.c"
"$PREFIX/bin/mpicc" -O2 -o "$OUT/ovh_mpich" "$SRC/abi_overhead.c"
"$PREFIX/bin/mpicc_abi" -O2 -o "$OUT/ovh_abi" "$SRC/abi_overhead.c"
B=${BATCHES:-20}
for r in $(seq "$RUNS"); do
    for lib in mpich abi; do
        "$PREFIX/bin/mpiexec" -n 2 "$OUT/lat_$lib" -m 1 -b "$B" > "$OUT/lat_$lib.$r"
        "$PREFIX/bin/mpiexec" -n 2 "$OUT/bw_$lib" -m 1 -b "$B" > "$OUT/bw_$lib.$r"
        "$PREFIX/bin/mpiexec" -n 1 "$OUT/ovh_$lib" > "$OUT/ovh_$lib.$r"
    done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for lib in mpich abi; do
    lat[$([ $lib = mpich ] && echo 0 || echo 1)]=$(cat "$OUT"/lat_$lib.* | awk '$1 == "0" { print $2 }' | median)
    rate[$([ $lib = mpich ] && echo 0 || echo 1)]=$(cat "$OUT"/bw_$lib.* | awk '$1 == "1" { print $5 }' | median)
    pair[$([ $lib = mpich ] && echo 0 || echo 1)]=$(cat "$OUT"/ovh_$lib.* | awk '$1 == "self_isend_irecv_waitall_ns" { print $2 }' | sort -g | head -1)
    null[$([ $lib = mpich ] && echo 0 || echo 1)]=$(cat "$OUT"/ovh_$lib.* | awk '$1 == "send_proc_null_ns" { print $2 }' | sort -g | head -1)
done
echo "# $RUNS runs each, alternating; $(uptime | sed 's/.*load/load/')"
printf "%-28s %12s %12s %8s\n" "" "libmpi.so.12" "libmpi_abi" "abi/mpich"
printf "%-28s %12s %12s %8.3f\n" "0 B latency, median us" "${lat[0]}" "${lat[1]}" "$(echo "${lat[1]} / ${lat[0]}" | bc -l)"
printf "%-28s %12s %12s %8.3f\n" "1 B message rate, M msg/s" "${rate[0]}" "${rate[1]}" "$(echo "${rate[1]} / ${rate[0]}" | bc -l)"
printf "%-28s %12s %12s %8.3f\n" "1 rank Isend+Irecv+Waitall ns" "${pair[0]}" "${pair[1]}" "$(echo "${pair[1]} / ${pair[0]}" | bc -l)"
printf "%-28s %12s %12s %8.3f\n" "1 rank Send(PROC_NULL) ns" "${null[0]}" "${null[1]}" "$(echo "${null[1]} / ${null[0]}" | bc -l)"
