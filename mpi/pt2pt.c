/*
 * Point-to-point communication, the MPI front (MPI 4.0 chapter 3): the
 * implementations behind the generated entry points (mpi/api/03-pt2pt.api;
 * the entry points check the arguments by kind), rank translation
 * (communicator rank -> job rank for the device),
 * MPI_PROC_NULL, the four send modes, buffered sends through the attached
 * buffer, probes and matched probes, and persistent requests. Completion
 * (MPI_Wait and friends) is in mpi/request.c. The large-count _c variants
 * share one implementation with the int ones.
 */
#include "mpiimpl.h"
#include "comm_impl.h"
#include "mpi/api_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- checks */
/* The engine type of a checked (count, datatype) pair (inline: a
 * predefined type is two loads, less than a call). A message of count 0
 * with MPI_DATATYPE_NULL or a type not yet committed arrives as MPI_BYTE:
 * the entry point's checked path replaced it (mpi/check.c), as MPICH
 * accepts both. */
static inline __attribute__((always_inline)) dt_type_t *checked_type(MPI_Count count, MPI_Datatype datatype)
{
    (void)count;
    return mpi_dt_get(datatype);
}

adi_request_t *mpi_request_null_proc(adi_req_kind_t kind)
{
    adi_request_t *r = adi_request_alloc(kind);
    if (r == NULL)
        return NULL;
    r->status.source = MPI_PROC_NULL;
    r->status.tag = MPI_ANY_TAG;
    r->status.bytes = 0;
    /* Nothing else sees r yet and it holds nothing (no type, no buffer):
     * done without the device lock and adi_request_complete's release work. */
    adi_request_done_fresh(r);
    return r;
}

/* ---------------------------------------------------------------- buffered sends */
/* A buffered send packs the message into a segment of an attached buffer
 * and sends from there; a segment is reusable once its send completes.
 * MPI 4.1 has three kinds of buffers: the process's (MPI_Buffer_attach), a
 * communicator's (MPI_Comm_attach_buffer) and a session's
 * (MPI_Session_attach_buffer, mpi/session.c keeps the pointer); a send uses
 * its communicator's buffer, else its session's, else the process's. A buffer is either the
 * user's memory carved into segments, or MPI_BUFFER_AUTOMATIC: one
 * malloc'ed segment per message, freed when its send completes.
 * Threads share the buffers (MPI_THREAD_MULTIPLE): segment lists are only
 * read or changed under the device lock, which is recursive, so reclaiming
 * may run the progress engine while holding it. */
typedef struct bseg {
    struct bseg *next;
    size_t size;              /* bytes after the header */
    adi_request_t *req;       /* the send using it, NULL when free */
    uint64_t seq;             /* the buffer's send number (for MPI_Buffer_iflush) */
} bseg_t;

struct mpi_bbuf {
    void *user;  /* what detach returns: the memory or MPI_BUFFER_AUTOMATIC */
    size_t size; /* its size (0 when automatic) */
    bseg_t *head;
    int automatic;
    int refs;     /* the attachment + each MPI_*_iflush request on it */
    uint64_t seq; /* buffered sends started on it so far */
};

static mpi_bbuf_t *proc_bbuf;

/* Communicators with a buffer of their own: a short list, looked at only
 * when it is not empty (a bsend on a communicator without one pays a load). */
typedef struct comm_bbuf {
    struct comm_bbuf *next;
    const mpi_comm_t *comm;
    mpi_bbuf_t *b;
} comm_bbuf_t;
static comm_bbuf_t *comm_bbufs;

static void bbuf_unref(mpi_bbuf_t *b) /* device lock held */
{
    if (--b->refs == 0)
        free(b);
}

static void bsend_reclaim(mpi_bbuf_t *b) /* device lock held */
{
    adi_progress();
    for (bseg_t **pp = &b->head; *pp != NULL;) {
        bseg_t *s = *pp;
        if (s->req != NULL && __atomic_load_n(&s->req->done, __ATOMIC_ACQUIRE)) {
            adi_request_free(s->req);
            s->req = NULL;
        }
        if (b->automatic && s->req == NULL) {
            *pp = s->next;
            free(s);
            continue;
        }
        pp = &s->next;
    }
    /* merge neighbouring free segments */
    for (bseg_t *s = b->head; !b->automatic && s != NULL && s->next != NULL;) {
        if (s->req == NULL && s->next->req == NULL) {
            s->size += sizeof(bseg_t) + s->next->size;
            s->next = s->next->next;
        } else {
            s = s->next;
        }
    }
}

static bseg_t *bsend_alloc(mpi_bbuf_t *b, size_t need) /* device lock held */
{
    need = (need + 15) & ~(size_t)15;
    bsend_reclaim(b);
    if (b->automatic) {
        bseg_t *s = malloc(sizeof *s + need);
        if (s == NULL)
            return NULL;
        s->size = need;
        s->req = NULL;
        s->next = b->head;
        b->head = s;
        return s;
    }
    for (bseg_t *s = b->head; s != NULL; s = s->next) {
        if (s->req != NULL || s->size < need)
            continue;
        if (s->size >= need + sizeof(bseg_t) + 16) {
            bseg_t *rest = (bseg_t *)((char *)(s + 1) + need);
            rest->size = s->size - need - sizeof(bseg_t);
            rest->req = NULL;
            rest->next = s->next;
            s->next = rest;
            s->size = need;
        }
        return s;
    }
    return NULL;
}

/* The buffer a buffered send on c uses (device lock held): its own, else
 * its session's, else the process's (MPI 4.1 3.6; MPICH also falls back to
 * the process's buffer for a session's communicator). */
static mpi_bbuf_t *bbuf_of(const mpi_comm_t *c)
{
    mpi_bbuf_t *b;
    for (comm_bbuf_t *e = comm_bbufs; e != NULL; e = e->next)
        if (e->comm == c)
            return e->b;
    if (c->session != 0 && (b = mpi_session_bbuf(c->session)) != NULL)
        return b;
    return proc_bbuf;
}

