/*
 * Partitioned communication (MPI 4.0 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready(_range, _list) and MPI_Parrived, built on the
 * device's point-to-point operations. Started and completed through
 * MPI_Start/MPI_Wait like every persistent request (ADI_REQ_PREQ_OTHER, see
 * mpi_persist_ops_t in mpiimpl.h and mpi/request.c). The entry points are
 * generated from mpi/api/04-partitioned.api; they check count, datatype,
 * buffer, peer rank, tag and the request pointer.
 *
 * The wire: all messages travel on the communicator's collective context
 * (context + 1) with tags no collective uses, so that the user's wildcard
 * receives never see them.
 * - Matching. MPI_Psend_init sends a setup message with tag
 *   0x40000000 | tag (above MPI_TAG_UB, below the sign bit) carrying an id
 *   that is unique among its live partitioned sends, its partition count and
 *   partition size, and MPI_Precv_init posts the receive for it. Both happen
 *   in the order of the init calls, so setup messages between two processes
 *   with one tag match in that order, which is the matching rule of the
 *   standard, whatever order the requests are started in later. The
 *   receiver learns the id once and keeps it.
 * - Data. Partition p of send id s goes as its own message with the negative
 *   tag INT_MIN | s << 16 | p as soon as MPI_Pready marks it (so up to 65536
 *   partitions); with more partitions the whole buffer goes as one message
 *   when the last partition is ready. The receiver posts one receive per
 *   partition (or one) at each start; data of a round that arrives before
 *   the receiver started that round waits in the unexpected queue.
 * The sender and receiver may partition the message differently (only the
 * total size must agree, else the round fails with MPI_ERR_TRUNCATE). A
 * receiver that learns from the setup message that the sender's
 * partitioning differs from its own receives the sender's partitions as
 * bytes into a staging buffer, and unpacks each of its own partitions into
 * the user's buffer as soon as every sender partition overlapping it has
 * arrived, so MPI_Parrived still reports partitions early.
 *
 * Completion: each round has an umbrella request (r->inner) that completes
 * when every partition message of the round has completed; the partition
 * requests report to it from the device's completion callbacks (device
 * lock held), which is also where a receiver that just learned the send id
 * posts its receives. The device lock serializes MPI_Pready from several
 * threads with those callbacks.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    PART_SETUP_TAG = 0x40000000,
    PART_MAX_SPLIT = 65536, /* partitions sent one by one; more: one message */
    PART_MAX_IDS = 0x7fff,  /* send ids 0..0x7ffe (0x7fff with p = 0xffff would be -1) */
};

static unsigned long long stat_starts, stat_ready, stat_msgs;

void mpi_part_stats(unsigned long long *started_out, unsigned long long *partitions_out,
                    unsigned long long *messages_out)
{
    *started_out = __atomic_load_n(&stat_starts, __ATOMIC_RELAXED);
    *partitions_out = __atomic_load_n(&stat_ready, __ATOMIC_RELAXED);
    *messages_out = __atomic_load_n(&stat_msgs, __ATOMIC_RELAXED);
}

typedef struct {
    int32_t id, partitions;
    int64_t part_bytes;
} part_setup_t;

typedef struct part {
    const mpi_persist_ops_t *ops; /* first: the persistent-request convention */
    adi_request_t *req;           /* the persistent request */
    int is_send;
    MPI_Comm comm;
    void *buf;
    MPI_Count count; /* elements per partition */
    dt_type_t *dt;   /* our own reference: the user may free the type after init */
    int partitions, peer, tag;
    int id;          /* send id (sender: own; receiver: learned, -1 until then) */
    int split;       /* one message per partition */
    size_t part_bytes;
    ptrdiff_t part_stride; /* bytes between partition starts in buf */
    /* the round */
    int active;
    int issued, total, pending; /* messages posted, per round, not yet complete */
    int nready;
    unsigned char *flags; /* sender: ready; receiver: arrived */
    int error;            /* first error of the round (positive MPI class or canal status) */
    int setup_error;      /* receiver: the setup failed or did not fit (fails every round) */
    part_setup_t setup;
    adi_request_t *setup_req;
    /* receiver whose partitioning differs from the sender's */
    int remap;
    int s_parts, s_split;    /* the sender's partitions, one message each? */
    size_t s_bytes;          /* bytes per sender partition */
    unsigned char *staging;  /* the whole message, packed */
    unsigned char *s_flags;  /* sender partition arrived */
} part_t;

