/*
 * Which algorithm runs a collective: one readable table, first matching row
 * wins. A row names the collective, a range of communicator sizes, a range
 * of message sizes (bytes, as msg_bytes() measures them for that
 * collective) and a condition; a row whose algorithm cannot serve the call
 * (its usable() says no: e.g. Rabenseifner with a non-commutative op) is
 * skipped. Every algorithm can be forced with CANAL_COLL_<COLLECTIVE>=<name>
 * (e.g. CANAL_COLL_ALLREDUCE=ring), which is how the tests run each one at
 * every size; a forced algorithm that cannot serve a call falls back to the
 * table. coll_select_describe() prints all of it (CANAL_SUMMARY).
 *
 * Every rank must choose the same algorithm: the inputs (size, bytes,
 * commutativity, counts) are the same everywhere by the rules of MPI.
 *
 * Before the table: a blocking barrier, or allreduce or reduce_scatter(_block)
 * of at most COLL_SHM_MAX bytes (the whole vector), allgather or alltoall of
 * at most COLL_SHM_GATHER_MAX bytes a rank receives, or bcast (up to
 * COLL_SHM_BCAST_MAX bytes; above, through the block's ring), on a
 * communicator of this node runs through the node's shared block
 * (coll/shm.c) unless an algorithm is forced for it;
 * then a 2-rank barrier or allreduce, and a gather(v) or scatter(v) whose
 * algorithm is the linear one with small blocks, run the algorithm's direct
 * form (coll/pair.c).
 */
#include "coll/coll_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cvar.h"

enum { ANY = INT_MAX, KiB = 1024 };

typedef enum {
    WHEN_ALWAYS,
    WHEN_MULTINODE, /* ranks on more than one node */
    WHEN_POF2,      /* communicator size is a power of two */
    WHEN_OVERSUB,   /* on one node whose ranks outnumber its CPUs */
} when_t;

typedef struct {
    coll_kind_t kind;
    int min_size, max_size;      /* communicator size, inclusive */
    size_t min_bytes, max_bytes; /* message size, [min, max) */
    when_t when;
    const coll_algo_t *algo;
} rule_t;

