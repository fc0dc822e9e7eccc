/*
 * Blocking barrier, small allreduce and bcast through a block of shared memory
 * that the ranks of a communicator on one node map together, instead of
 * messages. The block holds one cache line per rank (the number of
 * blocking calls the rank has entered, and where its last failed wait
 * says why), for the allreduce two slots per rank for contributions
 * of up to COLL_SHM_MAX bytes (the slots are COLL_SHM_GATHER_MAX long, for
 * the allgather and alltoall), used by call parity (up to 8 bytes: in the
 * rank's line itself, one cache line to fetch per rank), and two areas of
 * COLL_SHM_BCAST_MAX bytes for a bcast's message, by parity. Every rank also
 * writes what its call is (its kind, a bcast's root, bytes), so that ranks
 * whose calls do not match all fail with a mismatch, as on the message
 * path.
 *
 * - Barrier: a rank bumps its sequence and waits until every other
 *   rank's has reached it. On a node with more ranks than CPUs (and more
 *   than 2 ranks), rank 0 instead waits for all the others and then
 *   bumps its own, which is what they wait for: rank 0 leaves first, as
 *   from the linear barrier of messages, so that a rooted collective
 *   after the barrier (IMB's bcast) finds the root's message at once
 *   rather than waiting for the root to be scheduled. After a gather(v)
 *   or reduce, rank 0 leaves last instead (gather_follows): it releases
 *   the others and waits until each says it left (its line of the `left`
 *   area, after the bcast areas), so that the root of a loop of gathers
 *   and barriers finds their blocks sent when it leaves.
 * - Allreduce: a rank writes its contribution (packed) to its slot of the
 *   call's parity, bumps its sequence, waits for every other rank's (never
 *   rank 0's gather and release: on an oversubscribed node that is a second
 *   scheduling hop after the last entry), and
 *   reduces every slot in rank order, x0 op (x1 op (... op xn-1)), so
 *   every rank computes the same bits for any operation, commutative or
 *   not. A rank reaches the next call of the same parity only after every
 *   rank entered the call in between, that is after every rank finished
 *   reading this call's slots.
 * - Reduce_scatter(_block) of a vector of up to COLL_SHM_MAX bytes: the
 *   allreduce into a scratch vector, then this rank's block to recvbuf.
 * - Allgather and alltoall of up to COLL_SHM_GATHER_MAX bytes a rank receives: the
 *   allreduce's steps without the reduction; each rank copies the blocks
 *   out of every slot (alltoall: its own block of each).
 * - Bcast of up to COLL_SHM_BCAST_MAX bytes: the root packs the message into
 *   the area of the call's parity, releases its sequence and leaves; every
 *   other rank enters (its sequence, so that a rank in another call of the
 *   block sees it and a mismatch is found), waits for the root's, checks
 *   the root's call against its own, and copies the message out. Above
 *   SHM_BC_CHUNK bytes the root publishes each piece as it writes it
 *   (bc_part in its line), and a receiver with a contiguous buffer copies
 *   the pieces out as they come; while the root is writing, it watches
 *   the root's line alone for a bounded time, even when oversubscribed
 *   (arrived_piece). The root waits for nobody (on an oversubscribed node
 *   it no longer waits for each receiver to be scheduled and pull, as the
 *   message path's root does: IMB's np8 Bcast of 64 KiB).
 * - Bcast above COLL_SHM_BCAST_MAX bytes: through a ring of SHM_RING_BYTES in a
 *   segment of its own, made at the first such call (bcast_ring): the root
 *   copies the message in a piece at a time, waiting for room only where a
 *   rank has not yet taken what the ring holds, and the others copy the
 *   pieces out as they come.
 * - Allreduce of SHM_AR_MIN bytes or more on more than 2 ranks, reduce of
 *   SHM_REDUCE_MIN or more on more than 4: on the ring's area (reduce_big),
 *   in rounds: every rank copies its part in, reduces its 1/n of it across
 *   the ranks' slots, and copies the result out (a reduce: the root alone).
 * - Ranks stay at most one call apart on the barrier and the allreduce
 *   (each waits for all), which is what makes two parities enough. A bcast
 *   lets a rank leave before the others entered; so before a call writes
 *   anything another call also uses, it makes sure every rank entered the
 *   call after that one, and so finished reading it (settle()): for a
 *   contribution or a bcast's message (by parity) the previous call, for
 *   the call's kind (what[], by call number modulo 4) the third before.
 *   Nothing to wait for after a barrier or an allreduce; in IMB's loop
 *   (bcast, barrier, bcast, ...) nothing either, as the barrier after a
 *   bcast writes only its kind.
 * - Waiting is the device's (adi_wait_until): other traffic progresses and
 *   oversubscribed processes yield and sleep. Where the ranks are not
 *   oversubscribed, a rank first watches the awaited line alone for up to
 *   SHM_SPIN loads (a pause each): the device's every poll walks the
 *   channels between two looks at it, which at 2 ranks far added about
 *   0.05 us to each barrier and small allreduce. A rank whose peer the
 *   device lost, or whose communicator was revoked, stops with the error
 *   coll/pair.c returns and writes it in its line, so the ranks waiting
 *   for it stop with the same error instead of waiting forever.
 *   The wait is watched (coll/watch.c): a rank of the communicator that
 *   called a collective by messages instead sends a message or a poke of
 *   the call number the communicator's next tag has, which the block's
 *   calls never take, and every rank that waits fails with a mismatch.
 *
 * The block is made lazily and collectively at the communicator's
 * (COLL_SHM_AFTER + 1)-th blocking barrier, allreduce or bcast, so one-off
 * communicators never pay for it: rank 0 creates the segment
 * (common/shmseg.h), a broadcast passes its name, every rank attaches, an
 * allreduce tells whether all did, and rank 0 unlinks the name. Every
 * decision is taken from what all ranks agree on (the communicator, the
 * count of blocking calls on it, count * type size), never from local
 * state, so all ranks take the same path for each call. The block goes
 * with the communicator (coll_comm_release). Called by coll/select.c.
 */
#include "coll/coll_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/shmseg.h"

enum { SHM_LINE = 64, SHM_INLINE = 8, SHM_MAX_RANKS = 64, SHM_SPIN = 256 };
/* A rank's slot of a parity: the larger of the reductions' and the
 * allgather's and alltoall's limits. */
enum { SLOT = (int)COLL_SHM_GATHER_MAX > (int)COLL_SHM_MAX ? (int)COLL_SHM_GATHER_MAX : (int)COLL_SHM_MAX };

/* A bcast's message above SHM_BC_CHUNK bytes is written and read in pieces
 * of that size (bcast_part): the root publishes each piece as it is
 * written, and a receiver on another CPU copies it out meanwhile. np4 and
 * np8 IMB Bcast of 64 KiB on 2 CPUs, alternated: 4.8-5.4 and 3.5-3.8 us
 * against 7.4-9.0 and 8.9-10.4 whole (Open MPI 7.2-8.6, 13.5-14.8); 16 and
 * 32 KiB pieces alike, 4 KiB slower (doc/bench.md, stop 35). */
enum { SHM_BC_CHUNK = 16 * 1024, SHM_BC_SHIFT = 17 };
_Static_assert(COLL_SHM_BCAST_MAX < 1 << SHM_BC_SHIFT, "a bcast's bytes fit bc_part");

/* A bcast above COLL_SHM_BCAST_MAX bytes streams through a ring of
 * SHM_RING_BYTES, in a segment of its own made at the communicator's first
 * such call (ring_make): the root copies the message in once, a piece of
 * SHM_RING_PIECE at a time, and each receiver copies it out, where the
 * message path had every receiver read the root's buffer with CMA, which
 * moves 10-12 GB/s here against memcpy's 40-45 (np8 IMB Bcast 1-4 MiB,
 * doc/bench.md "Stop 45 (lead)"). */
enum { SHM_RING_BYTES = 4 * 1024 * 1024, SHM_RING_PIECE = 64 * 1024 };
/* An allreduce of at least SHM_AR_MIN bytes of a predefined datatype uses
 * the ring's area (allreduce_big). */
enum { SHM_AR_MIN = 32 * 1024 };
/* An MPI_Reduce, from SHM_REDUCE_MIN bytes on more than 4 ranks: np4 IMB
 * Reduce 32-128 KiB was 1.3-1.6x Open MPI's there (the binomial tree by
 * messages 0.6-0.7x), np8 128 KiB level with the tree, 256 KiB-1 MiB
 * 0.35-0.5x of it (doc/bench.md, stop 45). */
enum { SHM_REDUCE_MIN = 256 * 1024 };

/* A call as the line says it (what[]): its kind, its root (a bcast's) and
 * its bytes, so that ranks whose calls differ see it; a root_first barrier
 * also says whether this rank will say it left (WHAT_LAST: gather_follows
 * answered 1 here), which rank 0 reads before it waits for that. */
enum { WHAT_ROOT_SHIFT = 20, WHAT_KIND_SHIFT = 26, WHAT_LAST = 1 << (WHAT_ROOT_SHIFT - 1) };
/* A what's bytes for a bcast on the ring, which the root's ring line says */
enum { WHAT_RING = WHAT_LAST - 1 };
_Static_assert((int)COLL_SHM_BCAST_MAX < (int)WHAT_RING,
               "a bcast of the block is no bcast of the ring");

/* One rank's cache line. fail_seq: the call whose wait failed here (0:
 * none), with the error and the job rank it was about. */
typedef struct {
    uint64_t seq;
    uint32_t what[4]; /* the call of each seq % 4: what_of(), for mismatches */
    uint64_t fail_seq;
    /* contributions of up to SHM_INLINE bytes, by parity: the rank's line
     * carries them, one cache line to fetch instead of two */
    _Alignas(8) char small[2][SHM_INLINE];
    int32_t fail_status, fail_job;
    /* a bcast's root while it writes the message: seq << SHM_BC_SHIFT | the
     * bytes written so far (bcast_part) */
    uint64_t bc_part;
} shm_line_t;
_Static_assert(sizeof(shm_line_t) == SHM_LINE, "one cache line per rank");

/* The ring's segment: a head, a ring line per rank, the ring. The stream
 * is the bytes of every bcast on the ring so far, one after another; a
 * byte's place in the ring is its position in the stream modulo
 * SHM_RING_BYTES. One root writes at a time (the root of a call has read
 * the call before it whole, so its root wrote all of it; only a rank that
 * took none of a call, an erroneous program's truncation, may start the
 * next while that root still writes, past its end), and says in the head
 * what it waits for when it waits for room (of two such roots, one may
 * miss its ring and sleep out a channel's timeout slice). */