static unsigned char id_used[PART_MAX_IDS];

/* ---------------------------------------------------------------- helpers */
static mpi_comm_t *part_comm(part_t *p)
{
    mpi_comm_t *c = mpi_comm_get(p->comm);
    return c != NULL ? c : &mpi_comm_world_obj;
}

static int data_tag(int id, int partition)
{
    return (int)(0x80000000u | ((unsigned)id << 16) | (unsigned)partition);
}

/* The round is over when every message was posted and has completed. */
static void round_check(part_t *p)
{
    adi_request_t *u = p->req->inner;
    if (!p->active || p->issued < p->total || p->pending > 0 || u == NULL)
        return;
    p->active = 0;
    u->status.source = p->peer;
    u->status.tag = p->tag;
    u->status.bytes = p->error == 0 ? p->part_bytes * (size_t)p->partitions : 0;
    u->status.error = p->error;
    adi_request_complete(u);
}

typedef struct {
    part_t *p;
    int first, n; /* partitions this message covers */
} sub_arg_t;

/* Remapping receiver: sender partitions [first, first + n) arrived; unpack
 * every own partition they complete (device lock held). */
static void remap_arrived(part_t *p, int first, int n)
{
    dt_type_t *dt = p->dt;
    size_t lo = (size_t)first * p->s_bytes, hi = (size_t)(first + n) * p->s_bytes;
    size_t q0 = p->part_bytes ? lo / p->part_bytes : 0;

    for (int i = first; i < first + n; i++)
        p->s_flags[i] = 1;
    for (size_t q = q0; q < (size_t)p->partitions; q++) {
        size_t qlo = q * p->part_bytes, qhi = qlo + p->part_bytes, all = 1, done = 0;
        if (qlo >= hi && q > q0)
            break;
        if (p->flags[q])
            continue;
        for (size_t s = p->s_bytes ? qlo / p->s_bytes : 0;
             s < (size_t)p->s_parts && s * p->s_bytes < qhi; s++)
            all &= p->s_flags[s];
        if (!all)
            continue;
        if (dt == NULL || dt_unpack(p->staging + qlo, p->part_bytes,
                                    (char *)p->buf + (ptrdiff_t)q * p->part_stride,
                                    (size_t)p->count, dt, &done) < 0) {
            if (p->error == 0)
                p->error = MPI_ERR_TYPE;
            continue;
        }
        __atomic_store_n(&p->flags[q], 1, __ATOMIC_RELEASE);
    }
}

/* Completion callback of a partition message (device lock held). */
static void sub_done(adi_request_t *r, void *arg)
{
    sub_arg_t *a = arg;
    part_t *p = a->p;
    if (r->status.error != 0 && p->error == 0)
        p->error = r->status.error;
    if (!p->is_send && p->remap && r->status.error == 0)
        remap_arrived(p, a->first, a->n);
    else if (!p->is_send)
        for (int i = a->first; i < a->first + a->n; i++)
            __atomic_store_n(&p->flags[i], 1, __ATOMIC_RELEASE);
    free(a);
    p->pending--;
    round_check(p);
}