/* clang-format off */
static const rule_t rules[] = {
    /* collective               sizes    bytes from  bytes to    when            algorithm */
    {COLL_BARRIER,               1, ANY, 0,         SIZE_MAX,  WHEN_MULTINODE, &coll_barrier_node},
    /* more ranks than CPUs: all to rank 0 and back, one partner per rank
     * instead of log2(size) rounds (np4 / np8 medians 8.5 / 21-31 us
     * against 7.4-9.4 / 41-48; rank 0 leaves first, so the 4-byte bcast
     * that follows in IMB finds its message: 0.2 us instead of 0.2-7) */
    {COLL_BARRIER,               3, 16,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_barrier_linear},
    {COLL_BARRIER,               1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_barrier_dissemination},

    {COLL_BCAST,                 1, ANY, 0,         64 * KiB,  WHEN_MULTINODE, &coll_bcast_node},
    /* more ranks than CPUs: the root sends to every rank, so a rank waits
     * for the root only, not for a chain of parents to be scheduled (at
     * any size: 0.25-0.4 of scatter_ring's time at 0.5-4 MiB) */
    {COLL_BCAST,                 1, 16,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_bcast_linear},
    {COLL_BCAST,                 1, ANY, 0,         12 * KiB,  WHEN_ALWAYS,    &coll_bcast_binomial},
    {COLL_BCAST,                 1, 7,   12 * KiB,  512 * KiB, WHEN_ALWAYS,    &coll_bcast_binomial},
    {COLL_BCAST,                 3, ANY, 12 * KiB,  SIZE_MAX,  WHEN_ALWAYS,    &coll_bcast_scatter_ring},
    {COLL_BCAST,                 1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_bcast_binomial},

    {COLL_REDUCE,                1, ANY, 0,         SIZE_MAX,  WHEN_MULTINODE, &coll_reduce_node},
    /* more ranks than CPUs: every contribution straight to the root, all
     * receives posted at once (np8 4 B 2.6-7.2 us against binomial's
     * 20-28), up to 32 KiB; above, linear's root holds every part and
     * reduces them after the last came, and the binomial tree's parents,
     * which reduce their children's parts in parallel, cost half the CPU
     * (quiet machine, CPU a call summed over ranks, linear / binomial:
     * np8 64 KiB 164 / 100, 128 KiB 305 / 170, 512 KiB 1,171 / 580, 2 MiB
     * 4,677 / 3,321; np4 128 KiB 93 / 72; doc/bench.md "Stop 39 (lead)") */
    {COLL_REDUCE,                1, 16,  0,         32 * KiB,  WHEN_OVERSUB,   &coll_reduce_linear},
    {COLL_REDUCE,                1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_reduce_binomial},

    {COLL_ALLREDUCE,             1, ANY, 0,         SIZE_MAX,  WHEN_MULTINODE, &coll_allreduce_node},
    /* more ranks than CPUs: all to rank 0 and back, one hand-off per rank
     * instead of log2(size) rounds that each wait for a partner */
    {COLL_ALLREDUCE,             1, 16,  0,         32 * KiB,  WHEN_OVERSUB,   &coll_allreduce_linear},
    /* more ranks than CPUs, 8 or more, larger vectors: Rabenseifner's two
     * halves with each half's messages posted at once (np8 IMB 1-2 MiB, 3
     * alternated runs: 1.4-3.1 ms against 2.3-4.3; np4 no better;
     * doc/bench.md "Stop 43 (lead)") */
    {COLL_ALLREDUCE,             8, 32,  32 * KiB,  SIZE_MAX,  WHEN_OVERSUB,   &coll_allreduce_linear_blocks},
    {COLL_ALLREDUCE,             1, ANY, 0,         2 * KiB,   WHEN_ALWAYS,    &coll_allreduce_recdbl},
    {COLL_ALLREDUCE,             1, ANY, 2 * KiB,   SIZE_MAX,  WHEN_ALWAYS,    &coll_allreduce_rabenseifner},
    {COLL_ALLREDUCE,             1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_allreduce_recdbl},

    /* more ranks than CPUs: straight from/to the root, as bcast above */
    {COLL_GATHER,                1, 16,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_gather_linear},
    {COLL_GATHER,                1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_gather_binomial},
    {COLL_GATHERV,               1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_gatherv_linear},
    {COLL_SCATTER,               1, 16,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_scatter_linear},
    {COLL_SCATTER,               1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_scatter_binomial},
    {COLL_SCATTERV,              1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_scatterv_linear},

    /* allgather: bytes are the whole result (size * block) */
    /* oversubscribed: everything posted at once, no step waits for a
     * partner to be scheduled (also alltoall and reduce_scatter below) */
    {COLL_ALLGATHER,             1, 32,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_allgather_linear},
    {COLL_ALLGATHER,             1, ANY, 0,         80 * KiB,  WHEN_POF2,      &coll_allgather_recdbl},
    {COLL_ALLGATHER,             1, ANY, 0,         80 * KiB,  WHEN_ALWAYS,    &coll_allgather_bruck},
    {COLL_ALLGATHER,             1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_allgather_ring},
    /* oversubscribed: as allgather (np8 4-256 B: recursive doubling's
     * three rounds each waited for a partner to be scheduled and built two
     * span datatypes) */
    {COLL_ALLGATHERV,            1, 32,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_allgatherv_linear},
    {COLL_ALLGATHERV,            1, ANY, 0,         80 * KiB,  WHEN_ALWAYS,    &coll_allgatherv_recdbl},
    {COLL_ALLGATHERV,            1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_allgatherv_ring},

    /* alltoall: bytes are one block */
    /* oversubscribed, even for small blocks on 8 ranks: Bruck's log2(p)
     * rounds each wait for a partner (np8 4-128 B, medians of 5 alternated
     * runs: 47-66 us of CPU per call summed over ranks against Bruck's 62-84) */
    {COLL_ALLTOALL,              1, 32,  0,         SIZE_MAX,  WHEN_OVERSUB,   &coll_alltoall_linear},
    {COLL_ALLTOALL,              8, ANY, 0,         257,       WHEN_ALWAYS,    &coll_alltoall_bruck},
    {COLL_ALLTOALL,              1, ANY, 0,         32 * KiB,  WHEN_ALWAYS,    &coll_alltoall_linear},
    {COLL_ALLTOALL,              1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_alltoall_pairwise},
    {COLL_ALLTOALLV,             1, 32,  0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_alltoallv_linear},
    {COLL_ALLTOALLV,             1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_alltoallv_pairwise},
    {COLL_ALLTOALLW,             1, 32,  0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_alltoallw_linear},
    {COLL_ALLTOALLW,             1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_alltoallw_pairwise},

    /* reduce_scatter: bytes are the whole vector */
    {COLL_REDUCE_SCATTER,        1, 32,  32 * KiB,  SIZE_MAX,  WHEN_OVERSUB,   &coll_reduce_scatter_linear},
    {COLL_REDUCE_SCATTER,        1, ANY, 0,         512 * KiB, WHEN_ALWAYS,    &coll_reduce_scatter_halving},
    {COLL_REDUCE_SCATTER,        1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_reduce_scatter_ring},
    {COLL_REDUCE_SCATTER,        1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_reduce_scatter_reduce_scatterv},
    {COLL_REDUCE_SCATTER_BLOCK,  1, 32,  32 * KiB,  SIZE_MAX,  WHEN_OVERSUB,   &coll_reduce_scatter_block_linear},
    {COLL_REDUCE_SCATTER_BLOCK,  1, ANY, 0,         512 * KiB, WHEN_ALWAYS,    &coll_reduce_scatter_block_halving},
    {COLL_REDUCE_SCATTER_BLOCK,  1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_reduce_scatter_block_ring},
    {COLL_REDUCE_SCATTER_BLOCK,  1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_reduce_scatter_block_reduce_scatterv},

    {COLL_SCAN,                  1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_scan_recdbl},
    {COLL_EXSCAN,                1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_exscan_recdbl},

    {COLL_NEIGHBOR_ALLGATHER,    1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_neighbor_allgather_linear},
    {COLL_NEIGHBOR_ALLGATHERV,   1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_neighbor_allgatherv_linear},
    {COLL_NEIGHBOR_ALLTOALL,     1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_neighbor_alltoall_linear},
    {COLL_NEIGHBOR_ALLTOALLV,    1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_neighbor_alltoallv_linear},
    {COLL_NEIGHBOR_ALLTOALLW,    1, ANY, 0,         SIZE_MAX,  WHEN_ALWAYS,    &coll_neighbor_alltoallw_linear},
};
/* clang-format on */

