/*
 * Blocking barrier and allreduce on two ranks without a schedule. At two
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
 * arrives as an empty message (act_outcome in coll/sched.c).
 * Called by coll_run_direct (coll/select.c) after the selection chose.
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

/* The outcome of the receive: want bytes expected from peer. */
static canal_status_t recv_outcome(const adi_request_t *r, int peer, size_t want)
{
    if (r->status.error != CANAL_OK)
        return r->status.error;
    if (r->status.bytes == 0 && want > 0)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "rank %d sent no data where %zu bytes were expected: this "
                              "collective failed there, or the ranks passed counts or datatypes "
                              "that do not match",
                              peer, want);
    if (r->status.bytes != want)
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective size mismatch: %zu bytes came from rank %d where %zu "
                              "were expected (the ranks passed counts or datatypes that do not "
                              "match)",
                              r->status.bytes, peer, want);
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
    st = recv_outcome(r[0], peer, count * dt_size(dt));
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
