#!/bin/bash
# Many outstanding nonblocking requests (bench/manyreq.c), Canal against
# Debian's MPICH and Open MPI, in one script.
#
# Usage: bench/compare_manyreq.sh [CANAL_PREFIX]
#   CANAL_PREFIX as for bench/compare.sh (see bench/libs.sh).
# Environment:
#   OUT=dir        results (default bench/out/manyreq): data/, tables.txt
#   REPS=3         rounds; each round runs every library once per scheduling,
#                  in rotated order (A B C, B C A, ...)
#   COUNT=100000   messages per pattern (manyreq -n)
#   INNER=3        repetitions inside one run (manyreq -r; the run's median)
#   PATTERNS=tags,same,anysrc,reverse,unexp,unexprev   (manyreq -p)
#   SCHED="rt plain"  rt: each rank under chrt -f 1 (root only); plain: the
#                  normal scheduler
#   TIMEOUT=900    seconds before one run is killed (a list-matching library
#                  needs about a minute per reverse pattern at 100,000)
#   CANAL_BASE=prefix  a second installed Canal, measured as library "base"
#                  in the same rounds (before/after comparisons of a change)
#
# Each run is bracketed by the cache-line floor (bench/floor.c) and labelled
# near/far/mixed/busy as in compare.sh. The table prints, per scheduling and
# pattern, the median over runs of each run's median time in seconds and the
# ratios canal/mpich and canal/ompi (below 1: Canal is faster).
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in -h | --help)
    bench_help "$0"
    exit 0
    ;;
esac

PREFIX=${1:-}
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/manyreq}")
REPS=${REPS:-3}
COUNT=${COUNT:-100000}
INNER=${INNER:-3}
PATTERNS=${PATTERNS:-tags,same,anysrc,reverse,unexp,unexprev}
TIMEOUT=${TIMEOUT:-900}
SCHEDS=$(bench_scheds "${SCHED:-rt plain}")

bench_setup compare_manyreq "$PREFIX" || exit 1
read -r -a LIBS <<<"$BENCH_LIBS"
declare -A FAILS BUILT

mkdir -p "$OUT/bin" "$OUT/data/raw"
rm -f "$OUT"/data/*.dat "$OUT"/data/raw/*
bench_floor_build "$OUT/bin" || exit 1
for lib in "${LIBS[@]}"; do
    if bench_cc "$lib" "$OUT/bin/manyreq_$lib" "$bench_srcdir/manyreq.c" 2>"$OUT/data/raw/build-$lib.err"; then
        BUILT[$lib]=1
    else
        log "cannot build manyreq against $lib (see $OUT/data/raw/build-$lib.err)"
    fi
done

floor_run() { bench_floor "$OUT/bin" "$1"; }

reap() { bench_reap "$OUT/bin"; }

rotated() { bench_rotated "$1" "${LIBS[@]}"; }

# run_one LIB SCHED REP: appends "lib rep sched mode pattern seconds" to data/all.dat
run_one() {
    local lib=$1 sched=$2 rep=$3
    [ -n "${BUILT[$lib]:-}" ] || return
    local raw="$OUT/data/raw/manyreq-$lib-$sched-$rep.txt" f1 f2 mode rc launch
    launch=$(bench_launch "$lib" 2 "$sched")
    f1=$(floor_run "$sched")
    timeout -k 5 "$TIMEOUT" $launch "$OUT/bin/manyreq_$lib" -n "$COUNT" -r "$INNER" -p "$PATTERNS" \
        >"$raw" 2>"$raw.err" </dev/null
    rc=$?
    f2=$(floor_run "$sched")
    [ $rc -ge 124 ] && reap
    mode=$(bench_mode "$f1" "$f2")
    set -- $f1 $f2
    if [ $rc -ne 0 ] || grep -q 'wrong-data' "$raw"; then
        FAILS[$lib-$sched]=$((${FAILS[$lib-$sched]:-0} + 1))
        log "$lib $sched #$rep: FAILED rc $rc: $(head -c 200 "$raw.err" | tr '\n' ' ')"
        return
    fi
    awk -v l="$lib" -v r="$rep" -v s="$sched" -v m="$mode" '!/^#/ && NF == 5 {print l, r, s, m, $1, $3}' "$raw" >>"$OUT/data/all.dat"
    log "$lib $sched #$rep: floor $1 -> $3: $mode"
}

log "libraries: ${LIBS[*]}; scheduling $SCHEDS; $REPS rounds of $COUNT messages x $INNER"
for ((rep = 1; rep <= REPS; rep++)); do
    for sched in $SCHEDS; do
        for lib in $(rotated "$rep"); do run_one "$lib" "$sched" "$rep"; done
    done
done

# ---- table -----------------------------------------------------------------
{
    echo "# bench/compare_manyreq.sh $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), $(nproc) CPUs, libraries: ${LIBS[*]}, $COUNT messages, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# seconds from the first post to the end of both Waitalls (lower is better); (n) = runs; modes of the runs per cell in data/all.dat"
    [ -s "$OUT/data/all.dat" ] && awk -v libs="${LIBS[*]}" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { g = $3 " " $5; if (!(g in gs)) { gs[g] = 1; go[++ng] = g }
          k = g SUBSEP $1; cnt[k]++; v[k, cnt[k]] = $6 }
        END {
            nl = split(libs, L, " "); canal = (L[1] == "canal")
            hdr = sprintf("%-6s %-10s", "sched", "pattern")
            for (i = 1; i <= nl; i++) hdr = hdr sprintf(" %12s", L[i] "(n)")
            if (canal) for (i = 2; i <= nl; i++) hdr = hdr sprintf(" %11s", "canal/" L[i])
            print hdr
            for (j = 1; j <= ng; j++) {
                g = go[j]; split(g, P, " ")
                line = sprintf("%-6s %-10s", P[1], P[2])
                for (i = 1; i <= nl; i++) {
                    k = g SUBSEP L[i]; m[i] = ""
                    if (cnt[k]) { delete A; for (x = 1; x <= cnt[k]; x++) A[x] = v[k, x]; m[i] = med(A, cnt[k])
                        line = line sprintf(" %12s", sprintf("%.3g(%d)", m[i], cnt[k])) }
                    else line = line sprintf(" %12s", "-")
                }
                if (canal) for (i = 2; i <= nl; i++)
                    line = line sprintf(" %11s", (m[1] != "" && m[i] != "" && m[i] > 0) ? sprintf("%.3g", m[1] / m[i]) : "-")
                print line
            }
        }' "$OUT/data/all.dat"
    for k in "${!FAILS[@]}"; do echo "failed runs: $k: ${FAILS[$k]}"; done
} >"$OUT/tables.txt"
cat "$OUT/tables.txt"