/* Every algorithm, for CANAL_COLL_<KIND>=<name>. */
/* clang-format off */
static const coll_algo_t *const algos[] = {
    &coll_barrier_dissemination, &coll_barrier_tree, &coll_barrier_node, &coll_barrier_linear,
    &coll_bcast_binomial, &coll_bcast_knomial, &coll_bcast_linear, &coll_bcast_scatter_ring,
    &coll_bcast_node,
    &coll_reduce_binomial, &coll_reduce_knomial, &coll_reduce_linear, &coll_reduce_node,
    &coll_gather_binomial, &coll_gather_linear, &coll_gatherv_linear,
    &coll_scatter_binomial, &coll_scatter_linear, &coll_scatterv_linear,
    &coll_allreduce_recdbl, &coll_allreduce_rabenseifner, &coll_allreduce_ring,
    &coll_allreduce_reduce_bcast, &coll_allreduce_node, &coll_allreduce_linear,
    &coll_allreduce_linear_blocks,
    &coll_allgather_ring, &coll_allgather_recdbl, &coll_allgather_bruck,
    &coll_allgather_gather_bcast, &coll_allgather_linear,
    &coll_allgatherv_ring, &coll_allgatherv_recdbl, &coll_allgatherv_linear,
    &coll_alltoall_pairwise, &coll_alltoall_linear, &coll_alltoall_bruck,
    &coll_alltoallv_pairwise, &coll_alltoallv_linear,
    &coll_alltoallw_pairwise, &coll_alltoallw_linear,
    &coll_reduce_scatter_halving, &coll_reduce_scatter_ring,
    &coll_reduce_scatter_reduce_scatterv, &coll_reduce_scatter_linear,
    &coll_reduce_scatter_block_halving, &coll_reduce_scatter_block_ring,
    &coll_reduce_scatter_block_reduce_scatterv, &coll_reduce_scatter_block_linear,
    &coll_scan_recdbl, &coll_scan_linear, &coll_exscan_recdbl, &coll_exscan_linear,
    &coll_neighbor_allgather_linear, &coll_neighbor_allgatherv_linear,
    &coll_neighbor_alltoall_linear, &coll_neighbor_alltoallv_linear,
    &coll_neighbor_alltoallw_linear,
};
/* clang-format on */

