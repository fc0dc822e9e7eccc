/*
 * Check unit tests of coll/topo.c: every topology iterator, for every size
 * from 1 to 65 and every root, in both directions, produces a valid walk.
 * The walks of all ranks are collected as edges and then checked:
 * - edges pair up: a send from a to b in round t is exactly one receive at b
 *   from a in round t, with the same blocks;
 * - data flows: simulating the blocks each rank holds, a rank only sends
 *   blocks it has, and at the end the collective's goal is met (bcast and
 *   scatter: every rank reached exactly once; gather: the root holds
 *   everything; allgather: everyone holds everything, each block received
 *   once; reduce-scatter by halving or ring: each rank's own block has every
 *   contribution exactly once; barrier: everyone heard from everyone; scan:
 *   rank r has the contributions of 0..r);
 * - reverse mirrors straight: the reversed walk is the straight one backwards
 *   with every edge turned around.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/topo.h"
#include "test/unit/unit_limits.h"

enum { MAXP = 65, MAXE = 70000 };

/* Check's ck_assert records every passing location through a syscall; the
 * walks below make millions of checks, so only failures go through Check. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)
#define REQUIRE_TRUE(cond) REQUIRE(cond, "%s:%d: %s", __FILE__, __LINE__, #cond)

typedef struct {
    int round, from, to, first, count, phase;
} edge_t;

/* A set of up to 128 ranks. */
typedef struct {
    uint64_t w[2];
} set_t;

static void set_add(set_t *s, int i)
{
    s->w[i / 64] |= 1ull << (i % 64);
}
static int set_has(const set_t *s, int i)
{
    return (int)((s->w[i / 64] >> (i % 64)) & 1);
}
static int set_disjoint(const set_t *a, const set_t *b)
{
    return (a->w[0] & b->w[0]) == 0 && (a->w[1] & b->w[1]) == 0;
}
static void set_or(set_t *a, const set_t *b)
{
    a->w[0] |= b->w[0];
    a->w[1] |= b->w[1];
}
static int set_is_range(const set_t *s, int lo, int hi) /* exactly [lo, hi) */
{
    set_t r = {{0, 0}};
    for (int i = lo; i < hi; i++)
        set_add(&r, i);
    return r.w[0] == s->w[0] && r.w[1] == s->w[1];
}

static edge_t sends[MAXE], recvs[MAXE];
static int nsends, nrecvs, nrounds_seen;

/* Block b of a span starting at `first` (relative numbering, wraps) as an
 * absolute rank. */
static int span_block(int first, int i, int p, int root)
{
    return ((first + i) % p + root) % p;
}

static void collect(const coll_topo_t *topo, coll_dir_t dir, int p, int root, int radix)
{
    nsends = nrecvs = 0;
    nrounds_seen = 0;
    for (int r = 0; r < p; r++) {
        coll_iter_t it;
        coll_step_t st;
        int last = -1;
        coll_iter_begin(&it, topo, dir, p, r, root, radix, NULL);
        if (it.nrounds > nrounds_seen)
            nrounds_seen = it.nrounds;
        while (coll_iter_next(&it, &st)) {
            REQUIRE(st.round > last, "%s p=%d: rounds not increasing", topo->name, p);
            last = st.round;
            REQUIRE(st.send_peer >= 0 || st.recv_peer >= 0, "%s: empty step", topo->name);
            REQUIRE_TRUE((st.send_peer) < (p));
            REQUIRE_TRUE((st.recv_peer) < (p));
            REQUIRE_TRUE((st.send_peer) != (r));
            REQUIRE_TRUE((st.recv_peer) != (r));
            if (st.send_peer >= 0) {
                REQUIRE_TRUE((nsends) < (MAXE));
                sends[nsends++] =
                    (edge_t){st.round, r, st.send_peer, st.send_first, st.send_count, st.phase};
            }
            if (st.recv_peer >= 0) {
                REQUIRE_TRUE((nrecvs) < (MAXE));
                recvs[nrecvs++] =
                    (edge_t){st.round, st.recv_peer, r, st.recv_first, st.recv_count, st.phase};
            }
        }
    }
}

