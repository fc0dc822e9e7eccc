/*
 * Rooted collectives and barrier: the building blocks that walk trees
 * (bcast down a tree, reduce up a tree, barrier by dissemination or tree
 * signals), and the algorithms made of them: barrier, bcast, reduce,
 * gather(v), scatter(v), flat and node-aware. Each algorithm records its
 * walk into a schedule (coll/sched.c); the selection table (coll/select.c)
 * names them.
 *
 * Gather and scatter move packed bytes between inner tree nodes (block i of
 * a subtree is B = count * size bytes at offset (i - first) * B of a
 * temporary); only leaves and the root touch the user's datatypes.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

#include "common/cvar.h"

static void group_iter(coll_iter_t *it, const coll_topo_t *topo, coll_dir_t dir, coll_group_t g,
                       int radix)
{
    coll_iter_begin(it, topo, dir, g.size, g.idx, g.root, radix, g.map);
}

/* CANAL_COLL_KNOMIAL_RADIX, read once. */
static int knomial_radix(void)
{
    static int radix;
    int k = __atomic_load_n(&radix, __ATOMIC_ACQUIRE);
    if (k == 0) {
        long long v = common_cvar_int("COLL_KNOMIAL_RADIX");
        k = v < 2 ? 2 : v > 64 ? 64 : (int)v;
        __atomic_store_n(&radix, k, __ATOMIC_RELEASE);
    }
    return k;
}

static int is_in_place(const void *p)
{
    return p == MPI_IN_PLACE;
}

/* ---------------------------------------------------------------- building blocks */
void coll_rec_bcast_tree(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, const coll_topo_t *topo,
                         int radix, void *buf, size_t count, dt_type_t *dt)
{
    coll_iter_t it;
    coll_step_t st;
    group_iter(&it, topo, COLL_DIR_STRAIGHT, g, radix);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0) {
            coll_recv(s, c, st.recv_peer, buf, count, dt);
            coll_fence(s);
        }
        if (st.send_peer >= 0)
            coll_send(s, c, st.send_peer, buf, count, dt);
    }
}

void coll_rec_reduce_tree(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, const coll_topo_t *topo,
                          int radix, const void *in, void *out, size_t count, dt_type_t *dt,
                          MPI_Datatype dth, MPI_Op op, int commutative)
{
    coll_iter_t it;
    coll_step_t st;
    int nrecv = 0, is_root = g.idx == g.root, pending;
    void *acc, *other, *t;

    if (g.idx < 0)
        return;
    group_iter(&it, topo, COLL_DIR_REVERSE, g, radix);
    while (coll_iter_next(&it, &st))
        nrecv += st.recv_peer >= 0;
    if (nrecv == 0) {
        if (is_root) {
            if (in != out)
                coll_copy(s, in, count, dt, out, count, dt);
            return;
        }
        /* a leaf sends its contribution as it is */
        group_iter(&it, topo, COLL_DIR_REVERSE, g, radix);
        while (coll_iter_next(&it, &st))
            if (st.send_peer >= 0)
                coll_send(s, c, st.send_peer, in, count, dt);
        return;
    }
    /* acc does not hold `in` yet (pending): the first child's part is
     * received straight into acc and `in` reduced into it (in op child, in
     * rank order), which saves copying the vector into acc first. */
    pending = !is_root || in != out;
    acc = is_root ? out : coll_tmp_typed(s, count, dt);
    other = nrecv > 1 || !pending ? coll_tmp_typed(s, count, dt) : NULL;
    /* Children come smallest subtree first: acc covers the ranks below the
     * child's, so acc op child keeps rank order. */
    group_iter(&it, topo, COLL_DIR_REVERSE, g, radix);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0 && pending) {
            coll_recv(s, c, st.recv_peer, acc, count, dt);
            coll_fence(s);
            coll_reduce(s, in, acc, count, dt, dth, op);
            pending = 0;
        } else if (st.recv_peer >= 0) {
            coll_recv(s, c, st.recv_peer, other, count, dt);
            coll_fence(s);
            if (commutative) {
                coll_reduce(s, other, acc, count, dt, dth, op);
            } else {
                coll_reduce(s, acc, other, count, dt, dth, op);
                t = acc, acc = other, other = t;
            }
        }
        if (st.send_peer >= 0)
            coll_send(s, c, st.send_peer, pending ? in : acc, count, dt);
    }
    if (is_root && acc != out)
        coll_copy(s, acc, count, dt, out, count, dt);
}

