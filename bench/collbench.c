/*
 * Latency of collectives, each call timed on its own, so that the median
 * (the usual cost) and the mean (which the outliers pull up) can both be
 * printed. Oversubscribed runs (4 or 8 ranks on 2 cores) are where they
 * differ: a library that spins without yielding makes every call wait for a
 * time slice, one that yields late shows rare millisecond outliers.
 *
 * Two loops:
 *  - default: back-to-back calls, as osu_allreduce/osu_barrier run them, of
 *    the operations named by -o: allreduce (8 bytes: one double, MPI_SUM),
 *    barrier, allreduce64k (65536 bytes of MPI_FLOAT, MPI_SUM), bcast1m
 *    (1 MiB from rank 0); "all" is the first two, "net" those four (what
 *    bench/netem.sh measures across namespace hosts); "zero" the cost of
 *    a call with count 0: ibcast0, iallreduce0 (MPI_Ibcast/MPI_Iallreduce
 *    and MPI_Wait), bcast0, allreduce0, each timed over 100 calls and
 *    reported per call (a single call is below the clock's resolution);
 *  - -I (IMB): what IMB-MPI1 does for Bcast, Allreduce, Reduce_scatter,
 *    Allgather, Alltoall, Barrier, Reduce, Gather and Scatter: two barriers, then per call the time
 *    of that call alone followed by an untimed MPI_Barrier (IMB's "-sync
 *    1"), bytes as IMB counts them (MPI_BYTE for bcast/allgather/alltoall,
 *    per-rank block for allgather/alltoall; MPI_FLOAT MPI_SUM with
 *    bytes/4 elements for allreduce and for each rank's block of
 *    reduce_scatter), bcast from root 0. The mean over calls averaged over
 *    ranks is IMB's t_avg.
 *
 * Plain MPI, built against Canal, MPICH and Open MPI by bench/compare.sh.
 * How many iterations run is decided by rank 0 from the warm-up's duration
 * (a time budget per operation) and sent to the others with point-to-point,
 * so that MPICH's 18 ms oversubscribed barrier does not take an hour.
 *
 * Usage: mpiexec -n N ./collbench [-i max_iterations] [-t seconds_per_op] [-w warmup]
 *                                  [-o op[,op...]|all|net|zero] [-I] [-s bytes[,bytes...]]
 *   ops: allreduce barrier allreduce64k bcast1m ibcast0 iallreduce0 bcast0
 *   allreduce0 (default: allreduce,barrier);
 *   with -I: allreduce barrier bcast reduce_scatter allgather alltoall reduce
 *   gather scatter (default all nine) at the -s sizes (default 4,65536)
 * Output: '#' comment lines, then per operation and size
 *   "op bytes ranks iterations median_us mean_us p99_us max_us"
 * (op as -o names it; in the IMB loop as IMB names it: Bcast, Allreduce, ...)
 * where median, mean and p99 are averaged over ranks and max is the largest
 * of any rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OP_ALLREDUCE,
    OP_BARRIER,
    OP_BCAST,
    OP_REDUCE_SCATTER,
    OP_ALLGATHER,
    OP_ALLTOALL,
    OP_REDUCE,
    OP_GATHER,
    OP_SCATTER,
    OP_COUNT,
    /* the back-to-back loop only: ZERO_CALLS calls with count 0 per timed
     * "call" (reported per call), nonblocking ones each followed by MPI_Wait */
    OP_ZERO_IBCAST = OP_COUNT,
    OP_ZERO_IALLREDUCE,
    OP_ZERO_BCAST,
    OP_ZERO_ALLREDUCE,
};
enum { ZERO_CALLS = 100 };
static const char *const op_name[OP_COUNT] = {"allreduce", "barrier", "bcast",
                                              "reduce_scatter", "allgather", "alltoall",
                                              "reduce", "gather", "scatter"};