/* Every send has exactly one matching receive and vice versa. */
static void check_pairing(const char *name, int p, int check_spans)
{
    static char used[MAXE];
    REQUIRE(nsends == nrecvs, "%s p=%d: %d sends, %d receives", name, p, nsends, nrecvs);
    memset(used, 0, sizeof used);
    for (int i = 0; i < nsends; i++) {
        int found = -1;
        for (int j = 0; j < nrecvs; j++) {
            if (used[j] || recvs[j].round != sends[i].round || recvs[j].from != sends[i].from ||
                recvs[j].to != sends[i].to)
                continue;
            if (check_spans &&
                (recvs[j].first != sends[i].first || recvs[j].count != sends[i].count))
                continue;
            found = j;
            break;
        }
        REQUIRE(found >= 0, "%s p=%d: send %d->%d round %d has no receive", name, p, sends[i].from,
                sends[i].to, sends[i].round);
        used[found] = 1;
    }
}

/* Straight trees (bcast/scatter): the root holds everything; a rank sends
 * only blocks it holds; every other rank receives exactly once, a span that
 * starts with its own block. */
static void check_tree_straight(const char *name, int p, int root)
{
    static set_t hold[MAXP];
    int got[MAXP] = {0};
    memset(hold, 0, sizeof hold);
    for (int b = 0; b < p; b++)
        set_add(&hold[root], b);
    for (int round = 0; round < nrounds_seen; round++) {
        for (int i = 0; i < nsends; i++) {
            if (sends[i].round != round)
                continue;
            for (int k = 0; k < sends[i].count; k++)
                REQUIRE(set_has(&hold[sends[i].from], span_block(sends[i].first, k, p, root)),
                        "%s p=%d root=%d: rank %d sends a block it lacks", name, p, root,
                        sends[i].from);
        }
        for (int i = 0; i < nrecvs; i++) {
            if (recvs[i].round != round)
                continue;
            got[recvs[i].to]++;
            REQUIRE_TRUE((span_block(recvs[i].first, 0, p, root)) == (recvs[i].to));
            for (int k = 0; k < recvs[i].count; k++)
                set_add(&hold[recvs[i].to], span_block(recvs[i].first, k, p, root));
        }
    }
    for (int r = 0; r < p; r++) {
        REQUIRE(got[r] == (r == root ? 0 : 1), "%s p=%d root=%d: rank %d received %d times", name,
                p, root, r, got[r]);
        REQUIRE_TRUE(set_has(&hold[r], r));
    }
}

/* Reverse trees (gather/reduce): every rank starts with its block, sends
 * once (the root never), and the root ends with every block exactly once. */
static void check_tree_reverse(const char *name, int p, int root)
{
    static set_t hold[MAXP];
    int sent[MAXP] = {0};
    memset(hold, 0, sizeof hold);
    for (int r = 0; r < p; r++)
        set_add(&hold[r], r);
    for (int round = 0; round < nrounds_seen; round++) {
        for (int i = 0; i < nsends; i++) {
            set_t span = {{0, 0}};
            if (sends[i].round != round)
                continue;
            sent[sends[i].from]++;
            for (int k = 0; k < sends[i].count; k++)
                set_add(&span, span_block(sends[i].first, k, p, root));
            /* a rank sends exactly what it has gathered */
            REQUIRE(memcmp(&span, &hold[sends[i].from], sizeof span) == 0,
                    "%s p=%d root=%d: rank %d sends other blocks than it gathered", name, p, root,
                    sends[i].from);
        }
        for (int i = 0; i < nrecvs; i++) {
            set_t span = {{0, 0}};
            if (recvs[i].round != round)
                continue;
            for (int k = 0; k < recvs[i].count; k++)
                set_add(&span, span_block(recvs[i].first, k, p, root));
            REQUIRE_TRUE(set_disjoint(&span, &hold[recvs[i].to]));
            set_or(&hold[recvs[i].to], &span);
        }
    }
    for (int r = 0; r < p; r++)
        REQUIRE_TRUE((sent[r]) == (r == root ? 0 : 1));
    REQUIRE_TRUE(set_is_range(&hold[root], 0, p));
}

/* Allgather semantics (ring, recursive doubling, Bruck): each rank starts
 * with its block and ends with all; sends only held blocks; a block arrives
 * at most once except in recursive doubling's POST (the whole result). */
