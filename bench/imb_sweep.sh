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
#   LIBS="canal mpich ompi"  the libraries that run (e.g. "canal ompi": issue
#                   26's criterion is Open MPI; oversubscribed MPICH is slow)
#   CANAL_BASE=prefix  a second Canal (before a change) run as "base" in the
#                   same rounds, through the same IMB binary
#   COLLS="Bcast Allreduce ..."  IMB benchmarks (default IMB-MPI1's fourteen
#                   collectives)
#   IMB_ARGS="-msglog 0:22 -time 0.2 -iter 200 -mem 2"   (IMB's sizes 0, 1 B .. 4 MiB)
#   THRESHOLD=1.2   the table lists every size whose median Canal/Open MPI
#                   t_avg ratio is above it
#   FULL=1          also print every cell: Canal's median t_avg and its ratio
#                   to Open MPI and MPICH (and base's, with CANAL_BASE)
#   MATRIX=1        also print per rank count a table of sizes by collectives,
#                   each cell Canal/Open MPI by t_avg and by CPU, and
#                   (Canal/MPICH by t_avg)
#   TIMEOUT=900     seconds before one IMB run is killed
# Output: OUT/LIB.npN.rR.txt (IMB's output, the 1-minute load average on its
# first line), then per rank count and collective the worst ratio and every
# cell above THRESHOLD: "size ratio (canal mpich ompi medians in us, U/R)",
# U of Canal's R runs above THRESHOLD x Open MPI's run of the same round.
# 0-byte cells are printed but are below IMB's resolution (0.0x us).
# An IMB patched to print, after each size, "#cpu NAME SIZE n N cpu_us C
# csw S" (the CPU time of the size's timed calls, user + system, summed over
# ranks and divided by the calls; context switches alike; see doc/bench.md,
# helper coll7) adds the CPU ratio of each cell ("cpu" columns); IMB's
# loops put a barrier between calls, which that time includes.
# IMB stops a size when a sample exceeds its time limit ("time-out"):
# MPICH oversubscribed on a loaded machine often does; those cells are missing.
set -u
prefix=${1:-}
out=${2:-bench/out/imb_sweep}
NPS=${NPS:-4 8 2}
ROUNDS=${ROUNDS:-3}
COLLS=${COLLS:-Bcast Allreduce Reduce Reduce_scatter Reduce_scatter_block Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv Barrier}
IMB_ARGS=${IMB_ARGS:--msglog 0:22 -time 0.2 -iter 200 -mem 2}
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
            all=${LIBS:-canal mpich ompi}
            [ -n "${CANAL_BASE:-}" ] && [[ " $all " != *" base "* ]] && all="${all/canal/canal base}"
            set -- $all; k=$(((r - 1) % $#)); libs="${*:k+1} ${*:1:k}"
            for lib in $libs; do
                f=$out/$lib.np$np.r$r.txt
                echo "load $(cut -d' ' -f1 /proc/loadavg)" >"$f"
                case $lib in
                canal) LD_LIBRARY_PATH=$prefix/lib timeout "$TIMEOUT" "$prefix/bin/mpiexec" -n "$np" \
                    "$IMB_MPICH" $COLLS $IMB_ARGS -npmin "$np" >>"$f" 2>&1 ;;
                base) LD_LIBRARY_PATH=$CANAL_BASE/lib timeout "$TIMEOUT" "$CANAL_BASE/bin/mpiexec" -n "$np" \
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

python3 - "$out" "$THRESHOLD" "${FULL:-0}" "${MATRIX:-0}" <<'PY'
import collections, glob, re, statistics, sys
out, thr, full, matrix = sys.argv[1], float(sys.argv[2]), sys.argv[3] == '1', sys.argv[4] == '1'
runs, loads = collections.defaultdict(list), collections.defaultdict(list)
cpus = collections.defaultdict(list)
byr = {}  # (lib, np, coll, size, round) -> t_avg
for f in glob.glob(out + '/*.np*.r*.txt'):
    m = re.match(r'.*/(\w+)\.np(\d+)\.r(\d+)\.txt$', f)
    lib, np, rnd, coll = m.group(1), int(m.group(2)), int(m.group(3)), None
    for line in open(f, errors='replace'):
        if line.startswith('load '):
            loads[lib, np].append(float(line.split()[1]))
            continue
        mm = re.match(r'#cpu (\S+) (\d+) n \d+ cpu_us ([\d.]+) csw ([\d.]+)', line)
        if mm:
            # (IMB's barrier passes the last size of the list: its one cell is 0)
            cpus[lib, np, mm.group(1), 0 if mm.group(1) == 'Barrier' else int(mm.group(2))].append(
                float(mm.group(3)))
            continue
        mm = re.match(r'# Benchmarking (\S+)', line)
        if mm:
            coll = mm.group(1)
            continue
        p = line.split()
        if coll and p and all(re.match(r'^[\d.]+$', x) for x in p):
            if coll == 'Barrier' and len(p) == 4:
                runs[lib, np, coll, 0].append(float(p[3]))
                byr[lib, np, coll, 0, rnd] = float(p[3])
            elif len(p) >= 5:
                runs[lib, np, coll, int(p[0])].append(float(p[4]))
                byr[lib, np, coll, int(p[0]), rnd] = float(p[4])
