/*
 * Private to coll/: the algorithm objects the selection table names, and
 * the building blocks the algorithm files share. A building block records
 * one walk over a group of ranks of a communicator (the whole communicator,
 * the members of one node, the node leaders), so that flat and node-aware
 * algorithms are written once.
 */
#ifndef CANAL_COLL_IMPL_H
#define CANAL_COLL_IMPL_H

#include <string.h>

#include "coll/coll.h"

/* A group of ranks of a communicator: member i is rank map[i] (map NULL:
 * rank i); idx is this process's index (-1: not a member); root an index. */
typedef struct {
    int size, idx, root;
    const int *map;
} coll_group_t;

/* The whole communicator, rooted at root. */
static inline coll_group_t coll_group_all(const mpi_comm_t *c, int root)
{
    coll_group_t g = {coll_size(c), coll_rank(c), root, NULL};
    return g;
}

static inline dt_type_t *coll_byte(void)
{
    return dt_builtin(DT_BYTE);
}

/* ---------------------------------------------------------------- two ranks, no schedule */
/* coll/pair.c: the blocking barrier and allreduce of two ranks as one
 * exchange (the direct runs of the dissemination barrier and of recursive
 * doubling); the allreduce for contiguous data up to COLL_PAIR_MAX bytes. */
enum { COLL_PAIR_MAX = 2048 };
canal_status_t coll_pair_barrier(const coll_args_t *a);
canal_status_t coll_pair_allreduce(const coll_args_t *a);
int coll_pair_allreduce_usable(const coll_args_t *a);
/* coll/sched.c: c's two requests for coll/pair.c (NULL: no memory), and
 * in *tag the next tag of c's collective sequence for a call of `kind`
 * (taken when not NULL). */
adi_request_t **coll_comm_pair_reqs(mpi_comm_t *c, coll_kind_t kind, int *tag);
/* coll/pair.c: the blocking linear gather(v) and scatter(v) without a
 * schedule, for blocks of up to COLL_PAIR_MAX bytes on up to
 * COLL_DIRECT_MAX_RANKS ranks (coll.h; the direct runs of the linear
 * algorithms). */
canal_status_t coll_direct_gather(const coll_args_t *a);
canal_status_t coll_direct_scatter(const coll_args_t *a);
int coll_direct_rooted_usable(const coll_args_t *a);
/* coll/sched.c: c's requests for coll/pair.c's linear calls, at least
 * nrecv receives in *recv and nsend sends in *send (kept by c, reused call
 * after call); CANAL_ERR_NOMEM without memory. */
canal_status_t coll_comm_direct_reqs(mpi_comm_t *c, int nrecv, int nsend, adi_request_t ***recv,
                                     adi_request_t ***send);
/* (the call's tag: coll_comm_take_tag, below) */
/* coll/sched.c: coll_copy_now's general case, a schedule's copy act. */
canal_status_t coll_copy_acted(const void *src, size_t scount, dt_type_t *sdt, void *dst,
                               size_t dcount, dt_type_t *ddt);
/* Copy (src, scount, sdt) into (dst, dcount, ddt) now, as a schedule's copy
 * act does (the smaller size; sizes that differ are an error; nothing when
 * either side is empty). Two contiguous sides of one size are a memmove
 * here, inline: a linear root's own block (np4 8 B, callgrind: 92 -> about
 * 40 instructions with the call). */
static inline canal_status_t coll_copy_now(const void *src, size_t scount, dt_type_t *sdt,
                                           void *dst, size_t dcount, dt_type_t *ddt)
{
    if (dt_is_contig(sdt) && dt_is_contig(ddt)) {
        size_t n = scount * dt_contig_size(sdt);
        if (n == dcount * dt_contig_size(ddt)) {
            if (n > 0)
                memmove((char *)dst + dt_contig_lb(ddt), (const char *)src + dt_contig_lb(sdt), n);
            return CANAL_OK;
        }
    }
    return coll_copy_acted(src, scount, sdt, dst, dcount, ddt);
}

/* ---------------------------------------------------------------- mismatched calls */
/* A collective's tag: the communicator's call sequence above the low
 * COLL_TAG_KIND_BITS bits, which hold the collective's kind, so that
 * messages of different collectives never pair up. coll/watch.c's messages:
 * COLL_TAG_ABORT in the kind bits, the notice of a mismatch in that call;
 * and the tag COLL_TAG_POKE (call 0, kind bits 32: no collective's), the
 * poke of a rank that waits long, whose call and kind are its data. */