static void check_allgather(const char *name, int p)
{
    static set_t hold[MAXP];
    memset(hold, 0, sizeof hold);
    for (int r = 0; r < p; r++)
        set_add(&hold[r], r);
    for (int round = 0; round < nrounds_seen; round++) {
        for (int i = 0; i < nsends; i++) {
            if (sends[i].round != round)
                continue;
            for (int k = 0; k < sends[i].count; k++)
                REQUIRE(set_has(&hold[sends[i].from], (sends[i].first + k) % p),
                        "%s p=%d: rank %d sends block %d it lacks (round %d)", name, p,
                        sends[i].from, (sends[i].first + k) % p, round);
        }
        for (int i = 0; i < nrecvs; i++) {
            if (recvs[i].round != round)
                continue;
            for (int k = 0; k < recvs[i].count; k++) {
                int b = (recvs[i].first + k) % p;
                if (recvs[i].phase != COLL_PHASE_POST)
                    REQUIRE(!set_has(&hold[recvs[i].to], b),
                            "%s p=%d: rank %d receives block %d twice", name, p, recvs[i].to, b);
                set_add(&hold[recvs[i].to], b);
            }
        }
    }
    for (int r = 0; r < p; r++)
        REQUIRE(set_is_range(&hold[r], 0, p), "%s p=%d: rank %d misses blocks", name, p, r);
}

/* Reduce-scatter semantics for reversed bidirectional walks: part[r][b] is
 * the set of contributions rank r has combined into its copy of block b.
 * A receive combines the sender's part (which must be disjoint: nothing is
 * counted twice); at the end rank r's block r has every contribution. */
static void check_reduce_scatter(const char *name, int p)
{
    static set_t part[MAXP][MAXP];
    memset(part, 0, sizeof part);
    for (int r = 0; r < p; r++)
        for (int b = 0; b < p; b++)
            set_add(&part[r][b], r);
    for (int round = 0; round < nrounds_seen; round++) {
        /* receives of a round see the senders' state before the round */
        static set_t snap[MAXP][MAXP];
        memcpy(snap, part, sizeof snap);
        for (int i = 0; i < nrecvs; i++) {
            if (recvs[i].round != round)
                continue;
            for (int k = 0; k < recvs[i].count; k++) {
                int b = (recvs[i].first + k) % p;
                const set_t *in = &snap[recvs[i].from][b];
                set_t *mine = &part[recvs[i].to][b];
                if (recvs[i].phase == COLL_PHASE_PRE) {
                    /* reversed PRE: the partner hands the finished block over */
                    *mine = *in;
                    continue;
                }
                REQUIRE(set_disjoint(in, mine), "%s p=%d: rank %d counts block %d twice", name, p,
                        recvs[i].to, b);
                set_or(mine, in);
            }
        }
    }
    for (int r = 0; r < p; r++)
        REQUIRE(set_is_range(&part[r][r], 0, p), "%s p=%d: rank %d's block is incomplete", name, p,
                r);
}

/* Barrier: knowledge spreads along the edges. */
static void check_barrier(const char *name, int p)
{
    static set_t know[MAXP], snap[MAXP];
    memset(know, 0, sizeof know);
    for (int r = 0; r < p; r++)
        set_add(&know[r], r);
    for (int round = 0; round < nrounds_seen; round++) {
        memcpy(snap, know, sizeof snap);
        for (int i = 0; i < nrecvs; i++)
            if (recvs[i].round == round)
                set_or(&know[recvs[i].to], &snap[recvs[i].from]);
    }
    for (int r = 0; r < p; r++)
        REQUIRE(set_is_range(&know[r], 0, p), "%s p=%d: rank %d did not hear from all", name, p, r);
}

/* Scan on the hypercube: agg is what a rank sends, prefix what it keeps;
 * rank r must end with [0, r], each contribution once. */
