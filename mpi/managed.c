/*
 * The MPIX extension for managed runtimes (mpi/mpi_ext.h, doc/managed.md):
 * argument checks, rank translation and error reporting for the runtime
 * hooks, operations on managed references, registered buffers,
 * gather/scatter messages, size-known receives, completion upcalls and wait
 * hooks. The pinning policy and the bookkeeping live in adi/managed.c; this
 * file only decides whether a call is well formed and turns device statuses
 * into MPI errors. The entry points are generated from mpi/api/ext-canal.api
 * (they check the communicator, counts, datatypes, ranks, tags and out
 * pointers); these are the mpix_*_impl functions behind them.
 */
#include "mpiimpl.h"
#include "mpi_ext.h"
#include "mpi/api_impl.h"

#include "adi/managed.h"

#include <stdlib.h>
#include <string.h>

/* A device status about a reference or buffer: the data's fault, so MPI_ERR_BUFFER. */
static int raise_buffer_status(mpi_comm_t *c, canal_status_t st, const char *fn)
{
    if (st == CANAL_ERR_NOTFOUND || st == CANAL_ERR_ARG || st == CANAL_ERR_PENDING)
        return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "%s", common_err_detail());
    return mpi_err_status(c, st, fn);
}

/* Nothing to do for MPI_PROC_NULL: an empty, complete request (nonblocking)
 * or an empty status (blocking receive). */
static int proc_null(mpi_comm_t *c, int is_send, int blocking, MPI_Status *status,
                     MPI_Request *request, const char *fn)
{
    adi_request_t *r;
    if (blocking) {
        if (!is_send && status != MPI_STATUS_IGNORE && status != NULL) {
            mpi_status_set_empty(status);
            status->MPI_SOURCE = MPI_PROC_NULL;
        }
        return MPI_SUCCESS;
    }
    r = mpi_request_null_proc(is_send ? ADI_REQ_SEND : ADI_REQ_RECV);
    if (r == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
    r->owner_handle = c->handle;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

/* Started operation r: wait for it (blocking) or hand out its handle. */
static int finish_start(mpi_comm_t *c, adi_request_t *r, int blocking, MPI_Status *status,
                        MPI_Request *request, const char *fn)
{
    int err;
    r->owner_handle = c->handle;
    if (!blocking) {
        *request = mpi_request_handle(r);
        return MPI_SUCCESS;
    }
    adi_mgd_wait(r);
    err = mpi_request_complete_one(r, fn, NULL, status);
    if (err != MPI_SUCCESS)
        return mpi_err_raise_code(c, err, fn);
    return MPI_SUCCESS;
}

/* A typed operation on one piece: a managed object (ref) or a registered
 * buffer. The entry point checked comm, count, datatype, peer, tag and request. */
static int typed_op(int is_send, MPIX_Ref ref, MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count,
                    MPI_Datatype datatype, int peer, int tag, mpi_comm_t *c, adi_send_mode_t mode,
                    int blocking, MPI_Status *status, MPI_Request *request, const char *fn)
{
    dt_type_t *dt = NULL;
    adi_mgd_seg_t seg;
    adi_request_t *r = NULL;
    ptrdiff_t lo, hi;
    canal_status_t st;
    int err;

    if ((err = mpi_check_dt(c, datatype, fn, &dt)) != MPI_SUCCESS) /* resolves it */
        return mpi_result(err);
    if (offset < 0)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "offset=%ld is negative", (long)offset);
    if ((st = adi_mgd_span(dt, (size_t)count, &lo, &hi)) < 0)
        return mpi_err_raise(c, MPI_ERR_COUNT, fn, "count=%lld: %s", (long long)count,
                             common_err_detail());
    memset(&seg, 0, sizeof seg);
    seg.offset = (size_t)offset;
    if (ref != NULL || buffer == MPIX_BUFFER_NULL) {
        if (ref == NULL)
            return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "ref is NULL");
        if (!adi_mgd_hooks_active())
            return mpi_err_raise(c, MPI_ERR_OTHER, fn,
                                 "no runtime hooks are registered (call MPIX_Managed_register "
                                 "first)");
        if ((st = adi_mgd_ref_check(ref, (size_t)offset, lo, hi)) < 0)
            return raise_buffer_status(c, st, fn);
        seg.ref = ref;
    } else {
        if ((st = adi_mgd_buf_check(buffer, (size_t)offset, lo, hi)) < 0)
            return raise_buffer_status(c, st, fn);
        seg.jbuf = buffer;
    }
    if (peer == MPI_PROC_NULL)
        return proc_null(c, is_send, blocking, status, request, fn);
    if (is_send)
        st = adi_mgd_send(&seg, 1, (size_t)count, dt, blocking, mpi_comm_peer_job_rank(c, peer),
                          c->rank, tag, c->context, mode, &r);
    else
        st = adi_mgd_recv(&seg, 1, (size_t)count, dt, blocking, peer, tag, c->context, &r);
    if (st < 0)
        return raise_buffer_status(c, st, fn);
    return finish_start(c, r, blocking, status, request, fn);
}