static const struct {
    const char *mpi;  /* MPI name */
    const char *cvar; /* configuration variable without CANAL_, NULL: not forcible */
} kinds[COLL_NKINDS] = {
    [COLL_BARRIER] = {"MPI_Barrier", "COLL_BARRIER"},
    [COLL_BCAST] = {"MPI_Bcast", "COLL_BCAST"},
    [COLL_GATHER] = {"MPI_Gather", "COLL_GATHER"},
    [COLL_GATHERV] = {"MPI_Gatherv", "COLL_GATHERV"},
    [COLL_SCATTER] = {"MPI_Scatter", "COLL_SCATTER"},
    [COLL_SCATTERV] = {"MPI_Scatterv", "COLL_SCATTERV"},
    [COLL_ALLGATHER] = {"MPI_Allgather", "COLL_ALLGATHER"},
    [COLL_ALLGATHERV] = {"MPI_Allgatherv", "COLL_ALLGATHERV"},
    [COLL_ALLTOALL] = {"MPI_Alltoall", "COLL_ALLTOALL"},
    [COLL_ALLTOALLV] = {"MPI_Alltoallv", "COLL_ALLTOALLV"},
    [COLL_ALLTOALLW] = {"MPI_Alltoallw", "COLL_ALLTOALLW"},
    [COLL_REDUCE] = {"MPI_Reduce", "COLL_REDUCE"},
    [COLL_ALLREDUCE] = {"MPI_Allreduce", "COLL_ALLREDUCE"},
    [COLL_REDUCE_SCATTER] = {"MPI_Reduce_scatter", "COLL_REDUCE_SCATTER"},
    [COLL_REDUCE_SCATTER_BLOCK] = {"MPI_Reduce_scatter_block", "COLL_REDUCE_SCATTER_BLOCK"},
    [COLL_SCAN] = {"MPI_Scan", "COLL_SCAN"},
    [COLL_EXSCAN] = {"MPI_Exscan", "COLL_EXSCAN"},
    [COLL_NEIGHBOR_ALLGATHER] = {"MPI_Neighbor_allgather", NULL},
    [COLL_NEIGHBOR_ALLGATHERV] = {"MPI_Neighbor_allgatherv", NULL},
    [COLL_NEIGHBOR_ALLTOALL] = {"MPI_Neighbor_alltoall", NULL},
    [COLL_NEIGHBOR_ALLTOALLV] = {"MPI_Neighbor_alltoallv", NULL},
    [COLL_NEIGHBOR_ALLTOALLW] = {"MPI_Neighbor_alltoallw", NULL},
};

const char *coll_kind_name(coll_kind_t k)
{
    return k >= 0 && k < COLL_NKINDS ? kinds[k].mpi : "collective";
}

