/*
 * Completion of requests (MPI 4.0 sections 3.7-3.9 and 13): MPI_Wait/Test
 * and their any/some/all forms, MPI_Start(all), MPI_Request_free,
 * MPI_Request_get_status, MPI_Cancel, status queries and setters, and
 * generalized requests. A request handle is the device request's index, so
 * looking one up costs an array access. The entry points are generated from
 * the API table (mpi/api/); the functions here are their implementations.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"


/* ---------------------------------------------------------------- status */
size_t mpi_status_bytes(const MPI_Status *st)
{
    unsigned long long lo = (unsigned)st->count_lo;
    unsigned long long hi = (unsigned)st->count_hi_and_cancelled >> 1;
    return (size_t)(lo | (hi << 32));
}

void mpi_status_set_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE || st == NULL)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    mpi_status_set_bytes(st, 0, 0);
}

/* ---------------------------------------------------------------- generalized */
typedef struct {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    /* MPICH's extension (MPIX_Grequest_start/class): how MPI drives the
     * operation while a program tests or waits on it; NULL for MPI's own */
    MPIX_Grequest_poll_function *poll;
    MPIX_Grequest_wait_function *wait;
    int cb_err; /* the first error a poll or wait callback returned */
    void *extra;
    const mpi_greq_lang_t *lang; /* NULL: the callbacks are C functions */
} greq_t;

/* The three callbacks of MPI_Grequest_start, in the language they were
 * written in (MPICH's Fortran library marks its requests, mpi/mpich_lang.c). */
static int greq_query(greq_t *g, MPI_Status *st)
{
    return g->lang ? g->lang->query(g->query, g->extra, st) : g->query(g->extra, st);
}

static int greq_free(greq_t *g)
{
    return g->lang ? g->lang->free_fn(g->free_fn, g->extra) : g->free_fn(g->extra);
}

static int greq_cancel(greq_t *g, int complete)
{
    return g->lang ? g->lang->cancel(g->cancel, g->extra, complete) : g->cancel(g->extra, complete);
}

/* A generalized request of MPICH's extension is driven by MPI: each time a
 * program tests or waits on it and it is not complete yet, its poll function
 * (or, without one, its wait function with a timeout of 0) runs and may call
 * MPI_Grequest_complete. A failing callback's error is kept and reported
 * when the request is completed. */
static void greq_drive(adi_request_t *r)
{
    greq_t *g = r->mpi_ext;
    MPI_Status st;
    void *state;
    int err = MPI_SUCCESS;

    if (g == NULL || (g->poll == NULL && g->wait == NULL))
        return;
    mpi_status_set_empty(&st);
    if (g->poll != NULL) {
        err = g->poll(g->extra, &st);
    } else {
        state = g->extra;
        err = g->wait(1, &state, 0.0, &st);
    }
    if (err != MPI_SUCCESS && g->cb_err == MPI_SUCCESS)
        g->cb_err = err;
}

/* ---------------------------------------------------------------- completion */
/* req_is_done for the kinds that are not a plain send or receive: a
 * generalized request is driven (greq_drive), a persistent one is done
 * when its active operation is (or none is active). */
static __attribute__((noinline)) int req_is_done_other(adi_request_t *r)
{
    if (r->kind == ADI_REQ_GREQ && !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
        greq_drive(r);
    if (r->kind == ADI_REQ_PREQ_SEND || r->kind == ADI_REQ_PREQ_RECV ||
        r->kind == ADI_REQ_PREQ_OTHER)
        return r->inner == NULL || __atomic_load_n(&r->inner->done, __ATOMIC_ACQUIRE) ||
               adi_recv_failure_pending(r->inner, NULL);
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) || adi_recv_failure_pending(r, NULL);
}

/* Whether a wait on r can end. Inline for a send or receive (the kinds
 * below ADI_REQ_GREQ), the calls of every MPI_Wait and of each predicate
 * call of its poll loop: the done flag, and (ULFM) an any-source receive a
 * failure holds up ends the wait, not the request; one load while nobody
 * failed. It cost 21 instructions a call out of line, four calls a wait. */
static inline int req_is_done(adi_request_t *r)
{
    if (__builtin_expect(r->kind >= ADI_REQ_GREQ, 0))
        return req_is_done_other(r);
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) || adi_recv_failure_pending(r, NULL);
}

/* req_is_done, for the common answer first: a nonpersistent request
 * already complete (a window's receives at MPI_Waitall) costs two loads. */
static inline int req_done_now(adi_request_t *r)
{
    if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && r->kind != ADI_REQ_PREQ_SEND &&
        r->kind != ADI_REQ_PREQ_RECV && r->kind != ADI_REQ_PREQ_OTHER)
        return 1;
    return req_is_done(r);
}

/* The operation of r (the inner one of a persistent request) when it is
 * still active: an MPI_ANY_SOURCE receive that req_is_done let go because a
 * possible sender failed (ULFM); NULL otherwise. */
static inline adi_request_t *req_held_up(adi_request_t *r)
{
    adi_request_t *op = r->kind == ADI_REQ_PREQ_RECV ? r->inner : r;
    if (__builtin_expect(op == NULL || op->kind != ADI_REQ_RECV ||
                             __atomic_load_n(&op->done, __ATOMIC_ACQUIRE),
                         1))
        return NULL;
    return op;
}

/* The error of a wait on op, held up (req_held_up): class
 * MPIX_ERR_PROC_FAILED_PENDING, or MPIX_ERR_PROC_FAILED when the caller
 * completes the receive itself (`blocking`). */
static __attribute__((noinline, cold)) int held_up_code(adi_request_t *op, const char *fn,
                                                        int blocking)
{
    char detail[256];
    int peer = -1;
    adi_recv_failure_pending(op, &peer);
    if (blocking)
        snprintf(detail, sizeof detail,
                 "rank %d of MPI_COMM_WORLD, a possible sender of this MPI_ANY_SOURCE receive, "
                 "failed; the receive was cancelled (MPIX_Comm_failure_ack lets such receives "
                 "go on)",
                 peer);
    else
        snprintf(detail, sizeof detail,
                 "rank %d of MPI_COMM_WORLD, a possible sender of this MPI_ANY_SOURCE receive, "
                 "failed; the request stays active (it may still match a message after "
                 "MPIX_Comm_failure_ack, or be cancelled)",
                 peer);
    return mpi_err_code_new(blocking ? MPIX_ERR_PROC_FAILED : MPIX_ERR_PROC_FAILED_PENDING, fn,
                            detail);
}

/* The error of a completed operation, named after the call that completed
 * it (fn: MPI_Recv, MPI_Wait, ...). */
static int op_error_code(adi_request_t *r, const char *fn)
{
    if (r->status.error == 0)
        return MPI_SUCCESS;
    return mpi_status_error_code(&r->status, r->size, fn);
}

