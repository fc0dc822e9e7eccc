/*
 * Collective communication, the MPI front (MPI 4.0 chapter 6, and the
 * neighbourhood collectives of chapter 8): every blocking, nonblocking
 * (MPI_I...) and persistent (..._init) collective, in int and large-count
 * (_c) forms. Each function fills a call_t with its arguments and hands it
 * to coll_call(), which checks the arguments (raising the MPICH error
 * class: MPI_ERR_COMM, MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_TYPE,
 * MPI_ERR_OP, MPI_ERR_BUFFER, MPI_ERR_ARG ...), widens int arrays to
 * MPI_Count/MPI_Aint, records the collective into a schedule (coll/) and
 * then runs it: to the end (blocking), in the background with a request
 * (nonblocking), or not yet (persistent: MPI_Start runs it).
 */
#include "mpiimpl.h"

#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "comm_impl.h"

#pragma weak mpi_topo_neighbors

typedef enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT } coll_mode_t;

/* The arguments as the MPI function got them. Arrays are int[] unless big
 * (MPI_Count[] counts and MPI_Aint[] displacements of the _c functions);
 * sdispls/rdispls_aint marks the MPI_Aint displacements that neighbour
 * alltoallw takes even in its int form. */
typedef struct {
    coll_kind_t kind;
    MPI_Comm comm;
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
    st = coll_sched_start(ps->sched, inner, 1);
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
static int is_in_place(const void *p)
{
    return p == MPI_IN_PLACE;
}

static int check_root(mpi_comm_t *c, int root, const char *fn)
{
    if (c->is_inter) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_size))
            return MPI_SUCCESS;
        return mpi_err_raise(c, MPI_ERR_ROOT, fn,
                             "root=%d is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
                             "group [0, %d)",
                             root, c->peer_size);
    }
    if (root < 0 || root >= c->size)
        return mpi_err_raise(c, MPI_ERR_ROOT, fn, "root=%d is not in [0, %d)", root, c->size);
    return MPI_SUCCESS;
}

/* count, datatype and buffer of one side of a call. */
static int check_side(mpi_comm_t *c, const void *buf, MPI_Count count, MPI_Datatype dth,
                      const char *what, const char *fn, dt_type_t **dt_out)
{
    int err;
    if (count < 0)
        return mpi_err_raise(c, MPI_ERR_COUNT, fn, "%scount=%lld is negative", what,
                             (long long)count);
    if ((err = mpi_check_dt(c, dth, fn, dt_out)))
        return err;
    if (buf == NULL && count > 0 && dt_size(*dt_out) > 0 &&
        mpi_handle_kind(dth) == MPI_HKIND_BUILTIN)
        return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "%sbuf is NULL with %scount=%lld", what, what,
                             (long long)count);
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

