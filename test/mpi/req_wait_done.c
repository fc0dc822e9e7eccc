/*
 * MPI_Wait and MPI_Test on requests of every kind, most of them already
 * complete when the call comes (the completion side's short path,
 * mpi/request.c), each with its semantics: MPI_REQUEST_NULL (empty status);
 * a receive finished by a message to itself and one from another rank
 * (source, tag, count, the handle becomes MPI_REQUEST_NULL, a copy of the
 * handle is no longer a request: MPI_ERR_REQUEST); MPI_STATUS_IGNORE;
 * a persistent send and receive (the handle stays, an inactive request's
 * wait returns at once with an empty status, started again it works);
 * a cancelled receive (MPI_Test_cancelled); a generalized request
 * completed before the wait (its query's status, its free function called
 * once); a truncated receive (MPI_ERR_TRUNCATE through the communicator's
 * error handler, called once, and in status.MPI_ERROR for MPI_Wait); a
 * nonblocking collective; a partitioned send and receive; and, when the
 * library gives MPI_THREAD_MULTIPLE, a wait that another thread of the
 * process completes by sending to this rank. Ranks beyond 1 take part in
 * the collectives only. Argument "single": MPI_Init instead (no thread).
 */
#include "mtest.h"

#include <pthread.h>

enum { N = 8 };

static MPI_Comm comm;
static int handler_calls, handler_class;

static void count_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void expect_status(const MPI_Status *st, int src, int tag, int bytes, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == bytes,
          "%s: source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG,
          n, src, tag, bytes);
}

static void expect_empty(const MPI_Status *st, const char *what)
{
    expect_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, what);
}

/* A wait or test (test: loop on MPI_Test) of *r; the return code. */
static int finish(MPI_Request *r, MPI_Status *st, int test)
{
    int flag = 0, rc = MPI_SUCCESS;
    if (!test)
        return MPI_Wait(r, st);
    while (!flag && rc == MPI_SUCCESS)
        rc = MPI_Test(r, &flag, st);
    return rc;
}

static void null_and_self(int test)
{
    MPI_Request r = MPI_REQUEST_NULL, copy;
    int rc;
    MPI_Status st;
    char s[N] = "abcdefg", b[N] = "";

    st.MPI_SOURCE = 77;
    OK(finish(&r, &st, test));
    expect_empty(&st, "MPI_REQUEST_NULL");

    /* to itself: the receive is done before the wait (after the MPI_Send's own progress or the wait's first poll) */
    OK(MPI_Irecv(b, N, MPI_BYTE, mtest_rank, 5, comm, &r));
    copy = r;
    OK(MPI_Send(s, N - 2, MPI_BYTE, mtest_rank, 5, comm));
    OK(finish(&r, &st, test));
    CHECK(r == MPI_REQUEST_NULL, "handle not MPI_REQUEST_NULL after completion");
    expect_status(&st, mtest_rank, 5, N - 2, "receive from itself");
    CHECK(memcmp(b, s, N - 2) == 0, "data of the receive from itself");
    /* a copy of the handle names a request that is gone: an error (MPI_COMM_WORLD's
     * handler returns it), not a second completion of the freed request
     * (nothing was started since, so its slot is still free) */
    rc = finish(&copy, &st, test);
    EXPECT_CLASS(rc, MPI_ERR_REQUEST, "a wait on a copy of a completed request's handle");

    /* the same, status ignored; then a wait on the now null handle */
    OK(MPI_Irecv(b, N, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r));
    OK(MPI_Send(s, N, MPI_BYTE, mtest_rank, 6, comm));
    OK(finish(&r, MPI_STATUS_IGNORE, test));
    CHECK(r == MPI_REQUEST_NULL, "handle not MPI_REQUEST_NULL (MPI_STATUS_IGNORE)");
    OK(finish(&r, &st, test));
    expect_empty(&st, "the handle after its completion");
}

