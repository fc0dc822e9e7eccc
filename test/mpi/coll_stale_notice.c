/* A mismatch's notice that reaches a rank after it freed the communicator
 * must not fail the next communicator's correct calls on the same context
 * ids. Each round dups MPI_COMM_WORLD; rank 0 calls MPI_Bcast of one int as
 * the root (an erroneous program: it only sends, eagerly, and returns at
 * once) while the others call MPI_Scatter from rank 0 (they only receive
 * from it, or from each other), which wait, see the bcast's message of the
 * same call number and fail with a mismatch, telling every other rank (a
 * notice) first. Rank 0 has freed the communicator by then: the notices
 * come after its free took what had come, and before the next
 * communicator's first collective (their senders send them before they
 * take part in making it). On that next dup the other ranks sleep before a
 * barrier, so rank 0 waits in it and looks: before the fix rank 0 took a
 * notice of the freed communicator's call 0 for one of this call 0 and
 * failed its correct barrier ("rank 1 called MPI_Scatter where rank 0
 * called MPI_Bcast"), every run, while the others waited in the next call
 * for ever. Arguments: rounds (default 4). */
#include "mtest.h"

#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rounds;
    mtest_init(&argc, &argv);
    rounds = argc > 1 ? atoi(argv[1]) : 4;
    if (mtest_size < 3) {
        CHECK(0, "needs 3 ranks or more (got %d)", mtest_size);
        return mtest_finish();
    }
    for (int r = 0; r < rounds; r++) {
        MPI_Comm c;
        int v = r, w = -1, rc, cls = MPI_SUCCESS;
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        if (mtest_rank == 0)
            rc = MPI_Bcast(&v, 1, MPI_INT, 0, c);
        else
            rc = MPI_Scatter(NULL, 1, MPI_INT, &w, 1, MPI_INT, 0, c);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(mtest_rank == 0 ? cls == MPI_SUCCESS : cls == MPI_ERR_OTHER,
              "round %d: the mismatched call: class %d", r, cls);
        MPI_Comm_free(&c);

        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        if (mtest_rank != 0)
            usleep(200000); /* (rank 0 waits in the barrier, and looks) */
        for (int i = 0; i < 2; i++) {
            rc = MPI_Barrier(c);
            char msg[MPI_MAX_ERROR_STRING] = "";
            int len = 0;
            if (rc != MPI_SUCCESS)
                MPI_Error_string(rc, msg, &len);
            CHECK(rc == MPI_SUCCESS, "round %d: barrier %d on the next communicator failed: %s", r,
                  i, msg);
        }
        OK(MPI_Comm_free(&c));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
