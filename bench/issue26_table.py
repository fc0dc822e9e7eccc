#!/usr/bin/env python3
"""Issue 26's table from bench/issue26.sh's data file (not a program to run alone).

Input lines: "lib rep mode np test bytes value" ('#' lines are comments).
For each row and mode (near, far) the value of each library is the median of
its runs in that mode; the row prints Canal / the better of MPICH and Open MPI
(the range over the row's sizes), Canal's own figure against the better one,
and the goal. The 4- and 8-rank collectives run under the normal scheduler
and are pooled over all modes (their cost is the scheduler's, not the cache's).
"""
import statistics
import sys
from collections import defaultdict

LAT, BW = "lat", "bw"
SMALL = [1, 2, 4, 8, 16, 32, 64]
LARGE = [65536, 262144, 1048576, 4194304]
# label, [(np, test, bytes)], kind, goal, unit
ROWS = [
    ("osu_latency 1-64 B", [(2, "latency", b) for b in SMALL], LAT,
     "<= 1; <= 0.15 us near, 0.40 far", "us"),
    ("osu_bw 8 B", [(2, "bw", 8)], BW, ">= 1", "MB/s"),
    ("osu_bw 64 B", [(2, "bw", 64)], BW, ">= 1", "MB/s"),
    ("osu_bibw 8 B", [(2, "bibw", 8)], BW, ">= 1", "MB/s"),
    ("osu_mbw_mr 1-64 B", [(2, "mbw_mr", b) for b in SMALL], BW,
     ">= 1; 8 B >= 12 M msg/s near", "M msg/s"),
    ("IMB Sendrecv 8 B", [(2, "sendrecv", 8)], LAT, "<= 1", "us"),
    ("IMB Exchange 8 B", [(2, "exchange", 8)], LAT, "<= 1", "us"),
    ("osu_latency 8 B (THREAD_MULTIPLE)", [(2, "latency_tm", 8)], LAT, "<= 1", "us"),
    ("osu_bw 8 B (THREAD_MULTIPLE)", [(2, "bw_tm", 8)], BW, ">= 1", "MB/s"),
    ("osu_mbw_mr 8 B (THREAD_MULTIPLE)", [(2, "mbw_mr_tm", 8)], BW, ">= 1", "M msg/s"),
    ("IMB Sendrecv 8 B (THREAD_MULTIPLE)", [(2, "sendrecv_tm", 8)], LAT, "<= 1", "us"),
    ("osu_barrier (2 ranks)", [(2, "barrier", 0)], LAT, "<= 1", "us"),
    ("osu_allreduce 4 B (2 ranks)", [(2, "allreduce", 4)], LAT, "<= 1", "us"),
    ("osu_allreduce 1 MiB (2 ranks)", [(2, "allreduce", 1048576)], LAT, "<= 1", "us"),
    ("IMB-RMA Unidir_get 8 B", [(2, "unidir_get", 8)], LAT, "<= 1", "us"),
    ("IMB-RMA Unidir_get 1 MiB", [(2, "unidir_get", 1048576)], LAT, "<= 1", "us"),
    ("IMB-RMA Accumulate aggregate 64 KiB", [(2, "acc_agg", 65536)], LAT, "<= 1", "us"),
    ("0-byte put/get/acc (us per call)",
     [(2, "zero_put", 0), (2, "zero_get", 0), (2, "zero_acc", 0)], LAT, "< 0.05 us", "us"),
    ("0-byte Ibcast/Iallreduce+Wait (us per call)",
     [(2, "ibcast0", 0), (2, "iallreduce0", 0)], LAT, "< 0.05 us", "us"),
    ("MPI_Probe+Get_count+Recv 8 B / 4 KiB", [(2, "probe", 8), (2, "probe", 4096)], LAT, "<= 1", "us"),
    ("MPI_Mprobe+Get_count+Mrecv 8 B / 4 KiB", [(2, "mprobe", 8), (2, "mprobe", 4096)], LAT,
     "<= 1", "us"),
    ("MPI_Improbe loop+Mrecv 8 B / 4 KiB", [(2, "improbe", 8), (2, "improbe", 4096)], LAT,
     "<= 1", "us"),
    ("MPI_Iprobe loop+Recv 8 B / 4 KiB", [(2, "iprobe", 8), (2, "iprobe", 4096)], LAT, "<= 1", "us"),
    ("osu_latency 16 KiB", [(2, "latency", 16384)], LAT, "<= 1 (Canal leads)", "us"),
    ("osu_bw 16 KiB", [(2, "bw", 16384)], BW, ">= 1 (Canal leads)", "MB/s"),
    ("osu_latency 64 KiB-4 MiB", [(2, "latency", b) for b in LARGE], LAT, "<= 1", "us"),
    ("osu_bw 64 KiB-4 MiB", [(2, "bw", b) for b in LARGE], BW, ">= 1", "MB/s"),
]
for np in (4, 8):
    for op, sizes in (("Bcast", [4]), ("Bcast", [65536]), ("Alltoall", [65536]), ("Allgather", [65536]),
                      ("Reduce_scatter", [65536]), ("Barrier", [0]), ("Allreduce", [4])):
        label = "np%d IMB %s %s" % (np, op, "/".join(
            ("4 B" if b == 4 else "64 KiB") for b in sizes) if op != "Barrier" else "")
        ROWS.append((label.rstrip(), [(np, op, b) for b in sizes], LAT,
                     "<= 1.2 x Open MPI", "us"))