int mpi_status_error_code(const adi_status_t *st, size_t size, const char *fn)
{
    char detail[256];
    if (st->error == 0)
        return MPI_SUCCESS;
    if (st->error == CANAL_ERR_TRUNCATE)
        snprintf(detail, sizeof detail,
                 "message from rank %d with tag %d had %zu bytes; the receive buffer holds %zu",
                 st->source, st->tag, size, st->bytes);
    else if (st->error == CANAL_ERR_PEER && st->peer >= 0 && st->peer < adi_job_size())
        snprintf(detail, sizeof detail,
                 "rank %d of MPI_COMM_WORLD failed (the process died or its connection was "
                 "lost) before the operation could complete",
                 st->peer);
    else if (st->error == CANAL_ERR_PEER && st->peer >= 0)
        snprintf(detail, sizeof detail,
                 "a process of another job (peer %d) failed before the operation could complete",
                 st->peer);
    else if (st->error == CANAL_ERR_PEER_PENDING && st->peer >= 0)
        snprintf(detail, sizeof detail,
                 "rank %d of MPI_COMM_WORLD, a possible sender of this MPI_ANY_SOURCE receive, "
                 "failed (MPIX_Comm_failure_ack lets such receives go on)",
                 st->peer);
    else if (st->error == CANAL_ERR_REVOKED)
        snprintf(detail, sizeof detail, "the communicator was revoked (MPIX_Comm_revoke)");
    else if (st->error == CANAL_ERR_REMOTE && st->peer >= 0)
        snprintf(detail, sizeof detail,
                 "rank %d of MPI_COMM_WORLD dropped the message it had announced (its "
                 "collective was abandoned and the bytes could not be kept)",
                 st->peer);
    else
        snprintf(detail, sizeof detail, "the operation failed (%s)",
                 common_status_name(st->error));
    return mpi_err_code_new(st->error > 0 ? st->error : mpi_err_class_of_status(st->error), fn,
                            detail);
}

/* Request r is done (req_is_done): fill the status, release what must be
 * released, and say whether the handle becomes MPI_REQUEST_NULL. */
static int finish_locked(adi_request_t *r, const char *fn, MPI_Request *handle, MPI_Status *st)
{
    int err;

    switch (r->kind) {
    case ADI_REQ_PREQ_SEND:
    case ADI_REQ_PREQ_RECV:
    case ADI_REQ_PREQ_OTHER:
        if (r->inner == NULL) {
            mpi_status_set_empty(st);
            return MPI_SUCCESS;
        }
        if (__builtin_expect(!__atomic_load_n(&r->inner->done, __ATOMIC_ACQUIRE), 0))
            return held_up_code(r->inner, fn, 0); /* (req_held_up) the request stays active */
        err = op_error_code(r->inner, fn);
        mpi_status_set(st, &r->inner->status);
        adi_request_free(r->inner);
        r->inner = NULL;
        return err; /* persistent: the handle stays */
    case ADI_REQ_GREQ: {
        greq_t *g = r->mpi_ext;
        MPI_Status tmp;
        MPI_Status *sp = (st == MPI_STATUS_IGNORE || st == NULL) ? &tmp : st;
        mpi_status_set_empty(sp);
        err = greq_query(g, sp);
        if (err == MPI_SUCCESS)
            err = greq_free(g);
        if (err == MPI_SUCCESS)
            err = g->cb_err;
        free(g);
        break;
    }
    default:
        if (__builtin_expect(!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE), 0))
            return held_up_code(r, fn, 0); /* (req_held_up) the request stays active */
        err = op_error_code(r, fn);
        mpi_status_set(st, &r->status);
        break;
    }
    adi_request_free(r);
    if (handle != NULL)
        *handle = MPI_REQUEST_NULL;
    return err;
}

/* finish_locked with its common case inline: a send or receive (the kinds
 * below ADI_REQ_GREQ) that is done and succeeded, the end of every
 * MPI_Wait (36 instructions and a call out of line). */
static inline __attribute__((always_inline)) int finish_locked_fast(adi_request_t *r,
                                                                    const char *fn,
                                                                    MPI_Request *handle,
                                                                    MPI_Status *st)
{
    if (__builtin_expect(r->kind >= ADI_REQ_GREQ || !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) ||
                             r->status.error != 0,
                         0))
        return finish_locked(r, fn, handle, st);
    mpi_status_set(st, &r->status);
    adi_request_free(r);
    if (handle != NULL)
        *handle = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* Under the device lock: a completion callback (managed-runtime unpinning,
 * isendrecv) may still be adjusting the status in another thread's progress
 * after `done` became visible; the lock waits for it. */
static int finish(adi_request_t *r, const char *fn, MPI_Request *handle, MPI_Status *st)
{
    int err;
    adi_lock();
    err = finish_locked_fast(r, fn, handle, st);
    adi_unlock();
    return err;
}

static int wait_pred(void *arg) { return req_is_done(arg); }

/* What a thread asleep in the wait of r waits for (adi_wait_until_watch):
 * the done flag of its operation; nothing it can name for a generalized
 * request (its user's poll function decides). */
static void req_watch(adi_request_t *r, adi_watch_t *out)
{
    if (r->kind == ADI_REQ_PREQ_SEND || r->kind == ADI_REQ_PREQ_RECV ||
        r->kind == ADI_REQ_PREQ_OTHER)
        r = r->inner;
    if (r == NULL || r->kind == ADI_REQ_GREQ)
        out->word = NULL;
    else
        adi_watch_request(r, out);
}

static void wait_watch(void *arg, adi_watch_t *out) { req_watch(arg, out); }

/* A blocking call's own receive (MPI_Recv from MPI_ANY_SOURCE) held up by a
 * failure is cancelled and fails with MPIX_ERR_PROC_FAILED, as ULFM says; a
 * message that matched meanwhile completes it instead. */
static __attribute__((noinline, cold)) int blocking_held_up(adi_request_t *r, const char *fn,
                                                            MPI_Status *st)
{
    int err = held_up_code(r, fn, 1);
    adi_cancel(r);
    adi_wait(r);
    if (r->status.cancelled) {
        adi_request_free(r);
        return err;
    }
    return finish(r, fn, NULL, st);
}

/* A collective's request (nonblocking, or the active one of a persistent
 * collective): coll/ waits for it first, watching for ranks that called
 * different collectives (they complete it with the mismatch instead of
 * hanging; coll_request_wait). */
static adi_request_t *coll_req_of(adi_request_t *r)
{
    if (r->kind == ADI_REQ_PREQ_OTHER)
        r = r->inner;
    return r != NULL && r->kind == ADI_REQ_COLL ? r : NULL;
}

static __attribute__((noinline, cold)) canal_status_t coll_wait(adi_request_t *r)
{
    return (r = coll_req_of(r)) != NULL ? coll_request_wait(r) : CANAL_OK;
}

static int finish(adi_request_t *r, const char *fn, MPI_Request *handle, MPI_Status *st);

/* coll_wait found the mismatch (a message naming both calls, this
 * thread's detail): finish r with that message. */
static __attribute__((noinline, cold)) int coll_failed(adi_request_t *r, const char *fn,
                                                       MPI_Request *handle, MPI_Status *st,
                                                       canal_status_t cst)
{
    char detail[512];
    int err;
    snprintf(detail, sizeof detail, "%s", common_err_detail());
    err = finish(r, fn, handle, st);
    return err != MPI_SUCCESS ? mpi_err_code_new(mpi_err_class_of_status(cst), fn, detail) : err;
}

/* Wait for r and finish it: fill the status, free it (the handle becomes
 * MPI_REQUEST_NULL unless it is persistent) and return its error. A wait
 * that polls finishes in the poll's own device-lock round
 * (adi_wait_until_locked) rather than taking the lock again; not for a
 * generalized request, whose predicate runs the user's poll function, which
 * must not run under the device lock. handle NULL: a blocking call's own
 * request, which a failure may hold up (blocking_held_up); inlined with a
 * handle (wait_device), that branch folds away. */
