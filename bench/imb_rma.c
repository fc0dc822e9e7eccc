/* The IMB-RMA measurements issue 26 quotes, on an MPI_Win_create window
 * over MPI_Alloc_mem memory (as IMB-RMA allocates all its buffers; -m:
 * calloc'ed memory instead), 2 ranks: rank 0 is the origin, rank 1 the
 * passive target (in MPI_Barrier meanwhile).
 *   unidir_get  SIZE us   IMB-RMA Unidir_get, non-aggregate: MPI_Win_lock
 *                         (shared) once, then get + MPI_Win_flush per op
 *   unidir_get_agg SIZE us  the same, aggregate: one flush per batch
 *   unidir_put  SIZE us   Unidir_put, non-aggregate
 *   unidir_put_agg SIZE us
 *   put_local   SIZE us   IMB-RMA Put_local: put + MPI_Win_flush_local per op
 *   acc_agg     SIZE us   IMB-RMA Accumulate (MPI_FLOAT, MPI_SUM),
 *                         aggregate: accumulates, one flush per batch
 *   acc         SIZE us   the same, non-aggregate
 *   zero_put / zero_get / zero_acc 0 us   a 0-byte call under MPI_Win_lock_all
 *   null_put / null_acc 8 us   MPI_PROC_NULL as target (8 bytes of origin)
 *   get_busy / acc_busy 8 us  unidir_get / acc non-aggregate with the target
 *                         computing (no MPI call) instead of in MPI_Barrier:
 *                         only with -c; rank 0 ends the target's loop with a
 *                         put of a flag, so this needs a library whose puts
 *                         complete without the target (Canal's single copy;
 *                         it hangs where a created window uses active messages)
 * Each line is the median of -b batches (default 5); -i SCALE multiplies
 * the iteration counts. The accumulated sums are checked at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (1 << 22)

static int rank;
static double scale = 1.0;
static int nbatch = 5;

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

static int iters_for(int size)
{
    int n = 2000;
    if (size > 4096)
        n = 400;
    if (size > 65536)
        n = 40;
    if (size > 1048576)
        n = 10;
    n = (int)(n * scale);
    return n < 4 ? 4 : n;
}

enum { K_GET, K_PUT, K_ACC, K_ZPUT, K_ZGET, K_ZACC, K_NPUT, K_NACC };

static long acc_calls;
static int busy;          /* -c: the target computes during the batch */
static int use_malloc;    /* -m: window memory from calloc, not MPI_Alloc_mem */
static float *target_mem; /* rank 1's window memory; the last word is the flag */
static char *getbuf; /* gets land here, so that buf keeps its 1.0f for puts and sums */