def main():
    data = defaultdict(list)  # (lib, mode, np, test, bytes) -> values
    header, modes = [], defaultdict(set)
    for line in open(sys.argv[1]):
        if line.startswith("#"):
            header.append(line.strip())
            continue
        f = line.split()
        if len(f) != 7:
            continue
        lib, rep, mode, np, test, size, val = f
        key = (lib, mode, int(np), test, int(size))
        data[key].append(float(val))
        data[(lib, "all", int(np), test, int(size))].append(float(val))
        modes[mode].add((lib, rep, np, test))

    def med(lib, mode, np, test, size):
        v = data.get((lib, mode, np, test, size))
        return statistics.median(v) if v else None

    def cell(items, kind, mode):
        ratios, canal, best = [], [], []
        for np, test, size in items:
            c = med("canal", mode, np, test, size)
            others = [x for x in (med(l, mode, np, test, size) for l in ("mpich", "ompi"))
                      if x is not None]
            if c is None or not others:
                continue
            b = min(others) if kind == LAT else max(others)
            ratios.append(c / b if b else float("inf"))
            canal.append(c)
            best.append(b)
        if not ratios:
            return "-"

        def rng(v, fmt):
            lo, hi = min(v), max(v)
            return (fmt % lo) if fmt % lo == fmt % hi else (fmt % lo) + "-" + (fmt % hi)
        fmt = "%.3g" if kind == LAT else "%.4g"
        return "%s (%s vs %s)" % (rng(ratios, "%.2f"), rng(canal, fmt), rng(best, fmt))

    for h in header:
        print(h)
    counts = {m: len(s) for m, s in modes.items()}
    print("# runs per mode (lib x round x item): " +
          ", ".join("%s %d" % (m, n) for m, n in sorted(counts.items())))
    print()
    print("| measure | near | far | goal |")
    print("| --- | --- | --- | --- |")
    for label, items, kind, goal, unit in ROWS:
        if items[0][0] > 2:
            print("| %s | all modes: %s | | %s |" % (label, cell(items, kind, "all"), goal))
        else:
            if label.endswith("(THREAD_MULTIPLE)"):
                label = "%s, %s)" % (label[:-1], unit)
            elif not label.endswith(")"):
                label = "%s (%s)" % (label, unit)
            print("| %s | %s | %s | %s |" % (label, cell(items, kind, "near"),
                                             cell(items, kind, "far"), goal))
    print()
    print("Canal / the better of MPICH and Open MPI, then (Canal vs the better) in the row's unit;"
          " latency and time: below 1 is faster; bandwidth and rate: above 1 is faster.")


if __name__ == "__main__":
    main()