static inline __attribute__((always_inline)) int complete_one(adi_request_t *r, const char *fn,
                                                              MPI_Request *handle, MPI_Status *st)
{
    int err;
    if (!req_is_done(r)) {
        if (__builtin_expect(r->kind == ADI_REQ_COLL || r->kind == ADI_REQ_PREQ_OTHER, 0)) {
            canal_status_t cst = coll_wait(r);
            if (cst < 0)
                return coll_failed(r, fn, handle, st, cst);
        }
        if (__builtin_expect(r->kind != ADI_REQ_GREQ, 1)) {
            /* (just found not done: the wait polls before it looks again) */
            adi_wait_polling_locked_watch(wait_pred, wait_watch, r);
            if (__builtin_expect(handle == NULL && req_held_up(r) != NULL, 0)) {
                adi_wait_unlock();
                return blocking_held_up(r, fn, st);
            }
            err = finish_locked_fast(r, fn, handle, st);
            adi_wait_unlock();
            return err;
        }
        adi_wait_until(wait_pred, r);
    }
    if (__builtin_expect(handle == NULL && req_held_up(r) != NULL, 0))
        return blocking_held_up(r, fn, st);
    return finish(r, fn, handle, st);
}

int mpi_request_complete_one(adi_request_t *r, const char *fn, MPI_Request *handle, MPI_Status *st)
{
    return complete_one(r, fn, handle, st);
}

static __attribute__((noinline, cold)) int lookup_failed(MPI_Request h, const char *fn)
{
    return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn, "request=%#x is not a valid request%s",
                        (unsigned)h, h == MPI_REQUEST_NULL ? " (MPI_REQUEST_NULL)" : "");
}

static inline __attribute__((always_inline)) int lookup(MPI_Request h, const char *fn,
                                                        adi_request_t **out)
{
    adi_request_t *r = mpi_request_get(h);
    if (__builtin_expect(r == NULL, 0))
        return lookup_failed(h, fn);
    *out = r;
    return MPI_SUCCESS;
}

static mpi_comm_t *req_comm(adi_request_t *r)
{
    mpi_comm_t *c = r->owner_handle ? mpi_comm_get(r->owner_handle) : NULL;
    return c;
}

/* wait_device's failure: the error goes to the communicator the request
 * was on (its handle read before the request was freed). */
static __attribute__((noinline, cold)) int wait_failed(int err, int comm_handle,
                                                       MPI_Status *status, const char *fn)
{
    mpi_comm_t *c = comm_handle ? mpi_comm_get(comm_handle) : NULL;
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = err;
    return mpi_err_raise_code(c, err, fn);
}

/* MPI_Wait on a request of the device (out of line: the two shared handles
 * of mpi_wait_impl save no registers). The lookup and complete_one are
 * inline; the communicator is looked up only when the operation failed. */
static __attribute__((noinline)) int wait_device(MPI_Request *request, MPI_Status *status,
                                                 const char *fn)
{
    adi_request_t *r = NULL;
    int comm_handle, err;

    if (__builtin_expect((err = lookup(*request, fn, &r)) != MPI_SUCCESS, 0))
        return mpi_result(err);
    comm_handle = r->owner_handle;
    err = complete_one(r, fn, request, status);
    if (__builtin_expect(err != MPI_SUCCESS, 0))
        return wait_failed(err, comm_handle, status, fn);
    return MPI_SUCCESS;
}

int mpi_wait_impl(MPI_Request *request, MPI_Status *status, const char *fn)
{
    adi_request_t *shared = mpi_request_shared_of(*request);

    if (shared != NULL) { /* what finish() does for it, without the lock */
        mpi_status_set(status, &shared->status);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (*request == MPI_REQUEST_NULL) {
        mpi_status_set_empty(status);
        return MPI_SUCCESS;
    }
    return wait_device(request, status, fn);
}

/* MPI_Test on a request of the device (see wait_device). */
/* Tests that found a request not done: every 64th is watched
 * (test_watched). Counted with a relaxed load and store, not a locked
 * increment (two plain moves; threads that test at once may lose a count,
 * which only moves a look) and not per thread (a library's thread-local
 * costs a call). */
static unsigned tests_undone;

static inline int test_watched(void)
{
    unsigned n = __atomic_load_n(&tests_undone, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&tests_undone, n, __ATOMIC_RELAXED);
    return __builtin_expect((n & 63) == 0, 0);
}

/* A loop of MPI_Test on a collective's request r not done is watched as
 * MPI_Wait is (coll_request_tested, at every 64th test that finds a request
 * not done): ranks that called different collectives complete it with
 * the mismatch, returned now with its message. */
static __attribute__((noinline, cold)) int test_coll(adi_request_t *r, MPI_Request *request,
                                                     int *flag, MPI_Status *status,
                                                     const char *fn)
{
    mpi_comm_t *c = req_comm(r);
    canal_status_t cst = coll_request_tested(coll_req_of(r));
    int err;
    if (cst >= 0)
        return MPI_SUCCESS;
    *flag = 1;
    err = coll_failed(r, fn, request, status, cst);
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = err;
    return mpi_err_raise_code(c, err, fn);
}

static __attribute__((noinline)) int test_device(MPI_Request *request, int *flag,
                                                 MPI_Status *status, const char *fn)
{
    adi_request_t *r = NULL;
    mpi_comm_t *c = NULL;
    int err;

    if ((err = lookup(*request, fn, &r)))
        return mpi_result(err);
    if (!req_is_done(r))
        adi_progress();
    *flag = req_is_done(r);
    if (!*flag) {
        if (test_watched() && coll_req_of(r) != NULL)
            return test_coll(r, request, flag, status, fn);
        return MPI_SUCCESS;
    }
    c = req_comm(r);
    if (req_held_up(r) != NULL)
        *flag = 0; /* not complete: the error says why (ULFM) */
    err = finish(r, fn, request, status);
    if (err) {
        if (status != MPI_STATUS_IGNORE)
            status->MPI_ERROR = err;
        return mpi_err_raise_code(c, err, fn);
    }
    return MPI_SUCCESS;
}

int mpi_test_impl(MPI_Request *request, int *flag, MPI_Status *status, const char *fn)
{
    adi_request_t *shared = mpi_request_shared_of(*request);

    if (shared != NULL) { /* (mpi_wait_impl) */
        *flag = 1;
        mpi_status_set(status, &shared->status);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        mpi_status_set_empty(status);
        return MPI_SUCCESS;
    }
    return test_device(request, flag, status, fn);
}

/* Arrays of requests (count checked by the entry point): validate once,
 * NULL entries for MPI_REQUEST_NULL. The array is `small` (of `nsmall`
 * entries) when it fits, else malloc'd: free it only if it is not `small`. */
static int lookup_array_buf(int count, MPI_Request reqs[], const char *fn, adi_request_t **small,
                            int nsmall, adi_request_t ***out)
{
    adi_request_t **rs;
    if (count > 0 && reqs == NULL)
        return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn, "array_of_requests is NULL");
    rs = count <= nsmall ? small : malloc(sizeof *rs * (size_t)(count ? count : 1));
    if (rs == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "no memory for %d requests", count);
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) {
            rs[i] = NULL;
            continue;
        }
        /* (set up, which its done flag says: a window of MPI_Isend,
         * mpi/pt2pt.c; req_is_done of its kind was a call of 18
         * instructions per request) */
        if ((rs[i] = mpi_request_shared_of(reqs[i])) != NULL &&
            __atomic_load_n(&rs[i]->done, __ATOMIC_ACQUIRE))
            continue;
        rs[i] = mpi_request_get(reqs[i]);
        if (rs[i] == NULL) {
            if (rs != small)
                free(rs);
            return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn,
                                 "array_of_requests[%d]=%#x is not a valid request", i,
                                 (unsigned)reqs[i]);
        }
    }
    *out = rs;
    return MPI_SUCCESS;
}