typedef struct {
    uint64_t want; /* the root waiting for room: the rd it waits for from every rank */
    int32_t waiter; /* that root */
    char pad[SHM_LINE - sizeof(uint64_t) - sizeof(int32_t)];
} ring_head_t;
_Static_assert(sizeof(ring_head_t) == SHM_LINE, "one cache line");

/* A root's call, by call number modulo 4, as what[] (a root may be a few
 * calls ahead of a receiver: a bcast's root waits for nobody; settle()'s
 * lag 3 keeps a call's entry until every rank entered the third after it) */
typedef struct {
    uint64_t call;  /* the call these are of */
    uint64_t start; /* where its message starts in the stream (reduce_big: 1 when
                       this rank's datatype is predefined) */
    uint64_t bytes; /* its bytes (its what[] says WHAT_RING) */
} ring_call_t;

typedef struct {
    uint64_t wr; /* as a root: the stream written up to here (its calls' pieces) */
    uint64_t rd; /* the stream this rank is done with up to here */
    ring_call_t calls[4];
    uint64_t ar; /* the large allreduce's steps this rank has made (allreduce_big) */
    char pad[2 * SHM_LINE - 3 * sizeof(uint64_t) - 4 * sizeof(ring_call_t)];
} ring_line_t;
_Static_assert(sizeof(ring_line_t) == 2 * SHM_LINE, "two cache lines per rank");

/* The last barrier a rank left, where rank 0 leaves last (gather_follows):
 * a line of its own, which rank 0 alone reads. */
typedef struct {
    uint64_t seq;
    char pad[SHM_LINE - sizeof(uint64_t)];
} shm_left_t;

struct coll_shm {
    char *seg;
    size_t len;
    shm_line_t *lines; /* one per rank */
    char *slots;       /* [parity][rank][SLOT] */
    char *bcast;       /* [parity][COLL_SHM_BCAST_MAX]: a bcast's message */
    shm_left_t *left;  /* one per rank */
    int n, me, ctx;
    int root_first; /* a barrier: rank 0 gathers and releases (an allreduce: all wait for all) */
    int spin;       /* not oversubscribed: look at the line alone a while first */
    int root_last;  /* CANAL_COLL_SHM_ROOT_LAST: gather_follows may answer 1 */
    uint64_t bar_seq;  /* the call of this rank's last root_first barrier */
    unsigned bar_tags; /* coll_comm_tags_taken then */
    int piece_pause_us; /* CANAL_FAULT_BCAST_PIECE_US (testing) */
    int fault_not_last; /* CANAL_FAULT_SHM_NOT_LAST (testing): this rank's gather_follows says 0 */
    uint64_t seq;    /* blocking calls this rank entered on the block */
    uint64_t all_in; /* the last call every rank is known to have entered */
    int *jobs;      /* job rank of each rank, for the device's losses */
    /* the bcasts above COLL_SHM_BCAST_MAX: ring_make */
    int ring_state;         /* 0: not made yet, 1: made, -1: never (by messages) */
    char *ring_seg;         /* ring_bytes(n) mapped */
    ring_head_t *ring_head;
    ring_line_t *ring_lines; /* one per rank */
    char *ring;             /* SHM_RING_BYTES */
    uint64_t ring_room;     /* as a root: the stream may be written up to here unlooked */
    uint64_t ar_step;       /* the large allreduces' steps so far (the same on every rank) */
    uint64_t ar_round;      /* and their rounds (which half of the ring each uses) */
};

static size_t seg_bytes(int n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (size_t)n * SHM_LINE + 2 * (size_t)n * SLOT + 2 * (size_t)COLL_SHM_BCAST_MAX +
                 (size_t)n * sizeof(shm_left_t);
    return (len + page - 1) & ~(page - 1);
}

static size_t ring_bytes(int n)
{
    return sizeof(ring_head_t) + (size_t)n * sizeof(ring_line_t) + SHM_RING_BYTES;
}

void coll_shm_free(coll_shm_state_t *ss)
{
    if (ss->blk != NULL) {
        if (ss->blk->ring_seg != NULL)
            munmap(ss->blk->ring_seg, ring_bytes(ss->blk->n));
        munmap(ss->blk->seg, ss->blk->len);
        free(ss->blk->jobs);
        free(ss->blk);
        ss->blk = NULL;
    }
}

/* Map a segment of len bytes that every rank of c maps, collectively, in
 * a call of `kind`: rank 0 creates it, a bcast by messages passes its name,
 * every rank attaches, an allreduce tells whether all did (own_ok: this
 * rank's other needs, such as memory for its state, are met), and rank 0
 * unlinks the name. *seg_out: the mapping, or NULL at every rank when any
 * could not map it. Its bcast and allreduce take one tag of c's sequence,
 * with kind's kind bits (messages of the same pair of ranks on one tag
 * match in order): a rank that makes a segment while another calls a
 * collective by messages (a bcast, an allreduce over the block's limit: an
 * erroneous program) meets a mismatch naming both calls, not the other
 * call's messages; c is then out of step (the others did not make it:
 * coll_watch_step_out). */
static canal_status_t seg_make(mpi_comm_t *c, coll_kind_t kind, size_t len, int own_ok,
                               char **seg_out)
{
    int tag = coll_comm_take_tag(c, kind);
    int me = coll_rank(c), ok, all_ok = 0;
    char name[COMMON_SHM_NAME_MAX] = "";
    char *seg = NULL;
    canal_status_t st;
    coll_args_t bc = {.kind = COLL_BCAST,
                      .comm = c,
                      .recvbuf = name,
                      .recvcount = sizeof name,
                      .recvtype = MPI_BYTE,
                      .rdt = coll_byte(),
                      .commutative = 1,
                      .root = 0};
    coll_args_t ar = {.kind = COLL_ALLREDUCE,
                      .comm = c,
                      .sendbuf = &ok,
                      .recvbuf = &all_ok,
                      .recvcount = 1,
                      .recvtype = MPI_INT,
                      .rdt = coll_dt_get(MPI_INT),
                      .op = MPI_MIN,
                      .commutative = 1};

    *seg_out = NULL;
    if (tag < 0)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a collective's state");
    if (me == 0)
        seg = common_shm_create("coll", len, name);
    st = coll_sched_run_as(&bc, coll_record, tag);
    if (st >= 0 && me != 0 && name[0] != '\0')
        seg = common_shm_attach(name, len);
    ok = st >= 0 && seg != NULL && own_ok;
    if (st >= 0 && name[0] != '\0')
        st = coll_sched_run_as(&ar, coll_record, tag);
    if (me == 0)
        common_shm_unlink(name); /* everyone who could attach has attached */
    if (st == CANAL_ERR_MISMATCH && coll_comm_step_check(c) >= 0)
        coll_watch_step_out(c, kind);
    if (st < 0 || !ok || !all_ok) {
        if (seg != NULL)
            munmap(seg, len);
        return st;
    }
    *seg_out = seg;
    return CANAL_OK;
}

/* Make the block, collectively, in a call of `kind` (seg_make). On success
 * ss->state is 1; when any rank could not map it, -1 at every rank (the
 * message path from then on). */
static canal_status_t setup(mpi_comm_t *c, coll_shm_state_t *ss, coll_kind_t kind)
{
    int n = coll_size(c), me = coll_rank(c);
    size_t len = seg_bytes(n);
    char *seg;
    struct coll_shm *b = calloc(1, sizeof *b);
    canal_status_t st;

    ss->state = -1;
    if (b != NULL)
        b->jobs = malloc(sizeof(int) * (size_t)n);
    st = seg_make(c, kind, len, b != NULL && b->jobs != NULL, &seg);
    if (seg == NULL) {
        if (b != NULL)
            free(b->jobs);
        free(b);
        return st;
    }
    b->seg = seg;
    b->len = len;
    b->lines = (shm_line_t *)(void *)seg;
    b->slots = seg + (size_t)n * SHM_LINE;
    b->bcast = b->slots + 2 * (size_t)n * SLOT;
    b->left = (shm_left_t *)(void *)(b->bcast + 2 * (size_t)COLL_SHM_BCAST_MAX);
    b->n = n;
    b->me = me;
    b->ctx = coll_context(c);
    b->root_first = n > 2 && coll_comm_oversubscribed(c);
    b->spin = !coll_comm_oversubscribed(c);
    b->root_last = common_cvar_bool("COLL_SHM_ROOT_LAST");
    b->piece_pause_us = (int)common_cvar_int("FAULT_BCAST_PIECE_US");
    b->fault_not_last = (int)common_cvar_int("FAULT_SHM_NOT_LAST") == me;
    for (int r = 0; r < n; r++)
        b->jobs[r] = coll_host.comm_peer_job_rank(c, r);
    ss->blk = b;
    ss->state = 1;
    LOG_DEBUG("coll: a shared block for blocking barriers, allreduces and bcasts of %d ranks", n);
    return CANAL_OK;
}

/* ready()'s part while c is still counting calls (ss->state 0): count
 * this call of `kind`, and make the block when it is the one to. */
static __attribute__((noinline)) struct coll_shm *ready_counting(mpi_comm_t *c,
                                                                 coll_shm_state_t *ss,
                                                                 coll_kind_t kind,
                                                                 canal_status_t *st)
{
    if (!common_cvar_bool("COLL_SHM") || coll_size(c) > SHM_MAX_RANKS ||
        !coll_comm_on_this_node(c)) {
        ss->state = -1;
        return NULL;
    }
    if (++ss->calls <= COLL_SHM_AFTER)
        return NULL;
    /* (its waiters sleep in their channel: a rank that one cannot ring,
     * as under CANAL_CHANNEL=sock, would sleep out every timeout) */
    for (int r = 0; r < coll_size(c); r++) {
        int j = coll_host.comm_peer_job_rank(c, r);
        if (j != adi_job_rank() && !adi_wake_reaches(j)) {
            ss->state = -1;
            return NULL;
        }
    }
    *st = setup(c, ss, kind);
    return ss->state > 0 ? ss->blk : NULL;
}

/* c's block if this call (of `kind`) uses it; NULL (and *st CANAL_OK, or
 * the error of a failed setup) if not. (Inline: the block's calls pay no
 * call for it, and the kind, which only the making of the block uses, is
 * a constant or already in a register.) */
