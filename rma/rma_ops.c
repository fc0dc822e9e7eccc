/*
 * One-sided operations, the origin side (MPI 4.0 sections 12.3 and 12.7):
 * MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap, the request-based MPI_Rput/Rget/Raccumulate/
 * Rget_accumulate and the _c variants. One function checks the arguments
 * and the epoch, computes the target layout and sends the operation either
 * straight into mapped memory (direct windows, and the caller's own memory)
 * or as an active message to the target's agent (rma_target.c). The
 * commonest calls on direct windows -- put, get, accumulate and
 * fetch_and_op of one contiguous predefined type in any epoch --
 * take short paths first (fast_put_get, fast_acc) that do the same work
 * with fewer checks and lookups and defer anything unusual, every error
 * included, to the general path. See the design at the top of rma/rma.c
 * and doc/rma.md.
 */
#include "rma_impl.h"
#include "mpi/api_impl.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dt_op_t rma_builtin_op(MPI_Op op)
{
    int idx;
    if (mpi_handle_kind(op) != MPI_HKIND_BUILTIN || mpi_handle_objtype(op) != MPI_OBJ_OP)
        return DT_OP_N;
    idx = mpi_handle_index(op); /* MPICH's MPI_MAX is index 1, in dt_op_t's order */
    if (idx < 1 || idx > DT_OP_N)
        return DT_OP_N;
    return (dt_op_t)(idx - 1);
}

typedef struct {
    int kind; /* RMA_AM_PUT .. RMA_AM_CAS */
    const void *obuf;
    MPI_Count ocount;
    MPI_Datatype odt;
    void *rbuf;
    MPI_Count rcount;
    MPI_Datatype rdt;
    const void *cbuf;
    int target;
    MPI_Aint disp;
    MPI_Count tcount;
    MPI_Datatype tdt;
    MPI_Op op;
    int want_req;
    MPI_Request *req;
} rma_args_t;

/* An operation sent as an active message, until it is locally complete. */
typedef struct {
    rma_win_t *w;
    int target;
    int hold;            /* device requests still running + the issuer */
    int err;             /* MPI error class found at completion */
    size_t expect;       /* reply bytes */
    adi_request_t *ureq; /* the request of MPI_R*, or NULL */
} rma_op_t;

static void op_release(rma_op_t *op)
{
    rma_win_t *w = op->w;
    if (--op->hold > 0)
        return;
    w->pending_local--;
    w->peer[op->target].pending_local--;
    if (op->err != MPI_SUCCESS && op->ureq == NULL && w->late_err == MPI_SUCCESS) {
        w->late_err = op->err;
        if (op->err == MPI_ERR_RMA_RANGE)
            snprintf(w->late_msg, sizeof w->late_msg,
                     "an earlier operation toward rank %d was refused by the target (its memory "
                     "range is not in the window)",
                     op->target);
        else if (op->err == MPIX_ERR_PROC_FAILED)
            snprintf(w->late_msg, sizeof w->late_msg,
                     "rank %d of the window (rank %d of MPI_COMM_WORLD) failed before it answered "
                     "an earlier operation",
                     op->target, w->job[op->target]);
        else
            snprintf(w->late_msg, sizeof w->late_msg,
                     "the answer of rank %d to an earlier operation was not received whole",
                     op->target);
    }
    if (op->ureq != NULL) {
        op->ureq->status.error = op->err;
        adi_request_complete(op->ureq);
    }
    free(op);
}

/* The reply's receive r has completed: a target that refused the range
 * answers with no bytes (MPI_ERR_RMA_RANGE); a receive the device failed
 * keeps its own class -- a lost target (CANAL_ERR_PEER) is
 * MPIX_ERR_PROC_FAILED, as every wait on that rank is. The first error of
 * an operation is the one it reports. */
static void piece_check(rma_op_t *op, adi_request_t *r)
{
    if (r->kind != ADI_REQ_RECV || op->err != MPI_SUCCESS)
        return;
    if (r->status.error < 0)
        op->err = mpi_err_class_of_status(r->status.error);
    else if (r->status.bytes != op->expect)
        op->err = r->status.bytes == 0 && op->expect > 0 ? MPI_ERR_RMA_RANGE : MPI_ERR_TRUNCATE;
}

static void piece_done(adi_request_t *r, void *arg)
{
    piece_check(arg, r);
    op_release(arg);
}

/* Called with the device lock held. */
static void op_track(rma_op_t *op, adi_request_t *r)
{
    if (r->done) {
        piece_check(op, r);
        adi_request_free(r);
        return;
    }
    op->hold++;
    r->on_complete = piece_done;
    r->on_complete_arg = op;
    r->user_freed = 1;
}

/* The packed bytes of (buf, count, t): the buffer itself when contiguous,
 * else a malloc'ed copy returned in *tmp too. */
static const char *packed_origin(const void *buf, size_t count, dt_type_t *t, size_t bytes,
                                 char **tmp)
{
    size_t done;
    *tmp = NULL;
    if (dt_is_contig_count(t, count))
        return (const char *)buf + dt_true_lb(t);
    *tmp = malloc(bytes ? bytes : 1);
    if (*tmp == NULL)
        return NULL;
    dt_pack(buf, count, t, *tmp, bytes, &done);
    return *tmp;
}

static int check_dt(rma_win_t *w, MPI_Datatype h, const char *what, const char *fn, dt_type_t **out)
{
    dt_type_t *t = mpi_dt_get(h);
    if (t == NULL)
        return mpi_err_failed(rma_err(w, MPI_ERR_TYPE, fn, "%s=%#x is not a valid datatype%s", what,
                                      (unsigned)h,
                                      h == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : ""));
    if (!dt_is_committed(t))
        return mpi_err_failed(
            rma_err(w, MPI_ERR_TYPE, fn, "%s=%#x is not committed", what, (unsigned)h));
    *out = t;
    return MPI_SUCCESS;
}