/* ---------------------------------------------------------------- forcing */
static const coll_algo_t *forced[COLL_NKINDS];
static pthread_once_t forced_once = PTHREAD_ONCE_INIT; /* (threads may call at once) */

static void read_forced(void)
{
    for (int k = 0; k < COLL_NKINDS; k++) {
        const char *v;
        forced[k] = NULL;
        if (kinds[k].cvar == NULL)
            continue;
        v = common_cvar_str(kinds[k].cvar);
        if (v == NULL || *v == '\0' || strcasecmp(v, "auto") == 0)
            continue;
        for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++)
            if (algos[i]->kind == (coll_kind_t)k && strcasecmp(algos[i]->name, v) == 0)
                forced[k] = algos[i];
        if (forced[k] == NULL) {
            char names[512] = "";
            for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
                if (algos[i]->kind != (coll_kind_t)k)
                    continue;
                strncat(names, " ", sizeof names - strlen(names) - 1);
                strncat(names, algos[i]->name, sizeof names - strlen(names) - 1);
            }
            LOG_WARN("CANAL_%s=%s is not an algorithm of %s (auto%s); using the table",
                     kinds[k].cvar, v, kinds[k].mpi, names);
        }
    }
}

/* ---------------------------------------------------------------- choosing */
static size_t msg_bytes(const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    size_t esz = a->rdt != NULL ? dt_size(a->rdt) : 0, n = 0;
    switch (a->kind) {
    case COLL_BCAST:
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_SCAN:
    case COLL_EXSCAN:
        return (size_t)a->recvcount * esz;
    case COLL_GATHER:
        if (coll_rank(c) == a->root)
            return (size_t)a->recvcount * esz;
        return a->sdt != NULL ? (size_t)a->sendcount * dt_size(a->sdt) : 0;
    case COLL_SCATTER:
        if (coll_rank(c) == a->root)
            return a->sdt != NULL ? (size_t)a->sendcount * dt_size(a->sdt) : 0;
        return (size_t)a->recvcount * esz;
    case COLL_ALLGATHER:
        return (size_t)a->recvcount * esz * (size_t)coll_size(c);
    case COLL_ALLTOALL:
        return (size_t)a->recvcount * esz;
    case COLL_REDUCE_SCATTER_BLOCK:
        return (size_t)a->recvcount * esz * (size_t)coll_size(c);
    case COLL_REDUCE_SCATTER:
    case COLL_ALLGATHERV:
        for (int i = 0; i < coll_size(c); i++)
            n += (size_t)a->recvcounts[i];
        return n * esz;
    default:
        return 0;
    }
}

int coll_moves_nothing(const coll_args_t *a)
{
    switch (a->kind) {
    case COLL_BCAST:
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_SCAN:
    case COLL_EXSCAN:
    case COLL_GATHER:
    case COLL_SCATTER:
    case COLL_ALLGATHER:
    case COLL_ALLGATHERV:
    case COLL_ALLTOALL:
    case COLL_REDUCE_SCATTER:
    case COLL_REDUCE_SCATTER_BLOCK:
        return !coll_is_inter(a->comm) && msg_bytes(a) == 0;
    default:
        return 0;
    }
}

/* n blocks of counts[i] elements of dt, all empty */
static int blocks_empty(const MPI_Count *counts, int n, dt_type_t *dt)
{
    if (dt == NULL || dt_size(dt) == 0)
        return 1;
    for (int i = 0; i < n; i++)
        if (counts[i] != 0)
            return 0;
    return 1;
}

int coll_skip_empty_part(const coll_args_t *a)
{
    mpi_comm_t *c = a->comm;
    int root = coll_rank(c) == a->root, empty;

    if (coll_is_inter(c))
        return 0;
    switch (a->kind) {
    case COLL_GATHERV:
        /* (the linear schedule, the only gatherv: a non-root's send, the
         * root's receives and its own copy) */
        empty = (a->sdt == NULL || (size_t)a->sendcount * dt_size(a->sdt) == 0) &&
                (!root || blocks_empty(a->recvcounts, coll_size(c), a->rdt));
        break;
    case COLL_SCATTERV:
        empty = (a->rdt == NULL || (size_t)a->recvcount * dt_size(a->rdt) == 0) &&
                (!root || blocks_empty(a->sendcounts, coll_size(c), a->sdt));
        break;
    default:
        return 0;
    }
    return empty && coll_skip_call(c, a->kind);
}