static inline struct coll_shm *ready(mpi_comm_t *c, coll_kind_t kind, canal_status_t *st)
{
    coll_shm_state_t *ss = coll_comm_shm(c);

    *st = CANAL_OK;
    if (ss == NULL || ss->state < 0)
        return NULL;
    if (ss->state == 0)
        return ready_counting(c, ss, kind, st);
    return ss->blk;
}

/* ---------------------------------------------------------------- waiting */
typedef struct {
    struct coll_shm *b;
    uint64_t target;
    int next, upto; /* ranks [next, upto) are still to be seen */
    canal_status_t st;
    int job;          /* the job rank the error is about, -1: none */
    uint64_t part;    /* nonzero: a rank's bc_part at least this will do too */
    int spin_left;    /* arrived_piece's loads left */
} wait_t;

/* The rank of line l has reached what w waits for. */
static inline int line_reached(const wait_t *w, const shm_line_t *l)
{
    return __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE) >= w->target ||
           (w->part != 0 && __atomic_load_n(&l->bc_part, __ATOMIC_ACQUIRE) >= w->part);
}

/* The rank of line l, which has not reached what w waits for, never will:
 * it failed, the communicator was revoked or a rank of it lost (w->st
 * says which). */
static int stopped(wait_t *w, const shm_line_t *l)
{
    struct coll_shm *b = w->b;

    /* (a rank that did not enter the call failed it, or a later one:
     * it calls in order, and failing the next overwrites fail_seq) */
    if (__atomic_load_n(&l->fail_seq, __ATOMIC_ACQUIRE) >= w->target) {
        w->st = l->fail_status; /* that rank stopped: stop for the same reason */
        w->job = l->fail_job;
        return 1;
    }
    if (adi_ctx_pair_revoked(b->ctx)) {
        w->st = CANAL_ERR_REVOKED;
        return 1;
    }
    if (__atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) != 0) {
        /* any lost rank of the communicator ends the wait, as it fails
         * every receive on the collective context: a rank waited for
         * may have left this call with that error already */
        for (int r = 0; r < b->n; r++)
            if (r != b->me && adi_peer_failed(b->jobs[r])) {
                w->st = CANAL_ERR_PEER;
                w->job = b->jobs[r];
                return 1;
            }
    }
    return 0;
}

/* Every rank of w's range has entered call w->target (left: has left it,
 * saying so in b->left, or entered a later call, or said in the call's
 * what[] that it will not say so: it decided otherwise than rank 0, and
 * waiting for it would hang), or one never will (stopped). (Inline: the
 * two predicates below are their own loops.) */
static inline __attribute__((always_inline)) int all_reached(wait_t *w, int left)
{
    struct coll_shm *b = w->b;
    for (; w->next < w->upto; w->next++) {
        shm_line_t *l = &b->lines[w->next];
        if (w->next == b->me)
            continue;
        if (!left ? line_reached(w, l)
                  : (__atomic_load_n(&b->left[w->next].seq, __ATOMIC_ACQUIRE) >= w->target ||
                     __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE) > w->target ||
                     !(l->what[w->target & 3] & WHAT_LAST)))
            continue;
        return stopped(w, l);
    }
    return 1;
}

static int arrived(void *arg)
{
    return all_reached(arg, 0);
}

/* arrived(), for rank 0's wait for the others to leave barrier w->target */
static int gone(void *arg)
{
    return all_reached(arg, 1);
}

_Static_assert((int)COLL_SHM_MAX < (int)WHAT_LAST && (int)COLL_SHM_BCAST_MAX < (int)WHAT_LAST &&
                   (int)COLL_SHM_GATHER_MAX < (int)WHAT_LAST,
               "a call's bytes fit its what");
_Static_assert(SHM_MAX_RANKS <= 1 << (WHAT_KIND_SHIFT - WHAT_ROOT_SHIFT), "a root fits its what");
_Static_assert((int)COLL_NEIGHBOR_ALLTOALLW < 1 << (32 - WHAT_KIND_SHIFT), "a kind fits its what");

static uint32_t what_of(coll_kind_t kind, int root, size_t bytes)
{
    return (uint32_t)kind << WHAT_KIND_SHIFT | (uint32_t)root << WHAT_ROOT_SHIFT | (uint32_t)bytes;
}

static coll_kind_t what_kind(uint32_t what)
{
    return (coll_kind_t)(what >> WHAT_KIND_SHIFT);
}

static unsigned what_root(uint32_t what)
{
    return what >> WHAT_ROOT_SHIFT & ((1u << (WHAT_KIND_SHIFT - WHAT_ROOT_SHIFT)) - 1);
}

static unsigned what_bytes(uint32_t what)
{
    return what & (WHAT_LAST - 1u);
}

static const char *kind_of(uint32_t what)
{
    switch (what_kind(what)) {
    case COLL_BARRIER:
        return "MPI_Barrier";
    case COLL_REDUCE_SCATTER:
        return "MPI_Reduce_scatter";
    case COLL_REDUCE_SCATTER_BLOCK:
        return "MPI_Reduce_scatter_block";
    case COLL_BCAST:
        return "MPI_Bcast";
    case COLL_REDUCE:
        return "MPI_Reduce";
    case COLL_ALLGATHER:
        return "MPI_Allgather";
    case COLL_ALLTOALL:
        return "MPI_Alltoall";
    default:
        return "MPI_Allreduce";
    }
}

/* Ring every other rank of the block (one that sleeps in its channel waits
 * for this rank's line too). */
static void ring_others(struct coll_shm *b)
{
    for (int r = 0; r < b->n; r++)
        if (r != b->me)
            adi_wake_peer(b->jobs[r]);
}

/* arrived(), for a bcast receiver's wait for the root's next piece (w->part):
 * while the root is writing this call's message (its bc_part holds the
 * call: bcast_write marks it before the first piece), watch its line alone,
 * up to spin_left loads over the whole wait, oversubscribed or not. The
 * root writes on another CPU then, and a receiver that yields on every
 * poll, as the device's wait does on an oversubscribed node, took the
 * pieces too late to gain from them (np4 IMB Bcast 64 KiB 6.4-7.7 us
 * against 4.8-5.4); before the root started, which may wait for this very
 * CPU, a receiver that watched too made back-to-back bcasts with rotating
 * roots 20-35% slower (doc/bench.md, stop 35). */
static int arrived_piece(void *arg)
{
    wait_t *w = arg;
    const shm_line_t *l;

    if (arrived(w))
        return 1;
    l = &w->b->lines[w->next];
    if (__atomic_load_n(&l->bc_part, __ATOMIC_ACQUIRE) >> SHM_BC_SHIFT != w->part >> SHM_BC_SHIFT)
        return 0;
    while (w->spin_left > 0) {
        w->spin_left--;
        __builtin_ia32_pause();
        if (line_reached(w, l))
            return arrived(w);
    }
    return 0;
}

/* Wait until arrived(w), watched (coll/watch.c): a rank of c that called a
 * collective by messages here instead (another kind, or a size over the
 * block's limit) sends a message or a poke of the call number the
 * communicator's next tag has, which nobody in the block sends: then every
 * rank that waits fails with a mismatch. Nothing when the peers have
 * arrived; the time between looks is the device's wait limit
 * (adi_wait_until_for), so the polls of a wait pay nothing for the watch
 * (doc/bench.md, watch3: the instructions of a wait that does not end at
 * once). */
static canal_status_t wait_watched(mpi_comm_t *c, wait_t *w, uint32_t what)
{
    if (arrived(w))
        return CANAL_OK;
    if (w->b->spin) {
        /* a core each: watch the line of the first rank not seen alone for
         * up to SHM_SPIN loads before the device's wait, whose every poll
         * walks the channels between two looks at it */
        const shm_line_t *l = &w->b->lines[w->next];
        for (int i = 0; i < SHM_SPIN; i++) {
            if (line_reached(w, l)) {
                if (arrived(w))
                    return CANAL_OK;
                l = &w->b->lines[w->next];
            }
            __builtin_ia32_pause();
        }
    }
    if (w->part != 0) {
        w->spin_left = SHM_SPIN;
        return coll_watch_wait_block(c, what_kind(what), arrived_piece, w);
    }
    return coll_watch_wait_block(c, what_kind(what), arrived, w);
}

/* "MPI_Bcast from root 2 with 40 bytes", "MPI_Barrier with 0 bytes": the
 * call `what` says, for a mismatch's message. */
static const char *what_text(uint32_t what, char *buf, size_t len)
{
    if (what_kind(what) == COLL_BCAST && what_bytes(what) == WHAT_RING)
        snprintf(buf, len, "%s from root %u with more than %u bytes", kind_of(what),
                 what_root(what), (unsigned)COLL_SHM_BCAST_MAX);
    else if (what_kind(what) == COLL_BCAST)
        snprintf(buf, len, "%s from root %u with %u bytes", kind_of(what), what_root(what),
                 what_bytes(what));
    else if (what_kind(what) == COLL_REDUCE)
        snprintf(buf, len, "%s to root %u with %u bytes or more", kind_of(what), what_root(what),
                 (unsigned)SHM_AR_MIN);
    else if (what_bytes(what) == WHAT_RING)
        snprintf(buf, len, "%s with %u bytes or more", kind_of(what), (unsigned)SHM_AR_MIN);
    else
        snprintf(buf, len, "%s with %u bytes", kind_of(what), what_bytes(what));
    return buf;
}

static canal_status_t mismatch(const struct coll_shm *b, int r, uint32_t theirs, uint32_t what)
{
    char t[96], m[96];
    return common_err_set(CANAL_ERR_MISMATCH,
                          "collective mismatch: rank %d called %s where rank %d called %s (the "
                          "ranks passed counts, datatypes or roots that do not match, or called "
                          "different collectives)",
                          r, what_text(theirs, t, sizeof t), b->me, what_text(what, m, sizeof m));
}

/* This rank's call seq stopped on w's error: say so in its line, so that
 * the ranks that wait for this one stop with the same error, and return it. */
static void tell_failed(struct coll_shm *b, uint64_t seq, canal_status_t st, int job)
{
    shm_line_t *mine = &b->lines[b->me];
    mine->fail_status = st;
    mine->fail_job = job;
    __atomic_store_n(&mine->fail_seq, seq, __ATOMIC_RELEASE);
    ring_others(b);
}

