/*
 * Reductions whose result every rank gets a part of: allreduce (recursive
 * doubling, Rabenseifner, ring, reduce + bcast, node-aware),
 * reduce_scatter and reduce_scatter_block (recursive halving, ring, linear,
 * and reduce + scatter for non-commutative operations), scan and exscan
 * (recursive doubling on the hypercube, and linear). Each records a walk of
 * coll/topo.c's iterators into a schedule; coll/select.c chooses.
 *
 * Rabenseifner, halving and ring split the vector into blocks, one per
 * rank (coll_split_off, or the user's recvcounts for reduce_scatter), so
 * that an iterator's spans of blocks are element ranges of the vector; the
 * reverse walk of recursive doubling is then recursive halving (a
 * reduce-scatter) and the reverse walk of a ring a ring reduce-scatter.
 */
#include "coll/coll_impl.h"

#include <stdlib.h>
#include <string.h>

static int is_in_place(const void *p)
{
    return p == MPI_IN_PLACE;
}

static int usable_commutative(const coll_args_t *a)
{
    return a->commutative;
}

/* The splitting algorithms (Rabenseifner, ring) cut the vector into one
 * block per rank. Ranks may describe the vector with different datatypes
 * of one type signature (a contiguous type of 4 ints on one rank, 4 ints
 * on another), so with a predefined operation the blocks are cut in the
 * signature's basic elements, the same everywhere: *unit is that basic
 * type and *n their number. A user operation is called with the user's
 * datatype, so its blocks stay in the user's elements (the standard asks
 * for the same count and datatype on every rank); so do mixed types (a
 * struct), which no predefined operation takes. Returns 0 when *unit is
 * rdt itself. */
static int red_units(const coll_args_t *a, dt_type_t **unit, size_t *n)
{
    dt_builtin_t b = dt_basic_type(a->rdt);
    *unit = a->rdt;
    *n = (size_t)a->recvcount;
    if (b == DT_NBUILTIN || dt_builtin_of(a->rdt) == b || coll_host.op_builtin(a->op) == DT_OP_N)
        return 0;
    *unit = dt_builtin(b);
    *n = (size_t)a->recvcount * (dt_size(a->rdt) / dt_size(*unit));
    return 1;
}

static int usable_commutative_big(const coll_args_t *a)
{
    dt_type_t *unit;
    size_t n;
    red_units(a, &unit, &n);
    return a->commutative && n >= (size_t)coll_size(a->comm);
}

/* Run a splitting algorithm in the units red_units() gives: on the user's
 * buffers when their data is one block of those units, else packed into a
 * temporary vector of them and unpacked into recvbuf at the end. */
static canal_status_t by_units(coll_sched_t *s, const coll_args_t *a,
                               canal_status_t (*run)(coll_sched_t *, const coll_args_t *))
{
    coll_args_t u = *a;
    dt_type_t *unit;
    size_t n, count = (size_t)a->recvcount;
    char *acc;
    canal_status_t st;

    if (!red_units(a, &unit, &n))
        return run(s, a);
    u.rdt = unit;
    u.recvcount = (MPI_Count)n;
    if (dt_is_contig_count(a->rdt, count) && dt_extent(unit) == (ptrdiff_t)dt_size(unit)) {
        ptrdiff_t lb = dt_true_lb(a->rdt);
        u.recvbuf = (char *)a->recvbuf + lb;
        if (!is_in_place(a->sendbuf))
            u.sendbuf = (const char *)a->sendbuf + lb;
        return run(s, &u);
    }
    if ((acc = coll_tmp_typed(s, n, unit)) == NULL)
        return coll_sched_status(s);
    coll_copy(s, is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf, count, a->rdt, acc, n, unit);
    u.sendbuf = MPI_IN_PLACE;
    u.recvbuf = acc;
    if ((st = run(s, &u)) < 0)
        return st;
    coll_fence(s);
    coll_copy(s, acc, n, unit, a->recvbuf, count, a->rdt);
    return coll_sched_status(s);
}

static int red_empty(const coll_args_t *a)
{
    return a->recvcount == 0 || dt_size(a->rdt) == 0;
}

