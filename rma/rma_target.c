/*
 * The target side of one-sided communication: the agent every window runs
 * (a receive on the window's context, for any source and RMA_TAG_AM, whose
 * completion callback performs the operation the header describes and
 * posts the receive again), the lock queue, the deferred acknowledgements,
 * and the code that applies an operation to memory through a layout, which
 * the direct paths of rma_ops.c use as well. Callbacks here run inside the
 * device's progress with the device lock held. See rma/rma.c for the design.
 */
#include "rma_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- layouts */
static char layout_anchor; /* datatype offsets are measured from here */

static canal_status_t layout_push(rma_layout_t *l, size_t *cap, int64_t off, uint64_t len)
{
    if (len == 0)
        return CANAL_OK;
    if (l->n > 0 && l->b[l->n - 1].off + (int64_t)l->b[l->n - 1].len == off) {
        l->b[l->n - 1].len += len;
        return CANAL_OK;
    }
    if (l->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        rma_block_t *nb =
            l->b == &l->one ? malloc(sizeof *nb * ncap) : realloc(l->b, sizeof *nb * ncap);
        if (nb == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for a layout of %zu blocks", ncap);
        if (l->b == &l->one)
            nb[0] = l->one;
        l->b = nb;
        *cap = ncap;
    }
    l->b[l->n].off = off;
    l->b[l->n].len = len;
    l->n++;
    return CANAL_OK;
}

canal_status_t rma_layout_from_dt(rma_layout_t *l, dt_type_t *t, size_t count)
{
    dt_cursor_t c;
    struct iovec iov[64];
    size_t cap = 1;
    canal_status_t st = CANAL_OK;

    memset(l, 0, sizeof *l);
    l->b = &l->one;
    l->bytes = count * dt_size(t);
    if (l->bytes == 0)
        return CANAL_OK;
    if (dt_is_contig_count(t, count)) {
        l->one.off = dt_true_lb(t);
        l->one.len = l->bytes;
        l->n = 1;
        l->lo = l->one.off;
        l->hi = l->lo + (int64_t)l->bytes;
        return CANAL_OK;
    }
    cap = 0; /* the first push moves the list to the heap */
    if ((st = dt_cursor_init(&c, t, count)) < 0) {
        dt_cursor_fini(&c);
        return st;
    }
    for (;;) {
        int niov = 0;
        size_t got = dt_iov_next(&c, &layout_anchor, iov, 64, SIZE_MAX, &niov);
        if (got == 0 || niov == 0)
            break;
        for (int i = 0; i < niov && st == CANAL_OK; i++)
            st = layout_push(l, &cap, (int64_t)((char *)iov[i].iov_base - &layout_anchor),
                             iov[i].iov_len);
        if (st < 0)
            break;
    }
    dt_cursor_fini(&c);
    if (st < 0) {
        rma_layout_fini(l);
        return st;
    }
    if (l->n > 0) {
        l->lo = l->b[0].off;
        l->hi = l->b[0].off + (int64_t)l->b[0].len;
        for (size_t i = 1; i < l->n; i++) {
            if (l->b[i].off < l->lo)
                l->lo = l->b[i].off;
            if (l->b[i].off + (int64_t)l->b[i].len > l->hi)
                l->hi = l->b[i].off + (int64_t)l->b[i].len;
        }
    }
    return CANAL_OK;
}

void rma_layout_from_wire(rma_layout_t *l, const rma_block_t *b, size_t n, size_t bytes)
{
    memset(l, 0, sizeof *l);
    l->bytes = bytes;
    if (n == 0) {
        l->b = &l->one;
        if (bytes > 0) {
            l->one.len = bytes;
            l->n = 1;
            l->hi = (int64_t)bytes;
        }
        return;
    }
    l->b = (rma_block_t *)b;
    l->n = n;
    l->lo = b[0].off;
    l->hi = b[0].off + (int64_t)b[0].len;
    for (size_t i = 1; i < n; i++) {
        if (b[i].off < l->lo)
            l->lo = b[i].off;
        if (b[i].off + (int64_t)b[i].len > l->hi)
            l->hi = b[i].off + (int64_t)b[i].len;
    }
}

void rma_layout_fini(rma_layout_t *l)
{
    if (l->b != NULL && l->b != &l->one)
        free(l->b);
    l->b = &l->one;
    l->n = 0;
}

canal_status_t rma_layout_dt(const rma_layout_t *l, char *base, void **buf_out, size_t *count_out,
                             dt_type_t **t_out)
{
    size_t *lens;
    ptrdiff_t *offs;
    dt_type_t *t = NULL;
    canal_status_t st;

    if (l->n <= 1) {
        *buf_out = l->n == 1 ? base + l->b[0].off : base;
        *count_out = l->n == 1 ? l->b[0].len : 0;
        *t_out = dt_builtin(DT_BYTE);
        return CANAL_OK;
    }
    lens = malloc(sizeof *lens * l->n);
    offs = malloc(sizeof *offs * l->n);
    if (lens == NULL || offs == NULL) {
        free(lens);
        free(offs);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a %zu-block target type", l->n);
    }
    for (size_t i = 0; i < l->n; i++) {
        lens[i] = l->b[i].len;
        offs[i] = l->b[i].off;
    }
    st = dt_create_hindexed(l->n, lens, offs, dt_builtin(DT_BYTE), &t);
    free(lens);
    free(offs);
    if (st < 0)
        return st;
    if ((st = dt_commit(t)) < 0) {
        dt_release(t);
        return st;
    }
    *buf_out = base;
    *count_out = 1;
    *t_out = t;
    return CANAL_OK;
}

/* ---------------------------------------------------------------- applying */
void rma_apply_unpack(char *base, const rma_layout_t *l, const void *data)
{
    const char *p = data;
    for (size_t i = 0; i < l->n; i++) {
        memmove(base + l->b[i].off, p, l->b[i].len);
        p += l->b[i].len;
    }
}

void rma_apply_pack(const char *base, const rma_layout_t *l, void *out)
{
    char *p = out;
    for (size_t i = 0; i < l->n; i++) {
        memmove(p, base + l->b[i].off, l->b[i].len);
        p += l->b[i].len;
    }
}

canal_status_t rma_apply_acc(char *base, const rma_layout_t *l, const void *data, dt_op_t op,
                             dt_builtin_t basic)
{
    dt_type_t *bt = dt_builtin(basic);
    size_t esize, n, done;
    ptrdiff_t ext;
    canal_status_t st = CANAL_OK;

    if (op == DT_OP_NO_OP || l->bytes == 0)
        return CANAL_OK;
    if (op == DT_OP_REPLACE) {
        rma_apply_unpack(base, l, data);
        return CANAL_OK;
    }
    if (bt == NULL)
        return common_err_set(CANAL_ERR_TYPE, "accumulate with an unknown basic type %d", basic);
    esize = dt_size(bt);
    ext = dt_extent(bt);
    if (esize == 0 || l->bytes % esize != 0)
        return common_err_set(CANAL_ERR_TYPE, "%zu bytes are not whole elements of %s", l->bytes,
                              dt_builtin_name(basic));
    if ((ptrdiff_t)esize == ext) {
        const char *p = data;
        for (size_t i = 0; i < l->n && st == CANAL_OK; i++) {
            if (l->b[i].len % esize != 0)
                return common_err_set(CANAL_ERR_TYPE,
                                      "a target block of %llu bytes splits "
                                      "an element of %s",
                                      (unsigned long long)l->b[i].len, dt_builtin_name(basic));
            /* Operands sit at any offset of the received message; the
             * kernels need them aligned for their type (long double: 16). */
            if (((uintptr_t)p & (_Alignof(max_align_t) - 1)) != 0) {
                void *tmp = malloc(l->b[i].len);
                if (tmp == NULL)
                    return common_err_set(CANAL_ERR_NOMEM, "no memory for %llu accumulate bytes",
                                          (unsigned long long)l->b[i].len);
                memcpy(tmp, p, l->b[i].len);
                st = dt_reduce(op, tmp, base + l->b[i].off, l->b[i].len / esize, bt);
                free(tmp);
            } else {
                st = dt_reduce(op, p, base + l->b[i].off, l->b[i].len / esize, bt);
            }
            p += l->b[i].len;
        }
        return st;
    }
    /* Pair types (MPI_DOUBLE_INT...) have holes: gather the target elements,
     * reduce them in their natural layout, scatter them back. */
    n = l->bytes / esize;
    {
        char *in = malloc(n * (size_t)ext), *io = malloc(n * (size_t)ext), *old = malloc(l->bytes);
        if (in == NULL || io == NULL || old == NULL) {
            free(in);
            free(io);
            free(old);
            return common_err_set(CANAL_ERR_NOMEM, "no memory to accumulate %zu elements", n);
        }
        rma_apply_pack(base, l, old);
        if ((st = dt_unpack(data, l->bytes, in, n, bt, &done)) == CANAL_OK &&
            (st = dt_unpack(old, l->bytes, io, n, bt, &done)) == CANAL_OK &&
            (st = dt_reduce(op, in, io, n, bt)) == CANAL_OK &&
            (st = dt_pack(io, n, bt, old, l->bytes, &done)) == CANAL_OK)
            rma_apply_unpack(base, l, old);
        free(in);
        free(io);
        free(old);
    }
    return st;
}

/* ---------------------------------------------------------------- sending */
static void owned_sent(adi_request_t *r, void *arg)
{
    (void)r;
    free(arg); /* the request itself is released by the device (user_freed) */
}

canal_status_t rma_send_owned(rma_win_t *w, int peer, void *buf, size_t len, int tag)
{
    adi_request_t *r = NULL;
    canal_status_t st = adi_isend(buf, len, dt_builtin(DT_BYTE), w->job[peer], w->rank, tag, w->ctx,
                                  ADI_MODE_STANDARD, &r);
    if (st < 0) {
        free(buf);
        return st;
    }
    adi_lock();
    if (r->done) {
        adi_request_free(r);
        free(buf);
    } else {
        r->on_complete = owned_sent;
        r->on_complete_arg = buf;
        r->user_freed = 1;
    }
    adi_unlock();
    return CANAL_OK;
}

canal_status_t rma_send_ctrl(rma_win_t *w, int peer, int kind, uint64_t aux)
{
    rma_hdr_t *h = calloc(1, sizeof *h);
    if (h == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for an RMA control message");
    h->kind = (uint8_t)kind;
    h->aux = aux;
    return rma_send_owned(w, peer, h, sizeof *h, RMA_TAG_AM);
}

/* Send `bytes` bytes at (buf, layout) to the origin's reply tag without
 * copying; the layout's type is held by the device until sent. */
static void reply_from_layout(rma_win_t *w, int origin, int tag, char *base, const rma_layout_t *l)
{
    void *buf;
    size_t count;
    dt_type_t *t;
    adi_request_t *r = NULL;

    if (rma_layout_dt(l, base, &buf, &count, &t) < 0 ||
        adi_isend(buf, count, t, w->job[origin], w->rank, tag, w->ctx, ADI_MODE_STANDARD, &r) < 0) {
        LOG_ERR("rma: cannot answer a get of rank %d: %s", origin, common_err_detail());
        return;
    }
    dt_release(t);
    if (r->done)
        adi_request_free(r);
    else
        r->user_freed = 1;
}

/* ---------------------------------------------------------------- the lock */
/* A request that arrives while this process is inside MPI_Win_fence is
 * granted like any other: it comes from a process that has not reached the
 * fence yet (its passive epoch precedes its fence call) or that already
 * left it; holding it until the fence completes here deadlocks the first
 * kind, which needs the lock to get to the fence (MPICH rma/reqops). */
static int lock_fits(rma_win_t *w, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        return w->lock_excl < 0 && w->lock_shared == 0;
    return w->lock_excl < 0;
}

static void lock_grant(rma_win_t *w, int origin, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        w->lock_excl = origin;
    else
        w->lock_shared++;
    rma_send_ctrl(w, origin, RMA_AM_LOCK_GRANT, 0);
}

static void lock_request(rma_win_t *w, int origin, int type)
{
    rma_lockreq_t *q;

    if (common_list_empty(&w->lq) && lock_fits(w, type)) {
        lock_grant(w, origin, type);
        return;
    }
    q = malloc(sizeof *q);
    if (q == NULL) {
        LOG_ERR("rma: out of memory queueing a lock request of rank %d", origin);
        abort();
    }
    q->origin = origin;
    q->type = type;
    common_list_push_back(&w->lq, &q->link);
}

static void lock_release(rma_win_t *w, int origin)
{
    if (w->lock_excl == origin)
        w->lock_excl = -1;
    else if (w->lock_shared > 0)
        w->lock_shared--;
    rma_lock_drain(w);
}

void rma_lock_drain(rma_win_t *w)
{
    rma_lockreq_t *q;

    while ((q = common_list_entry(w->lq.head, rma_lockreq_t, link)) != NULL &&
           lock_fits(w, q->type)) {
        common_list_remove(&w->lq, &q->link);
        lock_grant(w, q->origin, q->type);
        free(q);
    }
}

/* FLUSH, UNLOCK and COMPLETE of an origin wait for its puts' data. */
static void run_deferred(rma_win_t *w, int origin)
{
    rma_peer_t *p = &w->peer[origin];
    if (p->pending_data > 0)
        return;
    while (p->deferred_flush > 0) {
        p->deferred_flush--;
        rma_send_ctrl(w, origin, RMA_AM_FLUSH_ACK, (uint64_t)p->bad_ops);
        p->bad_ops = 0;
    }
    if (p->deferred_unlock) {
        p->deferred_unlock = 0;
        lock_release(w, origin);
        rma_send_ctrl(w, origin, RMA_AM_UNLOCK_ACK, (uint64_t)p->bad_ops);
        p->bad_ops = 0;
    }
    if (p->deferred_complete > 0) {
        p->completes += p->deferred_complete;
        p->deferred_complete = 0;
    }
}

/* ---------------------------------------------------------------- operations */
static void op_applied(rma_win_t *w, const rma_hdr_t *h)
{
    if (h->flags & RMA_F_FENCE)
        w->fence_done[h->epoch & 1]++;
}

typedef struct {
    rma_win_t *w;
    int origin;
    rma_hdr_t h;
} put_wait_t;

static void put_data_done(adi_request_t *r, void *arg)
{
    put_wait_t *pw = arg;
    rma_win_t *w = pw->w;
    (void)r;
    op_applied(w, &pw->h);
    w->peer[pw->origin].pending_data--;
    run_deferred(w, pw->origin);
    free(pw);
}

/* Window memory the operation addresses, or NULL (counted as refused). */
static char *target_addr(rma_win_t *w, int origin, const rma_hdr_t *h, const rma_layout_t *l)
{
    char *base;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t a = (uintptr_t)h->disp;
        if (l->bytes == 0 || rma_dynamic_contains(w, a + (uintptr_t)l->lo, a + (uintptr_t)l->hi))
            return (char *)a;
    } else {
        int64_t off = (int64_t)h->disp, a = 0, b = 0;
        base = w->direct ? w->peer_base[w->rank] : w->base;
        if (l->bytes == 0)
            return base + off;
        if (base != NULL && !__builtin_add_overflow(off, l->lo, &a) &&
            !__builtin_add_overflow(off, l->hi, &b) && a >= 0 && b <= (int64_t)w->bytes)
            return base + off;
    }
    LOG_DEBUG("rma: rank %d addressed bytes [%lld, %lld) at %#llx outside the window", origin,
              (long long)l->lo, (long long)l->hi, (unsigned long long)h->disp);
    /* A fetching operation tells its origin with a short reply; the others
     * are counted for the next flush/unlock acknowledgement, or, in active
     * target epochs where nothing goes back to the origin, raised here at
     * the next fence or MPI_Win_wait. */
    if (h->kind == RMA_AM_PUT || h->kind == RMA_AM_ACC) {
        if (h->flags & (RMA_F_FENCE | RMA_F_ACTIVE))
            w->bad_here++;
        else
            w->peer[origin].bad_ops++;
    }
    return NULL;
}

static void do_put(rma_win_t *w, int origin, const rma_hdr_t *h, const rma_layout_t *l,
                   const char *data)
{
    char *base = target_addr(w, origin, h, l);
    put_wait_t *pw;
    adi_request_t *r = NULL;
    void *buf = NULL;
    size_t count = 0;
    dt_type_t *t = dt_builtin(DT_BYTE);

    if (h->flags & RMA_F_INLINE) {
        if (base != NULL)
            rma_apply_unpack(base, l, data);
        op_applied(w, h);
        return;
    }
    /* The data follows with the operation's tag; a refused put still
     * receives it (truncated to nothing) so that it does not linger. */
    pw = malloc(sizeof *pw);
    if (pw == NULL || (base != NULL && rma_layout_dt(l, base, &buf, &count, &t) < 0)) {
        LOG_ERR("rma: out of memory receiving a put of rank %d", origin);
        abort();
    }
    pw->w = w;
    pw->origin = origin;
    pw->h = *h;
    if (adi_irecv(buf, count, t, origin, h->tag, w->ctx, &r) < 0) {
        LOG_ERR("rma: cannot receive a put of rank %d: %s", origin, common_err_detail());
        abort();
    }
    dt_release(t);
    w->peer[origin].pending_data++;
    if (r->done) {
        adi_request_free(r);
        put_data_done(NULL, pw);
    } else {
        r->on_complete = put_data_done;
        r->on_complete_arg = pw;
        r->user_freed = 1;
    }
}

static void do_fetch(rma_win_t *w, int origin, const rma_hdr_t *h, const rma_layout_t *l,
                     const char *data)
{
    char *base = target_addr(w, origin, h, l);
    char *old = NULL;
    size_t esize;

    if (base == NULL) {
        /* A short (empty) reply tells the origin the operation was refused. */
        rma_send_owned(w, origin, NULL, 0, h->tag);
        op_applied(w, h);
        return;
    }
    if (h->kind == RMA_AM_GET) {
        reply_from_layout(w, origin, h->tag, base, l);
        op_applied(w, h);
        return;
    }
    old = malloc(l->bytes ? l->bytes : 1);
    if (old == NULL) {
        LOG_ERR("rma: out of memory answering rank %d", origin);
        abort();
    }
    rma_apply_pack(base, l, old);
    if (h->kind == RMA_AM_CAS) {
        esize = l->bytes;
        if (memcmp(old, data + esize, esize) == 0)
            rma_apply_unpack(base, l, data);
    } else if (rma_apply_acc(base, l, data, (dt_op_t)h->op, (dt_builtin_t)h->basic) < 0) {
        LOG_ERR("rma: get_accumulate of rank %d failed: %s", origin, common_err_detail());
    }
    rma_send_owned(w, origin, old, l->bytes, h->tag);
    op_applied(w, h);
}

/* The blocks must describe exactly `bytes` bytes without wrapping around. */
static int layout_sane(const rma_layout_t *l)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->b[i].len > (uint64_t)INT64_MAX / 4 || l->b[i].off > INT64_MAX / 4 ||
            l->b[i].off < -(INT64_MAX / 4))
            return 0;
        sum += l->b[i].len;
    }
    return sum == l->bytes;
}