static canal_status_t fail_call(struct coll_shm *b, uint64_t seq, const wait_t *w)
{
    tell_failed(b, seq, w->st, w->job);
    if (w->st == CANAL_ERR_REVOKED)
        return common_err_set(CANAL_ERR_REVOKED, "the communicator was revoked (MPIX_Comm_revoke)");
    if (w->job < 0)
        return common_err_set(w->st, "a rank of the communicator could not complete the collective");
    return common_err_set(w->st,
                          "rank %d of MPI_COMM_WORLD failed (the process died or its connection "
                          "was lost) before the collective could complete",
                          w->job);
}

/* Before call seq writes what it shares with call seq - lag - 1 (lag 1: a
 * contribution or a bcast's message, of the call's parity; lag 3: only its
 * kind, what[seq % 4]): every rank has entered call seq - lag, so nobody
 * still reads that earlier call. Known after a barrier or an allreduce
 * (everyone entered it); after a bcast, which a rank may leave before the
 * others entered, it may take a wait. */
static canal_status_t settle(mpi_comm_t *c, struct coll_shm *b, uint64_t seq, uint32_t what,
                             unsigned lag)
{
    wait_t w = {b, seq - lag, 0, b->n, CANAL_OK, -1, 0, 0};
    canal_status_t st;

    if (__builtin_expect(b->all_in + lag >= seq, 1))
        return CANAL_OK;
    if ((st = wait_watched(c, &w, what)) < 0)
        return st;
    if (w.st != CANAL_OK)
        return fail_call(b, seq, &w);
    b->all_in = seq - lag;
    return CANAL_OK;
}

/* Enter call seq (the release of this rank's contribution, what: its kind
 * and bytes) and wait for the others to enter it; last (a root_first
 * barrier only, and then WHAT_LAST in what): rank 0 leaves after the others
 * (gather_follows), waiting for those whose what[] says the same. */
static canal_status_t enter_and_wait(mpi_comm_t *c, struct coll_shm *b, uint64_t seq,
                                     uint32_t what, int last)
{
    wait_t w = {b, seq, 0, b->n, CANAL_OK, -1, 0, 0};
    shm_line_t *mine = &b->lines[b->me];
    /* (rank 0 gathers and releases a barrier only: an allreduce's ranks
     * wait for all, so its last one's entry ends it without rank 0 having
     * to be scheduled after it, a second hop on an oversubscribed node) */
    int root_first = b->root_first && what_kind(what) == COLL_BARRIER;
    int root = root_first && b->me == 0;
    canal_status_t st;

    mine->what[seq & 3] = what;
    if (root_first && !root) {
        /* enter, ring rank 0 (it may sleep waiting for the last one), and
         * wait for its release, which it makes when all have entered */
        __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
        adi_wake_peer(b->jobs[0]);
        w.upto = 1;
        if ((st = wait_watched(c, &w, what)) < 0) {
            if (last)
                tell_failed(b, seq, st, -1); /* (rank 0 waits for this one to leave) */
            return st;
        }
        if (last && w.st == CANAL_OK) {
            /* released: say so to rank 0, which waits for it */
            __atomic_store_n(&b->left[b->me].seq, seq, __ATOMIC_RELEASE);
            adi_wake_peer(b->jobs[0]);
        }
    } else if (root) {
        /* wait for all to enter, then release them (entering last) */
        if ((st = wait_watched(c, &w, what)) < 0)
            return st;
        if (w.st == CANAL_OK) {
            __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
            for (int r = 1; r < b->n; r++)
                adi_wake_peer(b->jobs[r]);
        }
    } else {
        __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
        /* A rank asleep in its channel (oversubscribed, or waiting long)
         * is woken by messages only: ring the others (the channel rings
         * only those that sleep; no fence here, which would wait for
         * the store above to reach the peers that poll this line) */
        ring_others(b);
        if ((st = wait_watched(c, &w, what)) < 0)
            return st;
    }
    if (w.st != CANAL_OK)
        return fail_call(b, seq, &w);
    for (int r = 0; r < b->n; r++) {
        uint32_t x = b->lines[r].what[seq & 3];
        /* (a rank that decided otherwise about leaving last is no mismatch:
         * rank 0 does not wait for one that will not say it left) */
        if (x != what && (x ^ what) != WHAT_LAST)
            return mismatch(b, r, x, what);
    }
    b->all_in = seq;
    if (last && root) {
        /* released, and the calls match: let the others leave first (each
         * says so in b->left, or enters a later call; a rank whose what[]
         * has no WHAT_LAST decided otherwise and is not waited for, which
         * a rank of a future bug would otherwise hang in the next rooted
         * call while rank 0 waits here, as IMB's Reduce did:
         * coll_reduce_barrier_loop). Not watched: a rank
         * that left may already send the next call's messages (the gather's)
         * while another has not yet left, which the watch would take for a
         * mismatch; every rank here entered this barrier and was released,
         * so each leaves, or fails and says so (stopped()) */
        w = (wait_t){b, seq, 0, b->n, CANAL_OK, -1, 0, 0};
        adi_wait_until(gone, &w);
        if (w.st != CANAL_OK)
            return fail_call(b, seq, &w);
    }
    return CANAL_OK;
}

/* Whether rank 0 leaves root_first barrier seq after the others instead of
 * before them: when the only call since this rank's previous barrier,
 * the call just before this one on the block, was a gather, gatherv or
 * reduce by messages (CANAL_COLL_SHM_ROOT_LAST). A loop of (gather to rank
 * 0, barrier), as IMB-MPI1's Gather(v) and Reduce, then finds the others'
 * blocks sent when its root leaves the barrier: on an oversubscribed node
 * the root no longer waits inside the gather for each rank to be
 * scheduled, but in the barrier (np4 on 2 CPUs, counted with getrusage:
 * the root's context switches inside a 1-byte gatherv 1.0 a call before,
 * 0.001 after; a 64-byte reduce 1.0 -> 0.002; a 256 KiB reduce, which the
 * root's wait for its parts' data dominates, alike). Every rank of c
 * counts the same calls and tags, so all decide alike; should a future
 * change make one decide otherwise, its barrier's what[] says so
 * (WHAT_LAST) and rank 0 does not wait for it (CANAL_FAULT_SHM_NOT_LAST
 * makes one rank do so, for coll_reduce_barrier_loop). */
static int gather_follows(mpi_comm_t *c, struct coll_shm *b, uint64_t seq)
{
    int kind, yes;
    unsigned tags = coll_comm_tags_taken(c, &kind);

    yes = b->root_last && b->bar_seq + 1 == seq && b->bar_tags + 1 == tags &&
          (kind == COLL_GATHER || kind == COLL_GATHERV || kind == COLL_REDUCE) &&
          !b->fault_not_last;
    b->bar_seq = seq;
    b->bar_tags = tags;
    return yes;
}

/* ---------------------------------------------------------------- reducing */
/* The common cases without the host's operation table (which walks the
 * type and calls a kernel through a table: about 60 instructions per rank
 * reduced, for 4 bytes): MPI_SUM, MPI_MAX and MPI_MIN on the C types
 * benchmarks reduce (OSU 7.4's osu_allreduce sums MPI_CHAR, IMB MPI_FLOAT),
 * in the same order as the general loop of coll_shm_allreduce and with
 * the same arithmetic as datatype/dt_reduce.c's kernels (integers through
 * the unsigned type U, so that a sum wraps, as there, instead of being
 * undefined; floats in T), so the bits are the same. 0: not one of them. */
#define SHM_REDUCE(T, U)                                                                           \
    do {                                                                                           \
        T *acc = a->recvbuf;                                                                       \
        memcpy(acc, slots + (size_t)(n - 1) * stride, count * sizeof(T));                          \
        for (int r = n - 2; r >= 0; r--) {                                                         \
            const T *x = (const T *)(const void *)(slots + (size_t)r * stride);                    \
            for (size_t i = 0; i < count; i++)                                                     \
                acc[i] = op == DT_OP_SUM   ? (T)((U)x[i] + (U)acc[i])                              \
                         : op == DT_OP_MAX ? (x[i] > acc[i] ? x[i] : acc[i])                       \
                                           : (x[i] < acc[i] ? x[i] : acc[i]);                      \
        }                                                                                          \
    } while (0)

static int reduce_fast(const coll_args_t *a, const char *slots, size_t stride, int n, size_t count)
{
    dt_op_t op;
    MPI_Datatype t = a->recvtype;
    if (t != MPI_CHAR && t != MPI_INT && t != MPI_DOUBLE && t != MPI_FLOAT && t != MPI_LONG &&
        t != MPI_SIGNED_CHAR && t != MPI_UNSIGNED_CHAR && t != MPI_UNSIGNED &&
        t != MPI_LONG_LONG && t != MPI_UNSIGNED_LONG)
        return 0;
    op = coll_host.op_builtin(a->op);
    if (op != DT_OP_SUM && op != DT_OP_MAX && op != DT_OP_MIN)
        return 0;
    if (t == MPI_CHAR)
        SHM_REDUCE(char, unsigned char);
    else if (t == MPI_INT)
        SHM_REDUCE(int, unsigned);
    else if (t == MPI_DOUBLE)
        SHM_REDUCE(double, double);
    else if (t == MPI_FLOAT)
        SHM_REDUCE(float, float);
    else if (t == MPI_LONG)
        SHM_REDUCE(long, unsigned long);
    else if (t == MPI_SIGNED_CHAR)
        SHM_REDUCE(signed char, unsigned char);
    else if (t == MPI_UNSIGNED_CHAR)
        SHM_REDUCE(unsigned char, unsigned char);
    else if (t == MPI_UNSIGNED)
        SHM_REDUCE(unsigned, unsigned);
    else if (t == MPI_LONG_LONG)
        SHM_REDUCE(long long, unsigned long long);
    else
        SHM_REDUCE(unsigned long, unsigned long);
    return 1;
}
#undef SHM_REDUCE

/* ---------------------------------------------------------------- the calls */
canal_status_t coll_shm_barrier(mpi_comm_t *c, int *ran)
{
    canal_status_t st;
    struct coll_shm *b = ready(c, COLL_BARRIER, &st);
    uint32_t what = what_of(COLL_BARRIER, 0, 0);
    uint64_t seq;
    int last;

    *ran = b != NULL || st < 0; /* a failed setup fails this call (as messages would) */
    if (b == NULL)
        return st;
    seq = ++b->seq;
    if ((st = settle(c, b, seq, what, 3)) < 0)
        return st;
    last = b->root_first && gather_follows(c, b, seq);
    return enter_and_wait(c, b, seq, what | (uint32_t)last * WHAT_LAST, last);
}

