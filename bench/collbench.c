/*
 * Latency of MPI_Allreduce (8 bytes: one double, MPI_SUM) and MPI_Barrier,
 * each call timed on its own, so that the median (the usual cost) and the
 * mean (which the outliers pull up) can both be printed. Oversubscribed runs
 * (4 ranks on 2 cores) are where they differ: a library that spins without
 * yielding makes every call wait for a time slice, one that yields late
 * shows rare millisecond outliers.
 *
 * Plain MPI, built against Canal, MPICH and Open MPI by bench/compare.sh.
 * How many iterations run is decided by rank 0 from the warm-up's duration
 * (a time budget per operation) and sent to the others with point-to-point,
 * so that MPICH's 18 ms oversubscribed barrier does not take an hour.
 *
 * Usage: mpiexec -n N ./collbench [-i max_iterations] [-t seconds_per_op] [-w warmup]
 *                                  [-o OP[,OP...]]
 * OP: allreduce (8 B), barrier, allreduce64k (8192 doubles), bcast1m (1 MiB
 * from rank 0), all (the first two, the default), net (all four; what
 * bench/netem.sh measures across namespace hosts).
 * Output: '#' comment lines, then per operation
 *   "op bytes ranks iterations median_us mean_us p99_us max_us"
 * where median, mean and p99 are averaged over ranks and max is the largest
 * of any rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OP_ALLREDUCE, OP_BARRIER, OP_ALLREDUCE64K, OP_BCAST1M, OP_COUNT, OP_CLASSIC = 2 };
static const char *const op_name[OP_COUNT] = {"allreduce", "barrier", "allreduce64k", "bcast1m"};
static const int op_bytes[OP_COUNT] = {8, 0, 65536, 1048576};
static double *big_in, *big_out; /* allreduce64k: 8192 doubles */
static unsigned char *bc_buf;    /* bcast1m */
static long bc_round;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One call of op; returns nonzero if an allreduce result is wrong. */
static int run_once(int op, int nranks, double *t_out)
{
    double in = 1.0, out = 0.0;
    int rank, bad = 0;
    double t0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (op == OP_BCAST1M)
        memset(bc_buf, rank == 0 ? (int)(bc_round & 0xff) : 0xee, op_bytes[op]);
    t0 = MPI_Wtime();
    switch (op) {
    case OP_ALLREDUCE: MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case OP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case OP_ALLREDUCE64K:
        MPI_Allreduce(big_in, big_out, op_bytes[op] / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OP_BCAST1M: MPI_Bcast(bc_buf, op_bytes[op], MPI_BYTE, 0, MPI_COMM_WORLD); break;
    }
    *t_out = MPI_Wtime() - t0;
    if (op == OP_ALLREDUCE)
        bad = out != (double)nranks;
    else if (op == OP_ALLREDUCE64K)
        bad = big_out[0] != (double)nranks || big_out[op_bytes[op] / 8 - 1] != (double)nranks;
    else if (op == OP_BCAST1M)
        bad = bc_buf[0] != (unsigned char)(bc_round & 0xff) ||
              bc_buf[op_bytes[op] - 1] != (unsigned char)(bc_round & 0xff);
    bc_round++;
    return bad;
}

int main(int argc, char **argv)
{
    long max_iters = 20000, warm = 50;
    double budget = 3.0;
    int rank, nranks, opt, bad = 0, errors = 0;
    int want[OP_COUNT] = {1, 1, 0, 0}; /* "all": the two small ones */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    while ((opt = getopt(argc, argv, "i:t:w:o:")) != -1) {
        switch (opt) {
        case 'o': /* a comma-separated list */
            memset(want, 0, sizeof want);
            for (char *w = strtok(optarg, ","); w != NULL; w = strtok(NULL, ",")) {
                int found = 0;
                for (int k = 0; k < OP_COUNT; k++)
                    if (strcmp(w, op_name[k]) == 0 || strcmp(w, "net") == 0 ||
                        (k < OP_CLASSIC && strcmp(w, "all") == 0))
                        want[k] = found = 1;
                if (!found)
                    bad = 1;
            }
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
    if (bad || max_iters < 20 || max_iters > 10000000 || !(budget > 0) || warm < 1 ||
        warm > 1000000) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n N %s [-i max_iterations>=20] [-t seconds] [-w warmup]"
                    " [-o OP[,OP...]]\n  OP: allreduce barrier allreduce64k bcast1m,"
                    " all (the first two), net (all four)\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }

    double *t = malloc(sizeof(double) * max_iters);
    big_in = malloc(65536);
    big_out = malloc(65536);
    bc_buf = malloc(1048576);
    if (big_in != NULL)
        for (int i = 0; i < 8192; i++)
            big_in[i] = 1.0;
    if (t == NULL || big_in == NULL || big_out == NULL || bc_buf == NULL) {
        fprintf(stderr, "collbench: cannot allocate %ld timings\n", max_iters);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        char *canal = strstr(lib, "Canal Version:");
        char *name = canal ? canal : lib; /* Canal's string starts "MPICH Version:" for tools */
        name[strcspn(name, "\n")] = 0;
        printf("# collectives (us per call); library: %s\n", name);
        printf("# %-9s %6s %6s %10s %12s %12s %12s %12s\n", "op", "bytes", "ranks", "iters",
               "median_us", "mean_us", "p99_us", "max_us");
        fflush(stdout);
    }

    for (int op = 0; op < OP_COUNT; op++) {
        if (!want[op])
            continue;
        double dt, t0 = MPI_Wtime();
        long n;
        for (long i = 0; i < warm; i++)
            errors += run_once(op, nranks, &dt);
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

        for (long i = 0; i < n; i++)
            errors += run_once(op, nranks, &t[i]);

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
            printf("%-11s %6d %6d %10ld %12.3f %12.3f %12.3f %12.3f\n", op_name[op], op_bytes[op],
                   nranks, n, acc[0] / nranks, acc[1] / nranks, acc[2] / nranks, acc[3]);
            fflush(stdout);
        } else {
            MPI_Send(mine, 4, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
        }
    }
    if (errors)
        fprintf(stderr, "collbench: rank %d: %d wrong results\n", rank, errors);

    free(t);
    free(big_in);
    free(big_out);
    free(bc_buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