static int lookup_array(int count, MPI_Request reqs[], const char *fn, adi_request_t ***out)
{
    return lookup_array_buf(count, reqs, fn, NULL, -1, out);
}

static int is_inactive(adi_request_t *r)
{
    return r == NULL || ((r->kind == ADI_REQ_PREQ_SEND || r->kind == ADI_REQ_PREQ_RECV ||
                          r->kind == ADI_REQ_PREQ_OTHER) &&
                         r->inner == NULL);
}

typedef struct {
    int count;
    adi_request_t **rs;
    int mode; /* 0 all, 1 any, 2 some */
    int next; /* mode 0: requests before it are known to be done */
    int failed; /* MPI_Waitall: the first collective found mismatched, or -1 */
    int failed_code; /* (its error code, made at the failure: the message naming both calls) */
    const char *fn;
} multi_t;

static int multi_pred(void *arg)
{
    multi_t *m = arg;
    int active = 0;
    /* A request stays done once done, so MPI_Waitall resumes its scan where
     * the last one stopped: rescanning from 0 at every progress poll made
     * 100,000 outstanding requests quadratic (minutes). */
    for (int i = m->mode == 0 ? m->next : 0; i < m->count; i++) {
        if (is_inactive(m->rs[i]))
            continue;
        active++;
        if (mpi_request_is_shared(m->rs[i]) || req_done_now(m->rs[i])) {
            if (m->mode != 0)
                return 1;
        } else if (m->mode == 0) {
            m->next = i;
            return 0;
        }
    }
    if (m->mode == 0) {
        m->next = m->count; /* (all done: a look again scans nothing) */
        return 1;
    }
    return active == 0;
}

/* MPI_Waitall's watch: the last request not done yet (requests mostly
 * complete in the order they were started, so a sleeping thread is woken
 * once for the array, not once per request). */
static void multi_watch(void *arg, adi_watch_t *out)
{
    multi_t *m = arg;
    out->word = NULL;
    for (int i = m->count - 1; m->mode == 0 && i >= m->next; i--)
        if (!is_inactive(m->rs[i]) && !mpi_request_is_shared(m->rs[i]) &&
            !__atomic_load_n(&m->rs[i]->done, __ATOMIC_ACQUIRE)) {
            req_watch(m->rs[i], out);
            return;
        }
}

/* The collective request m->rs[i] failed with cst, a mismatch (this
 * thread's detail names both calls): the first one's error code is made
 * now, with that message. */
static void multi_failed(multi_t *m, int i, canal_status_t cst)
{
    if (m->failed >= 0)
        return;
    m->failed = i;
    m->failed_code = mpi_err_code_new(mpi_err_class_of_status(cst), m->fn, common_err_detail());
}

/* MPI_Waitall that has to wait: the collectives' requests among the ones
 * not done yet are waited for first, each as MPI_Wait waits for one
 * (coll_wait: ranks that called different collectives complete it with the
 * mismatch instead of hanging; the error then reaches the request's status
 * like any other). Waiting for them one by one is waiting for all: progress
 * is the device's, whichever request a wait names. Not on the path of an
 * array already done; a scan of the array when the call is going to wait
 * anyway. */
static __attribute__((noinline)) void multi_wait_colls(multi_t *m)
{
    for (int i = m->next; i < m->count; i++) {
        adi_request_t *r = m->rs[i];
        canal_status_t cst;
        /* (the kind first: a window of receives costs a load and two
         * compares a request) */
        if (r == NULL || (r->kind != ADI_REQ_COLL && r->kind != ADI_REQ_PREQ_OTHER) ||
            is_inactive(r) || mpi_request_is_shared(r) || req_is_done(r))
            continue;
        if ((cst = coll_wait(r)) < 0) /* (r's status has it now) */
            multi_failed(m, i, cst);
    }
}

/* MPI_Waitany/Waitsome, which must return when any request completes,
 * watch their collectives' requests at the device's wait limits
 * (coll_watch_step): each one not done yet gets a look (coll_request_look);
 * ranks that called different collectives complete it with the mismatch
 * (m->failed: the first, its code made here with the message naming both
 * calls) instead of hanging. Only waits that lasted a limit come here.
 * step 0: a test's (coll_request_tested, test_watched). */
static __attribute__((noinline, cold)) void multi_look_colls(multi_t *m, long long step)
{
    for (int i = 0; i < m->count; i++) {
        adi_request_t *r = m->rs[i];
        canal_status_t cst;
        if (is_inactive(r) || mpi_request_is_shared(r) || (r = coll_req_of(r)) == NULL ||
            req_is_done(r))
            continue;
        cst = step > 0 ? coll_request_look(r, step) : coll_request_tested(r);
        if (cst < 0)
            multi_failed(m, i, cst);
    }
}

/* A loop of MPI_Testall/Testany/Testsome is watched as a wait: at every
 * 64th test that finds the array not done, its collectives' requests are
 * told (coll_request_tested), which look at a wait's intervals. */
static void multi_tested(multi_t *m)
{
    if (test_watched())
        multi_look_colls(m, 0);
}

static void multi_wait_any(multi_t *m, const char *fn)
{
    m->failed = -1;
    m->fn = fn;
    for (long long step = coll_watch_step(0); adi_wait_until_for(multi_pred, m, step) != CANAL_OK;
         step = coll_watch_step(step))
        multi_look_colls(m, step);
}

/* Waitall/Testall: wait until every request of rs is done (test: one
 * progress pass at most); 1 when they all are. */
static int multi_all_ready(multi_t *m, int count, adi_request_t **rs, int test, const char *fn)
{
    m->fn = fn;
    m->count = count;
    m->rs = rs;
    m->mode = 0;
    m->next = 0;
    m->failed = -1;
    if (!test) {
        if (!multi_pred(m)) {
            multi_wait_colls(m);
            adi_wait_polling_watch(multi_pred, multi_watch, m);
        }
        return 1;
    }
    if (multi_pred(m))
        return 1;
    adi_progress();
    if (multi_pred(m))
        return 1;
    multi_tested(m);
    return multi_pred(m);
}

static MPI_Status *status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

static int waitall_common(int count, MPI_Request reqs[], MPI_Status statuses[], int test,
                          int *flag, const char *fn)
{
    /* A window of requests (osu_bw's 64) needs no allocation. */
    adi_request_t *small[64], **rs = NULL;
    multi_t m;
    int err, any_err = 0;
    mpi_comm_t *c = NULL;

    if ((err = lookup_array_buf(count, reqs, fn, small, 64, &rs)))
        return mpi_result(err);
    if (!multi_all_ready(&m, count, rs, test, fn)) {
        *flag = 0;
        if (rs != small)
            free(rs);
        return MPI_SUCCESS;
    }
    if (test)
        *flag = 1;
    /* One device lock for the whole array (finish() takes it per request). */
    adi_lock();
    for (int i = 0; i < count; i++) {
        MPI_Status *st = status_at(statuses, i);
        if (rs[i] == NULL) {
            mpi_status_set_empty(st);
            continue;
        }
        if (mpi_request_is_shared(rs[i])) { /* what finish_locked does for it */
            if (st != MPI_STATUS_IGNORE) {
                mpi_status_set(st, &rs[i]->status);
                st->MPI_ERROR = MPI_SUCCESS;
            }
            reqs[i] = MPI_REQUEST_NULL;
            continue;
        }
        if (c == NULL)
            c = req_comm(rs[i]);
        if (__builtin_expect((rs[i]->kind == ADI_REQ_RECV || rs[i]->kind == ADI_REQ_SEND) &&
                                 __atomic_load_n(&rs[i]->done, __ATOMIC_ACQUIRE) &&
                                 rs[i]->status.error == 0,
                             1)) {
            /* what finish_locked does for a plain request that succeeded
             * (multi_all_ready saw it done) */
            mpi_status_set(st, &rs[i]->status);
            if (st != MPI_STATUS_IGNORE)
                st->MPI_ERROR = MPI_SUCCESS;
            adi_request_free(rs[i]);
            reqs[i] = MPI_REQUEST_NULL;
            continue;
        }
        err = finish_locked(rs[i], fn, &reqs[i], st);
        if (err && i == m.failed) /* (the mismatch's own message) */
            err = m.failed_code;
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err)
            any_err = 1;
    }
    adi_unlock();
    if (rs != small)
        free(rs);
    if (any_err)
        return mpi_err_raise(c, MPI_ERR_IN_STATUS, fn,
                             "one or more requests failed; see the MPI_ERROR field of the statuses");
    return MPI_SUCCESS;
}