static canal_status_t allreduce_big(const coll_args_t *a, size_t bytes, int *ran);

/* The allreduce (from SHM_AR_MIN bytes: allreduce_big); pre < 0: this rank
 * failed before the call (out of memory for coll_shm_reduce_scatter's
 * scratch) and enters only to fail with that error, so that the ranks
 * waiting for it stop too. */
static canal_status_t shm_allreduce(const coll_args_t *a, int *ran, canal_status_t pre)
{
    struct coll_shm *b;
    canal_status_t st;
    size_t count, bytes, moved;
    int contig, n;
    const void *mine;
    char *slot0, *tmp = NULL;
    size_t stride, room;
    ptrdiff_t lb, lo = 0, span;
    uint64_t seq;

    *ran = 0;
    if ((size_t)a->recvcount * dt_size(a->rdt) > COLL_SHM_MAX) {
        /* (decided alike everywhere: same count * size) */
        /* (2 ranks: the pair's exchange by messages measured as fast) */
        if (a->kind == COLL_ALLREDUCE && (size_t)a->recvcount * dt_size(a->rdt) >= SHM_AR_MIN &&
            pre >= 0 && coll_size(a->comm) > 2)
            return allreduce_big(a, (size_t)a->recvcount * dt_size(a->rdt), ran);
        return CANAL_OK;
    }
    b = ready(a->comm, a->kind, &st);
    *ran = b != NULL || st < 0;
    if (b == NULL)
        return st;
    seq = ++b->seq;
    n = b->n;
    count = (size_t)a->recvcount;
    bytes = count * dt_size(a->rdt);
    if ((st = settle(a->comm, b, seq, what_of(a->kind, 0, bytes), 1)) < 0)
        return st; /* (its line says so) */
    lb = dt_true_lb(a->rdt);
    contig = dt_is_contig_count(a->rdt, count);
    mine = a->sendbuf == MPI_IN_PLACE ? a->recvbuf : a->sendbuf;
    if (bytes <= SHM_INLINE) { /* (decided alike everywhere, as above) */
        slot0 = b->lines[0].small[seq & 1];
        stride = SHM_LINE;
        room = SHM_INLINE;
    } else {
        slot0 = b->slots + (size_t)(seq & 1) * (size_t)n * SLOT;
        stride = SLOT;
        room = COLL_SHM_MAX;
    }
    st = pre;
    if (st >= 0 && contig) {
        memcpy(slot0 + (size_t)b->me * stride, (const char *)mine + lb, bytes);
    } else if (st >= 0) {
        /* this rank's layout is not one block (another rank's may be) */
        /* the bytes (count, dt) spans from a buffer pointer: [lo, lo + span) */
        ptrdiff_t ext = dt_extent(a->rdt), last = (ptrdiff_t)(count > 0 ? count - 1 : 0) * ext;
        lo = lb + (ext < 0 ? last : 0);
        span = lb + dt_true_extent(a->rdt) + (ext > 0 ? last : 0) - lo;
        tmp = malloc(span > 0 ? (size_t)span : 1);
        if (tmp == NULL)
            st = common_err_set(CANAL_ERR_NOMEM, "no memory for %td bytes of an allreduce", span);
        else
            st = dt_pack(mine, count, a->rdt, slot0 + (size_t)b->me * stride, room, &moved);
    }
    if (st < 0) {
        /* not entered: the ranks that wait for this one stop with its error */
        tell_failed(b, seq, st, -1);
        goto out;
    }
    if ((st = enter_and_wait(a->comm, b, seq, what_of(a->kind, 0, bytes), 0)) < 0)
        goto out;
    if (contig && reduce_fast(a, slot0, stride, n, count))
        goto out;
    for (int r = n - 1; r >= 0; r--) {
        const char *in = slot0 + (size_t)r * stride;
        char *t = tmp != NULL ? tmp - lo : NULL; /* tmp as a buffer of (count, dt) */
        if (r == n - 1) {
            /* recvbuf = x(n-1) */
            if (contig)
                memcpy((char *)a->recvbuf + lb, in, bytes);
            else if ((st = dt_unpack(in, bytes, a->recvbuf, count, a->rdt, &moved)) < 0)
                goto out;
            continue;
        }
        if (!contig) {
            if ((st = dt_unpack(in, bytes, t, count, a->rdt, &moved)) < 0)
                goto out;
            in = t;
        } else {
            in -= lb;
        }
        /* recvbuf = x(r) op recvbuf */
        if (coll_op_apply(a->op, in, a->recvbuf, count, a->recvtype, a->rdt) != MPI_SUCCESS) {
            st = common_err_set(CANAL_ERR_OP,
                                "the reduction operation %#x cannot be applied to datatype %#x",
                                (unsigned)a->op, (unsigned)a->recvtype);
            goto out;
        }
    }
out:
    free(tmp);
    return st;
}

canal_status_t coll_shm_allreduce(const coll_args_t *a, int *ran)
{
    return shm_allreduce(a, ran, CANAL_OK);
}

/* Reduce_scatter(_block) of a vector of at most COLL_SHM_MAX bytes: the
 * allreduce above into a scratch vector (every rank reduces all of it, in
 * rank order: a few hundred bytes), then this rank's block to recvbuf. One
 * entry and one wait per rank instead of the message algorithms' rounds
 * (np4, 16 B: about half the CPU time per call of recursive halving). */
canal_status_t coll_shm_reduce_scatter(const coll_args_t *a, int *ran)
{
    int p = coll_size(a->comm), me = coll_rank(a->comm);
    size_t total = 0, off = 0, n, esz = dt_size(a->rdt), moved;
    ptrdiff_t ext = dt_extent(a->rdt), lb = dt_true_lb(a->rdt), lo, span, last;
    char *tmp = NULL, *t, *packed = NULL;
    coll_args_t b;
    canal_status_t st;

    *ran = 0;
    for (int i = 0; i < p; i++) {
        size_t c = a->kind == COLL_REDUCE_SCATTER ? (size_t)a->recvcounts[i] : (size_t)a->recvcount;
        if (i < me)
            off += c;
        total += c;
    }
    n = a->kind == COLL_REDUCE_SCATTER ? (size_t)a->recvcounts[me] : (size_t)a->recvcount;
    if (total * esz > COLL_SHM_MAX || total == 0 || esz == 0)
        return CANAL_OK; /* (decided alike everywhere: the vector is the same length) */
    /* the scratch vector: the bytes total elements of the type span */
    last = (ptrdiff_t)(total - 1) * ext;
    lo = lb + (ext < 0 ? last : 0);
    span = lb + dt_true_extent(a->rdt) + (ext > 0 ? last : 0) - lo;
    tmp = malloc(span > 0 ? (size_t)span : 1);
    t = tmp != NULL ? tmp - lo : NULL;
    b = *a;
    b.sendbuf = a->sendbuf == MPI_IN_PLACE ? a->recvbuf : a->sendbuf;
    b.recvbuf = t;
    b.recvcount = (MPI_Count)total;
    st = CANAL_OK;
    if (tmp == NULL)
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for %td bytes of a reduce_scatter", span);
    st = shm_allreduce(&b, ran, st);
    if (!*ran || st < 0 || n == 0)
        goto out;
    if (dt_is_contig_count(a->rdt, n)) {
        memcpy((char *)a->recvbuf + lb, t + (ptrdiff_t)off * ext + lb, n * esz);
        goto out;
    }
    if ((packed = malloc(n * esz)) == NULL) {
        st = common_err_set(CANAL_ERR_NOMEM, "no memory for a reduce_scatter's %zu bytes", n * esz);
        goto out;
    }
    if ((st = dt_pack(t + (ptrdiff_t)off * ext, n, a->rdt, packed, n * esz, &moved)) >= 0)
        st = dt_unpack(packed, n * esz, a->recvbuf, n, a->rdt, &moved);
out:
    free(packed);
    free(tmp);
    return st;
}

/* Allgather, and alltoall, of at most COLL_SHM_GATHER_MAX bytes a rank receives
 * (n blocks of recvcount): every rank packs what it sends (allgather: its
 * block; alltoall: its n blocks, in rank order) into its slot of the
 * call's parity, enters and waits for all (enter_and_wait: a rank whose
 * call differs, bytes per block included, fails every rank with a
 * mismatch), and copies each rank's block (alltoall: the one for this
 * rank) out. One entry and one wait per rank instead of the message
 * algorithms' n - 1 sends and receives. */
canal_status_t coll_shm_gather_all(const coll_args_t *a, int *ran)
{
    struct coll_shm *b;
    canal_status_t st;
    int n = coll_size(a->comm), me, alltoall = a->kind == COLL_ALLTOALL;
    size_t rcount = (size_t)a->recvcount, rbytes = rcount * dt_size(a->rdt), moved;
    size_t scount, sblocks = alltoall ? (size_t)n : 1, sbytes, ssize;
    ptrdiff_t rext = dt_extent(a->rdt);
    const void *sbuf = a->sendbuf;
    const dt_type_t *sdt = a->sdt;
    uint32_t what;
    uint64_t seq;
    char *slot0, *mine;

    *ran = 0;
    if (rbytes * (size_t)(alltoall ? n : 1) > COLL_SHM_GATHER_MAX)
        return CANAL_OK; /* (decided alike everywhere: the same count * size) */
    b = ready(a->comm, a->kind, &st);
    *ran = b != NULL || st < 0;
    if (b == NULL)
        return st;
    seq = ++b->seq;
    me = b->me;
    if (sbuf == MPI_IN_PLACE) {
        /* allgather: this rank's block of recvbuf; alltoall: all of it */
        sbuf = a->recvbuf;
        if (!alltoall)
            sbuf = (const char *)sbuf + (ptrdiff_t)me * (ptrdiff_t)rcount * rext;
        sdt = a->rdt;
        scount = rcount;
    } else {
        scount = (size_t)a->sendcount;
    }
    ssize = dt_size(sdt);
    sbytes = scount * ssize; /* per block */
    what = what_of(a->kind, 0, sbytes <= SLOT ? sbytes : SLOT + 1);
    if ((st = settle(a->comm, b, seq, what, 1)) < 0)
        return st;
    slot0 = b->slots + (size_t)(seq & 1) * (size_t)n * SLOT;
    mine = slot0 + (size_t)me * SLOT;
    if (sbytes != rbytes) {
        /* an erroneous call: not entered, the ranks that wait for this one
         * stop with its error */
        st = common_err_set(sbytes > rbytes ? CANAL_ERR_TRUNCATE : CANAL_ERR_MISMATCH,
                            "%s: this rank sends %zu bytes a block and receives %zu (the send "
                            "and receive type signatures must match)",
                            kind_of(what), sbytes, rbytes);
        tell_failed(b, seq, st, -1);
        return st;
    }
    if (dt_is_contig_count(sdt, scount * sblocks))
        memcpy(mine, (const char *)sbuf + dt_true_lb(sdt), sbytes * sblocks);
    else if ((st = dt_pack(sbuf, scount * sblocks, sdt, mine, SLOT, &moved)) < 0) {
        tell_failed(b, seq, st, -1);
        return st;
    }
    if ((st = enter_and_wait(a->comm, b, seq, what, 0)) < 0)
        return st;
    /* (every rank's call is this one's: its blocks are rbytes long) */
    for (int r = 0; r < n; r++) {
        const char *in = slot0 + (size_t)r * SLOT + (alltoall ? (size_t)me * rbytes : 0);
        char *out = (char *)a->recvbuf + (ptrdiff_t)r * (ptrdiff_t)rcount * rext;
        if (alltoall && a->sendbuf == MPI_IN_PLACE && r == me)
            continue; /* (in place: this rank's own block is where it was) */
        if (dt_is_contig_count(a->rdt, rcount))
            memcpy(out + dt_true_lb(a->rdt), in, rbytes);
        else if ((st = dt_unpack(in, rbytes, out, rcount, a->rdt, &moved)) < 0)
            return st;
    }
    return CANAL_OK;
}

