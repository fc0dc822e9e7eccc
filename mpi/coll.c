/*
 * Collective communication, the MPI front (MPI 4.0 chapter 6, and the
 * neighbourhood collectives of chapter 8): every blocking, nonblocking
 * (MPI_I...) and persistent (..._init) collective, in int and large-count
 * (_c) forms, whose entry points are generated from the API table
 * (mpi/api/); they check the communicator only. Each implementation
 * (mpi_gather_impl ..., shared by the int and _c forms) fills a call_t with
 * its arguments and hands it to coll_call(), which checks the other
 * arguments where they matter on this rank (raising the MPICH error
 * class: MPI_ERR_COMM, MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_TYPE,
 * MPI_ERR_OP, MPI_ERR_BUFFER, MPI_ERR_ARG ...), widens int arrays to
 * MPI_Count/MPI_Aint, records the collective into a schedule (coll/) and
 * then runs it: to the end (blocking), in the background with a request
 * (nonblocking), or not yet (persistent: MPI_Start runs it).
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "comm_impl.h"

/* ---------------------------------------------------------------- coll/'s host
 * What coll/ reads of this layer (coll_host_t in coll/coll.h): the fields
 * of a communicator, the node map, datatype handles and the reduction
 * operations. Set when libmpi is loaded, before any collective can run. */
static int host_rank(const mpi_comm_t *c) { return c->rank; }
static int host_size(const mpi_comm_t *c) { return c->size; }
static int host_peer_size(const mpi_comm_t *c) { return c->peer_size; }
static int host_is_inter(const mpi_comm_t *c) { return c->is_inter; }
static int host_context(const mpi_comm_t *c) { return c->context; }
static int host_peer_job_rank(const mpi_comm_t *c, int r) { return mpi_comm_peer_job_rank(c, r); }
static const int *host_job_ranks(const mpi_comm_t *c) { return c->peer_job_ranks; }
static mpi_comm_t *host_local(const mpi_comm_t *c) { return c->local_comm; }
static void **host_coll_slot(mpi_comm_t *c) { return &c->coll; }
static mpi_comm_t *host_world(void) { return &mpi_comm_world_obj; }

static int host_comm_hold(mpi_comm_t *c)
{
    int n = __atomic_load_n(&c->refcount, __ATOMIC_RELAXED);
    do
        if (n == 0)
            return 0; /* (mpi_comm_destroy is running or ran) */
    while (!__atomic_compare_exchange_n(&c->refcount, &n, n + 1, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED));
    return 1;
}

static const int *host_job_nodes(int *nnodes_out)
{
    *nnodes_out = mpi_pmi.nnodes;
    return mpi_pmi.node_of;
}

__attribute__((constructor)) static void coll_host_init(void)
{
    static const coll_host_t host = {
        .comm_rank = host_rank,
        .comm_size = host_size,
        .comm_peer_size = host_peer_size,
        .comm_is_inter = host_is_inter,
        .comm_context = host_context,
        .comm_peer_job_rank = host_peer_job_rank,
        .comm_job_ranks = host_job_ranks,
        .comm_local = host_local,
        .comm_coll_slot = host_coll_slot,
        .comm_world = host_world,
        .comm_hold = host_comm_hold,
        .comm_drop = mpi_comm_release,
        .job_nodes = host_job_nodes,
        .dt_get = mpi_dt_get,
        .op_valid = mpi_op_valid,
        .op_is_commutative = mpi_op_is_commutative,
        .op_builtin = mpi_op_builtin,
        .op_apply = mpi_op_apply,
        .op_retain = mpi_op_retain,
        .op_release = mpi_op_release,
    };
    coll_host_set(&host);
}

#pragma weak mpi_topo_neighbors

typedef enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT } coll_mode_t;

/* The arguments as the MPI function got them. Arrays are int[] unless big
 * (MPI_Count[] counts and MPI_Aint[] displacements of the _c functions);
 * sdispls/rdispls_aint marks the MPI_Aint displacements that neighbour
 * alltoallw takes even in its int form. */
typedef struct {
    coll_kind_t kind;
    const void *sendbuf;
    MPI_Count sendcount;
    const void *sendcounts, *sdispls;
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    MPI_Count recvcount;
    const void *recvcounts, *rdispls;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
    MPI_Op op;
    int root;
    int big;
    int displs_aint;
} call_t;

/* ---------------------------------------------------------------- module hooks */
/* coll/ keeps per-communicator state (tag sequence, node layout) in
 * c->coll; it goes with the communicator. */
static int coll_module_init(void)
{
    mpi_request_shared_init(); /* (the empty nonblocking collectives' request) */
    mpi_comm_add_free_hook(coll_comm_release);
    return MPI_SUCCESS;
}

static void coll_module_finalize(void)
{
    coll_comm_release(&mpi_comm_world_obj);
    coll_comm_release(&mpi_comm_self_obj);
    coll_sched_pool_drain();
}

__attribute__((constructor)) static void coll_module_register(void)
{
    mpi_register_hook(coll_module_init, coll_module_finalize);
}

/* ---------------------------------------------------------------- persistent requests */
typedef struct {
    const mpi_persist_ops_t *ops; /* first member, as mpi/request.c expects */
    coll_sched_t *sched;
} coll_persist_t;

static int persist_start(adi_request_t *r, const char *fn)
{
    coll_persist_t *ps = r->mpi_ext;
    adi_request_t *inner = adi_request_alloc(ADI_REQ_COLL);
    canal_status_t st;

    if (inner == NULL)
        return mpi_err_raise(mpi_comm_get(r->owner_handle), MPI_ERR_NO_MEM, fn,
                             "no memory for a request");
    inner->owner_handle = r->owner_handle;
    r->inner = inner;
    st = coll_sched_restart(ps->sched, inner);
    if (st < 0) {
        r->inner = NULL;
        adi_request_free(inner);
        return mpi_err_status(mpi_comm_get(r->owner_handle), st, fn);
    }
    return MPI_SUCCESS;
}

static void persist_release(adi_request_t *r)
{
    coll_persist_t *ps = r->mpi_ext;
    coll_sched_free(ps->sched); /* deferred by coll/ while it still runs */
    free(ps);
    r->mpi_ext = NULL;
}

static const mpi_persist_ops_t persist_ops = {persist_start, persist_release};

/* ---------------------------------------------------------------- checks */
/* Every step below stops the call on a nonzero result: a raise returns the
 * handler's code, or MPI_CANAL_HANDLED when the user's handler cleared it
 * (mpi_err_fail, and the shared mpi_check_dt and mpi_check_op_arg), which
 * coll_call turns back into MPI_SUCCESS without running anything on the
 * bad argument. */
static int is_in_place(const void *p)
{
    return p == MPI_IN_PLACE;
}

static int check_root(mpi_comm_t *c, int root, const char *fn)
{
    if (c->is_inter) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_size))
            return MPI_SUCCESS;
        return mpi_err_fail(c, MPI_ERR_ROOT, fn,
                             "root=%d is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
                             "group [0, %d)",
                             root, c->peer_size);
    }
    if (root < 0 || root >= c->size)
        return mpi_err_fail(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    return MPI_SUCCESS;
}

/* A buffer that must be there: NULL where count elements of a predefined
 * datatype move bytes (MPI_BOTTOM with a derived datatype of absolute
 * addresses is a legal NULL). */
static inline int buf_missing(const void *buf, MPI_Count count, MPI_Datatype dth, dt_type_t *dt)
{
    return buf == NULL && count > 0 && dt_size(dt) > 0 && mpi_handle_kind(dth) == MPI_HKIND_BUILTIN;
}

/* count, datatype and buffer of one side of a call. */
static int check_side(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype dth,
                      const char *what, const char *fn, dt_type_t **dt_out)
{
    int err;
    if (count < 0)
        return mpi_err_fail(c, MPI_ERR_COUNT, fn, "%scount=%lld is negative", what,
                             (long long)count);
    if ((err = mpi_check_dt(c, dth, fn, dt_out)))
        return err;
    if (buf_missing(buf, count, dth, *dt_out))
        return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "%sbuf is NULL with %scount=%lld", what, what,
                             (long long)count);
    return MPI_SUCCESS;
}

/* The buffer of a v side (its counts and displacements widened):
 * check_side's MPI_ERR_BUFFER per block (buf_missing) where the block lies at
 * NULL, its displacement 0 too, as MPICH checks: MPI_BOTTOM with absolute
 * displacements is legal with predefined datatypes as well. dths/dts: the w
 * forms' datatypes a block, else dth/dt. */
static int check_v_buf(mpi_comm_t *c, const void *buf, const MPI_Count *counts,
                       const MPI_Aint *displs, int n, MPI_Datatype dth, dt_type_t *dt,
                       const MPI_Datatype *dths, dt_type_t *const *dts, const char *what,
                       const char *fn)
{
    if (buf != NULL)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        if (displs[i] == 0 &&
            buf_missing(buf, counts[i], dths != NULL ? dths[i] : dth, dts != NULL ? dts[i] : dt))
            return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "%sbuf is NULL with %scounts[%d]=%lld",
                                 what, what, i, (long long)counts[i]);
    return MPI_SUCCESS;
}

static MPI_Count count_at(const void *arr, int big, int i)
{
    return big ? ((const MPI_Count *)arr)[i] : ((const int *)arr)[i];
}

static MPI_Aint displ_at(const void *arr, int aint, int i)
{
    return aint ? ((const MPI_Aint *)arr)[i] : ((const int *)arr)[i];
}

/* The arrays of up to this many entries are widened into the caller's
 * storage (widened_t's small arrays) instead of malloc'd: a v collective's
 * root on a few ranks malloc'd and freed two arrays a call (np4 scatterv
 * of 1 B, the root: about 400 of its 3,200 instructions). */
enum { WIDE_SMALL = 16 };

/* A counts array of n entries, widened into *out: small (WIDE_SMALL
 * entries) when it fits, else malloc'd. */
