#!/bin/bash
# Canal across "hosts" of the namespace cluster (test/cluster/netns.sh) whose
# links delay every frame, against MPICH under Hydra and Open MPI's mpirun on
# the same hosts, in the same run:
#   p2p:  latency and bandwidth between two hosts, one rank each;
#   coll: allreduce 8 B and 64 KiB, barrier and bcast 1 MiB on 4 hosts x 2
#         ranks: Canal's node-aware algorithms (its default between hosts),
#         Canal's flat ones (forced with CANAL_COLL_<COLLECTIVE>), MPICH,
#         Open MPI.
#
# Usage: bench/netem.sh CANAL_PREFIX [DELAY...]
#   CANAL_PREFIX: an installed Canal (bin/mpicc, bin/mpiexec)
#   DELAY: one-way delay between two hosts: 0, 20us, 200us (the default), 1ms
# Environment:
#   DELAY_WITH=auto  netem: tc netem on each host's eth0 (a kernel with
#                    sch_netem); hub: test/cluster/delayhub.c, a user-space
#                    switch between the hosts that delays every frame; auto:
#                    netem when the kernel has it, else hub
#   PARTS="p2p coll" what to measure
#   OUT=dir          results (default bench/out/netem): raw/ and netem.txt
#   REPS=3           runs per library and delay; tables print the median run
#   MAX=1048576      largest message of latency.c and bw.c
#   SCALE=0.05       iteration scale of latency.c and bw.c
#   COLL_TIME=1      seconds per operation of collbench.c
#   COLL_WARM=5      warm-up calls per operation
#   TIMEOUT=300      seconds before one run is killed
# Needs root, ip, tc, unshare and nsenter (exit 77 with a message otherwise).
# Before the runs of each delay, udpping (test/cluster/udpping.c) measures
# the round trip between two hosts, to check the delay.
set -u
. "$(dirname "$0")/libs.sh"

case ${1:-} in '' | -h | --help)
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    [ -n "${1:-}" ] && exit 0
    exit 2
    ;;
esac
PREFIX=$(cd "$1" && pwd) || exit 2
shift
DELAYS=${*:-"0 20us 200us"}
DELAY_WITH=${DELAY_WITH:-auto}
PARTS=${PARTS:-"p2p coll"}
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/netem}")
REPS=${REPS:-3}
MAX=${MAX:-1048576}
SCALE=${SCALE:-0.05}
COLL_TIME=${COLL_TIME:-1}
COLL_WARM=${COLL_WARM:-5}
TIMEOUT=${TIMEOUT:-300}
NHOSTS=4
NETNS=$bench_topdir/test/cluster/netns.sh
NSEXEC=$bench_topdir/test/cluster/nsexec
log() { echo "netem: $*" >&2; }

[ "$(id -u)" = 0 ] || { log "needs root (network namespaces, tc)"; exit 77; }
for t in ip tc unshare nsenter cc; do
    command -v $t >/dev/null || { log "'$t' is missing (iproute2, util-linux, gcc)"; exit 77; }
done
bench_libs_init "$PREFIX"
echo " $BENCH_LIBS " | grep -q " canal " || { log "no Canal in $PREFIX"; exit 1; }

# us D: a delay as microseconds (0, 20us, 200us, 1ms)
us() {
    case $1 in
    0) echo 0 ;;
    *us) echo "${1%us}" ;;
    *ms) awk -v v="${1%ms}" 'BEGIN { print v * 1000 }' ;;
    *) return 1 ;;
    esac
}
for d in $DELAYS; do us "$d" >/dev/null || { log "delay '$d': want 0, Nus or Nms"; exit 2; }; done

