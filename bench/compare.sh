#!/bin/bash
# Canal against Debian's MPICH and Open MPI on this machine, in one script.
#
# Usage: bench/compare.sh [CANAL_PREFIX]
#   CANAL_PREFIX: an installed Canal (bin/mpicc, bin/mpiexec) or a build
#   directory holding libmpi.so and mpiexec. Without it, MPICH and Open MPI
#   alone are measured (useful to see the machine's state).
# Environment:
#   OUT=dir        results (default bench/out): data/, tables.txt, *.png
#   REPS=5         rounds of latency and bandwidth per library and scheduling
#   COLL_REPS=3    rounds of collbench; COLL_NP="2 4" rank counts for it
#   COLL_TIME=2    seconds per collective operation per run
#   COLL_IMB=      collbench's IMB loop at these sizes too (e.g. "4,65536":
#                  bcast, allreduce, reduce_scatter, allgather, alltoall,
#                  barrier, reduce, gather and scatter as IMB-MPI1 times
#                  them; see bench/collbench.c)
#   SCHED="rt plain"  which scheduling to run (rt needs root)
#   STARTUP=1      also run bench/startup.sh (0 to skip)
#   TIMEOUT=120    seconds before one run is killed
#   MAX_BYTES=4194304  largest message of the latency and bandwidth runs
#   PLAIN_SCALE=0.2  iteration scale of latency/bw runs under the normal
#                  scheduler (they are slow when other programs compete)
#   CANAL_BASE=prefix  a second installed Canal, measured as library "base"
#                  in the same rounds (before/after comparisons of a change)
#   NO_INSTALL=1   never apt-get install gnuplot
#   REPORT_ONLY=1  only redo the tables and plots from the data in $OUT
#
# How (see doc/bench.md and why in ../shared/benchmarks.md): the two vCPUs
# are either "near" (one cache line moves in ~0.05 us) or "far" (~0.2 us)
# and the host flips between the two. So every run is bracketed by the
# cache-line floor (bench/floor.c) and labelled near, far, busy (another
# program got in the way) or mixed (the floor changed during the run), and
# libraries are compared only within one label, alternating the libraries
# run by run (A B C, B C A, ...). Two ranks run twice: with each rank under
# `chrt -f 1` (when root; the stable numbers) and under the normal
# scheduler. Collectives also run with more ranks than cores, normal
# scheduler only (real-time spinning ranks would starve each other).
# Tables print medians over runs of each run's median, and the ratios
# canal/mpich and canal/ompi: for latency below 1 means Canal is faster,
# for bandwidth above 1 means Canal is faster.
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in -h | --help)
    bench_help "$0"
    exit 0
    ;;
esac

PREFIX=${1:-}
OUT=$(realpath -m "${OUT:-$bench_srcdir/out}")
REPS=${REPS:-5}
COLL_REPS=${COLL_REPS:-3}
COLL_NP=${COLL_NP:-"2 4"}
COLL_TIME=${COLL_TIME:-2}
STARTUP=${STARTUP:-1}
TIMEOUT=${TIMEOUT:-120}
PLAIN_SCALE=${PLAIN_SCALE:-0.2}
MAX_BYTES=${MAX_BYTES:-4194304}

SCHEDS=$(bench_scheds "${SCHED:-rt plain}")
[ "$(id -u)" = 0 ] && command -v chrt >/dev/null ||
    echo "compare: not root, so no chrt -f 1 runs; expect noisier numbers" >&2

[ -z "$PREFIX" ] && echo "compare: no CANAL_PREFIX given, measuring MPICH and Open MPI only" >&2
bench_setup compare "$PREFIX" || exit 1
read -r -a LIBS <<<"$BENCH_LIBS"
declare -A FAILS

