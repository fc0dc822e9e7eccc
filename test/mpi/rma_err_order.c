/*
 * One-sided calls with two or three bad arguments at once: the class is the
 * one MPICH 4.0.2 gives, that of the argument it checks first. MPICH checks
 * an operation's arguments in the call's order (origin count and datatype,
 * result count and datatype, target rank and displacement, target count
 * and datatype) and the op last; MPI_Compare_and_swap its buffers first
 * (MPI_ERR_ARG), then the target, then the datatype; MPI_Win_lock the rank
 * first; MPI_Win_start and MPI_Win_post the group before the assert;
 * MPI_Win_create the info before the size and the unit; an info or group
 * argument that is not a handle of its kind at all before a bad
 * communicator or window (MPI_Win_create_dynamic(info=0x12345,
 * MPI_COMM_NULL) is MPI_ERR_INFO, MPI_Win_start(MPI_GROUP_NULL, 0,
 * MPI_WIN_NULL) MPI_ERR_GROUP; before this, Canal gave MPI_ERR_COMM and
 * MPI_ERR_WIN). Before, rma/ checked
 * the op and every count first, the datatypes before the rank, the lock
 * type and the assert before the rank and the group, the size before the
 * info. Every class here was read from this program run under Debian's
 * MPICH 4.0.2 (it passes there too); the cases where Canal deliberately
 * gives another class than MPICH (MPI_ERR_ASSERT, MPI_ERR_LOCKTYPE:
 * errmsg_args.c's EXPECT_DIFF) are not mixed in. Windows of
 * MPI_Win_create and MPI_Win_allocate, MPI_ERRORS_RETURN.
 */
#include "rma_util.h"

#define EXPECT(call, cls) EXPECT_CLASS((call), (cls), #call)