/* The root's call x, a bcast of more bytes than this rank's `bytes`. */
static canal_status_t truncated(int root, uint32_t x, size_t bytes)
{
    if (what_bytes(x) == WHAT_RING)
        return common_err_set(CANAL_ERR_TRUNCATE,
                              "message truncated: the root of MPI_Bcast (rank %d) sent more than "
                              "%u bytes, more than the %zu of this rank's buffer",
                              root, (unsigned)COLL_SHM_BCAST_MAX, bytes);
    return common_err_set(CANAL_ERR_TRUNCATE,
                          "message truncated: the root of MPI_Bcast (rank %d) sent %u bytes, more "
                          "than the %zu of this rank's buffer",
                          root, what_bytes(x), bytes);
}

/* The bytes of call seq's message (of `bytes`) that the root has written:
 * all once it released seq (or went on to a later call), else its
 * bc_part's count. */
static size_t bcast_part(const shm_line_t *rl, uint64_t seq, size_t bytes)
{
    uint64_t v;

    if (__atomic_load_n(&rl->seq, __ATOMIC_ACQUIRE) >= seq)
        return bytes;
    v = __atomic_load_n(&rl->bc_part, __ATOMIC_ACQUIRE);
    if (v >> SHM_BC_SHIFT != seq)
        return v >> SHM_BC_SHIFT > seq ? bytes : 0;
    return (size_t)(v & ((1u << SHM_BC_SHIFT) - 1));
}

/* The root: pack the message into area, a piece of SHM_BC_CHUNK at a time
 * when it is contiguous, each but the last published in bc_part after a
 * mark that it writes (no doorbell: a receiver that sleeps takes the whole
 * at the release); the whole is published by the caller's release of seq. */
static canal_status_t bcast_write(struct coll_shm *b, const coll_args_t *a, uint64_t seq,
                                  char *area, size_t bytes)
{
    shm_line_t *mine = &b->lines[b->me];
    const char *src = (const char *)a->recvbuf + dt_true_lb(a->rdt);
    size_t moved;

    if (!dt_is_contig_count(a->rdt, (size_t)a->recvcount))
        return dt_pack(a->recvbuf, (size_t)a->recvcount, a->rdt, area, bytes, &moved);
    if (bytes > SHM_BC_CHUNK) /* (writing: arrived_piece) */
        __atomic_store_n(&mine->bc_part, seq << SHM_BC_SHIFT, __ATOMIC_RELEASE);
    for (size_t off = 0; off < bytes;) {
        size_t n = bytes - off < SHM_BC_CHUNK ? bytes - off : SHM_BC_CHUNK;
        memcpy(area + off, src + off, n);
        off += n;
        if (off < bytes) {
            __atomic_store_n(&mine->bc_part, seq << SHM_BC_SHIFT | off, __ATOMIC_RELEASE);
            if (b->piece_pause_us > 0)
                usleep((useconds_t)b->piece_pause_us);
        }
    }
    return CANAL_OK;
}

/* ---------------------------------------------------------------- bcast ring */
/* Make b's ring, collectively, at c's first bcast above COLL_SHM_BCAST_MAX
 * on the block (seg_make): b->ring_state 1, or -1 at every rank when any
 * could not map it or CANAL_COLL_SHM_RING is 0 (those bcasts go by
 * messages). */
static canal_status_t ring_make(mpi_comm_t *c, struct coll_shm *b)
{
    char *seg;
    canal_status_t st;

    b->ring_state = -1;
    if (!common_cvar_bool("COLL_SHM_RING"))
        return CANAL_OK;
    if ((st = seg_make(c, COLL_BCAST, ring_bytes(b->n), 1, &seg)) < 0 || seg == NULL)
        return st;
    b->ring_seg = seg;
    b->ring_head = (ring_head_t *)(void *)seg;
    b->ring_lines = (ring_line_t *)(void *)(seg + sizeof(ring_head_t));
    b->ring = seg + sizeof(ring_head_t) + (size_t)b->n * sizeof(ring_line_t);
    b->ring_room = SHM_RING_BYTES; /* (every rank is done with the empty stream) */
    b->ring_state = 1;
    LOG_DEBUG("coll: a ring of %d bytes for the bcasts above %d bytes of %d ranks",
              (int)SHM_RING_BYTES, (int)COLL_SHM_BCAST_MAX, b->n);
    return CANAL_OK;
}

/* c's block with its ring made, for a call of `kind` on the ring's area;
 * NULL: *ran says whether the call ran (*st: the making's error) or goes
 * by messages (*st CANAL_OK): no block, or no ring. */
static struct coll_shm *ready_ring(mpi_comm_t *c, coll_kind_t kind, canal_status_t *st, int *ran)
{
    struct coll_shm *b = ready(c, kind, st);

    *ran = b != NULL || *st < 0;
    if (b == NULL)
        return NULL;
    if (b->ring_state == 0 && (*st = ring_make(c, b)) < 0)
        return NULL;
    if (b->ring_state < 0) {
        *ran = 0;
        return NULL;
    }
    return b;
}

/* A wait of a bcast on the ring: the block's (w: the call, the ranks to
 * look at), for the stream position `need`. */
typedef struct {
    wait_t w;
    uint64_t need;
    uint32_t what;
    int other; /* the root's wait for room: a rank found in another call (-1: none) */
} ring_wait_t;

/* A receiver's wait: the root (w.next) started writing the call (rw->need
 * 0: its ring line has the call) or wrote the stream up to rw->need, or
 * released the call (or entered it otherwise: its what says), or never
 * will (stopped). */
static int ring_written(void *arg)
{
    ring_wait_t *rw = arg;
    struct coll_shm *b = rw->w.b;
    const ring_line_t *rl = &b->ring_lines[rw->w.next];
    const shm_line_t *l = &b->lines[rw->w.next];

    if ((rw->need == 0 ? __atomic_load_n(&rl->calls[rw->w.target & 3].call, __ATOMIC_ACQUIRE) ==
                             rw->w.target
                       : __atomic_load_n(&rl->wr, __ATOMIC_ACQUIRE) >= rw->need) ||
        __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE) >= rw->w.target)
        return 1;
    return stopped(&rw->w, l);
}

/* The root's wait for room: every other rank is done with the stream up
 * to rw->need, or entered this call as another one (rw->other: a
 * mismatch; it will never read), or never will (stopped). The ranks seen
 * are not looked at again (w.next). */
static int ring_room(void *arg)
{
    ring_wait_t *rw = arg;
    wait_t *w = &rw->w;
    struct coll_shm *b = w->b;

    for (; w->next < w->upto; w->next++) {
        const shm_line_t *l = &b->lines[w->next];
        if (w->next == b->me ||
            __atomic_load_n(&b->ring_lines[w->next].rd, __ATOMIC_SEQ_CST) >= rw->need)
            continue;
        if (__atomic_load_n(&l->seq, __ATOMIC_ACQUIRE) >= w->target &&
            l->what[w->target & 3] != rw->what) {
            rw->other = w->next;
            return 1;
        }
        return stopped(w, l);
    }
    return 1;
}

/* Wait until pred(rw), watched as the block's waits are (wait_watched);
 * spin: look SHM_SPIN times first, a pause each (a root on another CPU is
 * writing, or the ranks are not oversubscribed). */
static canal_status_t ring_wait(mpi_comm_t *c, ring_wait_t *rw, int (*pred)(void *), int spin)
{
    if (pred(rw))
        return CANAL_OK;
    for (int i = 0; spin && i < SHM_SPIN; i++) {
        __builtin_ia32_pause();
        if (pred(rw))
            return CANAL_OK;
    }
    return coll_watch_wait_block(c, what_kind(rw->what), pred, rw);
}

/* The root of call seq: wait until every other rank is done with the
 * stream up to need, so that the ring's bytes up to need + SHM_RING_BYTES
 * may be written. It says what it waits for in the ring's head (a receiver
 * that gets there rings it) and rings those behind (one asleep takes no
 * piece until rung). An error is told to the others (they stop with it). */
static canal_status_t ring_wait_room(mpi_comm_t *c, struct coll_shm *b, uint64_t seq, uint32_t what,
                                     uint64_t need)
{
    ring_wait_t rw = {{b, seq, 0, b->n, CANAL_OK, -1, 0, 0}, need, what, -1};
    uint64_t low = UINT64_MAX;
    canal_status_t st = CANAL_OK;

    if (!ring_room(&rw)) {
        __atomic_store_n(&b->ring_head->waiter, b->me, __ATOMIC_SEQ_CST);
        __atomic_store_n(&b->ring_head->want, need, __ATOMIC_SEQ_CST);
        for (int r = rw.w.next; r < b->n; r++)
            if (r != b->me && __atomic_load_n(&b->ring_lines[r].rd, __ATOMIC_SEQ_CST) < need)
                adi_wake_peer(b->jobs[r]);
        st = ring_wait(c, &rw, ring_room, b->spin);
    }
    if (st < 0) {
        tell_failed(b, seq, st, -1);
        return st;
    }
    if (rw.other >= 0) {
        tell_failed(b, seq, CANAL_ERR_MISMATCH, -1);
        return mismatch(b, rw.other, b->lines[rw.other].what[seq & 3], what);
    }
    if (rw.w.st != CANAL_OK)
        return fail_call(b, seq, &rw.w);
    for (int r = 0; r < b->n; r++) {
        uint64_t d = __atomic_load_n(&b->ring_lines[r].rd, __ATOMIC_ACQUIRE);
        if (r != b->me && d < low)
            low = d;
    }
    b->ring_room = low + SHM_RING_BYTES;
    return CANAL_OK;
}

