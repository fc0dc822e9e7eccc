/*
 * One-sided synchronization (MPI 4.0 section 12.5): MPI_Win_fence, general
 * active target (MPI_Win_post/start/complete/wait/test), passive target
 * (MPI_Win_lock/unlock, lock_all/unlock_all, flush, flush_all, flush_local,
 * flush_local_all) and MPI_Win_sync, with the epoch bookkeeping that turns
 * misuse into MPI_ERR_RMA_SYNC. Direct windows lock with reader/writer
 * words in their segment; the others exchange LOCK/UNLOCK/FLUSH/POST/
 * COMPLETE messages with the targets' agents (rma_target.c). See the design
 * at the top of rma/rma.c.
 */
#include "rma_impl.h"
#include "mpi/api_impl.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- waiting */
static int pred_le0(void *arg)
{
    return __atomic_load_n((volatile int *)arg, __ATOMIC_ACQUIRE) <= 0;
}

static void wait_zero(volatile int *p)
{
    if (!pred_le0((void *)p))
        adi_wait_until(pred_le0, (void *)p);
}

typedef struct {
    volatile uint64_t *p;
    uint64_t v;
} geq64_t;

static int pred_geq64(void *arg)
{
    geq64_t *g = arg;
    return __atomic_load_n(g->p, __ATOMIC_ACQUIRE) >= g->v;
}

/* PSCW on a direct window (since issue 26, rma4): MPI_Win_post and
 * MPI_Win_complete count in the window's segment instead of sending a
 * POST or COMPLETE message to the peer's agent. OSU's PSCW rows paid two
 * device messages per epoch for operations that are loads and stores (or
 * single copies). The counters only grow; each process remembers how many
 * of its peer's it consumed (posts_seen, completes_seen). The peer is woken
 * if it sleeps in a blocked wait (adi_wake_peer), as a message would. */
static uint32_t pscw_posts(const rma_win_t *w, int t)
{
    return __atomic_load_n(&w->pscw_post[(size_t)w->rank * (size_t)w->size + (size_t)t],
                           __ATOMIC_ACQUIRE);
}

static uint32_t pscw_dones(const rma_win_t *w, int o)
{
    return __atomic_load_n(&w->pscw_done[(size_t)w->rank * (size_t)w->size + (size_t)o],
                           __ATOMIC_ACQUIRE);
}

/* Count one post (done 0) or complete (done 1) of this process toward r. */
static void pscw_signal(rma_win_t *w, int r, int done)
{
    uint32_t *c = done ? w->pscw_done : w->pscw_post;
    __atomic_add_fetch(&c[(size_t)r * (size_t)w->size + (size_t)w->rank], 1, __ATOMIC_RELEASE);
    if (r != w->rank)
        adi_wake_peer(w->job[r]);
}

/* The grant (or post) of target t has arrived, or another thread of this
 * process has already taken it. */
typedef struct {
    rma_win_t *w;
    int t;
} access_t;

static int access_ready(void *arg)
{
    access_t *a = arg;
    rma_peer_t *p = &a->w->peer[a->t];
    if (adi_peer_failed(a->w->job[a->t]))
        return 1; /* it never will (ULFM): the operations toward it fail */
    if (p->lock == RMA_LK_REQUESTED)
        return __atomic_load_n(&p->grants, __ATOMIC_ACQUIRE) > 0;
    if (p->lock == RMA_LK_NONE && a->w->access && p->in_access && !p->post_ok &&
        !a->w->access_nocheck)
        return a->w->pscw_post != NULL ? pscw_posts(a->w, a->t) != p->posts_seen
                                       : __atomic_load_n(&p->posts, __ATOMIC_ACQUIRE) > 0;
    return 1;
}

void rma_wait_access(rma_win_t *w, int t)
{
    rma_peer_t *p = &w->peer[t];
    access_t a = {w, t};

    for (;;) {
        if (!access_ready(&a))
            adi_wait_until(access_ready, &a);
        adi_lock();
        if (p->lock == RMA_LK_REQUESTED) {
            if (p->grants > 0) {
                p->grants--;
                p->lock = RMA_LK_GRANTED;
            }
        } else if (p->lock == RMA_LK_NONE && w->access && p->in_access && !p->post_ok) {
            if (w->access_nocheck) {
                p->post_ok = 1;
            } else if (w->pscw_post != NULL) {
                if (pscw_posts(w, t) != p->posts_seen) {
                    p->posts_seen++;
                    p->post_ok = 1;
                }
            } else if (p->posts > 0) {
                p->posts--;
                p->post_ok = 1;
            }
        }
        adi_unlock();
        if (access_ready(&a))
            return;
    }
}

