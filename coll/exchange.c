/*
 * Collectives where everyone sends to everyone: allgather (ring, recursive
 * doubling, Bruck, gather + bcast, linear), allgatherv (ring, recursive
 * doubling, linear), alltoall (pairwise exchange, linear, Bruck) and
 * alltoallv/w (pairwise, linear). Each records a walk of coll/topo.c's bidirectional iterators;
 * coll/select.c chooses.
 *
 * Allgather works in place in recvbuf: a span of blocks [f, f + k) is k
 * consecutive blocks of recvcount elements. Allgatherv's spans are
 * described by an indexed datatype over the user's displacements. Bruck's
 * algorithms work on a packed, rotated copy (block i = rank + i) and move
 * their block sets as indexed datatypes over it.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

static int is_in_place(const void *p)
{
    return p == MPI_IN_PLACE;
}

/* ---------------------------------------------------------------- allgather */
/* Put this rank's own block in place (unless MPI_IN_PLACE). */
static void allgather_own(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    if (!is_in_place(a->sendbuf))
        coll_copy(s, a->sendbuf, (size_t)a->sendcount, a->sdt,
                  (char *)a->recvbuf + coll_blk(coll_rank(c), (size_t)a->recvcount, a->rdt),
                  (size_t)a->recvcount, a->rdt);
}

static int allgather_empty(const coll_args_t *a)
{
    return a->recvcount == 0 || dt_size(a->rdt) == 0;
}

/* Allgather walking a topology whose spans do not wrap (ring, recursive
 * doubling): receive and send spans straight into/out of recvbuf. */
static canal_status_t allgather_walk(coll_sched_t *s, const coll_args_t *a, const coll_topo_t *topo)
{
    mpi_comm_t *c = a->comm;
    size_t rc = (size_t)a->recvcount;
    char *rb = a->recvbuf;
    coll_iter_t it;
    coll_step_t st;

    allgather_own(s, a);
    if (allgather_empty(a))
        return coll_sched_status(s);
    coll_iter_begin(&it, topo, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0)
            coll_recv(s, c, st.recv_peer, rb + coll_blk(st.recv_first, rc, a->rdt),
                      (size_t)st.recv_count * rc, a->rdt);
        if (st.send_peer >= 0)
            coll_send(s, c, st.send_peer, rb + coll_blk(st.send_first, rc, a->rdt),
                      (size_t)st.send_count * rc, a->rdt);
        coll_fence(s);
    }
    return coll_sched_status(s);
}

static canal_status_t allgather_ring(coll_sched_t *s, const coll_args_t *a)
{
    return allgather_walk(s, a, &coll_topo_ring);
}

static canal_status_t allgather_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    return allgather_walk(s, a, &coll_topo_recdbl);
}

/* Bruck: a packed copy rotated so that this rank's block comes first; in
 * round k the first min(2^k, p - 2^k) blocks go to rank - 2^k and as many
 * arrive from rank + 2^k after them; at the end rotate back. */
static canal_status_t allgather_bruck(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c), me = coll_rank(c);
    size_t rc = (size_t)a->recvcount, B = rc * dt_size(a->rdt);
    char *rb = a->recvbuf, *t;
    coll_iter_t it;
    coll_step_t st;

    if (allgather_empty(a)) {
        allgather_own(s, a);
        return coll_sched_status(s);
    }
    t = coll_tmp(s, (size_t)p * B);
    if (t == NULL)
        return coll_sched_status(s);
    if (is_in_place(a->sendbuf))
        coll_copy(s, rb + coll_blk(me, rc, a->rdt), rc, a->rdt, t, B, coll_byte());
    else
        coll_copy(s, a->sendbuf, (size_t)a->sendcount, a->sdt, t, B, coll_byte());
    coll_iter_begin(&it, &coll_topo_bruck, COLL_DIR_BIDIR, p, me, 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        /* spans are absolute; position in t is (block - me) mod p */
        int rpos = ((st.recv_first - me) % p + p) % p;
        coll_recv(s, c, st.recv_peer, t + (size_t)rpos * B, (size_t)st.recv_count * B, coll_byte());
        coll_send(s, c, st.send_peer, t, (size_t)st.send_count * B, coll_byte());
        coll_fence(s);
    }
    coll_copy(s, t, (size_t)(p - me) * B, coll_byte(), rb + coll_blk(me, rc, a->rdt),
              (size_t)(p - me) * rc, a->rdt);
    if (me > 0)
        coll_copy(s, t + (size_t)(p - me) * B, (size_t)me * B, coll_byte(), rb, (size_t)me * rc,
                  a->rdt);
    return coll_sched_status(s);
}

