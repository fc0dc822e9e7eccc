#!/bin/bash
# Multithreaded message rate (bench/mt_rate.c) of Canal against Debian's
# MPICH and Open MPI on this machine, in one run.
#
# Usage: bench/compare_mt.sh [CANAL_PREFIX]
#   CANAL_PREFIX: an installed Canal (bin/mpicc, bin/mpiexec). Without it,
#   MPICH and Open MPI alone are measured.
# Environment:
#   OUT=dir        results (default bench/out/mt): data/, table.txt
#   REPS=3         rounds; each round runs every library once per case
#   THREADS="1 2 4"  threads per rank
#   MODES="dup shared"  one communicator per thread pair, or one for all
#   WINDOWS=300    windows of 64 x 8 B per thread per batch; BATCHES=5
#   TIMEOUT=120    seconds before one run is killed (counted as failed)
#   CANAL_BASE=prefix  a second installed Canal, measured as library "base"
#   RT=1           run the cases with no more busy threads than CPUs under
#                  chrt -f 1 (root only; RT=0: normal scheduler everywhere)
#
# Two ranks, each with T threads; thread i of rank 0 streams to thread i of
# rank 1. This machine has 2 cores: with T threads per rank there are 2T
# busy threads (plus the main threads), so on 2 cores T=1 fills them and
# T=2 and T=4 are oversubscribed -- the table says so. Runs alternate the libraries (A B C, B C A, ...) and
# are bracketed by the cache-line floor (bench/floor.c) like compare.sh;
# the table shows, per case, the median over rounds of each run's median
# batch rate (messages/s received by rank 1, counted at rank 0), and the
# ratios canal/mpich and canal/ompi (above 1 means Canal is faster); two
# more tables give the CPU time and the context switches of the timed
# batches per 1000 messages (both ranks, every thread), which move less
# with the machine's load than the rate does.
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in -h | --help)
    bench_help "$0"
    exit 0
    ;;
esac

PREFIX=${1:-}
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/mt}")
REPS=${REPS:-3}
THREADS=${THREADS:-"1 2 4"}
MODES=${MODES:-"dup shared"}
WINDOWS=${WINDOWS:-300}
BATCHES=${BATCHES:-5}
TIMEOUT=${TIMEOUT:-120}

