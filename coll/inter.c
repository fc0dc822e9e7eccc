/*
 * Collectives on intercommunicators (MPI 4.0 section 6.2.2): barrier,
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v, w), reduce,
 * allreduce, reduce_scatter(_block). Scan and exscan are not defined there
 * (the front refuses them).
 *
 * They are compositions: a walk inside the local group on the
 * communicator's local intracommunicator (coll_local(c), messages on its
 * collective context), and edges across between the two groups' leaders
 * (local rank 0) or the root, on the intercommunicator's collective
 * context. Every part reuses the intracommunicator building blocks; all
 * messages of one call carry the schedule's tag (from the
 * intercommunicator's sequence). Rooted collectives follow the standard's
 * convention: root is MPI_ROOT in the root's process, MPI_PROC_NULL in the
 * rest of its group, and the root's rank in the other group.
 */
#include "coll/coll_impl.h"

#include <string.h>

static int is_root_side(const coll_args_t *a)
{
    return a->root == MPI_ROOT;
}
static int is_idle(const coll_args_t *a)
{
    return a->root == MPI_PROC_NULL;
}

/* A record of an intracommunicator algorithm on the local group. */
static coll_args_t local_args(const coll_args_t *a, coll_kind_t kind)
{
    coll_args_t la;
    memset(&la, 0, sizeof la);
    la.kind = kind;
    la.comm = coll_local(a->comm);
    la.op = a->op;
    la.commutative = a->commutative;
    return la;
}

/* ---------------------------------------------------------------- barrier */
static canal_status_t inter_barrier(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    coll_group_t g = coll_group_all(L, 0);
    coll_rec_signal_tree(s, L, g, COLL_DIR_REVERSE);
    if (coll_rank(L) == 0) {
        coll_recv(s, c, 0, NULL, 0, coll_byte());
        coll_send(s, c, 0, NULL, 0, coll_byte());
        coll_fence(s);
    }
    coll_rec_signal_tree(s, L, g, COLL_DIR_STRAIGHT);
    return coll_sched_status(s);
}