/* ---------------------------------------------------------------- 1. hooks */
int mpix_managed_register_impl(const MPIX_Managed_hooks *h, const char *fn)
{
    adi_mgd_hooks_t ah;
    canal_status_t st;
    if (h == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "hooks is NULL");
    if (h->version != MPIX_MANAGED_VERSION)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "hooks->version=%d; this library knows version %d "
                             "(MPIX_MANAGED_VERSION)",
                             h->version, MPIX_MANAGED_VERSION);
    if (h->flags & ~(MPIX_MANAGED_RUNTIME_UNPINS | MPIX_MANAGED_SAFEPOINT_AT_ENTRY))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "hooks->flags=%#x has unknown bits",
                             (unsigned)h->flags);
    if (h->resolve == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "hooks->resolve is NULL");
    if (h->pin == NULL && h->unpin != NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "hooks->unpin is set but hooks->pin is NULL");
    if (h->pin != NULL && h->unpin == NULL && !(h->flags & MPIX_MANAGED_RUNTIME_UNPINS))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn,
                             "hooks->pin is set but hooks->unpin is NULL (and "
                             "MPIX_MANAGED_RUNTIME_UNPINS is not set)");
    if (adi_mgd_hooks_active())
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn,
                             "runtime hooks are already registered (MPIX_Managed_deregister "
                             "first)");
    memset(&ah, 0, sizeof ah);
    ah.flags = (h->flags & MPIX_MANAGED_RUNTIME_UNPINS ? ADI_MGD_RUNTIME_UNPINS : 0) |
               (h->flags & MPIX_MANAGED_SAFEPOINT_AT_ENTRY ? ADI_MGD_SAFEPOINT_AT_ENTRY : 0);
    ah.resolve = h->resolve;
    ah.size = h->size;
    ah.can_move = h->can_move;
    ah.pin = h->pin;
    ah.unpin = h->unpin;
    ah.safepoint = h->safepoint;
    ah.rt = h->rt;
    ah.interval = h->safepoint_interval;
    if ((st = adi_mgd_hooks_set(&ah)) < 0)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn, "%s", common_err_detail());
    return MPI_SUCCESS;
}

int mpix_managed_deregister_impl(const char *fn)
{
    canal_status_t st;
    st = adi_mgd_hooks_clear();
    if (st == CANAL_ERR_NOTFOUND)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn, "%s", common_err_detail());
    if (st < 0)
        return mpi_err_status(NULL, st, fn);
    return MPI_SUCCESS;
}