/* Everything posted at once, in the pairwise order (no hot spot): this
 * rank's block to every other rank, every other block from its owner. No
 * message waits for another, so where ranks outnumber CPUs each process
 * moves what it can whenever it runs, instead of a ring's p - 1 steps each
 * waiting for a neighbour to be scheduled. */
static canal_status_t allgather_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t rc = (size_t)a->recvcount;
    char *rb = a->recvbuf;
    coll_iter_t it;
    coll_step_t st;

    allgather_own(s, a);
    if (allgather_empty(a))
        return coll_sched_status(s);
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0,
                    NULL);
    while (coll_iter_next(&it, &st)) {
        coll_recv(s, c, st.recv_peer, rb + coll_blk(st.recv_peer, rc, a->rdt), rc, a->rdt);
        coll_send(s, c, st.send_peer, rb + coll_blk(coll_rank(c), rc, a->rdt), rc, a->rdt);
    }
    return coll_sched_status(s);
}

/* Gather to rank 0 along a binomial tree, then broadcast. */
static canal_status_t allgather_gather_bcast(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t rc = (size_t)a->recvcount;
    char *rb = a->recvbuf;
    int p = coll_size(c);
    coll_iter_t it;
    coll_step_t st;

    allgather_own(s, a);
    if (allgather_empty(a))
        return coll_sched_status(s);
    /* reverse binomial rooted at 0: subtrees are contiguous blocks */
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_REVERSE, p, coll_rank(c), 0, 2, NULL);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0)
            coll_recv(s, c, st.recv_peer, rb + coll_blk(st.recv_first, rc, a->rdt),
                      (size_t)st.recv_count * rc, a->rdt);
        if (st.send_peer >= 0) {
            coll_fence(s);
            coll_send(s, c, st.send_peer, rb + coll_blk(st.send_first, rc, a->rdt),
                      (size_t)st.send_count * rc, a->rdt);
        }
    }
    coll_fence(s);
    coll_rec_bcast_tree(s, c, coll_group_all(c, 0), &coll_topo_binomial, 2, rb, (size_t)p * rc,
                        a->rdt);
    return coll_sched_status(s);
}

const coll_algo_t coll_allgather_ring = {"ring", COLL_ALLGATHER, allgather_ring, NULL};
const coll_algo_t coll_allgather_recdbl = {"recursive_doubling", COLL_ALLGATHER, allgather_recdbl,
                                           NULL};
const coll_algo_t coll_allgather_bruck = {"bruck", COLL_ALLGATHER, allgather_bruck, NULL};
const coll_algo_t coll_allgather_linear = {"linear", COLL_ALLGATHER, allgather_linear, NULL};
const coll_algo_t coll_allgather_gather_bcast = {"gather_bcast", COLL_ALLGATHER,
                                                 allgather_gather_bcast, NULL};

/* ---------------------------------------------------------------- allgatherv */
static void allgatherv_own(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    if (!is_in_place(a->sendbuf))
        coll_copy(s, a->sendbuf, (size_t)a->sendcount, a->sdt,
                  (char *)a->recvbuf + (ptrdiff_t)a->rdispls[coll_rank(c)] * dt_extent(a->rdt),
                  (size_t)a->recvcounts[coll_rank(c)], a->rdt);
}

static canal_status_t allgatherv_ring(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    char *rb = a->recvbuf;
    ptrdiff_t ext = dt_extent(a->rdt);
    size_t esz = dt_size(a->rdt);
    coll_iter_t it;
    coll_step_t st;

    allgatherv_own(s, a);
    if (esz == 0)
        return coll_sched_status(s);
    coll_iter_begin(&it, &coll_topo_ring, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t rn = (size_t)a->recvcounts[st.recv_first], sn = (size_t)a->recvcounts[st.send_first];
        if (rn > 0)
            coll_recv(s, c, st.recv_peer, rb + (ptrdiff_t)a->rdispls[st.recv_first] * ext, rn,
                      a->rdt);
        if (sn > 0)
            coll_send(s, c, st.send_peer, rb + (ptrdiff_t)a->rdispls[st.send_first] * ext, sn,
                      a->rdt);
        coll_fence(s);
    }
    return coll_sched_status(s);
}