/* ---------------------------------------------------------------- allreduce */
static canal_status_t allreduce_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    size_t n = (size_t)a->recvcount;
    if (red_empty(a))
        return coll_sched_status(s);
    if (!is_in_place(a->sendbuf))
        coll_copy(s, a->sendbuf, n, a->rdt, a->recvbuf, n, a->rdt);
    coll_rec_allreduce_recdbl(s, a->comm, coll_group_all(a->comm, 0), a->recvbuf, n, a->rdt,
                              a->recvtype, a->op, a->commutative);
    return coll_sched_status(s);
}

/* Element range of the span [first, first + count) of blocks. */
typedef struct {
    size_t total;
    int nblocks;
    const size_t *off; /* explicit offsets (nblocks + 1), or NULL: even split */
} blocks_t;

static size_t blk_off(const blocks_t *b, int i)
{
    return b->off != NULL ? b->off[i] : coll_split_off(b->total, b->nblocks, i);
}

/* Reduce-scatter by recursive halving (the reverse walk of recursive
 * doubling) over acc (the whole vector); tmp is as large as acc. With
 * `finish`, the extra ranks of a non-power-of-two size get their block
 * back (reversed PRE); allreduce skips that (it sends everything in POST).
 * With src (a power-of-two size and a commutative operation only), acc
 * does not hold this rank's contribution yet: the first step sends from
 * src and receives the partner's half straight into acc, then reduces src
 * into it, which saves copying the whole vector into acc first (every
 * later step works inside the first step's half). */
static void rec_halving(coll_sched_t *s, mpi_comm_t *c, const blocks_t *b, char *acc, char *tmp,
                        const coll_args_t *a, int finish, const char *src)
{
    ptrdiff_t ext = dt_extent(a->rdt);
    coll_iter_t it;
    coll_step_t st;

    coll_iter_begin(&it, &coll_topo_recdbl, COLL_DIR_REVERSE, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t so = blk_off(b, st.send_first), sn = blk_off(b, st.send_first + st.send_count) - so;
        size_t ro = blk_off(b, st.recv_first), rn = blk_off(b, st.recv_first + st.recv_count) - ro;
        if (st.phase == COLL_PHASE_PRE) {
            if (!finish)
                continue;
            if (st.send_peer >= 0 && sn > 0)
                coll_send(s, c, st.send_peer, acc + (ptrdiff_t)so * ext, sn, a->rdt);
            if (st.recv_peer >= 0 && rn > 0)
                coll_recv(s, c, st.recv_peer, acc + (ptrdiff_t)ro * ext, rn, a->rdt);
            coll_fence(s);
            continue;
        }
        /* The first step with src: send from src, receive into acc, reduce
         * src into it; every other step: send from acc, receive into tmp,
         * reduce tmp into acc. */
        const char *from = src != NULL ? src : acc, *in = src != NULL ? src : tmp;
        char *into = src != NULL ? acc : tmp;
        if (st.send_peer >= 0 && sn > 0)
            coll_send(s, c, st.send_peer, from + (ptrdiff_t)so * ext, sn, a->rdt);
        if (st.recv_peer >= 0 && rn > 0)
            coll_recv(s, c, st.recv_peer, into + (ptrdiff_t)ro * ext, rn, a->rdt);
        coll_fence(s);
        if (st.recv_peer >= 0 && rn > 0)
            coll_reduce(s, in + (ptrdiff_t)ro * ext, acc + (ptrdiff_t)ro * ext, rn, a->rdt,
                        a->recvtype, a->op);
        src = NULL;
    }
}

/* Allgather of the blocks by recursive doubling, in place in acc. */
static void rec_doubling_blocks(coll_sched_t *s, mpi_comm_t *c, const blocks_t *b, char *acc,
                                const coll_args_t *a)
{
    ptrdiff_t ext = dt_extent(a->rdt);
    coll_iter_t it;
    coll_step_t st;

    coll_iter_begin(&it, &coll_topo_recdbl, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t so = blk_off(b, st.send_first), sn = blk_off(b, st.send_first + st.send_count) - so;
        size_t ro = blk_off(b, st.recv_first), rn = blk_off(b, st.recv_first + st.recv_count) - ro;
        if (st.phase == COLL_PHASE_PRE)
            continue; /* the extra ranks' data is already folded in */
        if (st.recv_peer >= 0 && rn > 0)
            coll_recv(s, c, st.recv_peer, acc + (ptrdiff_t)ro * ext, rn, a->rdt);
        if (st.send_peer >= 0 && sn > 0)
            coll_send(s, c, st.send_peer, acc + (ptrdiff_t)so * ext, sn, a->rdt);
        coll_fence(s);
    }
}

