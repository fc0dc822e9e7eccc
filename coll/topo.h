/*
 * Topology iterators: the sequence of peers one rank talks to, step by step,
 * for every algorithm of coll/. This is where Canal's collectives begin (the
 * design's EPOS-MPI idea): a collective is a topology iterator, a direction
 * policy and a step action, walked by one engine (coll/sched.c records the
 * walk as a schedule). A new network topology only defines iterators here.
 *
 * A topology is two functions: setup() computes the number of rounds and
 * whatever the topology needs from (size, rank, root, radix), and at()
 * describes this rank's edges in one round of the straight walk. The walker
 * (coll_iter_begin/coll_iter_next) is generic: it visits the rounds in
 * order (straight) or backwards with every edge turned around (reverse),
 * skips rounds in which this rank does nothing, and maps ranks relative to
 * the root back to communicator ranks (through a group map for composed,
 * node-aware walks). Nothing here allocates; an iterator is a small struct
 * on the caller's stack.
 *
 * Blocks. Each edge carries a span of blocks [first, first + count), block
 * numbers taken modulo the size (so a span may wrap). Block i is "the data
 * that belongs to relative rank i" (rank (i + root) % size): what a gather
 * collects from it, what a scatter delivers to it, its part of an
 * allgather or of a reduce-scatter. Algorithms turn spans into buffer
 * offsets; the spans make the iterators testable on their own (a walk is
 * valid when every block a rank sends is a block it holds).
 *
 * Callers: coll/ algorithms, test/unit/test_coll_topo.c. Depends on nothing.
 */
#ifndef CANAL_COLL_TOPO_H
#define CANAL_COLL_TOPO_H

#include <stddef.h>

/* Direction policy. */
typedef enum {
    /* The rounds in their own order: for a tree, data flows from the root to
     * the leaves (bcast, scatter). */
    COLL_DIR_STRAIGHT = 0,
    /* The same edges replayed backwards, last round first, every edge turned
     * around with its span (reduce, gather; on recursive doubling this is
     * recursive halving, on a ring a ring reduce-scatter). */
    COLL_DIR_REVERSE = 1,
    /* Straight order on a topology whose every round both sends and receives
     * (ring, recursive doubling, Bruck, dissemination, pairwise): allgather,
     * alltoall, allreduce, barrier. Walks exactly like STRAIGHT; the name says
     * what the caller relies on. */
    COLL_DIR_BIDIR = 2,
} coll_dir_t;

/* Rounds of recursive doubling for a size that is not a power of two: the
 * extra ranks first fold into a partner (PRE), the power-of-two core runs
 * (MAIN), then the partners hand the result back (POST). Reversed walks keep
 * the labels on the edges. */
typedef enum { COLL_PHASE_MAIN = 0, COLL_PHASE_PRE = 1, COLL_PHASE_POST = 2 } coll_phase_t;

/* One round of this rank's walk. Peers are communicator ranks (or -1 for
 * none); a round has a send, a receive, or both. */
typedef struct {
    int round; /* position in the walk, 0-based, same on every rank */
    coll_phase_t phase;
    int dist; /* the round's distance: mask of recursive doubling and
                 dissemination, shift of ring and pairwise, 2^level in trees */
    int send_peer, recv_peer;
    int send_first, send_count; /* blocks carried by the send (relative numbering) */
    int recv_first, recv_count; /* blocks carried by the receive */
} coll_step_t;

typedef struct coll_iter coll_iter_t;

typedef struct {
    const char *name;
    int bidir;  /* every round both sends and receives (for ranks that take part) */
    int rooted; /* the root matters (trees, linear) */
    /* Fill it->nrounds and the private fields from size, idx, root, radix. */
    void (*setup)(coll_iter_t *it);
    /* This rank's edges in straight round `round`; peers and spans in
     * relative numbering. Returns 0 when the rank is idle in that round. */
    int (*at)(const coll_iter_t *it, int round, coll_step_t *out);
} coll_topo_t;

