#!/bin/bash
# Start-up time: the wall time of `mpiexec -n 2 ./hello` and `-n 8` for
# Canal, Debian's MPICH (Hydra) and Open MPI (mpirun), libraries alternated
# run by run, median of RUNS runs (hyperfine's median when it is installed).
#
# Usage: bench/startup.sh [CANAL_PREFIX]   (environment: OUT, RUNS, NPS, HOSTS)
# CANAL_PREFIX is an installed Canal (bin/mpicc, bin/mpiexec) or a build
# directory with libmpi.so and mpiexec; without it only MPICH and Open MPI run.
# Prints a table in milliseconds and writes $OUT/startup.dat.
#
# HOSTS=N (root): across N hosts of the namespace cluster (test/cluster/
# netns.sh, removed on exit) with a host file of N lines 'host:PPN' (PPN=2
# unless set; NPS defaults to N x PPN): Canal's `mpiexec -f hostfile
# -launcher-exec test/cluster/nsexec`, Hydra's `mpiexec.mpich -f hostfile
# -launcher ssh -launcher-exec nsexec -iface <bridge>` and Open MPI's
# `mpirun --hostfile F --mca plm_rsh_agent nsexec` (TCP on the cluster's
# subnet), alternated run by run; each launch is timed with date +%s%N.
set -u
. "$(dirname "$0")/libs.sh"

OUT=${OUT:-$bench_srcdir/out}
RUNS=${RUNS:-10}
HOSTS=${HOSTS:-}
PPN=${PPN:-2}
if [ -n "$HOSTS" ]; then NPS=${NPS:-$((HOSTS * PPN))}; else NPS=${NPS:-"2 8"}; fi
bench_libs_init "${1:-}"
mkdir -p "$OUT/bin" "$OUT/data"

# Across namespace hosts: the cluster, host files, and the launch commands.
if [ -n "$HOSTS" ]; then
    [ "$(id -u)" = 0 ] || { echo "startup: HOSTS needs root (network namespaces)" >&2; exit 77; }
    NETNS=$bench_topdir/test/cluster/netns.sh
    NSEXEC=$bench_topdir/test/cluster/nsexec
    CP=su$$
    CP=${CP:0:8}
    export CLUSTER_NET=$((100 + $$ % 100))
    trap 'bash "$NETNS" down "$HOSTS" "$CP" >/dev/null 2>&1' EXIT
    bash "$NETNS" up "$HOSTS" "$CP" >"$OUT/data/startup-up.log" 2>&1 || {
        cat "$OUT/data/startup-up.log" >&2
        echo "startup: cannot create the namespace cluster" >&2
        exit 77
    }
    : >"$OUT/data/hosts.hydra"
    : >"$OUT/data/hosts.ompi"
    for ((h = 1; h <= HOSTS; h++)); do
        echo "$CP$h:$PPN" >>"$OUT/data/hosts.hydra"
        echo "$CP$h slots=$PPN" >>"$OUT/data/hosts.ompi"
    done
    SUBNET=10.$CLUSTER_NET.0.0/24
    bench_launch() {
        case $1 in
        canal) echo "$canal_mpiexec -launcher-exec $NSEXEC -f $OUT/data/hosts.hydra -n $2" ;;
        # UCX's tcp transport on eth0: its shared memory would reach across
        # the namespaces (one kernel), which real hosts cannot
        mpich) echo "mpiexec.mpich -launcher ssh -launcher-exec $NSEXEC -iface ${CP}br -f $OUT/data/hosts.hydra -n $2 -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0" ;;
        ompi) echo "mpirun.openmpi --hostfile $OUT/data/hosts.ompi -np $2 --mca plm_rsh_agent $NSEXEC --mca oob_tcp_if_include $SUBNET --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include $SUBNET" ;;
        esac
    }
fi

for lib in $BENCH_LIBS; do
    bench_cc "$lib" "$OUT/bin/hello_$lib" "$bench_srcdir/hello.c" || {
        echo "startup: cannot build hello for $lib" >&2
        exit 1
    }
done

now_ns() { date +%s%N; }

# One timed launch; prints milliseconds, or "fail".
run_ms() {
    local lib=$1 np=$2 t0 t1 launch
    launch=$(bench_launch "$lib" "$np")
    [ -n "$launch" ] || { echo fail; return; } # never time a singleton by mistake
    t0=$(now_ns)
    if timeout -k 5 60 $launch "$OUT/bin/hello_$lib" >"$OUT/data/last-$lib.log" 2>&1; then
        t1=$(now_ns)
        echo $(((t1 - t0) / 1000)) | awk '{printf "%.1f\n", $1 / 1000}'
    else
        echo fail
    fi
}

median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

: >"$OUT/data/startup.raw"
if command -v hyperfine >/dev/null && [ -z "$HOSTS" ]; then
    for np in $NPS; do
        for lib in $BENCH_LIBS; do
            hyperfine -N -w 1 -r "$RUNS" --export-csv "$OUT/data/startup-$lib-$np.csv" \
                "$(bench_launch "$lib" "$np") $OUT/bin/hello_$lib" >/dev/null 2>&1 &&
                awk -F, -v l="$lib" -v n="$np" 'NR == 2 {printf "%s %s %.1f\n", l, n, $4 * 1000}' \
                    "$OUT/data/startup-$lib-$np.csv" >>"$OUT/data/startup.raw"
        done
    done
else
    for np in $NPS; do
        for lib in $BENCH_LIBS; do run_ms "$lib" "$np" >/dev/null; done # warm the page cache
        for ((r = 0; r < RUNS; r++)); do
            for lib in $BENCH_LIBS; do
                echo "$lib $np $(run_ms "$lib" "$np")" >>"$OUT/data/startup.raw"
            done
        done
    done
fi

{
    if [ -n "$HOSTS" ]; then
        echo "# startup across $HOSTS namespace hosts x $PPN: wall ms of 'mpiexec -f hostfile -n NP ./hello', median of $RUNS runs (fail = failed runs)"
    else
        echo "# startup: wall ms of 'mpiexec -n NP ./hello', median of $RUNS runs (fail = failed runs)"
    fi
    printf "# %-6s %4s %10s %6s\n" lib np median_ms fails
    for np in $NPS; do
        for lib in $BENCH_LIBS; do
            m=$(awk -v l="$lib" -v n="$np" '$1 == l && $2 == n && $3 != "fail" {print $3}' "$OUT/data/startup.raw" | median)
            f=$(awk -v l="$lib" -v n="$np" '$1 == l && $2 == n && $3 == "fail"' "$OUT/data/startup.raw" | wc -l)
            printf "%-8s %4s %10s %6s\n" "$lib" "$np" "$m" "$f"
        done
    done
} >"$OUT/startup.dat"
cat "$OUT/startup.dat"