/* The blocks [first, first + k) of allgatherv's layout as one datatype
 * (NULL when they hold no data). */
static dt_type_t *v_span_type(coll_sched_t *s, const coll_args_t *a, int first, int k)
{
    size_t *bl = coll_tmp(s, sizeof(size_t) * (size_t)k);
    ptrdiff_t *dp = coll_tmp(s, sizeof(ptrdiff_t) * (size_t)k);
    size_t sum = 0;
    dt_type_t *t = NULL;
    canal_status_t st;

    if (bl == NULL || dp == NULL)
        return NULL;
    for (int i = 0; i < k; i++) {
        bl[i] = (size_t)a->recvcounts[first + i];
        dp[i] = (ptrdiff_t)a->rdispls[first + i];
        sum += bl[i];
    }
    if (sum == 0)
        return NULL;
    st = dt_create_indexed((size_t)k, bl, dp, a->rdt, &t);
    return coll_keep_type(s, st, t);
}

static canal_status_t allgatherv_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    coll_iter_t it;
    coll_step_t st;

    allgatherv_own(s, a);
    if (dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    coll_iter_begin(&it, &coll_topo_recdbl, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0) {
            dt_type_t *t = v_span_type(s, a, st.recv_first, st.recv_count);
            if (t != NULL)
                coll_recv(s, c, st.recv_peer, a->recvbuf, 1, t);
        }
        if (st.send_peer >= 0) {
            dt_type_t *t = v_span_type(s, a, st.send_first, st.send_count);
            if (t != NULL)
                coll_send(s, c, st.send_peer, a->recvbuf, 1, t);
        }
        coll_fence(s);
    }
    return coll_sched_status(s);
}

/* Everything posted at once in the pairwise order, as allgather's linear:
 * this rank's block to every other rank, every other block from its owner
 * straight into its place. No step waits for a partner to be scheduled,
 * and no span datatype is built (recursive doubling creates two per
 * round), so where ranks outnumber CPUs each process moves what it can
 * whenever it runs. */
static canal_status_t allgatherv_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    char *rb = a->recvbuf;
    ptrdiff_t ext = dt_extent(a->rdt);
    int me = coll_rank(c);
    size_t mine = (size_t)a->recvcounts[me];
    coll_iter_t it;
    coll_step_t st;

    allgatherv_own(s, a);
    if (dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, coll_size(c), me, 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t rn = (size_t)a->recvcounts[st.recv_peer];
        if (rn > 0)
            coll_recv(s, c, st.recv_peer, rb + (ptrdiff_t)a->rdispls[st.recv_peer] * ext, rn,
                      a->rdt);
        if (mine > 0)
            coll_send(s, c, st.send_peer, rb + (ptrdiff_t)a->rdispls[me] * ext, mine, a->rdt);
    }
    return coll_sched_status(s);
}

const coll_algo_t coll_allgatherv_ring = {"ring", COLL_ALLGATHERV, allgatherv_ring, NULL};
const coll_algo_t coll_allgatherv_recdbl = {"recursive_doubling", COLL_ALLGATHERV,
                                            allgatherv_recdbl, NULL};
const coll_algo_t coll_allgatherv_linear = {"linear", COLL_ALLGATHERV, allgatherv_linear, NULL};

/* ---------------------------------------------------------------- alltoall(v, w) */
/* Where block i goes to / comes from, for all three variants. */
typedef struct {
    const char *buf;
    size_t count;
    dt_type_t *dt;
} blk_t;

static blk_t send_block(const coll_args_t *a, int i)
{
    blk_t b;
    switch (a->kind) {
    case COLL_ALLTOALLV:
        b.buf = (const char *)a->sendbuf + (ptrdiff_t)a->sdispls[i] * dt_extent(a->sdt);
        b.count = (size_t)a->sendcounts[i];
        b.dt = a->sdt;
        break;
    case COLL_ALLTOALLW:
        b.buf = (const char *)a->sendbuf + a->sdispls[i];
        b.count = (size_t)a->sendcounts[i];
        b.dt = coll_dt_get(a->sendtypes[i]);
        break;
    default:
        b.buf = (const char *)a->sendbuf + coll_blk(i, (size_t)a->sendcount, a->sdt);
        b.count = (size_t)a->sendcount;
        b.dt = a->sdt;
        break;
    }
    return b;
}