static int bsend_start(mpi_comm_t *c, const void *buf, MPI_Count count, dt_type_t *dt, int dest,
                       int tag, const char *fn, adi_request_t **req_out)
{
    size_t bytes = (size_t)count * dt_size(dt), total = 0;
    bseg_t *s = NULL;
    size_t packed = 0;
    canal_status_t st = CANAL_OK;
    int attached, automatic = 0;
    mpi_bbuf_t *b;

    adi_lock();
    b = bbuf_of(c);
    attached = b != NULL;
    if (attached) {
        total = b->size;
        automatic = b->automatic;
        s = bsend_alloc(b, bytes ? bytes : 1);
    }
    if (s != NULL) {
        s->seq = ++b->seq;
        st = dt_pack(buf, (size_t)count, dt, s + 1, bytes, &packed);
        if (st >= 0)
            st = adi_isend(s + 1, bytes, dt_builtin(DT_BYTE), mpi_comm_peer_job_rank(c, dest),
                           c->rank, tag, c->context, ADI_MODE_STANDARD, &s->req);
    }
    adi_unlock();
    if (!attached)
        return mpi_err_raise(c, MPI_ERR_BUFFER, fn,
                             "no buffer attached (MPI_Buffer_attach or MPI_Comm_attach_buffer) "
                             "for a %zu-byte buffered send",
                             bytes);
    if (s == NULL && automatic)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn,
                             "out of memory for a %zu-byte buffered send (MPI_BUFFER_AUTOMATIC)",
                             bytes);
    if (s == NULL)
        return mpi_err_raise(c, MPI_ERR_BUFFER, fn,
                             "the attached buffer (%zu bytes) has no room for %zu bytes + "
                             "MPI_BSEND_OVERHEAD",
                             total, bytes);
    if (st < 0)
        return mpi_err_status(c, st, fn);
    if (req_out != NULL)
        *req_out = mpi_request_null_proc(ADI_REQ_SEND); /* the user's request is done at once */
    return MPI_SUCCESS;
}

/* Attach to *slot (device lock taken here). Returns an MPI class with *why
 * set for the caller to raise through its object's handler. */
int mpi_bbuf_attach(mpi_bbuf_t **slot, void *buffer, MPI_Count size, const char **why)
{
    mpi_bbuf_t *b;
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;

    if (!automatic) {
        if (size < 0)
            return *why = "size is negative", MPI_ERR_ARG;
        if (size > 0x7fffffff)
            return *why = "size is larger than Canal's buffered-send limit of 2 GiB", MPI_ERR_ARG;
        if (buffer == NULL)
            return *why = "buffer is NULL", MPI_ERR_BUFFER;
        if (buffer == MPI_IN_PLACE)
            return *why = "buffer is MPI_IN_PLACE; only collectives take it", MPI_ERR_BUFFER;
        if ((size_t)size < sizeof(bseg_t) + 16 + 15)
            return *why = "size is smaller than MPI_BSEND_OVERHEAD", MPI_ERR_BUFFER;
    }
    if ((b = calloc(1, sizeof *b)) == NULL)
        return *why = "out of memory", MPI_ERR_NO_MEM;
    b->user = buffer;
    b->automatic = automatic;
    b->refs = 1;
    if (!automatic) {
        /* keep segments aligned */
        char *aligned = (char *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
        b->head = (bseg_t *)aligned;
        b->head->next = NULL;
        b->head->size = (size_t)size - (size_t)(aligned - (char *)buffer) - sizeof(bseg_t);
        b->head->req = NULL;
        b->size = (size_t)size;
    }
    adi_lock();
    if (*slot != NULL) {
        adi_unlock();
        free(b);
        return *why = "a buffer is already attached (detach it first)", MPI_ERR_BUFFER;
    }
    *slot = b;
    adi_unlock();
    return MPI_SUCCESS;
}

static int bbuf_drained(void *arg)
{
    mpi_bbuf_t *b = arg;
    int done = 1;
    adi_lock();
    bsend_reclaim(b);
    for (bseg_t *s = b->head; s != NULL && done; s = s->next)
        done = s->req == NULL;
    adi_unlock();
    return done;
}

/* MPI_Buffer_flush and friends: every message in the buffer has gone. */
void mpi_bbuf_flush(mpi_bbuf_t **slot)
{
    mpi_bbuf_t *b;
    adi_lock();
    if ((b = *slot) != NULL)
        b->refs++;
    adi_unlock();
    if (b == NULL)
        return;
    adi_wait_until(bbuf_drained, b);
    adi_lock();
    bbuf_unref(b);
    adi_unlock();
}

/* Detach (after the messages have gone); no buffer gives NULL and 0, as
 * MPI_Buffer_detach does in MPICH. */
void mpi_bbuf_detach(mpi_bbuf_t **slot, void *buffer_addr, MPI_Count *size)
{
    mpi_bbuf_t *b;

    adi_lock();
    b = *slot;
    *slot = NULL; /* new buffered sends no longer find it */
    adi_unlock();
    if (b == NULL) {
        *(void **)buffer_addr = NULL;
        *size = 0;
        return;
    }
    adi_wait_until(bbuf_drained, b);
    *(void **)buffer_addr = b->user;
    *size = (MPI_Count)b->size;
    adi_lock();
    b->head = NULL;
    bbuf_unref(b);
    adi_unlock();
}

/* MPI_Buffer_iflush and friends: a generalized request (MPICH's MPIX_
 * form, driven by MPI through its poll function) that completes once the
 * messages buffered before the call have gone; later ones do not hold it. */
typedef struct {
    mpi_bbuf_t *b; /* NULL: nothing was attached */
    uint64_t upto;
    MPI_Request self;
    int completed;
} bflush_t;

static int bflush_poll(void *extra, MPI_Status *status)
{
    bflush_t *f = extra;
    int done = 1;
    (void)status;
    if (f->completed)
        return MPI_SUCCESS;
    if (f->b != NULL) {
        adi_lock();
        bsend_reclaim(f->b);
        for (bseg_t *s = f->b->head; s != NULL && done; s = s->next)
            done = s->req == NULL || s->seq > f->upto;
        adi_unlock();
    }
    if (done) {
        f->completed = 1;
        return mpi_grequest_complete_impl(f->self, "MPI_Buffer_iflush");
    }
    return MPI_SUCCESS;
}

static int bflush_query(void *extra, MPI_Status *status)
{
    (void)extra;
    mpi_status_set_empty(status);
    return MPI_SUCCESS;
}

static int bflush_free(void *extra)
{
    bflush_t *f = extra;
    if (f->b != NULL) {
        adi_lock();
        bbuf_unref(f->b);
        adi_unlock();
    }
    free(f);
    return MPI_SUCCESS;
}

static int bflush_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* a flush cannot be cancelled; it completes as usual */
}