/* Post a message for partitions [first, first + n) (device lock held). */
static void post(part_t *p, int first, int n)
{
    mpi_comm_t *c = part_comm(p);
    dt_type_t *dt = p->dt;
    char *base = (char *)p->buf + (ptrdiff_t)first * p->part_stride;
    size_t count = (size_t)p->count * (size_t)n;
    adi_request_t *r = NULL;
    sub_arg_t *a = malloc(sizeof *a);
    canal_status_t st;

    p->issued++;
    if (a == NULL || dt == NULL) {
        free(a);
        if (p->error == 0)
            p->error = a == NULL ? MPI_ERR_NO_MEM : MPI_ERR_TYPE;
        round_check(p);
        return;
    }
    a->p = p;
    a->first = first;
    a->n = n;
    if (p->is_send)
        st = adi_isend(base, count, dt, mpi_comm_peer_job_rank(c, p->peer), c->rank,
                       data_tag(p->id, first), c->context + 1, ADI_MODE_STANDARD, &r);
    else if (p->remap)
        st = adi_irecv(p->staging + (size_t)first * p->s_bytes, p->s_bytes * (size_t)n,
                       dt_builtin(DT_BYTE), p->peer, data_tag(p->id, first), c->context + 1, &r);
    else
        st = adi_irecv(base, count, dt, p->peer, data_tag(p->id, first), c->context + 1, &r);
    if (st < 0) {
        free(a);
        if (p->error == 0)
            p->error = st;
        round_check(p);
        return;
    }
    if (p->is_send)
        __atomic_add_fetch(&stat_msgs, 1, __ATOMIC_RELAXED);
    p->pending++;
    if (r->done) {
        sub_done(r, a);
        adi_request_free(r);
    } else {
        r->on_complete = sub_done;
        r->on_complete_arg = a;
        r->user_freed = 1; /* the device frees it after the callback */
    }
}

/* Receiver: the send id is known; post this round's receives. */
static void post_recvs(part_t *p)
{
    if (p->remap) {
        memset(p->s_flags, 0, (size_t)p->s_parts);
        if (!p->s_split)
            post(p, 0, p->s_parts);
        else
            for (int i = 0; i < p->s_parts; i++)
                post(p, i, 1);
        return;
    }
    if (!p->split) {
        post(p, 0, p->partitions);
        return;
    }
    for (int i = 0; i < p->partitions; i++)
        post(p, i, 1);
}

/* Receiver: a failed setup fails the round in flight, if any. */
static void setup_fail(part_t *p, int err)
{
    p->setup_error = err;
    if (p->active) {
        if (p->error == 0)
            p->error = err;
        p->issued = p->total;
        round_check(p);
    }
}

/* Receiver: the setup message arrived (device lock held); it may come
 * before the first MPI_Start, in which case the start posts the receives. */
static void setup_done(adi_request_t *r, void *arg)
{
    part_t *p = arg;
    if (r->status.error != 0 || r->status.cancelled) {
        setup_fail(p, r->status.error != 0 ? r->status.error : MPI_ERR_OTHER);
        return;
    }
    if (p->setup.partitions != p->partitions || (size_t)p->setup.part_bytes != p->part_bytes) {
        size_t total = p->part_bytes * (size_t)p->partitions;
        if (p->setup.partitions < 1 || p->setup.part_bytes < 0 ||
            (size_t)p->setup.part_bytes * (size_t)p->setup.partitions != total ||
            (p->staging = malloc(total ? total : 1)) == NULL ||
            (p->s_flags = calloc((size_t)p->setup.partitions, 1)) == NULL) {
            free(p->staging);
            p->staging = NULL;
            common_err_set(CANAL_ERR_TRUNCATE,
                           "partitioned receive of %d partitions of %zu bytes matched a send of "
                           "%d partitions of %lld bytes: the totals differ",
                           p->partitions, p->part_bytes, (int)p->setup.partitions,
                           (long long)p->setup.part_bytes);
            setup_fail(p, MPI_ERR_TRUNCATE);
            return;
        }
        p->remap = 1;
        p->s_parts = p->setup.partitions;
        p->s_bytes = (size_t)p->setup.part_bytes;
        p->s_split = p->s_parts <= PART_MAX_SPLIT;
        if (p->active)
            p->total = p->s_split ? p->s_parts : 1;
    }
    p->id = p->setup.id;
    if (p->active)
        post_recvs(p);
}

/* At init: the sender sends its setup message, the receiver posts the
 * receive for it (device lock held). */
