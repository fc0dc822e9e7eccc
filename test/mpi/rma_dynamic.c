/*
 * Dynamic windows: MPI_Win_create_dynamic, attach, exchange addresses,
 * put/get/accumulate at the peers' addresses in fence and lock epochs,
 * attach a second region and detach the first; an operation at detached
 * memory is refused (MPI_ERR_RMA_RANGE): at the call when the window is
 * direct, by the target and reported at the origin's next
 * synchronization otherwise; attach errors and the attributes
 * of a dynamic window.
 */
#include "mtest.h"

#include <stdint.h>

enum { N = 32 };

int main(int argc, char **argv)
{
    int rank, size, err;
    MPI_Win win;
    MPI_Aint *addr, *addr2;
    int *a, *b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    a = malloc(sizeof(int) * N);
    b = malloc(sizeof(int) * N);
    addr = malloc(sizeof(MPI_Aint) * size);
    addr2 = malloc(sizeof(MPI_Aint) * size);
    for (int i = 0; i < N; i++)
        a[i] = b[i] = -1;

    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, a, sizeof(int) * N);
    MPI_Aint mine = (MPI_Aint)(uintptr_t)a;
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);

    /* fence epoch: put into the right neighbour's a[] */
    int v[N];
    for (int i = 0; i < N; i++)
        v[i] = rank * 10 + i;
    MPI_Win_fence(0, win);
    MPI_Put(v, N, MPI_INT, right, addr[right], N, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++)
        CHECK(a[i] == left * 10 + i, "fence put [%d] = %d, expected %d", i, a[i], left * 10 + i);

    /* lock epoch: accumulate then get, at an offset inside the region */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    int one = 1000, got = 0;
    MPI_Accumulate(&one, 1, MPI_INT, right, addr[right] + 3 * sizeof(int), 1, MPI_INT, MPI_SUM,
                   win);
    MPI_Win_flush(right, win);
    MPI_Get(&got, 1, MPI_INT, right, addr[right] + 3 * sizeof(int), 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    CHECK(got == rank * 10 + 3 + 1000, "lock get after accumulate: %d", got);

    /* attach b, detach a */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_attach(win, b, sizeof(int) * N);
    mine = (MPI_Aint)(uintptr_t)b;
    MPI_Allgather(&mine, 1, MPI_AINT, addr2, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_detach(win, a);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Put(v, N, MPI_INT, right, addr2[right], N, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(b[i] == left * 10 + i, "put into the second region [%d] = %d", i, b[i]);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone has checked before b[1] changes */

    /* detached memory is refused */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (size > 1) {
        int x = 5;
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        /* refused at the call (direct: the origin checks the target's
         * published regions) or at the synchronization (active messages) */
        int e1 = MPI_Put(&x, 1, MPI_INT, right, addr[right], 1, MPI_INT, win);
        err = MPI_Win_unlock(right, win);
        err = e1 != MPI_SUCCESS ? e1 : err;
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE,
              "put to detached memory: class %d", mtest_error_class(err));
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        e1 = MPI_Get(&x, 1, MPI_INT, right, addr[right] + sizeof(int), 1, MPI_INT, win);
        err = MPI_Win_flush(right, win);
        err = e1 != MPI_SUCCESS ? e1 : err;
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE,
              "get from detached memory: class %d", mtest_error_class(err));
        /* the window still works */
        x = 77;
        MPI_Put(&x, 1, MPI_INT, right, addr2[right] + sizeof(int), 1, MPI_INT, win);
        err = MPI_Win_unlock(right, win);
        CHECK(err == MPI_SUCCESS, "unlock after the refused get: %d", err);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (size > 1)
        CHECK(b[1] == 77 && a[0] == left * 10, "memory after the refused operations: %d %d", b[1],
              a[0]);
    {
        int x = 0;
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        err = MPI_Put(&x, 1, MPI_INT, rank, (MPI_Aint)(uintptr_t)a, 1, MPI_INT, win);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_RANGE, "put to my detached memory: class %d",
              mtest_error_class(err));
        MPI_Win_unlock(rank, win);
    }

    /* two halves of one array attached separately: an access across the
     * seam is inside attached memory (MPICH rma/win_dynamic_rma_flush_get) */
    {
        static int halves[64];
        int src[16], back[16], rk;
        MPI_Aint addr;
        MPI_Win_attach(win, halves, sizeof(int) * 32);
        MPI_Win_attach(win, halves + 32, sizeof(int) * 32);
        MPI_Get_address(halves + 24, &addr);
        for (int i = 0; i < 16; i++)
            src[i] = rank * 100 + i;
        MPI_Comm_rank(MPI_COMM_WORLD, &rk);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rk, 0, win);
        err = MPI_Put(src, 16, MPI_INT, rk, addr, 16, MPI_INT, win);
        CHECK(err == MPI_SUCCESS, "put across two attached regions: %d", err);
        MPI_Win_flush(rk, win);
        err = MPI_Get(back, 16, MPI_INT, rk, addr, 16, MPI_INT, win);
        MPI_Win_unlock(rk, win);
        CHECK(err == MPI_SUCCESS && back[0] == src[0] && back[15] == src[15],
              "get across the seam: %d, %d %d", err, back[0], back[15]);
        MPI_Win_detach(win, halves);
        MPI_Win_detach(win, halves + 32);
    }

    /* attach errors */
    err = MPI_Win_attach(win, b + 4, sizeof(int));
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_ATTACH, "overlapping attach: class %d",
          mtest_error_class(err));
    err = MPI_Win_detach(win, a);
    CHECK(mtest_error_class(err) == MPI_ERR_RMA_ATTACH, "detach of detached memory: class %d",
          mtest_error_class(err));
    {
        void *base = (void *)1;
        MPI_Aint *sz;
        int *fl, flag = 0;
        MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
        CHECK(flag && base == NULL, "MPI_WIN_BASE of a dynamic window is %p", base);
        MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
        CHECK(flag && *sz == 0, "MPI_WIN_SIZE of a dynamic window is %ld", (long)*sz);
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
        CHECK(flag && *fl == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", *fl);
    }
    MPI_Win_detach(win, b);
    MPI_Win_free(&win);
    {
        MPI_Win w2;
        int x;
        MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
        MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN);
        err = MPI_Win_attach(w2, a, 4);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_FLAVOR, "attach to MPI_Win_create: class %d",
              mtest_error_class(err));
        MPI_Win_free(&w2);
    }
    free(a);
    free(b);
    free(addr);
    free(addr2);
    return mtest_finish();
}
