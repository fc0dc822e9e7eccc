/*
 * The topology iterators of coll/topo.h and the generic walker over them.
 * Each topology is a setup() that counts rounds and an at() that says, for
 * one round of the straight walk, whom this rank sends to and receives from
 * and which blocks travel; everything is computed from (size, relative rank,
 * round), so a walk needs no memory and can run backwards. Called by the
 * algorithms of coll/ while they record schedules, and by the unit tests.
 */
#include "coll/topo.h"

#include <stddef.h>

int coll_ceil_log2(int n)
{
    int r = 0;
    while (r < 31 && (1 << r) < n)
        r++;
    return r;
}

int coll_floor_pof2(int n)
{
    int p = 1;
    while (p <= n / 2)
        p <<= 1;
    return p;
}

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

static void step_clear(coll_step_t *s)
{
    s->phase = COLL_PHASE_MAIN;
    s->dist = 0;
    s->send_peer = s->recv_peer = -1;
    s->send_first = s->send_count = 0;
    s->recv_first = s->recv_count = 0;
}

/* ---------------------------------------------------------------- linear */
/* Round r: the root sends to relative rank r + 1. */
static void linear_setup(coll_iter_t *it)
{
    it->nrounds = it->size - 1;
}

static int linear_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int peer = round + 1;
    step_clear(out);
    out->dist = peer;
    if (it->rel == 0) {
        out->send_peer = peer;
        out->send_first = peer;
        out->send_count = 1;
        return 1;
    }
    if (it->rel == peer) {
        out->recv_peer = 0;
        out->recv_first = peer;
        out->recv_count = 1;
        return 1;
    }
    return 0;
}

const coll_topo_t coll_topo_linear = {"linear", 0, 1, linear_setup, linear_at};

/* ---------------------------------------------------------------- k-nomial trees */
/*
 * In base k, the parent of relative rank r is r with its lowest nonzero
 * digit cleared; the children of r are r + d*k^j for every position j below
 * r's lowest nonzero digit (every position for the root) and d in 1..k-1.
 * The subtree of child c = r + d*k^j is [c, c + k^j). The straight walk
 * sends to the largest subtrees first: rounds go over positions j from the
 * top down and digits d from k-1 down to 1, so a child receives before any
 * of its own sends. Reversed, children are collected from the smallest
 * subtree up, which combines a reduction in rank order.
 */
static void knomial_setup(coll_iter_t *it)
{
    long long span = 1;
    int levels = 0;
    if (it->radix < 2)
        it->radix = 2;
    while (span < it->size) {
        span *= it->radix;
        levels++;
    }
    it->levels = levels;
    it->nrounds = levels * (it->radix - 1);
}

static int knomial_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int k = it->radix, per = k - 1;
    int j = it->levels - 1 - round / per;
    int d = k - 1 - round % per;
    long long kj = 1, child, end;
    long long rel = it->rel;

    for (int i = 0; i < j; i++)
        kj *= k;
    step_clear(out);
    out->dist = (int)kj;
    if (rel != 0 && rel % kj == 0 && (rel / kj) % k == d) {
        /* my lowest nonzero digit is d at position j: my parent sends now */
        end = rel + kj < it->size ? rel + kj : it->size;
        out->recv_peer = (int)(rel - d * kj);
        out->recv_first = (int)rel;
        out->recv_count = (int)(end - rel);
        return 1;
    }
    if (rel % (kj * k) == 0) {
        child = rel + d * kj;
        if (child >= it->size)
            return 0;
        end = child + kj < it->size ? child + kj : it->size;
        out->send_peer = (int)child;
        out->send_first = (int)child;
        out->send_count = (int)(end - child);
        return 1;
    }
    return 0;
}

static void binomial_setup(coll_iter_t *it)
{
    it->radix = 2;
    knomial_setup(it);
}

const coll_topo_t coll_topo_binomial = {"binomial", 0, 1, binomial_setup, knomial_at};
const coll_topo_t coll_topo_knomial = {"knomial", 0, 1, knomial_setup, knomial_at};

/* ---------------------------------------------------------------- ring */
/* Round s: send block rel - s to the right, receive block rel - s - 1 from
 * the left; after size - 1 rounds every block went all the way round. */
static void ring_setup(coll_iter_t *it)
{
    it->nrounds = it->size - 1;
}

static int ring_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int p = it->size;
    step_clear(out);
    out->dist = 1;
    out->send_peer = mod(it->rel + 1, p);
    out->recv_peer = mod(it->rel - 1, p);
    out->send_first = mod(it->rel - round, p);
    out->recv_first = mod(it->rel - round - 1, p);
    out->send_count = out->recv_count = 1;
    return 1;
}

const coll_topo_t coll_topo_ring = {"ring", 1, 0, ring_setup, ring_at};