enum { COLL_TAG_KIND_BITS = 6, COLL_TAG_POKE = 32, COLL_TAG_ABORT = 63 };
/* coll/sched.c: s records a call of `kind` (its tag's kind bits). */
void coll_sched_set_kind(coll_sched_t *s, coll_kind_t kind);
/* coll/watch.c: a blocking wait until pred(arg) for the call of tag `tag`
 * on c that fails with a mismatch (CANAL_ERR_MISMATCH, naming both calls)
 * when a rank of c called another collective there. hooks (may be NULL):
 * poke is called at each look once the wait has lasted a second: it pokes
 * (coll_watch_poke) the peers whose messages the wait still expects;
 * receives says whether the waiting call receives from rank `peer` of
 * intercommunicator c at all (a message of the call from one it does not
 * means that the two groups disagree about the root); sends whether it
 * sends to it (a poke of the call, same kind, from one it does not: the
 * remote rank waits for a message this call never sends, the same
 * disagreement, e.g. both groups name a remote root). */
typedef struct {
    void (*poke)(void *arg);
    int (*receives)(void *arg, mpi_comm_t *c, int peer);
    int (*sends)(void *arg, mpi_comm_t *c, int peer);
} coll_watch_hooks_t;
enum { COLL_WATCH_FIRST_US = 20000 };
canal_status_t coll_watch_wait_late(mpi_comm_t *c, int tag, int (*pred)(void *arg), void *arg,
                                    const coll_watch_hooks_t *hooks);
/* (inline: a wait that ends within COLL_WATCH_FIRST_US is the device's
 * wait and nothing else; the watch, out of line, only after) */
static inline canal_status_t coll_watch_wait(mpi_comm_t *c, int tag, int (*pred)(void *arg),
                                             void *arg, const coll_watch_hooks_t *hooks)
{
    if (adi_wait_until_for(pred, arg, COLL_WATCH_FIRST_US) == CANAL_OK)
        return CANAL_OK;
    return coll_watch_wait_late(c, tag, pred, arg, hooks);
}
void coll_watch_poke(mpi_comm_t *c, int tag, int peer);
/* The same from a send of the call (across an intercommunicator) that
 * waits for its receiver, remote rank `peer`: a poke that only a rank
 * which took no part in the call answers (coll_sched_set_absent's
 * record); any other rank takes it as nothing (a slow receiver). */
void coll_watch_poke_receiver(mpi_comm_t *c, int tag, int peer);
/* c's collective state was just made (coll_comm_state: its first
 * collective on this rank): take unread the notes (pokes, STEP_NOTEs and
 * mismatch notices: tags below limit) already queued on its contexts
 * ahead of anything else from their senders, which are a freed
 * communicator's that had the same ids (sent just as this rank freed it)
 * or c's own from a rank that waits long in a call this rank has not
 * reached (it pokes again every second) or found a mismatch of two other
 * ranks' calls before this rank made any (an erroneous program). */
void coll_watch_fresh(mpi_comm_t *c, int limit);
/* This rank takes no part in s's call (an intercommunicator's rooted call
 * with MPI_PROC_NULL): when it ends, c keeps a record of it, and a poke
 * of that call that reaches this rank later (a remote rank waits for it:
 * the groups disagree about the root) is answered at its next look or
 * drain, on any communicator (coll/watch.c). */
void coll_sched_set_absent(coll_sched_t *s);
/* This rank's part across an intercommunicator in s's call is one send,
 * to remote rank `peer` (an MPI_Reduce's leader of the non-root group):
 * when it ends, c keeps a record of it (the last such call), and a poke of
 * that call from another remote rank (which waits for this rank's message,
 * sent elsewhere: the groups disagree about the root) is answered as
 * above. */
void coll_sched_set_sent_only(coll_sched_t *s, int peer);
/* Whether call `base` of c is that record's and remote rank `from` is not
 * the one it sent to; *kind: the call's kind. */
int coll_comm_sent_elsewhere(mpi_comm_t *c, int base, int from, int *kind);
/* Whether this rank took no part in call `base` of c (the last run of such
 * calls); *kind: that call's kind when it is the last, else -1. */
int coll_comm_was_absent(mpi_comm_t *c, int base, int *kind);
/* The intercommunicator of the last call this rank took no part in, held
 * (a reference: it is not destroyed until coll_absent_drop), or NULL
 * (none, it is c, or its free is under way). */