/* us per operation (rank 0's time, broadcast) */
static double batch(MPI_Win win, char *buf, int kind, int agg, int size, int iters)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && busy) {
        volatile int *flag = (volatile int *)((char *)target_mem + MAX_SIZE - 4);
        double x = 1.0;
        while (*flag == 0)
            x = x * 1.0000001 + 1e-9; /* computes, no MPI call */
        *flag = 0;
        if (x < 0)
            printf("%g\n", x);
    }
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            switch (kind) {
            case K_GET:
                MPI_Get(getbuf, size, MPI_BYTE, 1, 0, size, MPI_BYTE, win);
                break;
            case K_PUT:
                MPI_Put(buf, size, MPI_BYTE, 1, 0, size, MPI_BYTE, win);
                break;
            case K_ACC:
                MPI_Accumulate(buf, size / 4, MPI_FLOAT, 1, 0, size / 4, MPI_FLOAT, MPI_SUM, win);
                break;
            case K_ZPUT:
                MPI_Put(buf, 0, MPI_BYTE, 1, 0, 0, MPI_BYTE, win);
                break;
            case K_ZGET:
                MPI_Get(getbuf, 0, MPI_BYTE, 1, 0, 0, MPI_BYTE, win);
                break;
            case K_ZACC:
                MPI_Accumulate(buf, 0, MPI_FLOAT, 1, 0, 0, MPI_FLOAT, MPI_SUM, win);
                break;
            case K_NPUT:
                MPI_Put(buf, 8, MPI_BYTE, MPI_PROC_NULL, 0, 8, MPI_BYTE, win);
                break;
            case K_NACC:
                MPI_Accumulate(buf, 2, MPI_FLOAT, MPI_PROC_NULL, 0, 2, MPI_FLOAT, MPI_SUM, win);
                break;
            }
            if (agg == 2)
                MPI_Win_flush_local(1, win);
            else if (!agg)
                MPI_Win_flush(1, win);
        }
        if (agg)
            MPI_Win_flush(1, win); /* (put_local: remote completion once) */
        t = (MPI_Wtime() - t0) * 1e6 / iters;
        if (busy) {
            int one = 1;
            MPI_Put(&one, 1, MPI_INT, 1, MAX_SIZE - 4, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
        if (kind == K_ACC)
            acc_calls += iters;
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static void run(const char *name, MPI_Win win, char *buf, int kind, int agg, int size)
{
    double v[64];
    int iters = iters_for(size);
    if (kind >= K_ZPUT)
        iters *= 10;
    batch(win, buf, kind, agg, size, iters / 10 + 1); /* warm-up */
    for (int b = 0; b < nbatch; b++)
        v[b] = batch(win, buf, kind, agg, size, iters);
    if (rank == 0)
        printf("%-15s %8d %12.4f\n", name, size, median(v, nbatch));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int np;
    static const int sizes[] = {8, 512, 4096, 65536, 1048576, MAX_SIZE};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    float *mem, *buf;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-i") && i + 1 < argc)
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            nbatch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c"))
            busy = 1;
        else if (!strcmp(argv[i], "-m"))
            use_malloc = 1;
    }
    if (nbatch < 1 || nbatch > 64)
        nbatch = 5;
    if (np != 2) {
        if (rank == 0)
            fprintf(stderr, "imb_rma: needs exactly 2 ranks, got %d\n", np);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (use_malloc) {
        mem = calloc(MAX_SIZE / 4, sizeof *mem);
        buf = malloc(MAX_SIZE);
        getbuf = malloc(MAX_SIZE);
    } else if (MPI_Alloc_mem(MAX_SIZE, MPI_INFO_NULL, &mem) != MPI_SUCCESS ||
               MPI_Alloc_mem(MAX_SIZE, MPI_INFO_NULL, &buf) != MPI_SUCCESS ||
               MPI_Alloc_mem(MAX_SIZE, MPI_INFO_NULL, &getbuf) != MPI_SUCCESS) {
        mem = buf = NULL;
    } else {
        memset(mem, 0, MAX_SIZE);
    }
    if (mem == NULL || buf == NULL || getbuf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < MAX_SIZE / 4; i++)
        buf[i] = 1.0f;
    MPI_Win_create(mem, MAX_SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    target_mem = mem;
    if (busy) {
        run("get_busy", win, (char *)buf, K_GET, 0, 8);
        busy = 0;
        MPI_Win_fence(0, win);
        memset(mem, 0, MAX_SIZE);
        MPI_Win_fence(0, win);
        busy = 1;
        run("acc_busy", win, (char *)buf, K_ACC, 0, 8);
        goto out;
    }

    for (int k = 0; k < nsizes; k++)
        run("unidir_get", win, (char *)buf, K_GET, 0, sizes[k]);
    for (int k = 0; k < nsizes; k++)
        run("unidir_get_agg", win, (char *)buf, K_GET, 1, sizes[k]);
    for (int k = 0; k < nsizes; k++)
        run("unidir_put", win, (char *)buf, K_PUT, 0, sizes[k]);
    for (int k = 0; k < nsizes; k++)
        run("unidir_put_agg", win, (char *)buf, K_PUT, 1, sizes[k]);
    for (int k = 0; k < nsizes; k++)
        run("put_local", win, (char *)buf, K_PUT, 2, sizes[k]);
    /* the puts wrote 1.0f everywhere: start the sums from 0 */
    MPI_Win_fence(0, win);
    memset(mem, 0, MAX_SIZE);
    MPI_Win_fence(0, win);
    acc_calls = 0;
    run("acc_agg", win, (char *)buf, K_ACC, 1, 8); /* only element 0 and 1 grow here */
    for (int k = 1; k < nsizes; k++)
        run("acc_agg", win, (char *)buf, K_ACC, 1, sizes[k]);
    for (int k = 0; k < nsizes - 1; k++)
        run("acc", win, (char *)buf, K_ACC, 0, sizes[k]);
    run("zero_put", win, (char *)buf, K_ZPUT, 1, 0);
    run("zero_get", win, (char *)buf, K_ZGET, 1, 0);
    run("zero_acc", win, (char *)buf, K_ZACC, 1, 0);
    run("null_put", win, (char *)buf, K_NPUT, 1, 8);
    run("null_acc", win, (char *)buf, K_NACC, 1, 8);
    /* Check: element 0 was hit by every accumulate (all sizes >= 8 B). */
    MPI_Bcast(&acc_calls, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        float got = mem[0];
        MPI_Win_unlock(1, win);
        if ((long)got != acc_calls && acc_calls < (1L << 24))
            fprintf(stderr, "imb_rma: accumulate check FAILED: %.0f, want %ld\n", got, acc_calls);
    }
out:
    MPI_Win_free(&win);
    if (use_malloc) {
        free(mem);
        free(buf);
        free(getbuf);
    } else {
        MPI_Free_mem(mem);
        MPI_Free_mem(buf);
        MPI_Free_mem(getbuf);
    }
    MPI_Finalize();
    return 0;
}