/* ---------------------------------------------------------------- recursive doubling */
/*
 * pof2 is the largest power of two <= size and rem = size - pof2. Among the
 * first 2*rem ranks, each even rank is an extra: in PRE it sends its block
 * to the odd rank above it and sits out the core; the odd one is core rank
 * rel/2. Ranks from 2*rem on are core rank rel - rem. Core rank v stands for
 * relative ranks [lo(v), lo(v+1)) (two for v < rem, one after), so a core
 * round that exchanges the blocks of core ranks [a, a+mask) exchanges the
 * contiguous relative ranks [lo(a), lo(a+mask)). In POST the odd ranks hand
 * everything back to their extras.
 */
static int recdbl_real(const coll_iter_t *it, int v)
{
    return v < it->rem ? 2 * v + 1 : v + it->rem;
}

static void recdbl_setup(coll_iter_t *it)
{
    it->pof2 = coll_floor_pof2(it->size);
    it->rem = it->size - it->pof2;
    if (it->rel < 2 * it->rem)
        it->vrank = it->rel % 2 ? it->rel / 2 : -1;
    else
        it->vrank = it->rel - it->rem;
    it->nrounds = coll_ceil_log2(it->pof2) + (it->rem ? 2 : 0);
}

static int recdbl_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int rel = it->rel, mask, vpeer, a;

    step_clear(out);
    if (it->rem) {
        if (round == 0) {
            out->phase = COLL_PHASE_PRE;
            if (rel >= 2 * it->rem)
                return 0;
            if (rel % 2 == 0) {
                out->send_peer = rel + 1;
                out->send_first = rel;
                out->send_count = 1;
            } else {
                out->recv_peer = rel - 1;
                out->recv_first = rel - 1;
                out->recv_count = 1;
            }
            return 1;
        }
        if (round == it->nrounds - 1) {
            out->phase = COLL_PHASE_POST;
            if (rel >= 2 * it->rem)
                return 0;
            if (rel % 2 == 1) {
                out->send_peer = rel - 1;
                out->send_first = 0;
                out->send_count = it->size;
            } else {
                out->recv_peer = rel + 1;
                out->recv_first = 0;
                out->recv_count = it->size;
            }
            return 1;
        }
        round--;
    }
    if (it->vrank < 0)
        return 0;
    mask = 1 << round;
    out->dist = mask;
    vpeer = it->vrank ^ mask;
    out->send_peer = out->recv_peer = recdbl_real(it, vpeer);
    a = it->vrank & ~(mask - 1);
    out->send_first = coll_recdbl_lo(it, a);
    out->send_count = coll_recdbl_lo(it, a + mask) - out->send_first;
    a = vpeer & ~(mask - 1);
    out->recv_first = coll_recdbl_lo(it, a);
    out->recv_count = coll_recdbl_lo(it, a + mask) - out->recv_first;
    return 1;
}

const coll_topo_t coll_topo_recdbl = {"recursive_doubling", 1, 0, recdbl_setup, recdbl_at};

/* ---------------------------------------------------------------- hypercube */
/* Recursive doubling without the fix-up: in round k, rel exchanges with
 * rel ^ 2^k when that rank exists. Each side sends the aggregate of what it
 * has seen, drawn from the aligned range [rel & ~(2^k - 1), +2^k) (cut at
 * size; when partners are absent it can hold less, but never anything a
 * higher rank's prefix lacks), which is what an inclusive or exclusive scan
 * needs: a rank adds to its prefix only what comes from below. */
static void hypercube_setup(coll_iter_t *it)
{
    it->nrounds = coll_ceil_log2(it->size);
}

static int hypercube_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int mask = 1 << round, peer = it->rel ^ mask, a, end;

    step_clear(out);
    if (peer >= it->size)
        return 0;
    out->dist = mask;
    out->send_peer = out->recv_peer = peer;
    a = it->rel & ~(mask - 1);
    end = a + mask < it->size ? a + mask : it->size;
    out->send_first = a;
    out->send_count = end - a;
    a = peer & ~(mask - 1);
    end = a + mask < it->size ? a + mask : it->size;
    out->recv_first = a;
    out->recv_count = end - a;
    return 1;
}

const coll_topo_t coll_topo_hypercube = {"hypercube", 1, 0, hypercube_setup, hypercube_at};

/* ---------------------------------------------------------------- Bruck */
/* Round k (dist = 2^k): every rank holds the blocks [rel, rel + dist); it
 * sends min(dist, size - dist) of them to rel - dist and receives as many
 * from rel + dist, doubling what it holds in ceil(log2 size) rounds. */
static void bruck_setup(coll_iter_t *it)
{
    it->nrounds = coll_ceil_log2(it->size);
}