/* The target of w's rank t is lost (ULFM): what waits for it fails. */
static int target_lost(rma_win_t *w, int t, const char *fn)
{
    if (!adi_peer_failed(w->job[t]))
        return MPI_SUCCESS;
    return mpi_err_failed(
        rma_err(w, MPIX_ERR_PROC_FAILED, fn,
                "rank %d of the window (rank %d of MPI_COMM_WORLD) failed before the epoch "
                "toward it completed",
                t, w->job[t]));
}

/* The class to report when a collective inside an RMA call failed with
 * code err: a lost process or a revoked communicator stays what it is. */
static int coll_class(int err)
{
    int cls = MPI_ERR_OTHER;
    mpi_error_class_impl(err, &cls, "MPI_Error_class");
    return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED ? cls : MPI_ERR_OTHER;
}

int rma_win_busy(rma_win_t *w)
{
    return w->nlocks > 0 || w->lock_all || w->access || w->exposure ||
           (w->fence_open && w->fence_used);
}

int rma_raise_late(rma_win_t *w, const char *fn)
{
    int cls, n, here;
    char msg[sizeof w->late_msg];

    /* Direct windows never set these (their operations fail at once, and
     * no agent applies operations to them): skip the lock on their fast
     * unlock and flush. */
    if (w->direct && __atomic_load_n(&w->late_err, __ATOMIC_RELAXED) == MPI_SUCCESS &&
        __atomic_load_n(&w->remote_bad, __ATOMIC_RELAXED) == 0 &&
        __atomic_load_n(&w->bad_here, __ATOMIC_RELAXED) == 0)
        return MPI_SUCCESS;
    adi_lock(); /* the agent and completion callbacks write these */
    cls = w->late_err;
    n = w->remote_bad;
    here = w->bad_here;
    memcpy(msg, w->late_msg, sizeof msg);
    if (cls != MPI_SUCCESS) {
        w->late_err = MPI_SUCCESS;
        n = here = 0;
    } else if (n > 0) {
        w->remote_bad = 0;
        here = 0;
    } else {
        w->bad_here = 0;
    }
    adi_unlock();
    if (cls != MPI_SUCCESS)
        return rma_err(w, cls, fn, "%s", msg);
    if (n > 0)
        return rma_err(w, MPI_ERR_RMA_RANGE, fn,
                       "%d operation(s) of this epoch addressed memory outside the target's "
                       "window and were refused by the target",
                       n);
    if (here > 0)
        return rma_err(w, MPI_ERR_RMA_RANGE, fn,
                       "%d operation(s) from other ranks addressed memory outside this "
                       "process's window and were refused",
                       here);
    return MPI_SUCCESS;
}