/* May the caller access target t now? Marks fence epochs as used. */
static int epoch_allows(rma_win_t *w, int t, int passive_only, int *fence_out)
{
    *fence_out = 0;
    if (w->peer[t].lock != RMA_LK_NONE)
        return 1;
    if (passive_only)
        return 0;
    if (w->access && w->peer[t].in_access)
        return 1;
    if (w->fence_open) {
        w->fence_used = 1;
        *fence_out = 1;
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- single copy */
/* A layout of `bytes` contiguous bytes from 0: the packed image of a
 * target region read into a local buffer. */
static void contig_layout(rma_layout_t *l, size_t bytes)
{
    memset(l, 0, sizeof *l);
    l->n = 1;
    l->b = &l->one;
    l->one.len = bytes;
    l->hi = (int64_t)bytes;
    l->bytes = bytes;
}

/* direct_op on a CMA window toward another process: tp is the target
 * address in that process. Accumulates read the target region into a
 * local buffer, apply the op there and write the result back, all under
 * the target's accumulate lock in the window's segment, which every
 * accumulate to that target holds (the target's own included): element-wise
 * atomic and ordered, as on load/store windows. */
static canal_status_t cma_op(rma_win_t *w, const rma_args_t *a, dt_type_t *odt, dt_type_t *rdt,
                             dt_type_t *tdt, const rma_layout_t *l, dt_op_t op, char *tp,
                             char **tmp, char **old)
{
    int t = a->target;
    size_t bytes = l->bytes, done;
    const char *data = NULL;
    char *nw;
    rma_layout_t c;
    canal_status_t st;

    switch (a->kind) {
    case RMA_AM_PUT:
        if ((data = packed_origin(a->obuf, (size_t)a->ocount, odt, bytes, tmp)) == NULL)
            return CANAL_ERR_NOMEM;
        return rma_cma_write(w, t, tp, l, data);
    case RMA_AM_GET:
        if (dt_is_contig_count(odt, (size_t)a->ocount))
            return rma_cma_read(w, t, tp, l, (char *)a->obuf + dt_true_lb(odt));
        if ((*tmp = malloc(bytes)) == NULL)
            return CANAL_ERR_NOMEM;
        if ((st = rma_cma_read(w, t, tp, l, *tmp)) == CANAL_OK)
            dt_unpack(*tmp, bytes, (void *)a->obuf, (size_t)a->ocount, odt, &done);
        return st;
    default:
        break;
    }
    /* read-modify-write: old is the target's bytes, then (ACC) the result;
     * GACC/CAS keep old for the caller and compute the result beside it */
    if (!(a->kind == RMA_AM_GACC && op == DT_OP_NO_OP) &&
        (data = packed_origin(a->obuf, a->kind == RMA_AM_CAS ? 1 : (size_t)a->ocount, odt, bytes,
                              tmp)) == NULL)
        return CANAL_ERR_NOMEM;
    if ((*old = malloc(a->kind == RMA_AM_ACC ? bytes : 2 * bytes)) == NULL)
        return CANAL_ERR_NOMEM;
    nw = a->kind == RMA_AM_ACC ? *old : *old + bytes;
    contig_layout(&c, bytes);
    rma_acc_lock(w, t);
    st = rma_cma_read(w, t, tp, l, *old);
    if (st == CANAL_OK && a->kind == RMA_AM_CAS) {
        if (memcmp(*old, a->cbuf, bytes) == 0)
            st = rma_cma_write(w, t, tp, l, data);
    } else if (st == CANAL_OK && op != DT_OP_NO_OP) {
        if (nw != *old)
            memcpy(nw, *old, bytes);
        st = rma_apply_acc(nw, &c, data, op, dt_basic_type(tdt));
        if (st == CANAL_OK)
            st = rma_cma_write(w, t, tp, l, nw);
    }
    rma_acc_unlock(w, t);
    if (st == CANAL_OK && a->kind != RMA_AM_ACC)
        dt_unpack(*old, bytes, a->rbuf, (size_t)a->rcount, rdt, &done);
    return st;
}

/* ---------------------------------------------------------------- direct */
/* Returns the MPI error class of a failure (why: its message), not raised:
 * the caller completes the request of MPI_R* with it before it raises, so
 * that a code the user's handler cleared still fails the request. */
static int direct_op(rma_win_t *w, const rma_args_t *a, dt_type_t *odt, dt_type_t *rdt,
                     dt_type_t *tdt, const rma_layout_t *l, dt_op_t op, char *why, size_t whylen)
{
    int t = a->target;
    char *tp = rma_local_addr(w, t, a->disp, l->lo, l->hi);
    char *tmp = NULL, *old = NULL;
    const char *data = NULL;
    canal_status_t st = CANAL_OK;
    size_t bytes = l->bytes, done;

    (void)tdt;
    if (tp == NULL && bytes > 0) {
        snprintf(why, whylen,
                 "target_disp=%#llx with %zu bytes is not in memory attached to the window at "
                 "rank %d",
                 (unsigned long long)a->disp, bytes, t);
        return MPI_ERR_RMA_RANGE;
    }
    if (bytes == 0)
        return MPI_SUCCESS;
    if (w->cma && t != w->rank) {
        rma_cma_flush_queue(w); /* queued puts and gets first, in issue order */
        st = cma_op(w, a, odt, rdt, tdt, l, op, tp, &tmp, &old);
        if (st == CANAL_ERR_NOMEM)
            goto nomem;
        goto out;
    }
    switch (a->kind) {
    case RMA_AM_PUT:
        if ((data = packed_origin(a->obuf, (size_t)a->ocount, odt, bytes, &tmp)) == NULL)
            goto nomem;
        rma_apply_unpack(tp, l, data);
        break;
    case RMA_AM_GET:
        if (dt_is_contig_count(odt, (size_t)a->ocount)) {
            rma_apply_pack(tp, l, (char *)a->obuf + dt_true_lb(odt));
        } else {
            if ((tmp = malloc(bytes)) == NULL)
                goto nomem;
            rma_apply_pack(tp, l, tmp);
            dt_unpack(tmp, bytes, (void *)a->obuf, (size_t)a->ocount, odt, &done);
        }
        break;
    case RMA_AM_ACC:
        if ((data = packed_origin(a->obuf, (size_t)a->ocount, odt, bytes, &tmp)) == NULL)
            goto nomem;
        rma_acc_lock(w, t);
        st = rma_apply_acc(tp, l, data, op, dt_basic_type(tdt));
        rma_acc_unlock(w, t);
        break;
    case RMA_AM_GACC:
    case RMA_AM_CAS:
        if (op != DT_OP_NO_OP &&
            (data = packed_origin(a->obuf, a->kind == RMA_AM_CAS ? 1 : (size_t)a->ocount, odt,
                                  bytes, &tmp)) == NULL)
            goto nomem;
        if ((old = malloc(bytes)) == NULL)
            goto nomem;
        rma_acc_lock(w, t);
        rma_apply_pack(tp, l, old);
        if (a->kind == RMA_AM_CAS) {
            if (memcmp(old, a->cbuf, bytes) == 0)
                rma_apply_unpack(tp, l, data);
        } else {
            st = rma_apply_acc(tp, l, data, op, dt_basic_type(tdt));
        }
        rma_acc_unlock(w, t);
        dt_unpack(old, bytes, a->rbuf, (size_t)a->rcount, rdt, &done);
        break;
    }
out:
    free(tmp);
    free(old);
    if (st < 0) {
        snprintf(why, whylen, "%s", common_err_detail());
        return mpi_err_class_of_status(st);
    }
    return MPI_SUCCESS;
nomem:
    free(tmp);
    free(old);
    snprintf(why, whylen, "out of memory for a %zu-byte operation", bytes);
    return MPI_ERR_NO_MEM;
}

/* ---------------------------------------------------------------- active messages */
static size_t inline_max(void)
{
    static long long v = -1;
    if (v < 0) {
        long long eager = rma_cvar_int("EAGER_LIMIT", 16384);
        v = rma_cvar_int("RMA_INLINE_MAX", eager > 1024 ? eager - 1024 : eager);
        if (v < 0)
            v = 0;
    }
    return (size_t)v;
}

/* am_op, phase 1: the header of the active message (its reply or data
 * tag, the target displacement, the layout and epoch flags) and the bytes
 * of origin data that travel inline after it. */
static void am_header(rma_win_t *w, const rma_args_t *a, dt_type_t *tdt, const rma_layout_t *l,
                      dt_op_t op, int fence, rma_hdr_t *h, size_t *inl_out)
{
    int t = a->target;
    size_t nlist = l->n > 1 ? l->n : 0;
    uint32_t tagn = __atomic_fetch_add(&w->next_tag, 1, __ATOMIC_RELAXED) % RMA_TAG_SPAN;

    *inl_out = 0;
    memset(h, 0, sizeof *h);
    h->kind = (uint8_t)a->kind;
    h->tag =
        a->kind == RMA_AM_PUT ? RMA_TAG_DATA_FIRST + (int)tagn : RMA_TAG_REPLY_FIRST + (int)tagn;
    h->disp = (uint64_t)(w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? a->disp : a->disp * w->units[t]);
    h->bytes = l->bytes;
    h->op = (int32_t)op;
    h->basic = a->kind == RMA_AM_PUT || a->kind == RMA_AM_GET ? 0 : (int32_t)dt_basic_type(tdt);
    if (l->n == 1) {
        h->disp += (uint64_t)l->b[0].off;
    } else if (nlist > 0) {
        h->flags |= RMA_F_LAYOUT;
        h->nblocks = nlist;
    }
    if (fence) {
        h->flags |= RMA_F_FENCE;
        h->epoch = (uint8_t)(w->fence_epoch & 1);
    } else if (w->peer[t].lock == RMA_LK_NONE) {
        h->flags |= RMA_F_ACTIVE;
    }
    switch (a->kind) {
    case RMA_AM_PUT:
        *inl_out = l->bytes <= inline_max() ? l->bytes : 0;
        if (*inl_out > 0 || l->bytes == 0)
            h->flags |= RMA_F_INLINE;
        break;
    case RMA_AM_ACC:
        *inl_out = l->bytes;
        h->flags |= RMA_F_INLINE;
        break;
    case RMA_AM_GACC:
        if (op != DT_OP_NO_OP) {
            *inl_out = l->bytes;
            h->flags |= RMA_F_INLINE;
        }
        break;
    case RMA_AM_CAS:
        *inl_out = 2 * l->bytes;
        h->flags |= RMA_F_INLINE;
        break;
    }
}

/* An operation as an active message to the target's agent: the header
 * (am_header), the layout and inline data in one message, the receive of
 * the reply posted first, the bulk data of a large put after it. */
static int am_op(rma_win_t *w, const rma_args_t *a, const char *fn, dt_type_t *odt, dt_type_t *rdt,
                 dt_type_t *tdt, const rma_layout_t *l, dt_op_t op, int fence, adi_request_t *ureq)
{
    int t = a->target;
    rma_op_t *o = calloc(1, sizeof *o);
    rma_hdr_t h;
    size_t nlist = l->n > 1 ? l->n : 0, inl = 0, len;
    char *msg;
    adi_request_t *r = NULL, *reply = NULL;
    canal_status_t st = CANAL_OK;

    am_header(w, a, tdt, l, op, fence, &h, &inl);
    len = sizeof h + nlist * sizeof(rma_block_t) + inl;
    msg = malloc(len);
    if (o == NULL || msg == NULL) {
        free(o);
        free(msg);
        if (ureq != NULL) {
            ureq->status.error = MPI_ERR_NO_MEM;
            adi_request_complete(ureq);
        }
        return mpi_err_failed(
            rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory for a %zu-byte operation", len));
    }
    memcpy(msg, &h, sizeof h);
    for (size_t i = 0; i < nlist; i++)
        memcpy(msg + sizeof h + i * sizeof(rma_block_t), &l->b[i], sizeof(rma_block_t));
    if (inl > 0) {
        char *d = msg + sizeof h + nlist * sizeof(rma_block_t);
        size_t done, n = a->kind == RMA_AM_CAS ? 1 : (size_t)a->ocount;
        dt_pack(a->obuf, n, odt, d, l->bytes, &done);
        if (a->kind == RMA_AM_CAS)
            memcpy(d + l->bytes, a->cbuf, l->bytes);
    }

    adi_lock();
    o->w = w;
    o->target = t;
    o->hold = 1;
    o->ureq = ureq;
    w->pending_local++;
    w->peer[t].pending_local++;
    if (fence)
        w->peer[t].fence_ops++;
    if (a->kind == RMA_AM_PUT || a->kind == RMA_AM_ACC)
        w->peer[t].issued++;
    if (a->kind == RMA_AM_ACC)
        w->peer[t].acc_uncovered = 1;
    if (a->kind != RMA_AM_PUT && a->kind != RMA_AM_ACC) {
        /* The reply's receive is posted before the request leaves. */
        void *buf = a->kind == RMA_AM_GET ? (void *)a->obuf : a->rbuf;
        size_t cnt = (size_t)(a->kind == RMA_AM_GET ? a->ocount : a->rcount);
        o->expect = l->bytes;
        st = adi_irecv(buf, cnt, a->kind == RMA_AM_GET ? odt : rdt, t, h.tag, w->ctx, &r);
        if (st == CANAL_OK) {
            reply = r->done ? NULL : r; /* (op_track frees a receive already failed) */
            op_track(o, r);
        }
    }
    if (st == CANAL_OK) {
        st = rma_send_owned(w, t, msg, len, RMA_TAG_AM);
        if (st < 0 && reply != NULL && o->hold > 1) {
            /* The request never left: no reply will come to the receive
             * posted for it, which would hold the operation (its request,
             * flush_local, the epoch) for ever. Unposted, it completes
             * (piece_done) with the send's class set first. (Today the
             * device fails such a receive itself when the target is lost,
             * and a send of bytes fails early for no other reason, so this
             * is for a future cause: no program reaches it.) */
            o->err = mpi_err_class_of_status(st);
            adi_cancel(reply);
        }
    } else {
        free(msg);
    }
    if (st == CANAL_OK && a->kind == RMA_AM_PUT && !(h.flags & RMA_F_INLINE)) {
        st = adi_isend(a->obuf, (size_t)a->ocount, odt, w->job[t], w->rank, h.tag, w->ctx,
                       ADI_MODE_STANDARD, &r);
        if (st == CANAL_OK)
            op_track(o, r);
    }
    if (st < 0)
        o->err = mpi_err_class_of_status(st);
    op_release(o);
    adi_unlock();
    if (st < 0)
        return mpi_err_failed(
            rma_err(w, mpi_err_class_of_status(st), fn, "%s", common_err_detail()));
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the one entry */
/* Whether MPI_Compare_and_swap takes builtin b: the standard's C integer,
 * Fortran integer, logical, multi-language and byte types, and, as MPICH
 * 4.0.2 does, MPI_CHAR and the sized Fortran integers. Floating, complex,
 * pair and character types are refused with MPI_ERR_TYPE (MPICH's
 * errors/rma/cas_type_check). */
static int rma_cas_type_ok(dt_builtin_t b)
{
    switch (b) {
    case DT_CHAR:
    case DT_SIGNED_CHAR:
    case DT_UNSIGNED_CHAR:
    case DT_BYTE:
    case DT_SHORT:
    case DT_UNSIGNED_SHORT:
    case DT_INT:
    case DT_UNSIGNED:
    case DT_LONG:
    case DT_UNSIGNED_LONG:
    case DT_LONG_LONG:
    case DT_UNSIGNED_LONG_LONG:
    case DT_C_BOOL:
    case DT_INT8_T:
    case DT_INT16_T:
    case DT_INT32_T:
    case DT_INT64_T:
    case DT_UINT8_T:
    case DT_UINT16_T:
    case DT_UINT32_T:
    case DT_UINT64_T:
    case DT_AINT:
    case DT_OFFSET:
    case DT_COUNT:
    case DT_INTEGER:
    case DT_LOGICAL:
    case DT_INTEGER1:
    case DT_INTEGER2:
    case DT_INTEGER4:
    case DT_INTEGER8:
    case DT_INTEGER16:
    case DT_CXX_BOOL:
        return 1;
    default:
        return 0;
    }
}

/* rma_issue, phase 1a: the target rank and displacement. */
static int issue_check_target(const char *fn, rma_win_t *w, const rma_args_t *a)
{
    int t = a->target;

    if (t != MPI_PROC_NULL && (t < 0 || t >= w->size))
        return mpi_err_failed(rma_err(
            w, MPI_ERR_RANK, fn, "target_rank=%d is not in [0, %d) or MPI_PROC_NULL", t, w->size));
    if (a->disp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return mpi_err_failed(
            rma_err(w, MPI_ERR_DISP, fn, "target_disp=%lld is negative", (long long)a->disp));
    return MPI_SUCCESS;
}

/* The general path. The entry point checked the window and the request
 * pointer; everything else is checked here. */
/* rma_issue, phase 1: each argument alone in MPICH 4.0.2's order, which is
 * the call's (origin, result, target rank and displacement, target count
 * and datatype), the op last; MPI_Compare_and_swap its three buffers
 * first (MPI_ERR_ARG) and its datatype after the target (test/mpi/
 * rma_err_order). Then the counts, the three datatypes and the buffers
 * agree with each other (*op_out, and the engine types of the origin,
 * result and target: NULL when the operation has none). */
static int issue_check_args(const char *fn, rma_win_t *w, const rma_args_t *a, dt_op_t *op_out,
                            dt_type_t **odt_out, dt_type_t **rdt_out, dt_type_t **tdt_out)
{
    dt_type_t *odt = NULL, *rdt = NULL, *tdt = NULL;
    int err;
    int is_acc = a->kind == RMA_AM_ACC || a->kind == RMA_AM_GACC;
    int has_origin = a->kind != RMA_AM_GACC || a->op != MPI_NO_OP; /* (else ignored) */
    dt_op_t op = DT_OP_N;
    size_t obytes = 0, tbytes = 0;

    if (a->kind == RMA_AM_CAS) {
        if (a->obuf == NULL || a->cbuf == NULL || a->rbuf == NULL)
            return mpi_err_failed(rma_err(w, MPI_ERR_ARG, fn, "%s is NULL",
                                          a->obuf == NULL   ? "origin_addr"
                                          : a->cbuf == NULL ? "compare_addr"
                                                            : "result_addr"));
        if (a->obuf == MPI_IN_PLACE || a->cbuf == MPI_IN_PLACE || a->rbuf == MPI_IN_PLACE)
            return mpi_err_failed(rma_err(w, MPI_ERR_BUFFER, fn,
                                          "%s is MPI_IN_PLACE; only collectives take it",
                                          a->obuf == MPI_IN_PLACE   ? "origin_addr"
                                          : a->cbuf == MPI_IN_PLACE ? "compare_addr"
                                                                    : "result_addr"));
        if ((err = issue_check_target(fn, w, a)) ||
            (err = check_dt(w, a->tdt, "datatype", fn, &tdt)))
            return err;
        odt = rdt = tdt; /* (one datatype argument) */
        op = DT_OP_REPLACE;
    } else {
        if (a->ocount < 0)
            return mpi_err_failed(rma_err(w, MPI_ERR_COUNT, fn, "origin_count=%lld is negative",
                                          (long long)a->ocount));
        if (has_origin && (err = check_dt(w, a->odt, "origin_datatype", fn, &odt)))
            return err;
        if (a->kind == RMA_AM_GACC) {
            if (a->rcount < 0)
                return mpi_err_failed(rma_err(w, MPI_ERR_COUNT, fn, "result_count=%lld is negative",
                                              (long long)a->rcount));
            if ((err = check_dt(w, a->rdt, "result_datatype", fn, &rdt)))
                return err;
        }
        if ((err = issue_check_target(fn, w, a)))
            return err;
        if (a->tcount < 0)
            return mpi_err_failed(rma_err(w, MPI_ERR_COUNT, fn, "target_count=%lld is negative",
                                          (long long)a->tcount));
        if ((err = check_dt(w, a->tdt, "target_datatype", fn, &tdt)))
            return err;
        if (is_acc && (op = rma_builtin_op(a->op)) == DT_OP_N)
            return mpi_err_failed(
                rma_err(w, MPI_ERR_OP, fn,
                        "op=%#x is not a predefined operation (one-sided accumulates take "
                        "only those, MPI_REPLACE and MPI_NO_OP included)",
                        (unsigned)a->op));
    }
    if (__builtin_mul_overflow((size_t)a->tcount, dt_size(tdt), &tbytes) ||
        tbytes > (size_t)INT64_MAX / 2)
        return mpi_err_failed(rma_err(w, MPI_ERR_COUNT, fn,
                                      "target_count=%lld of %zu-byte elements is too large",
                                      (long long)a->tcount, dt_size(tdt)));
    if (has_origin) {
        if (__builtin_mul_overflow((size_t)a->ocount, dt_size(odt), &obytes))
            return mpi_err_failed(rma_err(w, MPI_ERR_COUNT, fn, "origin_count=%lld is too large",
                                          (long long)a->ocount));
        if (a->obuf == NULL && obytes > 0 && mpi_handle_kind(a->odt) == MPI_HKIND_BUILTIN)
            return mpi_err_failed(rma_err(w, MPI_ERR_BUFFER, fn, "origin_addr is NULL"));
        if (a->obuf == MPI_IN_PLACE && obytes > 0)
            return mpi_err_failed(rma_err(w, MPI_ERR_BUFFER, fn,
                                          "origin_addr is MPI_IN_PLACE; only collectives take it"));
        if (obytes != tbytes)
            return mpi_err_failed(
                rma_err(w, MPI_ERR_TYPE, fn,
                        "the origin describes %zu bytes (origin_count=%lld) but the target "
                        "%zu bytes (target_count=%lld): the datatypes do not match",
                        obytes, (long long)a->ocount, tbytes, (long long)a->tcount));
    }
    if (a->kind == RMA_AM_GACC || a->kind == RMA_AM_CAS) {
        if ((size_t)a->rcount * dt_size(rdt) != tbytes)
            return mpi_err_failed(rma_err(
                w, MPI_ERR_TYPE, fn, "the result buffer holds %zu bytes but the target %zu bytes",
                (size_t)a->rcount * dt_size(rdt), tbytes));
        if (a->rbuf == NULL && tbytes > 0)
            return mpi_err_failed(rma_err(w, MPI_ERR_BUFFER, fn, "result_addr is NULL"));
        if (a->rbuf == MPI_IN_PLACE && tbytes > 0)
            return mpi_err_failed(rma_err(w, MPI_ERR_BUFFER, fn,
                                          "result_addr is MPI_IN_PLACE; only collectives take it"));
    }
    if (a->kind == RMA_AM_CAS) {
        if (dt_builtin_of(tdt) == DT_NBUILTIN)
            return mpi_err_failed(rma_err(w, MPI_ERR_TYPE, fn,
                                          "datatype=%#x is not a predefined datatype",
                                          (unsigned)a->tdt));
        if (!rma_cas_type_ok(dt_builtin_of(tdt)))
            return mpi_err_failed(
                rma_err(w, MPI_ERR_TYPE, fn,
                        "datatype=%s is not an integer, logical or byte type (compare-and-swap "
                        "takes only those)",
                        dt_builtin_name(dt_builtin_of(tdt))));
    }
    if ((is_acc || a->kind == RMA_AM_CAS) && tbytes > 0) {
        dt_builtin_t b = dt_basic_type(tdt);
        if (b == DT_NBUILTIN)
            return mpi_err_failed(rma_err(
                w, MPI_ERR_TYPE, fn, "target_datatype=%#x mixes basic types; accumulates need one",
                (unsigned)a->tdt));
        if (odt != NULL && dt_basic_type(odt) != b)
            return mpi_err_failed(rma_err(
                w, MPI_ERR_TYPE, fn,
                "origin_datatype (%s) and target_datatype (%s) have different basic "
                "types",
                dt_basic_type(odt) == DT_NBUILTIN ? "mixed" : dt_builtin_name(dt_basic_type(odt)),
                dt_builtin_name(b)));
        if (op != DT_OP_REPLACE && op != DT_OP_NO_OP && dt_op_check(op, tdt) < 0)
            return mpi_err_failed(rma_err(w, MPI_ERR_OP, fn, "%s", common_err_detail()));
    }
    *op_out = op;
    *odt_out = odt;
    *rdt_out = rdt;
    *tdt_out = tdt;
    return MPI_SUCCESS;
}

/* rma_issue, phase 3 (after the target rank, the displacement and the
 * epoch): the target layout l lies inside the target's window (dynamic
 * windows are checked where the bytes are). */
static int issue_check_range(const char *fn, rma_win_t *w, const rma_args_t *a,
                             const rma_layout_t *l)
{
    int t = a->target;
    int64_t off = 0, lo = 0, hi = 0;

    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || l->bytes == 0)
        return MPI_SUCCESS;
    if (__builtin_mul_overflow((int64_t)a->disp, (int64_t)w->units[t], &off) ||
        __builtin_add_overflow(off, l->lo, &lo) || __builtin_add_overflow(off, l->hi, &hi) ||
        lo < 0 || hi > (int64_t)w->sizes[t])
        return mpi_err_failed(
            rma_err(w, MPI_ERR_RMA_RANGE, fn,
                    "target_disp=%lld (disp_unit %lld) with target_count=%lld touches "
                    "bytes [%lld, %lld) but the window of rank %d has %lld bytes",
                    (long long)a->disp, (long long)w->units[t], (long long)a->tcount, (long long)lo,
                    (long long)hi, t, (long long)w->sizes[t]));
    return MPI_SUCCESS;
}

/* An RMA operation: check the arguments, the target and the epoch
 * (phases 1 to 3), then run it directly on mapped memory (direct_op) or
 * as an active message to the target's agent (am_op). */
static int rma_issue(const char *fn, rma_win_t *w, const rma_args_t *a)
{
    dt_type_t *odt = NULL, *rdt = NULL, *tdt = NULL;
    int err, t = a->target, fence = 0;
    dt_op_t op = DT_OP_N;
    rma_layout_t l;
    adi_request_t *ureq = NULL;
    canal_status_t st;

    if ((err = issue_check_args(fn, w, a, &op, &odt, &rdt, &tdt)) != MPI_SUCCESS)
        return mpi_result(err);
    /* phase 2: the epoch */
    if (t == MPI_PROC_NULL) {
        if (a->want_req) {
            adi_request_t *r = mpi_request_null_proc(ADI_REQ_OTHER);
            if (r == NULL)
                return rma_err(w, MPI_ERR_NO_MEM, fn, "out of requests");
            *a->req = mpi_request_handle(r);
        }
        return MPI_SUCCESS;
    }
    if (!epoch_allows(w, t, a->want_req, &fence))
        return rma_err(w, MPI_ERR_RMA_SYNC, fn,
                       a->want_req ? "request-based operations need a passive-target epoch "
                                     "(MPI_Win_lock or MPI_Win_lock_all) toward target_rank=%d"
                                   : "no epoch gives access to target_rank=%d (call "
                                     "MPI_Win_fence, MPI_Win_start or MPI_Win_lock first)",
                       t);
    if ((st = rma_layout_from_dt(&l, tdt, (size_t)a->tcount)) < 0)
        return rma_err(w, mpi_err_class_of_status(st), fn, "%s", common_err_detail());
    if ((err = issue_check_range(fn, w, a, &l)) != MPI_SUCCESS) {
        rma_layout_fini(&l);
        return mpi_result(err);
    }
    if (a->want_req) {
        ureq = adi_request_alloc(ADI_REQ_OTHER);
        if (ureq == NULL) {
            rma_layout_fini(&l);
            return rma_err(w, MPI_ERR_NO_MEM, fn, "out of requests");
        }
        ureq->status.source = MPI_ANY_SOURCE;
        ureq->status.tag = MPI_ANY_TAG;
        ureq->status.bytes = l.bytes;
    }
    rma_wait_access(w, t);
    if (!w->direct && t == w->rank)
        adi_progress(); /* a caller spinning on its own memory must still serve the others */
    if (w->direct || t == w->rank) {
        char why[MPI_MAX_ERROR_STRING];
        int cls = direct_op(w, a, odt, rdt, tdt, &l, op, why, sizeof why);
        if (ureq != NULL) {
            ureq->status.error = cls; /* (also when the handler clears the code below) */
            adi_request_complete(ureq);
        }
        err = cls == MPI_SUCCESS ? MPI_SUCCESS : mpi_err_failed(rma_err(w, cls, fn, "%s", why));
    } else {
        /* On failure the request stays with the operation's pieces, which
         * complete it if they ever finish. */
        err = am_op(w, a, fn, odt, rdt, tdt, &l, op, fence, ureq);
    }
    rma_layout_fini(&l);
    if (ureq != NULL)
        *a->req = mpi_request_handle(ureq);
    return mpi_result(err);
}

/* ---------------------------------------------------------------- the fast path */
/* Element size of a predefined datatype whose elements lie back to back
 * (any count of them is one block), or 0. A cache over the datatype engine
 * keyed by the whole handle: predefined handles never change meaning. */
static inline __attribute__((always_inline)) size_t builtin_contig_size(MPI_Datatype h)
{
    static uint64_t cache[256]; /* handle << 32 | size; 0: not known yet */
    uint64_t e;
    dt_type_t *t;
    size_t sz = 0;

    if (mpi_handle_kind(h) != MPI_HKIND_BUILTIN)
        return 0;
    e = __atomic_load_n(&cache[h & 0xff], __ATOMIC_RELAXED);
    if (e != 0 && (uint32_t)(e >> 32) == (uint32_t)h)
        return (size_t)(uint32_t)e;
    t = mpi_dt_get(h);
    if (t == NULL || !dt_is_committed(t))
        return 0;
    if (dt_true_lb(t) == 0 && dt_is_contig_count(t, 2))
        sz = dt_size(t);
    if (sz > 0 && sz <= UINT32_MAX)
        __atomic_store_n(&cache[h & 0xff], (uint64_t)(uint32_t)h << 32 | sz, __ATOMIC_RELAXED);
    return sz;
}

/* Whether the caller may access target t now without waiting, for the
 * short paths below: a granted or MPI_MODE_NOCHECK lock, an MPI_Win_start
 * epoch that includes t (its POST consumed here: waited for if it has not
 * come yet, as the general path would), or an open fence epoch (counted
 * as used, as epoch_allows does). Active-target epochs take the short
 * paths too since issue 26 (rma4): OSU's fence and PSCW rows paid the
 * general path's bookkeeping and, on created windows, a system call per
 * operation instead of the queue that MPI_Win_fence and MPI_Win_complete
 * drain (the target is then inside MPI and serves its mailboxes). 0 sends
 * the call to the general path, which checks the epoch again and raises
 * any error. */
static inline __attribute__((always_inline)) int fast_epoch(rma_win_t *w, int t)
{
    rma_peer_t *p = &w->peer[t];

    if (p->lock == RMA_LK_GRANTED || p->lock == RMA_LK_NOCHECK)
        return 1;
    if (p->lock != RMA_LK_NONE)
        return 0;
    if (w->access) {
        if (!p->in_access)
            return 0;
        if (!p->post_ok)
            rma_wait_access(w, t); /* (a failed target leaves it 0: the general path raises it) */
        return p->post_ok;
    }
    if (w->fence_open) {
        w->fence_used = 1;
        return 1;
    }
    return 0;
}

/* The address of bytes at disp of rank t for the short paths of a direct
 * window, or NULL when they do not lie in its memory (the general path
 * then raises the error): within the window's size, or for a dynamic
 * window in memory t has attached (disp is an address there). */
static inline __attribute__((always_inline)) char *fast_target(rma_win_t *w, int t, MPI_Aint disp,
                                                               uint64_t bytes)
{
    uint64_t off, end;

    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        if (__builtin_add_overflow((uint64_t)disp, bytes, &end) ||
            !(t == w->rank ? rma_dynamic_contains(w, (uintptr_t)disp, (uintptr_t)end)
                           : rma_dyn_peer_contains(w, t, (uintptr_t)disp, (uintptr_t)end)))
            return NULL;
        return (char *)(uintptr_t)disp;
    }
    if (__builtin_mul_overflow((uint64_t)disp, (uint64_t)w->units[t], &off) ||
        __builtin_add_overflow(off, bytes, &end) || end > (uint64_t)w->sizes[t])
        return NULL;
    return w->peer_base[t] + off;
}

/* MPI_Put and MPI_Get of a contiguous predefined datatype, the same on
 * both sides, into a direct window in any epoch (fast_epoch): the
 * operation is one memcpy, and the general path's argument record, layout
 * and datatype lookups cost more than the copy of a few bytes (measured:
 * an 8-byte get took about twice Open MPI's time through rma_issue). Every
 * condition that is not plainly valid sends the call to the general path,
 * which checks again and raises the error. Returns 1 when done. */
static inline __attribute__((always_inline)) int
fast_put_get(int kind, const void *obuf, MPI_Count ocount, MPI_Datatype odt, int t, MPI_Aint disp,
             MPI_Count tcount, MPI_Datatype tdt, rma_win_t *w)
{
    size_t sz;
    uint64_t bytes;
    char *tp;

    if (odt != tdt || ocount != tcount || ocount <= 0 || !mpi_buf_usable(obuf) || disp < 0)
        return 0;
    if (!w->direct || (unsigned)t >= (unsigned)w->size || !fast_epoch(w, t))
        return 0;
    if ((sz = builtin_contig_size(odt)) == 0 ||
        __builtin_mul_overflow((uint64_t)ocount, (uint64_t)sz, &bytes) ||
        (tp = fast_target(w, t, disp, bytes)) == NULL)
        return 0;
    if (w->cma && t != w->rank) /* a failure goes to the general path, which raises it */
        return rma_cma_enqueue(w, t, kind == RMA_AM_PUT, tp, (void *)obuf, bytes) ||
               rma_cma_copy(w, t, kind == RMA_AM_PUT, tp, (void *)obuf, bytes) == CANAL_OK;
    if (kind == RMA_AM_GET)
        memcpy((void *)obuf, tp, bytes);
    else
        memcpy(tp, obuf, bytes);
    return 1;
}

/* fast_acc on a CMA window toward another process (bytes of elements of
 * esz bytes): read, apply, write back under the target's accumulate lock
 * (cma_op's design). 0 when nothing was written yet (a read failed: the
 * general path does it again and raises the error); a failure after a
 * write cannot be retried (part of it landed), so it is recorded and
 * raised at the next synchronization call. */
static int fast_acc_cma(rma_win_t *w, int t, char *tp, const void *obuf, void *rbuf, int fetch,
                        size_t bytes, size_t esz, dt_op_t op, dt_builtin_t basic)
{
    /* Large accumulates go through in pieces that stay in the cache: read
     * a piece, apply, write it back, all under the one lock. */
    enum { PIECE = 32768 };
    char buf[PIECE] __attribute__((aligned(64)));
    size_t done = 0, piece;
    rma_layout_t pl;
    canal_status_t st = CANAL_OK;
    int wrote = 0;

    if (esz == 0 || esz > PIECE)
        return 0;
    piece = PIECE - PIECE % esz;
    rma_cma_flush_queue(w); /* puts and gets issued before, in order */
    rma_acc_lock(w, t);
    while (st == CANAL_OK && done < bytes) {
        size_t n = bytes - done < piece ? bytes - done : piece;
        st = rma_cma_copy(w, t, 0, tp + done, buf, n);
        if (st != CANAL_OK)
            break;
        if (fetch)
            memcpy((char *)rbuf + done, buf, n);
        if (op != DT_OP_NO_OP) {
            contig_layout(&pl, n);
            st = rma_apply_acc(buf, &pl, (const char *)obuf + done, op, basic);
            wrote = 1;
            if (st == CANAL_OK)
                st = rma_cma_copy(w, t, 1, tp + done, buf, n);
        }
        done += n;
    }
    if (st != CANAL_OK && wrote) {
        adi_lock();
        if (w->late_err == MPI_SUCCESS) {
            w->late_err = MPI_ERR_RMA_RANGE;
            snprintf(w->late_msg, sizeof w->late_msg,
                     "an accumulate toward rank %d could not be written: %s", t,
                     common_err_detail());
        }
        adi_unlock();
    }
    rma_acc_unlock(w, t);
    return st == CANAL_OK || wrote;
}

/* MPI_Accumulate and MPI_Fetch_and_op (fetch: rbuf receives the old
 * value) with a predefined op on a contiguous predefined datatype, the
 * same everywhere, into a direct window in any epoch: as for
 * fast_put_get, the general path's bookkeeping is most of the cost of a
 * one-element accumulate. The element-wise atomicity is the general
 * path's: the target's accumulate lock in the segment. Returns 1 when
 * done; 0 sends the call (and any error) to the general path. */
static inline __attribute__((always_inline)) int
fast_acc(const void *obuf, MPI_Count count, MPI_Datatype odt, void *rbuf, int fetch, int t,
         MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op mop, rma_win_t *w)
{
    dt_type_t *dt;
    dt_builtin_t basic;
    dt_op_t op;
    size_t sz;
    uint64_t bytes;
    rma_layout_t l;
    canal_status_t st;
    char *tp;

    if (odt != tdt || count != tcount || count <= 0 || !mpi_buf_usable(obuf) ||
        (fetch && !mpi_buf_usable(rbuf)) ||
        disp < 0)
        return 0;
    if (!w->direct || (unsigned)t >= (unsigned)w->size || !fast_epoch(w, t))
        return 0;
    if ((op = rma_builtin_op(mop)) == DT_OP_N || (sz = builtin_contig_size(odt)) == 0 ||
        __builtin_mul_overflow((uint64_t)count, (uint64_t)sz, &bytes) ||
        (tp = fast_target(w, t, disp, bytes)) == NULL)
        return 0;
    dt = mpi_dt_get(odt);
    if (dt == NULL || (basic = dt_basic_type(dt)) == DT_NBUILTIN ||
        (op != DT_OP_REPLACE && op != DT_OP_NO_OP && dt_op_check(op, dt) < 0))
        return 0;
    rma_layout_one(&l, bytes);
    if (w->cma && t != w->rank) {
        /* Above 128 KiB the general path's one read and one write of the
         * whole region (cma_op) beat fast_acc_cma's 32 KiB pieces, whose
         * two system calls each add up: osu_acc_latency -w create at 1 MiB
         * 207-250 us against 300-370 (issue 26, rma4; equal at 64-128 KiB). */
        if (bytes > 131072)
            return 0;
        /* (a fetching one through the polling target's mailbox: applied
         * there, whatever st says -- the checks above leave it no way to fail) */
        if (fetch && rma_mbox_fetch(w, t, tp, bytes, op, basic, obuf, NULL, rbuf, &st))
            return st == CANAL_OK;
        return (!fetch && rma_cma_enqueue_acc(w, t, tp, obuf, bytes, op, basic)) ||
               fast_acc_cma(w, t, tp, obuf, rbuf, fetch, bytes, sz, op, basic);
    }
    rma_acc_lock(w, t);
    if (fetch)
        memcpy(rbuf, tp, bytes);
    st = rma_apply_acc(tp, &l, obuf, op, basic);
    rma_acc_unlock(w, t);
    return st == CANAL_OK; /* the checks above leave no way to fail once applying */
}

/* Whether predefined op applies to predefined datatype h (as dt_op_check):
 * a small cache of the valid pairs over the datatype engine, since a
 * 0-byte or MPI_PROC_NULL accumulate is otherwise mostly this lookup. */
static inline __attribute__((always_inline)) int builtin_op_ok(dt_op_t op, MPI_Datatype h)
{
    static uint64_t cache[64]; /* (handle << 8 | op) + 1 of a valid pair; 0: none */
    uint64_t key = ((uint64_t)(uint32_t)h << 8 | (uint64_t)op) + 1;
    uint64_t *e = &cache[((uint32_t)h ^ (uint32_t)op * 13u) & 63];
    dt_type_t *dt;

    if (op == DT_OP_REPLACE || op == DT_OP_NO_OP || __atomic_load_n(e, __ATOMIC_RELAXED) == key)
        return 1;
    if ((dt = mpi_dt_get(h)) == NULL || dt_op_check(op, dt) < 0)
        return 0;
    __atomic_store_n(e, key, __ATOMIC_RELAXED);
    return 1;
}

/* Operations that move no data: target_rank MPI_PROC_NULL, or a count of
 * 0 toward a target the caller may access now (a granted or NOCHECK lock,
 * or an open fence epoch), with one predefined datatype and count on both
 * sides (and, for accumulates, a predefined op valid for it). They return
 * at once (MPI 4.0 section 12.3: nothing happens for them); anything else,
 * every error included, takes the general path, which checks everything
 * and does the same. Returns 1 when done. */
static inline __attribute__((always_inline)) int zero_op(MPI_Count ocount, MPI_Datatype odt, int t,
                                                         MPI_Aint disp, MPI_Count tcount,
                                                         MPI_Datatype tdt, MPI_Op mop, int is_acc,
                                                         rma_win_t *w)
{
    if (__builtin_expect(t != MPI_PROC_NULL && tcount != 0, 1))
        return 0;
    if (odt != tdt || ocount != tcount || tcount < 0 || builtin_contig_size(tdt) == 0)
        return 0;
    if (is_acc) {
        dt_op_t op = rma_builtin_op(mop);
        if (op == DT_OP_N || !builtin_op_ok(op, tdt))
            return 0;
    }
    if (t == MPI_PROC_NULL)
        return 1;
    if ((unsigned)t >= (unsigned)w->size || (disp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC))
        return 0;
    if (w->peer[t].lock == RMA_LK_GRANTED || w->peer[t].lock == RMA_LK_NOCHECK)
        return 1;
    if (w->fence_open && w->peer[t].lock == RMA_LK_NONE && !w->access) {
        w->fence_used = 1;
        return 1;
    }
    return 0;
}

/* zero_op for the request-based forms, which need a passive-target epoch
 * (MPI 4.0 section 12.3.5; the general path refuses a fence epoch): the
 * request comes back complete, as the general path would make it. */
static inline __attribute__((always_inline)) int
zero_op_req(MPI_Count ocount, MPI_Datatype odt, int t, MPI_Aint disp, MPI_Count tcount,
            MPI_Datatype tdt, MPI_Op mop, int is_acc, rma_win_t *w, MPI_Request *req)
{
    adi_request_t *r;

    if (__builtin_expect(t != MPI_PROC_NULL && tcount != 0, 1))
        return 0;
    if (t != MPI_PROC_NULL &&
        ((unsigned)t >= (unsigned)w->size ||
         (w->peer[t].lock != RMA_LK_GRANTED && w->peer[t].lock != RMA_LK_NOCHECK)))
        return 0;
    if (!zero_op(ocount, odt, t, disp, tcount, tdt, mop, is_acc, w))
        return 0;
    if (t == MPI_PROC_NULL) {
        r = mpi_request_null_proc(ADI_REQ_OTHER);
    } else if ((r = adi_request_alloc(ADI_REQ_OTHER)) != NULL) {
        r->status.source = MPI_ANY_SOURCE;
        r->status.tag = MPI_ANY_TAG;
        r->status.bytes = 0;
        adi_request_done_fresh(r); /* (nothing else sees it yet) */
    }
    if (r == NULL)
        return 0; /* (the general path raises the shortage) */
    *req = mpi_request_handle(r);
    return 1;
}

/* ---------------------------------------------------------------- MPI functions */
/* The implementations of the generated entry points (mpi/api/12-rma.api),
 * which have checked the initialization, the window and the request
 * pointer. The int and _c forms share them. Not inlined into the short
 * paths: the argument record would be zeroed on the fast path too. */
static __attribute__((noinline)) int
issue_slow(const char *fn, rma_win_t *w, int kind, const void *obuf, MPI_Count ocount,
           MPI_Datatype odt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int target,
           MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Request *req)
{
    rma_args_t a = {.kind = kind,
                    .obuf = obuf,
                    .ocount = ocount,
                    .odt = odt,
                    .rbuf = rbuf,
                    .rcount = rcount,
                    .rdt = rdt,
                    .target = target,
                    .disp = disp,
                    .tcount = tcount,
                    .tdt = tdt,
                    .op = op,
                    .want_req = req != NULL,
                    .req = req};
    if (kind == RMA_AM_GACC && op == MPI_NO_OP)
        a.ocount = 0; /* the origin arguments are ignored */
    return rma_issue(fn, w, &a);
}

int mpi_put_impl(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                 MPI_Datatype target_datatype, rma_win_t *win, const char *fn)
{
    if (fast_put_get(RMA_AM_PUT, origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win) ||
        zero_op(origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, MPI_OP_NULL, 0, win))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      MPI_OP_NULL, NULL);
}

int mpi_get_impl(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                 MPI_Datatype target_datatype, rma_win_t *win, const char *fn)
{
    if (fast_put_get(RMA_AM_GET, origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win) ||
        zero_op(origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, MPI_OP_NULL, 0, win))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_GET, origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      MPI_OP_NULL, NULL);
}

int mpi_rput_impl(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                  MPI_Datatype target_datatype, rma_win_t *win, MPI_Request *request,
                  const char *fn)
{
    if (zero_op_req(origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, MPI_OP_NULL, 0, win, request))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_PUT, origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      MPI_OP_NULL, request);
}