int coll_skip_call(mpi_comm_t *c, coll_kind_t kind)
{
    return coll_comm_take_tag_in_step(c, kind) >= 0;
}

static int when_holds(when_t w, const coll_args_t *a)
{
    int nn;
    switch (w) {
    case WHEN_MULTINODE:
        return coll_comm_nodes(a->comm, &nn) != NULL;
    case WHEN_POF2:
        return (coll_size(a->comm) & (coll_size(a->comm) - 1)) == 0;
    case WHEN_OVERSUB:
        return coll_comm_oversubscribed(a->comm);
    default:
        return 1;
    }
}

static int usable(const coll_algo_t *al, const coll_args_t *a)
{
    return al->usable == NULL || al->usable(a);
}

static const coll_algo_t *choose(const coll_args_t *a)
{
    const coll_algo_t *f;
    size_t bytes;

    pthread_once(&forced_once, read_forced);
    f = forced[a->kind];
    if (f != NULL && usable(f, a))
        return f;
    bytes = msg_bytes(a);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const rule_t *r = &rules[i];
        if (r->kind != a->kind || coll_size(a->comm) < r->min_size || coll_size(a->comm) > r->max_size ||
            bytes < r->min_bytes || bytes >= r->max_bytes || !when_holds(r->when, a) ||
            !usable(r->algo, a))
            continue;
        return r->algo;
    }
    return NULL;
}

canal_status_t coll_record(coll_sched_t *s, const coll_args_t *a)
{
    const coll_algo_t *al;
    coll_sched_set_kind(s, a->kind);
    if (coll_is_inter(a->comm))
        return coll_record_inter(s, a);
    al = choose(a);
    if (al == NULL)
        return common_err_set(CANAL_ERR_INTERN, "no algorithm for %s on %d ranks",
                              coll_kind_name(a->kind), coll_size(a->comm));
    LOG_DEBUG("%s: %s on %d ranks, %zu bytes", kinds[a->kind].mpi, al->name, coll_size(a->comm),
              msg_bytes(a));
    return al->record(s, a);
}

/* A blocking gather(v) or scatter(v) whose chosen algorithm is the linear
 * one (gatherv and scatterv always; gather and scatter on an
 * oversubscribed node) runs without a schedule when its blocks are small
 * (coll/pair.c): the choice depends on the communicator and the forced
 * algorithms only, so it is remembered per kind. */
static canal_status_t rooted_direct(const coll_args_t *a, int *ran)
{
    coll_choice_t *m = coll_comm_choice(a->comm, coll_rooted_slot(a->kind));
    const coll_algo_t *al;

    if (m == NULL)
        return CANAL_OK;
    if (!m->valid) {
        if (coll_comm_step_check(a->comm) < 0)
            return CANAL_OK; /* (out of step: the schedule's creation fails) */
        m->algo = al = choose(a);
        /* (the leaf's part of coll_direct_rooted_usable: the communicator's) */
        m->leaf = al != NULL && al->direct != NULL &&
                  al->direct_usable == coll_direct_rooted_usable &&
                  coll_size(a->comm) <= COLL_DIRECT_MAX_RANKS;
        m->valid = 1;
    }
    al = m->algo;
    if (al == NULL || al->direct == NULL || (al->direct_usable != NULL && !al->direct_usable(a)))
        return CANAL_OK;
    *ran = 1;
    return al->direct(a);
}