static blk_t recv_block(const coll_args_t *a, int i)
{
    blk_t b;
    switch (a->kind) {
    case COLL_ALLTOALLV:
        b.buf = (const char *)a->recvbuf + (ptrdiff_t)a->rdispls[i] * dt_extent(a->rdt);
        b.count = (size_t)a->recvcounts[i];
        b.dt = a->rdt;
        break;
    case COLL_ALLTOALLW:
        b.buf = (const char *)a->recvbuf + a->rdispls[i];
        b.count = (size_t)a->recvcounts[i];
        b.dt = coll_dt_get(a->recvtypes[i]);
        break;
    default:
        b.buf = (const char *)a->recvbuf + coll_blk(i, (size_t)a->recvcount, a->rdt);
        b.count = (size_t)a->recvcount;
        b.dt = a->rdt;
        break;
    }
    return b;
}

static size_t blk_bytes(blk_t b)
{
    return b.dt != NULL ? b.count * dt_size(b.dt) : 0;
}

/* With MPI_IN_PLACE the data to send is in recvbuf, which the exchange
 * overwrites: send from a packed copy. offs[i] is block i's offset in it. */
typedef struct {
    char *packed;
    size_t *offs;
} inplace_t;

static int inplace_prepare(coll_sched_t *s, const coll_args_t *a, inplace_t *ip)
{
    int p = coll_size(a->comm);
    size_t total = 0;
    ip->packed = NULL;
    ip->offs = NULL;
    if (!is_in_place(a->sendbuf))
        return 1;
    ip->offs = coll_tmp(s, sizeof(size_t) * (size_t)(p + 1));
    if (ip->offs == NULL)
        return 0;
    for (int i = 0; i < p; i++) {
        ip->offs[i] = total;
        total += blk_bytes(recv_block(a, i));
    }
    ip->offs[p] = total;
    ip->packed = coll_tmp(s, total);
    if (ip->packed == NULL)
        return 0;
    for (int i = 0; i < p; i++) {
        blk_t b = recv_block(a, i);
        if (i != coll_rank(a->comm))
            coll_copy(s, b.buf, b.count, b.dt, ip->packed + ip->offs[i], blk_bytes(b), coll_byte());
    }
    return 1;
}

static void post_send_block(coll_sched_t *s, const coll_args_t *a, const inplace_t *ip, int i)
{
    if (ip->packed != NULL) {
        size_t n = ip->offs[i + 1] - ip->offs[i];
        if (n > 0)
            coll_send(s, a->comm, i, ip->packed + ip->offs[i], n, coll_byte());
        return;
    }
    blk_t b = send_block(a, i);
    if (blk_bytes(b) > 0)
        coll_send(s, a->comm, i, b.buf, b.count, b.dt);
}

static void post_recv_block(coll_sched_t *s, const coll_args_t *a, int i)
{
    blk_t b = recv_block(a, i);
    if (blk_bytes(b) > 0)
        coll_recv(s, a->comm, i, (void *)b.buf, b.count, b.dt);
}

static void alltoall_own(coll_sched_t *s, const coll_args_t *a)
{
    int me = coll_rank(a->comm);
    if (!is_in_place(a->sendbuf)) {
        blk_t sb = send_block(a, me), rb = recv_block(a, me);
        if (sb.dt != NULL && rb.dt != NULL)
            coll_copy(s, sb.buf, sb.count, sb.dt, (void *)rb.buf, rb.count, rb.dt);
    }
}

/* Shifted pairs: in round s send to rank + s and receive from rank - s. */
static canal_status_t alltoall_pairwise(coll_sched_t *s, const coll_args_t *a)
{
    inplace_t ip;
    coll_iter_t it;
    coll_step_t st;

    if (!inplace_prepare(s, a, &ip))
        return coll_sched_status(s);
    alltoall_own(s, a);
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, coll_size(a->comm), coll_rank(a->comm), 0, 0,
                    NULL);
    while (coll_iter_next(&it, &st)) {
        post_recv_block(s, a, st.recv_peer);
        post_send_block(s, a, &ip, st.send_peer);
        coll_fence(s);
    }
    return coll_sched_status(s);
}