void coll_rec_allreduce_recdbl(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, void *buf,
                               size_t count, dt_type_t *dt, MPI_Datatype dth, MPI_Op op,
                               int commutative)
{
    coll_iter_t it;
    coll_step_t st;
    void *tmp;

    if (g.idx < 0 || g.size < 2)
        return;
    tmp = coll_tmp_typed(s, count, dt);
    coll_iter_begin(&it, &coll_topo_recdbl, COLL_DIR_BIDIR, g.size, g.idx, 0, 0, g.map);
    while (coll_iter_next(&it, &st)) {
        switch (st.phase) {
        case COLL_PHASE_PRE:
            if (st.send_peer >= 0) {
                coll_send(s, c, st.send_peer, buf, count, dt);
                coll_fence(s);
            } else {
                /* the extra rank is the lower one: tmp op buf */
                coll_recv(s, c, st.recv_peer, tmp, count, dt);
                coll_fence(s);
                coll_reduce(s, tmp, buf, count, dt, dth, op);
            }
            break;
        case COLL_PHASE_MAIN:
            coll_recv(s, c, st.recv_peer, tmp, count, dt);
            coll_send(s, c, st.send_peer, buf, count, dt);
            coll_fence(s);
            if (commutative || st.recv_peer < coll_rank(c)) {
                coll_reduce(s, tmp, buf, count, dt, dth, op);
            } else {
                coll_reduce(s, buf, tmp, count, dt, dth, op);
                coll_copy(s, tmp, count, dt, buf, count, dt);
            }
            break;
        case COLL_PHASE_POST:
            if (st.send_peer >= 0)
                coll_send(s, c, st.send_peer, buf, count, dt);
            else
                coll_recv(s, c, st.recv_peer, buf, count, dt);
            coll_fence(s);
            break;
        }
    }
}

void coll_rec_barrier_dissem(coll_sched_t *s, mpi_comm_t *c, coll_group_t g)
{
    coll_iter_t it;
    coll_step_t st;
    coll_iter_begin(&it, &coll_topo_dissemination, COLL_DIR_BIDIR, g.size, g.idx, 0, 0, g.map);
    while (coll_iter_next(&it, &st)) {
        coll_recv(s, c, st.recv_peer, NULL, 0, coll_byte());
        coll_send(s, c, st.send_peer, NULL, 0, coll_byte());
        coll_fence(s);
    }
}

void coll_rec_signal_tree(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, coll_dir_t dir)
{
    coll_iter_t it;
    coll_step_t st;
    int received = 0;
    group_iter(&it, &coll_topo_binomial, dir, g, 2);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0) {
            coll_recv(s, c, st.recv_peer, NULL, 0, coll_byte());
            received = 1;
        }
        if (st.send_peer >= 0) {
            if (received)
                coll_fence(s);
            received = 0;
            coll_send(s, c, st.send_peer, NULL, 0, coll_byte());
        }
    }
    coll_fence(s);
}

int coll_node_groups(coll_sched_t *s, mpi_comm_t *c, int root, coll_group_t *leaders,
                     coll_group_t *members)
{
    int nn, mynode, myleader, nm = 0, *lmap, *mmap;
    const int *node_of = coll_comm_nodes(c, &nn);

    if (node_of == NULL)
        return 0;
    lmap = coll_tmp(s, sizeof(int) * (size_t)nn);
    mmap = coll_tmp(s, sizeof(int) * (size_t)coll_size(c));
    if (lmap == NULL || mmap == NULL)
        return 0;
    for (int k = 0; k < nn; k++)
        lmap[k] = -1;
    for (int r = 0; r < coll_size(c); r++)
        if (lmap[node_of[r]] < 0)
            lmap[node_of[r]] = r;
    if (root >= 0)
        lmap[node_of[root]] = root;
    mynode = node_of[coll_rank(c)];
    myleader = lmap[mynode];
    mmap[nm++] = myleader;
    members->idx = coll_rank(c) == myleader ? 0 : -1;
    for (int r = 0; r < coll_size(c); r++) {
        if (node_of[r] != mynode || r == myleader)
            continue;
        if (r == coll_rank(c))
            members->idx = nm;
        mmap[nm++] = r;
    }
    members->size = nm;
    members->root = 0;
    members->map = mmap;
    leaders->size = nn;
    leaders->idx = coll_rank(c) == myleader ? mynode : -1;
    leaders->root = root >= 0 ? node_of[root] : 0;
    leaders->map = lmap;
    return 1;
}

