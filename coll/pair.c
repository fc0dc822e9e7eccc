/*
 * Blocking collectives without a schedule: the barrier and allreduce of two
 * ranks, and the linear gather(v) and scatter(v) of small blocks. At two
 * ranks the dissemination barrier and the recursive-doubling allreduce are
 * one exchange with the peer: a receive and a send on the collective
 * context with the communicator's next collective tag, then (allreduce) one
 * reduction. Recording, replaying and walking a schedule for that costs
 * more than the exchange itself (about 1,700 instructions per barrier), so
 * a blocking call whose algorithm is one of these two runs the exchange
 * here, on two device requests the communicator keeps. The messages are
 * those of the schedule (same peer, tag, context, size, order), so a rank
 * on this path and a rank on the schedule's (a non-contiguous datatype, a
 * nonblocking call) pair up, and the errors are the schedule's: a failed
 * or revoked peer stops the exchange with that error, a message of the
 * wrong size is a mismatch, and a failure the peer met before it sent
 * arrives as an empty message (act_outcome in coll/sched.c). The linear
 * rooted calls likewise send the linear schedule's messages (coll/rooted.c)
 * with the root's receives posted in rank order on requests the
 * communicator keeps, and their sends with no request when the device can
 * send at once (a scatter's root: all its blocks in one device call,
 * adi_send_now_each; doc/design.md).
 * Called by coll_run_direct (coll/select.c) after the selection chose, and
 * for a small gather(v) or scatter(v) on the remembered choice by the front
 * (coll_leaf_direct, coll_root_direct).
 */
#include "coll/coll_impl.h"

#include <string.h>

/* Both requests of the exchange are complete. */
static int pair_done(void *arg)
{
    adi_request_t *const *r = arg;
    return __atomic_load_n(&r[0]->done, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&r[1]->done, __ATOMIC_ACQUIRE);
}

static int lost(canal_status_t st)
{
    return st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING || st == CANAL_ERR_REVOKED;
}

/* The outcome of a receive (its status s): want bytes expected from peer. */
static canal_status_t recv_outcome(const adi_status_t *s, int peer, size_t want)
{
    if (s->error != CANAL_OK)
        return s->error;
    if (s->bytes == 0 && want > 0)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "rank %d sent no data where %zu bytes were expected: this "
                              "collective failed there, or the ranks passed counts or datatypes "
                              "that do not match",
                              peer, want);
    if (s->bytes != want)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective size mismatch: %zu bytes came from rank %d where %zu "
                              "were expected (the ranks passed counts or datatypes that do not "
                              "match)",
                              s->bytes, peer, want);
    return CANAL_OK;
}

static canal_status_t peer_lost(canal_status_t st, int job_rank)
{
    return common_err_set(st,
                          job_rank < adi_job_size()
                              ? "rank %d of MPI_COMM_WORLD failed (the process died or its "
                                "connection was lost) before the collective could complete"
                              : "a process of another job (peer %d) failed before the "
                                "collective could complete",
                          job_rank);
}

/* Receive (rbuf, count, dt) from the peer and send (sbuf, count, dt) to it
 * with the next collective tag of c; wait for both. */
