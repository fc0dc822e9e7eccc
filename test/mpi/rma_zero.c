/* One-sided calls that move nothing -- a count of 0 toward a rank, or
 * target MPI_PROC_NULL -- on MPI_Win_create and MPI_Win_allocate windows:
 * MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and the request-based MPI_Rput, MPI_Rget,
 * MPI_Raccumulate, MPI_Rget_accumulate. They succeed at once inside an
 * epoch (the requests come back complete, with an empty status), touch no
 * memory, and still report bad arguments and a missing epoch (the
 * request-based forms need a passive-target one) with the right class. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define WORDS 16
static int rank, np, errs;

#define CHECK(cond, ...)                                                                            \
    do {                                                                                           \
        if (!(cond) && errs++ < 20) {                                                              \
            fprintf(stderr, "rank %d line %d: ", rank, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static int eclass(int err)
{
    int c = err;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &c);
    return c;
}

static void wait_empty(MPI_Request *r, const char *what)
{
    MPI_Status st;
    int n = -1, flag = 0;
    CHECK(*r != MPI_REQUEST_NULL, "%s: no request", what);
    if (*r == MPI_REQUEST_NULL)
        return;
    MPI_Test(r, &flag, &st);
    if (!flag)
        MPI_Wait(r, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "%s: count %d, want 0", what, n);
    CHECK(*r == MPI_REQUEST_NULL, "%s: request not freed", what);
}

/* Every nothing-moving call toward t (a rank or MPI_PROC_NULL). */
static void all_calls(MPI_Win win, int t, int passive)
{
    int v[4] = {7, 7, 7, 7}, res[4] = {-1, -1, -1, -1}, cmp = 0;
    MPI_Request r;
    int err;

    err = MPI_Put(v, 0, MPI_INT, t, 0, 0, MPI_INT, win);
    CHECK(err == MPI_SUCCESS, "put 0 -> %d: class %d", t, eclass(err));
    err = MPI_Get(res, 0, MPI_INT, t, 0, 0, MPI_INT, win);
    CHECK(err == MPI_SUCCESS, "get 0 <- %d: class %d", t, eclass(err));
    err = MPI_Accumulate(v, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_SUM, win);
    CHECK(err == MPI_SUCCESS, "acc 0 -> %d: class %d", t, eclass(err));
    err = MPI_Accumulate(v, 0, MPI_DOUBLE, t, 0, 0, MPI_DOUBLE, MPI_MAX, win);
    CHECK(err == MPI_SUCCESS, "acc 0 (double max) -> %d: class %d", t, eclass(err));
    err = MPI_Get_accumulate(v, 0, MPI_INT, res, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_SUM, win);
    CHECK(err == MPI_SUCCESS, "get_acc 0 -> %d: class %d", t, eclass(err));
    if (t == MPI_PROC_NULL) {
        err = MPI_Put(v, 4, MPI_INT, t, 0, 4, MPI_INT, win);
        CHECK(err == MPI_SUCCESS, "put 4 -> PROC_NULL: class %d", eclass(err));
        err = MPI_Accumulate(v, 4, MPI_INT, t, 0, 4, MPI_INT, MPI_SUM, win);
        CHECK(err == MPI_SUCCESS, "acc 4 -> PROC_NULL: class %d", eclass(err));
        err = MPI_Fetch_and_op(v, res, MPI_INT, t, 0, MPI_SUM, win);
        CHECK(err == MPI_SUCCESS, "fop -> PROC_NULL: class %d", eclass(err));
        err = MPI_Compare_and_swap(v, &cmp, res, MPI_INT, t, 0, win);
        CHECK(err == MPI_SUCCESS, "cas -> PROC_NULL: class %d", eclass(err));
        CHECK(res[0] == -1, "PROC_NULL fetch wrote the result buffer (%d)", res[0]);
    }
    CHECK(res[0] == -1 && res[1] == -1, "a 0-count fetch wrote the result buffer");
    if (!passive)
        return;
    err = MPI_Rput(v, 0, MPI_INT, t, 0, 0, MPI_INT, win, &r);
    CHECK(err == MPI_SUCCESS, "rput 0 -> %d: class %d", t, eclass(err));
    wait_empty(&r, "rput");
    err = MPI_Rget(res, 0, MPI_INT, t, 0, 0, MPI_INT, win, &r);
    CHECK(err == MPI_SUCCESS, "rget 0 <- %d: class %d", t, eclass(err));
    wait_empty(&r, "rget");
    err = MPI_Raccumulate(v, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_PROD, win, &r);
    CHECK(err == MPI_SUCCESS, "racc 0 -> %d: class %d", t, eclass(err));
    wait_empty(&r, "raccumulate");
    err = MPI_Rget_accumulate(v, 0, MPI_INT, res, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_BOR, win, &r);
    CHECK(err == MPI_SUCCESS, "rget_acc 0 -> %d: class %d", t, eclass(err));
    wait_empty(&r, "rget_accumulate");
}

