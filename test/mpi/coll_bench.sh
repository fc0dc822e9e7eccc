#!/bin/sh
# coll_bench.sh CANAL_PREFIX [NPS] [COLLECTIVES] [MAXBYTES]
#
# Builds test/mpi/coll_bench.c with Canal (CANAL_PREFIX/bin/mpicc), Debian's
# MPICH (mpicc.mpich) and Open MPI (mpicc.openmpi) and runs the three side
# by side, alternating them for each communicator size in NPS (default
# "2 4 8"; 8 ranks on a 2-core machine is the oversubscribed case), then
# prints one table per size: median latency in microseconds for each
# collective and message size, and Canal's ratio to the faster of the two
# others (below 1: Canal is faster). Any implementation that is missing is
# skipped. See ../shared/benchmarks.md for how to read numbers on this
# machine (measure the near/far mode, compare only within one run).
set -u
prefix=${1:?usage: $0 CANAL_PREFIX [NPS] [COLLECTIVES] [MAXBYTES]}
nps=${2:-"2 4 8"}
colls=${3:-pingpong,barrier,bcast,allreduce,alltoall}
maxbytes=${4:-1048576}
here=$(cd "$(dirname "$0")" && pwd)
work=${TMPDIR:-/tmp}/coll_bench.$$
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
cores=$(nproc 2>/dev/null || echo 2)

impls=""
if [ -x "$prefix/bin/mpicc" ] && "$prefix/bin/mpicc" -O2 -o "$work/canal" "$here/coll_bench.c"; then
    impls="$impls canal"
fi
if command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/mpich" "$here/coll_bench.c"; then
    impls="$impls mpich"
fi
if command -v mpicc.openmpi >/dev/null &&
    mpicc.openmpi -O2 -o "$work/openmpi" "$here/coll_bench.c"; then
    impls="$impls openmpi"
fi

# With as many ranks as cores (or fewer) and root, the ranks run under
# `chrt -f 1`, as bench/compare.sh does: other programs on the machine then
# do not get in the way. Oversubscribed runs keep the normal scheduler
# (real-time spinning ranks would starve each other). RT=0 turns it off.
rt() { # np
    if [ "${RT:-1}" = 1 ] && [ "$(id -u)" = 0 ] && [ "$1" -le "$cores" ] &&
        command -v chrt >/dev/null; then
        echo "chrt -f 1"
    fi
}

run() { # impl np -> results file
    case $1 in
    canal) $(rt "$2") "$prefix/bin/mpiexec" -n "$2" "$work/canal" -c "$colls" -m "$maxbytes" ;;
    mpich) $(rt "$2") mpiexec.mpich -n "$2" "$work/mpich" -c "$colls" -m "$maxbytes" ;;
    openmpi)
        opts=""
        [ "$2" -gt "$cores" ] && opts=--oversubscribe
        [ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root"
        $(rt "$2") mpiexec.openmpi $opts -n "$2" "$work/openmpi" -c "$colls" -m "$maxbytes" ;;
    esac
}

for np in $nps; do
    # alternate: each implementation runs twice, A B C A B C, and the
    # better (lower) median of its two runs counts
    for pass in 1 2; do
        for impl in $impls; do
            run "$impl" "$np" > "$work/$impl.$np.$pass" 2> "$work/$impl.$np.err" ||
                echo "($impl -n $np failed: $(head -c 300 "$work/$impl.$np.err"))" >&2
        done
    done
    for impl in $impls; do
        awk 'NR == FNR { if ($1 !~ /^#/) best[$1 " " $2] = $3; next }
             $1 ~ /^#/ { print; next }
             { k = $1 " " $2; if (k in best && best[k] < $3) $3 = best[k]; print }' \
            "$work/$impl.$np.1" "$work/$impl.$np.2" > "$work/$impl.$np" 2>/dev/null
    done
    echo
    echo "== $np ranks ($(uname -n), $cores cores; median us)"
    printf '%-10s %9s' collective bytes
    for impl in $impls; do printf ' %10s' "$impl"; done
    printf ' %8s\n' "canal/best"
    first=$(for impl in $impls; do [ -s "$work/$impl.$np" ] && echo "$work/$impl.$np"; done | head -1)
    [ -n "$first" ] || continue
    grep -v '^#' "$first" | while read -r coll bytes med min; do
        printf '%-10s %9s' "$coll" "$bytes"
        best=""
        canal=""
        for impl in $impls; do
            v=$(awk -v c="$coll" -v b="$bytes" '$1 == c && $2 == b { print $3 }' "$work/$impl.$np" 2>/dev/null)
            printf ' %10s' "${v:--}"
            if [ "$impl" = canal ]; then
                canal=$v
            elif [ -n "$v" ]; then
                best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (a == "" || b < a) ? b : a }')
            fi
        done
        if [ -n "$canal" ] && [ -n "$best" ]; then
            awk -v a="$canal" -v b="$best" 'BEGIN { printf " %8.2f\n", (b > 0) ? a / b : 0 }'
        else
            printf ' %8s\n' -
        fi
    done
done