int mpi_waitall_impl(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses,
                     const char *fn)
{
    return waitall_common(count, array_of_requests, array_of_statuses, 0, NULL, fn);
}

int mpi_testall_impl(int count, MPI_Request array_of_requests[], int *flag,
                     MPI_Status *array_of_statuses, const char *fn)
{
    return waitall_common(count, array_of_requests, array_of_statuses, 1, flag, fn);
}

/* ---------------------------------------------------------------- standard-ABI arrays
 * MPI_Waitall/Testall of libmpi_abi.so.1 (mpiimpl.h, mpi_std_array_t): the
 * same completion as waitall_common, reading the caller's 8-byte requests and
 * writing its 32-byte statuses once, in place, with no copy in the binding.
 * Every request Canal hands out is a direct handle, whose standard value is
 * the int zero-extended, so only MPI_REQUEST_NULL needs a value of its own;
 * any other entry that is no request of Canal's (a value above 32 bits, a
 * predefined handle of another kind) fails the lookup and is named with the
 * caller's value. memcpy reads and writes the caller's pointer-typed entries
 * as integers without breaking C's aliasing rules (one load or store). */
/* The five words of a standard status, each stored on its own: a struct
 * assembled on the stack and copied would be read back with one wide load
 * of several narrow stores, which waits for them to leave the store buffer
 * (measured: some 4 ns per status). */
static inline void std_status_put(char *dst, int source, int tag, int error, int count_lo,
                                  int count_hi_and_cancelled)
{
    memcpy(dst, &source, sizeof(int));
    memcpy(dst + sizeof(int), &tag, sizeof(int));
    memcpy(dst + 2 * sizeof(int), &error, sizeof(int));
    memcpy(dst + 3 * sizeof(int), &count_lo, sizeof(int));
    memcpy(dst + 4 * sizeof(int), &count_hi_and_cancelled, sizeof(int));
}

static void std_status_store(char *dst, const MPI_Status *st, const mpi_std_array_t *conv)
{
    if (__builtin_expect((st->MPI_SOURCE | st->MPI_TAG) >= 0 && st->MPI_ERROR == MPI_SUCCESS, 1)) {
        std_status_put(dst, st->MPI_SOURCE, st->MPI_TAG, MPI_SUCCESS, st->count_lo,
                       st->count_hi_and_cancelled);
        return;
    }
    conv->status_out(dst, st);
}

/* The common case of finish_locked (a completed request of no persistent or
 * generalized kind) writing the standard status directly; 0 when the request
 * needs finish_locked. The communicator is read before the request is freed. */
static int std_finish_plain(adi_request_t *r, const char *fn, char *handle, char *status,
                            const mpi_std_array_t *conv, int *err_out)
{
    const adi_status_t *as = &r->status;
    int err;
    if (r->kind == ADI_REQ_PREQ_SEND || r->kind == ADI_REQ_PREQ_RECV ||
        r->kind == ADI_REQ_PREQ_OTHER || r->kind == ADI_REQ_GREQ ||
        !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
        return 0;
    err = op_error_code(r, fn);
    if (status != NULL) {
        if (__builtin_expect((as->source | as->tag) >= 0 && err == MPI_SUCCESS, 1)) {
            MPI_Count bytes = (MPI_Count)as->bytes;
            std_status_put(status, as->source, as->tag, MPI_SUCCESS, (int)(bytes & 0xffffffff),
                           (int)(((bytes >> 32) << 1) | (as->cancelled ? 1 : 0)));
        } else {
            MPI_Status st;
            mpi_status_set(&st, as);
            st.MPI_ERROR = err;
            conv->status_out(status, &st);
        }
    }
    adi_request_free(r);
    memcpy(handle, &conv->request_null, sizeof conv->request_null);
    *err_out = err;
    return 1;
}

static int std_lookup_array(int count, const char *reqs, const mpi_std_array_t *conv,
                            const char *fn, adi_request_t **small, int nsmall,
                            adi_request_t ***out)
{
    adi_request_t **rs;
    if (count > 0 && reqs == NULL)
        return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn, "array_of_requests is NULL");
    rs = count <= nsmall ? small : malloc(sizeof *rs * (size_t)(count ? count : 1));
    if (rs == NULL)
        return mpi_err_fail(NULL, MPI_ERR_NO_MEM, fn, "no memory for %d requests", count);
    for (int i = 0; i < count; i++) {
        uint64_t v;
        memcpy(&v, reqs + sizeof v * (size_t)i, sizeof v);
        if (v == conv->request_null) {
            rs[i] = NULL;
            continue;
        }
        rs[i] = v >> 32 ? NULL : mpi_request_get((MPI_Request)(uint32_t)v);
        if (rs[i] == NULL) {
            if (rs != small)
                free(rs);
            return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn,
                                 "array_of_requests[%d]=%#llx is not a valid request", i,
                                 (unsigned long long)v);
        }
    }
    *out = rs;
    return MPI_SUCCESS;
}

static int std_waitall_common(int count, char *reqs, char *statuses, int test, int *flag,
                              const mpi_std_array_t *conv, const char *fn)
{
    enum { STD_STATUS_SIZE = 8 * sizeof(int) };
    adi_request_t *small[64], **rs = NULL;
    multi_t m;
    int err, any_err = 0;
    mpi_comm_t *c = NULL;

    if ((err = std_lookup_array(count, reqs, conv, fn, small, 64, &rs)))
        return mpi_result(err);
    if (!multi_all_ready(&m, count, rs, test, fn)) {
        *flag = 0;
        if (rs != small)
            free(rs);
        return MPI_SUCCESS;
    }
    if (test)
        *flag = 1;
    adi_lock();
    for (int i = 0; i < count; i++) {
        char *handle = reqs + sizeof(uint64_t) * (size_t)i;
        char *status = statuses == NULL ? NULL : statuses + STD_STATUS_SIZE * (size_t)i;
        MPI_Status st;
        MPI_Status *sp = status == NULL ? MPI_STATUS_IGNORE : &st;
        if (rs[i] == NULL) {
            mpi_status_set_empty(sp);
        } else {
            MPI_Request h = MPI_REQUEST_NULL + 1; /* no handle: finish_locked writes NULL or leaves it */
            if (c == NULL)
                c = req_comm(rs[i]);
            if (i != m.failed && std_finish_plain(rs[i], fn, handle, status, conv, &err)) {
                any_err |= err != MPI_SUCCESS;
                continue;
            }
            err = finish_locked(rs[i], fn, &h, sp);
            if (err && i == m.failed) /* (the mismatch's own message) */
                err = m.failed_code;
            if (h == MPI_REQUEST_NULL)
                memcpy(handle, &conv->request_null, sizeof conv->request_null);
            st.MPI_ERROR = err;
            any_err |= err != MPI_SUCCESS;
        }
        if (status != NULL)
            std_status_store(status, &st, conv);
    }
    adi_unlock();
    if (rs != small)
        free(rs);
    if (any_err)
        return mpi_err_raise(c, MPI_ERR_IN_STATUS, fn,
                             "one or more requests failed; see the MPI_ERROR field of the statuses");
    return MPI_SUCCESS;
}