mpi_comm_t *coll_absent_hold(mpi_comm_t *c);
void coll_absent_drop(mpi_comm_t *a);
/* The blocking call of tag `tag` on c ended with st: when that is a size
 * mismatch (CANAL_ERR_TRUNCATE, CANAL_ERR_MISMATCH of a message), send the
 * notice of that call to every other rank, whose waits in it stop at their
 * next look (a rank whose algorithm waits for a second message from this
 * one would wait for ever: sock, MPI_Allreduce of 4 ints against 1024). */
void coll_watch_failed(mpi_comm_t *c, int tag, canal_status_t st);
/* One look of coll_watch_wait's, by a wait that has waited `step` at a
 * time (coll_watch_step) and has not ended (pred is only read for a
 * block's call): the mismatch, or CANAL_OK. */
canal_status_t coll_watch_look(mpi_comm_t *c, int tag, int (*pred)(void *arg), void *arg,
                               const coll_watch_hooks_t *hooks, long long step);
/* The wait of a call of `kind` on the node's shared block (coll/shm.c),
 * which sends nothing and takes no tag: it fails with a mismatch when a
 * message or a poke of the call that c's next tag would number comes (a
 * rank called a collective by messages there) and pred(arg) still does not
 * hold, or on a notice of that call; it sends the notice in turn. */
enum { COLL_WATCH_BLOCK = 1 << COLL_TAG_KIND_BITS };
canal_status_t coll_watch_wait_block_late(mpi_comm_t *c, coll_kind_t kind,
                                          int (*pred)(void *arg), void *arg);
/* c is out of step after this rank's call of `kind` failed with a
 * mismatch where the others may not have made the same call (coll/shm.c's
 * making of the block): mark it (coll_comm_step_out) and poke every other
 * rank with the note, once. */
void coll_watch_step_out(mpi_comm_t *c, coll_kind_t kind);
static inline canal_status_t coll_watch_wait_block(mpi_comm_t *c, coll_kind_t kind,
                                                   int (*pred)(void *arg), void *arg)
{
    if (adi_wait_until_for(pred, arg, COLL_WATCH_FIRST_US) == CANAL_OK)
        return CANAL_OK;
    return coll_watch_wait_block_late(c, kind, pred, arg);
}
/* coll/sched.c: take the next tag of c's collective sequence for a call
 * of `kind` (-1 when c's state cannot be made); and coll_sched_run with
 * tag `tag` for every message (tag < 0: the next of c's sequence, as
 * coll_sched_run), so that several runs can make one call (coll/shm.c's
 * making of the block, which its first call's kind tags: a rank that
 * makes it against another collective meets a mismatch, never the other
 * call's messages). */
int coll_comm_take_tag(mpi_comm_t *c, coll_kind_t kind);
/* The same, -1 also when c is out of step (coll_comm_step_check's case,
 * without its message): one look at c's state for a call that moves
 * nothing (coll_skip_call). */
int coll_comm_take_tag_in_step(mpi_comm_t *c, coll_kind_t kind);
canal_status_t coll_sched_run_as(const coll_args_t *a, coll_record_fn record, int tag);
/* coll/sched.c: the call number (kind bits 0) c's next collective tag
 * will have, without taking it; -1 when c's state cannot be made. */
int coll_comm_peek_tag(mpi_comm_t *c);
/* coll/sched.c: how many tags c's collective sequence has handed out (the
 * same count on every rank of c) and the kind of the last one (*last_kind,
 * -1: none yet), for coll/shm.c's barrier, which takes none. */
unsigned coll_comm_tags_taken(mpi_comm_t *c, int *last_kind);
/* At every 64th call (by tag), discard the pokes that reached this rank
 * (peers that waited long for its messages): called at the end of each
 * blocking schedule. */
void coll_watch_drain(mpi_comm_t *c, int tag);
/* c is being freed: take every message still queued on its collective
 * context below tag `limit` (mpi/comm.c's from there on), and when one is a
 * collective's, warn naming it (the ranks called different collectives: a
 * rank that only sends, as a bcast's root against a reduce to it, returned
 * without an error; a communicator made later may take the context). */
void coll_watch_leftovers(mpi_comm_t *c, int limit);
/* The selection's last answer on a communicator for the barrier (slot 0),
 * the allreduce (slot 1) or gather, gatherv, scatter, scatterv (slots 2-5,
 * COLL_CHOICE_ROOTED + 0..3), and what it depended on besides the
 * communicator (coll/select.c's coll_run_direct): blocking loops of the
 * same call do not walk the table each time. */