mkdir -p "$OUT/bin" "$OUT/raw"
rm -f "$OUT"/raw/*
for lib in $BENCH_LIBS; do
    for prog in latency bw collbench; do
        bench_cc "$lib" "$OUT/bin/${prog}_$lib" "$bench_srcdir/$prog.c" || { log "cannot build $prog for $lib"; exit 1; }
    done
done
cc -O2 -o "$OUT/bin/udpping" "$bench_topdir/test/cluster/udpping.c" || exit 1

P=nb$$
P=${P:0:8}
export CLUSTER_NET=$((100 + $$ % 100))
SUBNET=10.$CLUSTER_NET.0.0/24
trap 'bash "$NETNS" down $NHOSTS "$P" >/dev/null 2>&1; [ -n "${PONG:-}" ] && kill $PONG 2>/dev/null' EXIT

# Is netem there? (Some kernels are built without sch_netem.)
if [ "$DELAY_WITH" = auto ]; then
    DELAY_WITH=hub
    ip netns add "${P}q" 2>/dev/null && ip -n "${P}q" link add q0 type veth peer name q1 &&
        ip netns exec "${P}q" tc qdisc add dev q0 root netem delay 1us 2>"$OUT/raw/netem.err" &&
        DELAY_WITH=netem
    ip netns del "${P}q" 2>/dev/null
    [ $DELAY_WITH = hub ] && log "no netem qdisc in this kernel ($(head -1 "$OUT/raw/netem.err")): delays by delayhub"
fi
case $DELAY_WITH in
hub) export CLUSTER_HUB=0 ;;
netem) unset CLUSTER_HUB ;;
*) log "DELAY_WITH=$DELAY_WITH: want auto, netem or hub"; exit 2 ;;
esac
bash "$NETNS" up $NHOSTS "$P" >"$OUT/raw/up.log" 2>&1 || { cat "$OUT/raw/up.log" >&2; log "cannot create the namespaces"; exit 77; }
H1=${P}1 H2=${P}2
: >"$OUT/raw/hosts.hydra"
: >"$OUT/raw/hosts.ompi"
for ((h = 1; h <= NHOSTS; h++)); do
    echo "$P$h:2" >>"$OUT/raw/hosts.hydra"
    echo "$P$h slots=2" >>"$OUT/raw/hosts.ompi"
done
ip netns exec "$H2" "$OUT/bin/udpping" -s 7777 &
PONG=$!

# set_delay D: this delay between every two hosts
set_delay() {
    local h
    if [ $DELAY_WITH = hub ]; then
        bash "$NETNS" delay $NHOSTS "$P" "$(us "$1")"
        return
    fi
    for ((h = 1; h <= NHOSTS; h++)); do
        ip netns exec "$P$h" tc qdisc del dev eth0 root 2>/dev/null
        if [ "$1" != 0 ]; then
            ip netns exec "$P$h" tc qdisc add dev eth0 root netem delay "$1" || return 1
        fi
    done
}

# launch LIB NP HOSTS: the launch command for LIB on NP ranks (HOSTS: "pair"
# for one rank on each of the first two hosts, "all" for 4 x 2)
launch() {
    local lib=$1 np=$2 where=$3 hosts over=
    # 8 ranks on this machine's 2 cores: each library in its oversubscribed
    # mode where it has one (MPICH has none)
    if [ "$where" = all ]; then
        case $lib in
        canal) over="-genv CANAL_OVERSUBSCRIBED yes" ;;
        ompi) over="--mca mpi_yield_when_idle 1" ;;
        esac
    fi
    case $lib in
    canal)
        hosts=(-f "$OUT/raw/hosts.hydra")
        [ "$where" = pair ] && hosts=(-hosts "$H1,$H2")
        # libfabric made unusable, so that the sock channel carries it
        echo "$canal_mpiexec -launcher-exec $NSEXEC ${hosts[*]} -n $np -genv CANAL_OFI_LIBRARY no-such-libfabric.so $over" ;;
    mpich)
        hosts=(-f "$OUT/raw/hosts.hydra")
        [ "$where" = pair ] && hosts=(-hosts "$H1,$H2")
        # Hydra's proxies connect back to mpiexec.mpich over the bridge. The
        # namespaces share one kernel and /dev/shm: UCX would reach across
        # them with shared memory, so its tcp transport only, on eth0
        # (within a host MPICH's own shared memory, by Hydra's node map)
        echo "mpiexec.mpich -launcher ssh -launcher-exec $NSEXEC -iface ${P}br ${hosts[*]} -n $np -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0" ;;
    ompi)
        hosts=(--hostfile "$OUT/raw/hosts.ompi")
        [ "$where" = pair ] && hosts=(--host "$H1,$H2")
        echo "mpirun.openmpi ${hosts[*]} -np $np --mca plm_rsh_agent $NSEXEC --mca oob_tcp_if_include $SUBNET --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include $SUBNET $over" ;;
    esac
}

# reap_ranks: kill what a run that was ended left of its ranks (processes
# running a benchmark binary of ours; not udpping, which stays up)
reap_ranks() {
    local p exe
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$OUT/bin/latency_"* | "$OUT/bin/bw_"* | "$OUT/bin/collbench_"*) kill -9 "${p#/proc/}" 2>/dev/null ;; esac
    done
}

# run OUTFILE LIB NP WHERE PROGRAM ARGS...: one run, output in OUTFILE.
# With DONE_LINES=N, the run is ended 10 s after its output holds N result
# lines (collbench's): MPICH under Hydra here hangs in MPI_Finalize after
# printing (two ranks spin in ucp_worker_progress, the others wait in the
# PMI barrier), and would otherwise cost TIMEOUT each time.
run() {
    local out=$1 lib=$2 np=$3 where=$4 pid t=0 done_at=-1
    shift 4
    # shellcheck disable=SC2046
    timeout "$TIMEOUT" $(launch "$lib" "$np" "$where") "$@" >"$out" 2>&1 &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        sleep 1
        t=$((t + 1))
        if [ -n "${DONE_LINES:-}" ] && [ $done_at -lt 0 ] &&
            [ "$(grep -Ec '^(allreduce|barrier|allreduce64k|bcast1m) ' "$out")" -ge "$DONE_LINES" ]; then
            done_at=$t
        fi
        if [ $done_at -ge 0 ] && [ $t -ge $((done_at + 10)) ]; then
            log "$(basename "$out" .txt): results complete, the launcher still runs after 10 s: ended"
            echo "# netem.sh: ended 10 s after the results (hung in MPI_Finalize)" >>"$out"
            kill -TERM $pid 2>/dev/null
            sleep 2
            kill -KILL $pid 2>/dev/null
            reap_ranks
            break
        fi
    done
    wait $pid || [ $done_at -ge 0 ] || log "$(basename "$out" .txt) failed (see $out)"
}

# Canal's flat algorithms: what its table picks on one node for these sizes
FLAT_SMALL=(-genv CANAL_COLL_ALLREDUCE recdbl -genv CANAL_COLL_BARRIER dissemination -genv CANAL_COLL_BCAST scatter_ring)
FLAT_BIG=(-genv CANAL_COLL_ALLREDUCE rabenseifner)
P2P_LIBS=$(echo " $BENCH_LIBS " | sed 's/ ompi / /; s/^ *//; s/ *$//')
COLL_CONFS="canal-node canal-flat"
echo " $BENCH_LIBS " | grep -q " mpich " && COLL_CONFS="$COLL_CONFS mpich"
echo " $BENCH_LIBS " | grep -q " ompi " && COLL_CONFS="$COLL_CONFS ompi"

