#!/bin/bash
# One-sided (bench/rma.c) and MPI-IO (bench/io.c) benchmarks, Canal against
# Debian's MPICH and Open MPI, in one script.
#
# Usage: bench/compare_rma_io.sh [CANAL_PREFIX]
#   CANAL_PREFIX as for bench/compare.sh (see bench/libs.sh).
# Environment:
#   OUT=dir        results (default bench/out/rma_io): data/, tables.txt
#   REPS=5         rounds; each round runs every library once per test, in
#                  rotated order (A B C, B C A, ...)
#   IO_NP="2 4"    rank counts for io (IO_NP="" skips io); IO_DIRS="/tmp /dev/shm" where the
#                  file goes; IO_EDGE=80 local block edge (80^3 doubles,
#                  3.9 MiB per rank)
#   RMA_SCALE=0.5  iteration scale of rma
#   RMA_PROGS=rma  the one-sided programs to run (bench/PROG.c, 2 ranks, output
#                  "test size value"): rma and/or imb_rma (IMB-RMA's Unidir_get/put and
#                  Accumulate on an MPI_Win_create window, and 0-byte calls)
#   TIMEOUT=120    seconds before one run is killed
#   CANAL_BASE=prefix  a second installed Canal, measured as library "base"
#                  in the same rounds (before/after comparisons of a change)
#
# rma runs with 2 ranks, each under `chrt -f 1` when root (as compare.sh's
# stable runs); io runs under the normal scheduler (4 ranks outnumber the
# two cores). Each rma run is bracketed by the cache-line floor
# (bench/floor.c) and labelled near/far/mixed/busy; rma rows are grouped by
# that label. Tables print medians over runs of each run's median, and the
# ratios canal/mpich and canal/ompi: for latency (us) below 1 means Canal
# is faster, for bandwidth (MB/s, MiB/s) above 1 means Canal is faster.
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in -h | --help)
    bench_help "$0"
    exit 0
    ;;
esac

PREFIX=${1:-}
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/rma_io}")
REPS=${REPS:-5}
IO_NP=${IO_NP-"2 4"}
IO_DIRS=${IO_DIRS:-"/tmp /dev/shm"}
IO_EDGE=${IO_EDGE:-80}
RMA_SCALE=${RMA_SCALE:-0.5}
RMA_PROGS=${RMA_PROGS:-rma}
TIMEOUT=${TIMEOUT:-120}

RMA_SCHED=plain
[ "$(id -u)" = 0 ] && command -v chrt >/dev/null && RMA_SCHED=rt

bench_setup compare_rma_io "$PREFIX" || exit 1
read -r -a LIBS <<<"$BENCH_LIBS"
declare -A FAILS BUILT