static int bruck_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int p = it->size, dist = 1 << round, c = dist < p - dist ? dist : p - dist;
    step_clear(out);
    out->dist = dist;
    out->send_peer = mod(it->rel - dist, p);
    out->recv_peer = mod(it->rel + dist, p);
    out->send_first = it->rel;
    out->recv_first = mod(it->rel + dist, p);
    out->send_count = out->recv_count = c;
    return 1;
}

const coll_topo_t coll_topo_bruck = {"bruck", 1, 0, bruck_setup, bruck_at};

/* ---------------------------------------------------------------- dissemination */
/* Round k: send to rel + 2^k, receive from rel - 2^k. No blocks: after
 * ceil(log2 size) rounds every rank has heard, indirectly, from all
 * (barrier); Bruck's alltoall moves its own block sets along these edges. */
static void dissem_setup(coll_iter_t *it)
{
    it->nrounds = coll_ceil_log2(it->size);
}

static int dissem_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int p = it->size, dist = 1 << round;
    step_clear(out);
    out->dist = dist;
    out->send_peer = mod(it->rel + dist, p);
    out->recv_peer = mod(it->rel - dist, p);
    return 1;
}

const coll_topo_t coll_topo_dissemination = {"dissemination", 1, 0, dissem_setup, dissem_at};

/* ---------------------------------------------------------------- pairwise */
/* Round s - 1 for s in 1..size-1: send to rel + s the block meant for it,
 * receive from rel - s its block for me. Shifted sequences: no rank is the
 * target of two senders in the same round. Spans name the destination's
 * block on the send and the source's block on the receive. */
static void pairwise_setup(coll_iter_t *it)
{
    it->nrounds = it->size - 1;
}

static int pairwise_at(const coll_iter_t *it, int round, coll_step_t *out)
{
    int p = it->size, s = round + 1;
    step_clear(out);
    out->dist = s;
    out->send_peer = mod(it->rel + s, p);
    out->recv_peer = mod(it->rel - s, p);
    out->send_first = out->send_peer;
    out->recv_first = out->recv_peer;
    out->send_count = out->recv_count = 1;
    return 1;
}

const coll_topo_t coll_topo_pairwise = {"pairwise", 1, 0, pairwise_setup, pairwise_at};

/* ---------------------------------------------------------------- the walker */
void coll_iter_begin(coll_iter_t *it, const coll_topo_t *topo, coll_dir_t dir, int size, int idx,
                     int root, int radix, const int *map)
{
    it->topo = topo;
    it->dir = dir;
    it->size = size > 0 ? size : 1;
    it->idx = idx;
    it->root = root >= 0 && root < it->size ? root : 0;
    it->rel = idx >= 0 ? mod(idx - it->root, it->size) : 0;
    it->radix = radix;
    it->map = map;
    it->levels = it->pof2 = it->rem = it->vrank = 0;
    it->pos = 0;
    it->nrounds = 0;
    if (idx < 0 || idx >= it->size || it->size == 1)
        return;
    topo->setup(it);
}

/* Relative rank -> communicator rank. */
static int peer_rank(const coll_iter_t *it, int rel)
{
    if (rel < 0)
        return -1;
    return coll_iter_rank_of(it, (rel + it->root) % it->size);
}

int coll_iter_next(coll_iter_t *it, coll_step_t *out)
{
    while (it->pos < it->nrounds) {
        int pos = it->pos++;
        int round = it->dir == COLL_DIR_REVERSE ? it->nrounds - 1 - pos : pos;
        if (!it->topo->at(it, round, out))
            continue;
        out->round = pos;
        out->send_peer = peer_rank(it, out->send_peer);
        out->recv_peer = peer_rank(it, out->recv_peer);
        if (it->dir == COLL_DIR_REVERSE) {
            int t;
            t = out->send_peer, out->send_peer = out->recv_peer, out->recv_peer = t;
            t = out->send_first, out->send_first = out->recv_first, out->recv_first = t;
            t = out->send_count, out->send_count = out->recv_count, out->recv_count = t;
        }
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- composed walks */
void coll_chain_init(coll_chain_t *ch)
{
    ch->nparts = 0;
    ch->cur = 0;
    ch->round_base = 0;
}

void coll_chain_add(coll_chain_t *ch, const coll_topo_t *topo, coll_dir_t dir, int size, int idx,
                    int root, int radix, const int *map)
{
    if (ch->nparts == COLL_CHAIN_MAX)
        return;
    coll_iter_begin(&ch->part[ch->nparts++], topo, dir, size, idx, root, radix, map);
}

int coll_chain_next(coll_chain_t *ch, coll_step_t *out, int *part_out)
{
    while (ch->cur < ch->nparts) {
        coll_iter_t *it = &ch->part[ch->cur];
        if (coll_iter_next(it, out)) {
            out->round += ch->round_base;
            if (part_out != NULL)
                *part_out = ch->cur;
            return 1;
        }
        ch->round_base += it->nrounds;
        ch->cur++;
    }
    return 0;
}