/* A counts array of n entries, widened into *out (malloc'd). */
static int take_counts(mpi_comm_t *c, const void *arr, int big, int n, const char *what,
                       const char *fn, MPI_Count **out)
{
    MPI_Count *w;
    *out = NULL;
    if (n > 0 && arr == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    w = malloc(sizeof(MPI_Count) * (size_t)(n > 0 ? n : 1));
    if (w == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for %d counts", n);
    for (int i = 0; i < n; i++) {
        w[i] = count_at(arr, big, i);
        if (w[i] < 0) {
            free(w);
            return mpi_err_raise(c, MPI_ERR_COUNT, fn, "%s[%d]=%lld is negative", what, i,
                                 (long long)count_at(arr, big, i));
        }
    }
    *out = w;
    return MPI_SUCCESS;
}

static int take_displs(mpi_comm_t *c, const void *arr, int aint, int n, const char *what,
                       const char *fn, MPI_Aint **out)
{
    MPI_Aint *w;
    *out = NULL;
    if (n > 0 && arr == NULL)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    w = malloc(sizeof(MPI_Aint) * (size_t)(n > 0 ? n : 1));
    if (w == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for %d displacements", n);
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
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "%s is NULL", what);
    dts = malloc(sizeof(dt_type_t *) * (size_t)(n > 0 ? n : 1));
    if (dts == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "no memory for %d datatypes", n);
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
        return mpi_err_raise(c, cls, fn, "%s", msg);
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

/* count elements of dt at buf + offset (bytes); empty if nothing moves or
 * the arithmetic overflows (then there is nothing sound to check). */
static span_t span_of(const void *buf, MPI_Aint offset, MPI_Count count, dt_type_t *dt)
{
    span_t s = {0, 0};
    intptr_t base, last;
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

static span_t block_span(const blocks_t *b, int i)
{
    dt_type_t *dt = b->dts != NULL ? b->dts[i] : b->dt;
    MPI_Count count = b->counts != NULL ? b->counts[i] : b->count;
    MPI_Aint off;
    if (dt == NULL)
        return (span_t){0, 0};
    if (b->displs == NULL) {
        if (__builtin_mul_overflow((MPI_Aint)i, (MPI_Aint)count, &off) ||
            __builtin_mul_overflow(off, (MPI_Aint)dt_extent(dt), &off))
            return (span_t){0, 0};
    } else if (b->displs_bytes) {
        off = b->displs[i];
    } else if (__builtin_mul_overflow(b->displs[i], (MPI_Aint)dt_extent(dt), &off)) {
        return (span_t){0, 0};
    }
    return span_of(b->buf, off, count, dt);
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

    for (int k = 0; k < 2; k++) {
        bound[k] = (span_t){0, 0};
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
    char sblk[48] = "", rblk[48] = "";
    int si = 0, ri = 0;
    if (!blocks_overlap(snd, rcv, &si, &ri))
        return MPI_SUCCESS;
    if (snd->n > 1)
        snprintf(sblk, sizeof sblk, " (send block %d)", si);
    if (rcv->n > 1)
        snprintf(rblk, sizeof rblk, " (receive block %d)", ri);
    return mpi_err_raise(c, MPI_ERR_BUFFER, fn,
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
        return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "%s is MPI_IN_PLACE, which is %s", what, why);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the common path */
typedef struct {
    MPI_Count *sendcounts, *recvcounts;
    MPI_Aint *sdispls, *rdispls;
    dt_type_t **sdts, **rdts; /* alltoallw */
} widened_t;

static void widened_free(widened_t *w)
{
    free(w->sdts);
    free(w->rdts);
    free(w->sendcounts);
    free(w->recvcounts);
    free(w->sdispls);
    free(w->rdispls);
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

    switch (k->kind) {
    case COLL_BARRIER:
        return MPI_SUCCESS;

    case COLL_BCAST:
        if ((err = check_root(c, k->root, fn)))
            return err;
        if (inter && k->root == MPI_PROC_NULL)
            return MPI_SUCCESS;
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
                                   &w->recvcounts)) ||
                (err = take_displs(c, k->rdispls, k->big, rsize, "displs", fn, &w->rdispls)) ||
                (err = mpi_check_dt(c, k->recvtype, fn, &a->rdt)))
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
                                   &w->sendcounts)) ||
                (err = take_displs(c, k->sdispls, k->big, rsize, "displs", fn, &w->sdispls)) ||
                (err = mpi_check_dt(c, k->sendtype, fn, &a->sdt)))
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
                                   &w->recvcounts)) ||
                (err = take_displs(c, k->rdispls, k->big, nrecv, "displs", fn, &w->rdispls)) ||
                (err = mpi_check_dt(c, k->recvtype, fn, &a->rdt)))
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
                                   &w->sendcounts)) ||
                (err = take_displs(c, k->sdispls, daint, nsend, "sdispls", fn, &w->sdispls)))
                return err;
            if (wvar)
                err = check_types(c, k->sendtypes, nsend, "sendtypes", fn, &w->sdts);
            else
                err = mpi_check_dt(c, k->sendtype, fn, &a->sdt);
            if (err)
                return err;
            a->sendcounts = w->sendcounts;
            a->sdispls = w->sdispls;
        }
        if ((err =
                 take_counts(c, k->recvcounts, k->big, nrecv, "recvcounts", fn, &w->recvcounts)) ||
            (err = take_displs(c, k->rdispls, daint, nrecv, "rdispls", fn, &w->rdispls)))
            return err;
        if (wvar)
            err = check_types(c, k->recvtypes, nrecv, "recvtypes", fn, &w->rdts);
        else
            err = mpi_check_dt(c, k->recvtype, fn, &a->rdt);
        if (err)
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
        int send_side = 1, recv_side = 1;
        MPI_Count total = k->recvcount;
        if (k->kind == COLL_REDUCE) {
            if ((err = check_root(c, k->root, fn)))
                return err;
            if (inter && k->root == MPI_PROC_NULL)
                return MPI_SUCCESS;
            send_side = !(inter && k->root == MPI_ROOT);
            recv_side = inter ? k->root == MPI_ROOT : is_root;
            if (!inter && !is_root && (err = no_in_place(c, k->sendbuf, "sendbuf", ip_root, fn)))
                return err;
        }
        if (inter &&
            (err = no_in_place(c, k->sendbuf, "sendbuf", "not allowed on intercommunicators", fn)))
            return err;
        if (k->kind == COLL_REDUCE_SCATTER) {
            if ((err = take_counts(c, k->recvcounts, k->big, c->size, "recvcounts", fn,
                                   &w->recvcounts)))
                return err;
            a->recvcounts = w->recvcounts;
            total = 0;
            for (int i = 0; i < c->size; i++)
                total += w->recvcounts[i];
        } else if (k->recvcount < 0) {
            return mpi_err_raise(c, MPI_ERR_COUNT, fn, "%s=%lld is negative",
                                 k->kind == COLL_REDUCE_SCATTER_BLOCK ? "recvcount" : "count",
                                 (long long)k->recvcount);
        }
        if ((err = mpi_check_dt(c, k->recvtype, fn, &a->rdt)) ||
            (err = check_op(c, k->op, a->rdt, fn)))
            return err;
        a->commutative = coll_op_is_commutative(k->op);
        if (total == 0 || dt_size(a->rdt) == 0)
            return MPI_SUCCESS;
        if (send_side && k->sendbuf == NULL && mpi_handle_kind(k->recvtype) == MPI_HKIND_BUILTIN)
            return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "sendbuf is NULL with count=%lld",
                                 (long long)total);
        if (recv_side && k->kind != COLL_REDUCE_SCATTER && k->recvbuf == NULL &&
            mpi_handle_kind(k->recvtype) == MPI_HKIND_BUILTIN)
            return mpi_err_raise(c, MPI_ERR_BUFFER, fn, "recvbuf is NULL with count=%lld",
                                 (long long)total);
        /* (on an intercommunicator the reduce_scatter layouts depend on the
         * other group's counts: not judged here) */
        if (!send_side || !recv_side ||
            (inter && (k->kind == COLL_REDUCE_SCATTER || k->kind == COLL_REDUCE_SCATTER_BLOCK)))
            return MPI_SUCCESS;
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
        return mpi_err_raise(c, MPI_ERR_INTERN, fn, "unknown collective %d", (int)k->kind);
    }
}