int mpi_waitall_std_impl(int count, void *array_of_requests, void *array_of_statuses,
                         const mpi_std_array_t *conv, const char *fn)
{
    return std_waitall_common(count, array_of_requests, array_of_statuses, 0, NULL, conv, fn);
}

int mpi_testall_std_impl(int count, void *array_of_requests, int *flag, void *array_of_statuses,
                         const mpi_std_array_t *conv, const char *fn)
{
    return std_waitall_common(count, array_of_requests, array_of_statuses, 1, flag, conv, fn);
}

static int waitany_common(int count, MPI_Request reqs[], int *index, MPI_Status *status, int test,
                          int *flag, const char *fn)
{
    adi_request_t **rs = NULL;
    multi_t m;
    int err;

    if ((err = lookup_array(count, reqs, fn, &rs)))
        return mpi_result(err);
    m.count = count;
    m.rs = rs;
    m.mode = 1;
    m.next = 0;
    m.failed = -1;
    if (test) {
        m.fn = fn;
        if (!multi_pred(&m)) {
            adi_progress();
            if (!multi_pred(&m))
                multi_tested(&m);
        }
        *flag = multi_pred(&m);
        if (!*flag) {
            /* MPI 4.0 3.7.5: nothing completed -> index is MPI_UNDEFINED */
            *index = MPI_UNDEFINED;
            free(rs);
            return MPI_SUCCESS;
        }
    } else {
        multi_wait_any(&m, fn);
    }
    *index = MPI_UNDEFINED;
    mpi_status_set_empty(status);
    for (int i = 0; i < count; i++) {
        if (is_inactive(rs[i]) || !req_is_done(rs[i]))
            continue;
        mpi_comm_t *c = req_comm(rs[i]);
        *index = i;
        err = finish(rs[i], fn, &reqs[i], status);
        if (err && i == m.failed) /* (the mismatch's own message) */
            err = m.failed_code;
        free(rs);
        if (err) {
            if (status != MPI_STATUS_IGNORE)
                status->MPI_ERROR = err;
            return mpi_err_raise_code(c, err, fn);
        }
        return MPI_SUCCESS;
    }
    free(rs);
    return MPI_SUCCESS;
}

int mpi_waitany_impl(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status,
                     const char *fn)
{
    return waitany_common(count, array_of_requests, indx, status, 0, NULL, fn);
}

int mpi_testany_impl(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                     MPI_Status *status, const char *fn)
{
    return waitany_common(count, array_of_requests, indx, status, 1, flag, fn);
}

static int waitsome_common(int incount, MPI_Request reqs[], int *outcount, int indices[],
                           MPI_Status statuses[], int test, const char *fn)
{
    adi_request_t **rs = NULL;
    multi_t m;
    int err, any_err = 0, n = 0, active = 0;
    mpi_comm_t *c = NULL;

    if (incount > 0 && indices == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array_of_indices is NULL");
    if ((err = lookup_array(incount, reqs, fn, &rs)))
        return mpi_result(err);
    m.count = incount;
    m.rs = rs;
    m.mode = 2;
    m.next = 0;
    m.failed = -1;
    m.fn = fn;
    if (test) {
        adi_progress();
        multi_tested(&m);
    } else {
        multi_wait_any(&m, fn);
    }
    for (int i = 0; i < incount; i++) {
        if (is_inactive(rs[i]))
            continue;
        active++;
        if (!req_is_done(rs[i]))
            continue;
        if (c == NULL)
            c = req_comm(rs[i]);
        MPI_Status *st = status_at(statuses, n);
        err = finish(rs[i], fn, &reqs[i], st);
        if (err && i == m.failed) /* (the mismatch's own message) */
            err = m.failed_code;
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (err)
            any_err = 1;
        indices[n++] = i;
    }
    free(rs);
    *outcount = active == 0 ? MPI_UNDEFINED : n;
    if (any_err)
        return mpi_err_raise(c, MPI_ERR_IN_STATUS, fn,
                             "one or more requests failed; see the MPI_ERROR field of the statuses");
    return MPI_SUCCESS;
}

int mpi_waitsome_impl(int incount, MPI_Request array_of_requests[], int *outcount,
                      int array_of_indices[], MPI_Status *array_of_statuses, const char *fn)
{
    return waitsome_common(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses, 0, fn);
}

int mpi_testsome_impl(int incount, MPI_Request array_of_requests[], int *outcount,
                      int array_of_indices[], MPI_Status *array_of_statuses, const char *fn)
{
    return waitsome_common(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses, 1, fn);
}

/* ---------------------------------------------------------------- start, free, cancel */
static int start_one(adi_request_t *r, const char *fn)
{
    if (r->kind == ADI_REQ_PREQ_SEND || r->kind == ADI_REQ_PREQ_RECV)
        return mpi_preq_start(r, fn);
    if (r->kind == ADI_REQ_PREQ_OTHER) {
        const mpi_persist_ops_t *ops = *(const mpi_persist_ops_t **)r->mpi_ext;
        if (r->inner != NULL)
            return mpi_err_raise(req_comm(r), MPI_ERR_REQUEST, fn, "request %#x is already active",
                                 (unsigned)mpi_request_handle(r));
        return ops->start(r, fn);
    }
    return mpi_err_raise(req_comm(r), MPI_ERR_REQUEST, fn, "request %#x is not persistent",
                         (unsigned)mpi_request_handle(r));
}

int mpi_start_impl(MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    int err = lookup(*request, fn, &r);
    if (err)
        return mpi_result(err);
    return start_one(r, fn);
}

int mpi_startall_impl(int count, MPI_Request array_of_requests[], const char *fn)
{
    adi_request_t **rs = NULL;
    int err = lookup_array(count, array_of_requests, fn, &rs);
    if (err)
        return mpi_result(err);
    for (int i = 0; i < count && err == MPI_SUCCESS; i++) {
        if (rs[i] == NULL)
            err = mpi_err_raise(NULL, MPI_ERR_REQUEST, fn,
                                "array_of_requests[%d] is MPI_REQUEST_NULL", i);
        else
            err = start_one(rs[i], fn);
    }
    free(rs);
    return err;
}

int mpi_request_free_impl(MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    int err;

    if (*request == MPI_REQUEST_NULL)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn, "request is MPI_REQUEST_NULL");
    if ((err = lookup(*request, fn, &r)))
        return mpi_result(err);
    switch (r->kind) {
    case ADI_REQ_PREQ_SEND:
    case ADI_REQ_PREQ_RECV:
    case ADI_REQ_PREQ_OTHER:
        if (r->inner != NULL) {
            adi_lock();
            if (r->inner->done)
                adi_request_free(r->inner);
            else
                r->inner->user_freed = 1;
            adi_unlock();
        }
        if (r->kind == ADI_REQ_PREQ_OTHER)
            (*(const mpi_persist_ops_t **)r->mpi_ext)->release(r);
        else
            mpi_preq_free_args(r);
        adi_request_free(r);
        break;
    case ADI_REQ_GREQ:
        if (r->done) {
            greq_t *g = r->mpi_ext;
            err = greq_free(g);
            free(g);
            adi_request_free(r);
        } else {
            r->user_freed = 1; /* free_fn runs in MPI_Grequest_complete */
        }
        break;
    default:
        adi_lock();
        if (r->done)
            adi_request_free(r);
        else
            r->user_freed = 1;
        adi_unlock();
        break;
    }
    *request = MPI_REQUEST_NULL;
    return err;
}