/* Everything posted at once, in the pairwise order (no hot spot). */
static canal_status_t alltoall_linear(coll_sched_t *s, const coll_args_t *a)
{
    inplace_t ip;
    coll_iter_t it;
    coll_step_t st;

    if (!inplace_prepare(s, a, &ip))
        return coll_sched_status(s);
    alltoall_own(s, a);
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, coll_size(a->comm), coll_rank(a->comm), 0, 0,
                    NULL);
    while (coll_iter_next(&it, &st)) {
        post_recv_block(s, a, st.recv_peer);
        post_send_block(s, a, &ip, st.send_peer);
    }
    return coll_sched_status(s);
}

/*
 * Bruck's alltoall for small blocks: t holds the packed blocks rotated so
 * that t[i] is for rank me + i. In the dissemination round of distance d,
 * every block whose index has bit d set travels d ranks on (to me + d,
 * arriving from me - d at the same index). After all rounds t[i] holds the
 * block from rank me - i. The moving block set is an indexed type over t.
 */
static canal_status_t alltoall_bruck(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c), me = coll_rank(c);
    size_t rc = (size_t)a->recvcount, B = rc * dt_size(a->rdt);
    const char *sb;
    size_t sc;
    dt_type_t *sdt;
    char *t, *in;
    coll_iter_t it;
    coll_step_t st;

    if (B == 0)
        return coll_sched_status(s);
    if (is_in_place(a->sendbuf)) {
        /* recvbuf is read in the rotation, before anything lands in it */
        sb = a->recvbuf;
        sc = rc;
        sdt = a->rdt;
    } else {
        sb = a->sendbuf;
        sc = (size_t)a->sendcount;
        sdt = a->sdt;
    }
    t = coll_tmp(s, (size_t)p * B);
    in = coll_tmp(s, (size_t)p * B);
    if (t == NULL || in == NULL)
        return coll_sched_status(s);
    coll_copy(s, sb + coll_blk(me, sc, sdt), (size_t)(p - me) * sc, sdt, t, (size_t)(p - me) * B,
              coll_byte());
    if (me > 0)
        coll_copy(s, sb, (size_t)me * sc, sdt, t + (size_t)(p - me) * B, (size_t)me * B,
                  coll_byte());
    coll_iter_begin(&it, &coll_topo_dissemination, COLL_DIR_BIDIR, p, me, 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        int n = 0;
        ptrdiff_t *dp = coll_tmp(s, sizeof(ptrdiff_t) * (size_t)p);
        dt_type_t *set = NULL;
        canal_status_t st_create;
        if (dp == NULL)
            return coll_sched_status(s);
        for (int i = 0; i < p; i++)
            if (i & st.dist)
                dp[n++] = (ptrdiff_t)((size_t)i * B);
        st_create = dt_create_hindexed_block((size_t)n, B, dp, coll_byte(), &set);
        set = coll_keep_type(s, st_create, set);
        if (set == NULL)
            return coll_sched_status(s);
        coll_recv(s, c, st.recv_peer, in, (size_t)n * B, coll_byte());
        coll_send(s, c, st.send_peer, t, 1, set);
        coll_fence(s);
        coll_copy(s, in, (size_t)n * B, coll_byte(), t, 1, set);
    }
    for (int i = 0; i < p; i++) {
        int from = ((me - i) % p + p) % p;
        coll_copy(s, t + (size_t)i * B, B, coll_byte(),
                  (char *)a->recvbuf + coll_blk(from, rc, a->rdt), rc, a->rdt);
    }
    return coll_sched_status(s);
}

const coll_algo_t coll_alltoall_pairwise = {"pairwise", COLL_ALLTOALL, alltoall_pairwise, NULL};
const coll_algo_t coll_alltoall_linear = {"linear", COLL_ALLTOALL, alltoall_linear, NULL};
const coll_algo_t coll_alltoall_bruck = {"bruck", COLL_ALLTOALL, alltoall_bruck, NULL};
const coll_algo_t coll_alltoallv_pairwise = {"pairwise", COLL_ALLTOALLV, alltoall_pairwise, NULL};
const coll_algo_t coll_alltoallv_linear = {"linear", COLL_ALLTOALLV, alltoall_linear, NULL};
const coll_algo_t coll_alltoallw_pairwise = {"pairwise", COLL_ALLTOALLW, alltoall_pairwise, NULL};
const coll_algo_t coll_alltoallw_linear = {"linear", COLL_ALLTOALLW, alltoall_linear, NULL};