static canal_status_t exchange(mpi_comm_t *c, coll_kind_t kind, const void *sbuf, void *rbuf,
                               size_t count, dt_type_t *dt)
{
    int peer = 1 - coll_rank(c), job_peer, ctx = coll_context(c) + 1, tag;
    adi_request_t **r = coll_comm_pair_reqs(c, kind, &tag);
    canal_status_t st, sst;

    if (r == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a request of a collective");
    job_peer = coll_host.comm_peer_job_rank(c, peer);
    st = adi_irecv_into(r[0], rbuf, count, dt, peer, tag, ctx);
    if (st < 0)
        return lost(st) && st != CANAL_ERR_REVOKED ? peer_lost(st, job_peer) : st;
    sst = adi_isend_into(r[1], sbuf, count, dt, job_peer, coll_rank(c), tag, ctx,
                         ADI_MODE_STANDARD);
    if (sst < 0) {
        /* not posted: complete in our books, and the receive still finishes
         * (a lost peer fails it), as in the schedule */
        __atomic_store_n(&r[1]->done, 1, __ATOMIC_RELEASE);
        if (sst == CANAL_ERR_PEER || sst == CANAL_ERR_PEER_PENDING)
            sst = peer_lost(sst, job_peer);
    }
    if (!pair_done(r) && (st = coll_watch_wait(c, tag, pair_done, r, NULL)) < 0) {
        /* the peer called another collective: its messages never come */
        adi_cancel(r[0]);
        adi_cancel(r[1]);
        if (!pair_done(r))
            adi_wait_until(pair_done, r); /* (a message already matched ends) */
        return st;
    }
    if (sst < 0)
        return sst;
    if (r[1]->status.error != CANAL_OK) {
        st = r[1]->status.error;
        return st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING ? peer_lost(st, job_peer) : st;
    }
    st = recv_outcome(&r[0]->status, peer, count * dt_size(dt));
    if (st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING)
        return peer_lost(st, r[0]->status.peer >= 0 ? r[0]->status.peer : job_peer);
    if (st < 0)
        coll_watch_failed(c, tag, st);
    return st;
}

canal_status_t coll_pair_barrier(const coll_args_t *a)
{
    return exchange(a->comm, COLL_BARRIER, NULL, NULL, 0, coll_byte());
}

int coll_pair_allreduce_usable(const coll_args_t *a)
{
    return (size_t)a->recvcount * dt_size(a->rdt) <= COLL_PAIR_MAX &&
           dt_is_contig_count(a->rdt, (size_t)a->recvcount);
}

static canal_status_t reduce(const coll_args_t *a, const void *in, void *inout)
{
    if (coll_op_apply(a->op, in, inout, (size_t)a->recvcount, a->recvtype, a->rdt) != MPI_SUCCESS)
        return common_err_set(CANAL_ERR_OP,
                              "the reduction operation %#x cannot be applied to datatype %#x",
                              (unsigned)a->op, (unsigned)a->recvtype);
    return CANAL_OK;
}

/* The result is x0 op x1 at both ranks (xi: rank i's contribution), as the
 * recursive-doubling schedule computes it: a commutative op may take its
 * operands in either order, which saves the temporary when the send and
 * receive buffers differ. */
canal_status_t coll_pair_allreduce(const coll_args_t *a)
{
    _Alignas(16) char tmp[COLL_PAIR_MAX];
    size_t count = (size_t)a->recvcount, bytes = count * dt_size(a->rdt);
    ptrdiff_t lb = dt_true_lb(a->rdt);
    int in_place = a->sendbuf == MPI_IN_PLACE, rank = coll_rank(a->comm);
    const void *mine = in_place ? a->recvbuf : a->sendbuf;
    char *t = tmp - lb; /* tmp as a buffer of (count, dt) */
    canal_status_t st;

    if (!in_place && (a->commutative || rank == 0)) {
        /* recvbuf = mine op theirs (rank 0: x0 op x1) */
        st = exchange(a->comm, COLL_ALLREDUCE, mine, a->recvbuf, count, a->rdt);
        return st < 0 ? st : reduce(a, mine, a->recvbuf);
    }
    st = exchange(a->comm, COLL_ALLREDUCE, mine, t, count, a->rdt);
    if (st < 0)
        return st;
    if (!in_place)
        memcpy((char *)a->recvbuf + lb, (const char *)mine + lb, bytes);
    if (a->commutative || rank == 1)
        return reduce(a, t, a->recvbuf); /* recvbuf = theirs op mine */
    /* rank 0, in place, not commutative: x0 op x1 into tmp, then back */
    if ((st = reduce(a, a->recvbuf, t)) < 0)
        return st;
    memcpy((char *)a->recvbuf + lb, tmp, bytes);
    return CANAL_OK;
}

/* ---------------------------------------------------------------- linear rooted calls */
/* The requests of a linear call still to complete (r[first..n)), and for
 * the pokes of a long wait the comm ranks they receive from (NULL for
 * sends). */
typedef struct {
    adi_request_t **r;
    const int *peers;
    int n, first, tag;
    mpi_comm_t *c;
} lin_wait_t;

static int lin_done(void *arg)
{
    lin_wait_t *w = arg;
    while (w->first < w->n && __atomic_load_n(&w->r[w->first]->done, __ATOMIC_ACQUIRE))
        w->first++;
    return w->first == w->n;
}

/* coll_watch_hooks_t.poke: the ranks whose messages the wait still expects */
static void lin_poke(void *arg)
{
    lin_wait_t *w = arg;
    for (int i = w->first; w->peers != NULL && i < w->n; i++)
        if (!__atomic_load_n(&w->r[i]->done, __ATOMIC_ACQUIRE))
            coll_watch_poke(w->c, w->tag, w->peers[i]);
}

/* Wait for r[0..n) with the watch; on a mismatch (the ranks called other
 * collectives) cancel them all, let them end, and return it. */
static canal_status_t lin_wait(mpi_comm_t *c, int tag, adi_request_t **r, int n, const int *peers)
{
    lin_wait_t w = {r, peers, n, 0, tag, c};
    const coll_watch_hooks_t hooks = {lin_poke, NULL, NULL};
    canal_status_t st;

    if (lin_done(&w) || (st = coll_watch_wait(c, tag, lin_done, &w, &hooks)) >= 0)
        return CANAL_OK;
    for (int i = 0; i < n; i++)
        adi_cancel(r[i]); /* (does nothing to a finished one) */
    w.first = 0;
    if (!lin_done(&w))
        adi_wait_until(lin_done, &w); /* (a message already matched ends) */
    return st;
}

/* The outcome of a send or receive of the call (want: the bytes a receive
 * expects from comm rank peer); errors as the schedule's. */
static canal_status_t lin_outcome(mpi_comm_t *c, adi_request_t *r, int peer, size_t want, int recv)
{
    canal_status_t st = recv ? recv_outcome(&r->status, peer, want) : r->status.error;

    /* (the peer's job rank only for the message that names it) */
    if (st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING)
        return peer_lost(st, recv && r->status.peer >= 0 ? r->status.peer
                                                         : coll_host.comm_peer_job_rank(c, peer));
    return st;
}

int coll_direct_rooted_usable(const coll_args_t *a)
{
    int gather = a->kind == COLL_GATHER || a->kind == COLL_GATHERV, p = coll_size(a->comm);
    const MPI_Count *counts = a->kind == COLL_GATHERV    ? a->recvcounts
                              : a->kind == COLL_SCATTERV ? a->sendcounts
                                                         : NULL;
    dt_type_t *many = gather ? a->rdt : a->sdt; /* the root's side of every block */
    size_t esz, most;

    if (p > COLL_DIRECT_MAX_RANKS || coll_is_inter(a->comm))
        return 0;
    if (coll_rank(a->comm) != a->root) {
        dt_type_t *one = gather ? a->sdt : a->rdt;
        size_t n = gather ? (size_t)a->sendcount : (size_t)a->recvcount;
        return one == NULL || n * dt_size(one) <= COLL_PAIR_MAX;
    }
    if (many == NULL || (esz = dt_size(many)) == 0)
        return 1;
    most = COLL_PAIR_MAX / esz; /* (elements: no product to overflow) */
    if (counts == NULL)
        return (size_t)(gather ? a->recvcount : a->sendcount) <= most;
    for (int i = 0; i < p; i++)
        if ((size_t)counts[i] > most)
            return 0;
    return 1;
}

/* A send of the call to comm rank `to` (from comm rank me, on the
 * collective context ctx) with no request when the device can
 * send it at once (adi_send_now: small, contiguous, credit, nothing queued
 * before it), as the schedule's send would complete at once; else posted
 * on *r, which the caller waits for (1). (Inline: a root's send per rank
 * paid about 40 instructions for the call of eleven arguments.) */
static inline __attribute__((always_inline)) int lin_send(mpi_comm_t *c, adi_request_t *r,
                                                          const void *buf, size_t n,
                                                          dt_type_t *dt, int to, int tag, int me,
                                                          int ctx, canal_status_t *st)
{
    int job = coll_host.comm_peer_job_rank(c, to);

    if (n > 0 && adi_send_now(buf, n, dt, job, me, tag, ctx, 0) == CANAL_OK)
        return 0;
    *st = adi_isend_into(r, buf, n, dt, job, me, tag, ctx, ADI_MODE_STANDARD);
    return 1;
}

/* A non-root's one send (gather) or receive (scatter) of (buf, n, dt) with
 * the root, on the call's tag, past the receive with no request (below):
 * the device's send with no request, else a request and the watched wait. */
static __attribute__((noinline)) canal_status_t leaf_post(mpi_comm_t *c, int gather, void *buf, size_t n, dt_type_t *dt,
                                int root, int tag)
{
    adi_request_t **rr, **sr, *r;
    canal_status_t st = CANAL_OK;

    if ((st = coll_comm_direct_reqs(c, 1, 1, &rr, &sr)) < 0)
        return st;
    if (gather) {
        r = sr[0];
        if (!lin_send(c, r, buf, n, dt, root, tag, coll_rank(c), coll_context(c) + 1, &st))
            return CANAL_OK;
    } else {
        r = rr[0];
        st = adi_irecv_into(r, buf, n, dt, root, tag, coll_context(c) + 1);
    }
    if (st < 0)
        return lost(st) && st != CANAL_ERR_REVOKED
                   ? peer_lost(st, coll_host.comm_peer_job_rank(c, root))
                   : st;
    if ((st = lin_wait(c, tag, &r, 1, gather ? NULL : &root)) < 0)
        return st;
    st = lin_outcome(c, r, root, n * dt_size(dt), !gather);
    if (st < 0 && st != CANAL_ERR_PEER && st != CANAL_ERR_PEER_PENDING)
        coll_watch_failed(c, tag, st);
    return st;
}

/* The leaf's part of (buf, n, dt; `bytes` in all) on the call's tag. A
 * scatter's leaf first takes the root's message with no request when it is
 * already here or one poll brings it (IMB's loop: the root left the
 * barrier first and sent; np4 scatterv of 1 B, a leaf: 1,628 -> about
 * 1,400 instructions a call, callgrind). */
static inline canal_status_t leaf_run(mpi_comm_t *c, int gather, void *buf, size_t n,
                                      dt_type_t *dt, size_t bytes, int root, int tag)
{
    adi_status_t rs;
    size_t got;
    canal_status_t st;

    if (bytes == 0)
        return CANAL_OK; /* (an empty part still took the call's tag, as its empty schedule) */
    if (gather || adi_recv_ready(buf, n, dt, root, tag, coll_context(c) + 1, &rs, &got) != CANAL_OK)
        return leaf_post(c, gather, buf, n, dt, root, tag);
    if (rs.error == CANAL_OK && rs.bytes == bytes)
        return CANAL_OK;
    if ((st = recv_outcome(&rs, root, bytes)) < 0)
        coll_watch_failed(c, tag, st);
    return st;
}

static canal_status_t lin_leaf(const coll_args_t *a, int gather)
{
    int tag = coll_comm_take_tag(a->comm, a->kind);
    dt_type_t *dt = gather ? a->sdt : a->rdt;
    size_t n = (size_t)(gather ? a->sendcount : a->recvcount);

    if (tag < 0)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a collective's state");
    return leaf_run(a->comm, gather, gather ? (void *)a->sendbuf : a->recvbuf, n, dt,
                    dt != NULL ? n * dt_size(dt) : 0, a->root, tag);
}

/* One side of a rooted call's coll_args_t for coll_run_direct: the send
 * side (send 1) or the receive side, with its v arrays (NULL: one count). */
static void args_side(coll_args_t *a, int send, const void *buf, size_t n, dt_type_t *dt,
                      const MPI_Count *counts, const MPI_Aint *displs)
{
    if (send) {
        a->sendbuf = buf;
        a->sendcount = (MPI_Count)n;
        a->sdt = dt;
        a->sendcounts = counts;
        a->sdispls = displs;
    } else {
        a->recvbuf = (void *)buf;
        a->recvcount = (MPI_Count)n;
        a->rdt = dt;
        a->recvcounts = counts;
        a->rdispls = displs;
    }
}

/* coll_leaf_direct before the selection's answer is remembered, or when
 * the block is larger than the direct run takes: coll_run_direct. */
static __attribute__((noinline)) canal_status_t leaf_choose(mpi_comm_t *c, coll_kind_t kind,
                                                            const void *buf, size_t n,
                                                            dt_type_t *dt, int root, int *ran)
{
    coll_args_t a = {.kind = kind, .comm = c, .root = root, .commutative = 1};

    args_side(&a, kind == COLL_GATHER || kind == COLL_GATHERV, buf, n, dt, NULL, NULL);
    return coll_run_direct(&a, ran);
}

canal_status_t coll_leaf_direct(mpi_comm_t *c, coll_kind_t kind, const void *buf, size_t n,
                                dt_type_t *dt, size_t bytes, int root, int *ran)
{
    int tag;

    if (bytes > COLL_PAIR_MAX || (tag = coll_comm_leaf_tag(c, kind)) < 0)
        return leaf_choose(c, kind, buf, n, dt, root, ran);
    *ran = 1;
    return leaf_run(c, kind == COLL_GATHER || kind == COLL_GATHERV, (void *)buf, n, dt, bytes,
                    root, tag);
}

/* The root's side of a linear call: its p blocks in buf (gather: where it
 * receives, scatter: what it sends; v: counts[i] elements at displs[i]
 * extents, else `each` elements at block i) of dt, and its own block
 * (mine, n, mdt; mdt NULL: MPI_IN_PLACE or none) copied into or out of
 * them. */
typedef struct {
    char *buf;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    size_t each;
    dt_type_t *dt;
    void *mine;
    size_t n;
    dt_type_t *mdt;
} lin_many_t;

/* The root's own block: copied into its place among the blocks (gather)
 * or out of it (scatter), unless MPI_IN_PLACE; at, n: that place. */
static canal_status_t lin_own(const lin_many_t *m, int gather, char *at, size_t n)
{
    if (m->mdt == NULL)
        return CANAL_OK;
    return gather ? coll_copy_now(m->mine, m->n, m->mdt, at, n, m->dt)
                  : coll_copy_now(at, n, m->dt, m->mine, m->n, m->mdt);
}

/* The end of a root's run: its k requests r (from comm ranks peers, want
 * bytes each) waited for, their outcome, the watch told of a failure. */
static canal_status_t lin_root_end(mpi_comm_t *c, int gather, int tag, adi_request_t **r, int k,
                                   const int *peers, const size_t *want, canal_status_t err)
{
    canal_status_t st;

    /* (a scatter whose sends all went: nothing to wait for) */
    if (k > 0 && (st = lin_wait(c, tag, r, k, gather ? peers : NULL)) < 0)
        return st;
    for (int j = 0; j < k && err == CANAL_OK; j++)
        if (r[j]->status.error != CANAL_OK || (gather && r[j]->status.bytes != want[j]))
            err = lin_outcome(c, r[j], peers[j], want[j], gather); /* (else CANAL_OK) */
    if (err < 0 && err != CANAL_ERR_PEER && err != CANAL_ERR_PEER_PENDING)
        coll_watch_failed(c, tag, err);
    return err;
}

/* A request's post that failed: this rank's error in its status; the
 * rest still go (a lost peer fails only its own message), as the
 * schedule's posts. */
static void lin_unposted(adi_request_t *r, canal_status_t st)
{
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    r->status.error = st;
    r->status.peer = -1;
}

/* An empty message of call `tag` to job rank `job`, sent with no request
 * (lin_send_empty). */
typedef struct {
    int job, me, tag, ctx;
} lin_empty_t;

/* It went, or never will (the peer lost, the communicator revoked: the
 * leaf learns of those itself). */
static int lin_empty_went(void *arg)
{
    const lin_empty_t *e = arg;
    return adi_send_now(NULL, 0, coll_byte(), e->job, e->me, e->tag, e->ctx, 0) == CANAL_OK ||
           adi_peer_failed(e->job) || adi_ctx_pair_revoked(e->ctx - 1);
}

/* A scatter's root that could not post the send of a block (no memory for
 * its request, or its post failed: st) sends an empty message in its
 * place, with no request, once the device can take it (credit, the
 * peer's queue drained: the leaf takes what came before), so that the
 * leaf fails ("sent no data": this collective failed there) instead of
 * waiting for ever, as after a failed step of the schedule. Nothing when
 * the peer is lost or the communicator revoked (st says so). */
static void lin_send_empty(mpi_comm_t *c, int job, int tag, canal_status_t st)
{
    lin_empty_t e = {job, coll_rank(c), tag, coll_context(c) + 1};

    if (!lost(st) && !lin_empty_went(&e))
        (void)coll_watch_wait(c, tag, lin_empty_went, &e, NULL);
}

/* A scatter's root with a contiguous datatype: the blocks' messages listed
 * in rank order (a message after a failed copy of its own block carries no
 * data, as the schedule's), all sent by the device in one call with no
 * request where they can go at once (adi_send_now_each), the rest posted on
 * the communicator's requests and waited for. np4, 8 B, callgrind: the
 * root's sends ~95 instructions each above the channel with a call each. */
static canal_status_t lin_scatter_run(mpi_comm_t *c, const lin_many_t *m, int tag)
{
    int p = coll_size(c), me = coll_rank(c), ctx = coll_context(c) + 1, ne = 0, k = 0;
    int to[COLL_DIRECT_MAX_RANKS];
    size_t want[COLL_DIRECT_MAX_RANKS], esz = dt_size(m->dt);
    ptrdiff_t ext = dt_extent(m->dt), step = (ptrdiff_t)m->each * ext, lb = dt_contig_lb(m->dt);
    adi_each_msg_t e[COLL_DIRECT_MAX_RANKS];
    adi_request_t **rr, **r;
    const int *jobs = coll_host.comm_job_ranks(c); /* (a call, not one per block) */
    canal_status_t st, err = CANAL_OK;

    for (int i = 0; i < p; i++) {
        size_t n = m->counts != NULL ? (size_t)m->counts[i] : m->each;
        char *at = m->buf + (m->displs != NULL ? (ptrdiff_t)m->displs[i] * ext : i * step);
        if (i == me) {
            if ((st = lin_own(m, 0, at, n)) < 0 && err == CANAL_OK)
                err = st;
            continue;
        }
        if (n * esz == 0)
            continue;
        e[ne].buf = at + lb;
        e[ne].size = err != CANAL_OK ? 0 : n * esz;
        e[ne].dest = jobs != NULL ? jobs[i] : i;
        to[ne++] = i;
    }
    if (ne == 0 || adi_send_now_each(e, ne, me, tag, ctx) == ne)
        return lin_root_end(c, 0, tag, NULL, 0, NULL, NULL, err);
    /* the rest on requests; none: an empty message to each leaf left */
    if ((st = coll_comm_direct_reqs(c, 0, p, &rr, &r)) < 0) {
        for (int j = 0; j < ne; j++)
            if (!e[j].sent)
                lin_send_empty(c, e[j].dest, tag, st);
        return st;
    }
    for (int j = 0; j < ne; j++) {
        if (e[j].sent)
            continue;
        st = adi_isend_into(r[k], (const char *)e[j].buf - lb, e[j].size / esz, m->dt, e[j].dest,
                            me, tag, ctx, ADI_MODE_STANDARD);
        if (st < 0) {
            lin_unposted(r[k], st);
            lin_send_empty(c, e[j].dest, tag, st);
        }
        to[k] = to[j];
        want[k++] = e[j].size;
    }
    return lin_root_end(c, 0, tag, r, k, to, want, err);
}

/* The root's receives (gather) or sends (scatter), posted in rank order,
 * and its own block copied, as the linear schedule; then the wait. A
 * scatter's send after a failed step carries no data (the schedule's
 * rule: its receiver fails too). The element size and extent are taken
 * once, not per block. */
static canal_status_t lin_root_run(mpi_comm_t *c, int gather, const lin_many_t *m, int tag)
{
    int p = coll_size(c), me = coll_rank(c), ctx = coll_context(c) + 1, k = 0;
    int peers[COLL_DIRECT_MAX_RANKS];
    size_t want[COLL_DIRECT_MAX_RANKS], esz = dt_size(m->dt);
    ptrdiff_t ext = dt_extent(m->dt), step = (ptrdiff_t)m->each * ext;
    adi_request_t **rr, **sr, **r;
    canal_status_t st, err = CANAL_OK;

    if (!gather && dt_is_contig(m->dt))
        return lin_scatter_run(c, m, tag);
    if ((st = coll_comm_direct_reqs(c, gather ? p : 0, gather ? 0 : p, &rr, &sr)) < 0) {
        /* (a gather's leaves send and leave; a scatter's wait for theirs) */
        for (int i = 0; i < p && !gather; i++)
            if (i != me && (m->counts != NULL ? (size_t)m->counts[i] : m->each) * esz > 0)
                lin_send_empty(c, coll_host.comm_peer_job_rank(c, i), tag, st);
        return st;
    }
    r = gather ? rr : sr;
    for (int i = 0; i < p; i++) {
        size_t n = m->counts != NULL ? (size_t)m->counts[i] : m->each;
        char *at = m->buf + (m->displs != NULL ? (ptrdiff_t)m->displs[i] * ext : i * step);
        if (i == me) {
            if ((st = lin_own(m, gather, at, n)) < 0 && err == CANAL_OK)
                err = st;
            continue;
        }
        if (n * esz == 0)
            continue;
        st = CANAL_OK;
        if (gather)
            st = adi_irecv_into(r[k], at, n, m->dt, i, tag, ctx);
        else if (!lin_send(c, r[k], at, err != CANAL_OK ? 0 : n, m->dt, i, tag, me, ctx, &st))
            continue; /* (sent: nothing to wait for) */
        if (st < 0) {
            lin_unposted(r[k], st); /* (not posted) */
            if (!gather)
                lin_send_empty(c, coll_host.comm_peer_job_rank(c, i), tag, st);
        }
        peers[k] = i;
        want[k++] = n * esz;
    }
    return lin_root_end(c, gather, tag, r, k, peers, want, err);
}

static canal_status_t lin_root(const coll_args_t *a, int gather)
{
    int v = a->kind == COLL_GATHERV || a->kind == COLL_SCATTERV, tag;
    lin_many_t m = {
        .buf = gather ? (char *)a->recvbuf : (char *)a->sendbuf,
        .counts = !v ? NULL : gather ? a->recvcounts : a->sendcounts,
        .displs = !v ? NULL : gather ? a->rdispls : a->sdispls,
        .each = (size_t)(gather ? a->recvcount : a->sendcount),
        .dt = gather ? a->rdt : a->sdt,
        .mine = gather ? (void *)a->sendbuf : a->recvbuf,
        .n = (size_t)(gather ? a->sendcount : a->recvcount),
        .mdt = gather ? a->sdt : a->rdt,
    };

    if (m.mine == MPI_IN_PLACE)
        m.mdt = NULL;
    if ((tag = coll_comm_take_tag(a->comm, a->kind)) < 0)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a collective's state");
    return lin_root_run(a->comm, gather, &m, tag);
}

/* coll_root_direct before the selection's answer is remembered, or when a
 * block is larger than the direct run takes: coll_run_direct. */
static __attribute__((noinline)) canal_status_t
root_choose(mpi_comm_t *c, coll_kind_t kind, const coll_root_t *r, int *ran)
{
    int gather = kind == COLL_GATHER || kind == COLL_GATHERV;
    coll_args_t a = {.kind = kind, .comm = c, .root = coll_rank(c), .commutative = 1};

    args_side(&a, gather, r->mine, r->n, r->mdt, NULL, NULL); /* (its own block) */
    args_side(&a, !gather, r->buf, r->each, r->dt, r->counts, r->displs);
    return coll_run_direct(&a, ran);
}

canal_status_t coll_root_direct(mpi_comm_t *c, coll_kind_t kind, const coll_root_t *r, int *ran)
{
    int tag;
    lin_many_t m = {r->buf, r->counts, r->displs, r->each, r->dt, r->mine, r->n, r->mdt};

    /* (elements: no product to overflow) */
    if (r->most > COLL_PAIR_MAX / dt_size(r->dt) || (tag = coll_comm_leaf_tag(c, kind)) < 0)
        return root_choose(c, kind, r, ran);
    *ran = 1;
    return lin_root_run(c, kind == COLL_GATHER || kind == COLL_GATHERV, &m, tag);
}

canal_status_t coll_direct_gather(const coll_args_t *a)
{
    return coll_rank(a->comm) == a->root ? lin_root(a, 1) : lin_leaf(a, 1);
}

canal_status_t coll_direct_scatter(const coll_args_t *a)
{
    return coll_rank(a->comm) == a->root ? lin_root(a, 0) : lin_leaf(a, 0);
}