struct coll_iter {
    const coll_topo_t *topo;
    coll_dir_t dir;
    int size;       /* ranks in the walk (the group's size for composed walks) */
    int idx;        /* this rank's index in [0, size), or -1: not a member */
    int root;       /* index of the root */
    int rel;        /* (idx - root) mod size */
    int radix;      /* k-nomial trees */
    const int *map; /* index -> communicator rank, NULL for the identity */
    int nrounds, pos;
    /* private to the topologies */
    int levels;    /* trees: digits of the largest relative rank */
    int pof2, rem; /* recursive doubling */
    int vrank;     /* recursive doubling: rank in the power-of-two core, -1 if extra */
};

/* The topologies. Binomial is the k-nomial tree with radix 2. */
extern const coll_topo_t coll_topo_linear;   /* root talks to each rank in turn */
extern const coll_topo_t coll_topo_binomial; /* binomial tree */
extern const coll_topo_t coll_topo_knomial;  /* k-nomial tree, radix >= 2 */
extern const coll_topo_t coll_topo_ring;     /* send right, receive left, size-1 rounds */
extern const coll_topo_t coll_topo_recdbl;   /* recursive doubling with the fix-up */
extern const coll_topo_t
    coll_topo_hypercube;                  /* recursive doubling, absent partners skipped (scan) */
extern const coll_topo_t coll_topo_bruck; /* Bruck's concatenation (allgather) */
extern const coll_topo_t coll_topo_dissemination; /* send to +2^k, receive from -2^k */
extern const coll_topo_t coll_topo_pairwise;      /* round s: send to +s, receive from -s */

/* Start a walk of topo for the member idx of a group of `size` (idx = -1:
 * not a member, the walk is empty). map translates group indices to
 * communicator ranks (NULL: identity). radix is used by k-nomial trees
 * (values below 2 mean 2). */
void coll_iter_begin(coll_iter_t *it, const coll_topo_t *topo, coll_dir_t dir, int size, int idx,
                     int root, int radix, const int *map);
/* The next round in which this rank sends or receives: 1 and *out, or 0 at
 * the end of the walk. */
int coll_iter_next(coll_iter_t *it, coll_step_t *out);

/* Relative block i as a group index (and then a communicator rank). */
static inline int coll_iter_abs(const coll_iter_t *it, int rel_block)
{
    int i = (rel_block % it->size + it->size) % it->size;
    return (i + it->root) % it->size;
}
static inline int coll_iter_rank_of(const coll_iter_t *it, int idx)
{
    return it->map != NULL ? it->map[idx] : idx;
}

/* Recursive doubling's non-power-of-two layout: the core rank that block
 * (relative rank) b folds into, and the first relative rank of core rank v
 * (core rank v holds blocks [coll_recdbl_lo(v), coll_recdbl_lo(v + 1))). */
static inline int coll_recdbl_lo(const coll_iter_t *it, int v)
{
    return v < it->rem ? 2 * v : v + it->rem;
}

/* Composed walks: up to COLL_CHAIN_MAX walks, each over its own group (node
 * members under a leader, the leaders among themselves), visited one after
 * the other. A rank that is not in a part's group skips that part. */
enum { COLL_CHAIN_MAX = 3 };
typedef struct {
    coll_iter_t part[COLL_CHAIN_MAX];
    int nparts, cur, round_base;
} coll_chain_t;

void coll_chain_init(coll_chain_t *ch);
/* Append a walk (same arguments as coll_iter_begin). */
void coll_chain_add(coll_chain_t *ch, const coll_topo_t *topo, coll_dir_t dir, int size, int idx,
                    int root, int radix, const int *map);
/* Next round over all parts; *part_out says which part it belongs to. */
int coll_chain_next(coll_chain_t *ch, coll_step_t *out, int *part_out);

/* Small helpers shared with the algorithms. */
int coll_ceil_log2(int n);  /* smallest r with 2^r >= n (0 for n <= 1) */
int coll_floor_pof2(int n); /* largest power of two <= n (n >= 1) */

#endif