static int take_counts(mpi_comm_t *c, const void *arr, int big, int n, const char *what,
                       const char *fn, MPI_Count **out, MPI_Count *small)
{
    MPI_Count *w;
    *out = NULL;
    if (n > 0 && arr == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    w = n <= WIDE_SMALL ? small : malloc(sizeof(MPI_Count) * (size_t)n);
    if (w == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "no memory for %d counts", n);
    for (int i = 0; i < n; i++) {
        w[i] = count_at(arr, big, i);
        if (w[i] < 0) {
            if (w != small)
                free(w);
            return mpi_err_fail(c, MPI_ERR_COUNT, fn, "%s[%d]=%lld is negative", what, i,
                                 (long long)count_at(arr, big, i));
        }
    }
    *out = w;
    return MPI_SUCCESS;
}

static int take_displs(mpi_comm_t *c, const void *arr, int aint, int n, const char *what,
                       const char *fn, MPI_Aint **out, MPI_Aint *small)
{
    MPI_Aint *w;
    *out = NULL;
    if (n > 0 && arr == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    w = n <= WIDE_SMALL ? small : malloc(sizeof(MPI_Aint) * (size_t)n);
    if (w == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "no memory for %d displacements", n);
    for (int i = 0; i < n; i++)
        w[i] = displ_at(arr, aint, i);
    *out = w;
    return MPI_SUCCESS;
}

/* Check the datatypes of alltoallw and keep their engine types in
 * *dts_out (malloc'd, n entries) for the aliasing check. */
static int check_types(mpi_comm_t *c, const MPI_Datatype *types, int n, const char *what,
                       const char *fn, dt_type_t ***dts_out)
{
    dt_type_t **dts;
    int err;
    *dts_out = NULL;
    if (n > 0 && types == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    dts = malloc(sizeof(dt_type_t *) * (size_t)(n > 0 ? n : 1));
    if (dts == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "no memory for %d datatypes", n);
    for (int i = 0; i < n; i++) {
        if ((err = mpi_check_dt(c, types[i], fn, &dts[i]))) {
            free(dts);
            return err;
        }
    }
    *dts_out = dts;
    return MPI_SUCCESS;
}

static int check_op(mpi_comm_t *c, MPI_Op op, dt_type_t *dt, const char *fn)
{
    char msg[200];
    int cls = coll_op_check(op, dt, msg, sizeof msg);
    if (cls != MPI_SUCCESS)
        return mpi_err_fail(c, cls, fn, "%s", msg);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- aliasing
 * sendbuf and recvbuf alias when a byte this rank sends (or reads) is also a
 * byte it receives into: the byte ranges of the blocks that really move data
 * here are compared, so empty blocks (count 0, or a datatype of size 0) never
 * alias, whatever their pointers (mpi4py passes one pointer for every empty
 * buffer). A block spans its elements' true extents; holes inside a derived
 * datatype are not looked into. */
typedef struct {
    intptr_t lo, hi; /* bytes [lo, hi); empty when lo == hi */
} span_t;

/* The span of count elements of a contiguous dt (one block of count * size
 * bytes at true_lb) at buf + offset: from the type's head, without the
 * calls of span_of's general case. 0 when it cannot say (not contiguous,
 * nothing moves, or the arithmetic overflows): span_of then decides. */
static inline int span_contig(const void *buf, MPI_Aint offset, MPI_Count count, dt_type_t *dt,
                              span_t *s)
{
    intptr_t base, len;
    if (buf == NULL || buf == MPI_IN_PLACE || count <= 0 || dt == NULL || !dt_is_contig(dt) ||
        dt_contig_size(dt) == 0 ||
        __builtin_add_overflow((intptr_t)buf, (intptr_t)offset, &base) ||
        __builtin_add_overflow(base, (intptr_t)dt_contig_lb(dt), &base) ||
        __builtin_mul_overflow((intptr_t)count, (intptr_t)dt_contig_size(dt), &len) ||
        __builtin_add_overflow(base, len, &s->hi))
        return 0;
    s->lo = base;
    return 1;
}

/* count elements of dt at buf + offset (bytes); empty if nothing moves or
 * the arithmetic overflows (then there is nothing sound to check). */
static span_t span_of(const void *buf, MPI_Aint offset, MPI_Count count, dt_type_t *dt)
{
    span_t s = {0, 0};
    intptr_t base, last;
    if (span_contig(buf, offset, count, dt, &s))
        return s;
    if (buf == NULL || buf == MPI_IN_PLACE || count <= 0 || dt == NULL || dt_size(dt) == 0)
        return s;
    if (__builtin_add_overflow((intptr_t)buf, (intptr_t)offset, &base) ||
        __builtin_add_overflow(base, (intptr_t)dt_true_lb(dt), &base) ||
        __builtin_mul_overflow((intptr_t)(count - 1), (intptr_t)dt_extent(dt), &last) ||
        __builtin_add_overflow(base, last, &last))
        return s;
    s.lo = last < base ? last : base;
    if (__builtin_add_overflow(last < base ? base : last, (intptr_t)dt_true_extent(dt), &s.hi) ||
        s.hi <= s.lo)
        s.lo = s.hi = 0;
    return s;
}

/* The blocks one side of a collective moves at this rank: n blocks at buf;
 * block i has counts[i] (or count) elements of dts[i] (or dt), at displs[i]
 * extents of dt (bytes when displs_bytes), or right after block i-1 when
 * displs is NULL. */
typedef struct {
    const void *buf;
    int n;
    MPI_Count count;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    int displs_bytes;
    dt_type_t *dt;
    dt_type_t *const *dts;
} blocks_t;

/* (inline, and a contiguous block's span without span_of's call: a v
 * collective's root takes one per rank, about 120 instructions each
 * through span_of) */
static inline span_t block_span(const blocks_t *b, int i)
{
    dt_type_t *dt = b->dts != NULL ? b->dts[i] : b->dt;
    MPI_Count count = b->counts != NULL ? b->counts[i] : b->count;
    MPI_Aint off;
    if (dt == NULL)
        return (span_t){0, 0};
    if (b->displs == NULL && i == 0) {
        off = 0;
    } else if (b->displs == NULL) {
        if (__builtin_mul_overflow((MPI_Aint)i, (MPI_Aint)count, &off) ||
            __builtin_mul_overflow(off, (MPI_Aint)dt_extent(dt), &off))
            return (span_t){0, 0};
    } else if (b->displs_bytes) {
        off = b->displs[i];
    } else if (__builtin_mul_overflow(b->displs[i], (MPI_Aint)dt_extent(dt), &off)) {
        return (span_t){0, 0};
    }
    {
        span_t s;
        if (span_contig(b->buf, off, count, dt, &s))
            return s;
    }
    return span_of(b->buf, off, count, dt);
}

/* The bound of v-blocks (counts and displacements in extents) of one
 * contiguous type, as the union of their spans (block_span each): a
 * contiguous type's extent is its size, so it is the span of the elements
 * from the lowest first one to the highest last one of the blocks that
 * move something, found by compares alone (np4 MPI_Scatterv's root: the
 * alias check 496 -> about 190 instructions, callgrind). 0 when the shape
 * is another or the arithmetic overflows (the caller takes the spans). */
static int v_bound(const blocks_t *b, span_t *out)
{
    MPI_Aint lo = 0, hi = 0, end, off;
    int any = 0;

    if (b->counts == NULL || b->displs == NULL || b->dts != NULL || b->displs_bytes ||
        b->dt == NULL || !dt_is_contig(b->dt) || dt_contig_size(b->dt) == 0)
        return 0;
    for (int i = 0; i < b->n; i++) {
        if (b->counts[i] <= 0)
            continue;
        if (__builtin_add_overflow(b->displs[i], (MPI_Aint)b->counts[i], &end))
            return 0;
        if (!any || b->displs[i] < lo)
            lo = b->displs[i];
        if (!any || end > hi)
            hi = end;
        any = 1;
    }
    if (!any) {
        *out = (span_t){0, 0};
        return 1;
    }
    if (__builtin_mul_overflow(lo, (MPI_Aint)dt_contig_size(b->dt), &off))
        return 0;
    if (!span_contig(b->buf, off, hi - lo, b->dt, out))
        *out = (span_t){0, 0}; /* (no buffer: as span_of) */
    return 1;
}

typedef struct {
    span_t s;
    int side, block;
} tagged_span_t;

static int tagged_cmp(const void *x, const void *y)
{
    const tagged_span_t *a = x, *b = y;
    return a->s.lo < b->s.lo ? -1 : a->s.lo > b->s.lo;
}

/* Whether a byte of x's blocks is also a byte of y's; the blocks found go
 * to *xi_out and *yi_out. O(n) when the sides' bounds are apart (the common
 * case), O(n log n) otherwise. */
static int blocks_overlap(const blocks_t *x, const blocks_t *y, int *xi_out, int *yi_out)
{
    const blocks_t *side[2] = {x, y};
    span_t bound[2];
    tagged_span_t *all;
    intptr_t reach[2];
    int nall = 0, found = 0, reach_block[2] = {-1, -1};

    if (x->n == 1 && y->n == 1) { /* (most calls: one block a side) */
        span_t a, b;
        /* (one contiguous block a side, inline: a small allreduce's whole
         * check was 276 instructions through block_span) */
        if (x->displs != NULL || x->dts != NULL || x->counts != NULL ||
            !span_contig(x->buf, 0, x->count, x->dt, &a))
            a = block_span(x, 0);
        if (y->displs != NULL || y->dts != NULL || y->counts != NULL ||
            !span_contig(y->buf, 0, y->count, y->dt, &b))
            b = block_span(y, 0);
        *xi_out = *yi_out = 0;
        return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi;
    }
    for (int k = 0; k < 2; k++) {
        const blocks_t *b = side[k];
        MPI_Count all_count;
        bound[k] = (span_t){0, 0};
        /* consecutive blocks of one count and type (gather's and scatter's
         * root, allgather, alltoall): their bounds are those of one run of
         * n * count elements, without a span per block */
        if (b->displs == NULL && b->counts == NULL && b->dts == NULL &&
            !__builtin_mul_overflow((MPI_Count)b->n, b->count, &all_count)) {
            bound[k] = span_of(b->buf, 0, all_count, b->dt);
            if (bound[k].lo == bound[k].hi)
                return 0;
            continue;
        }
        if (v_bound(b, &bound[k])) {
            if (bound[k].lo == bound[k].hi)
                return 0;
            continue;
        }
        for (int i = 0; i < side[k]->n; i++) {
            span_t s = block_span(side[k], i);
            if (s.lo == s.hi)
                continue;
            if (bound[k].lo == bound[k].hi) {
                bound[k] = s;
            } else {
                bound[k].lo = s.lo < bound[k].lo ? s.lo : bound[k].lo;
                bound[k].hi = s.hi > bound[k].hi ? s.hi : bound[k].hi;
            }
        }
        if (bound[k].lo == bound[k].hi)
            return 0;
    }
    if (bound[0].hi <= bound[1].lo || bound[1].hi <= bound[0].lo)
        return 0;
    /* the bounds meet: look at the blocks themselves, sorted by start */
    all = malloc(sizeof *all * ((size_t)x->n + (size_t)y->n));
    if (all == NULL)
        return 0; /* (a check, not the operation: no memory, no verdict) */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < side[k]->n; i++) {
            span_t s = block_span(side[k], i);
            if (s.lo != s.hi)
                all[nall++] = (tagged_span_t){s, k, i};
        }
    qsort(all, (size_t)nall, sizeof *all, tagged_cmp);
    /* a block meets a block of the other side that starts before it iff that
     * side's furthest end so far lies beyond its start */
    reach[0] = reach[1] = INTPTR_MIN;
    for (int j = 0; j < nall && !found; j++) {
        int k = all[j].side;
        if (reach[1 - k] > all[j].s.lo) {
            found = 1;
            *(k == 0 ? xi_out : yi_out) = all[j].block;
            *(k == 0 ? yi_out : xi_out) = reach_block[1 - k];
        } else if (all[j].s.hi > reach[k]) {
            reach[k] = all[j].s.hi;
            reach_block[k] = all[j].block;
        }
    }
    free(all);
    return found;
}

static int check_alias(mpi_comm_t *c, const blocks_t *snd, const blocks_t *rcv, const char *fn)
{
    char sblk[48], rblk[48];
    int si = 0, ri = 0;
    if (!blocks_overlap(snd, rcv, &si, &ri))
        return MPI_SUCCESS;
    sblk[0] = rblk[0] = '\0'; /* (not before: 96 bytes to clear per call) */
    if (snd->n > 1)
        snprintf(sblk, sizeof sblk, " (send block %d)", si);
    if (rcv->n > 1)
        snprintf(rblk, sizeof rblk, " (receive block %d)", ri);
    return mpi_err_fail(c, MPI_ERR_BUFFER, fn,
                         "sendbuf (%p) and recvbuf (%p) overlap: bytes sent%s are also bytes "
                         "received%s; use MPI_IN_PLACE",
                         snd->buf, rcv->buf, sblk, rblk);
}

/* The common shapes: one block of count elements; n consecutive blocks. */
static blocks_t blocks_one(const void *buf, MPI_Count count, dt_type_t *dt)
{
    return (blocks_t){buf, 1, count, NULL, NULL, 0, dt, NULL};
}

static blocks_t blocks_run(const void *buf, int n, MPI_Count count, dt_type_t *dt)
{
    return (blocks_t){buf, n, count, NULL, NULL, 0, dt, NULL};
}

static blocks_t blocks_v(const void *buf, int n, const MPI_Count *counts, const MPI_Aint *displs,
                         dt_type_t *dt)
{
    return (blocks_t){buf, n, 0, counts, displs, 0, dt, NULL};
}

int mpi_bufs_overlap(const void *a, MPI_Count acount, dt_type_t *adt, const void *b,
                     MPI_Count bcount, dt_type_t *bdt)
{
    blocks_t x = blocks_one(a, acount, adt), y = blocks_one(b, bcount, bdt);
    int xi, yi;
    return blocks_overlap(&x, &y, &xi, &yi);
}

static int no_in_place(mpi_comm_t *c, const void *buf, const char *what, const char *why,
                       const char *fn)
{
    if (is_in_place(buf))
        return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE, which is %s", what, why);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the common path */
typedef struct {
    MPI_Count *sendcounts, *recvcounts;
    MPI_Aint *sdispls, *rdispls;
    dt_type_t **sdts, **rdts; /* alltoallw */
    /* the send (0) and receive (1) arrays of up to WIDE_SMALL entries (never
     * initialized: only the pointers above are, field by field) */
    MPI_Count small_counts[2][WIDE_SMALL];
    MPI_Aint small_displs[2][WIDE_SMALL];
} widened_t;

static void widened_free(widened_t *w)
{
    /* (most calls widen nothing: six calls of free(NULL) show in a count-0
     * collective's cost) */
    if (w->sdts == NULL && w->rdts == NULL && w->sendcounts == NULL && w->recvcounts == NULL &&
        w->sdispls == NULL && w->rdispls == NULL)
        return;
    /* (nor free(NULL) for the arrays a v call leaves alone: a scatterv
     * root widens its send side only) */
    if (w->sdts != NULL)
        free(w->sdts);
    if (w->rdts != NULL)
        free(w->rdts);
    if (w->sendcounts != NULL && w->sendcounts != w->small_counts[0])
        free(w->sendcounts);
    if (w->recvcounts != NULL && w->recvcounts != w->small_counts[1])
        free(w->recvcounts);
    if (w->sdispls != NULL && w->sdispls != w->small_displs[0])
        free(w->sdispls);
    if (w->rdispls != NULL && w->rdispls != w->small_displs[1])
        free(w->rdispls);
}

/* MPI_IN_PLACE where no collective takes it: a broadcast's buffer, a
 * receive buffer that is significant here (a reduce's or gather's at the
 * root only; a scatter's at a non-root is checked with its side below,
 * and at the root it is the in-place form), a scatter root's send buffer.
 * Taken as an address ((void *)-1), it crashed the call (MPI_Bcast,
 * MPI_Allreduce, MPI_Gather's root and 12 more; MPICH 4.0.2 crashes too). */
static int in_place_misplaced(const call_t *k, mpi_comm_t *c, const char *fn)
{
    int root_here = c->is_inter ? k->root == MPI_ROOT : c->rank == k->root;

    switch (k->kind) {
    case COLL_BARRIER:
        return MPI_SUCCESS;
    case COLL_BCAST:
        return no_in_place(c, k->recvbuf, "buffer", "not allowed in MPI_Bcast", fn);
    case COLL_SCATTER:
    case COLL_SCATTERV:
        return root_here ? no_in_place(c, k->sendbuf, "sendbuf",
                                       "not allowed for a scatter's send buffer", fn)
                         : MPI_SUCCESS;
    case COLL_GATHER:
    case COLL_GATHERV:
    case COLL_REDUCE:
        if (!root_here)
            return MPI_SUCCESS;
        break;
    default:
        break;
    }
    return no_in_place(c, k->recvbuf, "recvbuf",
                       "allowed for a send buffer only (and a scatter root's receive buffer)",
                       fn);
}

/* Check the arguments of k on communicator c and fill a. */
static int check_call(const call_t *k, mpi_comm_t *c, coll_args_t *a, widened_t *w, const char *fn)
{
    int err = MPI_SUCCESS, inter = c->is_inter, rsize = c->is_inter ? c->peer_size : c->size;
    int is_root = !inter && c->rank == k->root;
    int sends, recvs; /* which sides are significant here (rooted, intercomm) */
    blocks_t sblk, rblk; /* what moves here, for the aliasing check */
    const char *ip_root = "only allowed at the root";

    a->kind = k->kind;
    a->comm = c;
    a->sendbuf = k->sendbuf;
    a->sendcount = k->sendcount;
    a->sendtype = k->sendtype;
    a->sendtypes = k->sendtypes;
    a->recvbuf = k->recvbuf;
    a->recvcount = k->recvcount;
    a->recvtype = k->recvtype;
    a->recvtypes = k->recvtypes;
    a->op = k->op;
    a->root = k->root;
    if ((err = in_place_misplaced(k, c, fn)))
        return err;

    switch (k->kind) {
    case COLL_BARRIER:
        return MPI_SUCCESS;

    case COLL_BCAST:
        if ((err = check_root(c, k->root, fn)))
            return err;
        if (inter && k->root == MPI_PROC_NULL)
            return MPI_SUCCESS;
        /* MPICH does not check the datatype of an empty broadcast, nor of
         * an empty point-to-point message (mpi_check_datatype_slow, which
         * passes it on as MPI_BYTE too): MPI_DATATYPE_NULL or a type not yet
         * committed moves nothing, as MPI_BYTE */
        if (k->recvcount == 0 &&
            (k->recvtype == MPI_DATATYPE_NULL || mpi_dt_get(k->recvtype) != NULL)) {
            a->recvtype = mpi_dt_zero_count(k->recvtype);
            a->rdt = mpi_dt_get(a->recvtype);
            return MPI_SUCCESS;
        }
        return check_side(c, k->recvbuf, k->recvcount, k->recvtype, "", fn, &a->rdt);

    case COLL_GATHER:
    case COLL_GATHERV:
        if ((err = check_root(c, k->root, fn)))
            return err;
        sends = inter ? (k->root != MPI_ROOT && k->root != MPI_PROC_NULL)
                      : !(is_root && is_in_place(k->sendbuf));
        recvs = inter ? k->root == MPI_ROOT : is_root;
        if (!is_root && (err = no_in_place(c, k->sendbuf, "sendbuf",
                                           inter ? "not allowed on "
                                                   "intercommunicators"
                                                 : ip_root,
                                           fn)))
            return err;
        if (sends &&
            (err = check_side(c, k->sendbuf, k->sendcount, k->sendtype, "send", fn, &a->sdt)))
            return err;
        if (!recvs)
            return MPI_SUCCESS;
        if (k->kind == COLL_GATHER) {
            if ((err = check_side(c, k->recvbuf, k->recvcount, k->recvtype, "recv", fn, &a->rdt)))
                return err;
            rblk = blocks_run(k->recvbuf, rsize, k->recvcount, a->rdt);
        } else {
            if ((err = take_counts(c, k->recvcounts, k->big, rsize, "recvcounts", fn,
                                   &w->recvcounts, w->small_counts[1])) ||
                (err = take_displs(c, k->rdispls, k->big, rsize, "displs", fn, &w->rdispls,
                                   w->small_displs[1])) ||
                (err = mpi_check_dt(c, k->recvtype, fn, &a->rdt)) ||
                (err = check_v_buf(c, k->recvbuf, w->recvcounts, w->rdispls, rsize, k->recvtype,
                                   a->rdt, NULL, NULL, "recv", fn)))
                return err;
            a->recvcounts = w->recvcounts;
            a->rdispls = w->rdispls;
            rblk = blocks_v(k->recvbuf, rsize, w->recvcounts, w->rdispls, a->rdt);
        }
        if (!sends)
            return MPI_SUCCESS;
        sblk = blocks_one(k->sendbuf, k->sendcount, a->sdt);
        return check_alias(c, &sblk, &rblk, fn);

    case COLL_SCATTER:
    case COLL_SCATTERV:
        if ((err = check_root(c, k->root, fn)))
            return err;
        sends = inter ? k->root == MPI_ROOT : is_root;
        recvs = inter ? (k->root != MPI_ROOT && k->root != MPI_PROC_NULL)
                      : !(is_root && is_in_place(k->recvbuf));
        if (!is_root && (err = no_in_place(c, k->recvbuf, "recvbuf",
                                           inter ? "not allowed on "
                                                   "intercommunicators"
                                                 : ip_root,
                                           fn)))
            return err;
        if (recvs &&
            (err = check_side(c, k->recvbuf, k->recvcount, k->recvtype, "recv", fn, &a->rdt)))
            return err;
        if (!sends)
            return MPI_SUCCESS;
        if (k->kind == COLL_SCATTER) {
            if ((err = check_side(c, k->sendbuf, k->sendcount, k->sendtype, "send", fn, &a->sdt)))
                return err;
            sblk = blocks_run(k->sendbuf, rsize, k->sendcount, a->sdt);
        } else {
            if ((err = take_counts(c, k->sendcounts, k->big, rsize, "sendcounts", fn,
                                   &w->sendcounts, w->small_counts[0])) ||
                (err = take_displs(c, k->sdispls, k->big, rsize, "displs", fn, &w->sdispls,
                                   w->small_displs[0])) ||
                (err = mpi_check_dt(c, k->sendtype, fn, &a->sdt)) ||
                (err = check_v_buf(c, k->sendbuf, w->sendcounts, w->sdispls, rsize, k->sendtype,
                                   a->sdt, NULL, NULL, "send", fn)))
                return err;
            a->sendcounts = w->sendcounts;
            a->sdispls = w->sdispls;
            sblk = blocks_v(k->sendbuf, rsize, w->sendcounts, w->sdispls, a->sdt);
        }
        if (!recvs)
            return MPI_SUCCESS;
        rblk = blocks_one(k->recvbuf, k->recvcount, a->rdt);
        return check_alias(c, &sblk, &rblk, fn);

    case COLL_ALLGATHER:
    case COLL_ALLGATHERV:
    case COLL_ALLTOALL:
    case COLL_NEIGHBOR_ALLGATHER:
    case COLL_NEIGHBOR_ALLTOALL:
    case COLL_NEIGHBOR_ALLGATHERV: {
        int neighbor = k->kind >= COLL_NEIGHBOR_ALLGATHER;
        int nrecv = neighbor ? a->indegree : rsize;
        if ((inter || neighbor) &&
            (err = no_in_place(c, k->sendbuf, "sendbuf",
                               neighbor ? "not allowed in neighbourhood collectives"
                                        : "not allowed on intercommunicators",
                               fn)))
            return err;
        if (!is_in_place(k->sendbuf) &&
            (err = check_side(c, k->sendbuf, k->sendcount, k->sendtype, "send", fn, &a->sdt)))
            return err;
        if (k->kind == COLL_ALLGATHERV || k->kind == COLL_NEIGHBOR_ALLGATHERV) {
            if ((err = take_counts(c, k->recvcounts, k->big, nrecv, "recvcounts", fn,
                                   &w->recvcounts, w->small_counts[1])) ||
                (err = take_displs(c, k->rdispls, k->big, nrecv, "displs", fn, &w->rdispls,
                                   w->small_displs[1])) ||
                (err = mpi_check_dt(c, k->recvtype, fn, &a->rdt)) ||
                (err = check_v_buf(c, k->recvbuf, w->recvcounts, w->rdispls, nrecv, k->recvtype,
                                   a->rdt, NULL, NULL, "recv", fn)))
                return err;
            a->recvcounts = w->recvcounts;
            a->rdispls = w->rdispls;
            rblk = blocks_v(k->recvbuf, nrecv, w->recvcounts, w->rdispls, a->rdt);
        } else {
            if ((err = check_side(c, k->recvbuf, k->recvcount, k->recvtype, "recv", fn, &a->rdt)))
                return err;
            rblk = blocks_run(k->recvbuf, nrecv, k->recvcount, a->rdt);
        }
        /* (sendbuf at this process's own block of recvbuf, the MPI_IN_PLACE
         * layout without MPI_IN_PLACE, is seen by every process) */
        if (k->kind == COLL_ALLTOALL || k->kind == COLL_NEIGHBOR_ALLTOALL)
            sblk = blocks_run(k->sendbuf, neighbor ? a->outdegree : rsize, k->sendcount, a->sdt);
        else
            sblk = blocks_one(k->sendbuf, k->sendcount, a->sdt);
        return check_alias(c, &sblk, &rblk, fn);
    }

    case COLL_ALLTOALLV:
    case COLL_ALLTOALLW:
    case COLL_NEIGHBOR_ALLTOALLV:
    case COLL_NEIGHBOR_ALLTOALLW: {
        int neighbor = k->kind >= COLL_NEIGHBOR_ALLGATHER;
        int wvar = k->kind == COLL_ALLTOALLW || k->kind == COLL_NEIGHBOR_ALLTOALLW;
        int nsend = neighbor ? a->outdegree : rsize, nrecv = neighbor ? a->indegree : rsize;
        int daint = k->big || k->displs_aint;
        if ((inter || neighbor) &&
            (err = no_in_place(c, k->sendbuf, "sendbuf",
                               neighbor ? "not allowed in neighbourhood collectives"
                                        : "not allowed on intercommunicators",
                               fn)))
            return err;
        if (!is_in_place(k->sendbuf)) {
            if ((err = take_counts(c, k->sendcounts, k->big, nsend, "sendcounts", fn,
                                   &w->sendcounts, w->small_counts[0])) ||
                (err = take_displs(c, k->sdispls, daint, nsend, "sdispls", fn, &w->sdispls,
                                   w->small_displs[0])))
                return err;
            if (wvar)
                err = check_types(c, k->sendtypes, nsend, "sendtypes", fn, &w->sdts);
            else
                err = mpi_check_dt(c, k->sendtype, fn, &a->sdt);
            if (err || (err = check_v_buf(c, k->sendbuf, w->sendcounts, w->sdispls, nsend,
                                          k->sendtype, a->sdt, wvar ? k->sendtypes : NULL,
                                          w->sdts, "send", fn)))
                return err;
            a->sendcounts = w->sendcounts;
            a->sdispls = w->sdispls;
        }
        if ((err =
                 take_counts(c, k->recvcounts, k->big, nrecv, "recvcounts", fn, &w->recvcounts,
                             w->small_counts[1])) ||
            (err = take_displs(c, k->rdispls, daint, nrecv, "rdispls", fn, &w->rdispls,
                               w->small_displs[1])))
            return err;
        if (wvar)
            err = check_types(c, k->recvtypes, nrecv, "recvtypes", fn, &w->rdts);
        else
            err = mpi_check_dt(c, k->recvtype, fn, &a->rdt);
        if (err || (err = check_v_buf(c, k->recvbuf, w->recvcounts, w->rdispls, nrecv, k->recvtype,
                                      a->rdt, wvar ? k->recvtypes : NULL, w->rdts, "recv",
                                      fn)))
            return err;
        a->recvcounts = w->recvcounts;
        a->rdispls = w->rdispls;
        if (is_in_place(k->sendbuf))
            return MPI_SUCCESS;
        sblk = (blocks_t){k->sendbuf, nsend, 0, w->sendcounts, w->sdispls, wvar, a->sdt, w->sdts};
        rblk = (blocks_t){k->recvbuf, nrecv, 0, w->recvcounts, w->rdispls, wvar, a->rdt, w->rdts};
        return check_alias(c, &sblk, &rblk, fn);
    }

    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_SCAN:
    case COLL_EXSCAN:
    case COLL_REDUCE_SCATTER:
    case COLL_REDUCE_SCATTER_BLOCK: {
        int send_side = 1, recv_side = 1, dt_bad;
        MPI_Count total = k->recvcount;
        if (k->kind == COLL_REDUCE) {
            if ((err = check_root(c, k->root, fn)))
                return err;
            if (inter && k->root == MPI_PROC_NULL)
                return MPI_SUCCESS;
        }
        /* the op before the counts, the datatype and the buffers, as MPICH;
         * its definition for the datatype too (mpi_check_op_type_arg), which
         * a call that passes its checks pays for after the datatype
         * (check_op), and the others where a check fails (a negative count,
         * a datatype that is none), before that check: one place for all,
         * and for MPI_Reduce_scatter before its counts, which are read
         * (take_counts) only after */
        if ((err = mpi_check_op_arg(c, k->op, fn, "op")))
            return err;
        if (k->kind == COLL_REDUCE) {
            send_side = !(inter && k->root == MPI_ROOT);
            recv_side = inter ? k->root == MPI_ROOT : is_root;
            if (!inter && !is_root && (err = no_in_place(c, k->sendbuf, "sendbuf", ip_root, fn)))
                return err;
        }
        if (inter &&
            (err = no_in_place(c, k->sendbuf, "sendbuf", "not allowed on intercommunicators", fn)))
            return err;
        a->rdt = mpi_dt_get(k->recvtype);
        dt_bad = !mpi_dt_is_predefined(k->recvtype) && (a->rdt == NULL || !dt_is_committed(a->rdt));
        if (dt_bad || k->recvcount < 0 || k->kind == COLL_REDUCE_SCATTER) {
            if ((err = mpi_check_op_type_arg(c, k->op, k->recvtype, fn, "op")))
                return err;
            if (k->kind == COLL_REDUCE_SCATTER) {
                if ((err = take_counts(c, k->recvcounts, k->big, c->size, "recvcounts", fn,
                                       &w->recvcounts, w->small_counts[1])))
                    return err;
                a->recvcounts = w->recvcounts;
                total = 0;
                for (int i = 0; i < c->size; i++)
                    total += w->recvcounts[i];
            } else if (k->recvcount < 0) {
                return mpi_err_fail(c, MPI_ERR_COUNT, fn, "%s=%lld is negative",
                                    k->kind == COLL_REDUCE_SCATTER_BLOCK ? "recvcount" : "count",
                                    (long long)k->recvcount);
            }
            if (dt_bad && (err = mpi_check_dt(c, k->recvtype, fn, &a->rdt)))
                return err;
        }
        if ((err = check_op(c, k->op, a->rdt, fn)))
            return err;
        a->commutative = coll_op_is_commutative(k->op);
        if (total == 0 || dt_size(a->rdt) == 0)
            return MPI_SUCCESS;
        if (send_side && k->sendbuf == NULL && mpi_handle_kind(k->recvtype) == MPI_HKIND_BUILTIN)
            return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "sendbuf is NULL with count=%lld",
                                 (long long)total);
        if (recv_side && k->kind != COLL_REDUCE_SCATTER && k->recvbuf == NULL &&
            mpi_handle_kind(k->recvtype) == MPI_HKIND_BUILTIN)
            return mpi_err_fail(c, MPI_ERR_BUFFER, fn, "recvbuf is NULL with count=%lld",
                                 (long long)total);
        /* (on an intercommunicator the reduce_scatter layouts depend on the
         * other group's counts: not judged here) */
        if (!send_side || !recv_side ||
            (inter && (k->kind == COLL_REDUCE_SCATTER || k->kind == COLL_REDUCE_SCATTER_BLOCK)))
            return MPI_SUCCESS;
        /* one buffer for both where this rank receives nothing: an error
         * here too, as on the ranks that receive (MPICH tests sendbuf ==
         * recvbuf), or the ranks would disagree and those that go on wait */
        if (k->kind == COLL_REDUCE_SCATTER && k->sendbuf == k->recvbuf &&
            w->recvcounts[c->rank] == 0)
            return mpi_err_fail(c, MPI_ERR_BUFFER, fn,
                                "sendbuf and recvbuf are one buffer (%p) and other ranks receive "
                                "into it; use MPI_IN_PLACE",
                                k->recvbuf);
        /* what this rank reads from sendbuf and writes into recvbuf */
        sblk = blocks_one(k->sendbuf, total, a->rdt);
        rblk = blocks_one(k->recvbuf, k->recvcount, a->rdt);
        if (k->kind == COLL_REDUCE_SCATTER)
            rblk.count = w->recvcounts[c->rank];
        else if (k->kind == COLL_REDUCE_SCATTER_BLOCK)
            sblk.count = (MPI_Count)c->size * k->recvcount;
        return check_alias(c, &sblk, &rblk, fn);
    }
    default:
        return mpi_err_fail(c, MPI_ERR_INTERN, fn, "unknown collective %d", (int)k->kind);
    }
}

static int is_neighbor(coll_kind_t k)
{
    return k >= COLL_NEIGHBOR_ALLGATHER;
}

/* An argument error err of k on c, already raised: in the checking mode
 * the other ranks learn of it instead of waiting (coll/check.c). */
static int check_mode_failed(const call_t *k, mpi_comm_t *c, int err, const char *fn)
{
    if (coll_check_enabled()) {
        int cls = MPI_ERR_OTHER;
        if (err != MPI_CANAL_HANDLED) /* (else the handler cleared the code) */
            mpi_error_class_impl(err, &cls, fn);
        (void)coll_check_failed_call(c, k->kind, k->root, cls);
    }
    return err;
}

/* k on the communicator c (checked by the entry point): check the other
 * arguments and run it in mode. */
static int coll_call(const call_t *k, mpi_comm_t *c, coll_mode_t mode, MPI_Request *request,
                     const char *fn)
{
    coll_args_t a;
    widened_t w; /* (its pointers below: the small arrays need no zeros) */
    coll_sched_t *s = NULL;
    adi_request_t *r = NULL;
    canal_status_t st;
    int err;

    w.sendcounts = w.recvcounts = NULL;
    w.sdispls = w.rdispls = NULL;
    w.sdts = w.rdts = NULL;

    if (mode != MODE_BLOCKING && request == NULL)
        return check_mode_failed(k, c, mpi_err_raise(c, MPI_ERR_ARG, fn, "request is NULL"), fn);
    /* A revoked communicator fails every collective (ULFM), also one that has
     * no message to exchange (a communicator of one process). One atomic load
     * while nothing is revoked. Either context counts: a point-to-point
     * context revoked by a peer's answer means the communicator is revoked
     * even while the notice for the collective context is still on its way. */
    if (adi_ctx_pair_revoked(c->context))
        return mpi_err_raise(c, MPIX_ERR_REVOKED, fn, "the communicator was revoked (MPIX_Comm_revoke)");
    /* (field by field: a memset of the whole struct shows in small-message latency) */
    a.sdt = a.rdt = NULL;
    a.sendcounts = a.recvcounts = NULL;
    a.sdispls = a.rdispls = NULL;
    a.commutative = 1;
    a.indegree = a.outdegree = 0;
    a.sources = a.destinations = NULL;
    a.cartesian = 0;
    if (c->is_inter) {
        if (k->kind == COLL_SCAN || k->kind == COLL_EXSCAN)
            return mpi_err_raise(c, MPI_ERR_COMM, fn,
                                 "comm=%#x is an intercommunicator; %s is defined on "
                                 "intracommunicators only",
                                 (unsigned)c->handle, coll_kind_name(k->kind));
        if (c->local_comm == NULL && !is_neighbor(k->kind))
            return mpi_err_raise(c, MPI_ERR_COMM, fn,
                                 "comm=%#x is an intercommunicator without a local "
                                 "communicator for collectives",
                                 (unsigned)c->handle);
    }
    if (is_neighbor(k->kind)) {
        int cls;
        if (mpi_topo_neighbors == NULL)
            return mpi_err_raise(c, MPI_ERR_TOPOLOGY, fn,
                                 "comm=%#x has no process topology (topologies are not "
                                 "available in this build)",
                                 (unsigned)c->handle);
        cls = mpi_topo_neighbors(c, &a.indegree, &a.sources, &a.outdegree, &a.destinations);
        if (cls != MPI_SUCCESS)
            return mpi_err_raise(c, cls, fn, "comm=%#x has no Cartesian or graph topology",
                                 (unsigned)c->handle);
        {
            int status = MPI_UNDEFINED;
            a.cartesian = mpi_topo_test_impl(c, &status, fn) == MPI_SUCCESS && status == MPI_CART &&
                          a.indegree % 2 == 0;
        }
    }
    err = check_call(k, c, &a, &w, fn);
    if (err) {
        /* (a code the user's handler cleared ends the call too, with the
         * handler's MPI_SUCCESS: nothing after it may run on the argument) */
        check_mode_failed(k, c, err, fn);
        err = mpi_result(err);
        goto out_widened;
    }
    if (coll_check_enabled() && (st = coll_check_call(&a)) < 0) {
        widened_free(&w);
        return mpi_err_status(c, st, fn);
    }

    /* No data moves at any rank (coll_moves_nothing: decided alike on every
     * rank), or none to or from this one in a gatherv or scatterv
     * (coll_skip_empty_part steps the call sequence): return at once, a
     * nonblocking call with a request already complete. A persistent one
     * still records its (empty) schedule. */
    if (mode != MODE_PERSISTENT && (coll_moves_nothing(&a) || coll_skip_empty_part(&a))) {
        widened_free(&w);
        if (mode == MODE_NONBLOCKING)
            *request = mpi_request_done_handle(); /* (shared, never allocated or freed) */
        return MPI_SUCCESS;
    }
    if (mode == MODE_BLOCKING) {
        /* two ranks, barrier or small allreduce: one exchange, no schedule */
        int ran;
        st = coll_run_direct(&a, &ran);
        if (ran) {
            widened_free(&w);
            return st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
        }
    }
    /* (a blocking call's widened arrays live until coll_sched_keep: the
     * replay cache keys v collectives by their counts and displacements) */
    if (mode == MODE_BLOCKING && (s = coll_sched_replay(c, &a)) != NULL) {
        st = coll_sched_start(s, NULL, 0);
        if (st >= 0)
            st = coll_sched_wait(s);
        coll_sched_keep(c, &a, s);
        widened_free(&w);
        return st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
    }
    st = coll_sched_create(c, a.kind, &s);
    if (st >= 0) {
        st = coll_record(s, &a);
        if (st >= 0)
            st = coll_sched_status(s);
    }
    if (st < 0 || mode != MODE_BLOCKING)
        widened_free(&w);
    if (st < 0) {
        coll_sched_free(s);
        return mpi_err_status(c, st, fn);
    }

    switch (mode) {
    case MODE_BLOCKING:
        st = coll_sched_start(s, NULL, 0);
        if (st >= 0)
            st = coll_sched_wait(s);
        coll_sched_keep(c, &a, s);
        widened_free(&w);
        return st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
    case MODE_NONBLOCKING:
        r = adi_request_alloc(ADI_REQ_COLL);
        if (r == NULL) {
            coll_sched_free(s);
            return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
        }
        r->owner_handle = c->handle;
        *request = mpi_request_handle(r);
        st = coll_sched_start(s, r, 0);
        if (st < 0) {
            coll_sched_free(s);
            adi_request_free(r);
            *request = MPI_REQUEST_NULL;
            return mpi_err_status(c, st, fn);
        }
        return MPI_SUCCESS;
    case MODE_PERSISTENT: {
        coll_persist_t *ps = malloc(sizeof *ps);
        r = ps != NULL ? adi_request_alloc(ADI_REQ_PREQ_OTHER) : NULL;
        if (r == NULL) {
            free(ps);
            coll_sched_free(s);
            return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
        }
        ps->ops = &persist_ops;
        ps->sched = s;
        r->mpi_ext = ps;
        r->owner_handle = c->handle;
        *request = mpi_request_handle(r);
        return MPI_SUCCESS;
    }
    }
    return MPI_SUCCESS;

out_widened:
    widened_free(&w);
    return err;
}

/* ---------------------------------------------------------------- the MPI functions */
/* The implementations of the table's collectives (mpi/api/06-collectives.api
 * and the neighbourhood collectives of 08-topologies.api, flagged
 * `collective`): their entry points have checked the communicator only;
 * each fills a call_t and coll_call() checks the rest. The int and _c forms
 * share one implementation: `large` says whether the count and displacement
 * arrays are MPI_Count[]/MPI_Aint[] or int[]. */

static inline int empty_call_done(mpi_comm_t *c, MPI_Datatype dt, int is_allreduce, MPI_Op op,
                                  coll_mode_t mode, MPI_Request *request);
static int empty_type_ok(MPI_Datatype dt);
static inline int empty_check_enabled(void);
static int empty_counts(const void *counts, int big, int n);
static int empty_part_done(mpi_comm_t *c, coll_kind_t kind, int root, const void *mybuf,
                           MPI_Count mycount, MPI_Datatype mytype, const void *counts,
                           const void *displs, int big, MPI_Datatype roottype, coll_mode_t mode,
                           MPI_Request *request);

/* A blocking gather(v) or scatter(v) at an intracommunicator rank that is
 * not the root, with a predefined datatype and arguments that pass its
 * checks: those of its own side, which are all MPICH makes there too (the
 * root in range, no MPI_IN_PLACE, the count, the datatype, a buffer when
 * something moves; the root's arrays are not read), made here, and the
 * call run directly (coll_leaf_direct: coll/pair.c's linear leaf, on the
 * choice the communicator remembers) without coll_call's general steps. 1
 * with *err the result when it ran; 0 when anything else holds (a failed
 * check, an empty part, a revoked communicator, the checking mode, or no
 * direct algorithm), and coll_call takes the call, with its checks and
 * errors. np4, 1 B, a leaf, callgrind: scatterv about 1,400 -> 1,150
 * instructions a call, gatherv 1,060 -> 866; then (coll10: no coll_args_t,
 * one look at the communicator's state) an np4 scatterv of 8 B whose
 * message is there 726 -> 474 (MPI_Recv of it: 318). */
static int leaf_direct(mpi_comm_t *c, coll_kind_t kind, const void *buf, MPI_Count count,
                       MPI_Datatype type, int root, coll_mode_t mode, const char *fn, int *err)
{
    int ran = 0;
    dt_type_t *dt;
    size_t size;
    canal_status_t st;

    if (mode != MODE_BLOCKING || c->is_inter || (unsigned)root >= (unsigned)c->size ||
        c->rank == root || count <= 0 || buf == NULL || buf == MPI_IN_PLACE ||
        !mpi_dt_is_predefined(type) || (size = dt_size(dt = mpi_dt_get(type))) == 0 ||
        empty_check_enabled() || adi_ctx_pair_revoked_inline(c->context))
        return 0;
    st = coll_leaf_direct(c, kind, buf, (size_t)count, dt, (size_t)count * size, root, &ran);
    if (!ran)
        return 0;
    *err = st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
    return 1;
}

/* A blocking gather(v) or scatter(v) at the root of an intracommunicator
 * of up to COLL_DIRECT_MAX_RANKS ranks with predefined contiguous datatypes and
 * arguments that pass every check coll_call would make (check_call's: the
 * counts, the datatypes, a buffer where something moves, no aliasing of
 * the root's own block with its blocks; something moves), then the call
 * run directly (coll_root_direct: coll/pair.c's linear root on the choice
 * the communicator remembers) without coll_args_t or coll_call's general
 * steps. The root's blocks: many (of mtype; v: counts and displs, int[] or
 * with big MPI_Count[]/MPI_Aint[], taken as they are when big, else
 * widened in the loop that checks them; else `each` elements a block);
 * its own block (mine, n, otype). 1 with *err the result when it ran; 0
 * when anything else holds (a failed check, where coll_call raises the
 * error with its class and message; a possible overlap, which coll_call
 * judges exactly; nothing moving, the checking mode, a revoked
 * communicator, more ranks, or no direct algorithm). */
static int root_direct(mpi_comm_t *c, coll_kind_t kind, const void *many, MPI_Count each,
                       const void *counts, const void *displs, int big, MPI_Datatype mtype,
                       const void *mine, MPI_Count n, MPI_Datatype otype, int root,
                       coll_mode_t mode, const char *fn, int *err)
{
    MPI_Count wc[COLL_DIRECT_MAX_RANKS];
    MPI_Aint wd[COLL_DIRECT_MAX_RANKS], lo = 0, hi = 0;
    coll_root_t r = {.buf = (void *)many, .each = (size_t)each, .mine = (void *)mine, .n = (size_t)n};
    span_t ms, os;
    size_t esz;
    int p = c->size, ran = 0;
    canal_status_t st;

    if (mode != MODE_BLOCKING || c->is_inter || c->rank != root || p > COLL_DIRECT_MAX_RANKS ||
        many == MPI_IN_PLACE || !mpi_dt_is_predefined(mtype) ||
        (esz = dt_size(r.dt = mpi_dt_get(mtype))) == 0 || !dt_is_contig(r.dt) ||
        empty_check_enabled() || adi_ctx_pair_revoked_inline(c->context))
        return 0;
    if (mine != MPI_IN_PLACE) {
        if (n < 0 || !mpi_dt_is_predefined(otype) || !dt_is_contig(r.mdt = mpi_dt_get(otype)) ||
            buf_missing(mine, n, otype, r.mdt))
            return 0;
    }
    if (counts == NULL) {
        /* (many NULL with blocks to move: check_side's MPI_ERR_BUFFER) */
        if (each <= 0 || many == NULL)
            return 0;
        r.most = (size_t)each;
        hi = (MPI_Aint)p * each;
    } else {
        /* (many NULL: check_v_buf's MPI_ERR_BUFFER where a block at NULL moves,
         * legal where none does; coll_call tells) */
        if (displs == NULL || many == NULL)
            return 0;
        r.counts = big ? counts : wc;
        r.displs = big ? displs : wd;
        for (int i = 0; i < p; i++) {
            MPI_Count k = count_at(counts, big, i);
            MPI_Aint d = displ_at(displs, big, i), end;
            if (!big) {
                wc[i] = k;
                wd[i] = d;
            }
            if (k <= 0) {
                if (k < 0)
                    return 0; /* (MPI_ERR_COUNT) */
                continue;
            }
            if (__builtin_add_overflow(d, (MPI_Aint)k, &end))
                return 0;
            if (r.most == 0 || d < lo)
                lo = d;
            if (r.most == 0 || end > hi)
                hi = end;
            if ((size_t)k > r.most)
                r.most = (size_t)k;
        }
        if (r.most == 0)
            return 0; /* (nothing moves here: coll_call's empty part) */
    }
    /* the root's own block against the bound of its blocks: apart, or
     * coll_call looks at each block */
    if (r.mdt != NULL && n > 0 && dt_size(r.mdt) > 0) {
        MPI_Aint off;
        if (!span_contig(mine, 0, n, r.mdt, &os) ||
            __builtin_mul_overflow(lo, (MPI_Aint)esz, &off) ||
            !span_contig(many, off, hi - lo, r.dt, &ms) || (os.lo < ms.hi && ms.lo < os.hi))
            return 0;
    }
    st = coll_root_direct(c, kind, &r, &ran);
    if (!ran)
        return 0;
    *err = st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
    return 1;
}

/* gather, scatter, allgather, alltoall and their neighbourhood forms */
static inline __attribute__((always_inline)) int
coll_blocks(coll_kind_t kind, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, mpi_comm_t *c,
            coll_mode_t mode, MPI_Request *request, const char *fn)
{
    int err;
    /* Nothing to send or receive at any rank (both counts 0: the other
     * ranks' are too, by the type signatures' rule), as coll_call would
     * find after its checks (empty_call_done); MPI_IN_PLACE, a datatype
     * that is not predefined or a neighbourhood form takes coll_call. The
     * call_t is made after this test, not before: its zeroing (a rep stos
     * of 14 words) was a third of an empty MPI_Scatter's instructions. Before
     * the direct paths below, which refuse an empty call anyway (np4 empty
     * MPI_Scatter at the root: 236 -> 84 instructions a call). */
    if (sendcount == 0 && recvcount == 0 && !is_neighbor(kind) && sendbuf != MPI_IN_PLACE &&
        recvbuf != MPI_IN_PLACE &&
        ((kind != COLL_GATHER && kind != COLL_SCATTER) || (unsigned)root < (unsigned)c->size) &&
        empty_type_ok(sendtype) && empty_call_done(c, recvtype, 0, MPI_OP_NULL, mode, request))
        return MPI_SUCCESS;
    /* a blocking gather's or scatter's leaf with data: as gatherv's and
     * scatterv's (np4 MPI_Scatter of 8 B, a leaf whose message is there:
     * 468 -> 407 instructions a call, callgrind) */
    /* and the root's (root_direct; one test of the rank picks the side) */
    if (kind == COLL_GATHER &&
        (c->rank != root
             ? leaf_direct(c, kind, sendbuf, sendcount, sendtype, root, mode, fn, &err)
             : root_direct(c, kind, recvbuf, recvcount, NULL, NULL, 0, recvtype, sendbuf,
                           sendcount, sendtype, root, mode, fn, &err)))
        return err;
    if (kind == COLL_SCATTER &&
        (c->rank != root
             ? leaf_direct(c, kind, recvbuf, recvcount, recvtype, root, mode, fn, &err)
             : root_direct(c, kind, sendbuf, sendcount, NULL, NULL, 0, sendtype, recvbuf,
                           recvcount, recvtype, root, mode, fn, &err)))
        return err;
    call_t k = {.kind = kind,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root};
    return coll_call(&k, c, mode, request, fn);
}

/* gatherv, allgatherv, neighbor_allgatherv: receive counts and displacements */
static inline __attribute__((always_inline)) int
coll_recv_v(coll_kind_t kind, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void *recvbuf, const void *recvcounts, const void *displs, MPI_Datatype recvtype,
            int root, mpi_comm_t *c, int large, coll_mode_t mode, MPI_Request *request,
            const char *fn)
{
    int err;
    /* (an empty part first: it looks no further than a count that is not
     * 0, and root_direct refuses a call where nothing moves only after its
     * checks: np4 empty MPI_Gatherv at the root 482 -> 238 instructions) */
    if (kind == COLL_GATHERV &&
        empty_part_done(c, kind, root, sendbuf, sendcount, sendtype, recvcounts, displs, large,
                        recvtype, mode, request))
        return MPI_SUCCESS;
    if (kind == COLL_GATHERV &&
        (c->rank != root
             ? leaf_direct(c, kind, sendbuf, sendcount, sendtype, root, mode, fn, &err)
             : root_direct(c, kind, recvbuf, 0, recvcounts, displs, large, recvtype, sendbuf,
                           sendcount, sendtype, root, mode, fn, &err)))
        return err;
    /* allgatherv with every count 0 (each rank has the same counts): as
     * coll_blocks */
    if (kind == COLL_ALLGATHERV && sendcount == 0 && sendbuf != MPI_IN_PLACE &&
        recvbuf != MPI_IN_PLACE && displs != NULL && !c->is_inter &&
        empty_counts(recvcounts, large, c->size) &&
        empty_type_ok(sendtype) && empty_call_done(c, recvtype, 0, MPI_OP_NULL, mode, request))
        return MPI_SUCCESS;
    call_t k = {.kind = kind, /* (made after the short paths: coll_blocks) */
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .big = large};
    return coll_call(&k, c, mode, request, fn);
}

static inline __attribute__((always_inline)) int
coll_scatterv(const void *sendbuf, const void *sendcounts, const void *displs,
              MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int root, mpi_comm_t *c, int large, coll_mode_t mode, MPI_Request *request,
              const char *fn)
{
    int err;
    /* (an empty part first, as coll_recv_v's; then a leaf with data:
     * leaf_direct refuses an empty part; the root) */
    if (empty_part_done(c, COLL_SCATTERV, root, recvbuf, recvcount, recvtype, sendcounts, displs,
                        large, sendtype, mode, request))
        return MPI_SUCCESS;
    if (c->rank != root
            ? leaf_direct(c, COLL_SCATTERV, recvbuf, recvcount, recvtype, root, mode, fn, &err)
            : root_direct(c, COLL_SCATTERV, sendbuf, 0, sendcounts, displs, large, sendtype,
                          recvbuf, recvcount, recvtype, root, mode, fn, &err))
        return err;
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .big = large};
    return coll_call(&k, c, mode, request, fn);
}

/* alltoallv and alltoallw (one type, or an array of types, per side) and
 * their neighbourhood forms; displs_aint: MPI_Aint displacements in the int
 * form too (neighbor_alltoallw) */
static int coll_alltoall_v(coll_kind_t kind, const void *sendbuf, const void *sendcounts,
                           const void *sdispls, MPI_Datatype sendtype,
                           const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                           const void *rdispls, MPI_Datatype recvtype,
                           const MPI_Datatype *recvtypes, mpi_comm_t *c, int large, int displs_aint,
                           coll_mode_t mode, MPI_Request *request, const char *fn)
{
    call_t k = {.kind = kind,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .recvtypes = recvtypes,
                .big = large,
                .displs_aint = displs_aint};
    return coll_call(&k, c, mode, request, fn);
}

/* An empty MPI_(I)Bcast or MPI_(I)Allreduce (count 0) on an intracommunicator,
 * the commonest calls that move nothing: when every argument is valid
 * (datatype `dt` committed; for allreduce `op` defined on it), return as
 * coll_call would after check_call and coll_moves_nothing, without building
 * their arguments (MPI_Ibcast(0)+MPI_Wait: 468 -> ~300 instructions, then
 * ~150 with the generated entry's hot path and the tests below).
 * Anything else (an argument error, an intercommunicator, a persistent
 * call, the checking mode, a revoked communicator) answers 0 and takes
 * coll_call, which raises the errors.
 * A predefined datatype is committed (mpi_dt_is_predefined, no lookup);
 * the last pair of a predefined operation and a predefined datatype that
 * coll_op_check accepted is remembered (empty_op_ok: both halves in one
 * word, so threads read a pair that was checked), as neither can change. */
static uint64_t empty_op_ok;

static uint64_t empty_op_key(MPI_Op op, MPI_Datatype dt)
{
    return (uint64_t)(uint32_t)op << 32 | (uint32_t)dt;
}

/* The datatype (and operation) tests of empty_call_done the short way does
 * not decide: the lookup, the commit flag, coll_op_check. */
static __attribute__((noinline)) int empty_args_valid(MPI_Datatype dt, int is_allreduce, MPI_Op op)
{
    dt_type_t *t;
    char msg[200];

    if ((t = mpi_dt_get(dt)) == NULL || !dt_is_committed(t) ||
        (is_allreduce && coll_op_check(op, t, msg, sizeof msg) != MPI_SUCCESS))
        return 0;
    if (is_allreduce && mpi_handle_kind(op) == MPI_HKIND_BUILTIN && mpi_dt_is_predefined(dt))
        __atomic_store_n(&empty_op_ok, empty_op_key(op, dt), __ATOMIC_RELAXED);
    return 1;
}

/* coll_check_enabled() without its call: the mode is read once per process
 * (CANAL_COLL_CHECK) and never changes. */
static int empty_check_mode = -1;

static inline int empty_check_enabled(void)
{
    int on = __atomic_load_n(&empty_check_mode, __ATOMIC_RELAXED);
    if (__builtin_expect(on < 0, 0)) {
        on = coll_check_enabled();
        __atomic_store_n(&empty_check_mode, on, __ATOMIC_RELAXED);
    }
    return on;
}

static inline int empty_call_done(mpi_comm_t *c, MPI_Datatype dt, int is_allreduce, MPI_Op op,
                                  coll_mode_t mode, MPI_Request *request)
{
    if (c->is_inter || mode == MODE_PERSISTENT || (mode == MODE_NONBLOCKING && request == NULL))
        return 0;
    if (!(mpi_dt_is_predefined(dt) &&
          (!is_allreduce ||
           __atomic_load_n(&empty_op_ok, __ATOMIC_RELAXED) == empty_op_key(op, dt))) &&
        !empty_args_valid(dt, is_allreduce, op))
        return 0;
    if (empty_check_enabled() || adi_ctx_pair_revoked_inline(c->context))
        return 0;
    if (mode == MODE_NONBLOCKING)
        *request = mpi_request_done_handle();
    return 1;
}

/* A datatype an empty call accepts the short way: predefined, or valid and
 * committed (empty_args_valid). */
static int empty_type_ok(MPI_Datatype dt)
{
    return mpi_dt_is_predefined(dt) || empty_args_valid(dt, 0, MPI_OP_NULL);
}

/* An intracommunicator gatherv (scatterv) in which this rank sends
 * (receives) nothing -- mybuf, mycount, mytype: its own block -- and, at
 * the root, every block of counts is empty too: coll_skip_empty_part's
 * case, decided before check_call builds the arguments (with its checks
 * for it: the root in range, predefined or committed types, counts and
 * displacements given, no MPI_IN_PLACE); the call sequence steps as the
 * linear schedule would. Anything else answers 0 and takes coll_call. */
static int empty_part_done(mpi_comm_t *c, coll_kind_t kind, int root, const void *mybuf,
                           MPI_Count mycount, MPI_Datatype mytype, const void *counts,
                           const void *displs, int big, MPI_Datatype roottype, coll_mode_t mode,
                           MPI_Request *request)
{
    if (mycount != 0 || mybuf == MPI_IN_PLACE || c->is_inter || (unsigned)root >= (unsigned)c->size)
        return 0;
    if (c->rank == root && (displs == NULL || !empty_counts(counts, big, c->size) ||
                            !empty_type_ok(roottype)))
        return 0;
    if (!empty_type_ok(mytype) || mode == MODE_PERSISTENT ||
        (mode == MODE_NONBLOCKING && request == NULL) || empty_check_enabled() ||
        adi_ctx_pair_revoked_inline(c->context) || !coll_skip_call(c, kind))
        return 0;
    if (mode == MODE_NONBLOCKING)
        *request = mpi_request_done_handle();
    return 1;
}

/* counts (int[] or, big, MPI_Count[]) holds n zeros (NULL: no; a negative
 * count is an error coll_call raises). */
static int empty_counts(const void *counts, int big, int n)
{
    if (counts == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        if (count_at(counts, big, i) != 0)
            return 0;
    return 1;
}

/* reduce, allreduce, scan, exscan, reduce_scatter(_block) */
static __attribute__((noinline)) int
coll_reduction(coll_kind_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                          const void *recvcounts, MPI_Datatype datatype, MPI_Op op, int root,
                          mpi_comm_t *c, int large, coll_mode_t mode, MPI_Request *request,
                          const char *fn)
{
    /* Count 0 (reduce_scatter: every count 0, the same at every rank), as
     * the empty MPI_Allreduce, which mpi_allreduce_impl took before this;
     * reduce's root in range, no MPI_IN_PLACE (coll_call checks where it may
     * be passed). */
    if (kind != COLL_ALLREDUCE &&
        (kind == COLL_REDUCE_SCATTER ? !c->is_inter && empty_counts(recvcounts, large, c->size)
                                     : count == 0) &&
        sendbuf != MPI_IN_PLACE && (kind != COLL_REDUCE || (unsigned)root < (unsigned)c->size) &&
        empty_call_done(c, datatype, 1, op, mode, request))
        return MPI_SUCCESS;
    call_t k = {.kind = kind, /* (made after the short path: coll_blocks) */
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .big = large};
    return coll_call(&k, c, mode, request, fn);
}

/* ---------------------------------------------------------------- barrier, bcast */
int mpi_barrier_impl(mpi_comm_t *comm, const char *fn)
{
    call_t k = {.kind = COLL_BARRIER};
    /* Alone in an intracommunicator (MPI_COMM_SELF): nothing to wait for, no
     * schedule to build (513 instructions before); a revoked one still fails. */
    if (comm->size == 1 && !comm->is_inter && !adi_ctx_pair_revoked(comm->context))
        return MPI_SUCCESS; /* (revoked: coll_call says so) */
    /* All ranks on this node: the shared block (coll/shm.c); two ranks: one
     * exchange with the peer, no schedule (coll/pair.c); unless the checking
     * mode or a revocation has something to say. */
    if (comm->size >= 2 && !comm->is_inter && !coll_check_enabled() &&
        !adi_ctx_pair_revoked(comm->context)) {
        int ran;
        canal_status_t st = coll_barrier_direct(comm, &ran);
        if (ran)
            return st < 0 ? mpi_err_status(comm, st, fn) : MPI_SUCCESS;
    }
    return coll_call(&k, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_ibarrier_impl(mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    call_t k = {.kind = COLL_BARRIER};
    return coll_call(&k, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_barrier_init_impl(mpi_comm_t *comm, MPI_Info info, MPI_Request *request, const char *fn)
{
    call_t k = {.kind = COLL_BARRIER};
    (void)info;
    return coll_call(&k, comm, MODE_PERSISTENT, request, fn);
}

/* (out of line: the short path of coll_bcast builds no call_t) */
static __attribute__((noinline)) int coll_bcast_call(void *buffer, MPI_Count count,
                                                     MPI_Datatype datatype, int root,
                                                     mpi_comm_t *c, coll_mode_t mode,
                                                     MPI_Request *request, const char *fn)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root};
    return coll_call(&k, c, mode, request, fn);
}

/* A blocking bcast of an intracommunicator of 2 ranks or more with a
 * predefined datatype and arguments that pass check_call's bcast checks (the
 * root in range, a positive count, a buffer, the datatype), run on the
 * node's shared block (coll_bcast_direct) without call_t, coll_args_t or
 * coll_call's general steps. 1 with *err the result when it ran; 0 when
 * anything else holds (a failed check, an empty call, a revoked
 * communicator, the checking mode, a forced algorithm, a message the block
 * does not take, ranks on other nodes), and coll_call takes the call, with
 * its checks and errors. np4 4 B, rotating roots, callgrind: about 500 ->
 * 140 instructions a call before the block's own (doc/bench.md, stop 44). */
static int bcast_direct(mpi_comm_t *c, void *buf, MPI_Count count, MPI_Datatype type, int root,
                        const char *fn, int *err)
{
    int ran = 0;
    dt_type_t *dt;
    size_t size;
    canal_status_t st;

    if (c->is_inter || c->size < 2 || (unsigned)root >= (unsigned)c->size || count <= 0 ||
        buf == NULL || buf == MPI_IN_PLACE || !mpi_dt_is_predefined(type) || (size = dt_size(dt = mpi_dt_get(type))) == 0 ||
        (unsigned long long)count > SIZE_MAX / size || empty_check_enabled() ||
        adi_ctx_pair_revoked_inline(c->context))
        return 0;
    st = coll_bcast_direct(c, buf, (size_t)count, dt, root, &ran);
    if (!ran)
        return 0;
    *err = st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
    return 1;
}

static inline int coll_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                             mpi_comm_t *c, coll_mode_t mode, MPI_Request *request,
                             const char *fn)
{
    int err;

    if (mode == MODE_BLOCKING && bcast_direct(c, buffer, count, datatype, root, fn, &err))
        return err;
    if (count == 0 && (unsigned)root < (unsigned)c->size &&
        empty_call_done(c, datatype, 0, MPI_OP_NULL, mode, request))
        return MPI_SUCCESS;
    return coll_bcast_call(buffer, count, datatype, root, c, mode, request, fn);
}

int mpi_bcast_impl(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, mpi_comm_t *comm,
                   const char *fn)
{
    return coll_bcast(buffer, count, datatype, root, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_ibcast_impl(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                    mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_bcast(buffer, count, datatype, root, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_bcast_init_impl(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        mpi_comm_t *comm, MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_bcast(buffer, count, datatype, root, comm, MODE_PERSISTENT, request, fn);
}
/* ---------------------------------------------------------------- gather */
int mpi_gather_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, mpi_comm_t *comm,
                    const char *fn)
{
    return coll_blocks(COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_igather_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, mpi_comm_t *comm,
                     MPI_Request *request, const char *fn)
{
    return coll_blocks(COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_gather_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         mpi_comm_t *comm, MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_blocks(COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- gatherv */
int mpi_gatherv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const void *recvcounts, const void *displs, MPI_Datatype recvtype, int root,
                     mpi_comm_t *comm, int large, const char *fn)
{
    return coll_recv_v(COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, root, comm, large, MODE_BLOCKING, NULL, fn);
}

int mpi_igatherv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const void *recvcounts, const void *displs,
                      MPI_Datatype recvtype, int root, mpi_comm_t *comm, MPI_Request *request,
                      int large, const char *fn)
{
    return coll_recv_v(COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, root, comm, large, MODE_NONBLOCKING, request, fn);
}

int mpi_gatherv_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const void *recvcounts, const void *displs,
                          MPI_Datatype recvtype, int root, mpi_comm_t *comm, MPI_Info info,
                          MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_recv_v(COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, root, comm, large, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- scatter */
int mpi_scatter_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, mpi_comm_t *comm,
                     const char *fn)
{
    return coll_blocks(COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_iscatter_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_blocks(COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_scatter_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          mpi_comm_t *comm, MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_blocks(COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- scatterv */
int mpi_scatterv_impl(const void *sendbuf, const void *sendcounts, const void *displs,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, mpi_comm_t *comm, int large, const char *fn)
{
    return coll_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm, large, MODE_BLOCKING, NULL, fn);
}

int mpi_iscatterv_impl(const void *sendbuf, const void *sendcounts, const void *displs,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, mpi_comm_t *comm, MPI_Request *request,
                       int large, const char *fn)
{
    return coll_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm, large, MODE_NONBLOCKING, request, fn);
}

int mpi_scatterv_init_impl(const void *sendbuf, const void *sendcounts, const void *displs,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int root, mpi_comm_t *comm, MPI_Info info,
                           MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm, large, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- allgather */
int mpi_allgather_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, mpi_comm_t *comm,
                       const char *fn)
{
    return coll_blocks(COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       0, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_iallgather_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, mpi_comm_t *comm,
                        MPI_Request *request, const char *fn)
{
    return coll_blocks(COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       0, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_allgather_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            mpi_comm_t *comm, MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_blocks(COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       0, comm, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- allgatherv */
int mpi_allgatherv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const void *recvcounts, const void *displs,
                        MPI_Datatype recvtype, mpi_comm_t *comm, int large, const char *fn)
{
    return coll_recv_v(COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, 0, comm, large, MODE_BLOCKING, NULL, fn);
}

int mpi_iallgatherv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const void *recvcounts, const void *displs,
                         MPI_Datatype recvtype, mpi_comm_t *comm, MPI_Request *request, int large,
                         const char *fn)
{
    return coll_recv_v(COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, 0, comm, large, MODE_NONBLOCKING, request, fn);
}

int mpi_allgatherv_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const void *recvcounts, const void *displs,
                             MPI_Datatype recvtype, mpi_comm_t *comm, MPI_Info info,
                             MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_recv_v(COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, 0, comm, large, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- alltoall */
int mpi_alltoall_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, mpi_comm_t *comm,
                      const char *fn)
{
    return coll_blocks(COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0,
                       comm, MODE_BLOCKING, NULL, fn);
}

int mpi_ialltoall_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, mpi_comm_t *comm,
                       MPI_Request *request, const char *fn)
{
    return coll_blocks(COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0,
                       comm, MODE_NONBLOCKING, request, fn);
}

int mpi_alltoall_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           mpi_comm_t *comm, MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_blocks(COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0,
                       comm, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- alltoallv */
int mpi_alltoallv_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                       MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                       const void *rdispls, MPI_Datatype recvtype, mpi_comm_t *comm, int large,
                       const char *fn)
{
    return coll_alltoall_v(COLL_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                           recvcounts, rdispls, recvtype, NULL, comm, large, 0, MODE_BLOCKING, NULL,
                           fn);
}

int mpi_ialltoallv_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                        MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                        const void *rdispls, MPI_Datatype recvtype, mpi_comm_t *comm,
                        MPI_Request *request, int large, const char *fn)
{
    return coll_alltoall_v(COLL_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                           recvcounts, rdispls, recvtype, NULL, comm, large, 0, MODE_NONBLOCKING,
                           request, fn);
}

int mpi_alltoallv_init_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                            const void *rdispls, MPI_Datatype recvtype, mpi_comm_t *comm,
                            MPI_Info info, MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_alltoall_v(COLL_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                           recvcounts, rdispls, recvtype, NULL, comm, large, 0, MODE_PERSISTENT,
                           request, fn);
}

/* ---------------------------------------------------------------- alltoallw */
int mpi_alltoallw_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                       const MPI_Datatype sendtypes[], void *recvbuf, const void *recvcounts,
                       const void *rdispls, const MPI_Datatype recvtypes[], mpi_comm_t *comm,
                       int large, const char *fn)
{
    return coll_alltoall_v(COLL_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                           sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                           comm, large, 0, MODE_BLOCKING, NULL, fn);
}

int mpi_ialltoallw_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                        const MPI_Datatype sendtypes[], void *recvbuf, const void *recvcounts,
                        const void *rdispls, const MPI_Datatype recvtypes[], mpi_comm_t *comm,
                        MPI_Request *request, int large, const char *fn)
{
    return coll_alltoall_v(COLL_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                           sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                           comm, large, 0, MODE_NONBLOCKING, request, fn);
}

int mpi_alltoallw_init_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                            const MPI_Datatype sendtypes[], void *recvbuf, const void *recvcounts,
                            const void *rdispls, const MPI_Datatype recvtypes[], mpi_comm_t *comm,
                            MPI_Info info, MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_alltoall_v(COLL_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                           sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                           comm, large, 0, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- reduce */
int mpi_reduce_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, int root, mpi_comm_t *comm, const char *fn)
{
    return coll_reduction(COLL_REDUCE, sendbuf, recvbuf, count, NULL, datatype, op, root, comm, 0,
                          MODE_BLOCKING, NULL, fn);
}

int mpi_ireduce_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, int root, mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_reduction(COLL_REDUCE, sendbuf, recvbuf, count, NULL, datatype, op, root, comm, 0,
                          MODE_NONBLOCKING, request, fn);
}

int mpi_reduce_init_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, int root, mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                         const char *fn)
{
    (void)info;
    return coll_reduction(COLL_REDUCE, sendbuf, recvbuf, count, NULL, datatype, op, root, comm, 0,
                          MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- allreduce */
int mpi_allreduce_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, mpi_comm_t *comm, const char *fn)
{
    if (count == 0 && empty_call_done(comm, datatype, 1, op, MODE_BLOCKING, NULL))
        return MPI_SUCCESS;
    return coll_reduction(COLL_ALLREDUCE, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_BLOCKING, NULL, fn);
}

int mpi_iallreduce_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    if (count == 0 && empty_call_done(comm, datatype, 1, op, MODE_NONBLOCKING, request))
        return MPI_SUCCESS;
    return coll_reduction(COLL_ALLREDUCE, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_NONBLOCKING, request, fn);
}

int mpi_allreduce_init_impl(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm, MPI_Info info,
                            MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_reduction(COLL_ALLREDUCE, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- reduce scatter */
int mpi_reduce_scatter_impl(const void *sendbuf, void *recvbuf, const void *recvcounts,
                            MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm, int large,
                            const char *fn)
{
    return coll_reduction(COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, datatype, op, 0,
                          comm, large, MODE_BLOCKING, NULL, fn);
}

int mpi_ireduce_scatter_impl(const void *sendbuf, void *recvbuf, const void *recvcounts,
                             MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm,
                             MPI_Request *request, int large, const char *fn)
{
    return coll_reduction(COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, datatype, op, 0,
                          comm, large, MODE_NONBLOCKING, request, fn);
}

int mpi_reduce_scatter_init_impl(const void *sendbuf, void *recvbuf, const void *recvcounts,
                                 MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm, MPI_Info info,
                                 MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_reduction(COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, datatype, op, 0,
                          comm, large, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- reduce scatter block */
int mpi_reduce_scatter_block_impl(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                  MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm,
                                  const char *fn)
{
    return coll_reduction(COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL, datatype,
                          op, 0, comm, 0, MODE_BLOCKING, NULL, fn);
}

int mpi_ireduce_scatter_block_impl(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm,
                                   MPI_Request *request, const char *fn)
{
    return coll_reduction(COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL, datatype,
                          op, 0, comm, 0, MODE_NONBLOCKING, request, fn);
}

int mpi_reduce_scatter_block_init_impl(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                       MPI_Datatype datatype, MPI_Op op, mpi_comm_t *comm,
                                       MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_reduction(COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL, datatype,
                          op, 0, comm, 0, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- scan */
int mpi_scan_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, mpi_comm_t *comm, const char *fn)
{
    return coll_reduction(COLL_SCAN, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_BLOCKING, NULL, fn);
}

int mpi_iscan_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_reduction(COLL_SCAN, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_NONBLOCKING, request, fn);
}

int mpi_scan_init_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                       const char *fn)
{
    (void)info;
    return coll_reduction(COLL_SCAN, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- exscan */
int mpi_exscan_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, mpi_comm_t *comm, const char *fn)
{
    return coll_reduction(COLL_EXSCAN, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_BLOCKING, NULL, fn);
}

int mpi_iexscan_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_reduction(COLL_EXSCAN, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_NONBLOCKING, request, fn);
}

int mpi_exscan_init_impl(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                         const char *fn)
{
    (void)info;
    return coll_reduction(COLL_EXSCAN, sendbuf, recvbuf, count, NULL, datatype, op, 0, comm, 0,
                          MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- neighbor allgather */
int mpi_neighbor_allgather_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                mpi_comm_t *comm, const char *fn)
{
    return coll_blocks(COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, 0, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_ineighbor_allgather_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_blocks(COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, 0, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_neighbor_allgather_init_impl(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, mpi_comm_t *comm, MPI_Info info,
                                     MPI_Request *request, const char *fn)
{
    (void)info;
    return coll_blocks(COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, 0, comm, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- neighbor allgatherv */
int mpi_neighbor_allgatherv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const void *recvcounts, const void *displs,
                                 MPI_Datatype recvtype, mpi_comm_t *comm, int large, const char *fn)
{
    return coll_recv_v(COLL_NEIGHBOR_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                       displs, recvtype, 0, comm, large, MODE_BLOCKING, NULL, fn);
}

int mpi_ineighbor_allgatherv_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const void *recvcounts, const void *displs,
                                  MPI_Datatype recvtype, mpi_comm_t *comm, MPI_Request *request,
                                  int large, const char *fn)
{
    return coll_recv_v(COLL_NEIGHBOR_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                       displs, recvtype, 0, comm, large, MODE_NONBLOCKING, request, fn);
}

int mpi_neighbor_allgatherv_init_impl(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                                      const void *displs, MPI_Datatype recvtype, mpi_comm_t *comm,
                                      MPI_Info info, MPI_Request *request, int large,
                                      const char *fn)
{
    (void)info;
    return coll_recv_v(COLL_NEIGHBOR_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                       displs, recvtype, 0, comm, large, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- neighbor alltoall */
int mpi_neighbor_alltoall_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               mpi_comm_t *comm, const char *fn)
{
    return coll_blocks(COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, 0, comm, MODE_BLOCKING, NULL, fn);
}

int mpi_ineighbor_alltoall_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                mpi_comm_t *comm, MPI_Request *request, const char *fn)
{
    return coll_blocks(COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, 0, comm, MODE_NONBLOCKING, request, fn);
}

int mpi_neighbor_alltoall_init_impl(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                                    const char *fn)
{
    (void)info;
    return coll_blocks(COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, 0, comm, MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- neighbor alltoallv */
int mpi_neighbor_alltoallv_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                                MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                                const void *rdispls, MPI_Datatype recvtype, mpi_comm_t *comm,
                                int large, const char *fn)
{
    return coll_alltoall_v(COLL_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL,
                           recvbuf, recvcounts, rdispls, recvtype, NULL, comm, large, 0,
                           MODE_BLOCKING, NULL, fn);
}

int mpi_ineighbor_alltoallv_impl(const void *sendbuf, const void *sendcounts, const void *sdispls,
                                 MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                                 const void *rdispls, MPI_Datatype recvtype, mpi_comm_t *comm,
                                 MPI_Request *request, int large, const char *fn)
{
    return coll_alltoall_v(COLL_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL,
                           recvbuf, recvcounts, rdispls, recvtype, NULL, comm, large, 0,
                           MODE_NONBLOCKING, request, fn);
}

int mpi_neighbor_alltoallv_init_impl(const void *sendbuf, const void *sendcounts,
                                     const void *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                     const void *recvcounts, const void *rdispls,
                                     MPI_Datatype recvtype, mpi_comm_t *comm, MPI_Info info,
                                     MPI_Request *request, int large, const char *fn)
{
    (void)info;
    return coll_alltoall_v(COLL_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL,
                           recvbuf, recvcounts, rdispls, recvtype, NULL, comm, large, 0,
                           MODE_PERSISTENT, request, fn);
}

/* ---------------------------------------------------------------- neighbor alltoallw */
int mpi_neighbor_alltoallw_impl(const void *sendbuf, const void *sendcounts,
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const void *recvcounts, const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], mpi_comm_t *comm, int large,
                                const char *fn)
{
    return coll_alltoall_v(COLL_NEIGHBOR_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                           sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                           comm, large, 1, MODE_BLOCKING, NULL, fn);
}

int mpi_ineighbor_alltoallw_impl(const void *sendbuf, const void *sendcounts,
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const void *recvcounts, const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], mpi_comm_t *comm,
                                 MPI_Request *request, int large, const char *fn)
{
    return coll_alltoall_v(COLL_NEIGHBOR_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                           sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                           comm, large, 1, MODE_NONBLOCKING, request, fn);
}

int mpi_neighbor_alltoallw_init_impl(const void *sendbuf, const void *sendcounts,
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const void *recvcounts,
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     mpi_comm_t *comm, MPI_Info info, MPI_Request *request,
                                     int large, const char *fn)
{
    (void)info;
    return coll_alltoall_v(COLL_NEIGHBOR_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                           sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                           comm, large, 1, MODE_PERSISTENT, request, fn);
}