int mpi_bbuf_iflush(mpi_bbuf_t **slot, MPI_Request *request, const char *fn)
{
    bflush_t *f = calloc(1, sizeof *f);
    int err;
    if (f == NULL)
        return MPI_ERR_NO_MEM;
    adi_lock();
    if ((f->b = *slot) != NULL) {
        f->b->refs++;
        f->upto = f->b->seq;
    }
    adi_unlock();
    err = mpix_grequest_start_impl(bflush_query, bflush_free, bflush_cancel, bflush_poll, NULL, f,
                                   request, fn);
    if (err != MPI_SUCCESS) {
        bflush_free(f);
        return err;
    }
    f->self = *request;
    return bflush_poll(f, MPI_STATUS_IGNORE); /* nothing buffered: complete already */
}

/* The process's buffer */
int mpi_buffer_attach_impl(void *buffer, MPI_Count size, const char *fn)
{
    const char *why = NULL;
    int cls = mpi_bbuf_attach(&proc_bbuf, buffer, size, &why);
    return cls == MPI_SUCCESS ? cls
                              : mpi_err_raise(NULL, cls, fn, "buffer=%p size=%lld: %s", buffer,
                                              (long long)size, why);
}

int mpi_buffer_detach_impl(void *buffer_addr, MPI_Count *size, const char *fn)
{
    (void)fn;
    mpi_bbuf_detach(&proc_bbuf, buffer_addr, size);
    return MPI_SUCCESS;
}

int mpi_buffer_flush_impl(const char *fn)
{
    (void)fn;
    mpi_bbuf_flush(&proc_bbuf);
    return MPI_SUCCESS;
}

int mpi_buffer_iflush_impl(MPI_Request *request, const char *fn)
{
    int err = mpi_bbuf_iflush(&proc_bbuf, request, fn);
    return err == MPI_ERR_NO_MEM ? mpi_err_raise(NULL, err, fn, "no memory for a request") : err;
}

/* A communicator's buffer: its slot in comm_bbufs (created when asked to;
 * NULL when that needs memory there is not). Without one, a slot that
 * holds no buffer. */
static mpi_bbuf_t **comm_slot(const mpi_comm_t *c, int create) /* device lock held */
{
    static mpi_bbuf_t *none;
    for (comm_bbuf_t *e = comm_bbufs; e != NULL; e = e->next)
        if (e->comm == c)
            return &e->b;
    if (create) {
        comm_bbuf_t *e = calloc(1, sizeof *e);
        if (e != NULL) {
            e->comm = c;
            e->next = comm_bbufs;
            comm_bbufs = e;
            return &e->b;
        }
        return NULL;
    }
    none = NULL;
    return &none;
}

/* Drop the list entries whose buffer was detached (device lock held). */
static void comm_slots_prune(void)
{
    for (comm_bbuf_t **pp = &comm_bbufs; *pp != NULL;) {
        comm_bbuf_t *e = *pp;
        if (e->b == NULL) {
            *pp = e->next;
            free(e);
        } else {
            pp = &e->next;
        }
    }
}

/* A communicator freed with its buffer attached: the buffer is detached
 * once its messages have gone, so that the program may reuse the memory
 * when the communicator is gone and no segment outlives its list entry.
 * Called by mpi_comm_destroy (a free hook). */
static void comm_bbuf_free_hook(mpi_comm_t *c)
{
    mpi_bbuf_t **slot, *b;
    void *addr;
    MPI_Count size;
    if (__atomic_load_n(&comm_bbufs, __ATOMIC_ACQUIRE) == NULL)
        return;
    adi_lock();
    slot = comm_slot(c, 0);
    b = *slot;
    adi_unlock();
    if (b != NULL)
        mpi_bbuf_detach(slot, &addr, &size);
    adi_lock();
    comm_slots_prune();
    adi_unlock();
}

int mpi_comm_attach_buffer_impl(mpi_comm_t *comm, void *buffer, MPI_Count size, const char *fn)
{
    static int hooked;
    const char *why = NULL;
    mpi_bbuf_t **slot;
    int cls;

    if (!__atomic_exchange_n(&hooked, 1, __ATOMIC_ACQ_REL))
        mpi_comm_add_free_hook(comm_bbuf_free_hook);
    adi_lock();
    slot = comm_slot(comm, 1);
    adi_unlock();
    if (slot == NULL)
        return mpi_err_raise(comm, MPI_ERR_NO_MEM, fn, "out of memory for the buffer's entry");
    cls = mpi_bbuf_attach(slot, buffer, size, &why);
    if (cls != MPI_SUCCESS) {
        adi_lock();
        comm_slots_prune();
        adi_unlock();
        return mpi_err_raise(comm, cls, fn, "buffer=%p size=%lld: %s", buffer, (long long)size,
                             why);
    }
    return MPI_SUCCESS;
}

int mpi_comm_detach_buffer_impl(mpi_comm_t *comm, void *buffer_addr, MPI_Count *size,
                                const char *fn)
{
    mpi_bbuf_t **slot;
    (void)fn;
    adi_lock();
    slot = comm_slot(comm, 0);
    adi_unlock();
    mpi_bbuf_detach(slot, buffer_addr, size);
    adi_lock();
    comm_slots_prune();
    adi_unlock();
    return MPI_SUCCESS;
}

int mpi_comm_flush_buffer_impl(mpi_comm_t *comm, const char *fn)
{
    mpi_bbuf_t **slot;
    (void)fn;
    adi_lock();
    slot = comm_slot(comm, 0);
    adi_unlock();
    mpi_bbuf_flush(slot);
    return MPI_SUCCESS;
}

int mpi_comm_iflush_buffer_impl(mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    mpi_bbuf_t **slot;
    int err;
    adi_lock();
    slot = comm_slot(comm, 0);
    adi_unlock();
    err = mpi_bbuf_iflush(slot, request, fn);
    return err == MPI_ERR_NO_MEM ? mpi_err_raise(comm, err, fn, "no memory for a request") : err;
}

/* ---------------------------------------------------------------- sends */
typedef enum { SEND_STD, SEND_SYNC, SEND_READY, SEND_BUF } send_kind_t;

static const adi_send_mode_t adi_mode_of[] = {ADI_MODE_STANDARD, ADI_MODE_SYNC, ADI_MODE_READY,
                                              ADI_MODE_STANDARD};

/* Start a send of any mode whose arguments were checked (dt resolved): by
 * the sends and MPI_Sendrecv, and by MPI_Start of a persistent send, which
 * holds its own reference to the type so that MPI_Type_free after
 * MPI_Send_init is harmless; *req_out is the started request. */