static void two_ranks(int test)
{
    MPI_Request r;
    MPI_Status st;
    int v[N], w[N];

    for (int i = 0; i < N; i++)
        v[i] = i * 3 + mtest_rank;
    if (mtest_rank == 0) {
        /* rank 1 sends before the barrier: the receive completes at any
         * progress, then is waited on */
        OK(MPI_Irecv(w, N, MPI_INT, 1, 9, comm, &r));
        OK(MPI_Barrier(comm));
        OK(finish(&r, &st, test));
        expect_status(&st, 1, 9, (int)sizeof w, "receive from rank 1");
        for (int i = 0; i < N; i++)
            CHECK(w[i] == i * 3 + 1, "w[%d] = %d", i, w[i]);
    } else {
        OK(MPI_Isend(v, N, MPI_INT, 0, 9, comm, &r));
        OK(MPI_Barrier(comm));
        OK(finish(&r, &st, test));
        CHECK(r == MPI_REQUEST_NULL, "send handle not MPI_REQUEST_NULL");
    }
}

static void persistent(int test)
{
    MPI_Request rs, rr;
    MPI_Status st;
    int a = 0, b = -1;

    OK(MPI_Recv_init(&b, 1, MPI_INT, mtest_rank, 11, comm, &rr));
    OK(MPI_Send_init(&a, 1, MPI_INT, mtest_rank, 11, comm, &rs));
    OK(finish(&rr, &st, test)); /* inactive: at once */
    expect_empty(&st, "an inactive persistent receive");
    CHECK(rr != MPI_REQUEST_NULL, "an inactive persistent request's handle was freed");
    for (int round = 0; round < 3; round++) {
        a = 40 + round;
        OK(MPI_Start(&rr));
        OK(MPI_Start(&rs));
        OK(finish(&rs, MPI_STATUS_IGNORE, test));
        OK(finish(&rr, &st, test));
        CHECK(rs != MPI_REQUEST_NULL && rr != MPI_REQUEST_NULL, "persistent handle freed");
        expect_status(&st, mtest_rank, 11, (int)sizeof(int), "persistent receive");
        CHECK(b == a, "persistent round %d received %d", round, b);
        OK(finish(&rr, &st, test));
        expect_empty(&st, "a persistent receive waited on twice");
    }
    OK(MPI_Request_free(&rs));
    OK(MPI_Request_free(&rr));
}

static void cancelled(int test)
{
    MPI_Request r;
    MPI_Status st;
    int b, c = 0;

    OK(MPI_Irecv(&b, 1, MPI_INT, mtest_rank, 12, comm, &r));
    OK(MPI_Cancel(&r));
    OK(finish(&r, &st, test));
    OK(MPI_Test_cancelled(&st, &c));
    CHECK(c, "a cancelled receive's status says not cancelled");
    CHECK(r == MPI_REQUEST_NULL, "cancelled handle not MPI_REQUEST_NULL");
}

static int greq_frees;

static int gq(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_BYTE, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 13;
    return MPI_SUCCESS;
}

static int gf(void *extra)
{
    (void)extra;
    greq_frees++;
    return MPI_SUCCESS;
}

static int gc(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void generalized(int test)
{
    static int bytes = 21;
    MPI_Request r;
    MPI_Status st;

    greq_frees = 0;
    OK(MPI_Grequest_start(gq, gf, gc, &bytes, &r));
    OK(MPI_Grequest_complete(r));
    OK(finish(&r, &st, test));
    expect_status(&st, 3, 13, 21, "generalized request");
    CHECK(greq_frees == 1, "free function called %d times", greq_frees);
    CHECK(r == MPI_REQUEST_NULL, "generalized handle not MPI_REQUEST_NULL");
}

static void truncated(int test)
{
    MPI_Errhandler eh;
    MPI_Comm c;
    MPI_Request r;
    MPI_Status st;
    char s[N] = "1234567", b[N / 2];
    int rc;

    OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    OK(MPI_Comm_create_errhandler(count_handler, &eh));
    OK(MPI_Comm_set_errhandler(c, eh));
    handler_calls = 0;
    OK(MPI_Irecv(b, N / 2, MPI_BYTE, 0, 14, c, &r));
    OK(MPI_Send(s, N, MPI_BYTE, 0, 14, c));
    st.MPI_ERROR = MPI_SUCCESS;
    rc = finish(&r, &st, test);
    CHECK(handler_calls == 1, "the communicator's handler was called %d times", handler_calls);
    CHECK(handler_class == MPI_ERR_TRUNCATE, "handler saw class %d", handler_class);
    (void)rc; /* (a handler that returns: the call returns the code) */
    if (!test)
        EXPECT_CLASS(st.MPI_ERROR, MPI_ERR_TRUNCATE, "status.MPI_ERROR of a truncated wait");
    CHECK(r == MPI_REQUEST_NULL, "truncated handle not MPI_REQUEST_NULL");
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Comm_free(&c));
}