static int check_assert(rma_win_t *w, int assert, int allowed, const char *fn)
{
    if (assert & ~allowed)
        return mpi_err_failed(rma_err(w, MPI_ERR_ASSERT, fn,
                                      "assert=%#x has bits that are not valid here (allowed: %#x)",
                                      (unsigned)assert, (unsigned)allowed));
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- shm locks */
enum { RW_WAIT = 0x20000000 };

/* A member of w is known to have failed (ULFM: its shared-memory lock words
 * and barrier may never be released: a wait on them ends in an error). */
static int direct_lost(rma_win_t *w)
{
    return adi_ctx_failed_ranks(w->ctx, 0, NULL, 0) > 0;
}

/* MPI_SUCCESS, or MPIX_ERR_PROC_FAILED when a member failed meanwhile. */
static int rw_acquire(rma_win_t *w, int t, int type)
{
    volatile int *p = &w->slots[t].rw;
    for (int spins = 0;; spins++) {
        int v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
        if (type == MPI_LOCK_EXCLUSIVE) {
            if ((v & ~RW_WAIT) == 0) {
                if (__atomic_compare_exchange_n(p, &v, RMA_RW_EXCL, 0, __ATOMIC_ACQUIRE,
                                                __ATOMIC_RELAXED))
                    return MPI_SUCCESS;
                continue;
            }
            if (!(v & RW_WAIT))
                __atomic_fetch_or(p, RW_WAIT, __ATOMIC_RELAXED);
        } else if (!(v & (RMA_RW_EXCL | RW_WAIT))) {
            if (__atomic_compare_exchange_n(p, &v, v + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return MPI_SUCCESS;
            continue;
        }
        /* Keep the rest of MPI moving while we wait (PSCW messages, pt2pt). */
        if (spins % 16 == 0) {
            adi_progress();
            if (direct_lost(w))
                return MPIX_ERR_PROC_FAILED; /* (the holder may be the lost one) */
        }
        if (spins > 64)
            sched_yield();
    }
}

static void rw_release(rma_win_t *w, int t, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        __atomic_fetch_and(&w->slots[t].rw, ~RMA_RW_EXCL, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(&w->slots[t].rw, 1, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- completing a target */
/* p's puts and accumulates sent so far are covered (a FLUSH, UNLOCK or
 * COMPLETE went, or a fence completed them): none is uncovered since. */
static void peer_covered(rma_peer_t *p)
{
    p->covered = p->issued;
    p->acc_uncovered = 0;
}

/* Phase one of flush/unlock toward t: sends FLUSH or UNLOCK when needed and
 * returns the acknowledgement to wait for (0: none), for finish_wait. A
 * flush with nothing new to cover waits for the one already in flight. */
static unsigned finish_send(rma_win_t *w, int t, int release)
{
    rma_peer_t *p = &w->peer[t];
    unsigned ticket = 0;
    int kind = 0;

    if (w->direct || p->lock == RMA_LK_NONE) {
        rma_cma_flush_queue(w); /* (an error is raised late, by the caller) */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (release && w->direct && p->lock == RMA_LK_GRANTED)
            rw_release(w, t, p->lock_type);
    } else {
        if (p->lock == RMA_LK_REQUESTED)
            rma_wait_access(w, t);
        adi_lock();
        if (release && p->lock != RMA_LK_NOCHECK)
            kind = RMA_AM_UNLOCK;
        else if (p->issued != p->covered)
            kind = RMA_AM_FLUSH;
        if (kind != 0) {
            peer_covered(p);
            ticket = ++p->sent;
            rma_send_ctrl(w, t, kind, 0);
        } else if (p->sent != p->acks) {
            ticket = p->sent;
        }
        adi_unlock();
    }
    if (release)
        p->lock = RMA_LK_NONE;
    return ticket;
}

typedef struct {
    volatile unsigned *acks;
    unsigned ticket;
    int job; /* the target's job rank: a lost one never acknowledges */
} ticket_t;

static int ticket_done(void *arg)
{
    ticket_t *k = arg;
    return (int)(__atomic_load_n(k->acks, __ATOMIC_ACQUIRE) - k->ticket) >= 0 ||
           adi_peer_failed(k->job);
}

static void finish_wait(rma_win_t *w, int t, unsigned ticket)
{
    ticket_t k = {&w->peer[t].acks, ticket, w->job[t]};
    if (ticket != 0 && !ticket_done(&k))
        adi_wait_until(ticket_done, &k);
}

/* Puts and accumulates toward every rank are complete (fence, complete). */
static void all_covered(rma_win_t *w)
{
    for (int r = 0; r < w->size; r++)
        peer_covered(&w->peer[r]);
}

/* ---------------------------------------------------------------- fence */
/* The barrier of a direct window's fence, on two words of its segment
 * (sense reversal: the last to arrive resets the count and moves the
 * generation on). Every rank touches the same line once, so it costs a
 * few cache-line transfers rather than the message rounds of a barrier
 * through the collectives (measured: 8-byte put + fence 0.26 us with
 * MPI_Barrier against Open MPI's 0.20). Waiting polls the device now and
 * then, as rw_acquire does, and yields when it lasts. */
static int seg_barrier(rma_win_t *w)
{
    rma_shm_slot_t *b = &w->slots[w->size];
    int gen = __atomic_load_n(&b->acc, __ATOMIC_ACQUIRE);

    if (__atomic_add_fetch(&b->rw, 1, __ATOMIC_ACQ_REL) == w->size) {
        __atomic_store_n(&b->rw, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b->acc, gen + 1, __ATOMIC_RELEASE);
        return MPI_SUCCESS;
    }
    for (int spins = 1; __atomic_load_n(&b->acc, __ATOMIC_ACQUIRE) == gen; spins++) {
        if (spins % 16 == 0) {
            adi_progress();
            if (direct_lost(w))
                return MPIX_ERR_PROC_FAILED; /* it will never arrive (the window is unusable) */
        } else if (spins > 64) {
            /* Once it yields, a poll per turn: an origin whose fence drains
             * its queue into this rank's mailbox waits for this poll, and
             * 16 yields could outlast its wait (CANAL_RMA_MBOX_WAIT_US). */
            adi_progress();
        }
        if (spins > 64)
            sched_yield();
    }
    return MPI_SUCCESS;
}

/* The queue's drain at MPI_Win_fence and MPI_Win_complete. The targets are
 * inside MPI (in the fence, or on their way to MPI_Win_wait), and a
 * request to one that polled lately waits 8 times CANAL_RMA_MBOX_WAIT_US
 * for its mailbox's answer before it takes the request back: OSU's
 * put_bibw posts 64 small puts per epoch on both sides at once, and with
 * the passive epochs' 4 us half of the drains fell back to a system call
 * (1-8 B: 3.2-3.6 MB/s against 7.8-10 with 32 us; rma4). */
static canal_status_t drain_active(rma_win_t *w)
{
    int64_t wait = w->mbox_wait_ns;
    canal_status_t st;

    if (w->ncq == 0)
        return CANAL_OK;
    w->mbox_wait_ns = wait * 8;
    st = rma_cma_drain(w);
    w->mbox_wait_ns = wait;
    return st;
}

int mpi_win_fence_impl(int assert, rma_win_t *w, const char *fn)
{
    int err;

    if ((err = check_assert(
             w, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED,
             fn)))
        return mpi_result(err);
    if (w->nlocks > 0 || w->lock_all || w->access || w->exposure)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "MPI_Win_fence inside an epoch of %s",
                       w->nlocks     ? "MPI_Win_lock"
                       : w->lock_all ? "MPI_Win_lock_all"
                       : w->access   ? "MPI_Win_start"
                                     : "MPI_Win_post");
    wait_zero(&w->pending_local);
    if (w->direct) {
        if (drain_active(w) != CANAL_OK)
            return rma_raise_late(w, fn);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (!((assert &MPI_MODE_NOPRECEDE) && (assert &MPI_MODE_NOSUCCEED)) &&
            seg_barrier(w) != MPI_SUCCESS)
            return rma_err(w, MPIX_ERR_PROC_FAILED, fn,
                           "a process of the window failed before it reached the fence");
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    } else if (!(assert &MPI_MODE_NOPRECEDE)) {
        /* How many operations of this epoch target me: wait for them all. */
        unsigned *cnt = malloc(sizeof *cnt * (size_t)w->size), expected = 0;
        int par = (int)(w->fence_epoch & 1);
        geq64_t g;
        if (cnt == NULL)
            return rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory");
        adi_lock();
        w->in_fence = 1;
        adi_unlock();
        for (int r = 0; r < w->size; r++) {
            cnt[r] = w->peer[r].fence_ops;
            w->peer[r].fence_ops = 0;
        }
        err = mpi_reduce_scatter_block_impl(cnt, &expected, 1, MPI_UNSIGNED, MPI_SUM, w->comm, fn);
        free(cnt);
        if (err != MPI_SUCCESS) {
            adi_lock();
            w->in_fence = 0;
            rma_lock_drain(w);
            adi_unlock();
            return rma_err(w, coll_class(err), fn, "the fence's reduce_scatter failed");
        }
        g.p = &w->fence_done[par];
        g.v = expected;
        if (!pred_geq64(&g))
            adi_wait_until(pred_geq64, &g);
        adi_lock();
        w->fence_done[par] -= expected;
        w->fence_epoch++;
        w->in_fence = 0;
        rma_agent_replay(w); /* what arrived early from the next epoch */
        rma_lock_drain(w);
        adi_unlock();
    } else {
        if (!(assert &MPI_MODE_NOSUCCEED) && (err = mpi_barrier_impl(w->comm, fn)) != MPI_SUCCESS)
            return rma_err(w, coll_class(err), fn, "the fence's barrier failed");
        adi_lock();
        w->fence_epoch++;
        rma_agent_replay(w);
        adi_unlock();
    }
    all_covered(w);
    w->fence_open = !(assert &MPI_MODE_NOSUCCEED);
    w->fence_used = 0;
    return rma_raise_late(w, fn);
}

/* ---------------------------------------------------------------- PSCW */
/* The group argument of MPI_Win_post / MPI_Win_start, checked first as
 * MPICH does (before the assert). */
static int check_group(rma_win_t *w, MPI_Group group, const char *fn, mpi_group_t **out)
{
    if ((*out = mpi_group_get(group)) == NULL)
        return mpi_err_failed(
            rma_err(w, MPI_ERR_GROUP, fn, "group=%#x is not a valid group", (unsigned)group));
    return MPI_SUCCESS;
}

/* Mark the window ranks of the members of g in each rma_peer_t's
 * in_exposure (exposure) or in_access flag. */
static int mark_group(rma_win_t *w, mpi_group_t *g, const char *fn, int exposure)
{
    mpi_group_t *wg = mpi_comm_local_group(w->comm);
    for (int i = 0; i < g->size; i++) {
        int r = wg == NULL ? MPI_UNDEFINED : mpi_group_rank_of(wg, mpi_group_member(g, i));
        if (r == MPI_UNDEFINED) {
            for (int k = 0; k < w->size; k++) {
                if (exposure)
                    w->peer[k].in_exposure = 0;
                else
                    w->peer[k].in_access = 0;
            }
            return mpi_err_failed(
                rma_err(w, MPI_ERR_GROUP, fn,
                        "member %d of group (rank %d of MPI_COMM_WORLD) is not in the window", i,
                        mpi_group_member(g, i)));
        }
        if (exposure)
            w->peer[r].in_exposure = 1;
        else
            w->peer[r].in_access = 1;
    }
    return MPI_SUCCESS;
}

int mpi_win_post_impl(MPI_Group group, int assert, rma_win_t *w, const char *fn)
{
    mpi_group_t *g;
    int err;

    if ((err = check_group(w, group, fn, &g)) ||
        (err = check_assert(w, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, fn)))
        return mpi_result(err);
    if (w->exposure)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "an exposure epoch (MPI_Win_post) is already open");
    if (w->fence_open && w->fence_used)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "a fence epoch with operations is still open");
    if ((err = mark_group(w, g, fn, 1)))
        return mpi_result(err);
    w->fence_open = 0;
    w->exposure = 1;
    w->exposure_nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!w->exposure_nocheck)
        for (int r = 0; r < w->size; r++)
            if (w->peer[r].in_exposure) {
                if (w->pscw_post != NULL)
                    pscw_signal(w, r, 0);
                else
                    rma_send_ctrl(w, r, RMA_AM_POST, 0);
            }
    return MPI_SUCCESS;
}

int mpi_win_start_impl(MPI_Group group, int assert, rma_win_t *w, const char *fn)
{
    mpi_group_t *g;
    int err;

    if ((err = check_group(w, group, fn, &g)) ||
        (err = check_assert(w, assert, MPI_MODE_NOCHECK, fn)))
        return mpi_result(err);
    if (w->access || w->nlocks > 0 || w->lock_all)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "an access epoch (%s) is already open",
                       w->access ? "MPI_Win_start" : "a lock");
    if (w->fence_open && w->fence_used)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "a fence epoch with operations is still open");
    if ((err = mark_group(w, g, fn, 0)))
        return mpi_result(err);
    for (int r = 0; r < w->size; r++)
        w->peer[r].post_ok = 0;
    w->fence_open = 0;
    w->access = 1;
    w->access_nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    return MPI_SUCCESS;
}