static int send_post(mpi_comm_t *c, const void *buf, MPI_Count count, dt_type_t *dt, int dest,
                     int tag, MPI_Comm comm, send_kind_t kind, const char *fn,
                     adi_request_t **req_out)
{
    canal_status_t st;

    if (dest == MPI_PROC_NULL) {
        *req_out = mpi_request_null_proc(ADI_REQ_SEND);
        return *req_out ? MPI_SUCCESS : mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no request");
    }
    if (kind == SEND_BUF)
        return bsend_start(c, buf, count, dt, dest, tag, fn, req_out);
    st = adi_isend(buf, (size_t)count, dt, mpi_comm_peer_job_rank(c, dest), c->rank, tag,
                   c->context, adi_mode_of[kind], req_out);
    if (st < 0)
        return mpi_err_status(c, st, fn);
    (*req_out)->owner_handle = comm;
    return MPI_SUCCESS;
}

/* The sends of the table (mpi/api/03-pt2pt.api): their entry points have
 * checked every argument and resolved the communicator. Inline in each
 * mode's implementation: a call of eight arguments (two on the stack) was
 * a second frame on MPI_Send's path. */
static inline __attribute__((always_inline)) int
send_blocking(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
              int tag, send_kind_t kind, const char *fn)
{
    adi_request_t *r = NULL;
    dt_type_t *dt;
    int err;

    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS; /* nothing to do: no request to make and free */
    dt = checked_type(count, datatype);
    /* (a standard send comes here from mpi_send_impl only, which tried the
     * straight send already) */
    err = send_post(c, buf, count, dt, dest, tag, c->handle, kind, fn, &r);
    if (err != MPI_SUCCESS || r == NULL)
        return err;
    err = mpi_request_complete_one(r, fn, NULL, MPI_STATUS_IGNORE);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(c, err, fn);
}

/* Inline in each of MPI_Isend, MPI_Issend, MPI_Irsend and MPI_Ibsend's
 * implementations: kind is a constant there (a call was a tenth of a
 * window's MPI_Isend, osu_bw). */
static inline __attribute__((always_inline)) int
send_nonblocking(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                 int tag, send_kind_t kind, MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    dt_type_t *dt = checked_type(count, datatype);
    int err;

    /* MPI_PROC_NULL, in any mode: done at once, the shared request that says
     * so (no request to allocate, complete and free). */
    if (dest == MPI_PROC_NULL && mpi_request_nullproc_obj.index == MPI_REQUEST_NULLPROC_INDEX) {
        *request = mpi_request_nullproc_handle();
        return MPI_SUCCESS;
    }
    /* A small contiguous standard send that goes straight into the channel
     * (adi_send_now: nothing queued before it, credit, a live peer, a
     * context not revoked) is complete when it returns, as MPI_Send's is:
     * it gets the shared pre-completed request instead of one allocated,
     * completed and freed (a window of MPI_Isend, osu_bw). Its wait gives
     * a status with MPI_ERROR MPI_SUCCESS and not cancelled; the standard
     * leaves a send status's source, tag and count undefined. Every other
     * send, and any failure, takes the request path, which reports it. */
    if (kind == SEND_STD && dest != MPI_PROC_NULL &&
        mpi_request_done_obj.index == MPI_REQUEST_DONE_INDEX &&
        adi_send_now(buf, (size_t)count, dt, mpi_comm_peer_job_rank(c, dest), c->rank, tag,
                     c->context, 0) == CANAL_OK) {
        *request = mpi_request_done_handle();
        return MPI_SUCCESS;
    }
    err = send_post(c, buf, count, dt, dest, tag, c->handle, kind, fn, &r);
    if (err != MPI_SUCCESS)
        return err;
    r->owner_handle = c->handle;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

/* MPI_Send's arguments in memory: the device's (adi_send_args_t) and what
 * the general path needs besides, so that no register holds them across
 * the device's call (mpi_send_impl). */
typedef struct {
    adi_send_args_t a;
    mpi_comm_t *c;
    MPI_Datatype datatype;
    int dest; /* communicator rank */
    const char *fn;
} send_frame_t;

/* MPI_Send's general path, out of line: MPI_PROC_NULL, or a message the
 * device did not take at once (the request path). */
static __attribute__((noinline)) int send_std_general(const send_frame_t *f)
{
    return send_blocking(f->c, f->a.buf, (MPI_Count)f->a.count, f->datatype, f->dest, f->a.tag,
                         SEND_STD, f->fn);
}

/* A derived type's engine type, out of line (mpi_send_impl). */
static __attribute__((noinline, cold)) dt_type_t *send_dt_derived(MPI_Datatype datatype)
{
    return mpi_dt_lookup(datatype);
}

/* MPI_Send: the device's straight send (adi_send_now_args: small,
 * contiguous, credit, nothing queued before it), the one place that
 * decides it, for any type; and nothing after it but the general path's
 * call with the frame's address, so that the arguments stay in the frame
 * (six registers were saved and restored around the call). */
int mpi_send_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  mpi_comm_t *comm, const char *fn)
{
    send_frame_t f;

    f.a.buf = buf;
    f.a.count = (size_t)count;
    f.a.tag = tag;
    f.c = comm;
    f.datatype = datatype;
    f.dest = dest;
    f.fn = fn;
    if (__builtin_expect(dest != MPI_PROC_NULL, 1)) {
        f.a.dt = __builtin_expect(mpi_dt_is_predefined(datatype), 1)
                     ? mpi_dt_predefined_obj[(unsigned)datatype & 0xffu]
                     : send_dt_derived(datatype);
        f.a.dest = mpi_comm_peer_job_rank(comm, dest);
        f.a.my_rank = comm->rank;
        f.a.context = comm->context;
        f.a.lone = 1;
        if (__builtin_expect(adi_send_now_args(&f.a) == CANAL_OK, 1))
            return MPI_SUCCESS;
    }
    return send_std_general(&f);
}

int mpi_ssend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   mpi_comm_t *comm, const char *fn)
{
    return send_blocking(comm, buf, count, datatype, dest, tag, SEND_SYNC, fn);
}

int mpi_rsend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   mpi_comm_t *comm, const char *fn)
{
    return send_blocking(comm, buf, count, datatype, dest, tag, SEND_READY, fn);
}

int mpi_bsend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   mpi_comm_t *comm, const char *fn)
{
    return send_blocking(comm, buf, count, datatype, dest, tag, SEND_BUF, fn);
}

static __attribute__((noinline)) int isend_general(const void *buf, MPI_Count count,
                                                   MPI_Datatype datatype, int dest, int tag,
                                                   mpi_comm_t *comm, MPI_Request *request,
                                                   const char *fn)
{
    return send_nonblocking(comm, buf, count, datatype, dest, tag, SEND_STD, request, fn);
}