static int is_neighbor(coll_kind_t k)
{
    return k >= COLL_NEIGHBOR_ALLGATHER;
}

/* An argument error err of k on c, already raised: in the checking mode
 * the other ranks learn of it instead of waiting (coll/check.c). */
static int check_mode_failed(const call_t *k, mpi_comm_t *c, int err)
{
    if (coll_check_enabled()) {
        int cls = MPI_ERR_OTHER;
        PMPI_Error_class(err, &cls);
        (void)coll_check_failed_call(c, k->kind, k->root, cls);
    }
    return err;
}

static int coll_call(const call_t *k, coll_mode_t mode, MPI_Request *request, const char *fn)
{
    mpi_comm_t *c;
    coll_args_t a;
    widened_t w = {NULL, NULL, NULL, NULL, NULL, NULL};
    coll_sched_t *s = NULL;
    adi_request_t *r = NULL;
    canal_status_t st;
    int err = mpi_enter(fn);

    if (err || (err = mpi_check_comm(k->comm, fn, &c)))
        return err;
    if (mode != MODE_BLOCKING && request == NULL)
        return check_mode_failed(k, c, mpi_err_raise(c, MPI_ERR_ARG, fn, "request is NULL"));
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
                                 (unsigned)k->comm, coll_kind_name(k->kind));
        if (c->local_comm == NULL && !is_neighbor(k->kind))
            return mpi_err_raise(c, MPI_ERR_COMM, fn,
                                 "comm=%#x is an intercommunicator without a local "
                                 "communicator for collectives",
                                 (unsigned)k->comm);
    }
    if (is_neighbor(k->kind)) {
        int cls;
        if (mpi_topo_neighbors == NULL)
            return mpi_err_raise(c, MPI_ERR_TOPOLOGY, fn,
                                 "comm=%#x has no process topology (topologies are not "
                                 "available in this build)",
                                 (unsigned)k->comm);
        cls = mpi_topo_neighbors(c, &a.indegree, &a.sources, &a.outdegree, &a.destinations);
        if (cls != MPI_SUCCESS)
            return mpi_err_raise(c, cls, fn, "comm=%#x has no Cartesian or graph topology",
                                 (unsigned)k->comm);
        {
            int status = MPI_UNDEFINED;
            a.cartesian = PMPI_Topo_test(k->comm, &status) == MPI_SUCCESS && status == MPI_CART &&
                          a.indegree % 2 == 0;
        }
    }
    err = check_call(k, c, &a, &w, fn);
    if (err) {
        check_mode_failed(k, c, err);
        goto out_widened;
    }
    if (coll_check_enabled() && (st = coll_check_call(&a)) < 0) {
        widened_free(&w);
        return mpi_err_status(c, st, fn);
    }

    if (mode == MODE_BLOCKING && (s = coll_sched_replay(c, &a)) != NULL) {
        widened_free(&w);
        st = coll_sched_start(s, NULL, 0);
        if (st >= 0)
            st = coll_sched_wait(s);
        coll_sched_keep(c, &a, s);
        return st < 0 ? mpi_err_status(c, st, fn) : MPI_SUCCESS;
    }
    st = coll_sched_create(c, &s);
    if (st >= 0) {
        st = coll_record(s, &a);
        if (st >= 0)
            st = coll_sched_status(s);
    }
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
/* ---------------------------------------------------------------- barrier */
int PMPI_Barrier(MPI_Comm comm)
{
    call_t k = {.kind = COLL_BARRIER, .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Barrier");
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_BARRIER, .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ibarrier");
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_BARRIER, .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Barrier_init");
}
#pragma weak MPI_Barrier_init = PMPI_Barrier_init

/* ---------------------------------------------------------------- bcast */
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Bcast");
}
#pragma weak MPI_Bcast = PMPI_Bcast

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Bcast_c");
}
#pragma weak MPI_Bcast_c = PMPI_Bcast_c

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ibcast");
}
#pragma weak MPI_Ibcast = PMPI_Ibcast

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ibcast_c");
}
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Bcast_init");
}
#pragma weak MPI_Bcast_init = PMPI_Bcast_init

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_BCAST,
                .recvbuf = buffer,
                .recvcount = count,
                .recvtype = datatype,
                .root = root,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Bcast_init_c");
}
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c

