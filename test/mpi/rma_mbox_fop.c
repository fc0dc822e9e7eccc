/* MPI_Fetch_and_op, MPI_Compare_and_swap and small MPI_Get_accumulate on
 * an MPI_Win_create window, one at a time with a flush after each (OSU's
 * osu_fop_latency / osu_cas_latency pattern), from every other rank into
 * rank 0 while rank 0 waits in MPI_Barrier, computes without calling MPI,
 * and polls with MPI_Iprobe; then a ring in which every rank is origin and
 * target at once. On one node Canal serves these through the polling
 * target's mailbox and falls back to single-copy otherwise: each must be
 * atomic with every other accumulate on the same location, whichever way
 * it went; the same for 512-byte accumulates, get_accumulates and gets.
 * Checked exactly: every fetched counter value is distinct, the values
 * seen in a phase are consecutive, a get_accumulate's elements move
 * together, gets return what is there, and the final totals. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 300 /* operations of each kind per origin and phase */

#define V 64 /* long longs of the 512-byte operations */

enum { E_FOP, E_CAS, E_GA0, E_GA1, E_RING, E_VEC, E_VEC2 = E_VEC + V, E_CONST = E_VEC2 + V,
       E_COUNT = E_CONST + V };

static int rank, np, errs;

static void fail(const char *what, long long got, long long want)
{
    if (errs++ < 10)
        fprintf(stderr, "rank %d: %s: got %lld, want %lld\n", rank, what, got, want);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* One origin's work toward target t: N of each, the values fetched go to
 * seen_fop / seen_cas (N each). */
static void origin_ops(MPI_Win win, int t, long long *seen_fop, long long *seen_cas)
{
    long long one = 1, old, guess = 0, ga_in[2] = {1, 2}, ga_out[2];
    long long ones[V], vec[V];

    for (int k = 0; k < V; k++)
        ones[k] = 1;
    for (int i = 0; i < N; i++) {
        MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, t, E_FOP, MPI_SUM, win);
        MPI_Win_flush(t, win);
        seen_fop[i] = old;
        /* increment by compare-and-swap: retry with what was there */
        for (;;) {
            long long next = guess + 1;
            MPI_Compare_and_swap(&next, &guess, &old, MPI_LONG_LONG, t, E_CAS, win);
            MPI_Win_flush(t, win);
            if (old == guess)
                break;
            guess = old;
        }
        seen_cas[i] = guess;
        guess++;
        MPI_Get_accumulate(ga_in, 2, MPI_LONG_LONG, ga_out, 2, MPI_LONG_LONG, t, E_GA0, 2,
                           MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(t, win);
        if (ga_out[1] != 2 * ga_out[0])
            fail("get_accumulate fetched a torn pair (element 1 vs 2 x element 0)", ga_out[1],
                 2 * ga_out[0]);
        /* 512 bytes: an accumulate, a get_accumulate whose old vector must be
         * uniform (every one adds 1 to all of it at once), a get of constants */
        MPI_Accumulate(ones, V, MPI_LONG_LONG, t, E_VEC, V, MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(t, win);
        MPI_Get_accumulate(ones, V, MPI_LONG_LONG, vec, V, MPI_LONG_LONG, t, E_VEC2, V,
                           MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(t, win);
        for (int k = 1; k < V; k++)
            if (vec[k] != vec[0]) {
                fail("512-byte get_accumulate fetched a torn vector", vec[k], vec[0]);
                break;
            }
        MPI_Get(vec, V, MPI_LONG_LONG, t, E_CONST, V, MPI_LONG_LONG, win);
        MPI_Win_flush(t, win);
        for (int k = 0; k < V; k++)
            if (vec[k] != 1000LL * t + k) {
                fail("512-byte get", vec[k], 1000LL * t + k);
                break;
            }
    }
}

/* The values every origin fetched from one counter in a phase: distinct,
 * base..base+total-1. */
static void check_seen(const char *what, long long *mine, int n, long long base, int root,
                       MPI_Comm comm)
{
    int size;
    long long *all = NULL;

    MPI_Comm_size(comm, &size);
    if (rank == root)
        all = malloc(sizeof *all * (size_t)n * (size_t)size);
    MPI_Gather(mine, n, MPI_LONG_LONG, all, n, MPI_LONG_LONG, root, comm);
    if (rank != root)
        return;
    /* the root's own slots hold -1 when it did not take part */
    int k = 0;
    for (int i = 0; i < n * size; i++)
        if (all[i] >= 0)
            all[k++] = all[i];
    qsort(all, (size_t)k, sizeof *all, cmp_ll);
    for (int i = 0; i < k; i++)
        if (all[i] != base + i) {
            fail(what, all[i], base + i);
            break;
        }
    free(all);
}

static volatile double sink;

int main(int argc, char **argv)
{
    long long *mem, *seen_fop, *seen_cas;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mem = calloc(E_COUNT, sizeof *mem);
    for (int k = 0; k < V; k++)
        mem[E_CONST + k] = 1000LL * rank + k;
    seen_fop = malloc(sizeof *seen_fop * N);
    seen_cas = malloc(sizeof *seen_cas * N);
    MPI_Win_create(mem, E_COUNT * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* Phases 0-2: ranks 1.. into rank 0, which waits in MPI_Barrier,
     * computes, then polls. */
    for (int phase = 0; phase < 3; phase++) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            seen_fop[i] = seen_cas[i] = -1;
        if (rank == 0) {
            if (phase == 1) { /* computes a while, no MPI call */
                double x = 1.0;
                for (long i = 0; i < 20000000; i++)
                    x = x * 1.0000001 + 1e-9;
                sink = x;
            } else if (phase == 2) { /* polls until every origin said done */
                int done = 0, flag;
                while (done < np - 1) {
                    MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                    if (flag) {
                        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                        done++;
                    }
                }
            }
        } else {
            MPI_Win_lock_all(0, win);
            origin_ops(win, 0, seen_fop, seen_cas);
            MPI_Win_unlock_all(win);
            if (phase == 2)
                MPI_Send(NULL, 0, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* phase 0: rank 0 waits here */
        check_seen("fetch_and_op values (sorted) not consecutive", seen_fop, N,
                   (long long)phase * N * (np - 1), 0, MPI_COMM_WORLD);
        check_seen("compare_and_swap values (sorted) not consecutive", seen_cas, N,
                   (long long)phase * N * (np - 1), 0, MPI_COMM_WORLD);
    }
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Win_unlock(0, win);
    if (rank == 0) {
        long long want = 3LL * N * (np - 1);
        if (mem[E_FOP] != want)
            fail("fetch_and_op total", mem[E_FOP], want);
        if (mem[E_CAS] != want)
            fail("compare_and_swap total", mem[E_CAS], want);
        if (mem[E_GA0] != want || mem[E_GA1] != 2 * want)
            fail("get_accumulate totals (element 0)", mem[E_GA0], want);
        for (int k = 0; k < V; k++)
            if (mem[E_VEC + k] != want || mem[E_VEC2 + k] != want) {
                fail("512-byte accumulate / get_accumulate totals", mem[E_VEC + k], want);
                break;
            }
    }

    /* Ring: every rank fetch-and-adds into its right neighbour while its
     * left neighbour does so into it (each rank origin and polling target). */
    {
        int right = (rank + 1) % np;
        long long one = 1, old;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < N; i++) {
            MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, right, E_RING, MPI_SUM, win);
            MPI_Win_flush(right, win);
            if (old < 0 || old >= N)
                fail("ring fetch_and_op value out of range", old, i);
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        if (mem[E_RING] != N)
            fail("ring total", mem[E_RING], N);
        MPI_Win_unlock(rank, win);
    }

    MPI_Win_free(&win);
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    free(mem);
    free(seen_fop);
    free(seen_cas);
    MPI_Finalize();
    return errs != 0;
}