/* MPI_Isend to a rank with a predefined type, the common case: one call
 * into the device (adi_isend_std: at once with no request when it can, the
 * shared done request then, as send_nonblocking gives), and nothing after
 * it that needs the arguments, so that no frame holds them across the call.
 * Anything else is send_nonblocking's, out of line. */
int mpi_isend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    canal_status_t st;

    if (__builtin_expect(dest == MPI_PROC_NULL || !mpi_dt_is_predefined(datatype) ||
                             mpi_request_done_obj.index != MPI_REQUEST_DONE_INDEX,
                         0))
        return isend_general(buf, count, datatype, dest, tag, comm, request, fn);
    adi_send_args_t a = {buf,
                         (size_t)count,
                         mpi_dt_predefined_obj[(unsigned)datatype & 0xffu],
                         mpi_comm_peer_job_rank(comm, dest),
                         comm->rank,
                         tag,
                         comm->context,
                         0 /* (not lone: a window of them may follow) */};
    st = adi_isend_std(&a, &r);
    if (__builtin_expect(st < 0, 0))
        return mpi_err_status(comm, st, fn);
    if (r == NULL) {
        *request = mpi_request_done_handle();
        return MPI_SUCCESS;
    }
    r->owner_handle = comm->handle;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

int mpi_issend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return send_nonblocking(comm, buf, count, datatype, dest, tag, SEND_SYNC, request, fn);
}

int mpi_irsend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return send_nonblocking(comm, buf, count, datatype, dest, tag, SEND_READY, request, fn);
}

int mpi_ibsend_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return send_nonblocking(comm, buf, count, datatype, dest, tag, SEND_BUF, request, fn);
}

/* ---------------------------------------------------------------- receives */
/* Start a checked receive (see send_post); inline, as it is MPI_Irecv's
 * whole posting path. */
/* A receive from MPI_PROC_NULL: a completed pool request. Out of line, so
 * that the common case saves few registers. */
static __attribute__((noinline, cold)) int recv_post_null(mpi_comm_t *c, const char *fn,
                                                          adi_request_t **req_out)
{
    *req_out = mpi_request_null_proc(ADI_REQ_RECV);
    return *req_out ? MPI_SUCCESS : mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no request");
}

static inline __attribute__((always_inline)) int
recv_post(mpi_comm_t *c, void *buf, MPI_Count count, dt_type_t *dt, int source, int tag,
          MPI_Comm comm, const char *fn, adi_request_t **req_out)
{
    canal_status_t st;

    if (__builtin_expect(source == MPI_PROC_NULL, 0))
        return recv_post_null(c, fn, req_out);
    st = adi_irecv(buf, (size_t)count, dt, source, tag, c->context, req_out);
    if (__builtin_expect(st < 0, 0))
        return mpi_err_status(c, st, fn);
    (*req_out)->owner_handle = comm;
    return MPI_SUCCESS;
}

/* A blocking receive (MPI_Recv, the receive half of MPI_Sendrecv and
 * MPI_Sendrecv_replace) from a source that is not MPI_PROC_NULL: with no
 * request when its message is an eager one that already waits in the
 * unexpected queue or, for a small receive, arrives while it waits unposted
 * (adi_recv_now); else through a request as MPI_Irecv + MPI_Wait. The error
 * is raised. Inline in MPI_Recv and MPI_Sendrecv, as send_blocking (one
 * frame on MPI_Recv's path, not two). */
static inline __attribute__((always_inline)) int
recv_blocking(mpi_comm_t *c, void *buf, MPI_Count count, dt_type_t *dt, int source, int tag,
              MPI_Status *status, const char *fn)
{
    adi_request_t *r = NULL;
    adi_status_t as;
    size_t size;
    int err;

    if (adi_recv_now(buf, (size_t)count, dt, source, tag, c->context, &as, &size) == CANAL_OK) {
        mpi_status_set(status, &as);
        if (__builtin_expect(as.error == CANAL_OK, 1))
            return MPI_SUCCESS;
        return mpi_err_raise_code(c, mpi_status_error_code(&as, size, fn), fn);
    }
    if ((err = recv_post(c, buf, count, dt, source, tag, c->handle, fn, &r)))
        return err;
    err = mpi_request_complete_one(r, fn, NULL, status);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(c, err, fn);
}

int mpi_recv_impl(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                  mpi_comm_t *comm, MPI_Status *status, const char *fn)
{
    if (source == MPI_PROC_NULL) { /* the empty status of MPI 4.0 3.11, without a request */
        adi_status_t none = {MPI_PROC_NULL, MPI_ANY_TAG, 0, 0, 0};
        mpi_status_set(status, &none);
        return MPI_SUCCESS;
    }
    return recv_blocking(comm, buf, count, checked_type(count, datatype), source, tag, status, fn);
}

/* MPI_Irecv's general path: recv_post, inline; from MPI_PROC_NULL the
 * shared done request once it exists (send_nonblocking), out of line with
 * recv_post's own PROC_NULL branch. */