/* The root of call seq: copy (or pack) the message into the ring from
 * stream position `start`, a piece of at most SHM_RING_PIECE at a time,
 * each published in its ring line's wr, waiting for room where the ring
 * still holds bytes a rank has not taken. An error is told to the others. */
static canal_status_t ring_write(mpi_comm_t *c, struct coll_shm *b, const coll_args_t *a,
                                 uint64_t seq, uint32_t what, uint64_t start, size_t bytes)
{
    ring_line_t *mine = &b->ring_lines[b->me];
    const char *src = (const char *)a->recvbuf + dt_true_lb(a->rdt);
    int contig = dt_is_contig_count(a->rdt, (size_t)a->recvcount);
    dt_cursor_t cur;
    canal_status_t st = CANAL_OK;

    if (!contig && (st = dt_cursor_init(&cur, a->rdt, (size_t)a->recvcount)) < 0) {
        tell_failed(b, seq, st, -1);
        return st;
    }
    mine->calls[seq & 3].start = start;
    mine->calls[seq & 3].bytes = bytes;
    __atomic_store_n(&mine->calls[seq & 3].call, seq, __ATOMIC_RELEASE);
    for (size_t done = 0; done < bytes;) {
        uint64_t pos = start + done;
        size_t off = (size_t)(pos % SHM_RING_BYTES), len = bytes - done;
        if (len > SHM_RING_PIECE)
            len = SHM_RING_PIECE;
        if (len > SHM_RING_BYTES - off)
            len = SHM_RING_BYTES - off;
        /* (room for half the ring at least, once it waits: waiting for
         * each piece's room made the root and its receivers take turns a
         * piece at a time, each turn a wake on an oversubscribed node) */
        if (pos + len > b->ring_room &&
            (st = ring_wait_room(c, b, seq, what, pos + len - SHM_RING_BYTES / 2)) < 0)
            break;
        if (contig)
            memcpy(b->ring + off, src + done, len);
        else
            dt_pack_next(&cur, a->recvbuf, b->ring + off, len);
        done += len;
        __atomic_store_n(&mine->wr, start + done, __ATOMIC_RELEASE);
        if (b->piece_pause_us > 0 && done < bytes)
            usleep((useconds_t)b->piece_pause_us);
    }
    if (!contig)
        dt_cursor_fini(&cur);
    return st;
}

/* This receiver is done with the stream up to pos: say so, and ring the
 * root that waits for that, if one does (the ring's head: the stores and
 * loads of rd and want are sequentially consistent, so the root sees this
 * rd or this rank sees its want; that root need not be this call's: it
 * may be a later call's, which this rank's slowness holds up). */
static void ring_done(struct coll_shm *b, uint64_t pos)
{
    uint64_t before = __atomic_load_n(&b->ring_lines[b->me].rd, __ATOMIC_RELAXED), want;

    __atomic_store_n(&b->ring_lines[b->me].rd, pos, __ATOMIC_SEQ_CST);
    want = __atomic_load_n(&b->ring_head->want, __ATOMIC_SEQ_CST);
    if (want > before && want <= pos)
        adi_wake_peer(b->jobs[__atomic_load_n(&b->ring_head->waiter, __ATOMIC_SEQ_CST)]);
}

/* A receiver of call seq: wait until the root started writing or released
 * the call, check its call against this one (the root's what, then its
 * ring line's bytes: more than this rank's is MPI_ERR_TRUNCATE, as from
 * messages), and copy (or unpack) the pieces out as the root writes them,
 * saying after each how far this rank is done. A rank that takes nothing
 * (MPI_ERR_TRUNCATE, a count that does not match) is done with all of it. */
static canal_status_t ring_read(const coll_args_t *a, struct coll_shm *b, uint64_t seq,
                                uint32_t what, size_t bytes)
{
    int root = a->root, contig = dt_is_contig_count(a->rdt, (size_t)a->recvcount);
    const ring_line_t *rl = &b->ring_lines[root];
    char *dst = (char *)a->recvbuf + dt_true_lb(a->rdt);
    ring_wait_t rw = {{b, seq, root, root + 1, CANAL_OK, -1, 0, 0}, 0, what, -1};
    uint64_t start, wr;
    size_t rbytes, done = 0;
    uint32_t x;
    dt_cursor_t cur;
    canal_status_t st;

    if ((st = ring_wait(a->comm, &rw, ring_written, b->spin)) < 0)
        return st;
    if (rw.w.st != CANAL_OK)
        return fail_call(b, seq, &rw.w);
    x = b->lines[root].what[seq & 3];
    if (x != what)
        return what_kind(x) == COLL_BCAST && what_root(x) == (unsigned)root &&
                       what_bytes(x) > bytes
                   ? truncated(root, x, bytes)
                   : mismatch(b, root, x, what);
    start = __atomic_load_n(&rl->calls[seq & 3].start, __ATOMIC_RELAXED);
    rbytes = (size_t)__atomic_load_n(&rl->calls[seq & 3].bytes, __ATOMIC_RELAXED);
    if (rbytes != bytes) {
        ring_done(b, start + rbytes);
        if (rbytes > bytes)
            return common_err_set(CANAL_ERR_TRUNCATE,
                                  "message truncated: the root of MPI_Bcast (rank %d) sent %zu "
                                  "bytes, more than the %zu of this rank's buffer",
                                  root, rbytes, bytes);
        return common_err_set(CANAL_ERR_MISMATCH,
                              "collective mismatch: the root of MPI_Bcast (rank %d) sent %zu bytes "
                              "where rank %d expected %zu (the ranks passed counts or datatypes "
                              "that do not match)",
                              root, rbytes, b->me, bytes);
    }
    if (!contig && (st = dt_cursor_init(&cur, a->rdt, (size_t)a->recvcount)) < 0) {
        ring_done(b, start + rbytes);
        return st;
    }
    for (;;) {
        wr = __atomic_load_n(&rl->wr, __ATOMIC_ACQUIRE);
        if (wr > start + rbytes || __atomic_load_n(&b->lines[root].seq, __ATOMIC_ACQUIRE) >= seq)
            wr = start + rbytes;
        while (start + done < wr) {
            size_t off = (size_t)((start + done) % SHM_RING_BYTES);
            size_t len = (size_t)(wr - start) - done;
            if (len > SHM_RING_PIECE)
                len = SHM_RING_PIECE;
            if (len > SHM_RING_BYTES - off)
                len = SHM_RING_BYTES - off;
            if (contig)
                memcpy(dst + done, b->ring + off, len);
            else
                dt_unpack_next(&cur, a->recvbuf, b->ring + off, len);
            done += len;
            ring_done(b, start + done);
        }
        if (done == rbytes)
            break;
        /* (the root is writing on another CPU, or has to be scheduled) */
        rw = (ring_wait_t){
            {b, seq, root, root + 1, CANAL_OK, -1, 0, 0}, start + done + 1, what, -1};
        if ((st = ring_wait(a->comm, &rw, ring_written, 1)) < 0)
            break;
        if (rw.w.st != CANAL_OK) {
            st = fail_call(b, seq, &rw.w);
            break;
        }
    }
    if (!contig)
        dt_cursor_fini(&cur);
    return st;
}

/* Bcast of more than COLL_SHM_BCAST_MAX bytes through the ring (made at the
 * first such call; CANAL_COLL_SHM_RING=0 or a rank that cannot map it: by
 * messages, *ran 0 everywhere). The root's message starts in the stream
 * past everything any rank wrote or is done with (every ring line's wr and
 * rd: the end of the last call, even after an erroneous call that some
 * ranks took for another), which it publishes in its ring line with the
 * bytes; the receivers take both from there. */
static __attribute__((noinline)) canal_status_t bcast_ring(const coll_args_t *a, size_t bytes,
                                                           int *ran)
{
    struct coll_shm *b;
    canal_status_t st;
    uint64_t seq, start;
    uint32_t what = what_of(COLL_BCAST, a->root, WHAT_RING);
    shm_line_t *mine;

    if ((b = ready_ring(a->comm, COLL_BCAST, &st, ran)) == NULL)
        return st;
    seq = ++b->seq;
    if ((st = settle(a->comm, b, seq, what, 3)) < 0)
        return st;
    mine = &b->lines[b->me];
    mine->what[seq & 3] = what;
    if (b->me != a->root) {
        /* enter (a rank in another call of the block sees this one), ring
         * the others (one may wait for this rank's entry), and read */
        __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
        ring_others(b);
        return ring_read(a, b, seq, what, bytes);
    }
    start = 0;
    for (int r = 0; r < b->n; r++) {
        uint64_t wr = __atomic_load_n(&b->ring_lines[r].wr, __ATOMIC_ACQUIRE);
        uint64_t rd = __atomic_load_n(&b->ring_lines[r].rd, __ATOMIC_ACQUIRE);
        start = wr > start ? wr : start;
        start = rd > start ? rd : start;
    }
    st = ring_write(a->comm, b, a, seq, what, start, bytes);
    __atomic_store_n(&b->ring_lines[b->me].rd, start + bytes, __ATOMIC_SEQ_CST);
    if (st < 0)
        return st;
    __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
    ring_others(b);
    return CANAL_OK;
}

/* ---------------------------------------------------------------- large allreduce */

/* Every other rank made allreduce step rw->need, or never will. */
static int ar_reached(void *arg)
{
    ring_wait_t *rw = arg;
    wait_t *w = &rw->w;
    struct coll_shm *b = w->b;

    for (; w->next < w->upto; w->next++) {
        if (w->next == b->me ||
            __atomic_load_n(&b->ring_lines[w->next].ar, __ATOMIC_ACQUIRE) >= rw->need)
            continue;
        return stopped(w, &b->lines[w->next]);
    }
    return 1;
}