static void handle(rma_win_t *w, int src, const char *msg, size_t len)
{
    rma_hdr_t h;
    rma_layout_t l;
    rma_peer_t *p;
    const char *data;
    size_t need;

    if (len < sizeof h || src < 0 || src >= w->size) {
        LOG_ERR("rma: dropping a malformed message of %zu bytes from rank %d", len, src);
        return;
    }
    memcpy(&h, msg, sizeof h);
    p = &w->peer[src];
    if (h.kind <= RMA_AM_CAS && (h.flags & RMA_F_FENCE) && (h.epoch & 1) != (w->fence_epoch & 1)) {
        /* The origin has left the fence this process is still in: the
         * operation belongs after it (it must see what that fence completes). */
        rma_deferred_t *d = malloc(sizeof *d + len);
        if (d == NULL) {
            LOG_ERR("rma: out of memory deferring an operation of rank %d", src);
            abort();
        }
        d->src = src;
        d->len = len;
        memcpy(d->msg, msg, len);
        common_list_push_back(&w->deferred, &d->link);
        return;
    }
    need = sizeof h + ((h.flags & RMA_F_LAYOUT) ? h.nblocks * sizeof(rma_block_t) : 0);
    if (h.kind <= RMA_AM_CAS && (h.flags & RMA_F_INLINE))
        need += h.kind == RMA_AM_CAS ? 2 * h.bytes : h.bytes;
    if (need > len || ((h.flags & RMA_F_LAYOUT) && h.nblocks > len)) {
        LOG_ERR("rma: dropping a message of kind %d from rank %d: %zu bytes, %zu expected", h.kind,
                src, len, need);
        return;
    }
    switch (h.kind) {
    case RMA_AM_PUT:
    case RMA_AM_GET:
    case RMA_AM_ACC:
    case RMA_AM_GACC:
    case RMA_AM_CAS:
        rma_layout_from_wire(&l, (const rma_block_t *)(msg + sizeof h),
                             (h.flags & RMA_F_LAYOUT) ? h.nblocks : 0, h.bytes);
        if (!layout_sane(&l)) {
            LOG_ERR("rma: dropping an operation of rank %d with an inconsistent layout", src);
            return;
        }
        data = msg + sizeof h + ((h.flags & RMA_F_LAYOUT) ? h.nblocks * sizeof(rma_block_t) : 0);
        if (h.kind == RMA_AM_PUT) {
            do_put(w, src, &h, &l, data);
        } else if (h.kind == RMA_AM_ACC) {
            char *base = target_addr(w, src, &h, &l);
            if (base != NULL &&
                rma_apply_acc(base, &l, data, (dt_op_t)h.op, (dt_builtin_t)h.basic) < 0)
                LOG_ERR("rma: accumulate of rank %d failed: %s", src, common_err_detail());
            op_applied(w, &h);
        } else {
            do_fetch(w, src, &h, &l, data);
        }
        break;
    case RMA_AM_LOCK:
        lock_request(w, src, (int)h.aux);
        break;
    case RMA_AM_UNLOCK:
        p->deferred_unlock = 1;
        run_deferred(w, src);
        break;
    case RMA_AM_FLUSH:
        p->deferred_flush++;
        run_deferred(w, src);
        break;
    case RMA_AM_COMPLETE:
        p->deferred_complete++;
        run_deferred(w, src);
        break;
    case RMA_AM_POST:
        p->posts++;
        break;
    case RMA_AM_LOCK_GRANT:
        p->grants++;
        break;
    case RMA_AM_UNLOCK_ACK:
    case RMA_AM_FLUSH_ACK:
        w->remote_bad += (int)h.aux;
        __atomic_store_n(&p->acks, p->acks + 1, __ATOMIC_RELEASE);
        break;
    default:
        LOG_ERR("rma: dropping a message of unknown kind %d from rank %d", h.kind, src);
        break;
    }
}