int mpix_managed_stats_get_impl(MPIX_Managed_stats *stats, const char *fn)
{
    adi_mgd_stats_t s;
    adi_mgd_stats(&s);
    stats->ops = s.ops;
    stats->pins = s.pins;
    stats->unpins = s.unpins;
    stats->deferred_pins = s.deferred_pins;
    stats->pins_avoided = s.pins_avoided;
    stats->copies = s.copies;
    stats->safepoints = s.safepoints;
    stats->safepoints_skipped = s.safepoints_skipped;
    stats->inflight = s.inflight;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- 2. references */
int mpix_send_ref_impl(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                       int dest, int tag, mpi_comm_t *comm, const char *fn)
{
    return typed_op(1, ref, MPIX_BUFFER_NULL, offset, count, datatype, dest, tag, comm,
                    ADI_MODE_STANDARD, 1, NULL, NULL, fn);
}

int mpix_ssend_ref_impl(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, mpi_comm_t *comm, const char *fn)
{
    return typed_op(1, ref, MPIX_BUFFER_NULL, offset, count, datatype, dest, tag, comm,
                    ADI_MODE_SYNC, 1, NULL, NULL, fn);
}

int mpix_recv_ref_impl(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                       int source, int tag, mpi_comm_t *comm, MPI_Status *status, const char *fn)
{
    return typed_op(0, ref, MPIX_BUFFER_NULL, offset, count, datatype, source, tag, comm,
                    ADI_MODE_STANDARD, 1, status, NULL, fn);
}

int mpix_isend_ref_impl(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return typed_op(1, ref, MPIX_BUFFER_NULL, offset, count, datatype, dest, tag, comm,
                    ADI_MODE_STANDARD, 0, NULL, request, fn);
}

int mpix_irecv_ref_impl(MPIX_Ref ref, MPI_Aint offset, MPI_Count count, MPI_Datatype datatype,
                        int source, int tag, mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return typed_op(0, ref, MPIX_BUFFER_NULL, offset, count, datatype, source, tag, comm,
                    ADI_MODE_STANDARD, 0, NULL, request, fn);
}

/* ---------------------------------------------------------------- 3. the collector's query */
int mpix_managed_inflight_impl(int maxuses, MPIX_Ref_use uses[], int *count, const char *fn)
{
    adi_mgd_use_t *tmp = NULL;
    int n = 0;
    if (maxuses < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "maxuses=%d is negative", maxuses);
    if (maxuses > 0 && uses == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "uses is NULL with maxuses=%d", maxuses);
    if (maxuses > 0 && (tmp = malloc(sizeof *tmp * (size_t)maxuses)) == NULL)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "no memory for %d entries", maxuses);
    adi_mgd_inflight(tmp, maxuses, &n);
    for (int i = 0; i < n && i < maxuses; i++) {
        uses[i].ref = tmp[i].ref;
        uses[i].flags = (tmp[i].flags & ADI_MGD_PINNED ? MPIX_REF_PINNED : 0) |
                        (tmp[i].flags & ADI_MGD_HELD ? MPIX_REF_ADDRESS_HELD : 0) |
                        (tmp[i].flags & ADI_MGD_MOVABLE ? MPIX_REF_MOVABLE : 0) |
                        (tmp[i].flags & ADI_MGD_SEND ? MPIX_REF_SEND : 0);
    }
    free(tmp);
    *count = n;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- 4. registered buffers */
int mpix_buffer_register_impl(void *base, MPI_Aint length, MPIX_Buffer *buffer, const char *fn)
{
    canal_status_t st;
    int handle = 0;
    if (base == NULL)
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "base is NULL");
    if (length <= 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "length=%ld is not positive", (long)length);
    if ((st = adi_mgd_buf_register(base, (size_t)length, &handle)) < 0)
        return mpi_err_status(NULL, st, fn);
    *buffer = handle;
    return MPI_SUCCESS;
}

int mpix_buffer_deregister_impl(MPIX_Buffer *buffer, const char *fn)
{
    canal_status_t st;
    if (*buffer == MPIX_BUFFER_NULL)
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "*buffer is MPIX_BUFFER_NULL");
    st = adi_mgd_buf_deregister(*buffer);
    if (st == CANAL_ERR_NOTFOUND)
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "%s", common_err_detail());
    if (st < 0)
        return mpi_err_status(NULL, st, fn); /* in use: MPI_ERR_PENDING */
    *buffer = MPIX_BUFFER_NULL;
    return MPI_SUCCESS;
}

typedef struct {
    MPIX_Buffer_release_function *fn;
    void *extra;
} release_cb_t;

static void release_trampoline(void *base, size_t len, void *arg)
{
    release_cb_t *cb = arg;
    cb->fn(base, (MPI_Aint)len, cb->extra);
    free(cb);
}

int mpix_buffer_release_impl(MPIX_Buffer *buffer, MPIX_Buffer_release_function *callback,
                             void *extra_state, const char *fn)
{
    release_cb_t *cb = NULL;
    canal_status_t st;
    if (*buffer == MPIX_BUFFER_NULL)
        return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "*buffer is MPIX_BUFFER_NULL");
    if (callback != NULL) {
        if ((cb = malloc(sizeof *cb)) == NULL)
            return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "no memory for the callback");
        cb->fn = callback;
        cb->extra = extra_state;
    }
    st = adi_mgd_buf_release(*buffer, cb ? release_trampoline : NULL, cb);
    if (st < 0) {
        free(cb);
        if (st == CANAL_ERR_NOTFOUND)
            return mpi_err_raise(NULL, MPI_ERR_BUFFER, fn, "%s", common_err_detail());
        return mpi_err_status(NULL, st, fn);
    }
    *buffer = MPIX_BUFFER_NULL;
    return MPI_SUCCESS;
}

