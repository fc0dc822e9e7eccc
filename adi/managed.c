/*
 * Managed runtimes in the device: the runtime's hooks, the deferred-pinning
 * policy, the registry of incomplete operations on managed references (what
 * MPIX_Managed_inflight reports to a collector) and registered buffers
 * (jbufs). Called by mpi/managed.c; runs its completion and buffer callbacks
 * from the device's progress (request on_complete and alloc_buf) and its
 * safepoint from the device's wait hook. adi/managed.h states the policy.
 *
 * Locking: one recursive mutex (mgd_lock) guards the hooks, the registry, the
 * statistics and the buffer table. It nests inside the device lock (progress
 * calls in here with the device lock held) and is never held while calling
 * the device, so the order is always device lock, then mgd_lock. The
 * runtime's resolve/can_move/size/pin/unpin hooks run with mgd_lock held;
 * the safepoint, the wait hook and the allocation callback run without it.
 */
#include "adi/managed.h"
#include "adi/adi_impl.h"

#include "common/list.h"
#include "common/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mgd_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void mgd_lock(void)
{
    pthread_mutex_lock(&mgd_mutex);
}
static void mgd_unlock(void)
{
    pthread_mutex_unlock(&mgd_mutex);
}

enum { DEFAULT_INTERVAL = 256 };

static adi_mgd_hooks_t hooks;
static int hooks_on;
static void (*park_fn)(void *);
static void *park_arg;
static int park_interval;
static adi_mgd_stats_t stats;

/* ---------------------------------------------------------------- operations */
/* How an operation gets its memory. */
enum {
    OP_DIRECT = 0, /* addresses resolved at start and handed to the device */
    OP_LATE,       /* blocking receive into one object: resolved when a message matches */
    OP_USER,       /* MPIX_(I)recv_alloc: the runtime's callback supplies the target */
};

typedef struct {
    void *ref;
    int jbuf;
    void *addr; /* resolved address of the piece (ref/jbuf/addr + offset) */
    size_t offset;
    ptrdiff_t lo, hi; /* bytes touched, relative to addr */
    uint8_t movable;
    uint8_t pinned;
} mgd_seg_t;

typedef struct mgd_op {
    common_link_t reg; /* on reg_list while listed */
    adi_request_t *req;
    mgd_seg_t *segs;
    mgd_seg_t one; /* segs points here for single-piece operations */
    int nseg;
    uint8_t is_send;
    uint8_t blocking;
    uint8_t kind;
    uint8_t held;         /* the device holds the addresses of the pieces */
    uint8_t bounce;       /* data goes through scratch (a pin was refused) */
    uint8_t refs_done;    /* a bounce send copied its data: the refs are no longer used */
    uint8_t late_scratch; /* a matched receive landed in scratch (dt layout), copied at the end */
    uint8_t trunc;        /* ... because it was longer than the receive */
    uint8_t listed;       /* in the registry */
    uint8_t ever_pinned;
    pthread_t owner; /* the thread that started it (and waits, if blocking) */
    volatile int finished;
    dt_type_t *dt; /* typed operations (retained), NULL for gather/scatter */
    size_t count;
    void *scratch;      /* bounce or truncation buffer */
    void *scratch_base; /* what the device got: scratch - lo */
    size_t scratch_n;   /* OP_LATE: elements of dt the device wrote to scratch */
    adi_mgd_alloc_fn alloc_fn;
    void *alloc_arg;
    void (*alloc_arg_release)(void *);
    int err; /* status to report: < 0 canal_status_t, > 0 MPI error class */
} mgd_op_t;

static common_list_t reg_list; /* newest first */
static long long reg_count;

static mgd_op_t *reg_first(void)
{
    return common_list_entry(reg_list.head, mgd_op_t, reg);
}

static mgd_op_t *reg_next(const mgd_op_t *op)
{
    return common_list_entry(op->reg.next, mgd_op_t, reg);
}

static void reg_insert(mgd_op_t *op)
{
    common_list_push_front(&reg_list, &op->reg);
    op->listed = 1;
    reg_count++;
}

static void reg_remove(mgd_op_t *op)
{
    if (!op->listed)
        return;
    common_list_remove(&reg_list, &op->reg);
    op->listed = 0;
    reg_count--;
}

/* ---------------------------------------------------------------- registered buffers */
enum { JBUF_MAX = 65535 };

typedef struct jbuf_cb {
    struct jbuf_cb *next;
    void (*fn)(void *base, size_t len, void *arg);
    void *arg;
    void *base; /* the buffer's, filled when it is destroyed */
    size_t len;
} jbuf_cb_t;

typedef struct {
    int used;
    unsigned gen;
    void *base;
    size_t len;
    int refcount;   /* registrations not yet dropped */
    int inflight;   /* operations using the buffer */
    int releasing;  /* the last reference was released: no new operations */
    jbuf_cb_t *cbs; /* to run when the buffer is finally gone */
    int nregs;
    struct {
        ch_endpoint_t *ch;
        uint64_t key;
    } regs[4];
} jbuf_t;

static jbuf_t *jbufs;
static int njbufs;

static int jbuf_handle(int index)
{
    return (int)((jbufs[index].gen & 0x7fff) << 16) | (index + 1);
}

static jbuf_t *jbuf_get(int handle)
{
    int index = (handle & 0xffff) - 1;
    if (handle <= 0 || index < 0 || index >= njbufs || !jbufs[index].used ||
        jbuf_handle(index) != handle)
        return NULL;
    return &jbufs[index];
}

/* Deregister from the channels and free the slot; returns the callbacks to
 * run (after mgd_lock is dropped). */