/* The status of a done request, left as it is (MPI_Request_get_status and
 * the MPI 4.1 _any/_some/_all forms): an inactive one gives the empty
 * status, a generalized request its query_fn's answer. */
static int peek_status(adi_request_t *r, MPI_Status *status)
{
    if (is_inactive(r)) {
        mpi_status_set_empty(status);
        return MPI_SUCCESS;
    }
    if (r->kind == ADI_REQ_GREQ) {
        greq_t *g = r->mpi_ext;
        MPI_Status tmp;
        return greq_query(g, status == MPI_STATUS_IGNORE ? &tmp : status);
    }
    mpi_status_set(status, &(r->inner != NULL ? r->inner : r)->status);
    return MPI_SUCCESS;
}

int mpi_request_get_status_impl(MPI_Request request, int *flag, MPI_Status *status, const char *fn)
{
    adi_request_t *r = NULL;
    int err;

    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        mpi_status_set_empty(status);
        return MPI_SUCCESS;
    }
    if ((err = lookup(request, fn, &r)))
        return mpi_result(err);
    if (!req_is_done(r))
        adi_progress();
    *flag = req_is_done(r);
    if (!*flag)
        return MPI_SUCCESS;
    if (req_held_up(r) != NULL) {
        *flag = 0; /* (ULFM: a possible sender failed; the request stays active) */
        return mpi_err_raise_code(req_comm(r), held_up_code(req_held_up(r), fn, 0), fn);
    }
    return peek_status(r, status);
}

/* MPI 4.1: MPI_Request_get_status_any/_some/_all are MPI_Testany/some/all
 * that leave the requests alone (nothing freed, no handle set to
 * MPI_REQUEST_NULL). Null and inactive requests count as MPI_Test*'s do.
 * The array is const: lookup_array only reads it. */
static int peek_array(int count, const MPI_Request reqs[], const char *fn, adi_request_t ***rs)
{
    if (count > 0 && (reqs == NULL))
        return mpi_err_fail(NULL, MPI_ERR_ARG, fn, "array_of_requests is NULL");
    return lookup_array(count, (MPI_Request *)reqs, fn, rs);
}

int mpi_request_get_status_any_impl(int count, const MPI_Request array_of_requests[], int *indx,
                                    int *flag, MPI_Status *status, const char *fn)
{
    adi_request_t **rs = NULL;
    int err, active = 0;

    if ((err = peek_array(count, array_of_requests, fn, &rs)))
        return mpi_result(err);
    adi_progress();
    *indx = MPI_UNDEFINED;
    *flag = 0;
    for (int i = 0; i < count; i++) {
        if (is_inactive(rs[i]))
            continue;
        active++;
        if (req_is_done(rs[i])) {
            *indx = i;
            *flag = 1;
            err = peek_status(rs[i], status);
            goto out;
        }
    }
    if (active == 0) { /* nothing to wait for: true, with the empty status */
        *flag = 1;
        mpi_status_set_empty(status);
    }
out:
    free(rs);
    return err;
}

int mpi_request_get_status_some_impl(int incount, const MPI_Request array_of_requests[],
                                     int *outcount, int array_of_indices[],
                                     MPI_Status *array_of_statuses, const char *fn)
{
    adi_request_t **rs = NULL;
    int err, active = 0, n = 0;

    if ((err = peek_array(incount, array_of_requests, fn, &rs)))
        return mpi_result(err);
    if (incount > 0 && array_of_indices == NULL) {
        free(rs);
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array_of_indices is NULL");
    }
    adi_progress();
    for (int i = 0; i < incount && err == MPI_SUCCESS; i++) {
        if (is_inactive(rs[i]))
            continue;
        active++;
        if (!req_is_done(rs[i]))
            continue;
        array_of_indices[n] = i;
        err = peek_status(rs[i], status_at(array_of_statuses, n));
        n++;
    }
    *outcount = active == 0 ? MPI_UNDEFINED : n;
    free(rs);
    return err;
}

int mpi_request_get_status_all_impl(int count, const MPI_Request array_of_requests[], int *flag,
                                    MPI_Status *array_of_statuses, const char *fn)
{
    adi_request_t **rs = NULL;
    int err, done = 1;

    if ((err = peek_array(count, array_of_requests, fn, &rs)))
        return mpi_result(err);
    adi_progress();
    for (int i = 0; i < count && done; i++)
        done = is_inactive(rs[i]) || req_is_done(rs[i]);
    *flag = done;
    for (int i = 0; done && i < count && err == MPI_SUCCESS; i++) {
        if (rs[i] == NULL)
            mpi_status_set_empty(status_at(array_of_statuses, i));
        else
            err = peek_status(rs[i], status_at(array_of_statuses, i));
    }
    free(rs);
    return err;
}

int mpi_cancel_impl(MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    int err;

    if (*request == MPI_REQUEST_NULL)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn, "request is MPI_REQUEST_NULL");
    if ((err = lookup(*request, fn, &r)))
        return mpi_result(err);
    if (r->kind == ADI_REQ_GREQ) {
        greq_t *g = r->mpi_ext;
        return greq_cancel(g, r->done);
    }
    if (r->inner != NULL)
        r = r->inner;
    else if (is_inactive(r))
        return mpi_err_raise(req_comm(r), MPI_ERR_REQUEST, fn,
                             "request %#x is an inactive persistent request", (unsigned)*request);
    adi_cancel(r);
    return MPI_SUCCESS;
}

/* A status the call reads or writes: not NULL, not MPI_STATUS_IGNORE. */
static int status_arg(const MPI_Status *status, const char *fn)
{
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "status is %s",
                             status == NULL ? "NULL" : "MPI_STATUS_IGNORE");
    return MPI_SUCCESS;
}