int mpi_win_complete_impl(rma_win_t *w, const char *fn)
{

    if (!w->access)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "no access epoch (MPI_Win_start) is open");
    drain_active(w); /* (an error is raised below) */
    wait_zero(&w->pending_local);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int r = 0; r < w->size; r++) {
        rma_peer_t *p = &w->peer[r];
        if (!p->in_access)
            continue;
        rma_wait_access(w, r); /* consume its POST */
        if (w->pscw_post != NULL)
            pscw_signal(w, r, 1);
        else
            rma_send_ctrl(w, r, RMA_AM_COMPLETE, 0);
        p->in_access = 0;
        p->post_ok = 0;
        peer_covered(p);
    }
    w->access = 0;
    return rma_raise_late(w, fn);
}

static int exposure_done(rma_win_t *w)
{
    for (int r = 0; r < w->size; r++)
        if (w->peer[r].in_exposure &&
            (w->pscw_post != NULL ? pscw_dones(w, r) == w->peer[r].completes_seen
                                  : w->peer[r].completes < 1))
            return 0;
    return 1;
}

static int pred_exposure(void *arg)
{
    return exposure_done(arg);
}

static void exposure_close(rma_win_t *w)
{
    adi_lock();
    for (int r = 0; r < w->size; r++) {
        if (w->peer[r].in_exposure) {
            if (w->pscw_post != NULL)
                w->peer[r].completes_seen++;
            else
                w->peer[r].completes--;
            w->peer[r].in_exposure = 0;
        }
    }
    adi_unlock();
    w->exposure = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int mpi_win_wait_impl(rma_win_t *w, const char *fn)
{

    if (!w->exposure)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch (MPI_Win_post) is open");
    if (!exposure_done(w))
        adi_wait_until(pred_exposure, w);
    exposure_close(w);
    return rma_raise_late(w, fn);
}

int mpi_win_test_impl(rma_win_t *w, int *flag, const char *fn)
{

    if (!w->exposure)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "no exposure epoch (MPI_Win_post) is open");
    adi_progress();
    *flag = exposure_done(w);
    if (!*flag)
        return MPI_SUCCESS;
    exposure_close(w);
    return rma_raise_late(w, fn);
}

