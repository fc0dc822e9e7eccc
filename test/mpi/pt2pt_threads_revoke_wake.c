/* A thread asleep in a blocking receive or probe while another thread of
 * its process polls (MPI_THREAD_MULTIPLE) is woken when the peer revokes
 * the communicator, and its call fails with MPIX_ERR_REVOKED. 2 ranks, run
 * with CANAL_THREAD_WAIT_SLEEP_US large (the testlist: 100 s, above the
 * timeout), so that a sleeper nobody wakes hangs into the timeout.
 *
 * Rank 0: thread B waits in MPI_Recv on communicator D for a message that
 * comes only at the end (in Canal it takes the polling role after its
 * first idle polls). Then, in each round, the main thread tells rank 1 it
 * is about to wait, and waits on a fresh communicator C in MPI_Recv
 * (round 0: a small receive that waits unposted, watching C's arrivals) or
 * MPI_Probe (round 1) for a message that never comes: it goes to sleep,
 * since B polls. Rank 1 lets it fall asleep, revokes C and waits until
 * rank 0 says the wait failed. Nothing moves what the sleeper watches (no
 * message arrives on C); only the revocation can end its wait, and B's
 * poll, which takes the revocation, must wake it. At the end rank 1
 * releases B.
 *
 * Before 9369c9c (mt4), such a sleep ended only at the bound
 * (CANAL_THREAD_WAIT_SLEEP_US): the release scan woke a sleeper when its
 * watch moved, not when a revocation or a loss came. Other libraries pass
 * if they do not hang; without MPIX_Comm_revoke the test is skipped. */
#include "mtest.h"

#include <pthread.h>
#include <unistd.h>

enum { TAG_B = 1, TAG_A = 2, TAG_READY = 3, TAG_DONE = 4, ROUNDS = 2 };

static MPI_Comm comm_d;

static void *poller(void *arg)
{
    int v = -1;
    (void)arg;
    OK(MPI_Recv(&v, 1, MPI_INT, 1, TAG_B, comm_d, MPI_STATUS_IGNORE));
    CHECK(v == 42, "thread B received %d, expected 42", v);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t tb;
    int provided = mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE), v = 0;

    if (provided != MPI_THREAD_MULTIPLE || mtest_size != 2) {
        if (mtest_rank == 0)
            printf("needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        return mtest_finish();
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_d));
    if (mtest_rank == 0 && pthread_create(&tb, NULL, poller, NULL) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm c;
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        if (mtest_rank == 0) {
            MPI_Status st;
            int rc;
            usleep(100000); /* (B is polling by now: the wait below sleeps) */
            OK(MPI_Send(&round, 1, MPI_INT, 1, TAG_READY, comm_d));
            if (round == 0)
                rc = MPI_Recv(&v, 1, MPI_INT, 1, TAG_A, c, &st);
            else
                rc = MPI_Probe(1, TAG_A, c, &st);
            EXPECT_CLASS(rc, MPIX_ERR_REVOKED,
                         round == 0 ? "MPI_Recv asleep when the communicator was revoked"
                                    : "MPI_Probe asleep when the communicator was revoked");
            OK(MPI_Send(&round, 1, MPI_INT, 1, TAG_DONE, comm_d));
        } else {
            OK(MPI_Recv(&v, 1, MPI_INT, 0, TAG_READY, comm_d, MPI_STATUS_IGNORE));
            usleep(200000); /* (rank 0's main thread falls asleep meanwhile) */
            OK(MPIX_Comm_revoke(c));
            OK(MPI_Recv(&v, 1, MPI_INT, 0, TAG_DONE, comm_d, MPI_STATUS_IGNORE));
        }
    }
    if (mtest_rank == 1) {
        v = 42;
        OK(MPI_Send(&v, 1, MPI_INT, 0, TAG_B, comm_d));
    } else if (mtest_rank == 0) {
        pthread_join(tb, NULL);
    }
    OK(MPI_Comm_free(&comm_d));
    return mtest_finish();
}
