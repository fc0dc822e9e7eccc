#!/bin/bash
# Every row of issue 26's table, for Canal, MPICH 4.0.2 and Open MPI, in one run.
#
# Usage: bench/issue26.sh CANAL_PREFIX
#   CANAL_PREFIX: an installed Canal (bin/mpicc, bin/mpiexec).
# Environment:
#   OUT=dir        results (default bench/out/issue26): issue26.dat, table.md;
#                  issue26.dat is appended to, so use one OUT per Canal build
#   REPS=3         rounds; in each round every library runs every item once,
#                  the libraries alternated (A B C, B C A, ...)
#   SCALE=1        iteration scale of the 2-rank runs (1: OSU's and IMB's counts)
#   COLL_TIME=0.5  seconds per operation of the 4- and 8-rank collectives
#   COLL_NP="4 8"  rank counts of the oversubscribed collectives
#   TIMEOUT=180    seconds before one run is killed (its rows go missing)
#   REPORT_ONLY=1  only print the table again from $OUT/issue26.dat
#
# What runs (bench/osu_like.c has the loops of OSU 7.4 and IMB-MPI1; see
# doc/bench.md for how close they agree with the real ones):
#   2 ranks, each under `chrt -f 1` when root: osu_latency 1 B-4 MiB,
#   osu_bw 8 B, 64 B, 16 KiB-4 MiB, osu_bibw 8 B, osu_mbw_mr 1-64 B, IMB
#   Sendrecv and Exchange 8 B, osu_latency, osu_bw and osu_mbw_mr 8 B and IMB
#   Sendrecv 8 B again under MPI_Init_thread(MPI_THREAD_MULTIPLE) with one
#   thread communicating (osu_like -T, as mpi4py initializes), osu_barrier,
#   osu_allreduce 4 B and 1 MiB (bench/osu_like.c); IMB-RMA Unidir_get 8 B / 1 MiB, Accumulate aggregate
#   64 KiB and 0-byte put/get/accumulate on an MPI_Win_create window
#   (bench/imb_rma.c); 0-byte MPI_Ibcast/MPI_Iallreduce+MPI_Wait
#   (bench/collbench.c -o zero); receives of unknown size, 8 B and 4 KiB:
#   MPI_Probe/MPI_Mprobe/MPI_Improbe loop/MPI_Iprobe loop + MPI_Get_count +
#   MPI_Recv/MPI_Mrecv ping-pong (bench/probe_like.c, mpi4py's comm.recv);
#   4 and 8 ranks on the 2 cores, normal scheduler: IMB-MPI1's Bcast,
#   Alltoall, Allgather, Reduce_scatter, Allreduce at 4 B and 64 KiB and
#   Barrier (bench/collbench.c -I; IMB's t_avg).
# Each run is bracketed by the cache-line floor (bench/floor.c) and labelled
# near, far, busy or mixed; a row compares libraries within one label only,
# as the median over that label's runs. The table prints Canal / the better
# of MPICH and Open MPI (latency: below 1 is faster; bandwidth and rate:
# above 1), Canal's own figure and the issue's goal.
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in -h | --help | "")
    bench_help "$0"
    exit 0
    ;;
esac

PREFIX=$1
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/issue26}")
REPS=${REPS:-3}
SCALE=${SCALE:-1}
COLL_TIME=${COLL_TIME:-0.5}
COLL_NP=${COLL_NP:-"4 8"}
TIMEOUT=${TIMEOUT:-180}
DAT=$OUT/issue26.dat

report() {
    python3 "$bench_srcdir/issue26_table.py" "$DAT"
}

if [ "${REPORT_ONLY:-0}" = 1 ]; then
    report
    exit $?
fi

bench_setup issue26 "$PREFIX" || exit 1
mkdir -p "$OUT/bin"
BIN=$OUT/bin
bench_floor_build "$BIN" || exit 1
for lib in $BENCH_LIBS; do
    for p in osu_like imb_rma collbench probe_like; do
        bench_cc "$lib" "$BIN/$p.$lib" "$bench_srcdir/$p.c" || {
            log "cannot build $p with $lib"
            exit 1
        }
    done