int mpi_rget_impl(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                  MPI_Datatype target_datatype, rma_win_t *win, MPI_Request *request,
                  const char *fn)
{
    if (zero_op_req(origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, MPI_OP_NULL, 0, win, request))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_GET, origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      MPI_OP_NULL, request);
}

int mpi_accumulate_impl(const void *origin_addr, MPI_Count origin_count,
                        MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                        rma_win_t *win, const char *fn)
{
    if (fast_acc(origin_addr, origin_count, origin_datatype, NULL, 0, target_rank, target_disp,
                 target_count, target_datatype, op, win) ||
        zero_op(origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, op, 1, win))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      op, NULL);
}

int mpi_raccumulate_impl(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         rma_win_t *win, MPI_Request *request, const char *fn)
{
    if (zero_op_req(origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, op, 1, win, request))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_ACC, origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      op, request);
}

int mpi_get_accumulate_impl(const void *origin_addr, MPI_Count origin_count,
                            MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                            MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                            MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                            rma_win_t *win, const char *fn)
{
    /* (MPI_NO_OP ignores the origin arguments: the general path then) */
    if (op != MPI_NO_OP && result_count == target_count && result_datatype == target_datatype &&
        (zero_op(origin_count, origin_datatype, target_rank, target_disp, target_count,
                 target_datatype, op, 1, win) ||
         fast_acc(origin_addr, origin_count, origin_datatype, result_addr, 1, target_rank,
                  target_disp, target_count, target_datatype, op, win)))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, target_rank, target_disp, target_count,
                      target_datatype, op, NULL);
}

