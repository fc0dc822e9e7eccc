/*
 * Atomicity of accumulates: every rank hammers one counter with
 * MPI_Fetch_and_op (the fetched values must be exactly 0..size*ITERS-1), a
 * spin lock built from MPI_Compare_and_swap protects a non-atomic
 * get-increment-put, and MPI_Get_accumulate with MPI_SUM, MPI_NO_OP and
 * MPI_REPLACE; on both window kinds.
 */
#include "rma_util.h"

enum { ITERS = 50, CAS_ITERS = 10, N = 8 };

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static void run(int flavor, int rank, int size)
{
    long *mem, fetched[ITERS];
    MPI_Win win;
    const int n = 4 + N;

    mem = rma_win_make(flavor, n, sizeof(long), &win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. fetch_and_op counter at rank 0, slot 0 */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ITERS; i++) {
        long one = 1;
        MPI_Fetch_and_op(&one, &fetched[i], MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    {
        long *all = rank == 0 ? malloc(sizeof(long) * ITERS * size) : NULL;
        MPI_Gather(fetched, ITERS, MPI_LONG, all, ITERS, MPI_LONG, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            qsort(all, (size_t)ITERS * size, sizeof(long), cmp_long);
            for (long i = 0; i < (long)ITERS * size; i++)
                if (all[i] != i) {
                    CHECK(0, "flavor %d: fetched values are not 0..%d (at %ld: %ld)", flavor,
                          ITERS * size - 1, i, all[i]);
                    break;
                }
            free(all);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. a CAS spin lock at rank 0 slot 1 guarding slot 2 */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < CAS_ITERS; i++) {
        long zero = 0, me = rank + 1, old = -1, v = -1;
        do {
            MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG, 0, 1, win);
            MPI_Win_flush(0, win);
        } while (old != 0);
        MPI_Get(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        MPI_Fetch_and_op(&zero, &old, MPI_LONG, 0, 1, MPI_REPLACE, win);
        MPI_Win_flush(0, win);
        CHECK(old == me, "flavor %d: the lock was held by %ld, not by me", flavor, old);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(mem[2] == (long)size * CAS_ITERS,
              "flavor %d: CAS-protected counter %ld, expected %ld", flavor, mem[2],
              (long)size * CAS_ITERS);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. get_accumulate SUM on an array at the right neighbour, then NO_OP and REPLACE */
    {
        int right = (rank + 1) % size;
        long add[N], res[N], res2[N];
        for (int i = 0; i < N; i++)
            add[i] = i + 1;
        MPI_Win_fence(0, win);
        MPI_Get_accumulate(add, N, MPI_LONG, res, N, MPI_LONG, right, 4, N, MPI_LONG, MPI_SUM, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++) {
            CHECK(res[i] == 0, "flavor %d: get_accumulate old [%d] = %ld", flavor, i, res[i]);
            CHECK(mem[4 + i] == i + 1, "flavor %d: get_accumulate new [%d] = %ld", flavor, i,
                  mem[4 + i]);
        }
        MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, res, N, MPI_LONG, right, 4, N, MPI_LONG,
                           MPI_NO_OP, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++)
            CHECK(res[i] == i + 1, "flavor %d: NO_OP read [%d] = %ld", flavor, i, res[i]);
        for (int i = 0; i < N; i++)
            add[i] = -rank;
        MPI_Get_accumulate(add, N, MPI_LONG, res2, N, MPI_LONG, right, 4, N, MPI_LONG, MPI_REPLACE,
                           win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++) {
            CHECK(res2[i] == i + 1, "flavor %d: REPLACE old [%d] = %ld", flavor, i, res2[i]);
            CHECK(mem[4 + i] == -((rank + size - 1) % size), "flavor %d: REPLACE new [%d] = %ld",
                  flavor, i, mem[4 + i]);
        }
        long one = 5, got = 0;
        MPI_Fetch_and_op(&one, &got, MPI_LONG, right, 3, MPI_NO_OP, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        CHECK(got == 0, "flavor %d: fetch_and_op NO_OP read %ld", flavor, got);
    }
    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    return rma_run_flavors(&argc, &argv, run);
}