done
read -r -a LIBS <<<"$BENCH_LIBS"
SCHED=$(bench_scheds "rt")
RT=
[ "$SCHED" = rt ] && RT=rt

# The items: "np sched program arguments" (program without the .lib suffix).
SMALL=1,2,4,8,16,32,64
LARGE=16384,65536,262144,1048576,4194304
ITEMS=(
    "2 rt osu_like -t latency -s $SMALL,$LARGE -i $SCALE"
    "2 rt osu_like -t bw -s 8,64,$LARGE -i $SCALE"
    "2 rt osu_like -t bibw -s 8 -i $SCALE"
    "2 rt osu_like -t mbw_mr -s $SMALL -i $SCALE"
    "2 rt osu_like -t sendrecv -s 8 -i $SCALE"
    "2 rt osu_like -t exchange -s 8 -i $SCALE"
    "2 rt osu_like -T -t latency -s 8 -i $SCALE"
    "2 rt osu_like -T -t bw -s 8 -i $SCALE"
    "2 rt osu_like -T -t mbw_mr -s 8 -i $SCALE"
    "2 rt osu_like -T -t sendrecv -s 8 -i $SCALE"
    "2 rt osu_like -t barrier -s 0 -i $SCALE"
    "2 rt osu_like -t allreduce -s 4,1048576 -i $SCALE"
    "2 rt imb_rma -b 3 -i $SCALE"
    "2 rt collbench -o zero -t 0.3"
    "2 rt probe_like -s 8,4096 -i $SCALE"
)
for np in $COLL_NP; do
    ITEMS+=("$np plain collbench -I -s 4,65536 -t $COLL_TIME -o bcast,alltoall,allgather,reduce_scatter,allreduce,barrier")
done

# run_item LIB ITEM REP: one run, its lines appended to $DAT as
# "lib rep mode np test bytes value"
run_item() {
    local lib=$1 rep=$3 np sched prog args out f1 f2 mode rt=
    read -r np sched prog args <<<"$2"
    [ "$sched" = rt ] && rt=$RT
    f1=$(bench_floor "$BIN" "$rt")
    # shellcheck disable=SC2046 # the launch prefix is split into words on purpose
    out=$(timeout -k 5 "$TIMEOUT" $(bench_launch "$lib" "$np" "$rt") "$BIN/$prog.$lib" $args 2>"$OUT/last.err")
    local rc=$?
    f2=$(bench_floor "$BIN" "$rt")
    mode=$(bench_mode "$f1" "$f2")
    if [ $rc != 0 ]; then
        log "$lib np$np $prog $args: exit $rc (see $OUT/last.err)"
        bench_reap "$BIN"
        return
    fi
    case $prog in
    osu_like | imb_rma | probe_like)
        echo "$out" | awk -v l="$lib" -v r="$rep" -v m="$mode" -v n="$np" \
            '!/^#/ && NF == 3 { print l, r, m, n, $1, $2, $3 }' >>"$DAT"
        ;;
    collbench)
        # op bytes ranks iters median mean p99 max: IMB's t_avg is the mean;
        # the zero-count calls report their median
        echo "$out" | awk -v l="$lib" -v r="$rep" -v m="$mode" -v n="$np" \
            '!/^#/ && NF == 8 { v = ($1 ~ /0$/) ? $5 : $6; print l, r, m, n, $1, $2, v }' >>"$DAT"
        ;;
    esac
}

log "libraries: ${LIBS[*]}; $REPS rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# issue26.sh $(date -u '+%F %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg), canal $PREFIX" >>"$DAT"
for ((rep = 0; rep < REPS; rep++)); do
    for item in "${ITEMS[@]}"; do
        for lib in $(bench_rotated "$rep" "${LIBS[@]}"); do
            run_item "$lib" "$item" "$rep"
        done
    done
    log "round $((rep + 1))/$REPS done; load $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "# end $(date -u '+%H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$DAT"
report | tee "$OUT/table.md"