static void errors(MPI_Win win)
{
    int v[2] = {1, 1}, err;
    MPI_Request r = MPI_REQUEST_NULL;

    /* no epoch at all */
    err = MPI_Put(v, 0, MPI_INT, 0, 0, 0, MPI_INT, win);
    CHECK(eclass(err) == MPI_ERR_RMA_SYNC, "put 0 outside an epoch: class %d", eclass(err));
    MPI_Win_lock_all(0, win);
    err = MPI_Put(v, 0, MPI_INT, np, 0, 0, MPI_INT, win);
    CHECK(eclass(err) == MPI_ERR_RANK, "put 0 to rank %d: class %d", np, eclass(err));
    err = MPI_Rget(v, 0, MPI_INT, -5, 0, 0, MPI_INT, win, &r);
    CHECK(eclass(err) == MPI_ERR_RANK, "rget 0 from rank -5: class %d", eclass(err));
    err = MPI_Put(v, 0, MPI_INT, 0, -1, 0, MPI_INT, win);
    CHECK(eclass(err) == MPI_ERR_DISP, "put 0 at disp -1: class %d", eclass(err));
    err = MPI_Accumulate(v, 0, MPI_INT, 0, 0, 0, MPI_INT, MPI_OP_NULL, win);
    CHECK(eclass(err) == MPI_ERR_OP, "acc 0 with MPI_OP_NULL: class %d", eclass(err));
    err = MPI_Raccumulate(v, 0, MPI_INT, MPI_PROC_NULL, 0, 0, MPI_INT, MPI_OP_NULL, win, &r);
    CHECK(eclass(err) == MPI_ERR_OP, "racc 0 with MPI_OP_NULL: class %d", eclass(err));
    err = MPI_Put(v, 0, MPI_INT, 0, 0, 0, MPI_DATATYPE_NULL, win);
    CHECK(eclass(err) == MPI_ERR_TYPE, "put 0 of MPI_DATATYPE_NULL: class %d", eclass(err));
    MPI_Win_unlock_all(win);
    /* request-based forms need a passive-target epoch; MPI_PROC_NULL always works */
    MPI_Win_fence(0, win);
    err = MPI_Rput(v, 0, MPI_INT, 0, 0, 0, MPI_INT, win, &r);
    CHECK(eclass(err) == MPI_ERR_RMA_SYNC, "rput 0 in a fence epoch: class %d", eclass(err));
    err = MPI_Rput(v, 0, MPI_INT, MPI_PROC_NULL, 0, 0, MPI_INT, win, &r);
    CHECK(err == MPI_SUCCESS, "rput 0 to MPI_PROC_NULL in a fence epoch: class %d", eclass(err));
    if (err == MPI_SUCCESS)
        wait_empty(&r, "rput to MPI_PROC_NULL");
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
}

static void one_window(MPI_Win win, int *mem)
{
    int want[WORDS];

    for (int i = 0; i < WORDS; i++)
        want[i] = 1000 * rank + i;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memcpy(mem, want, sizeof want);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        all_calls(win, t, 1);
    all_calls(win, MPI_PROC_NULL, 1);
    MPI_Win_unlock_all(win);
    for (int t = 0; t < np; t++) { /* one target at a time, exclusive */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        all_calls(win, t, 1);
        MPI_Win_unlock(t, win);
    }
    MPI_Win_fence(0, win);
    for (int t = 0; t < np; t++)
        all_calls(win, t, 0);
    all_calls(win, MPI_PROC_NULL, 0);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    errors(win);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(memcmp(mem, want, sizeof want) == 0, "window memory changed by calls moving nothing");
    MPI_Win_unlock(rank, win);
}

int main(int argc, char **argv)
{
    static int created[WORDS];
    int *allocated;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    MPI_Win_create(created, sizeof created, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    one_window(win, created);
    MPI_Win_free(&win);

    MPI_Win_allocate(WORDS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &allocated,
                     &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    one_window(win, allocated);
    MPI_Win_free(&win);

    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
