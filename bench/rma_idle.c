/* What an idle window costs ranks that compute: every rank runs the same
 * compute loop (no MPI calls inside) with no window, and with an
 * MPI_Win_create window of user memory that nobody touches (in Canal, a
 * window whose targets need the RMA progress thread, which then runs),
 * alternating the two (A B, B A, ...) so that the machine's moods hit both
 * alike. Prints the median over rounds of the slowest rank's time for each,
 * and their ratio (with window / without: 1.00 = free); and, less exposed
 * to the noise of a shared machine, the CPU time the process's other
 * threads used while the main thread computed (getrusage: process minus
 * this thread), per second of compute, as a percentage of one core.
 *   mpiexec -n 4 ./rma_idle [-r ROUNDS] [-w WORK]
 * Run it with more ranks than cores to see the oversubscribed case. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

static double cpu(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

/* Wall time of the loop; *others_out: CPU seconds of the other threads. */
static double compute(long work, double *others_out)
{
    double p0 = cpu(RUSAGE_SELF), m0 = cpu(RUSAGE_THREAD);
    double t0 = MPI_Wtime(), x = 1.0, t;
    for (long i = 0; i < work; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    t = MPI_Wtime() - t0;
    *others_out = (cpu(RUSAGE_SELF) - p0) - (cpu(RUSAGE_THREAD) - m0);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int rank, np, rounds = 11;
    long work = 20000000;
    double with[64], without[64], others_with = 0, others_without = 0, wall_with = 0,
                                    wall_without = 0, o;
    int nw = 0, nwo = 0;
    char *mem = calloc(1, 4096);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-w") && i + 1 < argc)
            work = atol(argv[++i]);
    }
    if (rounds < 1 || rounds > 32)
        rounds = 11;
    compute(work / 4, &o); /* warm-up */
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            int use_win = (r + k) % 2;
            MPI_Win win = MPI_WIN_NULL;
            double t, tmax;
            if (use_win)
                MPI_Win_create(mem, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Barrier(MPI_COMM_WORLD);
            t = compute(work, &o);
            if (use_win) {
                others_with += o;
                wall_with += t;
            } else {
                others_without += o;
                wall_without += t;
            }
            MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (use_win) {
                MPI_Win_free(&win);
                with[nw++] = tmax;
            } else {
                without[nwo++] = tmax;
            }
        }
    }
    {
        double mine[2] = {others_without / wall_without, others_with / wall_with}, most[2];
        MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double a = median(without, nwo), b = median(with, nw);
            printf("ranks %d, %d rounds: compute without window %.4f s, with idle window %.4f s, "
                   "ratio %.3f; other threads' CPU per compute second (most of any rank): "
                   "without %.3f%%, with %.3f%%\n",
                   np, rounds, a, b, b / a, 100 * most[0], 100 * most[1]);
        }
    }
    MPI_Finalize();
    free(mem);
    return 0;
}