static jbuf_cb_t *jbuf_destroy(jbuf_t *b)
{
    jbuf_cb_t *cbs = b->cbs;
    for (jbuf_cb_t *c = cbs; c != NULL; c = c->next) {
        c->base = b->base;
        c->len = b->len;
    }
    for (int i = 0; i < b->nregs; i++)
        ch_mem_deregister(b->regs[i].ch, b->regs[i].key);
    b->nregs = 0;
    b->used = 0;
    b->cbs = NULL;
    b->gen++;
    return cbs;
}

static void jbuf_run_cbs(jbuf_cb_t *cbs)
{
    while (cbs != NULL) {
        jbuf_cb_t *next = cbs->next;
        if (cbs->fn != NULL)
            cbs->fn(cbs->base, cbs->len, cbs->arg);
        free(cbs);
        cbs = next;
    }
}

/* ---------------------------------------------------------------- hooks */
static void mgd_wait_hook(void *unused);

static void install_wait_hook(void)
{
    int interval = 0;
    if (hooks_on && hooks.safepoint != NULL)
        interval = hooks.interval;
    if (park_fn != NULL && (interval == 0 || park_interval < interval))
        interval = park_interval;
    /* Pins of blocking operations are taken in the wait hook even when the
     * runtime has no safepoint: its wait hook may run managed code. */
    if (hooks_on || park_fn != NULL)
        adi_set_wait_hook(mgd_wait_hook, NULL, interval > 0 ? interval : DEFAULT_INTERVAL);
    else
        adi_set_wait_hook(NULL, NULL, 0);
}

canal_status_t adi_mgd_hooks_set(const adi_mgd_hooks_t *h)
{
    mgd_lock();
    if (hooks_on) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_PENDING,
                              "runtime hooks are already registered; deregister them first");
    }
    hooks = *h;
    if (hooks.interval <= 0)
        hooks.interval = DEFAULT_INTERVAL;
    hooks_on = 1;
    install_wait_hook();
    mgd_unlock();
    return CANAL_OK;
}

static int ops_on_refs(void)
{
    for (mgd_op_t *op = reg_first(); op != NULL; op = reg_next(op))
        for (int i = 0; i < op->nseg; i++)
            if (op->segs[i].ref != NULL)
                return 1;
    return 0;
}

canal_status_t adi_mgd_hooks_clear(void)
{
    mgd_lock();
    if (!hooks_on) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_NOTFOUND, "no runtime hooks are registered");
    }
    if (ops_on_refs()) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_PENDING,
                              "operations on managed references are still incomplete");
    }
    hooks_on = 0;
    memset(&hooks, 0, sizeof hooks);
    install_wait_hook();
    mgd_unlock();
    return CANAL_OK;
}

int adi_mgd_hooks_active(void)
{
    return __atomic_load_n(&hooks_on, __ATOMIC_ACQUIRE);
}

void adi_mgd_wait_hook_set(void (*fn)(void *arg), void *arg, int interval)
{
    mgd_lock();
    park_fn = fn;
    park_arg = arg;
    park_interval = interval > 0 ? interval : DEFAULT_INTERVAL;
    install_wait_hook();
    mgd_unlock();
}

void adi_mgd_finalize(void)
{
    mgd_lock();
    hooks_on = 0;
    memset(&hooks, 0, sizeof hooks);
    park_fn = NULL;
    adi_set_wait_hook(NULL, NULL, 0);
    for (int i = 0; i < njbufs; i++) {
        if (jbufs[i].used) {
            jbuf_cb_t *cbs = jbuf_destroy(&jbufs[i]);
            while (cbs != NULL) { /* nobody is left to call back */
                jbuf_cb_t *n = cbs->next;
                free(cbs);
                cbs = n;
            }
        }
    }
    free(jbufs);
    jbufs = NULL;
    njbufs = 0;
    mgd_unlock();
}

void adi_mgd_stats(adi_mgd_stats_t *out)
{
    mgd_lock();
    *out = stats;
    out->safepoints = __atomic_load_n(&stats.safepoints, __ATOMIC_RELAXED);
    out->safepoints_skipped = __atomic_load_n(&stats.safepoints_skipped, __ATOMIC_RELAXED);
    out->inflight = reg_count;
    mgd_unlock();
}

/* ---------------------------------------------------------------- pinning */
static int seg_pin(mgd_op_t *op, mgd_seg_t *s)
{
    if (hooks.pin == NULL || hooks.pin(s->ref, hooks.rt) != 0)
        return -1;
    s->pinned = 1;
    op->ever_pinned = 1;
    stats.pins++;
    return 0;
}

static void seg_unpin(mgd_seg_t *s)
{
    if (!s->pinned)
        return;
    s->pinned = 0;
    if (hooks_on && hooks.unpin != NULL && !(hooks.flags & ADI_MGD_RUNTIME_UNPINS)) {
        hooks.unpin(s->ref, hooks.rt);
        stats.unpins++;
    }
}

/* Before the collector may run: pin every movable object whose address the
 * device holds. Returns nonzero if one could not be pinned (then the
 * collector must not run). mgd_lock held. */
static int pin_held(void)
{
    int refused = 0;
    if (!hooks_on)
        return 0;
    for (mgd_op_t *op = reg_first(); op != NULL; op = reg_next(op)) {
        if (!op->held)
            continue;
        for (int i = 0; i < op->nseg; i++) {
            mgd_seg_t *s = &op->segs[i];
            if (s->ref == NULL || !s->movable || s->pinned)
                continue;
            if (seg_pin(op, s) == 0) {
                if (op->blocking)
                    stats.deferred_pins++;
            } else {
                refused = 1;
            }
        }
    }
    return refused;
}