/* ---------------------------------------------------------------- passive target */
/* nocheck_note: MPI_MODE_NOCHECK on MPI_Win_lock and MPI_Win_lock_all
 * takes no lock at all, on every kind of window: no lock word of a direct
 * window, no LOCK message to an agent. The assertion says that no other
 * process holds or will try to take a conflicting lock meanwhile, so the
 * lock has nothing to exclude; unlock and flush still complete the
 * operations and order memory. Programs break that promise in practice
 * (OpenCoarrays' event wait holds MPI_Win_lock_all(MPI_MODE_NOCHECK) while
 * it sleeps, and the poster takes MPI_Win_lock(MPI_LOCK_EXCLUSIVE) on it):
 * had the NOCHECK lock taken the word, the exclusive lock would wait for a
 * process that is waiting for it. MPICH and Open MPI take no lock either.
 * See doc/rma.md. */
static int check_rank(rma_win_t *w, int rank, const char *fn)
{
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        return mpi_err_failed(rma_err(w, MPI_ERR_RANK, fn,
                                      "rank=%d is not in [0, %d) or MPI_PROC_NULL", rank, w->size));
    return MPI_SUCCESS;
}

int mpi_win_lock_impl(int lock_type, int rank, int assert, rma_win_t *w, const char *fn)
{
    rma_peer_t *p;
    int err;

    /* (MPICH's order: the rank first) */
    if ((err = check_rank(w, rank, fn)))
        return mpi_result(err);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return rma_err(w, MPI_ERR_LOCKTYPE, fn,
                       "lock_type=%d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lock_type);
    if ((err = check_assert(w, assert, MPI_MODE_NOCHECK, fn)))
        return mpi_result(err);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    p = &w->peer[rank];
    if (w->lock_all || w->access || (w->fence_open && w->fence_used) || p->lock != RMA_LK_NONE)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "%s",
                       p->lock != RMA_LK_NONE ? "this process already holds a lock on that rank"
                       : w->lock_all          ? "MPI_Win_lock inside MPI_Win_lock_all"
                       : w->access            ? "MPI_Win_lock inside an MPI_Win_start epoch"
                                              : "a fence epoch with operations is still open");
    w->fence_open = 0;
    p->lock_type = (uint8_t)lock_type;
    if (assert & MPI_MODE_NOCHECK) {
        p->lock = RMA_LK_NOCHECK; /* no lock word, no message: see nocheck_note */
    } else if (w->direct) {
        if (rw_acquire(w, rank, lock_type) != MPI_SUCCESS)
            return rma_err(w, MPIX_ERR_PROC_FAILED, fn,
                           "a process of the window failed while this one waited for the lock "
                           "of rank %d (it may have held it)",
                           rank);
        p->lock = RMA_LK_GRANTED;
    } else {
        rma_send_ctrl(w, rank, RMA_AM_LOCK, (uint64_t)lock_type);
        p->lock = RMA_LK_REQUESTED;
        if (rank == w->rank)
            rma_wait_access(w, rank); /* the caller may touch its memory right away */
    }
    w->nlocks++;
    return MPI_SUCCESS;
}

