#!/bin/bash
# Latency and bandwidth between two "hosts" of the namespace cluster
# (test/cluster/netns.sh) whose links delay every packet with tc netem, for
# Canal's sock channel (mpiexec -launcher-exec test/cluster/nsexec, one
# rank per host) and, when Debian's MPICH is installed, for MPICH under
# Hydra on the same two namespaces, in the same run.
#
# Usage: bench/netem.sh CANAL_PREFIX [DELAY...]
#   CANAL_PREFIX: an installed Canal (bin/mpicc, bin/mpiexec)
#   DELAY: one-way delay added by netem on each host's eth0, as tc takes it
#          (default: 0 20us 200us). A packet leaves through its sender's eth0
#          only, so a message takes DELAY more one way and a round trip 2 x DELAY.
# Environment:
#   OUT=dir       results (default bench/out/netem): raw/ and netem.txt
#   REPS=3        runs per library and delay; tables print the median run
#   MAX=1048576   largest message of latency.c and bw.c
#   SCALE=0.05    iteration scale of latency.c and bw.c (netem makes each
#                 round trip long: keep runs short)
#   TIMEOUT=300   seconds before one run is killed
# Needs root, ip, tc, unshare and nsenter (exit 77 with a message otherwise),
# and for a delay other than 0 a kernel with sch_netem: without it those
# delays are skipped with a message (delay 0 is still measured).
# Prints per delay and library: one-way latency (median µs) at 0 B, 8 B,
# 1 KiB and 64 KiB, and bandwidth (median MB/s) at 64 KiB and 1 MiB.
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
OUT=$(realpath -m "${OUT:-$bench_srcdir/out/netem}")
REPS=${REPS:-3}
MAX=${MAX:-1048576}
SCALE=${SCALE:-0.05}
TIMEOUT=${TIMEOUT:-300}
NETNS=$bench_topdir/test/cluster/netns.sh
NSEXEC=$bench_topdir/test/cluster/nsexec
log() { echo "netem: $*" >&2; }

[ "$(id -u)" = 0 ] || { log "needs root (network namespaces, tc)"; exit 77; }
for t in ip tc unshare nsenter; do
    command -v $t >/dev/null || { log "'$t' is missing (iproute2, util-linux)"; exit 77; }
done
bench_libs_init "$PREFIX"
LIBS=$(echo " $BENCH_LIBS " | sed 's/ ompi / /; s/^ *//; s/ *$//') # Open MPI: not set up across namespaces here
echo " $LIBS " | grep -q " canal " || { log "no Canal in $PREFIX"; exit 1; }