/* Rabenseifner: reduce-scatter by recursive halving, then allgather by
 * recursive doubling: the same iterator reversed, then straight. */
static canal_status_t rabenseifner_units(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    blocks_t b = {n, coll_size(c), NULL};
    char *tmp;
    int pof2 = (coll_size(c) & (coll_size(c) - 1)) == 0;
    const char *src = NULL;

    if (red_empty(a) || coll_size(c) == 1)
        return allreduce_recdbl(s, a);
    if (!is_in_place(a->sendbuf) && pof2)
        src = a->sendbuf; /* the first halving step reads it (commutative: usable_commutative_big) */
    else if (!is_in_place(a->sendbuf))
        coll_copy(s, a->sendbuf, n, a->rdt, a->recvbuf, n, a->rdt);
    tmp = coll_tmp_typed(s, n, a->rdt);
    if (tmp == NULL)
        return coll_sched_status(s);
    rec_halving(s, c, &b, a->recvbuf, tmp, a, 0, src);
    rec_doubling_blocks(s, c, &b, a->recvbuf, a);
    return coll_sched_status(s);
}

/* Ring reduce-scatter (the reverse ring walk) over acc; tmp holds one block. */
static void ring_reduce_scatter(coll_sched_t *s, mpi_comm_t *c, const blocks_t *b, char *acc,
                                char *tmp, const coll_args_t *a)
{
    ptrdiff_t ext = dt_extent(a->rdt);
    coll_iter_t it;
    coll_step_t st;

    coll_iter_begin(&it, &coll_topo_ring, COLL_DIR_REVERSE, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t so = blk_off(b, st.send_first), sn = blk_off(b, st.send_first + 1) - so;
        size_t ro = blk_off(b, st.recv_first), rn = blk_off(b, st.recv_first + 1) - ro;
        if (rn > 0)
            coll_recv(s, c, st.recv_peer, tmp, rn, a->rdt);
        if (sn > 0)
            coll_send(s, c, st.send_peer, acc + (ptrdiff_t)so * ext, sn, a->rdt);
        coll_fence(s);
        if (rn > 0)
            coll_reduce(s, tmp, acc + (ptrdiff_t)ro * ext, rn, a->rdt, a->recvtype, a->op);
    }
}

static size_t max_block(const blocks_t *b)
{
    size_t m = 0;
    for (int i = 0; i < b->nblocks; i++) {
        size_t k = blk_off(b, i + 1) - blk_off(b, i);
        if (k > m)
            m = k;
    }
    return m;
}

static canal_status_t ring_units(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    blocks_t b = {n, coll_size(c), NULL};
    ptrdiff_t ext = dt_extent(a->rdt);
    char *tmp, *acc = a->recvbuf;
    coll_iter_t it;
    coll_step_t st;

    if (red_empty(a) || coll_size(c) == 1)
        return allreduce_recdbl(s, a);
    if (!is_in_place(a->sendbuf))
        coll_copy(s, a->sendbuf, n, a->rdt, acc, n, a->rdt);
    tmp = coll_tmp_typed(s, max_block(&b), a->rdt);
    if (tmp == NULL)
        return coll_sched_status(s);
    ring_reduce_scatter(s, c, &b, acc, tmp, a);
    coll_iter_begin(&it, &coll_topo_ring, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t so = blk_off(&b, st.send_first), sn = blk_off(&b, st.send_first + 1) - so;
        size_t ro = blk_off(&b, st.recv_first), rn = blk_off(&b, st.recv_first + 1) - ro;
        if (rn > 0)
            coll_recv(s, c, st.recv_peer, acc + (ptrdiff_t)ro * ext, rn, a->rdt);
        if (sn > 0)
            coll_send(s, c, st.send_peer, acc + (ptrdiff_t)so * ext, sn, a->rdt);
        coll_fence(s);
    }
    return coll_sched_status(s);
}

