/*
 * One-sided communication through the standard ABI: MPI_Win_create,
 * fences with assertions (MPI_MODE_*), MPI_Put/MPI_Get/MPI_Accumulate,
 * passive target with MPI_LOCK_SHARED/EXCLUSIVE, MPI_Win_allocate, and the
 * window's attributes and group; MPI_PROC_NULL as the target of lock,
 * unlock, flush and MPI_Win_shared_query, and MPI_WIN_NULL's name.
 */
#include <mpi.h>
#include <string.h>

#include "abi_util.h"

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0, 0, 0, 0}, flag, result;
    MPI_Win win;
    MPI_Group wg, cg;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(MPI_COMM_WORLD, &cg);
    MPI_Group_compare(wg, cg, &result);
    CHECK(result == MPI_IDENT);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    {
        int v = rank + 1, right = (rank + 1) % size;
        MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Accumulate(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK(buf[0] == (rank + size - 1) % size + 1);
    if (rank == 0)
        CHECK(buf[1] == size * (size + 1) / 2);

    MPI_Win_fence(0, win);
    {
        int got = -1;
        MPI_Get(&got, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        CHECK(got == rank + 1);
    }

    /* passive target: every rank adds to rank 0's buf[2] */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    {
        int one = 1;
        MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, MPI_MODE_NOCHECK, win);
    if (rank == 0)
        CHECK(buf[2] == size);
    MPI_Win_unlock(rank, win);
    {
        int *model, *flavor;
        MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
        CHECK(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE));
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
        CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE);
    }
    {
        /* MPI 4.1: any flavor may be queried; memory that is not shared
         * answers size 0 and a NULL base (rma/win_shared_query -flavor=create) */
        MPI_Aint qsize = -1;
        int qdisp = -1;
        void *qbase = &qsize;
        CHECK(MPI_Win_shared_query(win, 0, &qsize, &qdisp, &qbase) == MPI_SUCCESS);
        CHECK((qsize == 0 && qbase == NULL) || (qsize == (MPI_Aint)sizeof buf && qbase != NULL));
    }
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL);

    {
        int *base;
        MPI_Win w2;
        MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w2);
        *base = -1;
        MPI_Win_fence(0, w2);
        MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, w2);
        MPI_Win_fence(0, w2);
        CHECK(*base == (rank + size - 1) % size);
        MPI_Win_free(&w2);
    }

    /* MPI_PROC_NULL as the rank of passive-target synchronization and of
     * MPI_Win_shared_query (the first non-empty segment), and the name of
     * MPI_WIN_NULL (MPI 4.1): MPICH main's rma/rmanull, win_shared_query_null
     * and winname found these arguments passed without conversion */
    {
        int *base, *qbase = NULL, qdisp = -1, len = -1, val = 7;
        char name[MPI_MAX_OBJECT_NAME] = "";
        MPI_Aint qsize = -1;
        MPI_Win w3;
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &w3);
        MPI_Win_set_errhandler(w3, MPI_ERRORS_RETURN);
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, w3) == MPI_SUCCESS);
        CHECK(MPI_Put(&val, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, w3) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(MPI_PROC_NULL, w3) == MPI_SUCCESS);
        CHECK(MPI_Win_flush_local(MPI_PROC_NULL, w3) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(MPI_PROC_NULL, w3) == MPI_SUCCESS);
        CHECK(MPI_Win_shared_query(w3, MPI_PROC_NULL, &qsize, &qdisp, &qbase) == MPI_SUCCESS);
        CHECK(qsize == (MPI_Aint)sizeof(int) && qdisp == (int)sizeof(int) && qbase != NULL);
        CHECK(MPI_Win_get_name(MPI_WIN_NULL, name, &len) == MPI_SUCCESS);
        CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == (int)strlen("MPI_WIN_NULL"));
        MPI_Win_free(&w3);
        MPI_Comm_free(&node);
    }
    return abi_finish();
}