static void check_scan(const char *name, int p)
{
    static set_t agg[MAXP], prefix[MAXP], snap[MAXP];
    memset(agg, 0, sizeof agg);
    memset(prefix, 0, sizeof prefix);
    for (int r = 0; r < p; r++) {
        set_add(&agg[r], r);
        set_add(&prefix[r], r);
    }
    for (int round = 0; round < nrounds_seen; round++) {
        memcpy(snap, agg, sizeof snap);
        /* what a rank sends lies in its span (the span is the aligned range
         * the aggregate is drawn from; with absent partners it may hold less) */
        for (int i = 0; i < nsends; i++) {
            if (sends[i].round != round)
                continue;
            for (int b = 0; b < p; b++)
                if (set_has(&snap[sends[i].from], b))
                    REQUIRE_TRUE(b >= sends[i].first && b < sends[i].first + sends[i].count);
        }
        for (int i = 0; i < nrecvs; i++) {
            if (recvs[i].round != round)
                continue;
            REQUIRE_TRUE(set_disjoint(&agg[recvs[i].to], &snap[recvs[i].from]));
            set_or(&agg[recvs[i].to], &snap[recvs[i].from]);
            if (recvs[i].from < recvs[i].to)
                set_or(&prefix[recvs[i].to], &snap[recvs[i].from]);
        }
    }
    for (int r = 0; r < p; r++)
        REQUIRE(set_is_range(&prefix[r], 0, r + 1), "%s p=%d: bad prefix at %d", name, p, r);
}

/* Alltoall: every ordered pair exchanges exactly once. */
static void check_alltoall(const char *name, int p)
{
    static int seen[MAXP][MAXP];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < nrecvs; i++) {
        REQUIRE_TRUE((recvs[i].first) == (recvs[i].from));
        seen[recvs[i].from][recvs[i].to]++;
    }
    for (int i = 0; i < nsends; i++)
        REQUIRE_TRUE((sends[i].first) == (sends[i].to));
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++)
            REQUIRE(seen[a][b] == (a != b), "%s p=%d: %d->%d seen %d times", name, p, a, b,
                    seen[a][b]);
}

/* The reverse walk is the straight walk backwards with edges turned around. */
static void check_mirror(const coll_topo_t *topo, int p, int root, int radix)
{
    static edge_t fwd[MAXE];
    int nfwd, nr;
    static char used[MAXE];

    collect(topo, COLL_DIR_STRAIGHT, p, root, radix);
    memcpy(fwd, sends, sizeof(edge_t) * (size_t)nsends);
    nfwd = nsends;
    nr = nrounds_seen;
    collect(topo, COLL_DIR_REVERSE, p, root, radix);
    REQUIRE_TRUE((nsends) == (nfwd));
    memset(used, 0, sizeof used);
    for (int i = 0; i < nfwd; i++) {
        int found = 0;
        for (int j = 0; j < nsends && !found; j++) {
            if (used[j] || sends[j].round != nr - 1 - fwd[i].round || sends[j].from != fwd[i].to ||
                sends[j].to != fwd[i].from || sends[j].first != fwd[i].first ||
                sends[j].count != fwd[i].count)
                continue;
            used[j] = 1;
            found = 1;
        }
        REQUIRE(found, "%s p=%d root=%d: edge %d->%d round %d not mirrored", topo->name, p, root,
                fwd[i].from, fwd[i].to, fwd[i].round);
    }
}

/* ---------------------------------------------------------------- tests */
static void trees(const coll_topo_t *topo, int radix)
{
    for (int p = 1; p <= MAXP; p++) {
        for (int root = 0; root < p; root++) {
            collect(topo, COLL_DIR_STRAIGHT, p, root, radix);
            check_pairing(topo->name, p, 1);
            check_tree_straight(topo->name, p, root);
            collect(topo, COLL_DIR_REVERSE, p, root, radix);
            check_pairing(topo->name, p, 1);
            check_tree_reverse(topo->name, p, root);
            check_mirror(topo, p, root, radix);
        }
    }
}

START_TEST(binomial_tree)
{
    trees(&coll_topo_binomial, 2);
}
END_TEST

START_TEST(knomial_tree)
{
    trees(&coll_topo_knomial, _i);
}
END_TEST

START_TEST(linear_tree)
{
    trees(&coll_topo_linear, 0);
}
END_TEST

