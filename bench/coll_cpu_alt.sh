#!/bin/bash
# One collective cell, alternated: Canal with each algorithm named (forced
# with CANAL_COLL_<VAR>; "auto" is the table's choice), Canal main (an
# older install), and Open MPI, A B C A B C ... REPS times in a row, with
# bench/coll_cpu.c; then per cell and library the median and range of the
# wall time, CPU time and context switches per call (summed over ranks),
# and the 1-minute load average seen. The way to tell a real difference
# from the load's when the machine is shared (doc/bench.md "Collectives on
# 4 and 8 ranks by CPU time").
#
# Usage: bench/coll_cpu_alt.sh CANAL_PREFIX NP OP "SIZES" REPS ITERS VAR LABEL...
#   LABEL: an algorithm of CANAL_COLL_<VAR> (or auto), "main" (Canal at
#   $MAIN_PREFIX), "ompi" (Open MPI's mpicc/mpirun)
# Example: bench/coll_cpu_alt.sh _install 8 alltoall "4 128" 5 1000 ALLTOALL bruck linear ompi
set -u
prefix=${1:?usage: see the header}; np=$2; op=$3; sizes=$4; reps=$5; iters=$6; var=$7; shift 7
MAIN_PREFIX=${MAIN_PREFIX:-}
dir=$(mktemp -d /tmp/coll_cpu.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$prefix/bin/mpicc" -O2 -o "$dir/canal" "$here/coll_cpu.c" || exit 2
[ -n "$MAIN_PREFIX" ] && { "$MAIN_PREFIX/bin/mpicc" -O2 -o "$dir/main" "$here/coll_cpu.c" || exit 2; }
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$dir/ompi" "$here/coll_cpu.c"
over=; [ "$np" -gt "$(nproc)" ] && over=--oversubscribe
for s in $sizes; do
    for ((r = 1; r <= reps; r++)); do
        for a in "$@"; do
            load=$(cut -d' ' -f1 /proc/loadavg)
            case $a in
            ompi) [ -x "$dir/ompi" ] || { echo "ompi SKIP: no mpicc.openmpi"; continue; }
                out=$(timeout 300 mpirun.openmpi -n "$np" $over --mca btl self,vader "$dir/ompi" "$op" "$s" "$iters" 2>&1 | tail -1) ;;
            main) [ -x "$dir/main" ] || { echo "main SKIP: no MAIN_PREFIX"; continue; }
                out=$(LD_LIBRARY_PATH=$MAIN_PREFIX/lib timeout 300 "$MAIN_PREFIX/bin/mpiexec" -n "$np" "$dir/main" "$op" "$s" "$iters" 2>&1 | tail -1) ;;
            *) out=$(env "CANAL_COLL_$var=$a" timeout 300 "$prefix/bin/mpiexec" -n "$np" "$dir/canal" "$op" "$s" "$iters" 2>&1 | tail -1) ;;
            esac
            echo "$a load $load $out"
        done
    done
done | tee "$dir/out.txt"
python3 - "$dir/out.txt" <<'PY'
import collections, re, statistics, sys
d = collections.defaultdict(lambda: collections.defaultdict(list)); loads = []
for line in open(sys.argv[1]):
    m = re.match(r'(\S+) load ([\d.]+) (\S+) (\d+) np(\d+) wall_us ([\d.]+) cpu_us ([\d.]+) vcsw ([\d.]+) ivcsw ([\d.]+)', line)
    if not m:
        continue
    a, l, op, s, np, w, c, v, iv = m.groups()
    loads.append(float(l))
    d[op, int(s), np][a].append((float(w), float(c), float(v) + float(iv)))
if loads:
    print('load %.1f-%.1f' % (min(loads), max(loads)))
for k in sorted(d):
    for a, v in d[k].items():
        f = lambda i: '%7.1f [%.0f-%.0f]' % (statistics.median(x[i] for x in v), min(x[i] for x in v), max(x[i] for x in v))
        print('%s %d np%s %-20s n=%d wall %s  cpu %s  csw %s' % (k[0], k[1], k[2], a, len(v), f(0), f(1), f(2)))
PY
rm -rf "$dir"