int mpi_rget_accumulate_impl(const void *origin_addr, MPI_Count origin_count,
                             MPI_Datatype origin_datatype, void *result_addr,
                             MPI_Count result_count, MPI_Datatype result_datatype, int target_rank,
                             MPI_Aint target_disp, MPI_Count target_count,
                             MPI_Datatype target_datatype, MPI_Op op, rma_win_t *win,
                             MPI_Request *request, const char *fn)
{
    if (op != MPI_NO_OP && result_count == target_count && result_datatype == target_datatype &&
        zero_op_req(origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, op, 1, win, request))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, target_rank, target_disp, target_count,
                      target_datatype, op, request);
}

int mpi_fetch_and_op_impl(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Op op, rma_win_t *win,
                          const char *fn)
{
    if ((target_rank == MPI_PROC_NULL &&
         zero_op(1, datatype, target_rank, target_disp, 1, datatype, op, 1, win)) ||
        fast_acc(origin_addr, 1, datatype, result_addr, 1, target_rank, target_disp, 1, datatype,
                 op, win))
        return MPI_SUCCESS;
    return issue_slow(fn, win, RMA_AM_GACC, origin_addr, 1, datatype, result_addr, 1, datatype,
                      target_rank, target_disp, 1, datatype, op, NULL);
}