START_TEST(ring)
{
    for (int p = 1; p <= MAXP; p++) {
        collect(&coll_topo_ring, COLL_DIR_BIDIR, p, 0, 0);
        REQUIRE_TRUE((nsends) == (p * (p - 1)));
        check_pairing("ring", p, 1);
        check_allgather("ring", p);
        collect(&coll_topo_ring, COLL_DIR_REVERSE, p, 0, 0);
        check_pairing("ring", p, 1);
        check_reduce_scatter("ring reversed", p);
        check_mirror(&coll_topo_ring, p, 0, 0);
    }
}
END_TEST

START_TEST(recursive_doubling)
{
    for (int p = 1; p <= MAXP; p++) {
        collect(&coll_topo_recdbl, COLL_DIR_BIDIR, p, 0, 0);
        check_pairing("recdbl", p, 1);
        check_allgather("recdbl", p);
        /* pairs match: in the core every exchange is symmetric */
        for (int i = 0; i < nsends; i++) {
            if (sends[i].phase != COLL_PHASE_MAIN)
                continue;
            int back = 0;
            for (int j = 0; j < nsends; j++)
                back += sends[j].round == sends[i].round && sends[j].from == sends[i].to &&
                        sends[j].to == sends[i].from;
            REQUIRE_TRUE((back) == (1));
        }
        collect(&coll_topo_recdbl, COLL_DIR_REVERSE, p, 0, 0);
        check_pairing("recdbl", p, 1);
        check_reduce_scatter("recursive halving", p);
        check_mirror(&coll_topo_recdbl, p, 0, 0);
    }
}
END_TEST

START_TEST(bruck)
{
    for (int p = 1; p <= MAXP; p++) {
        collect(&coll_topo_bruck, COLL_DIR_BIDIR, p, 0, 0);
        check_pairing("bruck", p, 1);
        check_allgather("bruck", p);
        check_mirror(&coll_topo_bruck, p, 0, 0);
    }
}
END_TEST

START_TEST(dissemination)
{
    for (int p = 1; p <= MAXP; p++) {
        collect(&coll_topo_dissemination, COLL_DIR_BIDIR, p, 0, 0);
        check_pairing("dissemination", p, 1);
        check_barrier("dissemination", p);
        REQUIRE_TRUE((nrounds_seen) == (coll_ceil_log2(p)));
    }
}
END_TEST

START_TEST(hypercube)
{
    for (int p = 1; p <= MAXP; p++) {
        collect(&coll_topo_hypercube, COLL_DIR_BIDIR, p, 0, 0);
        check_pairing("hypercube", p, 1);
        check_scan("hypercube", p);
    }
}
END_TEST

START_TEST(pairwise)
{
    for (int p = 1; p <= MAXP; p++) {
        collect(&coll_topo_pairwise, COLL_DIR_BIDIR, p, 0, 0);
        check_pairing("pairwise", p, 0);
        check_alltoall("pairwise", p);
        /* shifted sequences: in a round nobody receives twice */
        for (int round = 0; round < p - 1; round++) {
            int cnt[MAXP] = {0};
            for (int i = 0; i < nrecvs; i++)
                if (recvs[i].round == round)
                    REQUIRE_TRUE((cnt[recvs[i].to]++) == (0));
        }
    }
}
END_TEST

/* Rooted walks over a group: peers come back as the group's ranks. */
START_TEST(group_map)
{
    int map[5] = {7, 3, 9, 1, 4};
    coll_iter_t it;
    coll_step_t st;
    int n = 0;
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_STRAIGHT, 5, 2, 2, 0, map);
    while (coll_iter_next(&it, &st)) {
        REQUIRE_TRUE((st.recv_peer) < (0));
        REQUIRE_TRUE(st.send_peer == 3 || st.send_peer == 4 || st.send_peer == 1);
        n++;
    }
    REQUIRE_TRUE((n) == (3)); /* relative ranks 4, 2, 1: indices 1, 4, 3 */
    coll_iter_begin(&it, &coll_topo_binomial, COLL_DIR_STRAIGHT, 5, -1, 0, 0, map);
    REQUIRE_TRUE((coll_iter_next(&it, &st)) == (0));
}
END_TEST

/* Node-aware composed bcast: leaders' tree, then each node's tree; with
 * every split of ranks into nodes, every rank receives exactly once. */