/* More ranks than CPUs, large vectors: Rabenseifner's two halves with
 * every message of each posted at once. Each rank owns one block of the
 * vector: every rank sends each owner its part of that block and receives
 * everyone's part of its own at once, reduces them (in rank order), then
 * sends its reduced block to every rank at once and
 * receives every other. Two steps that wait for nobody in particular, where
 * recursive halving and doubling need each of 2 log2(p) rounds' partner to
 * be scheduled before either can go on. */
static canal_status_t linear_blocks_units(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c), me = coll_rank(c);
    size_t n = (size_t)a->recvcount;
    blocks_t b = {n, p, NULL};
    size_t off = blk_off(&b, me), cnt = blk_off(&b, me + 1) - off;
    ptrdiff_t ext = dt_extent(a->rdt), bext = (ptrdiff_t)cnt * ext;
    const char *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    char *mine = (char *)a->recvbuf + (ptrdiff_t)off * ext, *t = NULL;
    coll_iter_t it;
    coll_step_t st;

    if (red_empty(a) || p == 1)
        return allreduce_recdbl(s, a);
    if (cnt > 0) {
        /* t holds p parts of this rank's block: part r is rank r's */
        if ((t = coll_tmp_typed(s, cnt * (size_t)p, a->rdt)) == NULL)
            return coll_sched_status(s);
        coll_copy(s, in + (ptrdiff_t)off * ext, cnt, a->rdt, t + me * bext, cnt, a->rdt);
    }
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, p, me, 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t so = blk_off(&b, st.send_peer), sn = blk_off(&b, st.send_peer + 1) - so;
        if (cnt > 0)
            coll_recv(s, c, st.recv_peer, t + st.recv_peer * bext, cnt, a->rdt);
        if (sn > 0)
            coll_send(s, c, st.send_peer, in + (ptrdiff_t)so * ext, sn, a->rdt);
    }
    coll_fence(s); /* (in place, the sends read the vector written below) */
    if (cnt > 0) {
        /* x0 op (x1 op (... op x(p-1))) */
        coll_copy(s, t + (p - 1) * bext, cnt, a->rdt, mine, cnt, a->rdt);
        for (int r = p - 2; r >= 0; r--)
            coll_reduce(s, t + r * bext, mine, cnt, a->rdt, a->recvtype, a->op);
        coll_fence(s);
    }
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, p, me, 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t ro = blk_off(&b, st.recv_peer), rn = blk_off(&b, st.recv_peer + 1) - ro;
        if (rn > 0)
            coll_recv(s, c, st.recv_peer, (char *)a->recvbuf + (ptrdiff_t)ro * ext, rn, a->rdt);
        if (cnt > 0)
            coll_send(s, c, st.send_peer, mine, cnt, a->rdt);
    }
    return coll_sched_status(s);
}

static canal_status_t allreduce_linear_blocks(coll_sched_t *s, const coll_args_t *a)
{
    return by_units(s, a, linear_blocks_units);
}

static canal_status_t allreduce_rabenseifner(coll_sched_t *s, const coll_args_t *a)
{
    return by_units(s, a, rabenseifner_units);
}

static canal_status_t allreduce_ring(coll_sched_t *s, const coll_args_t *a)
{
    return by_units(s, a, ring_units);
}