if [ -z "${REPORT_ONLY:-}" ]; then
mkdir -p "$OUT/bin" "$OUT/data/raw"
rm -f "$OUT"/data/*.dat "$OUT"/data/raw/*

# ---- build ----------------------------------------------------------------
bench_floor_build "$OUT/bin" || exit 1
declare -A BUILT
for lib in "${LIBS[@]}"; do
    for prog in latency bw collbench; do
        if bench_cc "$lib" "$OUT/bin/${prog}_$lib" "$bench_srcdir/$prog.c" 2>"$OUT/data/raw/build-$prog-$lib.err"; then
            BUILT[$prog-$lib]=1
        else
            log "cannot build $prog against $lib (see $OUT/data/raw/build-$prog-$lib.err)"
        fi
    done
done

# ---- running ---------------------------------------------------------------
floor_run() { bench_floor "$OUT/bin" "$1"; } # sched -> "us label"

reap() { bench_reap "$OUT/bin"; }

rotated() { bench_rotated "$1" "${LIBS[@]}"; }

# run_one PROG LIB NP SCHED REP ARGS... : one bracketed run; appends its
# data lines, prefixed by "sched mode lib rep np", to data/PROG.dat.
run_one() {
    local prog=$1 lib=$2 np=$3 sched=$4 rep=$5
    shift 5
    [ -n "${BUILT[$prog-$lib]:-}" ] || return
    local raw="$OUT/data/raw/$prog-$lib-np$np-$sched-$rep.txt" f1 f2 mode rc launch
    launch=$(bench_launch "$lib" "$np" "$sched")
    f1=$(floor_run "$sched")
    timeout -k 5 "$TIMEOUT" $launch "$OUT/bin/${prog}_$lib" "$@" >"$raw" 2>"$raw.err" </dev/null
    rc=$?
    f2=$(floor_run "$sched")
    [ $rc -ge 124 ] && reap
    mode=$(bench_mode "$f1" "$f2")
    set -- $f1 $f2
    echo "# floor before $1 $2 after $3 $4 mode $mode rc $rc" >>"$raw"
    echo "$sched $mode $1 $3" >>"$OUT/data/floors.dat"
    if [ $rc -ne 0 ]; then
        FAILS[$prog-$lib-np$np]=$((${FAILS[$prog-$lib-np$np]:-0} + 1))
        log "$prog $lib np $np $sched #$rep: FAILED rc $rc: $(head -c 200 "$raw.err" | tr '\n' ' ')"
        return
    fi
    grep -v '^#' "$raw" | awk -v p="$sched $mode $lib $rep $np" 'NF {print p, $0}' >>"$OUT/data/$prog.dat"
    log "$prog $lib np $np $sched #$rep: floor $1 -> $3: $mode"
}

log "libraries: ${LIBS[*]}; scheduling: $SCHEDS; $REPS rounds"
for ((rep = 1; rep <= REPS; rep++)); do
    for sched in $SCHEDS; do
        for prog in latency bw; do
            scale=1
            [ "$sched" = plain ] && scale=$PLAIN_SCALE
            for lib in $(rotated "$rep"); do run_one "$prog" "$lib" 2 "$sched" "$rep" -i "$scale" -m "$MAX_BYTES"; done
        done
    done
done
for ((rep = 1; rep <= COLL_REPS; rep++)); do
    for np in $COLL_NP; do
        scheds=$SCHEDS
        [ "$np" -gt "$bench_ncpu" ] && scheds=plain
        for sched in $scheds; do
            for lib in $(rotated "$rep"); do
                run_one collbench "$lib" "$np" "$sched" "$rep" -t "$COLL_TIME"
                [ -n "${COLL_IMB:-}" ] &&
                    run_one collbench "$lib" "$np" "$sched" "$rep" -t "$COLL_TIME" -I -s "$COLL_IMB"
            done
        done
    done
done

fi # REPORT_ONLY

# ---- tables ----------------------------------------------------------------
# summarize FILE COL: "sched mode size lib median nruns" per group, the
# median over runs of column COL (1-based, in the .dat line).
summarize() {
    [ -s "$1" ] || return
    awk -v c="$2" '{print $1, $2, $6, $3, $c}' "$1" | sort -k1,1 -k2,2 -k3,3n -k4,4 -k5,5g | awk '
        function flush() {
            if (n) print key, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), n
            n = 0
        }
        { k = $1 " " $2 " " $3 " " $4; if (k != key) { flush(); key = k } v[++n] = $5 }
        END { flush() }'
}

# floor_medians: "sched mode median_us" over all floor readings of the runs.
floor_medians() {
    awk '{print $1, $2, $3; print $1, $2, $4}' "$OUT/data/floors.dat" | sort -k1,1 -k2,2 -k3,3g | awk '
        function flush() { if (n) print key, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2); n = 0 }
        { k = $1 " " $2; if (k != key) { flush(); key = k } v[++n] = $3 }
        END { flush() }'
}

# pivot NAME UNIT FMT: reads summarize's lines, prints one table per
# (sched, mode) and writes data/NAME-sched-mode.dat (size then one column per
# library, "?" where missing) for gnuplot.
pivot() {
    floor_medians >"$OUT/data/floor-medians.dat"
    awk -v libs="${LIBS[*]}" -v name="$1" -v unit="$2" -v fmt="$3" -v dir="$OUT/data" '
        FNR == NR { fl[$1 " " $2] = $3; next }
        { sm = $1 " " $2
          if (!(sm in seen)) { seen[sm] = 1; order[++nsm] = sm }
          if (!((sm, $3) in has)) { has[sm, $3] = 1; size[sm, ++ns[sm]] = $3 }
          val[sm, $3, $4] = $5; if ($6 > runs[sm, $4]) runs[sm, $4] = $6 }
        END {
            nl = split(libs, L, " ")
            canal = (L[1] == "canal")
            for (s = 1; s <= nsm; s++) {
                sm = order[s]; split(sm, P, " ")
                file = dir "/" name "-" P[1] "-" P[2] ".dat"
                hdr = sprintf("%-9s", "size_B"); rl = ""
                for (i = 1; i <= nl; i++) {
                    hdr = hdr sprintf(" %11s", L[i]); rl = rl " " L[i] "=" runs[sm, L[i]] + 0
                }
                if (canal) for (i = 2; i <= nl; i++) hdr = hdr sprintf(" %11s", "canal/" L[i])
                printf "\n== %s (%s), 2 ranks, sched %s, mode %s, floor %s us (runs:%s)%s\n", name, unit, P[1], P[2], fl[sm], rl,
                    (P[2] == "mixed" || P[2] == "busy") ? "  NOT COMPARABLE" : ""
                print hdr
                print "# size " libs > file
                for (k = 1; k <= ns[sm]; k++) {
                    z = size[sm, k]; line = sprintf("%-9s", z); dl = z
                    for (i = 1; i <= nl; i++) {
                        if ((sm, z, L[i]) in val) { line = line sprintf(" " fmt, val[sm, z, L[i]]); dl = dl " " val[sm, z, L[i]] }
                        else { line = line sprintf(" %11s", "-"); dl = dl " ?" }
                    }
                    if (canal) for (i = 2; i <= nl; i++) {
                        if ((sm, z, "canal") in val && (sm, z, L[i]) in val && val[sm, z, L[i]] > 0)
                            line = line sprintf(" %11.2f", val[sm, z, "canal"] / val[sm, z, L[i]])
                        else line = line sprintf(" %11s", "-")
                    }
                    print line; print dl > file
                }
                close(file)
            }
        }' "$OUT/data/floor-medians.dat" -
}

# Collectives: per (np, sched, mode, op), median over runs of the median
# and of the mean.
coll_table() {
    [ -s "$OUT/data/collbench.dat" ] || return
    echo
    echo "== collectives (us per call; each cell: median over runs of the run's median / mean)"
    awk '{print $5, $1, $2, $6 "/" $7, $3, $10, $11}' "$OUT/data/collbench.dat" |
        sort -k1,1n -k2,2 -k3,3 -k4,4 -k5,5 -k6,6g | awk -v libs="${LIBS[*]}" '
        function med(a, n,   i, j, t) { # insertion sort, n is small
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        function flush() {
            if (n) { mm[key] = med(A, n); ms[key] = med(B, n); nr[key] = n }
            n = 0
        }
        { k = $1 " " $2 " " $3 " " $4 " " $5
          if (k != key) { flush(); key = k }
          A[++n] = $6; B[n] = $7
          g = $1 " " $2 " " $3 " " $4; if (!(g in gs)) { gs[g] = 1; go[++ng] = g } }
        END {
            flush()
            nl = split(libs, L, " ")
            hdr = sprintf("%-3s %-5s %-5s %-21s", "np", "sched", "mode", "op/bytes")
            for (i = 1; i <= nl; i++) hdr = hdr sprintf(" %21s", L[i] " med/mean")
            if (L[1] == "canal") for (i = 2; i <= nl; i++) hdr = hdr sprintf(" %11s", "canal/" L[i])
            print hdr
            for (j = 1; j <= ng; j++) {
                g = go[j]; split(g, P, " ")
                line = sprintf("%-3s %-5s %-5s %-21s", P[1], P[2], P[3], P[4])
                for (i = 1; i <= nl; i++) {
                    k = g " " L[i]
                    if (k in mm) line = line sprintf(" %21s", sprintf("%.2f/%.2f (%d)", mm[k], ms[k], nr[k]))
                    else line = line sprintf(" %21s", "-")
                }
                if (L[1] == "canal") for (i = 2; i <= nl; i++) {
                    a = g " canal"; b = g " " L[i]
                    line = line sprintf(" %11s", (a in mm && b in mm && mm[b] > 0) ? sprintf("%.2f", mm[a] / mm[b]) : "-")
                }
                print line
            }
            print "(in parentheses: number of runs; modes mixed/busy are not comparable)"
        }'
}

{
    echo "# bench/compare.sh $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname), $(nproc) CPUs, libraries: ${LIBS[*]}"
    summarize "$OUT/data/latency.dat" 7 | pivot latency "one way us, median" "%11.3f"
    summarize "$OUT/data/bw.dat" 7 | pivot bw "MB/s, median" "%11.1f"
    summarize "$OUT/data/bw.dat" 10 | pivot msgrate "M msg/s, median" "%11.3f"
    coll_table
    for k in "${!FAILS[@]}"; do echo "failed runs: $k: ${FAILS[$k]}"; done
} >"$OUT/tables.txt"

if [ "$STARTUP" = 1 ] && [ -z "${REPORT_ONLY:-}" ]; then
    OUT=$OUT "$bench_srcdir/startup.sh" "$PREFIX" >/dev/null && { echo; cat "$OUT/startup.dat"; } >>"$OUT/tables.txt"
fi
cat "$OUT/tables.txt"

# ---- plots -----------------------------------------------------------------
if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ] && [ -z "${NO_INSTALL:-}" ] &&
    command -v apt-get >/dev/null; then
    log "installing gnuplot-nox for the plots"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null 2>&1 ||
        log "apt-get install gnuplot-nox failed; no plots"
fi
if command -v gnuplot >/dev/null; then
    psched=plain
    ls "$OUT"/data/latency-rt-*.dat >/dev/null 2>&1 && psched=rt
    for what in latency bw; do
        # One panel per mode (near above far): modes are not compared.
        panels=()
        for mode in near far; do
            f="$OUT/data/$what-$psched-$mode.dat"
            [ -s "$f" ] || continue
            plots=
            for ((i = 0; i < ${#LIBS[@]}; i++)); do
                plots="$plots${plots:+, }'$f' using (\$1 > 0 ? \$1 : 1/0):$((i + 2)) with linespoints lw 2 pt $((i + 4)) title '${LIBS[$i]}'"
            done
            panels+=("set title '$mode mode (cache-line floor $(awk -v k="$psched $mode" '$1 " " $2 == k {print $3}' "$OUT/data/floor-medians.dat") us), $psched scheduling, 2 ranks'
plot $plots")
        done
        [ ${#panels[@]} -gt 0 ] || continue
        if [ $what = latency ]; then
            ylab="one-way latency (us)"
            yscale="set logscale y"
            key="top left"
        else
            ylab="bandwidth (MB/s)"
            yscale="unset logscale y"
            key="top left"
        fi
        {
            echo "set terminal png size 900,$((450 * ${#panels[@]}))"
            echo "set output '$OUT/$what.png'"
            echo "set datafile missing '?'"
            echo "set logscale x 2"
            echo "$yscale"
            echo "set xtics ('1' 1, '16' 16, '256' 256, '4K' 4096, '64K' 65536, '1M' 1048576, '4M' 4194304)"
            echo "set xlabel 'message size (bytes)'"
            echo "set ylabel '$ylab'"
            echo "set key $key"
            echo "set grid"
            echo "set multiplot layout ${#panels[@]},1"
            printf '%s\n' "${panels[@]}"
            echo "unset multiplot"
        } | gnuplot || log "gnuplot failed for $what"
    done
    ls "$OUT"/*.png 2>/dev/null | sed 's/^/compare: wrote /' >&2
fi