START_TEST(composed_node_aware)
{
    for (int p = 1; p <= 33; p++) {
        for (int nnodes = 1; nnodes <= p && nnodes <= 5; nnodes++) {
            for (int root = 0; root < p; root++) {
                int node_of[MAXP], leaders[MAXP], nl = 0, got[MAXP] = {0}, have[MAXP] = {0};
                int members[MAXP][MAXP], nm[MAXP] = {0};
                for (int r = 0; r < p; r++)
                    node_of[r] = r * nnodes / p;
                /* the root leads its node */
                for (int nd = 0; nd < nnodes; nd++) {
                    int lead = -1;
                    for (int r = 0; r < p; r++) {
                        if (node_of[r] != nd)
                            continue;
                        if (lead < 0 || r == root)
                            lead = r;
                    }
                    leaders[nl++] = lead;
                    members[nd][nm[nd]++] = lead;
                    for (int r = 0; r < p; r++)
                        if (node_of[r] == nd && r != lead)
                            members[nd][nm[nd]++] = r;
                }
                have[root] = 1;
                /* run the composed walks of every rank round by round:
                 * the leaders' part first, then the nodes' part */
                for (int part = 0; part < 2; part++) {
                    for (int round = 0; round < 8; round++) {
                        for (int r = 0; r < p; r++) {
                            coll_chain_t ch;
                            coll_step_t st;
                            int pt, li = -1, mi = -1, nd = node_of[r];
                            for (int i = 0; i < nl; i++)
                                if (leaders[i] == r)
                                    li = i;
                            for (int i = 0; i < nm[nd]; i++)
                                if (members[nd][i] == r)
                                    mi = i;
                            coll_chain_init(&ch);
                            coll_chain_add(&ch, &coll_topo_binomial, COLL_DIR_STRAIGHT, nl, li,
                                           node_of[root], 0, leaders);
                            coll_chain_add(&ch, &coll_topo_binomial, COLL_DIR_STRAIGHT, nm[nd], mi,
                                           0, 0, members[nd]);
                            while (coll_chain_next(&ch, &st, &pt)) {
                                int local = st.round - (pt == 1 ? ch.part[0].nrounds : 0);
                                if (pt != part || local != round)
                                    continue;
                                if (st.send_peer >= 0)
                                    REQUIRE_TRUE(have[r]);
                                if (st.recv_peer >= 0) {
                                    got[r]++;
                                    have[r] = 1;
                                }
                            }
                        }
                    }
                }
                for (int r = 0; r < p; r++)
                    REQUIRE(got[r] == (r == root ? 0 : 1),
                            "composed p=%d nodes=%d root=%d: rank %d got %d", p, nnodes, root, r,
                            got[r]);
            }
        }
    }
}
END_TEST

START_TEST(helpers)
{
    REQUIRE_TRUE((coll_ceil_log2(1)) == (0));
    REQUIRE_TRUE((coll_ceil_log2(2)) == (1));
    REQUIRE_TRUE((coll_ceil_log2(5)) == (3));
    REQUIRE_TRUE((coll_ceil_log2(64)) == (6));
    REQUIRE_TRUE((coll_floor_pof2(1)) == (1));
    REQUIRE_TRUE((coll_floor_pof2(7)) == (4));
    REQUIRE_TRUE((coll_floor_pof2(8)) == (8));
    REQUIRE_TRUE((coll_floor_pof2(65)) == (64));
}
END_TEST

static Suite *topo_suite(void)
{
    Suite *s = suite_create("coll_topo");
    TCase *tc = tcase_create("iterators");
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, helpers);
    tcase_add_test(tc, binomial_tree);
    tcase_add_loop_test(tc, knomial_tree, 3, 6);
    tcase_add_test(tc, linear_tree);
    tcase_add_test(tc, ring);
    tcase_add_test(tc, recursive_doubling);
    tcase_add_test(tc, bruck);
    tcase_add_test(tc, dissemination);
    tcase_add_test(tc, hypercube);
    tcase_add_test(tc, pairwise);
    tcase_add_test(tc, group_map);
    tcase_add_test(tc, composed_node_aware);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(topo_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