int mpi_test_cancelled_impl(const MPI_Status *status, int *flag, const char *fn)
{
    int err = status_arg(status, fn);
    if (err)
        return err;
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- status queries */
/* (the datatype is checked by the entry points) */
int mpi_get_count_impl(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                       const char *fn)
{
    dt_type_t *dt;
    size_t bytes, sz;
    int err;

    /* A predefined type (what a program that probes for a size passes): a
     * load of its size, and a division unless it is one byte. */
    if (__builtin_expect(status != NULL && status != MPI_STATUS_IGNORE &&
                             mpi_dt_is_predefined(datatype),
                         1) &&
        (sz = mpi_dt_predefined_size[(unsigned)datatype & 0xffu]) != 0) {
        bytes = mpi_status_bytes(status);
        if (sz == 1)
            *count = (MPI_Count)bytes;
        else
            *count = bytes % sz ? MPI_UNDEFINED : (MPI_Count)(bytes / sz);
        return MPI_SUCCESS;
    }
    if ((err = status_arg(status, fn)) != MPI_SUCCESS)
        return err;
    dt = mpi_dt_get(datatype);
    bytes = mpi_status_bytes(status);
    sz = dt_size(dt);
    if (sz == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % sz ? MPI_UNDEFINED : (MPI_Count)(bytes / sz);
    return MPI_SUCCESS;
}

/* MPI_Get_elements, _c and _x */
int mpi_get_elements_impl(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                          const char *fn)
{
    dt_type_t *dt = mpi_dt_get(datatype);
    size_t elements = 0;
    canal_status_t st;
    int err = status_arg(status, fn);
    if (err)
        return err;
    st = dt_count_elements(dt, mpi_status_bytes(status), &elements);
    if (st < 0 || elements == SIZE_MAX) {
        *count = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *count = (MPI_Count)elements;
    return MPI_SUCCESS;
}

/* MPI_Status_set_elements(_x): count and datatype checked by the entry points */
static int set_elements_common(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                               const char *fn)
{
    dt_type_t *dt = mpi_dt_get(datatype);
    int err = status_arg(status, fn);
    if (err)
        return err;
    /* count is in elements of the primitive types that make up datatype */
    {
        size_t elems_per = 0, sz = dt_size(dt);
        if (dt_count_elements(dt, sz, &elems_per) < 0 || elems_per == 0)
            elems_per = 1;
        /* 128-bit product: count * size overflows 64 bits for types
         * larger than 4 GiB (MPICH's datatype/large_count) */
        mpi_status_set_bytes(status,
                         (MPI_Count)((unsigned __int128)(uint64_t)count * sz / elems_per),
                         status->count_hi_and_cancelled & 1);
    }
    return MPI_SUCCESS;
}

int mpi_status_set_elements_impl(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                                 const char *fn)
{
    return set_elements_common(status, datatype, count, fn);
}

int mpi_status_set_elements_x_impl(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                                   const char *fn)
{
    return set_elements_common(status, datatype, count, fn);
}

int mpi_status_set_cancelled_impl(MPI_Status *status, int flag, const char *fn)
{
    int err = status_arg(status, fn);
    if (err)
        return err;
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- generalized requests */
/* Start a generalized request with its callbacks (poll and wait are NULL
 * for MPI_Grequest_start). */
static int greq_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, MPIX_Grequest_poll_function *poll_fn,
                      MPIX_Grequest_wait_function *wait_fn, void *extra_state,
                      MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    greq_t *g;
    if (query_fn == NULL || free_fn == NULL || cancel_fn == NULL || request == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             query_fn == NULL  ? "query_fn"
                             : free_fn == NULL ? "free_fn"
                             : cancel_fn == NULL ? "cancel_fn"
                                                 : "request");
    g = malloc(sizeof *g);
    r = adi_request_alloc(ADI_REQ_GREQ);
    if (g == NULL || r == NULL) {
        free(g);
        if (r)
            adi_request_free(r);
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "no memory for a request");
    }
    g->query = query_fn;
    g->free_fn = free_fn;
    g->cancel = cancel_fn;
    g->poll = poll_fn;
    g->wait = wait_fn;
    g->cb_err = MPI_SUCCESS;
    g->extra = extra_state;
    g->lang = NULL;
    r->mpi_ext = g;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

int mpi_grequest_start_impl(MPI_Grequest_query_function *query_fn,
                            MPI_Grequest_free_function *free_fn,
                            MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                            MPI_Request *request, const char *fn)
{
    return greq_start(query_fn, free_fn, cancel_fn, NULL, NULL, extra_state, request, fn);
}

int mpix_grequest_start_impl(MPI_Grequest_query_function *query_fn,
                             MPI_Grequest_free_function *free_fn,
                             MPI_Grequest_cancel_function *cancel_fn,
                             MPIX_Grequest_poll_function *poll_fn,
                             MPIX_Grequest_wait_function *wait_fn, void *extra_state,
                             MPI_Request *request, const char *fn)
{
    return greq_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, extra_state, request, fn);
}

int mpi_greq_set_lang(MPI_Request request, const mpi_greq_lang_t *lang)
{
    adi_request_t *r = mpi_request_get(request);
    if (r == NULL || r->kind != ADI_REQ_GREQ || r->mpi_ext == NULL)
        return -1;
    ((greq_t *)r->mpi_ext)->lang = lang;
    return 0;
}

/* MPICH's generalized request classes: a class names a set of callbacks,
 * and MPIX_Grequest_class_allocate starts a request of it. Classes live as
 * long as the process (MPICH has no call that frees one). Handles are
 * 1-based indices into a table that only grows. */
typedef struct {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    MPIX_Grequest_poll_function *poll;
    MPIX_Grequest_wait_function *wait;
} greq_class_t;

static greq_class_t *greq_classes;
static int greq_nclasses, greq_classcap;
static pthread_mutex_t greq_class_lock = PTHREAD_MUTEX_INITIALIZER;

int mpix_grequest_class_create_impl(MPI_Grequest_query_function *query_fn,
                                    MPI_Grequest_free_function *free_fn,
                                    MPI_Grequest_cancel_function *cancel_fn,
                                    MPIX_Grequest_poll_function *poll_fn,
                                    MPIX_Grequest_wait_function *wait_fn,
                                    MPIX_Grequest_class *greq_class, const char *fn)
{
    if (query_fn == NULL || free_fn == NULL || cancel_fn == NULL || greq_class == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             query_fn == NULL  ? "query_fn"
                             : free_fn == NULL ? "free_fn"
                             : cancel_fn == NULL ? "cancel_fn"
                                                 : "greq_class");
    pthread_mutex_lock(&greq_class_lock);
    if (greq_nclasses == greq_classcap) {
        int cap = greq_classcap ? 2 * greq_classcap : 8;
        greq_class_t *t = realloc(greq_classes, sizeof *t * (size_t)cap);
        if (t == NULL) {
            pthread_mutex_unlock(&greq_class_lock);
            return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "no memory for a request class");
        }
        greq_classes = t;
        greq_classcap = cap;
    }
    greq_classes[greq_nclasses] = (greq_class_t){query_fn, free_fn, cancel_fn, poll_fn, wait_fn};
    *greq_class = ++greq_nclasses;
    pthread_mutex_unlock(&greq_class_lock);
    return MPI_SUCCESS;
}

int mpix_grequest_class_allocate_impl(MPIX_Grequest_class greq_class, void *extra_state,
                                      MPI_Request *request, const char *fn)
{
    greq_class_t k;

    pthread_mutex_lock(&greq_class_lock);
    if (greq_class < 1 || greq_class > greq_nclasses) {
        pthread_mutex_unlock(&greq_class_lock);
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "greq_class=%d was not made by MPIX_Grequest_class_create",
                             greq_class);
    }
    k = greq_classes[greq_class - 1];
    pthread_mutex_unlock(&greq_class_lock);
    return greq_start(k.query, k.free_fn, k.cancel, k.poll, k.wait, extra_state, request, fn);
}

int mpi_grequest_complete_impl(MPI_Request request, const char *fn)
{
    adi_request_t *r = NULL;
    int err;

    if ((err = lookup(request, fn, &r)))
        return mpi_result(err);
    if (r->kind != ADI_REQ_GREQ)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn, "request=%#x is not a generalized request",
                             (unsigned)request);
    if (r->user_freed) {
        greq_t *g = r->mpi_ext;
        err = greq_free(g);
        free(g);
        adi_request_free(r);
        return err;
    }
    adi_request_complete(r);
    return MPI_SUCCESS;
}
