#!/bin/bash
# A test cluster on one machine: N "hosts", each a network namespace (its own
# address on a bridge) and a UTS namespace (its own hostname). Needs root and
# iproute2, util-linux (unshare, nsenter).
#
#   test/cluster/netns.sh up N [PREFIX]    create hosts PREFIX1..PREFIXN (default prefix
#                                          canal-n), print their names, one per line
#   test/cluster/netns.sh down N [PREFIX]  remove them (also after a partial 'up')
#
# Host i has address 10.$NET.0.i/24 on eth0 (NET: CLUSTER_NET, default 77) and
# the bridge PREFIXbr (address .254) joins them; the hostname is the host's name.
# Run a command on a host with test/cluster/nsexec HOST COMMAND... (it takes
# ssh's options, so mpiexec -launcher-exec test/cluster/nsexec works).
# State: /run/netns/HOST (ip netns) and /run/canal-cluster/uts/HOST (the UTS
# namespace, kept by a bind mount).
set -u
cmd=${1:-}
n=${2:-}
prefix=${3:-canal-n}
net=${CLUSTER_NET:-77}
UTS_DIR=/run/canal-cluster/uts

usage() { echo "usage: $0 up|down N [PREFIX]" >&2; exit 2; }
[ -n "$cmd" ] && [ -n "$n" ] || usage
case $n in '' | *[!0-9]*) usage ;; esac
[ "$n" -ge 1 ] && [ "$n" -le 250 ] || { echo "$0: N must be 1..250" >&2; exit 2; }
[ ${#prefix} -le 11 ] || { echo "$0: PREFIX '$prefix' is longer than 11 characters" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root (network and UTS namespaces)" >&2; exit 77; }
for t in ip unshare nsenter; do
    command -v $t >/dev/null 2>&1 || { echo "$0: '$t' is missing (apt-get install iproute2 util-linux)" >&2; exit 77; }
done
br=${prefix}br

down() {
    local i
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
    for ((i = 1; i <= n; i++)); do
        h=$prefix$i
        ip netns add "$h" || return 1
        ip link add "${prefix}v$i" type veth peer name eth0 netns "$h" || return 1
        ip link set "${prefix}v$i" master "$br" up || return 1
        ip -n "$h" addr add "10.$net.0.$i/24" dev eth0 || return 1
        ip -n "$h" link set eth0 up || return 1
        ip -n "$h" link set lo up || return 1
        : > "$UTS_DIR/$h" || return 1
        unshare --uts="$UTS_DIR/$h" hostname "$h" || return 1
        echo "$h"
    done
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
*) usage ;;
esac