mkdir -p "$OUT/bin" "$OUT/raw"
rm -f "$OUT"/raw/*
for lib in $LIBS; do
    for prog in latency bw; do
        bench_cc "$lib" "$OUT/bin/${prog}_$lib" "$bench_srcdir/$prog.c" || { log "cannot build $prog for $lib"; exit 1; }
    done
done

P=nb$$
P=${P:0:8}
export CLUSTER_NET=$((100 + $$ % 100))
trap 'bash "$NETNS" down 2 "$P" >/dev/null 2>&1' EXIT
bash "$NETNS" up 2 "$P" >"$OUT/raw/up.log" 2>&1 || { cat "$OUT/raw/up.log" >&2; log "cannot create the namespaces"; exit 77; }
H1=${P}1 H2=${P}2

# set_delay D: netem D on both hosts' eth0 (0: none)
set_delay() {
    local h
    for h in $H1 $H2; do
        ip netns exec "$h" tc qdisc del dev eth0 root 2>/dev/null
        if [ "$1" != 0 ]; then
            ip netns exec "$h" tc qdisc add dev eth0 root netem delay "$1" || return 1
        fi
    done
}

# run LIB PROG DELAY REP: one run, output in raw/
run() {
    local lib=$1 prog=$2 d=$3 rep=$4 args out
    out="$OUT/raw/$prog-$lib-$d-$rep.txt"
    args=(-m "$MAX" -i "$SCALE")
    case $lib in
    canal)
        # one rank per host; libfabric made unusable so the sock channel carries it
        timeout "$TIMEOUT" "$canal_mpiexec" -launcher-exec "$NSEXEC" -hosts "$H1,$H2" -n 2 \
            -genv CANAL_OFI_LIBRARY no-such-libfabric.so \
            "$OUT/bin/${prog}_canal" "${args[@]}" >"$out" 2>&1 ;;
    mpich)
        # Hydra's proxies connect back to mpiexec.mpich over the bridge; the
        # two namespaces share one kernel and /dev/shm, so MPICH (ch4:ucx)
        # would find shared memory between them: UCX's tcp transport only,
        # on eth0, and MPIR_CVAR_NOLOCAL, keep it on the network
        timeout "$TIMEOUT" mpiexec.mpich -launcher ssh -launcher-exec "$NSEXEC" -iface "${P}br" \
            -hosts "$H1,$H2" -n 2 -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS tcp,self \
            -genv UCX_NET_DEVICES eth0 \
            "$OUT/bin/${prog}_mpich" "${args[@]}" >"$out" 2>&1 ;;
    esac || log "$prog $lib delay $d run $rep failed (see $out)"
}

# value FILE SIZE COLUMN: that column of the line for SIZE
value() { awk -v s="$2" -v c="$3" '!/^#/ && $1 == s { print $c; exit }' "$1" 2>/dev/null; }

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Is netem there? (Some kernels are built without sch_netem.)
NETEM=yes
if ! ip netns exec "$H1" tc qdisc add dev eth0 root netem delay 1us 2>"$OUT/raw/netem.err"; then
    NETEM=no
    log "this kernel has no netem qdisc ($(head -1 "$OUT/raw/netem.err")); only delay 0 is measured"
fi
ip netns exec "$H1" tc qdisc del dev eth0 root 2>/dev/null
RUN_DELAYS=
for d in $DELAYS; do
    if [ "$d" != 0 ] && [ $NETEM = no ]; then
        log "SKIP delay $d: no netem"
        continue
    fi
    RUN_DELAYS="$RUN_DELAYS $d"
done

for d in $RUN_DELAYS; do
    set_delay "$d" || { log "tc netem delay $d failed"; exit 1; }
    command -v ping >/dev/null &&
        log "delay $d: ping $H1 -> $H2: $(ip netns exec "$H1" ping -c 3 -q "10.$CLUSTER_NET.0.2" 2>/dev/null | tail -1)"
    for ((rep = 1; rep <= REPS; rep++)); do
        # alternate the libraries' order run by run
        order=$LIBS
        [ $((rep % 2)) = 0 ] && order=$(echo "$LIBS" | tr ' ' '\n' | tac | tr '\n' ' ')
        for lib in $order; do
            run "$lib" latency "$d" "$rep"
            run "$lib" bw "$d" "$rep"
        done
    done
done
set_delay 0

{
    [ $NETEM = no ] && echo "# no netem in this kernel: delays other than 0 were skipped"
    echo "# netem: 2 namespace hosts, 1 rank each; one-way delay added per direction;"
    echo "# median of $REPS runs of each run's median batch (latency.c, bw.c, scale $SCALE)"
    printf "%-8s %-6s %9s %9s %9s %9s %11s %11s\n" delay lib "lat0_us" "lat8_us" "lat1K_us" \
        "lat64K_us" "bw64K_MBps" "bw1M_MBps"
    for d in $RUN_DELAYS; do
        for lib in $LIBS; do
            row=()
            for s in 0 8 1024 65536; do
                row+=("$(for f in "$OUT"/raw/latency-"$lib"-"$d"-*.txt; do value "$f" "$s" 2; done | median)")
            done
            for s in 65536 1048576; do
                row+=("$(for f in "$OUT"/raw/bw-"$lib"-"$d"-*.txt; do value "$f" "$s" 2; done | median)")
            done
            printf "%-8s %-6s %9s %9s %9s %9s %11s %11s\n" "$d" "$lib" "${row[@]}"
        done
    done
} | tee "$OUT/netem.txt"