void rma_agent_replay(rma_win_t *w)
{
    common_list_t todo = w->deferred; /* what handle() defers again goes on a new list */
    rma_deferred_t *d;

    w->deferred = (common_list_t){NULL, NULL};
    while ((d = common_list_entry(todo.head, rma_deferred_t, link)) != NULL) {
        common_list_remove(&todo, &d->link);
        handle(w, d->src, d->msg, d->len);
        free(d);
    }
}

/* ---------------------------------------------------------------- the agent */
static void *agent_buf(size_t bytes, void *arg)
{
    rma_win_t *w = arg;
    if (bytes > w->abuf_cap) {
        size_t cap = bytes < 4096 ? 4096 : bytes;
        char *nb = malloc(cap);
        if (nb == NULL)
            return NULL;
        free(w->abuf);
        w->abuf = nb;
        w->abuf_cap = cap;
    }
    return w->abuf;
}

static void agent_done(adi_request_t *r, void *arg);

static canal_status_t agent_post(rma_win_t *w)
{
    adi_request_t *r = w->agent;
    r->alloc_buf = agent_buf;
    r->alloc_arg = w;
    r->on_complete = agent_done;
    r->on_complete_arg = w;
    return adi_irecv_into(r, NULL, 0, dt_builtin(DT_BYTE), ADI_ANY_SOURCE, RMA_TAG_AM, w->ctx);
}

