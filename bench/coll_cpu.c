/*
 * What one collective costs the machine rather than how long it takes:
 * N back-to-back calls of one collective at one size, then per call the
 * CPU time (user + system) summed over all ranks and the context switches
 * (voluntary + involuntary) summed over all ranks, besides the wall time
 * (the slowest rank's). With more ranks than CPUs on a node loaded by
 * other programs, wall times of the same cell differ by 10x from run to
 * run; the CPU time and the switches a call needs move far less, and they
 * are what decides how an algorithm fares when processes wait for a time
 * slice (bench/coll_cpu_alt.sh alternates algorithms and libraries with it,
 * doc/bench.md "Collectives on 4 and 8 ranks by CPU time").
 *
 * Plain MPI (the same source for Canal, MPICH and Open MPI); MPI_BYTE data,
 * MPI_FLOAT MPI_SUM for the reductions (bytes / 4 elements: the whole
 * vector for allreduce and reduce, each rank's block for reduce_scatter(_block)),
 * root 0, a block of `bytes` per rank for the v collectives.
 *
 * Usage: mpiexec -n P ./coll_cpu OP BYTES ITERATIONS
 *   OP: allgather allgatherv alltoall alltoallv bcast gather gatherv scatter scatterv
 *       reduce_scatter reduce_scatter_block reduce reduce_rot (the root moves every
 *       call, as in IMB) allreduce barrier (BYTES ignored)
 * Output (rank 0): "OP BYTES npP wall_us W cpu_us C vcsw V ivcsw I"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double usec(struct timeval t)
{
    return (double)t.tv_sec * 1e6 + (double)t.tv_usec;
}

static int call(const char *op, size_t n, int p, char *sb, char *rb, int *cnt, int *dsp)
{
    int c = (int)n, f = (int)(n / 4);
    MPI_Comm w = MPI_COMM_WORLD;
    if (!strcmp(op, "allgather"))
        return MPI_Allgather(sb, c, MPI_BYTE, rb, c, MPI_BYTE, w);
    if (!strcmp(op, "allgatherv"))
        return MPI_Allgatherv(sb, c, MPI_BYTE, rb, cnt, dsp, MPI_BYTE, w);
    if (!strcmp(op, "alltoall"))
        return MPI_Alltoall(sb, c, MPI_BYTE, rb, c, MPI_BYTE, w);
    if (!strcmp(op, "alltoallv"))
        return MPI_Alltoallv(sb, cnt, dsp, MPI_BYTE, rb, cnt, dsp, MPI_BYTE, w);
    if (!strcmp(op, "bcast"))
        return MPI_Bcast(rb, c, MPI_BYTE, 0, w);
    if (!strcmp(op, "gather"))
        return MPI_Gather(sb, c, MPI_BYTE, rb, c, MPI_BYTE, 0, w);
    if (!strcmp(op, "scatter"))
        return MPI_Scatter(sb, c, MPI_BYTE, rb, c, MPI_BYTE, 0, w);
    if (!strcmp(op, "gatherv"))
        return MPI_Gatherv(sb, c, MPI_BYTE, rb, cnt, dsp, MPI_BYTE, 0, w);
    if (!strcmp(op, "scatterv"))
        return MPI_Scatterv(sb, cnt, dsp, MPI_BYTE, rb, c, MPI_BYTE, 0, w);
    if (!strcmp(op, "reduce_scatter")) {
        for (int k = 0; k < p; k++)
            cnt[k] = f;
        return MPI_Reduce_scatter(sb, rb, cnt, MPI_FLOAT, MPI_SUM, w);
    }
    if (!strcmp(op, "reduce_scatter_block"))
        return MPI_Reduce_scatter_block(sb, rb, f, MPI_FLOAT, MPI_SUM, w);
    if (!strcmp(op, "reduce"))
        return MPI_Reduce(sb, rb, f, MPI_FLOAT, MPI_SUM, 0, w);
    if (!strcmp(op, "reduce_rot")) { /* the root moves every call, as in IMB's Reduce */
        static int root;
        root = (root + 1) % p;
        return MPI_Reduce(sb, rb, f, MPI_FLOAT, MPI_SUM, root, w);
    }
    if (!strcmp(op, "allreduce"))
        return MPI_Allreduce(sb, rb, f, MPI_FLOAT, MPI_SUM, w);
    if (!strcmp(op, "barrier"))
        return MPI_Barrier(w);
    return -1;
}

int main(int argc, char **argv)
{
    int p, me, iters;
    size_t n;
    char *sb, *rb;
    int *cnt, *dsp;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc != 4) {
        if (me == 0)
            fprintf(stderr, "usage: coll_cpu OP BYTES ITERATIONS\n");
        MPI_Finalize();
        return 2;
    }
    n = strtoul(argv[2], NULL, 0);
    iters = atoi(argv[3]);
    sb = calloc(n * (size_t)p + 64, 1);
    rb = calloc(n * (size_t)p + 64, 1);
    cnt = malloc(sizeof(int) * (size_t)p);
    dsp = malloc(sizeof(int) * (size_t)p);
    if (sb == NULL || rb == NULL || cnt == NULL || dsp == NULL || iters < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int pass = 0; pass < 2; pass++) { /* a warm-up of 20 calls, then the measured N */
        int it = pass == 0 ? 20 : iters;
        struct rusage r0, r1;
        double t, tmax, v[3], sum[3];
        for (int i = 0; i < p; i++)
            cnt[i] = (int)n, dsp[i] = (int)((size_t)i * n);
        MPI_Barrier(MPI_COMM_WORLD);
        getrusage(RUSAGE_SELF, &r0);
        t = MPI_Wtime();
        for (int i = 0; i < it; i++)
            if (call(argv[1], n, p, sb, rb, cnt, dsp) != MPI_SUCCESS) {
                if (me == 0)
                    fprintf(stderr, "coll_cpu: unknown or failed operation '%s'\n", argv[1]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        t = MPI_Wtime() - t;
        getrusage(RUSAGE_SELF, &r1);
        v[0] = usec(r1.ru_utime) - usec(r0.ru_utime) + usec(r1.ru_stime) - usec(r0.ru_stime);
        v[1] = (double)(r1.ru_nvcsw - r0.ru_nvcsw);
        v[2] = (double)(r1.ru_nivcsw - r0.ru_nivcsw);
        MPI_Reduce(v, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (pass == 1 && me == 0)
            printf("%s %zu np%d wall_us %.1f cpu_us %.1f vcsw %.2f ivcsw %.2f\n", argv[1], n, p,
                   tmax * 1e6 / it, sum[0] / it, sum[1] / it, sum[2] / it);
    }
    free(sb);
    free(rb);
    free(cnt);
    free(dsp);
    MPI_Finalize();
    return 0;
}