/* ---------------------------------------------------------------- gather */
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_GATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Gather");
}
#pragma weak MPI_Gather = PMPI_Gather

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_GATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Gather_c");
}
#pragma weak MPI_Gather_c = PMPI_Gather_c

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Igather");
}
#pragma weak MPI_Igather = PMPI_Igather

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Igather_c");
}
#pragma weak MPI_Igather_c = PMPI_Igather_c

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Gather_init");
}
#pragma weak MPI_Gather_init = PMPI_Gather_init

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Gather_init_c");
}
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c

/* ---------------------------------------------------------------- gatherv */
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    call_t k = {.kind = COLL_GATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Gatherv");
}
#pragma weak MPI_Gatherv = PMPI_Gatherv

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_GATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Gatherv_c");
}
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Igatherv");
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Igatherv_c");
}
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Gatherv_init");
}
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    call_t k = {.kind = COLL_GATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Gatherv_init_c");
}
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c

/* ---------------------------------------------------------------- scatter */
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_SCATTER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Scatter");
}
#pragma weak MPI_Scatter = PMPI_Scatter

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_SCATTER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Scatter_c");
}
#pragma weak MPI_Scatter_c = PMPI_Scatter_c

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iscatter");
}
#pragma weak MPI_Iscatter = PMPI_Iscatter

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iscatter_c");
}
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Scatter_init");
}
#pragma weak MPI_Scatter_init = PMPI_Scatter_init

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Scatter_init_c");
}
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c