enum { COLL_CHOICE_ROOTED = 2, COLL_CHOICE_SLOTS = 6 };
typedef struct {
    int valid, commutative;
    /* (rooted slots) the remembered algorithm runs a non-root's part
     * directly on this communicator (coll/pair.c's linear leaf: an
     * intracommunicator of at most COLL_DIRECT_MAX_RANKS ranks), for blocks
     * of up to COLL_PAIR_MAX bytes: coll_leaf_direct's test */
    int leaf;
    size_t bytes;
    MPI_Count count;
    const coll_algo_t *algo;
} coll_choice_t;
coll_choice_t *coll_comm_choice(mpi_comm_t *c, int slot);
/* The choice slot of the rooted kind k (gather, gatherv, scatter, scatterv). */
static inline int coll_rooted_slot(coll_kind_t k)
{
    return COLL_CHOICE_ROOTED + (k == COLL_GATHER ? 0 : k == COLL_GATHERV ? 1 : k == COLL_SCATTER ? 2 : 3);
}
/* coll/sched.c: the next tag of c's sequence for a non-root's call of the
 * rooted kind k when c's remembered choice for k says the leaf runs
 * directly (coll_choice_t.leaf; one look at c's state), else -1 with no
 * tag taken (no choice yet, another algorithm, out of step, no state). */
int coll_comm_leaf_tag(mpi_comm_t *c, coll_kind_t k);
/* coll/sched.c: c is out of step (a call on the node's block met a
 * collective by messages: its ranks disagree on how many calls c had; rank
 * `rank` said so of its call of `kind`): from now on every collective on c
 * fails at once with a mismatch saying so (the schedule's creation; no
 * block, no direct call, no replay: the mark is set in the state those
 * paths read anyway, so a correct call tests nothing more). 1 when c was
 * not out of step before. */
int coll_comm_step_out(mpi_comm_t *c, int rank, int kind);
/* CANAL_OK, or the error of c being out of step (the message says so). */
canal_status_t coll_comm_step_check(mpi_comm_t *c);

/* ---------------------------------------------------------------- one node, shared block */
/* coll/shm.c: the blocking barrier, the allreduce of up to COLL_SHM_MAX
 * bytes and the bcast of up to COLL_SHM_BCAST_MAX on a communicator whose
 * ranks are all on this node, through a block of shared memory made at its
 * (COLL_SHM_AFTER + 1)-th blocking barrier, allreduce or bcast. */
enum { COLL_SHM_MAX = 512, COLL_SHM_AFTER = 2, COLL_SHM_BCAST_MAX = 64 * 1024 };
/* allgather and alltoall on the block: up to this many bytes a rank
 * receives (the slots' size; the reductions keep COLL_SHM_MAX) */
enum { COLL_SHM_GATHER_MAX = 2048 };
typedef struct {
    int state;      /* 0: counting calls, 1: block in use, -1: never */
    unsigned calls; /* blocking barriers, allreduces and bcasts so far */
    struct coll_shm *blk;
} coll_shm_state_t;
/* Run a blocking barrier on intracommunicator c (2 ranks or more), or the
 * blocking allreduce or reduce_scatter(_block) a, there if the block serves
 * it (an allreduce of 32 KiB or more on more than 2 ranks: on the ring's
 * area): *ran set, its error returned. */
canal_status_t coll_shm_barrier(mpi_comm_t *c, int *ran);
canal_status_t coll_shm_allreduce(const coll_args_t *a, int *ran);
/* The blocking reduce a of 256 KiB or more on more than 4 ranks there (on
 * the ring's area), likewise. */
canal_status_t coll_shm_reduce(const coll_args_t *a, int *ran);
canal_status_t coll_shm_reduce_scatter(const coll_args_t *a, int *ran);
/* The blocking bcast a there, likewise: up to COLL_SHM_BCAST_MAX bytes
 * through the block, above through the ring made for them (CANAL_COLL_SHM_RING). */
canal_status_t coll_shm_bcast(const coll_args_t *a, int *ran);
/* The blocking allgather or alltoall a whose ranks each receive at most
 * COLL_SHM_MAX bytes there, likewise. */
canal_status_t coll_shm_gather_all(const coll_args_t *a, int *ran);
void coll_shm_free(coll_shm_state_t *ss);
/* coll/sched.c: c's block state (NULL: no memory). */
coll_shm_state_t *coll_comm_shm(mpi_comm_t *c);
/* Every rank of intracommunicator c is a process of this job on this node
 * (and CANAL_COLL_FAKE_NODES does not say otherwise): the same on every
 * rank of c. */
int coll_comm_on_this_node(mpi_comm_t *c);

/* ---------------------------------------------------------------- building blocks */
/* Broadcast (buf, count, dt) from g's root along a tree (binomial,
 * k-nomial or linear) walked straight. */