/* MPI_Compare_and_swap on a created window toward another process that
 * is polling: through its mailbox (rma_mbox_fetch), under its accumulate
 * lock as every accumulate. The conditions are fast_acc's; anything else,
 * and a target that does not poll, takes the general path. 1 when done. */
static int fast_cas(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype h, int t,
                    MPI_Aint disp, rma_win_t *w)
{
    dt_type_t *dt;
    dt_builtin_t basic;
    size_t sz;
    char *tp;
    canal_status_t st;

    if (!w->cma || (unsigned)t >= (unsigned)w->size || t == w->rank || !mpi_buf_usable(obuf) ||
        !mpi_buf_usable(cbuf) || !mpi_buf_usable(rbuf) || disp < 0 || !fast_epoch(w, t))
        return 0;
    if ((sz = builtin_contig_size(h)) == 0 || (tp = fast_target(w, t, disp, sz)) == NULL)
        return 0;
    dt = mpi_dt_get(h);
    if (dt == NULL || (basic = dt_basic_type(dt)) == DT_NBUILTIN || !rma_cas_type_ok(basic))
        return 0;
    if (!rma_mbox_fetch(w, t, tp, sz, DT_OP_REPLACE, basic, obuf, cbuf, rbuf,
                        &st))
        return 0;
    return 1; /* (a compare and a copy: nothing in it can fail) */
}

int mpi_compare_and_swap_impl(const void *origin_addr, const void *compare_addr, void *result_addr,
                              MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                              rma_win_t *win, const char *fn)
{
    if (fast_cas(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win))
        return MPI_SUCCESS;
    rma_args_t a = {.kind = RMA_AM_CAS,
                    .obuf = origin_addr,
                    .ocount = 1,
                    .odt = datatype,
                    .rbuf = result_addr,
                    .rcount = 1,
                    .rdt = datatype,
                    .cbuf = compare_addr,
                    .target = target_rank,
                    .disp = target_disp,
                    .tcount = 1,
                    .tdt = datatype,
                    .op = MPI_REPLACE};
    return rma_issue(fn, win, &a);
}
