#!/bin/bash
# A test cluster on one machine: N "hosts", each a network namespace (its own
# address on a bridge) and a UTS namespace (its own hostname). Needs root and
# iproute2, util-linux (unshare, nsenter).
#
#   test/cluster/netns.sh up N [PREFIX]    create hosts PREFIX1..PREFIXN (default prefix
#                                          canal-n), print their names, one per line
#   test/cluster/netns.sh down N [PREFIX]  remove them (also after a partial 'up')
#   test/cluster/netns.sh delay N PREFIX US  (hub mode only) restart the hub with
#                                          a one-way delay of US microseconds
#
# Host i has address 10.$NET.0.i/24 on eth0 (NET: CLUSTER_NET, default 77) and
# the bridge PREFIXbr (address .254) joins them; the hostname is the host's name.
# Run a command on a host with test/cluster/nsexec HOST COMMAND... (it takes
# ssh's options, so mpiexec -launcher-exec test/cluster/nsexec works).
# With CLUSTER_HUB=US at 'up' the hosts' links do not join the bridge: a
# user-space switch (test/cluster/delayhub.c, built with cc into the state
# directory) forwards between them and delays every frame from host to host
# by US microseconds one way (the kernel here has no sch_netem); the bridge
# (mpiexec's side) joins the switch through an uplink that is not delayed.
# CLUSTER_HUB_OPTS adds delayhub options (-b: busy-poll); it runs under
# chrt -f 50 (SCHED_FIFO) unless CLUSTER_HUB_RT=0. The hub's
# statistics are written to /run/canal-cluster/hub-PREFIX.stats when it stops
# (a 'delay' restart stops it; 'down' removes the file).
# State: /run/netns/HOST (ip netns) and /run/canal-cluster/uts/HOST (the UTS
# namespace, kept by a bind mount).
set -u
cmd=${1:-}
n=${2:-}
prefix=${3:-canal-n}
net=${CLUSTER_NET:-77}
UTS_DIR=/run/canal-cluster/uts
STATE_DIR=/run/canal-cluster
SRC_DIR=$(cd "$(dirname "$0")" && pwd)

usage() { echo "usage: $0 up|down N [PREFIX] | delay N PREFIX US" >&2; exit 2; }
[ -n "$cmd" ] && [ -n "$n" ] || usage
case $n in '' | *[!0-9]*) usage ;; esac
[ "$n" -ge 1 ] && [ "$n" -le 250 ] || { echo "$0: N must be 1..250" >&2; exit 2; }
[ ${#prefix} -le 11 ] || { echo "$0: PREFIX '$prefix' is longer than 11 characters" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (network and UTS namespaces)" >&2; exit 77; }
for t in ip unshare nsenter; do
    command -v $t >/dev/null 2>&1 || { echo "$0: '$t' is missing (apt-get install iproute2 util-linux)" >&2; exit 77; }
done
br=${prefix}br

# hub_stop: end this cluster's delayhub (the pid it was started with)
hub_stop() {
    local pidf=$STATE_DIR/hub-$prefix.pid pid
    [ -e "$pidf" ] || return 0
    pid=$(cat "$pidf")
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        for ((w = 0; w < 50; w++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$pidf"
}

# hub_start US: start delayhub between the hosts' ports and the uplink
hub_start() {
    local bin=$STATE_DIR/delayhub ports=() i
    if [ ! -x "$bin" ] || [ "$SRC_DIR/delayhub.c" -nt "$bin" ]; then
        cc -O2 -Wall -o "$bin.$$" "$SRC_DIR/delayhub.c" && mv "$bin.$$" "$bin" || return 1
    fi
    for ((i = 1; i <= n; i++)); do ports+=("${prefix}v$i"); done
    # shellcheck disable=SC2086
    local rt=()
    # real-time priority: a frame's deadline should not wait for a time slice
    command -v chrt >/dev/null 2>&1 && [ "${CLUSTER_HUB_RT:-1}" = 1 ] && rt=(chrt -f 50)
    "${rt[@]}" "$bin" -d "$1" -u "${prefix}vu" -s "$STATE_DIR/hub-$prefix.stats" ${CLUSTER_HUB_OPTS:-} \
        "${ports[@]}" </dev/null >"$STATE_DIR/hub-$prefix.log" 2>&1 &
    echo $! >"$STATE_DIR/hub-$prefix.pid"
    sleep 0.2
    kill -0 $! 2>/dev/null || { cat "$STATE_DIR/hub-$prefix.log" >&2; return 1; }
}

down() {
    local i
    hub_stop
    rm -f "$STATE_DIR/hub-$prefix.log" "$STATE_DIR/hub-$prefix.stats"
    ip link del "${prefix}vu" 2>/dev/null
    for ((i = 1; i <= n; i++)); do
        if [ -e "$UTS_DIR/$prefix$i" ]; then
            umount "$UTS_DIR/$prefix$i" 2>/dev/null
            rm -f "$UTS_DIR/$prefix$i"
        fi
        ip netns del "$prefix$i" 2>/dev/null
        ip link del "${prefix}v$i" 2>/dev/null
    done
    ip link del "$br" 2>/dev/null
    return 0
}

up() {
    local i h
    mkdir -p "$UTS_DIR" || return 1
    ip link add "$br" type bridge || return 1
    ip addr add "10.$net.0.254/24" dev "$br" || return 1
    ip link set "$br" up || return 1
    if [ -n "${CLUSTER_HUB:-}" ]; then
        ip link add "${prefix}vu" type veth peer name "${prefix}vb" || return 1
        ip link set "${prefix}vb" master "$br" up || return 1
        ip link set "${prefix}vu" up || return 1
        sysctl -qw "net.ipv6.conf.${prefix}vu.disable_ipv6=1" 2>/dev/null
    fi
    for ((i = 1; i <= n; i++)); do
        h=$prefix$i
        ip netns add "$h" || return 1
        ip link add "${prefix}v$i" type veth peer name eth0 netns "$h" || return 1
        if [ -n "${CLUSTER_HUB:-}" ]; then
            ip link set "${prefix}v$i" up || return 1
            sysctl -qw "net.ipv6.conf.${prefix}v$i.disable_ipv6=1" 2>/dev/null
        else
            ip link set "${prefix}v$i" master "$br" up || return 1
        fi
        ip -n "$h" addr add "10.$net.0.$i/24" dev eth0 || return 1
        ip -n "$h" link set eth0 up || return 1
        ip -n "$h" link set lo up || return 1
        : > "$UTS_DIR/$h" || return 1
        unshare --uts="$UTS_DIR/$h" hostname "$h" || return 1
        echo "$h"
    done
    if [ -n "${CLUSTER_HUB:-}" ]; then
        hub_start "$CLUSTER_HUB" || return 1
    fi
    return 0
}

case $cmd in
up)
    if ! up; then
        echo "$0: could not create the cluster; removing what was made" >&2
        down
        exit 1
    fi
    ;;
down) down ;;
delay)
    us=${4:-}
    [ -n "$us" ] && [ -e "$STATE_DIR/hub-$prefix.pid" ] || { echo "$0: delay N PREFIX US needs a cluster made with CLUSTER_HUB" >&2; exit 2; }
    hub_stop
    hub_start "$us" || exit 1
    ;;
*) usage ;;
esac