canal_status_t coll_run_direct(const coll_args_t *a, int *ran)
{
    const coll_algo_t *al;
    coll_choice_t *m;
    size_t bytes;

    *ran = 0;
    /* (every direct run is of an intracommunicator of 2 ranks or more) */
    if (coll_is_inter(a->comm) || coll_size(a->comm) < 2)
        return CANAL_OK;
    switch (a->kind) {
    case COLL_GATHER:
    case COLL_GATHERV:
    case COLL_SCATTER:
    case COLL_SCATTERV:
        return rooted_direct(a, ran);
    case COLL_REDUCE_SCATTER:
    case COLL_REDUCE_SCATTER_BLOCK:
        pthread_once(&forced_once, read_forced);
        return forced[a->kind] == NULL ? coll_shm_reduce_scatter(a, ran) : CANAL_OK;
    case COLL_BCAST:
        pthread_once(&forced_once, read_forced);
        return forced[a->kind] == NULL ? coll_shm_bcast(a, ran) : CANAL_OK;
    case COLL_REDUCE:
        pthread_once(&forced_once, read_forced);
        return forced[a->kind] == NULL ? coll_shm_reduce(a, ran) : CANAL_OK;
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
        pthread_once(&forced_once, read_forced);
        return forced[a->kind] == NULL ? coll_shm_gather_all(a, ran) : CANAL_OK;
    case COLL_BARRIER:
    case COLL_ALLREDUCE:
        break;
    default:
        return CANAL_OK;
    }
    /* all ranks on this node: the shared block (coll/shm.c), unless an
     * algorithm is forced for this collective */
    pthread_once(&forced_once, read_forced);
    if (forced[a->kind] == NULL) {
        canal_status_t st =
            a->kind == COLL_BARRIER ? coll_shm_barrier(a->comm, ran) : coll_shm_allreduce(a, ran);
        if (*ran)
            return st;
    }
    if (coll_size(a->comm) != 2 ||
        (m = coll_comm_choice(a->comm, a->kind == COLL_ALLREDUCE)) == NULL)
        return CANAL_OK;
    /* choose() depends on the communicator (fixed), the forced algorithms
     * (read once), and for the allreduce on the bytes, the count and the
     * operation's commutativity: remember its last answer for those */
    bytes = a->kind == COLL_BARRIER ? 0 : (size_t)a->recvcount * dt_size(a->rdt); /* (msg_bytes) */
    if (m->valid && m->bytes == bytes && m->count == a->recvcount &&
        m->commutative == a->commutative) {
        al = m->algo;
    } else {
        if (coll_comm_step_check(a->comm) < 0)
            return CANAL_OK; /* (out of step: the schedule's creation fails) */
        al = choose(a);
        m->valid = 1;
        m->bytes = bytes;
        m->count = a->recvcount;
        m->commutative = a->commutative;
        m->algo = al;
    }
    if (al == NULL || al->direct == NULL || (al->direct_usable != NULL && !al->direct_usable(a)))
        return CANAL_OK;
    *ran = 1;
    return al->direct(a);
}

canal_status_t coll_barrier_direct(mpi_comm_t *c, int *ran)
{
    coll_args_t a;
    coll_choice_t *m;
    pthread_once(&forced_once, read_forced);
    if (forced[COLL_BARRIER] == NULL) {
        canal_status_t st = coll_shm_barrier(c, ran); /* (before building a: no memset) */
        if (*ran)
            return st;
    }
    a = (coll_args_t){.kind = COLL_BARRIER, .comm = c, .commutative = 1};
    m = coll_comm_choice(c, 0);
    /* the barrier's choice depends on the communicator alone */
    if (m != NULL && m->valid && coll_size(c) == 2) {
        const coll_algo_t *al = m->algo;
        *ran = al != NULL && al->direct != NULL &&
               (al->direct_usable == NULL || al->direct_usable(&a));
        return *ran ? al->direct(&a) : CANAL_OK;
    }
    return coll_run_direct(&a, ran);
}