bench_setup compare_mt "$PREFIX" || exit 1
read -r -a LIBS <<<"$BENCH_LIBS"
mkdir -p "$OUT/bin" "$OUT/data/raw"
rm -f "$OUT"/data/*.dat "$OUT"/data/raw/*

bench_floor_build "$OUT/bin" || exit 1
declare -A BUILT FAILS
for lib in "${LIBS[@]}"; do
    if bench_cc "$lib" "$OUT/bin/mt_rate_$lib" "$bench_srcdir/mt_rate.c" 2>"$OUT/data/raw/build-$lib.err"; then
        BUILT[$lib]=1
    else
        log "cannot build mt_rate against $lib (see $OUT/data/raw/build-$lib.err)"
    fi
done

reap() { bench_reap "$OUT/bin"; }
rotated() { bench_rotated "$1" "${LIBS[@]}"; }

# Real-time scheduling (chrt -f 1, as root) only while every busy thread has
# a CPU of its own: with more threads than CPUs a real-time spinner starves
# the others. Open MPI binds its ranks to cores by default; MPICH and Canal
# do not, which on this loaded machine matters more than the library.
RT=${RT:-1}
[ "$(id -u)" = 0 ] && command -v chrt >/dev/null || RT=0
sched_for() { if [ "$RT" = 1 ] && [ $((2 * $1)) -le "$bench_ncpu" ]; then echo rt; fi; }

log "libraries: ${LIBS[*]}; threads: $THREADS; modes: $MODES; $REPS rounds; $bench_ncpu CPUs; rt for T=1: $RT"
for ((rep = 1; rep <= REPS; rep++)); do
    for t in $THREADS; do
        for mode in $MODES; do
            for lib in $(rotated "$rep"); do
                [ -n "${BUILT[$lib]:-}" ] || continue
                raw="$OUT/data/raw/$lib-t$t-$mode-$rep.txt"
                f1=$(bench_floor "$OUT/bin")
                timeout -k 5 "$TIMEOUT" $(bench_launch "$lib" 2 "$(sched_for "$t")") "$OUT/bin/mt_rate_$lib" \
                    -t "$t" -m "$mode" -n "$WINDOWS" -b "$BATCHES" >"$raw" 2>"$raw.err" </dev/null
                rc=$?
                f2=$(bench_floor "$OUT/bin")
                [ $rc -ge 124 ] && reap
                fmode=$(bench_mode "$f1" "$f2")
                if [ $rc -ne 0 ] || ! grep -q "^$t $mode " "$raw"; then
                    FAILS[$lib-$t-$mode]=$((${FAILS[$lib-$t-$mode]:-0} + 1))
                    log "$lib T=$t $mode #$rep: FAILED rc $rc: $(head -c 200 "$raw.err" | tr '\n' ' ')"
                    continue
                fi
                grep "^$t $mode " "$raw" | awk -v l="$lib" -v f="$fmode" '{print l, f, $0}' >>"$OUT/data/mt.dat"
                log "$lib T=$t $mode #$rep: $(grep "^$t $mode " "$raw" | awk '{printf "%.0f msg/s, %s cpu us and %.2f cs per 1000", $3, $6, $7 + $8}') (floor $fmode)"
            done
        done
    done
done

# ---- tables: median over rounds of each run's figure ----------------------
# table COL TITLE: one table of column COL of mt.dat (5: the run's median
# batch rate; 8: CPU us per 1000 messages, both ranks; 9+10: context
# switches per 1000 messages), the median over rounds per library and case,
# and the ratios canal/other.
table() {
    awk -v col="$1" -v libs="${LIBS[*]}" -v threads="$THREADS" -v modes="$MODES" -v ncpu="$bench_ncpu" '
        { k = $1 " " $3 " " $4; x = col == "cs" ? $9 + $10 : $col
          if (x == "") next
          v[k, ++n[k]] = x }
        function median(k,   i, j, t, m) {
            m = n[k]; if (!m) return -1
            for (i = 1; i <= m; i++) a[i] = v[k, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
        }
        END {
            nl = split(libs, L, " "); nt = split(threads, T, " "); nm = split(modes, M, " ")
            fmt = col == 5 ? " %11.0f" : " %11.2f"
            hdr = sprintf("%-3s %-7s", "T", "mode")
            for (i = 1; i <= nl; i++) hdr = hdr sprintf(" %11s", L[i])
            if (L[1] == "canal") for (i = 2; i <= nl; i++) hdr = hdr sprintf(" %11s", "canal/" L[i])
            print hdr
            for (a1 = 1; a1 <= nt; a1++) for (b1 = 1; b1 <= nm; b1++) {
                line = sprintf("%-3s %-7s", T[a1], M[b1])
                for (i = 1; i <= nl; i++) {
                    med[i] = median(L[i] " " T[a1] " " M[b1])
                    line = line (med[i] < 0 ? sprintf(" %11s", "fail") : sprintf(fmt, med[i]))
                }
                if (L[1] == "canal") for (i = 2; i <= nl; i++)
                    line = line (med[1] > 0 && med[i] > 0 ? sprintf(" %11.2f", med[1] / med[i]) : sprintf(" %11s", "-"))
                if (2 * T[a1] > ncpu) line = line sprintf("  (oversubscribed: %d threads on %d CPUs)", 2 * T[a1], ncpu)
                print line
            }
        }' "$OUT/data/mt.dat"
}
{
    echo "# multithreaded message rate, 2 ranks x T threads, window 64 x 8 B (messages/s, higher is better)"
    echo "# this machine has $bench_ncpu CPUs; rows with 2 x T busy threads > $bench_ncpu CPUs are marked oversubscribed"
    echo "# ratios: canal/mpich and canal/ompi, above 1 means Canal is faster"
    [ "$RT" = 1 ] && echo "# rows with 2 x T <= $bench_ncpu ran under chrt -f 1; the others under the normal scheduler"
    if [ -s "$OUT/data/mt.dat" ]; then
        table 5
        echo
        echo "# CPU time of the timed batches, both ranks summed (us per 1000 messages, lower is better;"
        echo "# ratios below 1 mean Canal spends less)"
        table 8
        echo
        echo "# context switches (voluntary + involuntary) of the timed batches, both ranks (per 1000 messages)"
        table cs
    fi
    for k in "${!FAILS[@]}"; do echo "# failed runs: $k: ${FAILS[$k]}"; done
} | tee "$OUT/table.txt"