/* ---------------------------------------------------------------- scatterv */
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Scatterv");
}
#pragma weak MPI_Scatterv = PMPI_Scatterv

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Scatterv_c");
}
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iscatterv");
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iscatterv_c");
}
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Scatterv_init");
}
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    call_t k = {.kind = COLL_SCATTERV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = displs,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .root = root,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Scatterv_init_c");
}
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c

/* ---------------------------------------------------------------- allgather */
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Allgather");
}
#pragma weak MPI_Allgather = PMPI_Allgather

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Allgather_c");
}
#pragma weak MPI_Allgather_c = PMPI_Allgather_c

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iallgather");
}
#pragma weak MPI_Iallgather = PMPI_Iallgather

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iallgather_c");
}
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Allgather_init");
}
#pragma weak MPI_Allgather_init = PMPI_Allgather_init

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Allgather_init_c");
}
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c

/* ---------------------------------------------------------------- allgatherv */
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Allgatherv");
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Allgatherv_c");
}
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iallgatherv");
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iallgatherv_c");
}
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Allgatherv_init");
}
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Allgatherv_init_c");
}
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c

/* ---------------------------------------------------------------- alltoall */
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Alltoall");
}
#pragma weak MPI_Alltoall = PMPI_Alltoall

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Alltoall_c");
}
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ialltoall");
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ialltoall_c");
}
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Alltoall_init");
}
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Alltoall_init_c");
}
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c

/* ---------------------------------------------------------------- alltoallv */
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Alltoallv");
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Alltoallv_c");
}
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ialltoallv");
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ialltoallv_c");
}
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Alltoallv_init");
}
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Alltoallv_init_c");
}
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c

/* ---------------------------------------------------------------- alltoallw */
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Alltoallw");
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Alltoallw_c");
}
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ialltoallw");
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ialltoallw_c");
}
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Alltoallw_init");
}
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Alltoallw_init_c");
}
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c

/* ---------------------------------------------------------------- reduce */
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_REDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Reduce");
}
#pragma weak MPI_Reduce = PMPI_Reduce

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    call_t k = {.kind = COLL_REDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Reduce_c");
}
#pragma weak MPI_Reduce_c = PMPI_Reduce_c

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ireduce");
}
#pragma weak MPI_Ireduce = PMPI_Ireduce

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ireduce_c");
}
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Reduce_init");
}
#pragma weak MPI_Reduce_init = PMPI_Reduce_init

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .root = root,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Reduce_init_c");
}
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c

/* ---------------------------------------------------------------- allreduce */
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLREDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Allreduce");
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_ALLREDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Allreduce_c");
}
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLREDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iallreduce");
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLREDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iallreduce_c");
}
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLREDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Allreduce_init");
}
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    call_t k = {.kind = COLL_ALLREDUCE,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Allreduce_init_c");
}
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c

/* ---------------------------------------------------------------- reduce scatter */
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Reduce_scatter");
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Reduce_scatter_c");
}
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ireduce_scatter");
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ireduce_scatter_c");
}
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Reduce_scatter_init");
}
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Reduce_scatter_init_c");
}
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c