static __attribute__((noinline)) int irecv_general(void *buf, MPI_Count count,
                                                   MPI_Datatype datatype, int source, int tag,
                                                   mpi_comm_t *comm, MPI_Request *request,
                                                   const char *fn)
{
    adi_request_t *r;
    int err;

    if (__builtin_expect(source == MPI_PROC_NULL, 0) &&
        mpi_request_nullproc_obj.index == MPI_REQUEST_NULLPROC_INDEX) {
        *request = mpi_request_nullproc_handle();
        return MPI_SUCCESS;
    }
    err = recv_post(comm, buf, count, checked_type(count, datatype), source, tag, comm->handle,
                    fn, &r);
    if (__builtin_expect(err != MPI_SUCCESS, 0))
        return err;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

/* MPI_Irecv from a rank with a predefined type (mpi_isend_impl's reasons):
 * the device's post, and the handle. */
int mpi_irecv_impl(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                   mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    adi_request_t *r;
    canal_status_t st;

    if (__builtin_expect(source == MPI_PROC_NULL || !mpi_dt_is_predefined(datatype), 0))
        return irecv_general(buf, count, datatype, source, tag, comm, request, fn);
    st = adi_irecv(buf, (size_t)count, mpi_dt_predefined_obj[(unsigned)datatype & 0xffu], source,
                   tag, comm->context, &r);
    if (__builtin_expect(st < 0, 0))
        return mpi_err_status(comm, st, fn);
    r->owner_handle = comm->handle;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- sendrecv */
/* Inline in MPI_Sendrecv's and MPI_Sendrecv_replace's implementations: a
 * call of 13 arguments (7 on the stack) was a third frame on MPI_Sendrecv's
 * path (IMB Sendrecv, doc/bench.md, helper near3). */
static inline __attribute__((always_inline)) int sendrecv_common(mpi_comm_t *c, const void *sendbuf, MPI_Count sendcount, dt_type_t *sdt,
                           int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                           dt_type_t *rdt, int source, int recvtag, MPI_Status *status,
                           const char *fn)
{
    adi_request_t *rr = NULL, *sr = NULL;
    int err, serr;

    /* A half whose peer is MPI_PROC_NULL does nothing: the other half runs
     * alone as a blocking call, without a request for the empty half (a
     * shift at the edge of a non-periodic Cartesian grid costs one call). */
    if (__builtin_expect(source == MPI_PROC_NULL || dest == MPI_PROC_NULL, 0)) {
        if (source != MPI_PROC_NULL)
            return recv_blocking(c, recvbuf, recvcount, rdt, source, recvtag, status, fn);
        if (dest != MPI_PROC_NULL) {
            if ((err = send_post(c, sendbuf, sendcount, sdt, dest, sendtag, c->handle, SEND_STD,
                                 fn, &sr)))
                return err;
            err = mpi_request_complete_one(sr, fn, NULL, MPI_STATUS_IGNORE);
            if (err != MPI_SUCCESS)
                return mpi_err_raise_code(c, err, fn);
        }
        adi_status_t none = {MPI_PROC_NULL, MPI_ANY_TAG, 0, 0, 0};
        mpi_status_set(status, &none);
        return MPI_SUCCESS;
    }
    /* A small contiguous send that can go at once goes first, with no
     * request; then the receive runs as a blocking one (recv_blocking: no
     * request either when its message is already there, or is small).
     * Otherwise (rendezvous, derived type, a queue or no credit) the receive
     * is posted before the send starts, so that a large exchange does not
     * wait on itself. */
    if (adi_send_now(sendbuf, (size_t)sendcount, sdt, mpi_comm_peer_job_rank(c, dest), c->rank,
                     sendtag, c->context, 0) == CANAL_OK)
        return recv_blocking(c, recvbuf, recvcount, rdt, source, recvtag, status, fn);
    if ((err = recv_post(c, recvbuf, recvcount, rdt, source, recvtag, c->handle, fn, &rr)))
        return err;
    if ((err =
             send_post(c, sendbuf, sendcount, sdt, dest, sendtag, c->handle, SEND_STD, fn, &sr))) {
        adi_cancel(rr);
        mpi_request_complete_one(rr, fn, NULL, MPI_STATUS_IGNORE);
        return err;
    }
    serr = mpi_request_complete_one(sr, fn, NULL, MPI_STATUS_IGNORE);
    err = mpi_request_complete_one(rr, fn, NULL, status);
    if (err == MPI_SUCCESS)
        err = serr;
    if (err != MPI_SUCCESS)
        return mpi_err_raise_code(c, err, fn);
    return MPI_SUCCESS;
}

int mpi_sendrecv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                      int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                      int source, int recvtag, mpi_comm_t *comm, MPI_Status *status, const char *fn)
{
    /* Both halves MPI_PROC_NULL (a shift on a 1-rank non-periodic grid):
     * the empty status, before the types are even looked up. */
    if (__builtin_expect(source == MPI_PROC_NULL && dest == MPI_PROC_NULL, 0)) {
        adi_status_t none = {MPI_PROC_NULL, MPI_ANY_TAG, 0, 0, 0};
        mpi_status_set(status, &none);
        return MPI_SUCCESS;
    }
    return sendrecv_common(comm, sendbuf, sendcount, checked_type(sendcount, sendtype), dest,
                           sendtag, recvbuf, recvcount, checked_type(recvcount, recvtype), source,
                           recvtag, status, fn);
}

/* A packed copy of buf for the send half of the _replace forms (malloc'd). */
static int replace_copy(mpi_comm_t *c, const void *buf, MPI_Count count, dt_type_t *dt,
                        const char *fn, void **tmp_out, size_t *bytes_out)
{
    size_t bytes = (size_t)count * dt_size(dt), packed = 0;
    void *tmp = malloc(bytes ? bytes : 1);

    if (tmp == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for %zu bytes", bytes);
    if (dt_pack(buf, (size_t)count, dt, tmp, bytes, &packed) < 0) {
        free(tmp);
        return mpi_err_status(c, CANAL_ERR_NOMEM, fn);
    }
    *tmp_out = tmp;
    *bytes_out = bytes;
    return MPI_SUCCESS;
}

int mpi_sendrecv_replace_impl(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int sendtag, int source, int recvtag, mpi_comm_t *comm,
                              MPI_Status *status, const char *fn)
{
    dt_type_t *dt = checked_type(count, datatype);
    size_t bytes = 0;
    void *tmp = NULL;
    int err = replace_copy(comm, buf, count, dt, fn, &tmp, &bytes);

    if (err != MPI_SUCCESS)
        return err;
    err = sendrecv_common(comm, tmp, (MPI_Count)bytes, dt_builtin(DT_BYTE), dest, sendtag, buf,
                          count, dt, source, recvtag, status, fn);
    free(tmp);
    return err;
}

/* MPI_Isendrecv: a request that completes when both halves have. */
typedef struct {
    adi_request_t *send, *recv;
    void *tmp;
} isendrecv_t;

static void isendrecv_part_done(adi_request_t *part, void *arg)
{
    adi_request_t *whole = arg;
    isendrecv_t *x = whole->mpi_ext;
    if (!__atomic_load_n(&x->send->done, __ATOMIC_ACQUIRE) ||
        !__atomic_load_n(&x->recv->done, __ATOMIC_ACQUIRE))
        return;
    whole->status = x->recv->status;
    if (whole->status.error == 0)
        whole->status.error = x->send->status.error;
    adi_request_free(x->send);
    adi_request_free(x->recv);
    free(x->tmp);
    free(x);
    whole->mpi_ext = NULL;
    adi_request_complete(whole);
}

static int isendrecv_common(mpi_comm_t *c, const void *sendbuf, MPI_Count sendcount, dt_type_t *sdt,
                            int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                            dt_type_t *rdt, int source, int recvtag, MPI_Request *request,
                            void *tmp, const char *fn)
{
    adi_request_t *whole, *rr = NULL, *sr = NULL;
    isendrecv_t *x;
    int err;

    /* Both halves MPI_PROC_NULL: the shared MPI_PROC_NULL request, as
     * MPI_Irecv's (the copy of the _replace form is not needed). */
    if (source == MPI_PROC_NULL && dest == MPI_PROC_NULL &&
        mpi_request_nullproc_obj.index == MPI_REQUEST_NULLPROC_INDEX) {
        free(tmp);
        *request = mpi_request_nullproc_handle();
        return MPI_SUCCESS;
    }
    /* Allocate the whole first, so that no failure leaves a half started. */
    whole = adi_request_alloc(ADI_REQ_OTHER);
    x = malloc(sizeof *x);
    if (whole == NULL || x == NULL) {
        err = mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
        goto out_free;
    }
    if ((err = recv_post(c, recvbuf, recvcount, rdt, source, recvtag, c->handle, fn, &rr)))
        goto out_free;
    if ((err =
             send_post(c, sendbuf, sendcount, sdt, dest, sendtag, c->handle, SEND_STD, fn, &sr))) {
        adi_cancel(rr);
        mpi_request_complete_one(rr, fn, NULL, MPI_STATUS_IGNORE);
        goto out_free;
    }
    x->send = sr;
    x->recv = rr;
    x->tmp = tmp;
    whole->mpi_ext = x;
    whole->owner_handle = c->handle;
    *request = mpi_request_handle(whole);
    adi_lock();
    /* whichever completes last completes the whole */
    if (!sr->done) {
        sr->on_complete = isendrecv_part_done;
        sr->on_complete_arg = whole;
    }
    if (!rr->done) {
        rr->on_complete = isendrecv_part_done;
        rr->on_complete_arg = whole;
    }
    if (sr->done && rr->done)
        isendrecv_part_done(NULL, whole);
    adi_unlock();
    return MPI_SUCCESS;
out_free:
    free(x);
    if (whole != NULL)
        adi_request_free(whole);
    return err;
}

int mpi_isendrecv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                       int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       int source, int recvtag, mpi_comm_t *comm, MPI_Request *request,
                       const char *fn)
{
    return isendrecv_common(comm, sendbuf, sendcount, checked_type(sendcount, sendtype), dest,
                            sendtag, recvbuf, recvcount, checked_type(recvcount, recvtype), source,
                            recvtag, request, NULL, fn);
}

int mpi_isendrecv_replace_impl(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                               int sendtag, int source, int recvtag, mpi_comm_t *comm,
                               MPI_Request *request, const char *fn)
{
    dt_type_t *dt = checked_type(count, datatype);
    size_t bytes = 0;
    void *tmp = NULL;
    int err = replace_copy(comm, buf, count, dt, fn, &tmp, &bytes);

    if (err != MPI_SUCCESS)
        return err;
    err = isendrecv_common(comm, tmp, (MPI_Count)bytes, dt_builtin(DT_BYTE), dest, sendtag, buf,
                           count, dt, source, recvtag, request, tmp, fn);
    if (err != MPI_SUCCESS)
        free(tmp);
    return err;
}

/* ---------------------------------------------------------------- probes */
static void status_proc_null(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        adi_status_t as = {MPI_PROC_NULL, MPI_ANY_TAG, 0, 0, 0};
        mpi_status_set(status, &as);
    }
}

