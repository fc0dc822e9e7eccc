/* MPI_THREAD_MULTIPLE, two receives of one process that match the same
 * message (from mpi4py's demo nxtval-threads.py, whose counter thread on
 * rank 0 sits in MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) while rank 0's main
 * thread sends its own request to itself on tag 0 and then calls
 * MPI_Recv(0, 0) for the answer). Here, five rounds on each rank: a thread
 * calls MPI_Recv(MPI_ANY_SOURCE, tag 0) and answers what it gets plus one
 * to itself on tag 0; the main thread waits until that receive is posted
 * (canal_posted_queue_length one more: it stops looking after about two seconds,
 * as a receive that waits unposted is never seen there; no time is
 * asserted), sends 1 to itself on tag 0, then calls MPI_Recv(self, 0). The
 * thread's receive came first, so it must get the 1 and the main thread
 * the 2. (A small receive waited unposted in locked mode, so the later
 * MPI_Recv took the 1 from the unexpected queue: then the main thread
 * sends 10 to free the thread, and takes its 11.) */
#include "mtest.h"

#include <pthread.h>
#include <time.h>

enum { ROUNDS = 5 };

static int rank;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle posted_len; /* canal_posted_queue_length */

static void *answer_one(void *arg)
{
    int v = 0;
    (void)arg;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    v++;
    MPI_Send(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
    return NULL;
}

static unsigned long long posted_now(void)
{
    unsigned long long n = 0;
    OK(MPI_T_pvar_read(session, posted_len, &n));
    return n;
}

/* Until the thread's receive is posted, one more than `before` (at most
 * about two seconds: how long the main thread looks before sending anyway). */
static void wait_posted(unsigned long long before)
{
    struct timespec ms = {0, 1000000};

    for (int i = 0; i < 2000; i++) {
        if (posted_now() > before)
            return;
        nanosleep(&ms, NULL);
    }
}

int main(int argc, char **argv)
{
    int prov, idx, count;

    CHECK(mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE) == MPI_THREAD_MULTIPLE,
          "MPI_THREAD_MULTIPLE not provided");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &prov));
    OK(MPI_T_pvar_session_create(&session));
    OK(MPI_T_pvar_get_index("canal_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL, &idx));
    OK(MPI_T_pvar_handle_alloc(session, idx, NULL, &posted_len, &count));

    for (int round = 0; round < ROUNDS; round++) {
        pthread_t th;
        int one = 1, v = 0;
        unsigned long long before = posted_now();

        pthread_create(&th, NULL, answer_one, NULL);
        wait_posted(before);
        MPI_Send(&one, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == 2, "round %d: the main thread's MPI_Recv got %d, not the thread's answer 2",
              round, v);
        if (v == 1) { /* the thread still waits: free it */
            int ten = 10;
            MPI_Send(&ten, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == 11, "round %d: the freed thread answered %d, not 11", round, v);
        }
        pthread_join(th, NULL);
    }

    OK(MPI_T_pvar_handle_free(session, &posted_len));
    OK(MPI_T_pvar_session_free(&session));
    OK(MPI_T_finalize());
    return mtest_finish();
}