/* ---------------------------------------------------------------- reduce scatter block */
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER_BLOCK,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Reduce_scatter_block");
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER_BLOCK,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Reduce_scatter_block_c");
}
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER_BLOCK,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ireduce_scatter_block");
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER_BLOCK,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ireduce_scatter_block_c");
}
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER_BLOCK,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Reduce_scatter_block_init");
}
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    call_t k = {.kind = COLL_REDUCE_SCATTER_BLOCK,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Reduce_scatter_block_init_c");
}
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c

/* ---------------------------------------------------------------- scan */
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    call_t k = {.kind = COLL_SCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Scan");
}
#pragma weak MPI_Scan = PMPI_Scan

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_SCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Scan_c");
}
#pragma weak MPI_Scan_c = PMPI_Scan_c

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iscan");
}
#pragma weak MPI_Iscan = PMPI_Iscan

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iscan_c");
}
#pragma weak MPI_Iscan_c = PMPI_Iscan_c

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Scan_init");
}
#pragma weak MPI_Scan_init = PMPI_Scan_init

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_SCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Scan_init_c");
}
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c

/* ---------------------------------------------------------------- exscan */
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    call_t k = {.kind = COLL_EXSCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Exscan");
}
#pragma weak MPI_Exscan = PMPI_Exscan

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    call_t k = {.kind = COLL_EXSCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Exscan_c");
}
#pragma weak MPI_Exscan_c = PMPI_Exscan_c

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_EXSCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iexscan");
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_EXSCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Iexscan_c");
}
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_EXSCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Exscan_init");
}
#pragma weak MPI_Exscan_init = PMPI_Exscan_init

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_EXSCAN,
                .sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .recvcount = count,
                .recvtype = datatype,
                .op = op,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Exscan_init_c");
}
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c

/* ---------------------------------------------------------------- neighbor allgather */
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_allgather");
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_allgather_c");
}
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_allgather");
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_allgather_c");
}
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_allgather_init");
}
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHER,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_allgather_init_c");
}
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c

/* ---------------------------------------------------------------- neighbor allgatherv */
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_allgatherv");
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_allgatherv_c");
}
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_allgatherv");
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_allgatherv_c");
}
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_allgatherv_init");
}
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLGATHERV,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = displs,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_allgatherv_init_c");
}
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c

/* ---------------------------------------------------------------- neighbor alltoall */
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_alltoall");
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_alltoall_c");
}
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_alltoall");
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_alltoall_c");
}
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_alltoall_init");
}
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALL,
                .sendbuf = sendbuf,
                .sendcount = sendcount,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcount = recvcount,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_alltoall_init_c");
}
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c

/* ---------------------------------------------------------------- neighbor alltoallv */
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_alltoallv");
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_alltoallv_c");
}
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_alltoallv");
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_alltoallv_c");
}
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_alltoallv_init");
}
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLV,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtype = sendtype,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtype = recvtype,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_alltoallv_init_c");
}
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c

/* ---------------------------------------------------------------- neighbor alltoallw */
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .displs_aint = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_alltoallw");
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_BLOCKING, NULL, "MPI_Neighbor_alltoallw_c");
}
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .displs_aint = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_alltoallw");
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .big = 1};
    return coll_call(&k, MODE_NONBLOCKING, request, "MPI_Ineighbor_alltoallw_c");
}
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .displs_aint = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_alltoallw_init");
}
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    call_t k = {.kind = COLL_NEIGHBOR_ALLTOALLW,
                .sendbuf = sendbuf,
                .sendcounts = sendcounts,
                .sdispls = sdispls,
                .sendtypes = sendtypes,
                .recvbuf = recvbuf,
                .recvcounts = recvcounts,
                .rdispls = rdispls,
                .recvtypes = recvtypes,
                .comm = comm,
                .big = 1};
    (void)info;
    return coll_call(&k, MODE_PERSISTENT, request, "MPI_Neighbor_alltoallw_init_c");
}
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