static canal_status_t setup_post(part_t *p, mpi_comm_t *c)
{
    canal_status_t st;

    if (p->is_send) {
        p->setup.id = p->id;
        p->setup.partitions = p->partitions;
        p->setup.part_bytes = (int64_t)p->part_bytes;
        return adi_isend(&p->setup, sizeof p->setup, dt_builtin(DT_BYTE),
                         mpi_comm_peer_job_rank(c, p->peer), c->rank, PART_SETUP_TAG | p->tag,
                         c->context + 1, ADI_MODE_STANDARD, &p->setup_req);
    }
    st = adi_irecv(&p->setup, sizeof p->setup, dt_builtin(DT_BYTE), p->peer,
                   PART_SETUP_TAG | p->tag, c->context + 1, &p->setup_req);
    if (st < 0)
        return st;
    if (p->setup_req->done)
        setup_done(p->setup_req, p);
    else {
        p->setup_req->on_complete = setup_done;
        p->setup_req->on_complete_arg = p;
    }
    return CANAL_OK;
}

/* ---------------------------------------------------------------- start, release */
static int part_start(adi_request_t *r, const char *fn)
{
    part_t *p = r->mpi_ext;
    mpi_comm_t *c = part_comm(p);
    adi_request_t *u;

    u = adi_request_alloc(ADI_REQ_OTHER);
    if (u == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
    u->owner_handle = p->comm;
    __atomic_add_fetch(&stat_starts, 1, __ATOMIC_RELAXED);
    adi_lock();
    r->inner = u;
    memset(p->flags, 0, (size_t)p->partitions);
    p->nready = 0;
    p->issued = 0;
    p->pending = 0;
    p->error = 0;
    p->total = p->peer == MPI_PROC_NULL ? 0
               : p->remap                 ? (p->s_split ? p->s_parts : 1)
               : p->split                 ? p->partitions
                                          : 1;
    p->active = 1;
    if (p->peer == MPI_PROC_NULL) {
        if (!p->is_send)
            memset(p->flags, 1, (size_t)p->partitions);
        round_check(p);
        adi_unlock();
        return MPI_SUCCESS;
    }
    if (!p->is_send && p->setup_error != 0) {
        if (p->error == 0)
            p->error = p->setup_error;
        p->issued = p->total;
        round_check(p);
    } else if (!p->is_send && p->id >= 0) {
        post_recvs(p);
    }
    /* else the receives are posted when the setup message arrives */
    adi_unlock();
    return MPI_SUCCESS;
}

static void part_release(adi_request_t *r)
{
    part_t *p = r->mpi_ext;
    adi_lock();
    if (p->active || (!p->is_send && p->setup_req != NULL && !p->setup_req->done)) {
        /* Freed while a round is in flight: the partition messages still
         * point at p, so it stays (a small leak rather than a crash). */
        p->req = NULL;
        adi_unlock();
        return;
    }
    adi_unlock();
    if (p->setup_req != NULL) {
        if (!p->setup_req->done)
            adi_wait(p->setup_req);
        adi_request_free(p->setup_req);
    }
    if (p->is_send && p->id >= 0)
        __atomic_store_n(&id_used[p->id], 0, __ATOMIC_RELEASE);
    dt_release(p->dt);
    free(p->flags);
    free(p->staging);
    free(p->s_flags);
    free(p);
    r->mpi_ext = NULL;
}

static const mpi_persist_ops_t part_ops = {part_start, part_release};

/* ---------------------------------------------------------------- init */
static int alloc_id(void)
{
    for (int i = 0; i < PART_MAX_IDS; i++) {
        unsigned char expect = 0;
        if (__atomic_compare_exchange_n(&id_used[i], &expect, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return i;
    }
    return -1;
}

/* count, datatype, buf, peer, tag and request are checked by the entry
 * points. */
static int part_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int peer,
                     int tag, mpi_comm_t *c, MPI_Info info, MPI_Request *request, int is_send,
                     const char *fn)
{
    MPI_Comm comm = c->handle;
    dt_type_t *dt = mpi_dt_get(datatype);
    adi_request_t *r;
    part_t *p;
    int err;

    if (c->is_inter)
        return mpi_err_raise(c, MPI_ERR_COMM, fn,
                             "comm=%#x is an intercommunicator; Canal's partitioned "
                             "communication works on intracommunicators",
                             (unsigned)comm);
    if (partitions < 1)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "partitions=%d is not positive", partitions);
    if (info != MPI_INFO_NULL && mpi_handle_get(MPI_OBJ_INFO, info) == NULL)
        return mpi_err_raise(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                             (unsigned)info);
    if ((size_t)count > SIZE_MAX / (size_t)partitions / (dt_size(dt) ? dt_size(dt) : 1))
        return mpi_err_raise(c, MPI_ERR_COUNT, fn,
                             "partitions=%d times count=%lld is too large", partitions,
                             (long long)count);
    p = calloc(1, sizeof *p);
    if (p == NULL || (p->flags = calloc((size_t)partitions, 1)) == NULL) {
        free(p);
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a partitioned request");
    }
    p->ops = &part_ops;
    p->is_send = is_send;
    p->comm = comm;
    p->buf = buf;
    p->count = count;
    p->dt = dt;
    p->partitions = partitions;
    p->peer = peer;
    p->tag = tag;
    p->split = partitions <= PART_MAX_SPLIT;
    p->part_bytes = (size_t)count * dt_size(dt);
    p->part_stride = (ptrdiff_t)count * dt_extent(dt);
    p->id = -1;
    if (is_send && peer != MPI_PROC_NULL && (p->id = alloc_id()) < 0) {
        err = mpi_err_raise(c, MPI_ERR_OTHER, fn,
                            "too many partitioned send requests are alive (at most %d)",
                            PART_MAX_IDS);
        goto out_part;
    }
    if ((r = adi_request_alloc(ADI_REQ_PREQ_OTHER)) == NULL) {
        err = mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
        goto out_id;
    }
    p->req = r;
    r->mpi_ext = p;
    r->owner_handle = comm;
    r->status.source = MPI_ANY_SOURCE;
    if (peer != MPI_PROC_NULL) {
        canal_status_t st;
        adi_lock();
        st = setup_post(p, c);
        adi_unlock();
        if (st < 0) {
            err = mpi_err_status(c, st, fn);
            goto out_request;
        }
    }
    dt_retain(dt);
    *request = mpi_request_handle(r);
    return MPI_SUCCESS;

out_request:
    adi_request_free(r);
out_id:
    if (p->id >= 0 && is_send)
        __atomic_store_n(&id_used[p->id], 0, __ATOMIC_RELEASE);
out_part:
    free(p->flags);
    free(p);
    return err;
}

int mpi_psend_init_impl(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                        const char *fn)
{
    return part_init((void *)buf, partitions, count, datatype, dest, tag, comm, info, request, 1,
                     fn);
}

int mpi_precv_init_impl(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                        int source, int tag, mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                        const char *fn)
{
    return part_init(buf, partitions, count, datatype, source, tag, comm, info, request, 0, fn);
}

/* ---------------------------------------------------------------- ready, arrived */
/* The steps below raise with mpi_err_fail, so that a code the user's handler
 * cleared (MPI_CANAL_HANDLED) stops the call as any error does -- no lookup
 * result used, no partition of a range marked after a refused one -- and the
 * four calls return mpi_result() of it (their table file, 04, maps nothing).
 * A raise that ends the call at once stays mpi_err_raise. */
static int lookup(MPI_Request request, int want_send, const char *fn, part_t **out)
{
    adi_request_t *r = mpi_request_get(request);
    part_t *p;
    if (r == NULL)
        return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn, "request=%#x is not a valid request%s",
                             (unsigned)request,
                             request == MPI_REQUEST_NULL ? " (MPI_REQUEST_NULL)" : "");
    if (r->kind != ADI_REQ_PREQ_OTHER || r->mpi_ext == NULL ||
        *(const mpi_persist_ops_t **)r->mpi_ext != &part_ops)
        return mpi_err_fail(NULL, MPI_ERR_REQUEST, fn,
                             "request=%#x is not a partitioned request", (unsigned)request);
    p = r->mpi_ext;
    if (p->is_send != want_send)
        return mpi_err_fail(part_comm(p), MPI_ERR_REQUEST, fn,
                             "request=%#x is a partitioned %s request; %s needs a %s request",
                             (unsigned)request, p->is_send ? "send" : "receive", fn,
                             want_send ? "send" : "receive");
    *out = p;
    return MPI_SUCCESS;
}