static int usable_multinode(const coll_args_t *a)
{
    int nn;
    return coll_comm_nodes(a->comm, &nn) != NULL;
}

static int usable_multinode_commutative(const coll_args_t *a)
{
    return a->commutative && usable_multinode(a);
}

/* ---------------------------------------------------------------- barrier */
static canal_status_t barrier_dissemination(coll_sched_t *s, const coll_args_t *a)
{
    coll_rec_barrier_dissem(s, a->comm, coll_group_all(a->comm, 0));
    return coll_sched_status(s);
}

/* One composed walk (coll_chain_t): members report up their node's tree to
 * the leader, the leaders run a dissemination barrier, the leaders release
 * their members down the tree. Every edge is a zero-byte signal; a rank
 * sends only after everything it was to hear before has arrived. */
static canal_status_t barrier_node(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    coll_group_t leaders, members;
    coll_chain_t ch;
    coll_step_t st;
    int waiting = 0; /* receives posted since the last fence */

    if (!coll_node_groups(s, c, -1, &leaders, &members))
        return barrier_dissemination(s, a);
    coll_chain_init(&ch);
    coll_chain_add(&ch, &coll_topo_binomial, COLL_DIR_REVERSE, members.size, members.idx, 0, 2,
                   members.map);
    coll_chain_add(&ch, &coll_topo_dissemination, COLL_DIR_BIDIR, leaders.size, leaders.idx, 0, 0,
                   leaders.map);
    coll_chain_add(&ch, &coll_topo_binomial, COLL_DIR_STRAIGHT, members.size, members.idx, 0, 2,
                   members.map);
    while (coll_chain_next(&ch, &st, NULL)) {
        if (st.send_peer >= 0 && waiting) {
            coll_fence(s);
            waiting = 0;
        }
        if (st.recv_peer >= 0) {
            coll_recv(s, c, st.recv_peer, NULL, 0, coll_byte());
            waiting = 1;
        }
        if (st.send_peer >= 0)
            coll_send(s, c, st.send_peer, NULL, 0, coll_byte());
    }
    return coll_sched_status(s);
}

/* Arrivals gathered up a binomial tree to rank 0, the release sent down
 * it: 2(p-1) messages instead of p log p, and every rank waits for at most
 * its children and its parent (kinder when ranks outnumber cores). */
static canal_status_t barrier_tree(coll_sched_t *s, const coll_args_t *a)
{
    coll_group_t g = coll_group_all(a->comm, 0);
    coll_rec_signal_tree(s, a->comm, g, COLL_DIR_REVERSE);
    coll_rec_signal_tree(s, a->comm, g, COLL_DIR_STRAIGHT);
    return coll_sched_status(s);
}

/* Every rank signals rank 0 and waits for its release; rank 0 posts every
 * receive at once, then sends every release at once. A rank waits for one
 * partner only, where dissemination waits log2(p) times for partners that
 * each must be scheduled first (more ranks than CPUs); and rank 0, which
 * roots IMB's and most programs' next bcast, leaves first. */
static canal_status_t barrier_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c);

    if (coll_rank(c) == 0) {
        for (int r = 1; r < p; r++)
            coll_recv(s, c, r, NULL, 0, coll_byte());
        coll_fence(s);
        for (int r = 1; r < p; r++)
            coll_send(s, c, r, NULL, 0, coll_byte());
    } else {
        coll_send(s, c, 0, NULL, 0, coll_byte());
        coll_recv(s, c, 0, NULL, 0, coll_byte());
    }
    coll_fence(s);
    return coll_sched_status(s);
}

const coll_algo_t coll_barrier_tree = {"tree", COLL_BARRIER, barrier_tree, NULL};
const coll_algo_t coll_barrier_linear = {"linear", COLL_BARRIER, barrier_linear, NULL};
/* two ranks: one exchange, run blocking without a schedule (coll/pair.c) */
static int two_ranks(const coll_args_t *a)
{
    return coll_size(a->comm) == 2;
}

const coll_algo_t coll_barrier_dissemination = {"dissemination", COLL_BARRIER,
                                                barrier_dissemination, NULL,
                                                coll_pair_barrier, two_ranks};
const coll_algo_t coll_barrier_node = {"node", COLL_BARRIER, barrier_node, usable_multinode};