int mpi_win_unlock_impl(int rank, rma_win_t *w, const char *fn)
{
    rma_peer_t *p;
    int err;

    if ((err = check_rank(w, rank, fn)))
        return mpi_result(err);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    p = &w->peer[rank];
    if (w->lock_all || p->lock == RMA_LK_NONE)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "rank=%d %s", rank,
                       w->lock_all ? "is locked by MPI_Win_lock_all: end it with MPI_Win_unlock_all"
                                   : "is not locked by this process (no MPI_Win_lock)");
    wait_zero(&p->pending_local);
    finish_wait(w, rank, finish_send(w, rank, 1));
    w->nlocks--;
    if ((err = target_lost(w, rank, fn)) != MPI_SUCCESS)
        return mpi_result(err);
    return rma_raise_late(w, fn);
}

int mpi_win_lock_all_impl(int assert, rma_win_t *w, const char *fn)
{
    int err;

    if ((err = check_assert(w, assert, MPI_MODE_NOCHECK, fn)))
        return mpi_result(err);
    if (w->lock_all || w->nlocks > 0 || w->access || (w->fence_open && w->fence_used))
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "%s",
                       w->lock_all     ? "MPI_Win_lock_all is already active"
                       : w->nlocks > 0 ? "this process holds locks from MPI_Win_lock"
                       : w->access     ? "MPI_Win_lock_all inside an MPI_Win_start epoch"
                                       : "a fence epoch with operations is still open");
    w->fence_open = 0;
    for (int r = 0; r < w->size; r++) {
        rma_peer_t *p = &w->peer[r];
        p->lock_type = MPI_LOCK_SHARED;
        if (assert & MPI_MODE_NOCHECK) {
            p->lock = RMA_LK_NOCHECK;
        } else if (w->direct) {
            if (rw_acquire(w, r, MPI_LOCK_SHARED) != MPI_SUCCESS) {
                for (int k = 0; k < r; k++) {
                    rw_release(w, k, MPI_LOCK_SHARED);
                    w->peer[k].lock = RMA_LK_NONE;
                }
                return rma_err(w, MPIX_ERR_PROC_FAILED, fn,
                               "a process of the window failed while this one waited for the "
                               "lock of rank %d (it may have held it)",
                               r);
            }
            p->lock = RMA_LK_GRANTED;
        } else {
            rma_send_ctrl(w, r, RMA_AM_LOCK, MPI_LOCK_SHARED);
            p->lock = RMA_LK_REQUESTED;
        }
    }
    if (!w->direct && !(assert &MPI_MODE_NOCHECK))
        rma_wait_access(w, w->rank);
    w->lock_all = 1;
    return MPI_SUCCESS;
}