/* Reduce to rank 0 (in rank order), then broadcast: any operation. */
static canal_status_t allreduce_reduce_bcast(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    if (red_empty(a))
        return coll_sched_status(s);
    coll_rec_reduce_tree(s, c, coll_group_all(c, 0), &coll_topo_binomial, 2, in, a->recvbuf, n,
                         a->rdt, a->recvtype, a->op, a->commutative);
    coll_fence(s);
    coll_rec_bcast_tree(s, c, coll_group_all(c, 0), &coll_topo_binomial, 2, a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

/* More ranks than CPUs, small vectors: every rank sends its contribution to
 * rank 0 and posts the receive of the result in the same step; rank 0
 * receives all contributions at once, reduces them in rank order (any
 * operation) and sends the result to every rank at once. A rank other
 * than 0 then waits for one message, and rank 0 for one step of
 * arrivals, where recursive doubling needs each round's partner to be
 * scheduled before either can go on (log2 p hand-offs per rank). */
static canal_status_t allreduce_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c);
    size_t n = (size_t)a->recvcount;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    void **from, *acc;

    if (red_empty(a))
        return coll_sched_status(s);
    if (coll_rank(c) != 0) {
        coll_send(s, c, 0, in, n, a->rdt);
        coll_recv(s, c, 0, a->recvbuf, n, a->rdt);
        return coll_sched_status(s);
    }
    if (p == 1) {
        if (in != a->recvbuf)
            coll_copy(s, in, n, a->rdt, a->recvbuf, n, a->rdt);
        return coll_sched_status(s);
    }
    from = coll_tmp(s, sizeof(void *) * (size_t)p);
    if (from == NULL)
        return coll_sched_status(s);
    for (int i = 1; i < p; i++) {
        from[i] = coll_tmp_typed(s, n, a->rdt);
        coll_recv(s, c, i, from[i], n, a->rdt);
    }
    coll_fence(s);
    /* x0 op (x1 op (... op x(p-1))): from the right, so that rank order
     * holds for a non-commutative operation (coll_reduce: inout = in op inout) */
    acc = from[p - 1];
    for (int i = p - 2; i >= 1; i--)
        coll_reduce(s, from[i], acc, n, a->rdt, a->recvtype, a->op);
    coll_reduce(s, in, acc, n, a->rdt, a->recvtype, a->op);
    coll_copy(s, acc, n, a->rdt, a->recvbuf, n, a->rdt);
    for (int i = 1; i < p; i++)
        coll_send(s, c, i, acc, n, a->rdt);
    return coll_sched_status(s);
}

/* Node-aware, commutative: reduce to each node's leader, allreduce among
 * leaders, broadcast inside each node. */
static canal_status_t allreduce_node(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    coll_group_t leaders, members;
    size_t n = (size_t)a->recvcount;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;

    if (red_empty(a))
        return coll_sched_status(s);
    if (!coll_node_groups(s, c, -1, &leaders, &members))
        return allreduce_recdbl(s, a);
    coll_rec_reduce_tree(s, c, members, &coll_topo_binomial, 2, in, a->recvbuf, n, a->rdt,
                         a->recvtype, a->op, 1);
    coll_fence(s);
    coll_rec_allreduce_recdbl(s, c, leaders, a->recvbuf, n, a->rdt, a->recvtype, a->op, 1);
    coll_fence(s);
    coll_rec_bcast_tree(s, c, members, &coll_topo_binomial, 2, a->recvbuf, n, a->rdt);
    return coll_sched_status(s);
}

static int usable_node_commutative(const coll_args_t *a)
{
    int nn;
    return a->commutative && coll_comm_nodes(a->comm, &nn) != NULL;
}

/* two ranks, contiguous and small: one exchange and one reduction, run
 * blocking without a schedule (coll/pair.c) */
static int pair_usable(const coll_args_t *a)
{
    return coll_size(a->comm) == 2 && coll_pair_allreduce_usable(a);
}

const coll_algo_t coll_allreduce_recdbl = {"recursive_doubling", COLL_ALLREDUCE, allreduce_recdbl,
                                           NULL, coll_pair_allreduce, pair_usable};
const coll_algo_t coll_allreduce_rabenseifner = {"rabenseifner", COLL_ALLREDUCE,
                                                 allreduce_rabenseifner, usable_commutative_big};
const coll_algo_t coll_allreduce_ring = {"ring", COLL_ALLREDUCE, allreduce_ring,
                                         usable_commutative_big};
const coll_algo_t coll_allreduce_reduce_bcast = {"reduce_bcast", COLL_ALLREDUCE,
                                                 allreduce_reduce_bcast, NULL};
const coll_algo_t coll_allreduce_linear = {"linear", COLL_ALLREDUCE, allreduce_linear, NULL};
/* (commutative operations only, as Rabenseifner: a user operation on a
 * predefined type may combine several elements, which a block boundary
 * would split) */
const coll_algo_t coll_allreduce_linear_blocks = {"linear_blocks", COLL_ALLREDUCE,
                                                  allreduce_linear_blocks,
                                                  usable_commutative_big};
const coll_algo_t coll_allreduce_node = {"node", COLL_ALLREDUCE, allreduce_node,
                                         usable_node_commutative};