/* Names printed for the IMB loop: IMB-MPI1's, so the two loops' lines differ. */
static const char *const imb_name[OP_COUNT] = {"Allreduce", "Barrier", "Bcast",
                                               "Reduce_scatter", "Allgather", "Alltoall",
                                               "Reduce", "Gather", "Scatter"};
enum { MAX_SIZES = 32 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Buffers for the largest size, filled so that results can be checked. */
typedef struct {
    char *send, *recv;
    int *counts;
    int nranks, rank;
} bufs_t;

/* One call of op with `bytes` (see the header for what they count); with
 * imb, an untimed barrier follows. Returns nonzero if a result is wrong. */
static int run_once(int op, long bytes, int imb, bufs_t *b, double *t_out)
{
    int bad = 0, n = (int)(bytes / (long)sizeof(float));
    double in = 1.0, out = 0.0, t0;

    if (!imb && op == OP_ALLREDUCE && bytes == 8) {
        t0 = MPI_Wtime();
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        *t_out = MPI_Wtime() - t0;
        return out != (double)b->nranks;
    }
    if (op >= OP_ZERO_IBCAST) {
        MPI_Request rq;
        double dummy = 0;
        t0 = MPI_Wtime();
        for (int i = 0; i < ZERO_CALLS; i++) {
            switch (op) {
            case OP_ZERO_IBCAST:
                MPI_Ibcast(b->recv, 0, MPI_BYTE, 0, MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                break;
            case OP_ZERO_IALLREDUCE:
                MPI_Iallreduce(&in, &dummy, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                break;
            case OP_ZERO_BCAST:
                MPI_Bcast(b->recv, 0, MPI_BYTE, 0, MPI_COMM_WORLD);
                break;
            default:
                MPI_Allreduce(&in, &dummy, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            }
        }
        *t_out = (MPI_Wtime() - t0) / ZERO_CALLS;
        return 0;
    }
    if (op == OP_REDUCE_SCATTER)
        for (int r = 0; r < b->nranks; r++)
            b->counts[r] = n;
    t0 = MPI_Wtime();
    switch (op) {
    case OP_BARRIER:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case OP_ALLREDUCE:
        MPI_Allreduce(b->send, b->recv, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OP_BCAST:
        MPI_Bcast(b->rank == 0 ? b->send : b->recv, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case OP_REDUCE_SCATTER:
        MPI_Reduce_scatter(b->send, b->recv, b->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OP_REDUCE:
        MPI_Reduce(b->send, b->recv, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case OP_GATHER:
        MPI_Gather(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case OP_SCATTER:
        MPI_Scatter(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case OP_ALLTOALL:
        MPI_Alltoall(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
    *t_out = MPI_Wtime() - t0;
    /* The send buffer holds floats of 1.0 (bytes 0x3f800000 repeated). */
    if ((op == OP_ALLREDUCE || op == OP_REDUCE_SCATTER || (op == OP_REDUCE && b->rank == 0)) &&
        n > 0)
        bad = ((float *)b->recv)[n - 1] != (float)b->nranks;
    else if (op == OP_BCAST && bytes > 0)
        bad = memcmp(b->recv, b->send, (size_t)bytes) != 0 && b->rank != 0;
    if (imb)
        MPI_Barrier(MPI_COMM_WORLD);
    return bad;
}

static int parse_list(const char *arg, long *out, int max)
{
    int k = 0;
    char *end;
    while (*arg != '\0') {
        if (k == max)
            return -1;
        out[k] = strtol(arg, &end, 10);
        if (end == arg || out[k] < 0 || out[k] > (1L << 28))
            return -1;
        k++;
        arg = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return -1;
    }
    return k;
}

/* One measurement: an operation at a size. */
typedef struct {
    int op;
    long bytes;
    const char *label; /* the first column of its line */
} item_t;
enum { MAX_ITEMS = OP_COUNT * MAX_SIZES };

/* The back-to-back loop's names: op and bytes (see the header). */
static const struct {
    const char *name;
    int op;
    long bytes;
} plain_ops[] = {{"allreduce", OP_ALLREDUCE, 8},
                 {"barrier", OP_BARRIER, 0},
                 {"allreduce64k", OP_ALLREDUCE, 65536},
                 {"bcast1m", OP_BCAST, 1048576},
                 {"ibcast0", OP_ZERO_IBCAST, 0},
                 {"iallreduce0", OP_ZERO_IALLREDUCE, 0},
                 {"bcast0", OP_ZERO_BCAST, 0},
                 {"allreduce0", OP_ZERO_ALLREDUCE, 0}};
enum { NPLAIN = sizeof plain_ops / sizeof plain_ops[0] };

static int add_plain(const char *w, item_t *items, int *n)
{
    int all = strcmp(w, "all") == 0, net = strcmp(w, "net") == 0, zero = strcmp(w, "zero") == 0;
    int found = 0;
    for (int k = 0; k < NPLAIN; k++)
        if ((net && k < 4) || (all && k < 2) || (zero && k >= 4) ||
            strcmp(w, plain_ops[k].name) == 0) {
            items[(*n)++] = (item_t){plain_ops[k].op, plain_ops[k].bytes, plain_ops[k].name};
            found = 1;
        }
    return found;
}

int main(int argc, char **argv)
{
    long max_iters = 20000, warm = 50, sizes[MAX_SIZES] = {4, 65536};
    double budget = 3.0;
    int rank, nranks, opt, bad = 0, errors = 0, imb = 0, nsizes = 2, want[OP_COUNT] = {0};
    item_t items[MAX_ITEMS];
    int nitems = 0;
    const char *ops = NULL;
    bufs_t b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    while ((opt = getopt(argc, argv, "i:t:w:o:Is:")) != -1) {
        switch (opt) {
        case 'o':
            ops = optarg;
            break;
        case 'I':
            imb = 1;
            break;
        case 's':
            nsizes = parse_list(optarg, sizes, MAX_SIZES);
            if (nsizes < 1)
                bad = 1;
            break;
        case 'i':
            max_iters = strtol(optarg, NULL, 10);
            break;
        case 't':
            budget = strtod(optarg, NULL);
            break;
        case 'w':
            warm = strtol(optarg, NULL, 10);
            break;
        default:
            bad = 1;
        }
    }
    if (imb) {
        if (ops == NULL || strcmp(ops, "all") == 0) {
            for (int k = 0; k < OP_COUNT; k++)
                want[k] = 1;
        } else {
            char list[256], *save = NULL;
            snprintf(list, sizeof list, "%s", ops);
            for (char *w = strtok_r(list, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
                int found = 0;
                for (int k = 0; k < OP_COUNT; k++)
                    if (strcmp(w, op_name[k]) == 0)
                        want[k] = found = 1;
                bad |= !found;
            }
        }
        for (int op = 0; op < OP_COUNT; op++)
            for (int si = 0; want[op] && si < (op != OP_BARRIER ? nsizes : 1); si++)
                items[nitems++] = (item_t){op, op == OP_BARRIER ? 0 : sizes[si], imb_name[op]};
    } else {
        char list[256], *save = NULL;
        snprintf(list, sizeof list, "%s", ops != NULL ? ops : "all");
        for (char *w = strtok_r(list, ",", &save); w != NULL && nitems + NPLAIN <= MAX_ITEMS;
             w = strtok_r(NULL, ",", &save))
            bad |= !add_plain(w, items, &nitems);
    }
    if (bad || max_iters < 20 || max_iters > 10000000 || !(budget > 0) || warm < 1 ||
        warm > 1000000) {
        if (rank == 0)
            fprintf(
                stderr,
                "usage: mpiexec -n N %s [-i max_iterations>=20] [-t seconds] [-w warmup]"
                " [-o op[,op...]|all|net|zero] [-I] [-s bytes[,bytes...]]\n"
                "  ops: allreduce barrier allreduce64k bcast1m ibcast0 iallreduce0 bcast0"
                " allreduce0; with -I: allreduce barrier bcast reduce_scatter allgather alltoall"
                " reduce gather scatter\n",
                argv[0]);
        MPI_Finalize();
        return 2;
    }

    long maxb = 8;
    for (int i = 0; i < nitems; i++)
        if (items[i].bytes > maxb)
            maxb = items[i].bytes;
    b.nranks = nranks;
    b.rank = rank;
    b.send = malloc((size_t)maxb * (size_t)nranks);
    b.recv = malloc((size_t)maxb * (size_t)nranks);
    b.counts = malloc(sizeof(int) * (size_t)nranks);
    double *t = malloc(sizeof(double) * max_iters);
    if (t == NULL || b.send == NULL || b.recv == NULL || b.counts == NULL) {
        fprintf(stderr, "collbench: cannot allocate buffers\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < maxb * nranks / (long)sizeof(float); i++)
        ((float *)b.send)[i] = 1.0f;
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *canal = strstr(lib, "Canal Version:");
        char *name = canal ? canal : lib; /* Canal's string starts "MPICH Version:" for tools */
        name[strcspn(name, "\n")] = 0;
        printf("# collectives (us per call, %s loop); library: %s\n",
               imb ? "IMB: barrier after each call" : "back to back", name);
        printf("# %-13s %8s %6s %10s %12s %12s %12s %12s\n", "op", "bytes", "ranks", "iters",
               "median_us", "mean_us", "p99_us", "max_us");
        fflush(stdout);
    }

    for (int it = 0; it < nitems; it++) {
        int op = items[it].op;
        long bytes = items[it].bytes;
        double dt, t0;
        long n;
        if (imb) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        t0 = MPI_Wtime();
        for (long i = 0; i < warm; i++)
            errors += run_once(op, bytes, imb, &b, &dt);
        /* Rank 0 turns the warm-up's pace into an iteration count for all. */
        if (rank == 0) {
            double per = (MPI_Wtime() - t0) / warm;
            n = per > 0 ? (long)(budget / per) : max_iters;
            if (n > max_iters)
                n = max_iters;
            if (n < 20)
                n = 20;
            for (int r = 1; r < nranks; r++)
                MPI_Send(&n, 1, MPI_LONG, r, 7, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&n, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (imb) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        for (long i = 0; i < n; i++)
            errors += run_once(op, bytes, imb, &b, &t[i]);

        double sum = 0;
        for (long i = 0; i < n; i++)
            sum += t[i];
        qsort(t, n, sizeof t[0], cmp_double);
        double mine[4] = {t[n / 2] * 1e6, sum / n * 1e6, t[(long)(n * 0.99)] * 1e6, t[n - 1] * 1e6};

        /* Collect on rank 0 with point-to-point, not with the collective under test. */
        if (rank == 0) {
            double acc[4] = {mine[0], mine[1], mine[2], mine[3]}, other[4];
            for (int r = 1; r < nranks; r++) {
                MPI_Recv(other, 4, MPI_DOUBLE, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int k = 0; k < 3; k++)
                    acc[k] += other[k];
                if (other[3] > acc[3])
                    acc[3] = other[3];
            }
            printf("%-15s %8ld %6d %10ld %12.3f %12.3f %12.3f %12.3f\n", items[it].label, bytes,
                   nranks, n, acc[0] / nranks, acc[1] / nranks, acc[2] / nranks, acc[3]);
            fflush(stdout);
        } else {
            MPI_Send(mine, 4, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
        }
    }
    if (errors)
        fprintf(stderr, "collbench: rank %d: %d wrong results\n", rank, errors);

    free(t);
    free(b.send);
    free(b.recv);
    free(b.counts);
    MPI_Finalize();
    return errors ? 1 : 0;
}
