#!/bin/bash
# IMB-MPI1's collectives at every size, Canal against MPICH and Open MPI:
# the sweep of issue 26 ("no oversubscribed collective more than 1.2x Open
# MPI at any size"). IMB itself is not part of Canal: point IMB_MPICH at an
# IMB-MPI1 built with MPICH's wrapper (it runs on Canal by LD_LIBRARY_PATH,
# the same ABI) and IMB_OMPI at one built with Open MPI's.
#
# Usage: bench/imb_sweep.sh CANAL_PREFIX [OUT]      (run, then print the table)
#        REPORT_ONLY=1 bench/imb_sweep.sh - OUT     (table from OUT's data)
# Environment:
#   NPS="4 8 2"     rank counts; ROUNDS=3 rounds, the libraries' order rotated
#                   each round (canal mpich ompi, mpich ompi canal, ...)
#   COLLS="Bcast Allreduce ..."  IMB benchmarks (default the eleven of issue 26)
#   IMB_ARGS="-msglog 2:22 -time 0.2 -iter 200 -mem 2"   (IMB's sizes 0, 4 B .. 4 MiB)
#   THRESHOLD=1.2   the table lists every size whose median Canal/Open MPI
#                   t_avg ratio is above it
#   TIMEOUT=900     seconds before one IMB run is killed
# Output: OUT/LIB.npN.rR.txt (IMB's output, the 1-minute load average on its
# first line), then per rank count and collective the worst ratio and every
# cell above THRESHOLD: "size ratio (canal mpich ompi medians in us, runs)".
# 0-byte cells are printed but are below IMB's resolution (0.0x us).
# IMB stops a size when a sample exceeds its time limit ("time-out"):
# MPICH oversubscribed on a loaded machine often does; those cells are missing.
set -u
prefix=${1:-}
out=${2:-bench/out/imb_sweep}
NPS=${NPS:-4 8 2}
ROUNDS=${ROUNDS:-3}
COLLS=${COLLS:-Bcast Allreduce Reduce Reduce_scatter Allgather Allgatherv Alltoall Alltoallv Gather Scatter Barrier}
IMB_ARGS=${IMB_ARGS:--msglog 2:22 -time 0.2 -iter 200 -mem 2}
IMB_MPICH=${IMB_MPICH:-/tmp/coll-imb/IMB-MPI1}
IMB_OMPI=${IMB_OMPI:-/tmp/coll-imb-ompi/IMB-MPI1}
TIMEOUT=${TIMEOUT:-900}
THRESHOLD=${THRESHOLD:-1.2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"

if [ "${REPORT_ONLY:-0}" != 1 ]; then
    [ -x "$prefix/bin/mpiexec" ] || { echo "imb_sweep: no Canal in '$prefix'" >&2; exit 2; }
    [ -x "$IMB_MPICH" ] || { echo "imb_sweep: SKIP: no IMB-MPI1 at $IMB_MPICH (IMB_MPICH)" >&2; exit 77; }
    for np in $NPS; do
        for ((r = 1; r <= ROUNDS; r++)); do
            case $(((r - 1) % 3)) in
            0) libs="canal mpich ompi" ;; 1) libs="mpich ompi canal" ;; *) libs="ompi canal mpich" ;;
            esac
            for lib in $libs; do
                f=$out/$lib.np$np.r$r.txt
                echo "load $(cut -d' ' -f1 /proc/loadavg)" >"$f"
                case $lib in
                canal) LD_LIBRARY_PATH=$prefix/lib timeout "$TIMEOUT" "$prefix/bin/mpiexec" -n "$np" \
                    "$IMB_MPICH" $COLLS $IMB_ARGS -npmin "$np" >>"$f" 2>&1 ;;
                mpich) command -v mpiexec.mpich >/dev/null || continue
                    timeout "$TIMEOUT" mpiexec.mpich -n "$np" "$IMB_MPICH" $COLLS $IMB_ARGS -npmin "$np" >>"$f" 2>&1 ;;
                ompi) [ -x "$IMB_OMPI" ] && command -v mpirun.openmpi >/dev/null || continue
                    over=; [ "$np" -gt "$(nproc)" ] && over=--oversubscribe
                    timeout "$TIMEOUT" mpirun.openmpi -n "$np" $over --mca btl self,vader "$IMB_OMPI" $COLLS \
                        $IMB_ARGS -npmin "$np" >>"$f" 2>&1 ;;
                esac
            done
        done
    done
fi

python3 - "$out" "$THRESHOLD" <<'PY'
import collections, glob, re, statistics, sys
out, thr = sys.argv[1], float(sys.argv[2])
runs, loads = collections.defaultdict(list), collections.defaultdict(list)
for f in glob.glob(out + '/*.np*.r*.txt'):
    m = re.match(r'.*/(\w+)\.np(\d+)\.r\d+\.txt$', f)
    lib, np, coll = m.group(1), int(m.group(2)), None
    for line in open(f, errors='replace'):
        if line.startswith('load '):
            loads[lib, np].append(float(line.split()[1]))
            continue
        mm = re.match(r'# Benchmarking (\S+)', line)
        if mm:
            coll = mm.group(1)
            continue
        p = line.split()
        if coll and p and all(re.match(r'^[\d.]+$', x) for x in p):
            if coll == 'Barrier' and len(p) == 4:
                runs[lib, np, coll, 0].append(float(p[3]))
            elif len(p) >= 5:
                runs[lib, np, coll, int(p[0])].append(float(p[4]))
med = {k: statistics.median(v) for k, v in runs.items()}
order = "Bcast Allreduce Reduce Reduce_scatter Allgather Allgatherv Alltoall Alltoallv Gather Scatter Barrier".split()
for np in sorted({k[1] for k in med}):
    la = {lib: ' '.join('%.0f' % x for x in v) for (lib, n), v in loads.items() if n == np}
    print('np%d (load averages at the runs: %s)' % (np, '; '.join('%s %s' % kv for kv in sorted(la.items()))))
    for c in order:
        cells = []
        for s in sorted({k[3] for k in med if k[1] == np and k[2] == c}):
            ca, om, mp = med.get(('canal', np, c, s)), med.get(('ompi', np, c, s)), med.get(('mpich', np, c, s))
            if ca is None or not om:
                continue
            cells.append((ca / om, s, ca, mp, om, len(runs['canal', np, c, s])))
        if not cells:
            continue
        w = max(cells)
        bad = ', '.join('%dB %.2f (%.1f %s %.1f, n%d)' % (s, r, ca, '-' if mp is None else '%.1f' % mp, om, n)
                        for r, s, ca, mp, om, n in cells if r > thr)
        print('  %-15s worst %.2f at %dB; above %.2f: %s' % (c, w[0], w[1], thr, bad or 'none'))
PY