canal_status_t coll_bcast_direct(mpi_comm_t *c, void *buf, size_t count, dt_type_t *dt, int root,
                                 int *ran)
{
    coll_args_t a; /* (the fields coll_shm_bcast reads: no memset) */

    *ran = 0;
    pthread_once(&forced_once, read_forced);
    if (forced[COLL_BCAST] != NULL)
        return CANAL_OK;
    a.kind = COLL_BCAST;
    a.comm = c;
    a.recvbuf = buf;
    a.recvcount = (MPI_Count)count;
    a.rdt = dt;
    a.root = root;
    return coll_shm_bcast(&a, ran);
}

const char *coll_algo_chosen(const coll_args_t *a)
{
    const coll_algo_t *al;
    if (coll_is_inter(a->comm))
        return "intercommunicator";
    al = choose(a);
    return al != NULL ? al->name : "none";
}

/* ---------------------------------------------------------------- printing */
static void fmt_bytes(size_t x, char *o, size_t len)
{
    if (x != 0 && x % (1024 * 1024) == 0)
        snprintf(o, len, "%zuM", x >> 20);
    else if (x != 0 && x % 1024 == 0)
        snprintf(o, len, "%zuK", x >> 10);
    else
        snprintf(o, len, "%zu", x);
}

static void print_range(char *buf, size_t len, size_t lo, size_t hi)
{
    char a[32], b[32];
    if (lo == 0 && hi == SIZE_MAX) {
        snprintf(buf, len, "any");
        return;
    }
    fmt_bytes(lo, a, sizeof a);
    if (hi == SIZE_MAX) {
        snprintf(buf, len, ">= %s", a);
        return;
    }
    fmt_bytes(hi, b, sizeof b);
    snprintf(buf, len, "%s..%s", a, b);
}

void coll_select_describe(FILE *f)
{
    static const char *const when_names[] = {"", "multinode", "size pof2", "oversub"};
    int nn;
    const int *nodes = coll_comm_nodes(coll_host.comm_world(), &nn);

    pthread_once(&forced_once, read_forced);
    fprintf(f, "canal: collectives: first matching row wins (MPI_COMM_WORLD: %d node%s%s)\n",
            nodes ? nn : 1, nodes && nn > 1 ? "s" : "",
            common_cvar_int("COLL_FAKE_NODES") > 1 ? ", faked by CANAL_COLL_FAKE_NODES" : "");
    fprintf(f, "canal:   %-26s %-9s %-14s %-10s %s\n", "collective", "ranks", "bytes", "when",
            "algorithm");
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const rule_t *r = &rules[i];
        char sizes[32], bytes[80];
        if (r->min_size <= 1 && r->max_size == ANY)
            snprintf(sizes, sizeof sizes, "any");
        else if (r->max_size == ANY)
            snprintf(sizes, sizeof sizes, ">= %d", r->min_size);
        else
            snprintf(sizes, sizeof sizes, "%d..%d", r->min_size, r->max_size);
        print_range(bytes, sizeof bytes, r->min_bytes, r->max_bytes);
        fprintf(f, "canal:   %-26s %-9s %-14s %-10s %s%s\n", kinds[r->kind].mpi, sizes, bytes,
                when_names[r->when], r->algo->name, r->algo->usable != NULL ? " (if usable)" : "");
    }
    fprintf(f,
            "canal:   (before the table: blocking MPI_Barrier, MPI_Allreduce and "
            "MPI_Reduce_scatter(_block) up to %d bytes, MPI_Allgather and MPI_Alltoall up to %d "
            "bytes received, "
            "on ranks all on this node: a shared block from a communicator's call %d on%s)\n",
            COLL_SHM_MAX, COLL_SHM_GATHER_MAX, COLL_SHM_AFTER + 1,
            common_cvar_bool("COLL_SHM") ? "" : "; off: CANAL_COLL_SHM=0");
    for (int k = 0; k < COLL_NKINDS; k++)
        if (forced[k] != NULL)
            fprintf(f, "canal:   forced by CANAL_%s: %s uses %s\n", kinds[k].cvar, kinds[k].mpi,
                    forced[k]->name);
}