static void mgd_wait_hook(void *unused)
{
    void (*sp)(void *) = NULL, (*pk)(void *) = NULL;
    void *rt = NULL, *parg = NULL;
    int refused;

    mgd_lock();
    refused = pin_held();
    if (hooks_on) {
        sp = hooks.safepoint;
        rt = hooks.rt;
    }
    pk = park_fn;
    parg = park_arg;
    mgd_unlock();
    if (refused) {
        /* An object the device is reading or writing could not be pinned:
         * the collector must wait until that operation completes. */
        __atomic_fetch_add(&stats.safepoints_skipped, 1, __ATOMIC_RELAXED);
        return;
    }
    if (sp != NULL) {
        __atomic_fetch_add(&stats.safepoints, 1, __ATOMIC_RELAXED);
        sp(rt);
    }
    if (pk != NULL)
        pk(parg);
}

/* ---------------------------------------------------------------- spans and checks */
canal_status_t adi_mgd_span(const dt_type_t *dt, size_t count, ptrdiff_t *lo_out, ptrdiff_t *hi_out)
{
    ptrdiff_t ext = dt_extent(dt), reps, lo, hi;

    if (count == 0 || dt_size(dt) == 0) {
        *lo_out = *hi_out = 0;
        return CANAL_OK;
    }
    if (count - 1 > (size_t)PTRDIFF_MAX ||
        __builtin_mul_overflow((ptrdiff_t)(count - 1), ext, &reps))
        return common_err_set(CANAL_ERR_ARG, "count=%zu elements of extent %td overflow", count,
                              ext);
    lo = dt_true_lb(dt);
    if (__builtin_add_overflow(lo, dt_true_extent(dt), &hi))
        return common_err_set(CANAL_ERR_ARG, "datatype bounds overflow");
    if (reps < 0)
        lo += reps;
    else if (__builtin_add_overflow(hi, reps, &hi))
        return common_err_set(CANAL_ERR_ARG, "count=%zu elements of extent %td overflow", count,
                              ext);
    *lo_out = lo;
    *hi_out = hi;
    return CANAL_OK;
}

/* Bounds of [offset + lo, offset + hi) against an object or buffer of `size` bytes. */
static canal_status_t check_range(const char *what, size_t offset, ptrdiff_t lo, ptrdiff_t hi,
                                  size_t size)
{
    if (lo == hi)
        return CANAL_OK;
    if ((lo < 0 && (size_t)-lo > offset) || offset > size || (hi > 0 && (size_t)hi > size - offset))
        return common_err_set(CANAL_ERR_ARG,
                              "offset=%zu: the data spans bytes [%lld, %lld) of the %s, which "
                              "has %zu bytes",
                              offset, (long long)offset + lo, (long long)offset + hi, what, size);
    return CANAL_OK;
}

canal_status_t adi_mgd_ref_check(void *ref, size_t offset, ptrdiff_t lo, ptrdiff_t hi)
{
    canal_status_t st = CANAL_OK;
    void *p;

    mgd_lock();
    if (!hooks_on) {
        st = common_err_set(CANAL_ERR_ARG,
                            "no runtime hooks are registered (MPIX_Managed_register)");
    } else if ((p = hooks.resolve(ref, hooks.rt)) == NULL) {
        st = common_err_set(CANAL_ERR_NOTFOUND, "ref=%p names no live object", ref);
    } else if (hooks.size != NULL) {
        long size = hooks.size(ref, hooks.rt);
        if (size < 0)
            st =
                common_err_set(CANAL_ERR_NOTFOUND, "ref=%p: the size hook returned %ld", ref, size);
        else
            st = check_range("object", offset, lo, hi, (size_t)size);
    }
    mgd_unlock();
    return st;
}

static canal_status_t buf_check_locked(int handle, size_t offset, ptrdiff_t lo, ptrdiff_t hi)
{
    jbuf_t *b = jbuf_get(handle);
    if (b == NULL)
        return common_err_set(CANAL_ERR_NOTFOUND,
                              "buffer=%d is not a registered buffer (never registered, or "
                              "already deregistered)",
                              handle);
    if (b->releasing)
        return common_err_set(CANAL_ERR_PENDING,
                              "buffer=%d is being released (MPIX_Buffer_release): no new "
                              "operations may use it",
                              handle);
    return check_range("registered buffer", offset, lo, hi, b->len);
}

canal_status_t adi_mgd_buf_check(int handle, size_t offset, ptrdiff_t lo, ptrdiff_t hi)
{
    canal_status_t st;
    mgd_lock();
    st = buf_check_locked(handle, offset, lo, hi);
    mgd_unlock();
    return st;
}