static void run(int flavor, int rank, int size)
{
    MPI_Win win, nwin = MPI_WIN_NULL;
    MPI_Info bad_info = (MPI_Info)0x12345;
    int *mem, buf[4] = {1, 2, 3, 4}, res[4], big = size + 98;

    (void)rank;
    mem = rma_win_make(flavor, 4, sizeof(int), &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* synchronization calls (no epoch open) */
    EXPECT(MPI_Win_start(MPI_GROUP_NULL, 0x7fff0000, win), MPI_ERR_GROUP);
    EXPECT(MPI_Win_post(MPI_GROUP_NULL, 0x7fff0000, win), MPI_ERR_GROUP);
    EXPECT(MPI_Win_lock(12345, big, 0x7fff0000, win), MPI_ERR_RANK);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, big, 0x7fff0000, win), MPI_ERR_RANK);
    /* window creation (MPI_COMM_WORLD's handler) */
    EXPECT(MPI_Win_create(buf, -1, 4, bad_info, MPI_COMM_WORLD, &nwin), MPI_ERR_INFO);
    EXPECT(MPI_Win_create(buf, 16, 0, bad_info, MPI_COMM_WORLD, &nwin), MPI_ERR_INFO);
    EXPECT(MPI_Win_create(buf, -1, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &nwin), MPI_ERR_SIZE);
    CHECK(nwin == MPI_WIN_NULL, "flavor %d: a failed MPI_Win_create made a window", flavor);
    /* a handle that is no handle of its kind before the communicator or the
     * window (MPICH's first phase: the handles' kinds, in the call's order) */
    EXPECT(MPI_Win_start(MPI_GROUP_NULL, 0, MPI_WIN_NULL), MPI_ERR_GROUP);
    EXPECT(MPI_Win_post(MPI_GROUP_NULL, 0x7fff0000, MPI_WIN_NULL), MPI_ERR_GROUP);
    EXPECT(MPI_Win_start(MPI_GROUP_EMPTY, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_create_dynamic(bad_info, MPI_COMM_NULL, &nwin), MPI_ERR_INFO);
    EXPECT(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_NULL, &nwin), MPI_ERR_COMM);
    EXPECT(MPI_Win_create(buf, -1, 0, bad_info, MPI_COMM_NULL, &nwin), MPI_ERR_INFO);
    EXPECT(MPI_Win_allocate(16, 4, bad_info, MPI_COMM_NULL, &res, &nwin), MPI_ERR_INFO);
    EXPECT(MPI_Win_allocate_shared(16, 4, bad_info, MPI_COMM_NULL, &res, &nwin), MPI_ERR_INFO);
    CHECK(nwin == MPI_WIN_NULL, "flavor %d: a failed window creation made a window", flavor);

    OK(MPI_Win_fence(0, win));
    EXPECT(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_DATATYPE_NULL, MPI_OP_NULL, win),
           MPI_ERR_TYPE);
    EXPECT(MPI_Accumulate(buf, -1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_COUNT);
    EXPECT(MPI_Accumulate(buf, 1, MPI_INT, big, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_RANK);
    EXPECT(MPI_Accumulate(buf, 1, MPI_INT, big, 0, 1, MPI_DATATYPE_NULL, MPI_SUM, win),
           MPI_ERR_RANK);
    EXPECT(MPI_Accumulate(buf, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, MPI_OP_NULL, win),
           MPI_ERR_TYPE);
    EXPECT(MPI_Fetch_and_op(buf, res, MPI_DATATYPE_NULL, 0, 0, MPI_OP_NULL, win), MPI_ERR_TYPE);
    EXPECT(MPI_Fetch_and_op(buf, res, MPI_INT, big, 0, MPI_OP_NULL, win), MPI_ERR_RANK);
    EXPECT(MPI_Fetch_and_op(buf, res, MPI_DATATYPE_NULL, big, 0, MPI_SUM, win), MPI_ERR_TYPE);
    EXPECT(MPI_Get_accumulate(buf, 1, MPI_INT, res, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT,
                              MPI_OP_NULL, win),
           MPI_ERR_TYPE);
    EXPECT(MPI_Get_accumulate(buf, 1, MPI_INT, res, 1, MPI_DATATYPE_NULL, big, 0, 1, MPI_INT,
                              MPI_SUM, win),
           MPI_ERR_TYPE);
    EXPECT(MPI_Get_accumulate(buf, 1, MPI_INT, res, -1, MPI_INT, big, 0, 1, MPI_INT, MPI_SUM, win),
           MPI_ERR_COUNT);
    EXPECT(MPI_Put(buf, -1, MPI_DATATYPE_NULL, big, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(buf, 1, MPI_DATATYPE_NULL, big, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT(MPI_Put(buf, 1, MPI_INT, big, -1, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(buf, 1, MPI_INT, 0, -1, -1, MPI_DATATYPE_NULL, win), MPI_ERR_DISP);
    EXPECT(MPI_Put(buf, 1, MPI_INT, 0, 0, -1, MPI_DATATYPE_NULL, win), MPI_ERR_COUNT);
    EXPECT(MPI_Get(res, 1, MPI_INT, big, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_RANK);
    EXPECT(MPI_Compare_and_swap(buf, NULL, res, MPI_INT, big, 0, win), MPI_ERR_ARG);
    EXPECT(MPI_Compare_and_swap(NULL, buf, res, MPI_DATATYPE_NULL, 0, 0, win), MPI_ERR_ARG);
    EXPECT(MPI_Compare_and_swap(buf, buf, NULL, MPI_INT, 0, -1, win), MPI_ERR_ARG);
    EXPECT(MPI_Compare_and_swap(buf, buf, res, MPI_DATATYPE_NULL, big, 0, win), MPI_ERR_RANK);
    EXPECT(MPI_Compare_and_swap(buf, buf, res, MPI_DATATYPE_NULL, 0, -1, win), MPI_ERR_DISP);
    OK(MPI_Win_fence(0, win));

    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run(0, rank, size);
    run(1, rank, size);
    return mtest_finish();
}
