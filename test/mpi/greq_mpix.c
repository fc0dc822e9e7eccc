/*
 * greq_mpix: MPICH's generalized-request extension, as tools written for
 * MPICH use it (ROMIO's nonblocking I/O drives its requests this way).
 * MPIX_Grequest_start and MPIX_Grequest_class_create/allocate make requests
 * that MPI drives: while a program tests or waits and the request is not
 * complete, MPI calls its poll function (or its wait function when there is
 * no poll), which completes it after a few calls; MPI_Wait, MPI_Test,
 * MPI_Waitall and MPI_Testany all work on them, the query function fills
 * the status, the free function runs once. Plain MPI_Grequest_start
 * requests are not driven. Bad arguments are MPI_ERR_ARG.
 */
#include "mtest.h"

typedef struct {
    MPI_Request req;
    int polls, need, freed, queried;
} op_t;

static int query_fn(void *extra, MPI_Status *st)
{
    op_t *o = extra;
    o->queried++;
    MPI_Status_set_elements(st, MPI_BYTE, 42);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ((op_t *)extra)->freed++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static int poll_fn(void *extra, MPI_Status *st)
{
    op_t *o = extra;
    (void)st;
    if (++o->polls == o->need)
        MPI_Grequest_complete(o->req);
    return MPI_SUCCESS;
}

static int wait_fn(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < count; i++)
        poll_fn(states[i], st);
    return MPI_SUCCESS;
}

static void check_done(op_t *o, const char *what)
{
    CHECK(o->polls == o->need, "%s: %d polls, expected %d", what, o->polls, o->need);
    CHECK(o->freed == 1, "%s: free_fn ran %d times", what, o->freed);
    CHECK(o->queried == 1, "%s: query_fn ran %d times", what, o->queried);
}

int main(int argc, char **argv)
{
    op_t a = {0}, b = {0}, c[4] = {{0}}, d = {0};
    MPI_Request rs[4];
    MPI_Status st;
    MPIX_Grequest_class cls, cls2;
    int flag = 0, idx = -1, count = 0, err;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* MPIX_Grequest_start with a poll function, completed in MPI_Wait */
    a.need = 5;
    CHECK(MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, &a, &a.req) ==
              MPI_SUCCESS, "MPIX_Grequest_start failed");
    CHECK(MPI_Wait(&a.req, &st) == MPI_SUCCESS, "MPI_Wait failed");
    CHECK(a.req == MPI_REQUEST_NULL, "the request was not freed");
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 42, "status count %d, expected 42 from query_fn", count);
    check_done(&a, "MPIX_Grequest_start + MPI_Wait");

    /* only a wait function, completed by MPI_Test in a loop */
    b.need = 3;
    MPIX_Grequest_start(query_fn, free_fn, cancel_fn, NULL, wait_fn, &b, &b.req);
    for (int i = 0; i < 100 && !flag; i++)
        MPI_Test(&b.req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "MPI_Test never saw the wait-driven request complete");
    check_done(&b, "wait function + MPI_Test");

    /* a class, four requests, MPI_Waitall and MPI_Testany */
    CHECK(MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, &cls) ==
              MPI_SUCCESS, "MPIX_Grequest_class_create failed");
    MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, NULL, &cls2);
    CHECK(cls != cls2, "two classes got the same handle %d", cls);
    for (int i = 0; i < 4; i++) {
        c[i].need = 1 + i;
        CHECK(MPIX_Grequest_class_allocate(i % 2 ? cls : cls2, &c[i], &c[i].req) == MPI_SUCCESS,
              "MPIX_Grequest_class_allocate failed");
        rs[i] = c[i].req;
    }
    flag = 0;
    for (int i = 0; i < 100 && !flag; i++)
        MPI_Testany(4, rs, &idx, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && idx == 0, "MPI_Testany: flag %d index %d, expected the first request", flag, idx);
    CHECK(MPI_Waitall(4, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
    for (int i = 0; i < 4; i++)
        check_done(&c[i], "class request");

    /* MPI's own generalized requests are not driven: the program completes them */
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &d, &d.req);
    flag = 1;
    MPI_Test(&d.req, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag && d.polls == 0, "a plain generalized request completed by itself");
    MPI_Grequest_complete(d.req);
    MPI_Wait(&d.req, MPI_STATUS_IGNORE);
    CHECK(d.freed == 1, "plain request: free_fn ran %d times", d.freed);

    /* bad arguments */
    err = MPIX_Grequest_class_allocate(cls2 + 100, &d, &d.req);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "unknown class gave class %d",
          mtest_error_class(err));
    err = MPIX_Grequest_class_create(NULL, free_fn, cancel_fn, poll_fn, NULL, &cls);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "NULL query_fn gave class %d",
          mtest_error_class(err));
    return mtest_finish();
}