/* ---------------------------------------------------------------- reduce_scatter */
/* Block offsets (elements) of reduce_scatter's recvcounts, or of
 * reduce_scatter_block's uniform recvcount. */
static size_t *rs_offsets(coll_sched_t *s, const coll_args_t *a)
{
    int p = coll_size(a->comm);
    size_t *off = coll_tmp(s, sizeof(size_t) * (size_t)(p + 1));
    if (off == NULL)
        return NULL;
    off[0] = 0;
    for (int i = 0; i < p; i++)
        off[i + 1] =
            off[i] + (size_t)(a->kind == COLL_REDUCE_SCATTER ? a->recvcounts[i] : a->recvcount);
    return off;
}

/* The vector to reduce: sendbuf, or recvbuf with MPI_IN_PLACE. */
static const void *rs_input(const coll_args_t *a)
{
    return is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
}

/* Reduce-scatter through a whole-vector accumulator: the input copied into
 * acc, then recursive halving (ring 0: tmp as large as the vector) or the
 * ring (ring 1: tmp one block), then this rank's block copied out. */
static canal_status_t rs_blocks(coll_sched_t *s, const coll_args_t *a, int ring)
{
    mpi_comm_t *c = a->comm;
    size_t *off = rs_offsets(s, a);
    blocks_t b;
    char *acc, *tmp;
    ptrdiff_t ext = dt_extent(a->rdt);
    int me = coll_rank(c);

    if (off == NULL)
        return coll_sched_status(s);
    b.total = off[coll_size(c)];
    b.nblocks = coll_size(c);
    b.off = off;
    if (b.total == 0 || dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    acc = coll_tmp_typed(s, b.total, a->rdt);
    tmp = coll_tmp_typed(s, ring ? max_block(&b) : b.total, a->rdt);
    if (acc == NULL || tmp == NULL)
        return coll_sched_status(s);
    coll_copy(s, rs_input(a), b.total, a->rdt, acc, b.total, a->rdt);
    if (ring)
        ring_reduce_scatter(s, c, &b, acc, tmp, a);
    else
        rec_halving(s, c, &b, acc, tmp, a, 1, NULL);
    coll_copy(s, acc + (ptrdiff_t)off[me] * ext, off[me + 1] - off[me], a->rdt, a->recvbuf,
              off[me + 1] - off[me], a->rdt);
    return coll_sched_status(s);
}

static canal_status_t rs_halving(coll_sched_t *s, const coll_args_t *a)
{
    return rs_blocks(s, a, 0);
}

static canal_status_t rs_ring(coll_sched_t *s, const coll_args_t *a)
{
    return rs_blocks(s, a, 1);
}

/* Any operation: reduce the whole vector in rank order to rank 0, then
 * scatter the blocks down a binomial tree (every rank knows the counts). */
static canal_status_t rs_reduce_scatterv(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t *off = rs_offsets(s, a);
    size_t total;
    ptrdiff_t ext = dt_extent(a->rdt);
    char *full;
    coll_iter_t it;
    coll_step_t st;

    if (off == NULL)
        return coll_sched_status(s);
    total = off[coll_size(c)];
    if (total == 0 || dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    full = coll_tmp_typed(s, total, a->rdt);
    if (full == NULL)
        return coll_sched_status(s);
    coll_rec_reduce_tree(s, c, coll_group_all(c, 0), &coll_topo_binomial, 2, rs_input(a), full,
                         total, a->rdt, a->recvtype, a->op, a->commutative);
    coll_fence(s);
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_STRAIGHT, coll_size(c), coll_rank(c), 0, 2, NULL);
    while (coll_iter_next(&it, &st)) {
        if (st.recv_peer >= 0) {
            size_t lo = off[st.recv_first], hi = off[st.recv_first + st.recv_count];
            if (hi > lo)
                coll_recv(s, c, st.recv_peer, full + (ptrdiff_t)lo * ext, hi - lo, a->rdt);
            coll_fence(s);
        }
        if (st.send_peer >= 0) {
            size_t lo = off[st.send_first], hi = off[st.send_first + st.send_count];
            if (hi > lo)
                coll_send(s, c, st.send_peer, full + (ptrdiff_t)lo * ext, hi - lo, a->rdt);
        }
    }
    coll_copy(s, full + (ptrdiff_t)off[coll_rank(c)] * ext, off[coll_rank(c) + 1] - off[coll_rank(c)], a->rdt,
              a->recvbuf, off[coll_rank(c) + 1] - off[coll_rank(c)], a->rdt);
    return coll_sched_status(s);
}

/* Every block straight to its owner, all posted at once (the pairwise
 * order, no hot spot); the owner reduces its p contributions in rank order
 * (any operation: x0 op (x1 op (... op x(p-1)))). No message waits for
 * another, so where ranks outnumber CPUs each process moves what it can
 * whenever it runs, instead of a ring's or halving's steps each waiting for
 * a partner to be scheduled. */
static canal_status_t rs_linear(coll_sched_t *s, const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int p = coll_size(c), me = coll_rank(c);
    size_t *off = rs_offsets(s, a), n;
    ptrdiff_t ext = dt_extent(a->rdt), bext;
    const char *in = rs_input(a);
    char *t = NULL;
    coll_iter_t it;
    coll_step_t st;

    if (off == NULL)
        return coll_sched_status(s);
    if (off[p] == 0 || dt_size(a->rdt) == 0)
        return coll_sched_status(s);
    n = off[me + 1] - off[me];
    bext = (ptrdiff_t)n * ext;
    if (n > 0) {
        /* t holds p blocks of n elements: block r is rank r's contribution */
        t = coll_tmp_typed(s, n * (size_t)p, a->rdt);
        if (t == NULL)
            return coll_sched_status(s);
        coll_copy(s, in + (ptrdiff_t)off[me] * ext, n, a->rdt, t + me * bext, n, a->rdt);
    }
    coll_iter_begin(&it, &coll_topo_pairwise, COLL_DIR_BIDIR, p, me, 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        size_t sn = off[st.send_peer + 1] - off[st.send_peer];
        if (n > 0)
            coll_recv(s, c, st.recv_peer, t + st.recv_peer * bext, n, a->rdt);
        if (sn > 0)
            coll_send(s, c, st.send_peer, in + (ptrdiff_t)off[st.send_peer] * ext, sn, a->rdt);
    }
    coll_fence(s); /* with MPI_IN_PLACE the sends read recvbuf, written below */
    if (n == 0)
        return coll_sched_status(s);
    coll_copy(s, t + (p - 1) * bext, n, a->rdt, a->recvbuf, n, a->rdt);
    for (int r = p - 2; r >= 0; r--)
        coll_reduce(s, t + r * bext, a->recvbuf, n, a->rdt, a->recvtype, a->op);
    return coll_sched_status(s);
}

const coll_algo_t coll_reduce_scatter_halving = {"halving", COLL_REDUCE_SCATTER, rs_halving,
                                                 usable_commutative};
const coll_algo_t coll_reduce_scatter_ring = {"ring", COLL_REDUCE_SCATTER, rs_ring,
                                              usable_commutative};
const coll_algo_t coll_reduce_scatter_reduce_scatterv = {"reduce_scatterv", COLL_REDUCE_SCATTER,
                                                         rs_reduce_scatterv, NULL};
const coll_algo_t coll_reduce_scatter_block_halving = {"halving", COLL_REDUCE_SCATTER_BLOCK,
                                                       rs_halving, usable_commutative};
const coll_algo_t coll_reduce_scatter_block_ring = {"ring", COLL_REDUCE_SCATTER_BLOCK, rs_ring,
                                                    usable_commutative};
const coll_algo_t coll_reduce_scatter_block_reduce_scatterv = {
    "reduce_scatterv", COLL_REDUCE_SCATTER_BLOCK, rs_reduce_scatterv, NULL};
const coll_algo_t coll_reduce_scatter_linear = {"linear", COLL_REDUCE_SCATTER, rs_linear, NULL};
const coll_algo_t coll_reduce_scatter_block_linear = {"linear", COLL_REDUCE_SCATTER_BLOCK,
                                                      rs_linear, NULL};

/* ---------------------------------------------------------------- scan, exscan */
/* On the hypercube: `partial` is the reduction of the aligned range this
 * rank has seen, exchanged every round; what comes from below also goes
 * into the result. */
static canal_status_t scan_recdbl_common(coll_sched_t *s, const coll_args_t *a, int exclusive)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    dt_type_t *dt = a->rdt;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    char *partial, *tmp;
    int have = !exclusive;
    coll_iter_t it;
    coll_step_t st;

    if (red_empty(a))
        return coll_sched_status(s);
    partial = coll_tmp_typed(s, n, dt);
    tmp = coll_tmp_typed(s, n, dt);
    if (partial == NULL || tmp == NULL)
        return coll_sched_status(s);
    coll_copy(s, in, n, dt, partial, n, dt);
    if (!exclusive && !is_in_place(a->sendbuf))
        coll_copy(s, a->sendbuf, n, dt, a->recvbuf, n, dt);
    coll_iter_begin(&it, &coll_topo_hypercube, COLL_DIR_BIDIR, coll_size(c), coll_rank(c), 0, 0, NULL);
    while (coll_iter_next(&it, &st)) {
        coll_recv(s, c, st.recv_peer, tmp, n, dt);
        coll_send(s, c, st.send_peer, partial, n, dt);
        coll_fence(s);
        if (st.recv_peer < coll_rank(c)) {
            if (have)
                coll_reduce(s, tmp, a->recvbuf, n, dt, a->recvtype, a->op);
            else
                coll_copy(s, tmp, n, dt, a->recvbuf, n, dt);
            have = 1;
            coll_reduce(s, tmp, partial, n, dt, a->recvtype, a->op);
        } else if (a->commutative) {
            coll_reduce(s, tmp, partial, n, dt, a->recvtype, a->op);
        } else {
            coll_reduce(s, partial, tmp, n, dt, a->recvtype, a->op);
            coll_copy(s, tmp, n, dt, partial, n, dt);
        }
    }
    return coll_sched_status(s);
}