mkdir -p "$OUT/bin" "$OUT/data/raw"
rm -f "$OUT"/data/*.dat "$OUT"/data/raw/*

bench_floor_build "$OUT/bin" || exit 1
for lib in "${LIBS[@]}"; do
    for prog in $RMA_PROGS io; do
        if bench_cc "$lib" "$OUT/bin/${prog}_$lib" "$bench_srcdir/$prog.c" 2>"$OUT/data/raw/build-$prog-$lib.err"; then
            BUILT[$prog-$lib]=1
        else
            log "cannot build $prog against $lib (see $OUT/data/raw/build-$prog-$lib.err)"
        fi
    done
done

floor_run() { bench_floor "$OUT/bin" "$1"; }

reap() { bench_reap "$OUT/bin"; }

rotated() { bench_rotated "$1" "${LIBS[@]}"; }

# run_one PROG LIB NP SCHED REP TAG ARGS... : appends "lib rep mode test size value"
# lines to data/all.dat (for io, test is TAG-write/read and size the MiB per rank).
run_one() {
    local prog=$1 lib=$2 np=$3 sched=$4 rep=$5 tag=$6
    shift 6
    [ -n "${BUILT[$prog-$lib]:-}" ] || return
    local raw="$OUT/data/raw/$prog-$lib-$tag-$rep.txt" f1 f2 mode rc launch
    launch=$(bench_launch "$lib" "$np" "$sched")
    f1=$(floor_run "$sched")
    timeout -k 5 "$TIMEOUT" $launch "$OUT/bin/${prog}_$lib" "$@" >"$raw" 2>"$raw.err" </dev/null
    rc=$?
    f2=$(floor_run "$sched")
    [ $rc -ge 124 ] && reap
    mode=$(bench_mode "$f1" "$f2")
    set -- $f1 $f2
    [ "$prog" = io ] && mode=any # io is not floor-bound; do not split it
    if [ $rc -ne 0 ] || grep -q 'FAILED' "$raw" "$raw.err"; then
        FAILS[$prog-$lib-$tag]=$((${FAILS[$prog-$lib-$tag]:-0} + 1))
        log "$prog $lib $tag #$rep: FAILED rc $rc: $(head -c 200 "$raw.err" | tr '\n' ' ')"
        return
    fi
    if [ "$prog" = io ]; then
        awk -v l="$lib" -v r="$rep" -v t="$tag" '$1 == "write" || $1 == "read" {print l, r, "any", t "-" $1, $3, $4}' "$raw" >>"$OUT/data/all.dat"
    else
        awk -v l="$lib" -v r="$rep" -v m="$mode" 'NF == 3 {print l, r, m, $1, $2, $3}' "$raw" >>"$OUT/data/all.dat"
    fi
    log "$prog $lib $tag #$rep: floor $1 -> $3: $mode"
}

log "libraries: ${LIBS[*]}; rma scheduling $RMA_SCHED; $REPS rounds"
for ((rep = 1; rep <= REPS; rep++)); do
    for prog in $RMA_PROGS; do
        for lib in $(rotated "$rep"); do run_one "$prog" "$lib" 2 "$RMA_SCHED" "$rep" np2 -i "$RMA_SCALE"; done
    done
    for np in $IO_NP; do
        for dir in $IO_DIRS; do
            tag="io${dir//\//_}-np$np"
            for lib in $(rotated "$rep"); do run_one io "$lib" "$np" plain "$rep" "$tag" "$dir" -n "$IO_EDGE" -r 3; done
        done
    done
done

# ---- table -----------------------------------------------------------------
{
    echo "# bench/compare_rma_io.sh $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), $(nproc) CPUs, libraries: ${LIBS[*]}, rma sched $RMA_SCHED"
    echo "# units: put_lock/put_fence/get_lock/get_flush/acc_lock us per op (lower is better); get_bw MB/s; io-* MiB/s aggregate (size column = MiB per rank)"
    [ -s "$OUT/data/all.dat" ] && awk -v libs="${LIBS[*]}" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { g = $3 " " $4 " " $5; if (!(g in gs)) { gs[g] = 1; go[++ng] = g }
          k = g SUBSEP $1; cnt[k]++; v[k, cnt[k]] = $6 }
        END {
            nl = split(libs, L, " "); canal = (L[1] == "canal")
            hdr = sprintf("%-6s %-20s %8s", "mode", "test", "size")
            for (i = 1; i <= nl; i++) hdr = hdr sprintf(" %14s", L[i] "(n)")
            if (canal) for (i = 2; i <= nl; i++) hdr = hdr sprintf(" %11s", "canal/" L[i])
            print hdr
            for (j = 1; j <= ng; j++) {
                g = go[j]; split(g, P, " ")
                line = sprintf("%-6s %-20s %8s", P[1], P[2], P[3])
                for (i = 1; i <= nl; i++) {
                    k = g SUBSEP L[i]; m[i] = ""
                    if (cnt[k]) { delete A; for (x = 1; x <= cnt[k]; x++) A[x] = v[k, x]; m[i] = med(A, cnt[k])
                        line = line sprintf(" %14s", sprintf(m[i] >= 100 ? "%.0f(%d)" : "%.3g(%d)", m[i], cnt[k])) }
                    else line = line sprintf(" %14s", "-")
                }
                if (canal) for (i = 2; i <= nl; i++)
                    line = line sprintf(" %11s", (m[1] != "" && m[i] != "" && m[i] > 0) ? sprintf("%.2f", m[1] / m[i]) : "-")
                print line
            }
        }' "$OUT/data/all.dat"
    for k in "${!FAILS[@]}"; do echo "failed runs: $k: ${FAILS[$k]}"; done
} >"$OUT/tables.txt"
cat "$OUT/tables.txt"
