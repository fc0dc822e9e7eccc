#!/bin/bash
# compare_fortran.sh PREFIX [RUNS]: the ping-pong of bench/latency.c (C) and
# of bench/f08_pingpong.f90 (Fortran, use mpi_f08, contiguous buffers) on
# Canal between 2 ranks, RUNS times each (default 3) alternating the two, up
# to MAX_BYTES (default 1 MiB) with iteration scale SCALE (default 0.3);
# prints per size the median over runs of each run's median one-way time
# (us) and the Fortran/C ratio. Needs gfortran and a Canal built with it.
# As bench/compare.sh, the runs are under chrt -f 1 (real-time FIFO) when
# root, so other programs on the machine disturb them less (SCHED=plain: not).
# See doc/bench.md for the numbers.
set -eu
PREFIX=$(cd "${1:?usage: compare_fortran.sh PREFIX [RUNS]}" && pwd)
RUNS=${2:-3}
MAX_BYTES=${MAX_BYTES:-1048576}
SCALE=${SCALE:-0.3}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d /tmp/canal-fortran-bench.XXXXXX)
[ -x "$PREFIX/bin/mpifort" ] && [ -f "$PREFIX/include/mpi_f08.mod" ] ||
    { echo "SKIP: $PREFIX has no mpifort with mpi_f08 (Canal built without gfortran)"; exit 0; }
"$PREFIX/bin/mpicc" -O2 -o "$OUT/latency" "$SRC/latency.c"
(cd "$OUT" && "$PREFIX/bin/mpifort" -O2 -o "$OUT/f08_pingpong" "$SRC/f08_pingpong.f90")
RT=
if [ "${SCHED:-rt}" = rt ] && [ "$(id -u)" = 0 ] && command -v chrt > /dev/null; then
    RT="chrt -f 1"
fi
echo "scheduling: ${RT:-normal}"
for r in $(seq "$RUNS"); do
    $RT "$PREFIX/bin/mpiexec" -n 2 "$OUT/latency" -m "$MAX_BYTES" -i "$SCALE" |
        awk '!/^#/ { print "c", $1, $2 }' >> "$OUT/results"
    $RT "$PREFIX/bin/mpiexec" -n 2 "$OUT/f08_pingpong" -m "$MAX_BYTES" -i "$SCALE" |
        awk '!/^#/ { print "f08", $1, $2 }' >> "$OUT/results"
done
awk '
function median(key,   n, i, j, v, tmp) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = val[key, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { tmp = v[i]; v[i] = v[j]; v[j] = tmp }
    return v[int((n + 1) / 2)]
}
{ key = $1 " " $2; val[key, ++cnt[key]] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 } }
END {
    printf "median of %d runs (one-way us):\n", cnt["c 0"]
    printf "%-10s %10s %10s %10s\n", "size_B", "C", "Fortran", "F/C"
    for (i = 1; i <= ns; i++) {
        c = median("c " order[i]); f = median("f08 " order[i])
        printf "%-10s %10.3f %10.3f %10.3f\n", order[i], c, f, f / c
    }
}' "$OUT/results"
echo "(raw results in $OUT/results)"