int mpix_buffer_in_use_impl(MPIX_Buffer buffer, MPI_Aint offset, MPI_Aint length, int *flag,
                            const char *fn)
{
    canal_status_t st;
    if (offset < 0 || length < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s=%ld is negative",
                             offset < 0 ? "offset" : "length",
                             (long)(offset < 0 ? offset : length));
    st = adi_mgd_buf_in_use(buffer, (size_t)offset, (size_t)length, flag);
    if (st < 0)
        return raise_buffer_status(NULL, st, fn);
    return MPI_SUCCESS;
}

int mpix_send_buffer_impl(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count,
                          MPI_Datatype datatype, int dest, int tag, mpi_comm_t *comm,
                          const char *fn)
{
    if (buffer == MPIX_BUFFER_NULL)
        return mpi_err_raise(comm, MPI_ERR_BUFFER, fn, "buffer is MPIX_BUFFER_NULL");
    return typed_op(1, NULL, buffer, offset, count, datatype, dest, tag, comm, ADI_MODE_STANDARD, 1,
                    NULL, NULL, fn);
}

int mpix_recv_buffer_impl(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count,
                          MPI_Datatype datatype, int source, int tag, mpi_comm_t *comm,
                          MPI_Status *status, const char *fn)
{
    if (buffer == MPIX_BUFFER_NULL)
        return mpi_err_raise(comm, MPI_ERR_BUFFER, fn, "buffer is MPIX_BUFFER_NULL");
    return typed_op(0, NULL, buffer, offset, count, datatype, source, tag, comm, ADI_MODE_STANDARD,
                    1, status, NULL, fn);
}

int mpix_isend_buffer_impl(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count,
                           MPI_Datatype datatype, int dest, int tag, mpi_comm_t *comm,
                           MPI_Request *request, const char *fn)
{
    if (buffer == MPIX_BUFFER_NULL)
        return mpi_err_raise(comm, MPI_ERR_BUFFER, fn, "buffer is MPIX_BUFFER_NULL");
    return typed_op(1, NULL, buffer, offset, count, datatype, dest, tag, comm, ADI_MODE_STANDARD, 0,
                    NULL, request, fn);
}

int mpix_irecv_buffer_impl(MPIX_Buffer buffer, MPI_Aint offset, MPI_Count count,
                           MPI_Datatype datatype, int source, int tag, mpi_comm_t *comm,
                           MPI_Request *request, const char *fn)
{
    if (buffer == MPIX_BUFFER_NULL)
        return mpi_err_raise(comm, MPI_ERR_BUFFER, fn, "buffer is MPIX_BUFFER_NULL");
    return typed_op(0, NULL, buffer, offset, count, datatype, source, tag, comm, ADI_MODE_STANDARD,
                    0, NULL, request, fn);
}

/* ---------------------------------------------------------------- 5. gather/scatter */
/* The entry point checked comm, nsegments, peer, tag and request. */
static int vector_op(int is_send, const MPIX_Segment segments[], int nsegments, int peer, int tag,
                     mpi_comm_t *c, int blocking, MPI_Status *status, MPI_Request *request,
                     const char *fn)
{
    adi_mgd_seg_t local[8], *segs = local;
    adi_request_t *r = NULL;
    canal_status_t st;

    if (nsegments > 0 && segments == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "segments is NULL with nsegments=%d", nsegments);
    for (int i = 0; i < nsegments; i++) {
        const MPIX_Segment *s = &segments[i];
        int kinds = (s->ref != NULL) + (s->buffer != MPIX_BUFFER_NULL) + (s->addr != NULL);
        if (s->offset < 0 || s->length < 0)
            return mpi_err_raise(c, MPI_ERR_ARG, fn, "segments[%d].%s=%ld is negative", i,
                                 s->offset < 0 ? "offset" : "length",
                                 (long)(s->offset < 0 ? s->offset : s->length));
        if (kinds > 1)
            return mpi_err_raise(c, MPI_ERR_ARG, fn,
                                 "segments[%d] names more than one of ref, buffer and addr", i);
        if (kinds == 0 && s->length > 0)
            return mpi_err_raise(c, MPI_ERR_BUFFER, fn,
                                 "segments[%d] has length %ld but no ref, buffer or addr", i,
                                 (long)s->length);
        if (s->ref != NULL) {
            if (!adi_mgd_hooks_active())
                return mpi_err_raise(c, MPI_ERR_OTHER, fn,
                                     "segments[%d].ref is set but no runtime hooks are "
                                     "registered (MPIX_Managed_register)",
                                     i);
            if ((st = adi_mgd_ref_check(s->ref, (size_t)s->offset, 0, s->length)) < 0)
                return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "segments[%d]: %s", i,
                                     common_err_detail());
        } else if (s->buffer != MPIX_BUFFER_NULL &&
                   (st = adi_mgd_buf_check(s->buffer, (size_t)s->offset, 0, s->length)) < 0) {
            return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "segments[%d]: %s", i, common_err_detail());
        }
    }
    if (peer == MPI_PROC_NULL)
        return proc_null(c, is_send, blocking, status, request, fn);
    if (nsegments > (int)(sizeof local / sizeof local[0]) &&
        (segs = malloc(sizeof *segs * (size_t)nsegments)) == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for %d segments", nsegments);
    for (int i = 0; i < nsegments; i++) {
        segs[i].ref = segments[i].ref;
        segs[i].jbuf = segments[i].buffer;
        segs[i].addr = segments[i].addr;
        segs[i].offset = (size_t)segments[i].offset;
        segs[i].len = (size_t)segments[i].length;
    }
    if (is_send)
        st = adi_mgd_send(segs, nsegments, 0, NULL, blocking, mpi_comm_peer_job_rank(c, peer),
                          c->rank, tag, c->context, ADI_MODE_STANDARD, &r);
    else
        st = adi_mgd_recv(segs, nsegments, 0, NULL, blocking, peer, tag, c->context, &r);
    if (segs != local)
        free(segs);
    if (st < 0)
        return raise_buffer_status(c, st, fn);
    return finish_start(c, r, blocking, status, request, fn);
}