med = {k: statistics.median(v) for k, v in runs.items()}
cmed = {k: statistics.median(v) for k, v in cpus.items()}
order = ("Bcast Allreduce Reduce Reduce_scatter Reduce_scatter_block Allgather Allgatherv Gather Gatherv "
         "Scatter Scatterv Alltoall Alltoallv Barrier").split()
def ratio(a, b):
    return '-' if a is None or not b else '%.2f' % (a / b)
for np in sorted({k[1] for k in med}):
    la = {lib: ' '.join('%.0f' % x for x in v) for (lib, n), v in loads.items() if n == np}
    print('np%d (load averages at the runs: %s)' % (np, '; '.join('%s %s' % kv for kv in sorted(la.items()))))
    for c in order:
        cells = []
        for s in sorted({k[3] for k in med if k[1] == np and k[2] == c}):
            ca, om, mp = med.get(('canal', np, c, s)), med.get(('ompi', np, c, s)), med.get(('mpich', np, c, s))
            if ca is None or not om:
                continue
            # rounds in which Canal was above the threshold against Open MPI's run of the same round
            rr = [r for (l, n, cc, ss, r) in byr if (l, n, cc, ss) == ('canal', np, c, s)]
            up = sum(1 for r in rr if byr.get(('ompi', np, c, s, r)) and
                     byr['canal', np, c, s, r] > thr * byr['ompi', np, c, s, r])
            cells.append((ca / om, s, ca, mp, om, '%d/%d' % (up, len(rr))))
        if not cells:
            continue
        w = max(cells)
        bad = ', '.join('%dB %.2f (%.1f %s %.1f, %s)' % (s, r, ca, '-' if mp is None else '%.1f' % mp, om, n)
                        for r, s, ca, mp, om, n in cells if r > thr)
        print('  %-21s worst %.2f at %dB; above %.2f: %s' % (c, w[0], w[1], thr, bad or 'none'))
if matrix:
    # per rank count: sizes down, collectives across, each cell Canal/Open MPI
    # t_avg, then CPU (the #cpu lines), then Canal/MPICH t_avg where MPICH
    # finished the size ("-": missing)
    short = {'Reduce_scatter': 'Red_sc', 'Reduce_scatter_block': 'Red_sc_blk', 'Allgather': 'Allgath',
             'Allgatherv': 'Allgathv', 'Allreduce': 'Allred', 'Alltoallv': 'Alltoallv'}
    for np in sorted({k[1] for k in med}):
        cols = [c for c in order if any(k[1] == np and k[2] == c for k in med)]
        print('\nnp%d, Canal / Open MPI: t_avg, CPU summed over ranks (Canal / MPICH t_avg)' % np)
        print('| bytes | ' + ' | '.join(short.get(c, c) for c in cols) + ' |')
        print('|---' * (len(cols) + 1) + '|')
        for s in sorted({k[3] for k in med if k[1] == np}):
            cells = []
            for c in cols:
                g = lambda lib: med.get((lib, np, c, s))
                gc = lambda lib: cmed.get((lib, np, c, s))
                if g('canal') is None:
                    cells.append('-')
                    continue
                cells.append('%s %s (%s)' % (ratio(g('canal'), g('ompi')), ratio(gc('canal'), gc('ompi')),
                                             ratio(g('canal'), g('mpich'))))
            print('| %d | %s |' % (s, ' | '.join(cells)))
if full:
    libs = sorted({k[0] for k in med})
    print('| np | collective | bytes | canal us | /ompi | /mpich | cpu /ompi |' +
          (' base us | base/ompi | base cpu/ompi |' if 'base' in libs else ''))
    print('|---|---|---|---|---|---|---|' + ('---|---|---|' if 'base' in libs else ''))
    for np in sorted({k[1] for k in med}):
        for c in order:
            for s in sorted({k[3] for k in med if k[1] == np and k[2] == c}):
                g = lambda lib: med.get((lib, np, c, s))
                gc = lambda lib: cmed.get((lib, np, c, s))
                ca = g('canal')
                row = '| %d | %s | %d | %s | %s | %s | %s |' % (
                    np, c, s, '-' if ca is None else '%.1f' % ca, ratio(ca, g('ompi')),
                    ratio(ca, g('mpich')), ratio(gc('canal'), gc('ompi')))
                if 'base' in libs:
                    b = g('base')
                    row += ' %s | %s | %s |' % ('-' if b is None else '%.1f' % b, ratio(b, g('ompi')),
                                                ratio(gc('base'), gc('ompi')))
                print(row)
PY