# coll_run CONF DELAY REP
coll_run() {
    local conf=$1 d=$2 rep=$3 o="$OUT/raw/coll-$1-$2-$3" DONE_LINES=4
    case $conf in
    canal-node) run "$o.txt" canal 8 all -genv CANAL_SUMMARY 1 "$OUT/bin/collbench_canal" -o net -t "$COLL_TIME" -w "$COLL_WARM" ;;
    canal-flat)
        DONE_LINES=3
        run "$o-a.txt" canal 8 all "${FLAT_SMALL[@]}" "$OUT/bin/collbench_canal" -o allreduce,barrier,bcast1m -t "$COLL_TIME" -w "$COLL_WARM"
        DONE_LINES=1
        run "$o-b.txt" canal 8 all "${FLAT_BIG[@]}" "$OUT/bin/collbench_canal" -o allreduce64k -t "$COLL_TIME" -w "$COLL_WARM"
        cat "$o-a.txt" "$o-b.txt" >"$o.txt" ;;
    *) run "$o.txt" "$conf" 8 all "$OUT/bin/collbench_$conf" -o net -t "$COLL_TIME" -w "$COLL_WARM" ;;
    esac
}

for d in $DELAYS; do
    set_delay "$d" || { log "cannot set delay $d"; exit 1; }
    sleep 0.5
    ip netns exec "$H1" "$OUT/bin/udpping" "10.$CLUSTER_NET.0.2" 7777 2000 >"$OUT/raw/udpping-$d.txt" 2>&1
    log "delay $d ($DELAY_WITH): udp round trip $H1 -> $H2: $(cat "$OUT/raw/udpping-$d.txt")"
    for ((rep = 1; rep <= REPS; rep++)); do
        if echo " $PARTS " | grep -q " p2p "; then
            for lib in $(bench_rotated "$rep" $P2P_LIBS); do
                for prog in latency bw; do
                    run "$OUT/raw/$prog-$lib-$d-$rep.txt" "$lib" 2 pair "$OUT/bin/${prog}_$lib" -m "$MAX" -i "$SCALE"
                done
            done
        fi
        if echo " $PARTS " | grep -q " coll "; then
            for conf in $(bench_rotated "$rep" $COLL_CONFS); do
                coll_run "$conf" "$d" "$rep"
            done
        fi
    done
    if [ $DELAY_WITH = hub ]; then
        bash "$NETNS" delay $NHOSTS "$P" 0 # stops the hub, which writes its statistics
        cp "/run/canal-cluster/hub-$P.stats" "$OUT/raw/hub-$d.stats" 2>/dev/null
    fi