int mpix_sendv_impl(const MPIX_Segment segments[], int nsegments, int dest, int tag,
                    mpi_comm_t *comm, const char *fn)
{
    return vector_op(1, segments, nsegments, dest, tag, comm, 1, NULL, NULL, fn);
}

int mpix_recvv_impl(const MPIX_Segment segments[], int nsegments, int source, int tag,
                    mpi_comm_t *comm, MPI_Status *status, const char *fn)
{
    return vector_op(0, segments, nsegments, source, tag, comm, 1, status, NULL, fn);
}

int mpix_isendv_impl(const MPIX_Segment segments[], int nsegments, int dest, int tag,
                     mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return vector_op(1, segments, nsegments, dest, tag, comm, 0, NULL, request, fn);
}

int mpix_irecvv_impl(const MPIX_Segment segments[], int nsegments, int source, int tag,
                     mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return vector_op(0, segments, nsegments, source, tag, comm, 0, NULL, request, fn);
}

/* ---------------------------------------------------------------- 5. size-known receives */
typedef struct {
    MPIX_Recv_alloc_function *fn;
    void *extra;
} alloc_cb_t;

static int alloc_trampoline(size_t count, int source, int tag, void *arg, adi_mgd_target_t *out)
{
    alloc_cb_t *cb = arg;
    MPIX_Target t = {NULL, NULL, 0};
    int rc = cb->fn((MPI_Count)count, source, tag, cb->extra, &t);
    if (rc != MPI_SUCCESS) {
        /* An error class fails the receive with that class; anything else
         * (a code, garbage) with MPI_ERR_OTHER. No error handler runs here:
         * this is inside progress. */
        if (rc > 0 && rc <= MPICH_ERR_LAST_CLASS)
            return rc;
        return MPI_ERR_OTHER;
    }
    if (t.offset < 0 || (t.ref == NULL && t.addr == NULL && count > 0))
        return MPI_ERR_BUFFER;
    out->ref = t.ref;
    out->addr = t.addr;
    out->offset = (size_t)t.offset;
    return 0;
}