/* ---------------------------------------------------------------- bcast */
static canal_status_t inter_bcast(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    size_t n = (size_t)a->recvcount;

    if (is_idle(a)) {
        coll_sched_set_absent(s); /* (a poke of it is answered: coll/watch.c) */
        return coll_sched_status(s);
    }
    if (n * dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    if (is_root_side(a)) {
        coll_send(s, c, 0, a->recvbuf, n, a->rdt);
        return coll_sched_status(s);
    }
    if (coll_rank(L) == 0) {
        coll_recv(s, c, a->root, a->recvbuf, n, a->rdt);
        coll_fence(s);
    }
    coll_rec_bcast_tree(s, L, coll_group_all(L, 0), &coll_topo_binomial, 2, a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

/* ---------------------------------------------------------------- gather, scatter */
/* Gather the packed blocks of the local group to local rank 0 (into *all,
 * B bytes per rank, allocated there). */
static void local_gather_packed(coll_sched_t *s, const coll_args_t *a, const void *sbuf,
                                size_t scount, dt_type_t *sdt, char **all)
{
    mpi_comm_t *L = coll_local(a->comm);
    size_t B = scount * dt_size(sdt);
    coll_args_t la = local_args(a, COLL_GATHER);
    *all = coll_rank(L) == 0 ? coll_tmp(s, B * (size_t)coll_size(L)) : NULL;
    la.sendbuf = sbuf;
    la.sendcount = (MPI_Count)scount;
    la.sdt = sdt;
    la.recvbuf = *all;
    la.recvcount = (MPI_Count)B;
    la.rdt = coll_byte();
    la.root = 0;
    coll_gather_binomial.record(s, &la);
    coll_fence(s);
}

static canal_status_t inter_gather(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    char *all;

    if (is_idle(a))
        return coll_sched_status(s);
    if (is_root_side(a)) {
        size_t n = (size_t)a->recvcount * (size_t)coll_peer_size(c);
        if (n * dt_size(a->rdt) > 0)
            coll_recv(s, c, 0, a->recvbuf, n, a->rdt);
        return coll_sched_status(s);
    }
    if ((size_t)a->sendcount * dt_size(a->sdt) == 0)
        return coll_sched_status(s);
    local_gather_packed(s, a, a->sendbuf, (size_t)a->sendcount, a->sdt, &all);
    if (coll_rank(L) == 0)
        coll_send(s, c, a->root, all, (size_t)a->sendcount * dt_size(a->sdt) * (size_t)coll_size(L),
                  coll_byte());
    return coll_sched_status(s);
}

static canal_status_t inter_gatherv(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    if (is_idle(a))
        return coll_sched_status(s);
    if (is_root_side(a)) {
        for (int i = 0; i < coll_peer_size(c); i++)
            if (a->recvcounts[i] > 0 && dt_size(a->rdt) > 0)
                coll_recv(s, c, i,
                          (char *)a->recvbuf + (ptrdiff_t)a->rdispls[i] * dt_extent(a->rdt),
                          (size_t)a->recvcounts[i], a->rdt);
        return coll_sched_status(s);
    }
    if (a->sendcount > 0 && dt_size(a->sdt) > 0)
        coll_send(s, c, a->root, a->sendbuf, (size_t)a->sendcount, a->sdt);
    return coll_sched_status(s);
}

static canal_status_t inter_scatter(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    size_t B;
    char *all = NULL;
    coll_args_t la;

    if (is_idle(a))
        return coll_sched_status(s);
    if (is_root_side(a)) {
        size_t n = (size_t)a->sendcount * (size_t)coll_peer_size(c);
        if (n * dt_size(a->sdt) > 0)
            coll_send(s, c, 0, a->sendbuf, n, a->sdt);
        return coll_sched_status(s);
    }
    B = (size_t)a->recvcount * dt_size(a->rdt);
    if (B == 0)
        return coll_sched_status(s);
    if (coll_rank(L) == 0) {
        all = coll_tmp(s, B * (size_t)coll_size(L));
        coll_recv(s, c, a->root, all, B * (size_t)coll_size(L), coll_byte());
        coll_fence(s);
    }
    la = local_args(a, COLL_SCATTER);
    la.sendbuf = all;
    la.sendcount = (MPI_Count)B;
    la.sdt = coll_byte();
    la.recvbuf = a->recvbuf;
    la.recvcount = a->recvcount;
    la.rdt = a->rdt;
    la.root = 0;
    return coll_scatter_binomial.record(s, &la);
}

static canal_status_t inter_scatterv(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    if (is_idle(a))
        return coll_sched_status(s);
    if (is_root_side(a)) {
        for (int i = 0; i < coll_peer_size(c); i++)
            if (a->sendcounts[i] > 0 && dt_size(a->sdt) > 0)
                coll_send(s, c, i,
                          (const char *)a->sendbuf + (ptrdiff_t)a->sdispls[i] * dt_extent(a->sdt),
                          (size_t)a->sendcounts[i], a->sdt);
        return coll_sched_status(s);
    }
    if (a->recvcount > 0 && dt_size(a->rdt) > 0)
        coll_recv(s, c, a->root, a->recvbuf, (size_t)a->recvcount, a->rdt);
    return coll_sched_status(s);
}

/* ---------------------------------------------------------------- allgather(v), alltoall(v, w) */
/* Each group gathers to its leader, the leaders swap, each leader
 * broadcasts the other group's blocks in its group. */
static canal_status_t inter_allgather(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    size_t mine = (size_t)a->sendcount * dt_size(a->sdt);
    size_t theirs = (size_t)a->recvcount * (size_t)coll_peer_size(c);
    char *all = NULL;

    if (mine > 0)
        local_gather_packed(s, a, a->sendbuf, (size_t)a->sendcount, a->sdt, &all);
    if (coll_rank(L) == 0) {
        if (theirs * dt_size(a->rdt) > 0)
            coll_recv(s, c, 0, a->recvbuf, theirs, a->rdt);
        if (mine > 0)
            coll_send(s, c, 0, all, mine * (size_t)coll_size(L), coll_byte());
        coll_fence(s);
    }
    if (theirs * dt_size(a->rdt) > 0)
        coll_rec_bcast_tree(s, L, coll_group_all(L, 0), &coll_topo_binomial, 2, a->recvbuf, theirs,
                            a->rdt);
    return coll_sched_status(s);
}

/* Everyone sends its block to every remote rank: allgatherv. */
static canal_status_t inter_allgatherv(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    for (int i = 0; i < coll_peer_size(c); i++) {
        if (a->recvcounts[i] > 0 && dt_size(a->rdt) > 0)
            coll_recv(s, c, i, (char *)a->recvbuf + (ptrdiff_t)a->rdispls[i] * dt_extent(a->rdt),
                      (size_t)a->recvcounts[i], a->rdt);
    }
    for (int k = 0; k < coll_peer_size(c); k++) {
        int i = (coll_rank(c) + k) % coll_peer_size(c);
        if (a->sendcount > 0 && dt_size(a->sdt) > 0)
            coll_send(s, c, i, a->sendbuf, (size_t)a->sendcount, a->sdt);
    }
    return coll_sched_status(s);
}

static void a2a_block(const coll_args_t *a, int send, int i, const char **buf, size_t *count,
                      dt_type_t **dt)
{
    const char *base = send ? (const char *)a->sendbuf : (const char *)a->recvbuf;
    switch (a->kind) {
    case COLL_ALLTOALLV:
        *dt = send ? a->sdt : a->rdt;
        *buf = base + (ptrdiff_t)(send ? a->sdispls : a->rdispls)[i] * dt_extent(*dt);
        *count = (size_t)(send ? a->sendcounts : a->recvcounts)[i];
        break;
    case COLL_ALLTOALLW:
        *dt = coll_dt_get((send ? a->sendtypes : a->recvtypes)[i]);
        *buf = base + (send ? a->sdispls : a->rdispls)[i];
        *count = (size_t)(send ? a->sendcounts : a->recvcounts)[i];
        break;
    default:
        *dt = send ? a->sdt : a->rdt;
        *count = (size_t)(send ? a->sendcount : a->recvcount);
        *buf = base + coll_blk(i, *count, *dt);
        break;
    }
}

/* Every pair exchanges directly, in shifted order. */
static canal_status_t inter_alltoall(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    for (int k = 0; k < coll_peer_size(c); k++) {
        int i = (coll_rank(c) + k) % coll_peer_size(c);
        const char *buf;
        size_t n;
        dt_type_t *dt;
        a2a_block(a, 0, i, &buf, &n, &dt);
        if (dt != NULL && n * dt_size(dt) > 0)
            coll_recv(s, c, i, (void *)buf, n, dt);
        a2a_block(a, 1, i, &buf, &n, &dt);
        if (dt != NULL && n * dt_size(dt) > 0)
            coll_send(s, c, i, buf, n, dt);
    }
    return coll_sched_status(s);
}

/* ---------------------------------------------------------------- reductions */
/* Reduce the local group's contributions (count elements) to local rank 0,
 * into a temporary returned there. */
static char *local_reduce(coll_sched_t *s, const coll_args_t *a, size_t count)
{
    mpi_comm_t *L = coll_local(a->comm);
    char *res = coll_rank(L) == 0 ? coll_tmp_typed(s, count, a->rdt) : NULL;
    coll_rec_reduce_tree(s, L, coll_group_all(L, 0), &coll_topo_binomial, 2, a->sendbuf, res, count,
                         a->rdt, a->recvtype, a->op, a->commutative);
    coll_fence(s);
    return res;
}

static canal_status_t inter_reduce(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    size_t n = (size_t)a->recvcount;
    char *res;

    if (is_idle(a) || n * dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    if (is_root_side(a)) {
        coll_recv(s, c, 0, a->recvbuf, n, a->rdt);
        return coll_sched_status(s);
    }
    res = local_reduce(s, a, n);
    if (coll_rank(L) == 0) {
        coll_send(s, c, a->root, res, n, a->rdt);
        /* (a poke of the call from another remote rank is answered: an
         * eager send has left, and the root waits) */
        coll_sched_set_sent_only(s, a->root);
    }
    return coll_sched_status(s);
}

/* Each group reduces to its leader; the leaders swap results; each group
 * receives the other group's reduction. */
static char *swap_reduced(coll_sched_t *s, const coll_args_t *a, size_t n, void *dst)
{
    mpi_comm_t *c = a->comm, *L = coll_local(c);
    char *res = local_reduce(s, a, n);
    if (coll_rank(L) == 0) {
        coll_recv(s, c, 0, dst, n, a->rdt);
        coll_send(s, c, 0, res, n, a->rdt);
        coll_fence(s);
    }
    return res;
}

static canal_status_t inter_allreduce(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *L = coll_local(a->comm);
    size_t n = (size_t)a->recvcount;
    if (n * dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    swap_reduced(s, a, n, a->recvbuf);
    coll_rec_bcast_tree(s, L, coll_group_all(L, 0), &coll_topo_binomial, 2, a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

/* The other group's reduction of the whole vector, split by this group's
 * recvcounts from the leader. */
static canal_status_t inter_reduce_scatter(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *L = coll_local(a->comm);
    ptrdiff_t ext = dt_extent(a->rdt);
    size_t total = 0, off = 0;
    char *full = NULL;

    for (int i = 0; i < coll_size(L); i++)
        total += a->kind == COLL_REDUCE_SCATTER ? (size_t)a->recvcounts[i] : (size_t)a->recvcount;
    if (total * dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    if (coll_rank(L) == 0)
        full = coll_tmp_typed(s, total, a->rdt);
    swap_reduced(s, a, total, full);
    for (int i = 0; i < coll_size(L); i++) {
        size_t k = a->kind == COLL_REDUCE_SCATTER ? (size_t)a->recvcounts[i] : (size_t)a->recvcount;
        if (k > 0) {
            if (coll_rank(L) == 0 && i == 0)
                coll_copy(s, full, k, a->rdt, a->recvbuf, k, a->rdt);
            else if (coll_rank(L) == 0)
                coll_send(s, L, i, full + (ptrdiff_t)off * ext, k, a->rdt);
            else if (coll_rank(L) == i)
                coll_recv(s, L, 0, a->recvbuf, k, a->rdt);
        }
        off += k;
    }
    return coll_sched_status(s);
}

canal_status_t coll_record_inter(coll_sched_t *s, const coll_args_t *a)
{
    if (coll_local(a->comm) == NULL)
        return common_err_set(CANAL_ERR_ARG,
                              "%s: the intercommunicator has no local "
                              "communicator",
                              coll_kind_name(a->kind));
    switch (a->kind) {
    case COLL_BARRIER:
        return inter_barrier(s, a);
    case COLL_BCAST:
        return inter_bcast(s, a);
    case COLL_GATHER:
        return inter_gather(s, a);
    case COLL_GATHERV:
        return inter_gatherv(s, a);
    case COLL_SCATTER:
        return inter_scatter(s, a);
    case COLL_SCATTERV:
        return inter_scatterv(s, a);
    case COLL_ALLGATHER:
        return inter_allgather(s, a);
    case COLL_ALLGATHERV:
        return inter_allgatherv(s, a);
    case COLL_ALLTOALL:
    case COLL_ALLTOALLV:
    case COLL_ALLTOALLW:
        return inter_alltoall(s, a);
    case COLL_REDUCE:
        return inter_reduce(s, a);
    case COLL_ALLREDUCE:
        return inter_allreduce(s, a);
    case COLL_REDUCE_SCATTER:
    case COLL_REDUCE_SCATTER_BLOCK:
        return inter_reduce_scatter(s, a);
    default:
        return common_err_set(CANAL_ERR_ARG, "%s is not defined on intercommunicators",
                              coll_kind_name(a->kind));
    }
}