int mpi_win_unlock_all_impl(rma_win_t *w, const char *fn)
{
    unsigned *acks;

    if (!w->lock_all)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn, "MPI_Win_lock_all is not active");
    acks = calloc((size_t)w->size, sizeof *acks);
    if (acks == NULL)
        return rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory");
    wait_zero(&w->pending_local);
    for (int r = 0; r < w->size; r++)
        acks[r] = finish_send(w, r, 1);
    for (int r = 0; r < w->size; r++)
        finish_wait(w, r, acks[r]);
    free(acks);
    w->lock_all = 0;
    return rma_raise_late(w, fn);
}

/* A flush of a direct window: its operations completed when they were
 * issued (loads and stores), so a flush only orders memory. It polls the
 * device on every 16th call rather than every call -- a loop of flushes
 * still lets point-to-point and PSCW traffic move, but an 8-byte get +
 * flush does not pay a poll of every channel (measured: the poll was the
 * larger part of the pair). Nothing is ever reported late on a direct
 * window (rma_raise_late). A local flush of a created window leaves the
 * queued small puts queued: their origin data was copied at the call, so
 * they are locally complete (MPI_Win_flush_local needs no more); the queue
 * is moved when it holds a get (its bytes must be in the origin buffer), a
 * put queued by reference (its origin buffer is the user's again after the
 * local flush) or an accumulate (the target may look for it then, as OSU's
 * osu_acc_latency -c does: rma_cma_queued_refs). */
