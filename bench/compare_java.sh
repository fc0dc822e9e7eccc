#!/bin/bash
# compare_java.sh PREFIX [RUNS]: ping-pong on Canal between 2 ranks from C,
# from Java arrays and from Java direct buffers (bindings/java), at 8 B,
# 64 KiB and 1 MiB, RUNS times each (default 3) alternating the three, and
# prints the median per size: one-way time (us) and bandwidth (MB/s), with
# the Java/C ratio. Needs a JDK and a Canal built with the Java binding.
# Extra JVM options: JAVA_OPTS. See doc/managed.md for the numbers.
set -eu
PREFIX=$(cd "${1:?usage: compare_java.sh PREFIX [RUNS]}" && pwd)
RUNS=${2:-3}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d /tmp/canal-java-bench.XXXXXX)
command -v java > /dev/null || { echo "SKIP: no JDK (java not found)"; exit 0; }
[ -f "$PREFIX/lib/mpi.jar" ] || { echo "SKIP: $PREFIX has no mpi.jar (Canal built without Java)"; exit 0; }
"$PREFIX/bin/mpicc" -O2 -o "$OUT/java_pingpong" "$SRC/java_pingpong.c"
"$PREFIX/bin/mpijavac" -d "$OUT" "$SRC/JavaPingPong.java"
for r in $(seq "$RUNS"); do
    "$PREFIX/bin/mpiexec" -n 2 "$OUT/java_pingpong" >> "$OUT/results"
    "$PREFIX/bin/mpiexec" -n 2 java ${JAVA_OPTS:-} -cp "$PREFIX/lib/mpi.jar:$OUT" JavaPingPong array >> "$OUT/results"
    "$PREFIX/bin/mpiexec" -n 2 java ${JAVA_OPTS:-} -cp "$PREFIX/lib/mpi.jar:$OUT" JavaPingPong direct >> "$OUT/results"
done
awk '
function median(key,   n, i, j, v, tmp) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = val[key, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
    return v[int((n + 1) / 2)]
}
{ key = $1 " " $2; val[key, ++cnt[key]] = $3; if (!(key in best) || $3 < best[key]) best[key] = $3 }
END {
    printf "median of the runs (one-way us):\n"
    printf "%-8s %12s %12s %12s %10s %10s\n", "size", "C us", "array us", "direct us", "array/C", "direct/C"
    n = split("8 65536 1048576", s, " ")
    for (i = 1; i <= n; i++) {
        c = median("c " s[i]); a = median("array " s[i]); d = median("direct " s[i])
        printf "%-8s %12.2f %12.2f %12.2f %10.2f %10.2f\n", s[i], c, a, d, a / c, d / c
    }
    printf "best run (one-way us; on a loaded machine the least disturbed):\n"
    for (i = 1; i <= n; i++) {
        c = best["c " s[i]]; a = best["array " s[i]]; d = best["direct " s[i]]
        printf "%-8s %12.2f %12.2f %12.2f %10.2f %10.2f\n", s[i], c, a, d, a / c, d / c
    }
    printf "bandwidth at 1 MiB (MB/s): C %.0f, array %.0f, direct %.0f\n", 1048576 / median("c 1048576"), 1048576 / median("array 1048576"), 1048576 / median("direct 1048576")
}' "$OUT/results"
echo "(raw results in $OUT/results)"
