#!/bin/bash
# Dynamic processes: MPI_Comm_spawn of 1 and 4 children (to a first round
# trip, then disconnect; median of 9), and the latency and bandwidth between
# a parent and its child (two jobs), for Canal, Debian's MPICH (Hydra) and
# Open MPI (mpirun), libraries alternated run by run, RUNS runs each; the
# table shows the medians and Canal's ratio to the better of the others.
#
# Usage: bench/spawn.sh [CANAL_PREFIX]   (environment: OUT, RUNS)
set -u
. "$(dirname "$0")/libs.sh"

OUT=${OUT:-$bench_srcdir/out}
RUNS=${RUNS:-3}
bench_libs_init "${1:-}"
mkdir -p "$OUT/bin" "$OUT/data"
for lib in $BENCH_LIBS; do
    bench_cc "$lib" "$OUT/bin/spawn_$lib" "$bench_srcdir/spawn.c" || exit 1
done

launch() {
    case $1 in
    ompi) echo "mpirun.openmpi -n 1 --oversubscribe" ;; # spawning needs more than vader
    *) bench_launch "$1" 1 ;;
    esac
}

: >"$OUT/data/spawn.raw"
for ((r = 0; r < RUNS; r++)); do
    for lib in $BENCH_LIBS; do
        line=$(timeout -k 5 180 $(launch "$lib") "$OUT/bin/spawn_$lib" 2>/dev/null | tail -1)
        [ -n "$line" ] && echo "$lib $line" >>"$OUT/data/spawn.raw"
    done
done
awk '
{ n[$1]++; for (k = 2; k <= 5; k++) v[$1, k, n[$1]] = $k }
function med(lib, k,   m, i, j, t, a) {
    m = n[lib]; if (m == 0) return "-"
    for (i = 1; i <= m; i++) a[i] = v[lib, k, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    printf "%-8s %14s %14s %14s %14s\n", "library", "spawn 1 (ms)", "spawn 4 (ms)", "lat 8 B (us)", "bw 1 MiB (MB/s)"
    for (lib in n) printf "%-8s %14s %14s %14s %14s\n", lib, med(lib, 2), med(lib, 3), med(lib, 4), med(lib, 5)
}' "$OUT/data/spawn.raw"
