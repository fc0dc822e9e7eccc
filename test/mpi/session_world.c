/* The Sessions Model and the World Model in one process (MPI 4.0 section
 * 11.3): argv[1] "session-first" starts a session, then MPI_Init, ends the
 * World Model with MPI_Finalize while the session still communicates, and
 * ends the session last; "world-first" starts with MPI_Init and ends with
 * MPI_Finalize after the session. MPI_Initialized and MPI_Finalized follow
 * the World Model only. Before the fix, MPI_Init after MPI_Session_init
 * failed with "MPI is already initialized". */
#include "mtest.h"

static int sum_on(MPI_Comm c)
{
    int one = 1, sum = 0;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    return sum;
}

static void session_comm(MPI_Session *s, MPI_Comm *c)
{
    MPI_Group g;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s));
    OK(MPI_Group_from_session_pset(*s, "mpi://WORLD", &g));
    OK(MPI_Comm_create_from_group(g, "org.canal.session_world", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                  c));
    OK(MPI_Group_free(&g));
}

static void flags(int init, int fin, const char *when)
{
    int i = -1, f = -1;
    MPI_Initialized(&i);
    MPI_Finalized(&f);
    CHECK(i == init && f == fin, "%s: MPI_Initialized %d, MPI_Finalized %d; expected %d, %d",
          when, i, f, init, fin);
}

int main(int argc, char **argv)
{
    int session_first = !(argc > 1 && strcmp(argv[1], "world-first") == 0);
    int size, n, rc;
    MPI_Session s;
    MPI_Comm c;

    flags(0, 0, "at start");
    if (session_first) {
        session_comm(&s, &c);
        flags(0, 0, "after MPI_Session_init");
        MPI_Comm_size(c, &size);
        CHECK(sum_on(c) == size, "the session's communicator before MPI_Init");
        MPI_Init(&argc, &argv);
    } else {
        MPI_Init(&argc, &argv);
        session_comm(&s, &c);
    }
    flags(1, 0, "after MPI_Init");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
    CHECK(sum_on(MPI_COMM_WORLD) == mtest_size, "MPI_COMM_WORLD");
    CHECK(sum_on(c) == mtest_size, "the session's communicator beside MPI_COMM_WORLD");
    n = mtest_errors;
    OK(MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

    if (session_first) {
        OK(MPI_Finalize());
        flags(1, 1, "after MPI_Finalize");
        /* the session still works, and MPI_Finalize cannot be called again */
        CHECK(sum_on(c) == mtest_size, "the session's communicator after MPI_Finalize");
        rc = MPI_Finalize();
        CHECK(rc != MPI_SUCCESS, "a second MPI_Finalize succeeded");
        OK(MPI_Comm_free(&c));
        OK(MPI_Session_finalize(&s));
    } else {
        OK(MPI_Comm_free(&c));
        OK(MPI_Session_finalize(&s));
        CHECK(sum_on(MPI_COMM_WORLD) == mtest_size, "MPI_COMM_WORLD after the session ended");
        OK(MPI_Finalize());
    }
    flags(1, 1, "at the end");
    if (mtest_rank == 0 && n == 0 && mtest_errors == 0)
        printf(" No Errors\n");
    return mtest_errors != 0;
}