/* ---------------------------------------------------------------- bcast */
static int bcast_empty(const coll_args_t *a)
{
    return a->recvcount == 0 || dt_size(a->rdt) == 0 || coll_size(a->comm) == 1;
}

static canal_status_t bcast_tree(coll_sched_t *s, const coll_args_t *a, const coll_topo_t *topo,
                                 int radix)
{
    if (!bcast_empty(a))
        coll_rec_bcast_tree(s, a->comm, coll_group_all(a->comm, a->root), topo, radix, a->recvbuf,
                            (size_t)a->recvcount, a->rdt);
    return coll_sched_status(s);
}

static canal_status_t bcast_binomial(coll_sched_t *s, const coll_args_t *a)
{
    return bcast_tree(s, a, &coll_topo_binomial, 2);
}

static canal_status_t bcast_knomial(coll_sched_t *s, const coll_args_t *a)
{
    return bcast_tree(s, a, &coll_topo_knomial, knomial_radix());
}

static canal_status_t bcast_linear(coll_sched_t *s, const coll_args_t *a)
{
    return bcast_tree(s, a, &coll_topo_linear, 0);
}

/* Large messages: scatter the packed message in size pieces down a
 * binomial tree, then circulate the pieces around a ring (van de Geijn).
 * Empty pieces (a message of fewer bytes than ranks) still travel, as
 * empty messages: every rank then walks the same messages whatever count
 * it passed, so a broadcast whose ranks disagree on the length fails on
 * them (coll/sched.c checks each message's size) instead of hanging. */
static canal_status_t bcast_scatter_ring(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c);
    size_t n = (size_t)a->recvcount, total = n * dt_size(a->rdt), chunk;
    int contig = dt_is_contig_count(a->rdt, n);
    char *pb;
    coll_iter_t it;
    coll_step_t st;

    if (bcast_empty(a))
        return coll_sched_status(s);
    pb = contig ? (char *)a->recvbuf + dt_true_lb(a->rdt) : coll_tmp(s, total);
    if (pb == NULL)
        return coll_sched_status(s);
    if (!contig && coll_rank(c) == a->root)
        coll_copy(s, a->recvbuf, n, a->rdt, pb, total, coll_byte());
    chunk = (total + (size_t)p - 1) / (size_t)p;
#define BOFF(i) ((size_t)(i)*chunk < total ? (size_t)(i)*chunk : total)
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_STRAIGHT, p, coll_rank(c), a->root, 2, NULL);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0) {
            size_t lo = BOFF(st.recv_first), hi = BOFF(st.recv_first + st.recv_count);
            coll_recv(s, c, st.recv_peer, pb + lo, hi - lo, coll_byte());
            coll_fence(s);
        }
        if (st.send_peer >= 0) {
            size_t lo = BOFF(st.send_first), hi = BOFF(st.send_first + st.send_count);
            coll_send(s, c, st.send_peer, pb + lo, hi - lo, coll_byte());
        }
    }
    coll_fence(s);
    coll_iter_begin(&it, &coll_topo_ring, COLL_DIR_BIDIR, p, coll_rank(c), a->root, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t rlo = BOFF(st.recv_first), rhi = BOFF(st.recv_first + 1);
        size_t slo = BOFF(st.send_first), shi = BOFF(st.send_first + 1);
        coll_recv(s, c, st.recv_peer, pb + rlo, rhi - rlo, coll_byte());
        coll_send(s, c, st.send_peer, pb + slo, shi - slo, coll_byte());
        coll_fence(s);
    }
