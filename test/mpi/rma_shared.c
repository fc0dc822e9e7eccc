/*
 * Shared-memory windows: MPI_Win_allocate_shared over the node's
 * communicator, contiguous by default (rank r+1's memory starts where rank
 * r's ends) and page-aligned pieces with alloc_shared_noncontig; ranks
 * with size 0; MPI_Win_shared_query (MPI_PROC_NULL too); direct loads and
 * stores between ranks ordered by MPI_Win_sync and a barrier; MPI_Put and
 * MPI_Accumulate on the same window; and passive-target progress: a rank
 * that spins on its memory without calling MPI sees a put and accumulates
 * from the others. Info, and the flavor error for a non-shared window.
 */
#include "mtest.h"

#include <stdint.h>
#include <unistd.h>

static void run(MPI_Comm node, int noncontig)
{
    int rank, size, *base, err;
    MPI_Win win;
    MPI_Info info;
    MPI_Aint mysize, qsize;
    int qunit;
    int **bases;

    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    MPI_Info_create(&info);
    if (noncontig)
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    /* rank 1 contributes nothing */
    mysize = rank == 1 ? 0 : (MPI_Aint)sizeof(int) * (4 + rank);
    MPI_Win_allocate_shared(mysize, sizeof(int), info, node, &base, &win);
    MPI_Info_free(&info);
    bases = malloc(sizeof(int *) * size);
    for (int r = 0; r < size; r++) {
        MPI_Win_shared_query(win, r, &qsize, &qunit, &bases[r]);
        MPI_Aint esize = r == 1 ? 0 : (MPI_Aint)sizeof(int) * (4 + r);
        CHECK(qsize == esize, "noncontig %d: size of rank %d is %ld, expected %ld", noncontig, r,
              (long)qsize, (long)esize);
        CHECK(qunit == sizeof(int), "disp_unit of rank %d is %d", r, qunit);
        if (!noncontig && r > 0 && bases[r - 1] != NULL && bases[r] != NULL) {
            MPI_Aint psize = r - 1 == 1 ? 0 : (MPI_Aint)sizeof(int) * (4 + r - 1);
            CHECK((char *)bases[r] == (char *)bases[r - 1] + psize,
                  "contiguous: rank %d starts at %p, rank %d + %ld bytes is %p", r,
                  (void *)bases[r], r - 1, (long)psize, (void *)((char *)bases[r - 1] + psize));
        }
        if (noncontig && qsize > 0)
            CHECK(((uintptr_t)bases[r] & (uintptr_t)(sysconf(_SC_PAGESIZE) - 1)) == 0,
                  "noncontig: rank %d's memory is not page aligned", r);
    }
    if (rank != 1)
        CHECK(bases[rank] == base, "shared_query of myself differs from baseptr");
    {
        int *p;
        MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qunit, &p);
        CHECK(p == bases[0] && qsize == (MPI_Aint)sizeof(int) * 4,
              "MPI_PROC_NULL query gave %p size %ld", (void *)p, (long)qsize);
    }

    /* load/store: every rank writes its own memory, reads everyone's */
    MPI_Win_lock_all(0, win);
    if (rank != 1)
        for (int i = 0; i < 4 + rank; i++)
            base[i] = rank * 100 + i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        if (r == 1)
            continue;
        for (int i = 0; i < 4 + r; i++)
            CHECK(bases[r][i] == r * 100 + i, "load from rank %d [%d] = %d", r, i, bases[r][i]);
    }
    MPI_Barrier(node);

    /* passive progress: rank 0 spins on slot 0 without calling MPI while
     * the others accumulate into slot 1; the last one (rank 1) then puts
     * 2 into slot 2 and -7 into slot 0 */
    if (rank == 0) {
        base[0] = base[1] = base[2] = 0;
        MPI_Win_sync(win);
    }
    MPI_Barrier(node);
    if (size > 1) {
        if (rank == 0) {
            while (__atomic_load_n(&base[0], __ATOMIC_ACQUIRE) != -7)
                ;
            CHECK(base[1] == size - 1, "slot 1 = %d, expected %d", base[1], size - 1);
            CHECK(base[2] == 2, "slot 2 = %d, expected 2", base[2]);
        } else {
            int one = 1, zero = 0, cur = -1, two = 2, m7 = -7;
            MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
            MPI_Win_flush(0, win);
            if (rank == 1) {
                do {
                    MPI_Fetch_and_op(&zero, &cur, MPI_INT, 0, 1, MPI_NO_OP, win);
                    MPI_Win_flush(0, win);
                } while (cur != size - 1);
                MPI_Put(&two, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
                MPI_Win_flush(0, win);
                MPI_Accumulate(&m7, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_REPLACE, win);
                MPI_Win_flush(0, win);
            }
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(node);

    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    err = MPI_Win_shared_query(win, size, &qsize, &qunit, &bases[0]);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "query of rank %d: class %d", size,
          mtest_error_class(err));
    {
        MPI_Info used;
        char v[MPI_MAX_INFO_VAL];
        int flag = 0;
        MPI_Win_get_info(win, &used);
        MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, v, &flag);
        CHECK(flag && strcmp(v, noncontig ? "true" : "false") == 0,
              "alloc_shared_noncontig reads back as %s", flag ? v : "(unset)");
        MPI_Info_free(&used);
    }
    {
        int flavor_ok = 0, *fl, fflag = 0;
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &fflag);
        flavor_ok = fflag && *fl == MPI_WIN_FLAVOR_SHARED;
        CHECK(flavor_ok, "MPI_WIN_CREATE_FLAVOR is not MPI_WIN_FLAVOR_SHARED");
    }
    MPI_Win_free(&win);
    free(bases);
}

int main(int argc, char **argv)
{
    MPI_Comm node;
    MPI_Win w;
    int x, err;
    MPI_Init(&argc, &argv);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    run(node, 0);
    run(node, 1);
    /* a process that gives no memory has a NULL base (MPICH's
     * rma/win_shared_noncontig_put) */
    {
        int nrank, nsize, *mine = NULL;
        MPI_Aint s;
        int u;
        void *p;
        MPI_Comm_rank(node, &nrank);
        MPI_Comm_size(node, &nsize);
        MPI_Win_allocate_shared(nrank % 2 ? 0 : 64, 4, MPI_INFO_NULL, node, &mine, &w);
        for (int r = 0; r < nsize; r++) {
            MPI_Win_shared_query(w, r, &s, &u, &p);
            CHECK(r % 2 ? (s == 0 && p == NULL) : (s == 64 && p != NULL),
                  "shared_query(%d): size %ld base %p", r, (long)s, p);
        }
        MPI_Win_free(&w);
    }
    /* a window of user memory is not shared */
    MPI_Win_create(&x, sizeof x, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    {
        MPI_Aint s;
        int u;
        void *p;
        err = MPI_Win_shared_query(w, 0, &s, &u, &p);
        CHECK(mtest_error_class(err) == MPI_ERR_RMA_FLAVOR, "shared_query of MPI_Win_create: %d",
              mtest_error_class(err));
    }
    MPI_Win_free(&w);
    MPI_Comm_free(&node);
    return mtest_finish();
}