/* ---------------------------------------------------------------- op life cycle */
static canal_status_t op_new(const adi_mgd_seg_t *segs, int nseg, size_t count, dt_type_t *dt,
                             int is_send, int blocking, mgd_op_t **out)
{
    mgd_op_t *op = calloc(1, sizeof *op);
    canal_status_t st;

    if (op == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a managed operation");
    op->is_send = (uint8_t)is_send;
    op->blocking = (uint8_t)blocking;
    op->owner = pthread_self();
    op->nseg = nseg;
    op->segs = nseg <= 1 ? &op->one : calloc((size_t)nseg, sizeof *op->segs);
    if (op->segs == NULL) {
        free(op);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for %d segments", nseg);
    }
    op->count = count;
    op->dt = dt;
    if (dt != NULL)
        dt_retain(dt);
    for (int i = 0; i < nseg; i++) {
        mgd_seg_t *s = &op->segs[i];
        s->ref = segs[i].ref;
        s->jbuf = segs[i].ref != NULL ? 0 : segs[i].jbuf;
        s->addr = segs[i].addr;
        s->offset = segs[i].offset;
        if (dt != NULL) {
            if ((st = adi_mgd_span(dt, count, &s->lo, &s->hi)) < 0)
                goto out_free;
        } else {
            s->lo = 0;
            s->hi = (ptrdiff_t)segs[i].len;
        }
    }
    *out = op;
    return CANAL_OK;
out_free:
    if (op->segs != &op->one)
        free(op->segs);
    if (op->dt != NULL)
        dt_release(op->dt);
    free(op);
    return st;
}

static void op_free(mgd_op_t *op)
{
    if (op->alloc_arg_release != NULL)
        op->alloc_arg_release(op->alloc_arg);
    if (op->segs != &op->one)
        free(op->segs);
    if (op->dt != NULL)
        dt_release(op->dt);
    free(op->scratch);
    free(op);
}

/* Give back what the operation holds: pins, buffer uses. mgd_lock held.
 * Returns the release callbacks of buffers this was the last user of, to
 * run once the lock is dropped. */
static jbuf_cb_t *op_release(mgd_op_t *op)
{
    jbuf_cb_t *cbs = NULL, **tail = &cbs;
    for (int i = 0; i < op->nseg; i++) {
        mgd_seg_t *s = &op->segs[i];
        if (s->ref != NULL) {
            seg_unpin(s);
        } else if (s->jbuf > 0) {
            jbuf_t *b = jbuf_get(s->jbuf);
            if (b != NULL && --b->inflight == 0 && b->releasing && b->refcount == 0) {
                *tail = jbuf_destroy(b);
                while (*tail != NULL)
                    tail = &(*tail)->next;
            }
            s->jbuf = 0;
        }
    }
    return cbs;
}

/* Resolve every piece, take buffer uses, and for nonblocking operations pin
 * movable objects (or fall back to copying). mgd_lock held. */
static canal_status_t op_acquire(mgd_op_t *op)
{
    canal_status_t st = CANAL_OK;
    int i, refused = 0;

    for (i = 0; i < op->nseg; i++) {
        mgd_seg_t *s = &op->segs[i];
        if (s->ref != NULL) {
            char *p;
            if (!hooks_on) {
                st = common_err_set(CANAL_ERR_ARG,
                                    "no runtime hooks are registered (MPIX_Managed_register)");
                break;
            }
            p = hooks.resolve(s->ref, hooks.rt);
            if (p == NULL) {
                st = common_err_set(CANAL_ERR_NOTFOUND, "ref=%p names no live object", s->ref);
                break;
            }
            s->addr = p + s->offset;
            s->movable = hooks.can_move == NULL || hooks.can_move(s->ref, hooks.rt) != 0;
        } else if (s->jbuf > 0) {
            jbuf_t *b;
            if ((st = buf_check_locked(s->jbuf, s->offset, s->lo, s->hi)) < 0)
                break;
            b = jbuf_get(s->jbuf);
            b->inflight++;
            s->addr = (char *)b->base + s->offset;
        } else {
            s->addr = (char *)s->addr + s->offset;
        }
    }
    if (st < 0) {
        /* undo the buffer uses taken so far */
        for (int j = 0; j < i; j++)
            if (op->segs[j].ref == NULL && op->segs[j].jbuf > 0)
                jbuf_get(op->segs[j].jbuf)->inflight--;
        return st;
    }
    for (i = 0; i < op->nseg; i++)
        if (op->segs[i].ref != NULL) {
            stats.ops++;
            break;
        }
    if (op->blocking || op->kind != OP_DIRECT)
        return CANAL_OK;
    for (i = 0; i < op->nseg && !refused; i++) {
        mgd_seg_t *s = &op->segs[i];
        if (s->ref != NULL && s->movable && seg_pin(op, s) != 0)
            refused = 1;
    }
    if (refused) {
        for (i = 0; i < op->nseg; i++)
            seg_unpin(&op->segs[i]);
        op->bounce = 1;
        stats.copies++;
    }
    return CANAL_OK;
}

static size_t op_total_bytes(const mgd_op_t *op)
{
    size_t total = 0;
    if (op->dt != NULL)
        return op->count * dt_size(op->dt);
    for (int i = 0; i < op->nseg; i++)
        total += (size_t)(op->segs[i].hi - op->segs[i].lo);
    return total;
}

/* The datatype describing the pieces of a gather/scatter at their addresses
 * (relative to address 0, i.e. MPI_BOTTOM). */
static canal_status_t gather_type(const mgd_op_t *op, dt_type_t **out)
{
    size_t *blens = malloc(sizeof *blens * (size_t)op->nseg);
    ptrdiff_t *displs = malloc(sizeof *displs * (size_t)op->nseg);
    canal_status_t st;
    size_t n = 0;

    if (blens == NULL || displs == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for %d segments", op->nseg);
        goto out;
    }
    for (int i = 0; i < op->nseg; i++) {
        if (op->segs[i].hi == 0)
            continue;
        blens[n] = (size_t)op->segs[i].hi;
        displs[n] = (ptrdiff_t)(uintptr_t)op->segs[i].addr;
        n++;
    }
    st = dt_create_hindexed(n, blens, displs, dt_builtin(DT_BYTE), out);
    if (st == CANAL_OK && (st = dt_commit(*out)) < 0)
        dt_release(*out);
out:
    free(blens);
    free(displs);
    return st;
}

/* Copy the pieces' data into scratch (bounce send). */
static canal_status_t pack_pieces(mgd_op_t *op, size_t total)
{
    op->scratch = malloc(total ? total : 1);
    if (op->scratch == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory to copy %zu bytes", total);
    if (op->dt != NULL) {
        size_t done = 0;
        return dt_pack(op->segs[0].addr, op->count, op->dt, op->scratch, total, &done);
    }
    size_t off = 0;
    for (int i = 0; i < op->nseg; i++) {
        size_t n = (size_t)op->segs[i].hi;
        memcpy((char *)op->scratch + off, op->segs[i].addr, n);
        off += n;
    }
    return CANAL_OK;
}

/* Resolve the pieces again and copy `got` bytes of scratch into them (bounce
 * receive, at completion). mgd_lock held. */
static void unpack_pieces(mgd_op_t *op, size_t got)
{
    for (int i = 0; i < op->nseg; i++) {
        mgd_seg_t *s = &op->segs[i];
        if (s->ref != NULL && hooks_on) {
            char *p = hooks.resolve(s->ref, hooks.rt);
            if (p == NULL) {
                op->err = common_err_set(CANAL_ERR_NOTFOUND,
                                         "ref=%p died before its receive completed", s->ref);
                return;
            }
            s->addr = p + s->offset;
        }
    }
    if (op->dt != NULL) {
        size_t done = 0;
        dt_unpack(op->scratch, got, op->segs[0].addr, op->count, op->dt, &done);
        return;
    }
    size_t off = 0;
    for (int i = 0; i < op->nseg && off < got; i++) {
        size_t n = (size_t)op->segs[i].hi;
        if (n > got - off)
            n = got - off;
        memcpy(op->segs[i].addr, (char *)op->scratch + off, n);
        off += n;
    }
}

/* ---------------------------------------------------------------- completion */
/* The request's on_complete: runs once inside progress (device lock held),
 * in whichever thread completed the request. */
static void op_done(adi_request_t *r, void *arg)
{
    mgd_op_t *op = arg;
    jbuf_cb_t *cbs = NULL;

    mgd_lock();
    if (op->scratch != NULL && !op->is_send && !r->status.cancelled) {
        if (op->late_scratch) {
            /* The message landed in scratch (too long for the receive, or
             * no pin): copy what fits into the object, resolved now. */
            size_t elems = op->scratch_n < op->count ? op->scratch_n : op->count;
            size_t bytes = elems * dt_size(op->dt), done = 0;
            char *p = hooks_on ? hooks.resolve(op->segs[0].ref, hooks.rt) : NULL;
            void *tmp = malloc(bytes ? bytes : 1);
            if (p != NULL && tmp != NULL &&
                dt_pack(op->scratch_base, elems, op->dt, tmp, bytes, &done) == CANAL_OK)
                dt_unpack(tmp, done, p + op->segs[0].offset, elems, op->dt, &done);
            else if (op->err == 0)
                op->err = p == NULL ? CANAL_ERR_NOTFOUND : CANAL_ERR_NOMEM;
            free(tmp);
            if (op->trunc) {
                r->status.bytes = op->count * dt_size(op->dt);
                if (r->status.error == 0)
                    r->status.error = CANAL_ERR_TRUNCATE;
            }
        } else if (op->bounce) {
            unpack_pieces(op, r->status.bytes);
        }
    }
    if (op->err != 0 && (r->status.error == 0 || r->status.error == CANAL_ERR_NOMEM))
        r->status.error = op->err;
    if (op->blocking && !op->ever_pinned)
        for (int i = 0; i < op->nseg; i++)
            if (op->segs[i].ref != NULL && op->segs[i].movable) {
                stats.pins_avoided++;
                break;
            }
    reg_remove(op);
    cbs = op_release(op);
    op->held = 0;
    mgd_unlock();
    jbuf_run_cbs(cbs);
    free(op->scratch);
    op->scratch = NULL;
    if (op->blocking)
        __atomic_store_n(&op->finished, 1, __ATOMIC_RELEASE); /* the waiter frees op */
    else
        op_free(op);
}

/* A receive matched at alloc_buf time without its object (too long, or no
 * pin): n elements of dt land in scratch. mgd_lock held. */
static canal_status_t late_scratch(mgd_op_t *op, size_t n, ptrdiff_t lo, ptrdiff_t hi)
{
    size_t span = (size_t)(hi - lo);
    op->scratch = malloc(span ? span : 1);
    if (op->scratch == NULL)
        return op->err = common_err_set(CANAL_ERR_NOMEM, "no memory for %zu bytes", span);
    op->scratch_base = (char *)op->scratch - lo;
    op->scratch_n = n;
    op->late_scratch = 1;
    return CANAL_OK;
}

/* The request's alloc_buf: a message of `bytes` matched (device lock held).
 *
 * The rule for addresses taken in another thread: deferring the pin of a
 * blocking operation to its thread's next safepoint is safe only if that
 * thread takes the address itself (its wait hook then pins before the
 * runtime's safepoint). When another thread's progress matches the message
 * (MPI_THREAD_MULTIPLE, a runtime network thread), the owner may already be
 * inside its safepoint, past the pinning, waiting for the world to stop; so
 * the object is pinned at once, as for a nonblocking operation. */
static void *op_alloc_buf(size_t bytes, void *arg)
{
    mgd_op_t *op = arg;
    adi_request_t *r = op->req;
    size_t unit = dt_size(op->dt), n = unit ? (bytes + unit - 1) / unit : 0;
    ptrdiff_t lo = 0, hi = 0;
    canal_status_t st;
    void *ret = NULL;

    if (adi_mgd_span(op->dt, n, &lo, &hi) < 0) {
        op->err = CANAL_ERR_ARG;
        return NULL;
    }
    if (op->kind == OP_USER) {
        adi_mgd_target_t t = {0};
        int rc = op->alloc_fn(n, r->status.source, r->status.tag, op->alloc_arg, &t);
        if (rc != 0) {
            op->err = rc > 0 ? rc : CANAL_ERR_ARG;
            return NULL;
        }
        mgd_lock();
        op->one.ref = t.ref;
        op->one.addr = t.addr;
        op->one.offset = t.offset;
        op->one.lo = lo;
        op->one.hi = hi;
        op->one.jbuf = 0;
        op->segs = &op->one;
        op->count = n;
        if (t.ref == NULL) {
            /* native memory: nothing to track */
            op->nseg = 0;
            mgd_unlock();
            return t.addr == NULL ? NULL : (char *)t.addr + t.offset;
        }
        if ((st = adi_mgd_ref_check(t.ref, t.offset, lo, hi)) < 0) {
            /* No room for the message (or no object): nothing lands, the
             * receive reports truncation (or the dead reference). */
            op->err = st == CANAL_ERR_ARG ? CANAL_ERR_TRUNCATE : st;
            LOG_DEBUG("the receive buffer callback returned a target that cannot hold the "
                      "%zu-byte message: %s",
                      bytes, common_err_detail());
            mgd_unlock();
            return NULL;
        }
        op->nseg = 1;
        op->kind = OP_DIRECT; /* from now on like an operation resolved at start */
        if (op->blocking && !pthread_equal(op->owner, pthread_self()))
            op->blocking = 0; /* matched in another thread: pin now (rule above) */
        if (op_acquire(op) < 0) {
            op->err = CANAL_ERR_NOTFOUND;
            op->nseg = 0;
            mgd_unlock();
            return NULL;
        }
        if (op->bounce) {
            /* the pin was refused: land in scratch, copy at completion */
            if (late_scratch(op, n, lo, hi) < 0) {
                mgd_unlock();
                return NULL;
            }
            ret = op->scratch_base;
        } else {
            op->held = 1;
            ret = op->one.addr;
        }
        mgd_unlock();
        return ret;
    }

    /* OP_LATE: the blocking receive's object, resolved now. */
    mgd_lock();
    if (!hooks_on || (ret = hooks.resolve(op->one.ref, hooks.rt)) == NULL) {
        op->err =
            common_err_set(CANAL_ERR_NOTFOUND, "ref=%p died before a message matched", op->one.ref);
        mgd_unlock();
        return NULL;
    }
    if (n > op->count) {
        if (late_scratch(op, n, lo, hi) < 0) {
            mgd_unlock();
            return NULL;
        }
        op->trunc = 1;
        mgd_unlock();
        return op->scratch_base;
    }
    op->one.addr = (char *)ret + op->one.offset;
    op->held = 1;
    if (!pthread_equal(op->owner, pthread_self()) && op->one.movable &&
        seg_pin(op, &op->one) != 0) {
        /* Matched in another thread (the rule above op_alloc_buf): the
         * object must be pinned now; refused, the message lands in scratch. */
        op->held = 0;
        stats.copies++;
        if (late_scratch(op, n, lo, hi) < 0) {
            mgd_unlock();
            return NULL;
        }
        mgd_unlock();
        return op->scratch_base;
    }
    mgd_unlock();
    return op->one.addr;
}

static void op_abort(mgd_op_t *op)
{
    jbuf_cb_t *cbs;
    mgd_lock();
    reg_remove(op);
    cbs = op_release(op);
    mgd_unlock();
    jbuf_run_cbs(cbs);
    op_free(op);
}

static adi_request_t *op_request(mgd_op_t *op, adi_req_kind_t kind)
{
    adi_request_t *r = adi_request_alloc(kind);
    if (r == NULL)
        return NULL;
    r->on_complete = op_done;
    r->on_complete_arg = op;
    if (op->blocking)
        r->mpi_ext = op;
    op->req = r;
    return r;
}

static void safepoint_at_entry(int blocking)
{
    int on;
    mgd_lock();
    on = blocking && hooks_on && (hooks.flags & ADI_MGD_SAFEPOINT_AT_ENTRY);
    mgd_unlock();
    if (on)
        mgd_wait_hook(NULL);
}

canal_status_t adi_mgd_send(const adi_mgd_seg_t *segs, int nseg, size_t count, dt_type_t *dt,
                            int blocking, int dest, int my_rank, int tag, int context,
                            adi_send_mode_t mode, adi_request_t **req_out)
{
    mgd_op_t *op = NULL;
    dt_type_t *built = NULL, *sdt = dt;
    const void *buf;
    size_t scount = count;
    adi_request_t *r;
    canal_status_t st;

    safepoint_at_entry(blocking);
    if ((st = op_new(segs, nseg, count, dt, 1, blocking, &op)) < 0)
        return st;
    mgd_lock();
    st = op_acquire(op);
    if (st == CANAL_OK) {
        /* listed before the device sees an address, so a collector never misses it */
        op->held = !op->bounce;
        reg_insert(op);
    }
    mgd_unlock();
    if (st < 0) {
        op_free(op);
        return st;
    }
    if (op->bounce) {
        size_t total = op_total_bytes(op);
        if ((st = pack_pieces(op, total)) < 0)
            goto out_abort;
        mgd_lock();
        op->refs_done = 1; /* the data is copied: the objects are free to move */
        mgd_unlock();
        buf = op->scratch;
        scount = total;
        sdt = dt_builtin(DT_BYTE);
    } else if (dt != NULL) {
        buf = op->segs[0].addr;
    } else if (nseg == 1) {
        buf = op->segs[0].addr;
        scount = (size_t)op->segs[0].hi;
        sdt = dt_builtin(DT_BYTE);
    } else {
        if ((st = gather_type(op, &built)) < 0)
            goto out_abort;
        buf = NULL;
        scount = 1;
        sdt = built;
    }
    r = op_request(op, ADI_REQ_SEND);
    if (r == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for a request");
        goto out_abort;
    }
    st = adi_isend_into(r, buf, scount, sdt, dest, my_rank, tag, context, mode);
    if (built != NULL)
        dt_release(built);
    built = NULL;
    if (st < 0) {
        r->on_complete = NULL;
        adi_request_free(r);
        goto out_abort;
    }
    *req_out = r;
    return CANAL_OK;
out_abort:
    if (built != NULL)
        dt_release(built);
    op_abort(op);
    return st;
}

canal_status_t adi_mgd_recv(const adi_mgd_seg_t *segs, int nseg, size_t count, dt_type_t *dt,
                            int blocking, int src, int tag, int context, adi_request_t **req_out)
{
    mgd_op_t *op = NULL;
    dt_type_t *built = NULL, *rdt = dt;
    void *buf;
    size_t rcount = count;
    adi_request_t *r;
    canal_status_t st;

    safepoint_at_entry(blocking);
    if ((st = op_new(segs, nseg, count, dt, 0, blocking, &op)) < 0)
        return st;
    mgd_lock();
    st = op_acquire(op);
    if (st == CANAL_OK) {
        if (blocking && nseg == 1 && dt != NULL && op->segs[0].ref != NULL && op->segs[0].movable) {
            /* Resolved again when a message matches: until then nothing is held. */
            op->kind = OP_LATE;
            op->held = 0;
        } else {
            op->held = !op->bounce;
        }
        reg_insert(op);
    }
    mgd_unlock();
    if (st < 0) {
        op_free(op);
        return st;
    }
    if (op->kind == OP_LATE) {
        buf = NULL;
    } else if (op->bounce) {
        size_t total = op_total_bytes(op);
        op->scratch = malloc(total ? total : 1);
        if (op->scratch == NULL) {
            st = common_err_set(CANAL_ERR_NOMEM, "no memory for a %zu-byte bounce buffer", total);
            goto out_abort;
        }
        buf = op->scratch;
        rcount = total;
        rdt = dt_builtin(DT_BYTE);
    } else if (dt != NULL) {
        buf = op->segs[0].addr;
    } else if (nseg == 1) {
        buf = op->segs[0].addr;
        rcount = (size_t)op->segs[0].hi;
        rdt = dt_builtin(DT_BYTE);
    } else {
        if ((st = gather_type(op, &built)) < 0)
            goto out_abort;
        buf = NULL;
        rcount = 1;
        rdt = built;
    }
    r = op_request(op, ADI_REQ_RECV);
    if (r == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for a request");
        goto out_abort;
    }
    if (op->kind == OP_LATE) {
        r->alloc_buf = op_alloc_buf;
        r->alloc_arg = op;
    }
    st = adi_irecv_into(r, buf, rcount, rdt, src, tag, context);
    if (built != NULL)
        dt_release(built);
    built = NULL;
    if (st < 0) {
        r->on_complete = NULL;
        adi_request_free(r);
        goto out_abort;
    }
    *req_out = r;
    return CANAL_OK;
out_abort:
    if (built != NULL)
        dt_release(built);
    op_abort(op);
    return st;
}

canal_status_t adi_mgd_recv_alloc(adi_mgd_alloc_fn fn, void *arg, void (*arg_release)(void *),
                                  dt_type_t *dt, int blocking, int src, int tag, int context,
                                  adi_request_t **req_out)
{
    mgd_op_t *op = NULL;
    adi_request_t *r;
    canal_status_t st;

    safepoint_at_entry(blocking);
    if ((st = op_new(NULL, 0, 0, dt, 0, blocking, &op)) < 0) {
        if (arg_release != NULL)
            arg_release(arg);
        return st;
    }
    op->kind = OP_USER;
    op->alloc_arg_release = arg_release;
    op->alloc_fn = fn;
    op->alloc_arg = arg;
    mgd_lock();
    reg_insert(op);
    mgd_unlock();
    r = op_request(op, ADI_REQ_RECV);
    if (r == NULL) {
        op_abort(op);
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a request");
    }
    r->alloc_buf = op_alloc_buf;
    r->alloc_arg = op;
    st = adi_irecv_into(r, NULL, 0, dt, src, tag, context);
    if (st < 0) {
        r->on_complete = NULL;
        adi_request_free(r);
        op_abort(op);
        return st;
    }
    *req_out = r;
    return CANAL_OK;
}

static int op_finished(void *arg)
{
    return __atomic_load_n(&((mgd_op_t *)arg)->finished, __ATOMIC_ACQUIRE);
}

canal_status_t adi_mgd_wait(adi_request_t *r)
{
    mgd_op_t *op = r->mpi_ext;
    if (op == NULL)
        return adi_wait(r);
    adi_wait_until(op_finished, op);
    r->mpi_ext = NULL;
    op_free(op);
    return CANAL_OK;
}

/* ---------------------------------------------------------------- the collector's query */
canal_status_t adi_mgd_inflight(adi_mgd_use_t *uses, int max, int *count_out)
{
    int n = 0;
    mgd_lock();
    for (mgd_op_t *op = reg_first(); op != NULL; op = reg_next(op)) {
        if (op->refs_done)
            continue;
        for (int i = 0; i < op->nseg; i++) {
            mgd_seg_t *s = &op->segs[i];
            if (s->ref == NULL)
                continue;
            if (n < max && uses != NULL) {
                uses[n].ref = s->ref;
                uses[n].flags = (s->pinned ? ADI_MGD_PINNED : 0) |
                                (op->held && !op->bounce ? ADI_MGD_HELD : 0) |
                                (s->movable ? ADI_MGD_MOVABLE : 0) |
                                (op->is_send ? ADI_MGD_SEND : 0);
            }
            n++;
        }
    }
    mgd_unlock();
    *count_out = n;
    return CANAL_OK;
}

/* ---------------------------------------------------------------- registered buffers */
static canal_status_t jbuf_slot(int *slot_out)
{
    for (int i = 0; i < njbufs; i++)
        if (!jbufs[i].used) {
            *slot_out = i;
            return CANAL_OK;
        }
    if (njbufs == JBUF_MAX)
        return common_err_set(CANAL_ERR_LIMIT, "too many registered buffers (%d)", JBUF_MAX);
    {
        int cap = njbufs ? njbufs * 2 : 16;
        jbuf_t *t;
        if (cap > JBUF_MAX)
            cap = JBUF_MAX;
        t = realloc(jbufs, sizeof *t * (size_t)cap);
        if (t == NULL)
            return common_err_set(CANAL_ERR_NOMEM, "no memory for registered buffers");
        memset(t + njbufs, 0, sizeof *t * (size_t)(cap - njbufs));
        for (int i = njbufs; i < cap; i++)
            t[i].gen = 1;
        jbufs = t;
        *slot_out = njbufs;
        njbufs = cap;
    }
    return CANAL_OK;
}

canal_status_t adi_mgd_buf_register(void *base, size_t len, int *handle_out)
{
    canal_status_t st;
    int slot = 0;
    jbuf_t *b;

    if (base == NULL || len == 0)
        return common_err_set(CANAL_ERR_ARG, "%s", base == NULL ? "base is NULL" : "length is 0");
    mgd_lock();
    for (int i = 0; i < njbufs; i++) {
        b = &jbufs[i];
        if (b->used && !b->releasing && b->base == base && b->len == len) {
            b->refcount++;
            *handle_out = jbuf_handle(i);
            mgd_unlock();
            return CANAL_OK;
        }
    }
    if ((st = jbuf_slot(&slot)) < 0) {
        mgd_unlock();
        return st;
    }
    b = &jbufs[slot];
    b->used = 1;
    b->base = base;
    b->len = len;
    b->refcount = 1;
    b->inflight = 0;
    b->releasing = 0;
    b->cbs = NULL;
    b->nregs = 0;
    /* Register once with every channel that registers memory (ofi: NIC
     * registration), so later rendezvous from the buffer hit the channel's
     * cache. Best effort: a refusal only costs the speed-up. */
    for (int peer = 0; peer < adi_dev.size && adi_dev.peers != NULL; peer++) {
        ch_endpoint_t *ch = adi_dev.peers[peer].ch;
        int seen = 0;
        if (ch == NULL || !adi_dev.peers[peer].has_rdma)
            continue;
        for (int k = 0; k < b->nregs; k++)
            seen |= b->regs[k].ch == ch;
        if (seen || b->nregs == 4)
            continue;
        if (ch_mem_register(ch, base, len, &b->regs[b->nregs].key) == CANAL_OK) {
            b->regs[b->nregs].ch = ch;
            b->nregs++;
        } else {
            LOG_INFO("channel %s did not register buffer %p (%zu bytes): %s", ch_name(ch), base,
                     len, common_err_detail());
        }
    }
    *handle_out = jbuf_handle(slot);
    mgd_unlock();
    return CANAL_OK;
}

canal_status_t adi_mgd_buf_deregister(int handle)
{
    jbuf_t *b;
    jbuf_cb_t *cbs = NULL;

    mgd_lock();
    b = jbuf_get(handle);
    if (b == NULL || b->releasing) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_NOTFOUND,
                              "buffer=%d is not a registered buffer (never registered, already "
                              "deregistered, or released)",
                              handle);
    }
    if (b->refcount == 1 && b->inflight > 0) {
        canal_status_t st = common_err_set(
            CANAL_ERR_PENDING,
            "buffer=%d (%zu bytes at %p) is still used by %d incomplete operation%s; complete "
            "them first or use MPIX_Buffer_release",
            handle, b->len, b->base, b->inflight, b->inflight == 1 ? "" : "s");
        mgd_unlock();
        return st;
    }
    if (--b->refcount == 0)
        cbs = jbuf_destroy(b);
    mgd_unlock();
    jbuf_run_cbs(cbs);
    return CANAL_OK;
}