/* Make the next step of call seq and wait for every rank to make it. */
static canal_status_t ar_step(mpi_comm_t *c, struct coll_shm *b, uint64_t seq, uint32_t what)
{
    ring_wait_t rw = {{b, seq, 0, b->n, CANAL_OK, -1, 0, 0}, ++b->ar_step, what, -1};
    canal_status_t st;

    __atomic_store_n(&b->ring_lines[b->me].ar, rw.need, __ATOMIC_RELEASE);
    ring_others(b);
    if ((st = ring_wait(c, &rw, ar_reached, b->spin)) < 0)
        return st;
    return rw.w.st != CANAL_OK ? fail_call(b, seq, &rw.w) : CANAL_OK;
}

/* Allreduce (root < 0), or reduce to root, of at least SHM_AR_MIN bytes on
 * the ring's area (made as for a bcast above the block's limit; when it
 * cannot be, by messages): each
 * rank enters with its bytes and whether its datatype is predefined (all
 * agree, or the call is a mismatch; one that is not: every rank leaves
 * with *ran 0, the message path), then, a round at a time on one half of
 * the ring by turns, copies its part of the vector into its slot, and
 * after a step that all made reduces its 1/n of the round's elements
 * across the slots in rank order, x0 op (x1 op (... op xn-1)), into the
 * last slot; after a second step every rank (a reduce: its root) copies
 * the round's result out. A round's half is written again two rounds later, after a step
 * that says every rank finished copying it out. The ring's stream goes on
 * past the whole ring after the call (wr and rd), so that a bcast's root
 * that follows waits for every rank to leave it before it writes. Every
 * rank copies its vector once in and once out and reduces 1/n of it,
 * where the message algorithms stream each part through a channel (two
 * copies) in log2(n) rounds: np8 IMB Allreduce 512 KiB-1 MiB on 2 CPUs
 * was 1.4-1.5x Open MPI's (doc/bench.md, stop 45). */
static canal_status_t reduce_big(const coll_args_t *a, size_t bytes, int *ran, int root)
{
    struct coll_shm *b;
    canal_status_t st;
    uint64_t seq, base = 0;
    uint32_t what = what_of(a->kind, root < 0 ? 0 : root, WHAT_RING);
    size_t esz = dt_size(a->rdt), unit, room, off, len;
    int n, all_ok = 1;
    const char *src = a->sendbuf == MPI_IN_PLACE ? a->recvbuf : a->sendbuf;
    ring_line_t *mine;

    if ((b = ready_ring(a->comm, a->kind, &st, ran)) == NULL)
        return st;
    n = b->n;
    seq = ++b->seq;
    if ((st = settle(a->comm, b, seq, what, 3)) < 0)
        return st;
    /* (every ring write before this call is done: this rank read them all,
     * and nobody leaves this call before every rank entered it) */
    for (int r = 0; r < n; r++) {
        uint64_t w = __atomic_load_n(&b->ring_lines[r].wr, __ATOMIC_ACQUIRE);
        base = w > base ? w : base;
    }
    mine = &b->ring_lines[b->me];
    mine->calls[seq & 3].bytes = bytes;
    mine->calls[seq & 3].start = dt_builtin_of(a->rdt) != DT_NBUILTIN && esz > 0;
    __atomic_store_n(&mine->calls[seq & 3].call, seq, __ATOMIC_RELEASE);
    if ((st = enter_and_wait(a->comm, b, seq, what, 0)) < 0)
        return st;
    for (int r = 0; r < n; r++) {
        const ring_call_t *x = &b->ring_lines[r].calls[seq & 3];
        if (x->bytes != bytes)
            return common_err_set(CANAL_ERR_MISMATCH,
                                  "collective mismatch: rank %d called %s with %zu bytes where "
                                  "rank %d called it with %zu (the ranks passed counts or "
                                  "datatypes that do not match)",
                                  r, kind_of(what), (size_t)x->bytes, b->me, bytes);
        all_ok &= x->start == 1;
    }
    if (!all_ok) {
        *ran = 0; /* (every rank saw the same: all go by messages) */
        return CANAL_OK;
    }
    /* a rank's share of a round starts at a multiple of 64 bytes and of
     * the type's size (unit): no two ranks write one cache line, and a user
     * operation that reads the elements in groups (4 MPI_INTs as a matrix,
     * which MPI leaves undefined but the message algorithms kept whole)
     * gets whole groups of up to 64 bytes */
    unit = esz;
    while (unit % 64 != 0)
        unit += esz;
    room = SHM_RING_BYTES / 2 / (size_t)n / unit * unit;
    for (off = 0; off < bytes; off += len, b->ar_round++) {
        char *slots = b->ring + (size_t)(b->ar_round & 1) * (SHM_RING_BYTES / 2);
        size_t cnt, lo, hi;
        len = bytes - off < room ? bytes - off : room;
        cnt = len / unit; /* (the last rank takes the tail below a unit) */
        lo = cnt * (size_t)b->me / (size_t)n * unit;
        hi = b->me == n - 1 ? len : cnt * (size_t)(b->me + 1) / (size_t)n * unit;
        memcpy(slots + (size_t)b->me * room, src + off, len);
        if ((st = ar_step(a->comm, b, seq, what)) < 0)
            return st;
        for (int r = n - 2; r >= 0 && hi > lo; r--)
            if (coll_op_apply(a->op, slots + (size_t)r * room + lo,
                              slots + (size_t)(n - 1) * room + lo, (hi - lo) / esz, a->recvtype,
                              a->rdt) != MPI_SUCCESS) {
                st = common_err_set(CANAL_ERR_OP,
                                    "the reduction operation %#x cannot be applied to datatype %#x",
                                    (unsigned)a->op, (unsigned)a->recvtype);
                tell_failed(b, seq, st, -1);
                return st;
            }
        if ((st = ar_step(a->comm, b, seq, what)) < 0)
            return st;
        if (root < 0 || root == b->me)
            memcpy((char *)a->recvbuf + off, slots + (size_t)(n - 1) * room, len);
    }
    __atomic_store_n(&mine->wr, base + SHM_RING_BYTES, __ATOMIC_RELEASE);
    __atomic_store_n(&mine->rd, base + SHM_RING_BYTES, __ATOMIC_SEQ_CST);
    return CANAL_OK;
}

static __attribute__((noinline)) canal_status_t allreduce_big(const coll_args_t *a, size_t bytes,
                                                              int *ran)
{
    return reduce_big(a, bytes, ran, -1);
}

/* MPI_Reduce of at least SHM_REDUCE_MIN bytes on more than 4 ranks of the
 * block: reduce_big, the result copied out at the root alone (every rank
 * reduces its share of each round; the others leave after the round's
 * last step, and the root's rd says when it is done with the area). *ran
 * 0: by messages. */
canal_status_t coll_shm_reduce(const coll_args_t *a, int *ran)
{
    size_t bytes = (size_t)a->recvcount * dt_size(a->rdt);

    *ran = 0;
    if (bytes < SHM_REDUCE_MIN || coll_size(a->comm) <= 4 ||
        (unsigned)a->root >= (unsigned)coll_size(a->comm))
        return CANAL_OK; /* (decided alike everywhere: the same count * size, the same root) */
    return reduce_big(a, bytes, ran, a->root);
}

/* Bcast of at most COLL_SHM_BCAST_MAX bytes (the whole message): the root
 * packs it into the area of the call's parity (in pieces: bcast_write) and
 * leaves; the others enter, wait for the root's first piece or release,
 * check its call against theirs (a longer message than this rank's buffer:
 * MPI_ERR_TRUNCATE, as from messages) and copy it out, into a contiguous
 * buffer a piece at a time as the root publishes them. */
canal_status_t coll_shm_bcast(const coll_args_t *a, int *ran)
{
    struct coll_shm *b;
    canal_status_t st;
    size_t count = (size_t)a->recvcount, bytes = count * dt_size(a->rdt), moved, done;
    uint64_t seq;
    uint32_t what, x;
    shm_line_t *mine;
    char *area, *dst;
    int root = a->root, contig, pieces;

    if (bytes > COLL_SHM_BCAST_MAX) /* (decided alike everywhere: the same count * size) */
        return bcast_ring(a, bytes, ran);
    *ran = 0;
    b = ready(a->comm, COLL_BCAST, &st);
    *ran = b != NULL || st < 0;
    if (b == NULL)
        return st;
    seq = ++b->seq;
    what = what_of(COLL_BCAST, root, bytes);
    /* (the root writes the message, of the call's parity; the others only
     * their kind) */
    if ((st = settle(a->comm, b, seq, what, b->me == root ? 1 : 3)) < 0)
        return st;
    mine = &b->lines[b->me];
    mine->what[seq & 3] = what;
    area = b->bcast + (size_t)(seq & 1) * COLL_SHM_BCAST_MAX;
    if (b->me == root) {
        if ((st = bcast_write(b, a, seq, area, bytes)) < 0) {
            tell_failed(b, seq, st, -1); /* the others stop with its error */
            return st;
        }
        __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
        ring_others(b);
        return CANAL_OK;
    }
    /* enter (a rank in another call of the block sees this one), ring the
     * others (one may wait for this rank's entry: settle, a mismatch), and
     * wait for the root's first piece (a contiguous buffer takes the
     * message a piece at a time) or its release */
    __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
    ring_others(b);
    contig = dt_is_contig_count(a->rdt, count);
    pieces = contig && bytes > SHM_BC_CHUNK;
    dst = (char *)a->recvbuf + dt_true_lb(a->rdt);
    for (done = 0;;) {
        size_t part;
        wait_t w = {b, seq, root, root + 1, CANAL_OK, -1,
                    pieces ? seq << SHM_BC_SHIFT | (done + 1) : 0, 0};
        if ((st = wait_watched(a->comm, &w, what)) < 0)
            return st;
        if (w.st != CANAL_OK)
            return fail_call(b, seq, &w);
        if (done == 0) {
            x = b->lines[root].what[seq & 3];
            if (x != what) {
                if (what_kind(x) == COLL_BCAST && what_root(x) == (unsigned)root &&
                    what_bytes(x) > bytes)
                    return truncated(root, x, bytes);
                return mismatch(b, root, x, what);
            }
        }
        if (!pieces) {
            if (!contig)
                return dt_unpack(area, bytes, a->recvbuf, count, a->rdt, &moved);
            memcpy(dst, area, bytes);
            return CANAL_OK;
        }
        part = bcast_part(&b->lines[root], seq, bytes);
        memcpy(dst + done, area + done, part - done);
        if ((done = part) == bytes)
            return CANAL_OK;
    }
}
