#!/bin/sh
# bench.sh PREFIX [MAXBYTES]: ping-pong of C and Java (byte[] arrays and
# direct ByteBuffers) on Canal in the same run, Motor's method (200 round
# trips, last 100 timed, 5 repetitions, mean), alternated BENCH_RUNS times
# (default 3) with the best run kept per size, so that a busy machine
# distorts less; then the overhead of Java over C per size, over all sizes
# and below 8 KiB (the Motor paper: C# 8% over all sizes, 17% below 8 KiB).
set -u
PREFIX=${1:?usage: bench.sh PREFIX [MAXBYTES]}
MAX=${2:-4194304}
RUNS=${BENCH_RUNS:-3}
cd "$(dirname "$0")"
B=build
out=$B/bench.out
JAVA=${JAVA:-java}
JOPT="--enable-native-access=ALL-UNNAMED -Djava.library.path=$B -cp $B/canal-mpi.jar:$B/test"
: > $out
i=0
while [ $i -lt "$RUNS" ]; do
    "$PREFIX/bin/mpiexec" -n 2 $B/pingpong_c "$MAX" >> $out
    "$PREFIX/bin/mpiexec" -n 2 $JAVA $JOPT PingPong "$MAX" >> $out
    "$PREFIX/bin/mpiexec" -n 2 $JAVA $JOPT PingPong "$MAX" gc | sed 's/^java-/javagc-/' >> $out
    i=$((i + 1))
done
awk -f bench.awk $out