void coll_rec_bcast_tree(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, const coll_topo_t *topo,
                         int radix, void *buf, size_t count, dt_type_t *dt);
/* Reduce along a tree walked in reverse: every member contributes `in`
 * (count elements of dt); the result lands in `out` at g's root (out may be
 * equal to in there). Non-commutative operations need g rooted at index 0
 * with members in rank order (the caller forwards to the real root). */
void coll_rec_reduce_tree(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, const coll_topo_t *topo,
                          int radix, const void *in, void *out, size_t count, dt_type_t *dt,
                          MPI_Datatype dth, MPI_Op op, int commutative);
/* Allreduce by recursive doubling over g; buf holds this member's
 * contribution and receives the result. Members must be in rank order for
 * non-commutative operations. */
void coll_rec_allreduce_recdbl(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, void *buf,
                               size_t count, dt_type_t *dt, MPI_Datatype dth, MPI_Op op,
                               int commutative);
/* Barrier by dissemination over g. */
void coll_rec_barrier_dissem(coll_sched_t *s, mpi_comm_t *c, coll_group_t g);
/* Zero-byte notifications along a tree: reverse (gather of arrivals) or
 * straight (release). */
void coll_rec_signal_tree(coll_sched_t *s, mpi_comm_t *c, coll_group_t g, coll_dir_t dir);

/* Node-aware groups of c for a collective rooted at root (-1: none):
 * leaders (one per node; the root leads its node) and the members of this
 * process's node, leader first. Arrays live in s. Returns 0 when c is on
 * one node (or memory ran out). */
int coll_node_groups(coll_sched_t *s, mpi_comm_t *c, int root, coll_group_t *leaders,
                     coll_group_t *members);

/* Blocks of an element vector split in n nearly equal parts: block i is
 * elements [coll_split_off(total, n, i), coll_split_off(total, n, i + 1)). */
static inline size_t coll_split_off(size_t total, int n, int i)
{
    size_t q = total / (size_t)n, r = total % (size_t)n;
    return (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
}

/* ---------------------------------------------------------------- algorithms */
extern const coll_algo_t coll_barrier_dissemination, coll_barrier_tree, coll_barrier_node,
    coll_barrier_linear;
extern const coll_algo_t coll_bcast_binomial, coll_bcast_knomial, coll_bcast_linear,
    coll_bcast_scatter_ring, coll_bcast_node;
extern const coll_algo_t coll_reduce_binomial, coll_reduce_knomial, coll_reduce_linear,
    coll_reduce_node;
extern const coll_algo_t coll_gather_binomial, coll_gather_linear, coll_gatherv_linear;
extern const coll_algo_t coll_scatter_binomial, coll_scatter_linear, coll_scatterv_linear;
extern const coll_algo_t coll_allreduce_recdbl, coll_allreduce_rabenseifner, coll_allreduce_ring,
    coll_allreduce_reduce_bcast, coll_allreduce_node, coll_allreduce_linear,
    coll_allreduce_linear_blocks;
extern const coll_algo_t coll_allgather_ring, coll_allgather_recdbl, coll_allgather_bruck,
    coll_allgather_gather_bcast, coll_allgather_linear;
extern const coll_algo_t coll_allgatherv_ring, coll_allgatherv_recdbl, coll_allgatherv_linear;
extern const coll_algo_t coll_alltoall_pairwise, coll_alltoall_linear, coll_alltoall_bruck;
extern const coll_algo_t coll_alltoallv_pairwise, coll_alltoallv_linear;
extern const coll_algo_t coll_alltoallw_pairwise, coll_alltoallw_linear;
extern const coll_algo_t coll_reduce_scatter_halving, coll_reduce_scatter_ring,
    coll_reduce_scatter_reduce_scatterv, coll_reduce_scatter_linear;
extern const coll_algo_t coll_reduce_scatter_block_halving, coll_reduce_scatter_block_ring,
    coll_reduce_scatter_block_reduce_scatterv, coll_reduce_scatter_block_linear;
extern const coll_algo_t coll_scan_recdbl, coll_scan_linear, coll_exscan_recdbl, coll_exscan_linear;
extern const coll_algo_t coll_neighbor_allgather_linear, coll_neighbor_allgatherv_linear,
    coll_neighbor_alltoall_linear, coll_neighbor_alltoallv_linear, coll_neighbor_alltoallw_linear;

/* Intercommunicators (coll/inter.c): record the collective described by a
 * on an intercommunicator (coll_is_inter(a->comm)). */
canal_status_t coll_record_inter(coll_sched_t *s, const coll_args_t *a);

#endif