static int direct_flush(rma_win_t *w, const char *fn, int local)
{
    if ((!local || rma_cma_queued_refs(w)) && rma_cma_flush_queue(w) != CANAL_OK)
        return rma_raise_late(w, fn);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if ((__atomic_add_fetch(&w->flush_polls, 1, __ATOMIC_RELAXED) & 15) == 0)
        adi_progress();
    return MPI_SUCCESS;
}

static int flush(const char *fn, int rank, rma_win_t *w, int local)
{
    int err;

    if ((err = check_rank(w, rank, fn)))
        return mpi_result(err);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (w->peer[rank].lock == RMA_LK_NONE)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn,
                       "no passive-target epoch (MPI_Win_lock/lock_all) toward rank=%d is open",
                       rank);
    if (w->direct) {
        /* (a load while nobody failed: a target that did fails the flush,
         * as it fails the unlock, although its memory took the bytes) */
        if ((err = direct_flush(w, fn, local)) != MPI_SUCCESS ||
            __builtin_expect(__atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) == 0, 1))
            return err;
        return mpi_result(target_lost(w, rank, fn));
    }
    adi_progress(); /* flushes in a polling loop must let the agent work */
    wait_zero(&w->peer[rank].pending_local);
    /* A local flush after an accumulate waits for it to be applied as well:
     * the target may look for it once this returns (OSU's osu_acc_latency
     * -s flush_local -c after a barrier, which does not pass the channel
     * the accumulate took; MPICH and Open MPI have applied it by then). */
    if (!local || w->peer[rank].acc_uncovered)
        finish_wait(w, rank, finish_send(w, rank, 0));
    return rma_raise_late(w, fn);
}

static int flush_all(const char *fn, rma_win_t *w, int local)
{
    unsigned *acks;
    int need = !local;

    if (!w->lock_all && w->nlocks == 0)
        return rma_err(w, MPI_ERR_RMA_SYNC, fn,
                       "no passive-target epoch (MPI_Win_lock/lock_all) is open");
    if (w->direct) {
        int err = direct_flush(w, fn, local);
        if (err != MPI_SUCCESS ||
            __builtin_expect(__atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) == 0, 1))
            return err;
        for (int r = 0; r < w->size && err == MPI_SUCCESS; r++)
            if (w->peer[r].lock != RMA_LK_NONE)
                err = target_lost(w, r, fn);
        return mpi_result(err);
    }
    adi_progress();
    wait_zero(&w->pending_local);
    for (int r = 0; r < w->size && !need; r++)
        need = w->peer[r].acc_uncovered; /* (local: as flush's) */
    if (need) {
        acks = calloc((size_t)w->size, sizeof *acks);
        if (acks == NULL)
            return rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory");
        for (int r = 0; r < w->size; r++)
            if (w->peer[r].lock != RMA_LK_NONE && (!local || w->peer[r].acc_uncovered))
                acks[r] = finish_send(w, r, 0);
        for (int r = 0; r < w->size; r++)
            finish_wait(w, r, acks[r]);
        free(acks);
    }
    return rma_raise_late(w, fn);
}

int mpi_win_flush_impl(int rank, rma_win_t *win, const char *fn)
{
    return flush(fn, rank, win, 0);
}

int mpi_win_flush_local_impl(int rank, rma_win_t *win, const char *fn)
{
    return flush(fn, rank, win, 1);
}

int mpi_win_flush_all_impl(rma_win_t *win, const char *fn)
{
    return flush_all(fn, win, 0);
}

int mpi_win_flush_local_all_impl(rma_win_t *win, const char *fn)
{
    return flush_all(fn, win, 1);
}

int mpi_win_sync_impl(rma_win_t *w, const char *fn)
{

    /* Memory is unified: public and private copies are the same bytes, so
     * a full barrier orders this process's loads and stores. Polling lets
     * the agent apply what has arrived. */
    rma_cma_flush_queue(w);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    adi_progress();
    return MPI_SUCCESS;
}
