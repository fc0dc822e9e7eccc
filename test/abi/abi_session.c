/*
 * Sessions, generalized requests and status functions through the standard
 * ABI: a session error handler receives the standard session handle, a
 * generalized request's query function fills a standard MPI_Status whose
 * fields MPI_Wait returns, and MPI_Status_set/get_* keep the standard's
 * values (MPI_ANY_TAG, MPI_PROC_NULL, error classes).
 */
#include <mpi.h>
#include <string.h>

#include "abi_util.h"

static MPI_Session seen_session;
static int session_calls;

static void session_handler(MPI_Session *s, int *code, ...)
{
    (void)code;
    seen_session = *s;
    session_calls++;
}

static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_source(st, 3);
    MPI_Status_set_tag(st, 7);
    MPI_Status_set_error(st, MPI_SUCCESS);
    MPI_Status_set_elements(st, MPI_INT, 2);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ++*(int *)extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Session session;
    MPI_Errhandler eh;
    int freed = 0, v, count;

    MPI_Init(&argc, &argv); /* first: Canal refuses MPI_Init after MPI_Session_init (see report) */
    MPI_Session_create_errhandler(session_handler, &eh);
    MPI_Session_init(MPI_INFO_NULL, eh, &session);
    {
        char name[64];
        int len = sizeof name;
        int err = MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 100000, &len, name);
        CHECK(err != MPI_SUCCESS);
        CHECK(session_calls == 1);
        CHECK(seen_session == session);
    }

    {
        MPI_Request req;
        MPI_Status st;
        MPI_Grequest_start(query, free_fn, cancel_fn, &freed, &req);
        MPI_Grequest_complete(req);
        MPI_Wait(&req, &st);
        CHECK(req == MPI_REQUEST_NULL);
        CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 7);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 2);
        CHECK(freed == 1);
    }
    {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        MPI_Status_set_source(&st, MPI_PROC_NULL);
        MPI_Status_set_tag(&st, MPI_ANY_TAG);
        MPI_Status_set_error(&st, MPI_ERR_TRUNCATE);
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
        CHECK(st.MPI_ERROR == MPI_ERR_TRUNCATE);
        MPI_Status_get_source(&st, &v);
        CHECK(v == MPI_PROC_NULL);
        MPI_Status_get_tag(&st, &v);
        CHECK(v == MPI_ANY_TAG);
        MPI_Status_get_error(&st, &v);
        CHECK(v == MPI_ERR_TRUNCATE);
    }
    MPI_Session_finalize(&session);
    CHECK(session == MPI_SESSION_NULL);
    MPI_Errhandler_free(&eh);
    return abi_finish();
}