/* Mark partitions ready (device lock held); returns an MPI error or 0. */
static int ready_one(part_t *p, int i, const char *fn)
{
    if (i < 0 || i >= p->partitions)
        return mpi_err_fail(part_comm(p), MPI_ERR_ARG, fn, "partition=%d is not in [0, %d)", i,
                             p->partitions);
    if (p->flags[i])
        return mpi_err_fail(part_comm(p), MPI_ERR_ARG, fn,
                             "partition %d was already marked ready in this round", i);
    p->flags[i] = 1;
    p->nready++;
    __atomic_add_fetch(&stat_ready, 1, __ATOMIC_RELAXED);
    if (p->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (p->split)
        post(p, i, 1);
    else if (p->nready == p->partitions)
        post(p, 0, p->partitions);
    return MPI_SUCCESS;
}

static int check_active(part_t *p, MPI_Request request, const char *fn)
{
    if (p->req == NULL || p->req->inner == NULL)
        return mpi_err_fail(part_comm(p), MPI_ERR_REQUEST, fn,
                             "request=%#x is not active (call MPI_Start first)",
                             (unsigned)request);
    return MPI_SUCCESS;
}

int mpi_pready_impl(int partition, MPI_Request request, const char *fn)
{
    part_t *p = NULL;
    int err = lookup(request, 1, fn, &p);
    if (err)
        return mpi_result(err);
    adi_lock();
    if ((err = check_active(p, request, fn)) == MPI_SUCCESS)
        err = ready_one(p, partition, fn);
    adi_unlock();
    return mpi_result(err);
}

int mpi_pready_range_impl(int partition_low, int partition_high, MPI_Request request,
                          const char *fn)
{
    part_t *p = NULL;
    int err = lookup(request, 1, fn, &p);
    if (err)
        return mpi_result(err);
    adi_lock();
    if ((err = check_active(p, request, fn)) != MPI_SUCCESS)
        goto unlock;
    if (partition_low < 0 || partition_high >= p->partitions || partition_low > partition_high) {
        err = mpi_err_fail(part_comm(p), MPI_ERR_ARG, fn,
                            "[partition_low=%d, partition_high=%d] is not a range inside [0, %d)",
                            partition_low, partition_high, p->partitions);
        goto unlock;
    }
    for (int i = partition_low; i <= partition_high && err == MPI_SUCCESS; i++)
        err = ready_one(p, i, fn);
unlock:
    adi_unlock();
    return mpi_result(err);
}

int mpi_pready_list_impl(int length, int array_of_partitions[], MPI_Request request, const char *fn)
{
    part_t *p = NULL;
    int err = lookup(request, 1, fn, &p);
    if (err)
        return mpi_result(err);
    if (length < 0 || (length > 0 && array_of_partitions == NULL))
        return mpi_err_raise(part_comm(p), MPI_ERR_ARG, fn,
                             "length=%d with array_of_partitions=%p", length,
                             (void *)array_of_partitions);
    adi_lock();
    if ((err = check_active(p, request, fn)) == MPI_SUCCESS)
        for (int i = 0; i < length && err == MPI_SUCCESS; i++)
            err = ready_one(p, array_of_partitions[i], fn);
    adi_unlock();
    return mpi_result(err);
}

int mpi_parrived_impl(MPI_Request request, int partition, int *flag, const char *fn)
{
    part_t *p = NULL;
    int err = lookup(request, 0, fn, &p);
    if (err)
        return mpi_result(err);
    if (partition < 0 || partition >= p->partitions)
        return mpi_err_raise(part_comm(p), MPI_ERR_ARG, fn, "partition=%d is not in [0, %d)",
                             partition, p->partitions);
    /* An inactive request has nothing pending: its data (if any) is there. */
    if (p->req->inner == NULL) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!__atomic_load_n(&p->flags[partition], __ATOMIC_ACQUIRE))
        adi_progress();
    *flag = __atomic_load_n(&p->flags[partition], __ATOMIC_ACQUIRE) != 0;
    return MPI_SUCCESS;
}