canal_status_t adi_mgd_buf_release(int handle, void (*cb)(void *base, size_t len, void *arg),
                                   void *arg)
{
    jbuf_t *b;
    jbuf_cb_t *c, **pp, *run = NULL;

    mgd_lock();
    b = jbuf_get(handle);
    if (b == NULL || b->releasing) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_NOTFOUND,
                              "buffer=%d is not a registered buffer (never registered, already "
                              "deregistered, or released)",
                              handle);
    }
    c = calloc(1, sizeof *c);
    if (c == NULL) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a release callback");
    }
    c->fn = cb;
    c->arg = arg;
    for (pp = &b->cbs; *pp != NULL; pp = &(*pp)->next)
        ;
    *pp = c;
    if (--b->refcount == 0) {
        b->releasing = 1;
        if (b->inflight == 0)
            run = jbuf_destroy(b);
    }
    mgd_unlock();
    jbuf_run_cbs(run);
    return CANAL_OK;
}

canal_status_t adi_mgd_buf_in_use(int handle, size_t offset, size_t len, int *flag_out)
{
    jbuf_t *b;
    int flag = 0;

    mgd_lock();
    b = jbuf_get(handle);
    if (b == NULL) {
        mgd_unlock();
        return common_err_set(CANAL_ERR_NOTFOUND,
                              "buffer=%d is not a registered buffer (never registered, or "
                              "already deregistered)",
                              handle);
    }
    if (offset > b->len || len > b->len - offset) {
        size_t blen = b->len;
        mgd_unlock();
        return common_err_set(CANAL_ERR_ARG,
                              "offset=%zu length=%zu is outside buffer=%d of %zu bytes", offset,
                              len, handle, blen);
    }
    for (mgd_op_t *op = reg_first(); op != NULL && !flag && len > 0; op = reg_next(op)) {
        for (int i = 0; i < op->nseg; i++) {
            mgd_seg_t *s = &op->segs[i];
            ptrdiff_t a, z;
            if (s->ref != NULL || s->jbuf != handle)
                continue;
            a = (ptrdiff_t)s->offset + s->lo;
            z = (ptrdiff_t)s->offset + s->hi;
            if (a < z && a < (ptrdiff_t)(offset + len) && (ptrdiff_t)offset < z) {
                flag = 1;
                break;
            }
        }
    }
    mgd_unlock();
    *flag_out = flag;
    return CANAL_OK;
}