static canal_status_t scan_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    return scan_recdbl_common(s, a, 0);
}

static canal_status_t exscan_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    return scan_recdbl_common(s, a, 1);
}

/* A chain: rank r waits for the prefix of r - 1, adds its own, passes on. */
static canal_status_t scan_linear_common(coll_sched_t *s, const coll_args_t *a, int exclusive)
{
    mpi_comm_t *c = a->comm;
    size_t n = (size_t)a->recvcount;
    dt_type_t *dt = a->rdt;
    const void *in = is_in_place(a->sendbuf) ? a->recvbuf : a->sendbuf;
    char *fwd;

    if (red_empty(a))
        return coll_sched_status(s);
    fwd = coll_tmp_typed(s, n, dt); /* what goes to rank + 1: prefix through me */
    if (fwd == NULL)
        return coll_sched_status(s);
    coll_copy(s, in, n, dt, fwd, n, dt);
    if (coll_rank(c) > 0) {
        char *prev = coll_tmp_typed(s, n, dt);
        coll_recv(s, c, coll_rank(c) - 1, prev, n, dt);
        coll_fence(s);
        coll_reduce(s, prev, fwd, n, dt, a->recvtype, a->op);
        if (exclusive)
            coll_copy(s, prev, n, dt, a->recvbuf, n, dt);
    }
    if (coll_rank(c) + 1 < coll_size(c))
        coll_send(s, c, coll_rank(c) + 1, fwd, n, dt);
    if (!exclusive)
        coll_copy(s, fwd, n, dt, a->recvbuf, n, dt);
    return coll_sched_status(s);
}

static canal_status_t scan_linear(coll_sched_t *s, const coll_args_t *a)
{
    return scan_linear_common(s, a, 0);
}

static canal_status_t exscan_linear(coll_sched_t *s, const coll_args_t *a)
{
    return scan_linear_common(s, a, 1);
}

const coll_algo_t coll_scan_recdbl = {"recursive_doubling", COLL_SCAN, scan_recdbl, NULL};
const coll_algo_t coll_scan_linear = {"linear", COLL_SCAN, scan_linear, NULL};
const coll_algo_t coll_exscan_recdbl = {"recursive_doubling", COLL_EXSCAN, exscan_recdbl, NULL};
const coll_algo_t coll_exscan_linear = {"linear", COLL_EXSCAN, exscan_linear, NULL};