static void collective_and_partitioned(int test)
{
    MPI_Request r, ps, pr;
    MPI_Status st;
    int x = mtest_rank + 1, sum = 0;
    int sb[4] = {1, 2, 3, 4}, rb[4] = {0};

    OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm, &r));
    OK(finish(&r, &st, test));
    CHECK(sum == mtest_size * (mtest_size + 1) / 2, "Iallreduce sum %d", sum);
    CHECK(r == MPI_REQUEST_NULL, "collective handle not MPI_REQUEST_NULL");

    OK(MPI_Precv_init(rb, 2, 2, MPI_INT, mtest_rank, 15, comm, MPI_INFO_NULL, &pr));
    OK(MPI_Psend_init(sb, 2, 2, MPI_INT, mtest_rank, 15, comm, MPI_INFO_NULL, &ps));
    OK(MPI_Start(&pr));
    OK(MPI_Start(&ps));
    OK(MPI_Pready(0, ps));
    OK(MPI_Pready(1, ps));
    OK(finish(&ps, MPI_STATUS_IGNORE, test));
    OK(finish(&pr, &st, test));
    for (int i = 0; i < 4; i++)
        CHECK(rb[i] == sb[i], "partitioned rb[%d] = %d", i, rb[i]);
    CHECK(ps != MPI_REQUEST_NULL && pr != MPI_REQUEST_NULL, "partitioned handle freed");
    OK(MPI_Request_free(&ps));
    OK(MPI_Request_free(&pr));
}

static void *sender(void *arg)
{
    static int v = 99;
    (void)arg;
    OK(MPI_Send(&v, 1, MPI_INT, mtest_rank, 16, comm));
    return NULL;
}

/* Another thread completes what this one waits on (MPI_THREAD_MULTIPLE). */
static void other_thread(int test)
{
    MPI_Request r;
    MPI_Status st;
    pthread_t t;
    int b = 0;

    OK(MPI_Irecv(&b, 1, MPI_INT, mtest_rank, 16, comm, &r));
    CHECK(pthread_create(&t, NULL, sender, NULL) == 0, "pthread_create");
    OK(finish(&r, &st, test));
    pthread_join(t, NULL);
    CHECK(b == 99, "received %d from the other thread", b);
    expect_status(&st, mtest_rank, 16, (int)sizeof(int), "receive the other thread sent");
}

int main(int argc, char **argv)
{
    /* ("single": MPI_Init, the device's unlocked mode) */
    int single = argc > 1 && strcmp(argv[1], "single") == 0;
    int provided = single ? (mtest_init(&argc, &argv), MPI_THREAD_SINGLE)
                          : mtest_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    for (int test = 0; test < 2; test++) {
        null_and_self(test);
        if (mtest_size > 1 && mtest_rank < 2) {
            MPI_Comm pair;
            MPI_Comm save = comm;
            OK(MPI_Comm_split(comm, 0, mtest_rank, &pair));
            comm = pair;
            two_ranks(test);
            comm = save;
            OK(MPI_Comm_free(&pair));
        } else if (mtest_size > 1) {
            MPI_Comm none;
            OK(MPI_Comm_split(comm, MPI_UNDEFINED, mtest_rank, &none));
        }
        persistent(test);
        cancelled(test);
        generalized(test);
        truncated(test);
        collective_and_partitioned(test);
        if (provided == MPI_THREAD_MULTIPLE)
            other_thread(test);
    }
    OK(MPI_Comm_free(&comm));
    return mtest_finish();
}