static void agent_done(adi_request_t *r, void *arg)
{
    rma_win_t *w = arg;

    if (w->agent_busy) {
        /* The receive was matched while we re-posted it: the loop below
         * handles it, so that a backlog does not recurse. */
        w->agent_ready = 1;
        return;
    }
    w->agent_busy = 1;
    do {
        w->agent_ready = 0;
        if (r->status.cancelled)
            break;
        if (r->status.error == 0) {
            w->agent_failed = 0;
            handle(w, r->status.source, w->abuf, r->status.bytes);
        } else if (++w->agent_failed == 1) {
            LOG_ERR("rma: the agent's receive failed (%s)", common_status_name(r->status.error));
        } else {
            /* A second failure in a row would be followed by others for ever
             * (the loop used to spin and log without end): stop. */
            LOG_ERR("rma: the agent's receive failed again (%s); the agent stops: this process "
                    "no longer serves the window's passive-target operations",
                    common_status_name(r->status.error));
            break;
        }
        if (agent_post(w) < 0) {
            LOG_ERR("rma: cannot re-post the agent: %s", common_err_detail());
            break;
        }
    } while (w->agent_ready);
    w->agent_busy = 0;
}

canal_status_t rma_agent_start(rma_win_t *w)
{
    canal_status_t st;
    w->agent = adi_request_alloc(ADI_REQ_RECV);
    if (w->agent == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no request for the RMA agent");
    adi_lock();
    st = agent_post(w);
    adi_unlock();
    if (st < 0) {
        adi_request_free(w->agent);
        w->agent = NULL;
    }
    return st;
}

static int req_done(void *arg)
{
    return __atomic_load_n(&((adi_request_t *)arg)->done, __ATOMIC_ACQUIRE);
}

void rma_agent_stop(rma_win_t *w)
{
    adi_request_t *r = w->agent;
    int flag = 1;

    adi_lock();
    r->on_complete = NULL;
    adi_cancel(r);
    adi_unlock();
    adi_wait_until(req_done, r);
    adi_request_free(r);
    w->agent = NULL;
    while (!common_list_empty(&w->deferred)) {
        rma_deferred_t *d = common_list_entry(w->deferred.head, rma_deferred_t, link);
        common_list_remove(&w->deferred, &d->link);
        free(d);
    }
    /* Nothing may stay behind on the context: it will be reused. */
    while (flag) {
        adi_message_t *m = NULL;
        adi_status_t st;
        adi_request_t *rr = NULL;
        flag = 0;
        if (adi_improbe(ADI_ANY_SOURCE, ADI_ANY_TAG, w->ctx, &flag, &m, &st) < 0 || !flag)
            break;
        LOG_DEBUG("rma: discarding a %zu-byte message (tag %d) left on a freed window", st.bytes,
                  st.tag);
        if (adi_imrecv(NULL, 0, dt_builtin(DT_BYTE), m, &rr) == CANAL_OK) {
            adi_wait(rr);
            adi_request_free(rr);
        }
    }
}