/* The entry point checked comm, datatype, source, tag and request. */
static int recv_alloc_common(MPIX_Recv_alloc_function *afn, void *extra, MPI_Datatype datatype,
                             int source, int tag, mpi_comm_t *c, int blocking, MPI_Status *status,
                             MPI_Request *request, const char *fn)
{
    dt_type_t *dt = NULL;
    adi_request_t *r = NULL;
    alloc_cb_t *cb;
    canal_status_t st;
    int err;

    if ((err = mpi_check_dt(c, datatype, fn, &dt)) != MPI_SUCCESS) /* resolves it */
        return mpi_result(err);
    if (afn == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "fn is NULL");
    if (source == MPI_PROC_NULL)
        return proc_null(c, 0, blocking, status, request, fn);
    if ((cb = malloc(sizeof *cb)) == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for the callback");
    cb->fn = afn;
    cb->extra = extra;
    st = adi_mgd_recv_alloc(alloc_trampoline, cb, free, dt, blocking, source, tag, c->context, &r);
    if (st < 0)
        return mpi_err_status(c, st, fn);
    return finish_start(c, r, blocking, status, request, fn);
}

int mpix_recv_alloc_impl(MPIX_Recv_alloc_function *alloc_fn, void *extra_state,
                         MPI_Datatype datatype, int source, int tag, mpi_comm_t *comm,
                         MPI_Status *status, const char *fn)
{
    return recv_alloc_common(alloc_fn, extra_state, datatype, source, tag, comm, 1, status, NULL,
                             fn);
}

int mpix_irecv_alloc_impl(MPIX_Recv_alloc_function *alloc_fn, void *extra_state,
                          MPI_Datatype datatype, int source, int tag, mpi_comm_t *comm,
                          MPI_Request *request, const char *fn)
{
    return recv_alloc_common(alloc_fn, extra_state, datatype, source, tag, comm, 0, NULL, request,
                             fn);
}

/* ---------------------------------------------------------------- 5. upcalls */
typedef struct {
    adi_complete_fn prev; /* whatever on_complete the request had: runs first */
    void *prev_arg;
    MPIX_Request_upcall_function *fn;
    void *extra;
    MPI_Request handle;
} upcall_t;

static void upcall_status(adi_request_t *r, MPI_Status *st)
{
    mpi_status_set_empty(st);
    mpi_status_set(st, &r->status);
    st->MPI_ERROR = MPI_SUCCESS;
    if (r->status.error < 0)
        st->MPI_ERROR = mpi_err_code_new(mpi_err_class_of_status(r->status.error),
                                         "request completion", common_status_name(r->status.error));
    else if (r->status.error > 0)
        st->MPI_ERROR =
            mpi_err_code_new(r->status.error, "request completion", "the operation failed");
}

static void upcall_run(adi_request_t *r, void *arg)
{
    upcall_t *u = arg;
    MPI_Status st;
    if (u->prev != NULL)
        u->prev(r, u->prev_arg);
    upcall_status(r, &st);
    u->fn(u->handle, &st, u->extra);
    free(u);
}

int mpix_request_set_upcall_impl(MPI_Request request, MPIX_Request_upcall_function *callback,
                                 void *extra_state, const char *fn)
{
    adi_request_t *r;
    upcall_t *u;
    MPI_Status st;
    int done;
    if (callback == NULL)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "fn is NULL");
    r = mpi_request_get(request);
    if (r == NULL)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn, "request=%#x is not a valid request%s",
                             (unsigned)request,
                             request == MPI_REQUEST_NULL ? " (MPI_REQUEST_NULL)" : "");
    if (r->kind == ADI_REQ_PREQ_SEND || r->kind == ADI_REQ_PREQ_RECV ||
        r->kind == ADI_REQ_PREQ_OTHER)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn,
                             "request=%#x is persistent; upcalls need a request that completes "
                             "once",
                             (unsigned)request);
    if ((u = malloc(sizeof *u)) == NULL)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "no memory for the upcall");
    u->fn = callback;
    u->extra = extra_state;
    u->handle = request;
    adi_lock();
    done = r->done;
    if (!done) {
        u->prev = r->on_complete;
        u->prev_arg = r->on_complete_arg;
        r->on_complete = upcall_run;
        r->on_complete_arg = u;
    }
    adi_unlock();
    if (done) {
        /* Already complete: the upcall runs now, in the calling thread. */
        upcall_status(r, &st);
        free(u);
        callback(request, &st, extra_state);
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- 5. waiting */
int mpix_wait_hook_set_impl(MPIX_Wait_hook_function *hook, void *extra_state, int interval,
                            const char *fn)
{
    if (interval < 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "interval=%d is negative", interval);
    adi_mgd_wait_hook_set(hook, extra_state, interval);
    return MPI_SUCCESS;
}

int mpix_progress_impl(int *made_progress, const char *fn)
{
    int n;
    n = adi_progress();
    if (made_progress != NULL)
        *made_progress = n > 0;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- life cycle */
static void managed_module_finalize(void)
{
    adi_mgd_finalize();
}

__attribute__((constructor)) static void managed_module_register(void)
{
    mpi_register_hook(NULL, managed_module_finalize);
}