#undef BOFF
    if (!contig && coll_rank(c) != a->root)
        coll_copy(s, pb, total, coll_byte(), a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

/* One composed walk: the leaders' tree (the root leads its node), then
 * each node's tree from its leader. */
static canal_status_t bcast_node(coll_sched_t *s, const coll_args_t *a)
{
    coll_group_t leaders, members;
    coll_chain_t ch;
    coll_step_t st;

    if (bcast_empty(a))
        return coll_sched_status(s);
    if (!coll_node_groups(s, a->comm, a->root, &leaders, &members))
        return bcast_binomial(s, a);
    coll_chain_init(&ch);
    coll_chain_add(&ch, &coll_topo_binomial, COLL_DIR_STRAIGHT, leaders.size, leaders.idx,
                   leaders.root, 2, leaders.map);
    coll_chain_add(&ch, &coll_topo_binomial, COLL_DIR_STRAIGHT, members.size, members.idx, 0, 2,
                   members.map);
    while (coll_chain_next(&ch, &st, NULL)) {
        if (st.recv_peer >= 0) {
            coll_recv(s, a->comm, st.recv_peer, a->recvbuf, (size_t)a->recvcount, a->rdt);
            coll_fence(s);
        }
        if (st.send_peer >= 0)
            coll_send(s, a->comm, st.send_peer, a->recvbuf, (size_t)a->recvcount, a->rdt);
    }
    return coll_sched_status(s);
}

const coll_algo_t coll_bcast_binomial = {"binomial", COLL_BCAST, bcast_binomial, NULL};
const coll_algo_t coll_bcast_knomial = {"knomial", COLL_BCAST, bcast_knomial, NULL};
const coll_algo_t coll_bcast_linear = {"linear", COLL_BCAST, bcast_linear, NULL};
const coll_algo_t coll_bcast_scatter_ring = {"scatter_ring", COLL_BCAST, bcast_scatter_ring, NULL};
const coll_algo_t coll_bcast_node = {"node", COLL_BCAST, bcast_node, usable_multinode};

/* ---------------------------------------------------------------- reduce */
static canal_status_t reduce_tree(coll_sched_t *s, const coll_args_t *a, const coll_topo_t *topo,
                                  int radix)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    void *out0;

    if (n == 0 || dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    if (a->commutative || a->root == 0) {
        coll_rec_reduce_tree(s, c, coll_group_all(c, a->root), topo, radix, in,
                             coll_rank(c) == a->root ? a->recvbuf : NULL, n, a->rdt, a->recvtype, a->op,
                             a->commutative);
        return coll_sched_status(s);
    }
    /* Non-commutative with another root: reduce in rank order to rank 0,
     * then hand the result over. */
    out0 = coll_rank(c) == 0 ? coll_tmp_typed(s, n, a->rdt) : NULL;
    coll_rec_reduce_tree(s, c, coll_group_all(c, 0), topo, radix, in, out0, n, a->rdt, a->recvtype,
                         a->op, 0);
    coll_fence(s);
    if (coll_rank(c) == 0)
        coll_send(s, c, a->root, out0, n, a->rdt);
    else if (coll_rank(c) == a->root)
        coll_recv(s, c, 0, a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

static canal_status_t reduce_binomial(coll_sched_t *s, const coll_args_t *a)
{
    return reduce_tree(s, a, &coll_topo_binomial, 2);
}

static canal_status_t reduce_knomial(coll_sched_t *s, const coll_args_t *a)
{
    return reduce_tree(s, a, &coll_topo_knomial, knomial_radix());
}

/* The root collects the contributions and reduces them in rank order.
 * When they fit in REDUCE_LINEAR_ALL_BYTES of scratch, every receive is
 * posted at once (one fence: no rank waits for another to be scheduled,
 * which is what counts where ranks outnumber CPUs); otherwise one by one. */
enum { REDUCE_LINEAR_ALL_BYTES = 4 * 1024 * 1024 };

static canal_status_t reduce_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    int p = coll_size(c), me = coll_rank(c);
    void *acc, *other, *t;

    if (n == 0 || dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    if (me != a->root) {
        coll_send(s, c, a->root, in, n, a->rdt);
        return coll_sched_status(s);
    }
    if (p > 1 && (size_t)(p - 1) * n * dt_size(a->rdt) <= REDUCE_LINEAR_ALL_BYTES) {
        /* part[i]: rank i's contribution (the root's own is `in`); the
         * accumulator is recvbuf unless that is `in` (MPI_IN_PLACE) and
         * another rank's part goes first */
        const void **part = coll_tmp(s, sizeof(void *) * (size_t)p);
        char *area;
        size_t span;
        if (part == NULL)
            return coll_sched_status(s);
        area = coll_tmp_typed(s, n * (size_t)(p - 1), a->rdt);
        span = n * (size_t)dt_extent(a->rdt);
        if (me == p - 1) {
            acc = a->recvbuf;
            if (in != acc)
                coll_copy(s, in, n, a->rdt, acc, n, a->rdt);
        } else {
            acc = in != a->recvbuf ? a->recvbuf : area + (ptrdiff_t)(p - 2) * (ptrdiff_t)span;
        }
        for (int i = 0, k = 0; i < p; i++) {
            if (i == me) {
                part[i] = in;
                continue;
            }
            part[i] = i == p - 1 ? acc : area + (ptrdiff_t)k++ * (ptrdiff_t)span;
            coll_recv(s, c, i, (void *)part[i], n, a->rdt);
        }
        coll_fence(s);
        /* acc = part[i] op acc from the top down keeps rank order */
        for (int i = p - 2; i >= 0; i--)
            coll_reduce(s, part[i], acc, n, a->rdt, a->recvtype, a->op);
        if (acc != a->recvbuf)
            coll_copy(s, acc, n, a->rdt, a->recvbuf, n, a->rdt);
        return coll_sched_status(s);
    }
    acc = coll_tmp_typed(s, n, a->rdt);
    other = coll_tmp_typed(s, n, a->rdt);
    for (int i = 0; i < p; i++) {
        if (i == me) {
            coll_copy(s, in, n, a->rdt, other, n, a->rdt);
        } else {
            coll_recv(s, c, i, other, n, a->rdt);
            coll_fence(s);
        }
        if (i > 0)
            coll_reduce(s, acc, other, n, a->rdt, a->recvtype, a->op);
        t = acc, acc = other, other = t;
    }
    coll_copy(s, acc, n, a->rdt, a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

/* Commutative only: reduce inside each node to its leader, then among the
 * leaders to the root (which leads its node). */
static canal_status_t reduce_node(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    coll_group_t leaders, members;
    size_t n = (size_t)a->recvcount;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    void *mid;

    if (n == 0 || dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    if (!coll_node_groups(s, c, a->root, &leaders, &members))
        return reduce_binomial(s, a);
    mid = NULL;
    if (members.idx == 0)
        mid = coll_rank(c) == a->root ? a->recvbuf : coll_tmp_typed(s, n, a->rdt);
    coll_rec_reduce_tree(s, c, members, &coll_topo_binomial, 2, in, mid, n, a->rdt, a->recvtype,
                         a->op, 1);
    coll_fence(s);
    if (leaders.idx >= 0)
        coll_rec_reduce_tree(s, c, leaders, &coll_topo_binomial, 2, mid, mid, n, a->rdt,
                             a->recvtype, a->op, 1);
    return coll_sched_status(s);
}

const coll_algo_t coll_reduce_binomial = {"binomial", COLL_REDUCE, reduce_binomial, NULL};
const coll_algo_t coll_reduce_knomial = {"knomial", COLL_REDUCE, reduce_knomial, NULL};
const coll_algo_t coll_reduce_linear = {"linear", COLL_REDUCE, reduce_linear, NULL};
const coll_algo_t coll_reduce_node = {"node", COLL_REDUCE, reduce_node,
                                      usable_multinode_commutative};

/* ---------------------------------------------------------------- gather */
static canal_status_t gather_binomial(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c), root = a->root, is_root = coll_rank(c) == root;
    size_t B =
        is_root ? (size_t)a->recvcount * dt_size(a->rdt) : (size_t)a->sendcount * dt_size(a->sdt);
    size_t nsub = 1;
    coll_iter_t it;
    coll_step_t st;

    if (B == 0)
        return coll_sched_status(s);
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_REVERSE, p, coll_rank(c), root, 2, NULL);
    while (coll_iter_next(&it, &st))
        if (st.recv_peer >= 0)
            nsub += (size_t)st.recv_count;
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_REVERSE, p, coll_rank(c), root, 2, NULL);

    if (is_root) {
        char *rb = a->recvbuf;
        size_t rc = (size_t)a->recvcount;
        char *wrap = NULL;
        int wrap_first = 0, wrap_count = 0;
        if (!is_in_place(a->sendbuf))
            coll_copy(s, a->sendbuf, (size_t)a->sendcount, a->sdt, rb + coll_blk(root, rc, a->rdt),
                      rc, a->rdt);
        while (coll_iter_next(&it, &st)) {
            int first = (st.recv_first + root) % p, k = st.recv_count;
            if (first + k <= p) {
                coll_recv(s, c, st.recv_peer, rb + coll_blk(first, rc, a->rdt), (size_t)k * rc,
                          a->rdt);
            } else {
                /* the one subtree whose ranks wrap past size - 1 */
                wrap = coll_tmp(s, (size_t)k * B);
                wrap_first = first;
                wrap_count = k;
                coll_recv(s, c, st.recv_peer, wrap, (size_t)k * B, coll_byte());
            }
        }
        coll_fence(s);
        if (wrap != NULL) {
            size_t n1 = (size_t)(p - wrap_first);
            coll_copy(s, wrap, n1 * B, coll_byte(), rb + coll_blk(wrap_first, rc, a->rdt), n1 * rc,
                      a->rdt);
            coll_copy(s, wrap + n1 * B, ((size_t)wrap_count - n1) * B, coll_byte(), rb,
                      ((size_t)wrap_count - n1) * rc, a->rdt);
        }
        return coll_sched_status(s);
    }
    if (nsub == 1) {
        while (coll_iter_next(&it, &st))
            if (st.send_peer >= 0)
                coll_send(s, c, st.send_peer, a->sendbuf, (size_t)a->sendcount, a->sdt);
        return coll_sched_status(s);
    }
    {
        int rel = (coll_rank(c) - root + p) % p;
        char *t = coll_tmp(s, nsub * B);
        if (t == NULL)
            return coll_sched_status(s);
        coll_copy(s, a->sendbuf, (size_t)a->sendcount, a->sdt, t, B, coll_byte());
        while (coll_iter_next(&it, &st)) {
            if (st.recv_peer >= 0)
                coll_recv(s, c, st.recv_peer, t + (size_t)(st.recv_first - rel) * B,
                          (size_t)st.recv_count * B, coll_byte());
            if (st.send_peer >= 0) {
                coll_fence(s);
                coll_send(s, c, st.send_peer, t, nsub * B, coll_byte());
            }
        }
    }
    return coll_sched_status(s);
}

/* Linear gather(v): the root posts one receive per rank. counts == NULL:
 * every rank sends recvcount elements to block i. */
static canal_status_t gather_linear_common(coll_sched_t *s, const coll_args_t *a,
                                           const MPI_Count *counts, const MPI_Aint *displs)
{
    mpi_comm_t *c = a->comm;
    if (coll_rank(c) != a->root) {
        if (a->sendcount > 0 && dt_size(a->sdt) > 0)
            coll_send(s, c, a->root, a->sendbuf, (size_t)a->sendcount, a->sdt);
        return coll_sched_status(s);
    }
    for (int i = 0; i < coll_size(c); i++) {
        size_t n = counts ? (size_t)counts[i] : (size_t)a->recvcount;
        ptrdiff_t off = displs ? (ptrdiff_t)displs[i] * dt_extent(a->rdt)
                               : coll_blk(i, (size_t)a->recvcount, a->rdt);
        char *dst = (char *)a->recvbuf + off;
        if (i == coll_rank(c)) {
            if (!is_in_place(a->sendbuf))
                coll_copy(s, a->sendbuf, (size_t)a->sendcount, a->sdt, dst, n, a->rdt);
        } else if (n * dt_size(a->rdt) > 0) {
            coll_recv(s, c, i, dst, n, a->rdt);
        }
    }
    return coll_sched_status(s);
}

static canal_status_t gather_linear(coll_sched_t *s, const coll_args_t *a)
{
    return gather_linear_common(s, a, NULL, NULL);
}

static canal_status_t gatherv_linear(coll_sched_t *s, const coll_args_t *a)
{
    return gather_linear_common(s, a, a->recvcounts, a->rdispls);
}

const coll_algo_t coll_gather_binomial = {"binomial", COLL_GATHER, gather_binomial, NULL};
const coll_algo_t coll_gather_linear = {"linear", COLL_GATHER, gather_linear, NULL,
                                        coll_direct_gather, coll_direct_rooted_usable};
const coll_algo_t coll_gatherv_linear = {"linear", COLL_GATHERV, gatherv_linear, NULL,
                                         coll_direct_gather, coll_direct_rooted_usable};

/* ---------------------------------------------------------------- scatter */
static canal_status_t scatter_binomial(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c), root = a->root, is_root = coll_rank(c) == root;
    size_t B =
        is_root ? (size_t)a->sendcount * dt_size(a->sdt) : (size_t)a->recvcount * dt_size(a->rdt);
    size_t nsub = 0;
    coll_iter_t it;
    coll_step_t st;

    if (B == 0)
        return coll_sched_status(s);
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_STRAIGHT, p, coll_rank(c), root, 2, NULL);

    if (is_root) {
        const char *sb = a->sendbuf;
        size_t sc = (size_t)a->sendcount;
        char *pb;
        if (root == 0 && dt_is_contig_count(a->sdt, (size_t)p * sc)) {
            pb = (char *)sb + dt_true_lb(a->sdt);
        } else {
            /* pack in relative order: root's block first */
            pb = coll_tmp(s, (size_t)p * B);
            if (pb == NULL)
                return coll_sched_status(s);
            coll_copy(s, sb + coll_blk(root, sc, a->sdt), (size_t)(p - root) * sc, a->sdt, pb,
                      (size_t)(p - root) * B, coll_byte());
            if (root > 0)
                coll_copy(s, sb, (size_t)root * sc, a->sdt, pb + (size_t)(p - root) * B,
                          (size_t)root * B, coll_byte());
        }
        while (coll_iter_next(&it, &st))
            if (st.send_peer >= 0)
                coll_send(s, c, st.send_peer, pb + (size_t)st.send_first * B,
                          (size_t)st.send_count * B, coll_byte());
        if (!is_in_place(a->recvbuf))
            coll_copy(s, sb + coll_blk(root, sc, a->sdt), sc, a->sdt, a->recvbuf,
                      (size_t)a->recvcount, a->rdt);
        return coll_sched_status(s);
    }
    while (coll_iter_next(&it, &st))
        if (st.recv_peer >= 0)
            nsub = (size_t)st.recv_count;
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_STRAIGHT, p, coll_rank(c), root, 2, NULL);
    if (nsub == 1) {
        while (coll_iter_next(&it, &st))
            if (st.recv_peer >= 0)
                coll_recv(s, c, st.recv_peer, a->recvbuf, (size_t)a->recvcount, a->rdt);
        return coll_sched_status(s);
    }
    {
        int rel = (coll_rank(c) - root + p) % p;
        char *t = coll_tmp(s, nsub * B);
        if (t == NULL)
            return coll_sched_status(s);
        while (coll_iter_next(&it, &st)) {
            if (st.recv_peer >= 0) {
                coll_recv(s, c, st.recv_peer, t, nsub * B, coll_byte());
                coll_fence(s);
            }
            if (st.send_peer >= 0)
                coll_send(s, c, st.send_peer, t + (size_t)(st.send_first - rel) * B,
                          (size_t)st.send_count * B, coll_byte());
        }
        coll_copy(s, t, B, coll_byte(), a->recvbuf, (size_t)a->recvcount, a->rdt);
    }
    return coll_sched_status(s);
}