int mpi_iprobe_impl(int source, int tag, mpi_comm_t *comm, int *flag, MPI_Status *status,
                    const char *fn)
{
    adi_status_t as;
    canal_status_t st;

    if (source == MPI_PROC_NULL) {
        *flag = 1;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    if ((st = adi_iprobe(source, tag, comm->context, flag, &as)) < 0)
        return mpi_err_status(comm, st, fn);
    if (*flag && status != MPI_STATUS_IGNORE)
        mpi_status_set(status, &as);
    return MPI_SUCCESS;
}

int mpi_probe_impl(int source, int tag, mpi_comm_t *comm, MPI_Status *status, const char *fn)
{
    adi_status_t as;
    canal_status_t st;

    if (source == MPI_PROC_NULL) {
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    if ((st = adi_probe(source, tag, comm->context, 0, NULL, &as)) < 0)
        return mpi_err_status(comm, st, fn);
    if (status != MPI_STATUS_IGNORE)
        mpi_status_set(status, &as);
    return MPI_SUCCESS;
}

/* The handle of a message a matched probe took. With no handle left the
 * message is received into nothing (it left matching and nobody could
 * receive it) and the call fails saying so. */
static int message_handle(mpi_comm_t *c, adi_message_t *m, MPI_Message *message, const char *fn)
{
    MPI_Message h = mpi_handle_new(MPI_OBJ_MESSAGE, m);

    if (h == 0) {
        adi_request_t *r = NULL;
        if (adi_imrecv(NULL, 0, dt_builtin(DT_BYTE), m, &r) == CANAL_OK)
            mpi_request_complete_one(r, fn, NULL, MPI_STATUS_IGNORE);
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn,
                             "no message handle left: the matched message was discarded");
    }
    *message = h;
    return MPI_SUCCESS;
}

int mpi_improbe_impl(int source, int tag, mpi_comm_t *comm, int *flag, MPI_Message *message,
                     MPI_Status *status, const char *fn)
{
    adi_status_t as;
    adi_message_t *m = NULL;
    canal_status_t st;
    int err;

    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    if ((st = adi_improbe(source, tag, comm->context, flag, &m, &as)) < 0)
        return mpi_err_status(comm, st, fn);
    if (*flag) {
        if ((err = message_handle(comm, m, message, fn)) != MPI_SUCCESS)
            return err;
        if (status != MPI_STATUS_IGNORE)
            mpi_status_set(status, &as);
    }
    return MPI_SUCCESS;
}

int mpi_mprobe_impl(int source, int tag, mpi_comm_t *comm, MPI_Message *message, MPI_Status *status,
                    const char *fn)
{
    adi_status_t as;
    adi_message_t *m = NULL;
    canal_status_t st;
    int err;

    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    if ((st = adi_probe(source, tag, comm->context, 1, &m, &as)) < 0)
        return mpi_err_status(comm, st, fn);
    if ((err = message_handle(comm, m, message, fn)) != MPI_SUCCESS)
        return err;
    if (status != MPI_STATUS_IGNORE)
        mpi_status_set(status, &as);
    return MPI_SUCCESS;
}

/* The message a handle names, its handle released and *message set to
 * MPI_MESSAGE_NULL (the entry point checked the pointer); NULL with the
 * error raised when the handle names none. */
static adi_message_t *message_take(MPI_Message *message, const char *fn, int *err)
{
    adi_message_t *m = mpi_handle_get(MPI_OBJ_MESSAGE, *message);

    if (m == NULL) {
        *err = mpi_err_raise(NULL, MPI_ERR_REQUEST, fn, "message=%#x is not a valid message",
                             (unsigned)*message);
        return NULL;
    }
    mpi_handle_del(MPI_OBJ_MESSAGE, *message);
    *message = MPI_MESSAGE_NULL;
    return m;
}

/* The receive of a matched message (count, datatype, buf and the message
 * pointer checked by the entry point). */
static int imrecv_common(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                         const char *fn, adi_request_t **req_out)
{
    adi_message_t *m;
    canal_status_t st;
    int err = MPI_SUCCESS;

    if (*message == MPI_MESSAGE_NO_PROC) {
        *req_out = mpi_request_null_proc(ADI_REQ_RECV);
        *message = MPI_MESSAGE_NULL;
        return *req_out ? MPI_SUCCESS : mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "no request");
    }
    if ((m = message_take(message, fn, &err)) == NULL)
        return err;
    st = adi_imrecv(buf, (size_t)count, checked_type(count, datatype), m, req_out);
    if (st < 0)
        return mpi_err_status(NULL, st, fn);
    return MPI_SUCCESS;
}