done
set_delay 0

# value FILE KEY COLUMN: that column of the first line whose first field is KEY
value() { awk -v s="$2" -v c="$3" '!/^#/ && $1 == s { print $c; exit }' "$1" 2>/dev/null; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

{
    echo "# delays by $DELAY_WITH; one-way delay between two hosts; median of $REPS runs"
    echo "# udp round trip between two hosts (udpping, 2000 round trips):"
    for d in $DELAYS; do echo "#   $d: $(cat "$OUT/raw/udpping-$d.txt")"; done
    if [ $DELAY_WITH = hub ]; then
        for d in $DELAYS; do [ -e "$OUT/raw/hub-$d.stats" ] && sed "s/^/#   $d: /" "$OUT/raw/hub-$d.stats"; done
    fi
    if echo " $PARTS " | grep -q " p2p "; then
        echo "# p2p: 2 hosts, 1 rank each (latency.c, bw.c, scale $SCALE)"
        printf "%-8s %-12s %9s %9s %9s %9s %11s %11s\n" delay lib "lat0_us" "lat8_us" "lat1K_us" \
            "lat64K_us" "bw64K_MBps" "bw1M_MBps"
        for d in $DELAYS; do
            for lib in $P2P_LIBS; do
                row=()
                for s in 0 8 1024 65536; do
                    row+=("$(for f in "$OUT"/raw/latency-"$lib"-"$d"-*.txt; do value "$f" "$s" 2; done | median)")
                done
                for s in 65536 1048576; do
                    row+=("$(for f in "$OUT"/raw/bw-"$lib"-"$d"-*.txt; do value "$f" "$s" 2; done | median)")
                done
                printf "%-8s %-12s %9s %9s %9s %9s %11s %11s\n" "$d" "$lib" "${row[@]}"
            done
        done
    fi
    if echo " $PARTS " | grep -q " coll "; then
        echo "# coll: 4 hosts x 2 ranks (collbench.c, $COLL_TIME s per operation), median us per call"
        printf "%-8s %-12s %12s %12s %12s %12s\n" delay conf allreduce8 allreduce64K barrier bcast1M
        for d in $DELAYS; do
            for conf in $COLL_CONFS; do
                row=()
                for op in allreduce allreduce64k barrier bcast1m; do
                    row+=("$(for f in "$OUT"/raw/coll-"$conf"-"$d"-[0-9]*.txt; do
                        case $f in *-a.txt | *-b.txt) continue ;; esac
                        value "$f" "$op" 5
                    done | median)")
                done
                printf "%-8s %-12s %12s %12s %12s %12s\n" "$d" "$conf" "${row[@]}"
            done
        done
    fi
} | tee "$OUT/netem.txt"