static canal_status_t scatter_linear_common(coll_sched_t *s, const coll_args_t *a,
                                            const MPI_Count *counts, const MPI_Aint *displs)
{
    mpi_comm_t *c = a->comm;
    if (coll_rank(c) != a->root) {
        if (a->recvcount > 0 && dt_size(a->rdt) > 0)
            coll_recv(s, c, a->root, a->recvbuf, (size_t)a->recvcount, a->rdt);
        return coll_sched_status(s);
    }
    for (int i = 0; i < coll_size(c); i++) {
        size_t n = counts ? (size_t)counts[i] : (size_t)a->sendcount;
        ptrdiff_t off = displs ? (ptrdiff_t)displs[i] * dt_extent(a->sdt)
                               : coll_blk(i, (size_t)a->sendcount, a->sdt);
        const char *src = (const char *)a->sendbuf + off;
        if (i == coll_rank(c)) {
            if (!is_in_place(a->recvbuf))
                coll_copy(s, src, n, a->sdt, a->recvbuf, (size_t)a->recvcount, a->rdt);
        } else if (n * dt_size(a->sdt) > 0) {
            coll_send(s, c, i, src, n, a->sdt);
        }
    }
    return coll_sched_status(s);
}

static canal_status_t scatter_linear(coll_sched_t *s, const coll_args_t *a)
{
    return scatter_linear_common(s, a, NULL, NULL);
}

static canal_status_t scatterv_linear(coll_sched_t *s, const coll_args_t *a)
{
    return scatter_linear_common(s, a, a->sendcounts, a->sdispls);
}

const coll_algo_t coll_scatter_binomial = {"binomial", COLL_SCATTER, scatter_binomial, NULL};
const coll_algo_t coll_scatter_linear = {"linear", COLL_SCATTER, scatter_linear, NULL,
                                         coll_direct_scatter, coll_direct_rooted_usable};
const coll_algo_t coll_scatterv_linear = {"linear", COLL_SCATTERV, scatterv_linear, NULL,
                                          coll_direct_scatter, coll_direct_rooted_usable};