int mpi_mrecv_impl(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                   MPI_Status *status, const char *fn)
{
    adi_request_t *r = NULL;
    adi_message_t *m;
    adi_status_t as;
    dt_type_t *dt;
    size_t size;
    int err = MPI_SUCCESS;

    if (*message == MPI_MESSAGE_NO_PROC) { /* the empty status, without a request */
        *message = MPI_MESSAGE_NULL;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    if ((m = message_take(message, fn, &err)) == NULL)
        return err;
    /* An eager message into a contiguous buffer: copied straight from the
     * message, with no request (as MPI_Recv takes one that waits). */
    dt = checked_type(count, datatype);
    if (adi_mrecv_now(buf, (size_t)count, dt, m, &as, &size) == CANAL_OK) {
        mpi_status_set(status, &as);
        if (__builtin_expect(as.error == CANAL_OK, 1))
            return MPI_SUCCESS;
        return mpi_err_raise_code(NULL, mpi_status_error_code(&as, size, fn), fn);
    }
    if ((err = adi_imrecv(buf, (size_t)count, dt, m, &r)) < 0)
        return mpi_err_status(NULL, err, fn);
    err = mpi_request_complete_one(r, fn, NULL, status);
    return err ? mpi_err_raise_code(NULL, err, fn) : err;
}

int mpi_imrecv_impl(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                    MPI_Request *request, const char *fn)
{
    adi_request_t *r = NULL;
    int err;

    if (*message == MPI_MESSAGE_NO_PROC &&
        mpi_request_nullproc_obj.index == MPI_REQUEST_NULLPROC_INDEX) { /* (as MPI_Irecv) */
        *message = MPI_MESSAGE_NULL;
        *request = mpi_request_nullproc_handle();
        return MPI_SUCCESS;
    }
    err = imrecv_common(buf, count, datatype, message, fn, &r);
    if (err == MPI_SUCCESS)
        *request = mpi_request_handle(r);
    return err;
}

/* ---------------------------------------------------------------- persistent */
typedef struct {
    int is_send;
    send_kind_t kind;
    void *buf;
    MPI_Count count;
    dt_type_t *dt;    /* our own reference: the user may free the type */
    int peer, tag;
    MPI_Comm comm;
} preq_args_t;

/* A persistent request of checked arguments. */
static int persistent_init(const void *buf, MPI_Count count, MPI_Datatype datatype, int peer,
                           int tag, mpi_comm_t *c, MPI_Request *request, int is_send,
                           send_kind_t kind, const char *fn)
{
    adi_request_t *r = adi_request_alloc(is_send ? ADI_REQ_PREQ_SEND : ADI_REQ_PREQ_RECV);
    preq_args_t *a = malloc(sizeof *a);

    if (r == NULL || a == NULL) {
        free(a);
        if (r)
            adi_request_free(r);
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
    }
    a->is_send = is_send;
    a->kind = kind;
    a->buf = (void *)buf;
    a->count = count;
    a->dt = checked_type(count, datatype);
    dt_retain(a->dt);
    a->peer = peer;
    a->tag = tag;
    a->comm = c->handle;
    r->mpi_ext = a;
    r->owner_handle = c->handle;
    r->status.source = MPI_ANY_SOURCE;
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;
}

int mpi_send_init_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                       mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return persistent_init(buf, count, datatype, dest, tag, comm, request, 1, SEND_STD, fn);
}

int mpi_ssend_init_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return persistent_init(buf, count, datatype, dest, tag, comm, request, 1, SEND_SYNC, fn);
}

int mpi_rsend_init_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return persistent_init(buf, count, datatype, dest, tag, comm, request, 1, SEND_READY, fn);
}

int mpi_bsend_init_impl(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return persistent_init(buf, count, datatype, dest, tag, comm, request, 1, SEND_BUF, fn);
}

int mpi_recv_init_impl(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                       mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return persistent_init(buf, count, datatype, source, tag, comm, request, 0, SEND_STD, fn);
}

/* Start one persistent point-to-point request (called by MPI_Start(all)). */
int mpi_preq_start(adi_request_t *r, const char *fn)
{
    preq_args_t *a = r->mpi_ext;
    adi_request_t *inner = NULL;
    mpi_comm_t *c = NULL;
    int err;

    if (r->inner != NULL)
        return mpi_err_raise(mpi_comm_get(a->comm), MPI_ERR_REQUEST, fn,
                             "request %#x is already active", (unsigned)mpi_request_handle(r));
    if ((err = mpi_enter(fn)) || (err = mpi_check_comm(a->comm, fn, &c)))
        return err;
    if (a->is_send)
        err = send_post(c, a->buf, a->count, a->dt, a->peer, a->tag, a->comm, a->kind, fn, &inner);
    else
        err = recv_post(c, a->buf, a->count, a->dt, a->peer, a->tag, a->comm, fn, &inner);
    if (err)
        return err;
    r->inner = inner;
    return MPI_SUCCESS;
}

void mpi_preq_free_args(adi_request_t *r)
{
    preq_args_t *a = r->mpi_ext;

    if (a != NULL && a->dt != NULL)
        dt_release(a->dt);
    free(r->mpi_ext);
    r->mpi_ext = NULL;
}
