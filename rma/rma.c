/*
 * One-sided communication (MPI 4.0 chapter 12), the windows: creation
 * (MPI_Win_create, _allocate, _allocate_shared, _create_dynamic and the _c
 * variants), MPI_Win_free, attach/detach, MPI_Win_shared_query, the
 * predefined and user attributes, info hints, names, error handlers and
 * MPI_Win_get_group. Epochs are in rma_sync.c, the operations in
 * rma_ops.c, the target side in rma_target.c; rma_impl.h holds what they
 * share.
 *
 * Design
 * ------
 * Every window gets a private communicator over the group of the one it was
 * created from, with a fresh context pair (mpi_comm_context_alloc): RMA
 * traffic never mixes with the user's messages, and the few collectives a
 * window needs (creation, fence, free) run on it through the PMPI entry
 * points.
 *
 * Two ways to reach a target's memory:
 *
 * - Direct. When every rank of the window is on this node and the memory
 *   is ours to place (MPI_Win_allocate, MPI_Win_allocate_shared), the
 *   window is one POSIX shared-memory segment (shm_open + mmap, unlinked as
 *   soon as everyone has attached) that every rank maps. Operations are
 *   loads and stores through the datatype engine at the moment they are
 *   called, accumulates take a per-target spin lock that lives in the
 *   segment (so they are element-wise atomic with respect to each other,
 *   MPI_REPLACE and MPI_NO_OP included), and MPI_Win_lock is a
 *   reader/writer lock word in the segment (writers are preferred; none is
 *   taken under MPI_MODE_NOCHECK, in any window: rma_sync.c). Nothing
 *   needs the target's cooperation, so passive-target epochs progress while
 *   the target computes. Flushes are memory fences; a fence is a barrier;
 *   MPI_Win_post and MPI_Win_complete add to per-pair counters in the
 *   segment (rma_sync.c) instead of sending POST and COMPLETE messages.
 *   MPI_Win_allocate_shared requires this mode (MPI_ERR_RMA_SHARED if the
 *   group spans nodes); segments are contiguous across ranks unless
 *   alloc_shared_noncontig is true (then each rank's part is page aligned).
 *   An operation that targets the calling process's own memory is direct
 *   in every window.
 *
 *   MPI_Win_create windows whose ranks share a node are direct too when
 *   CMA works (rma_cma.c): the segment then holds only the slots, and the
 *   target's bytes are moved with process_vm_readv/writev (peer_base holds
 *   addresses in the peers' address spaces; w->cma says so). Accumulates
 *   are read-modify-write under the same per-target lock. When every
 *   rank's window memory came from MPI_Alloc_mem (a memfd region,
 *   rma_mem.c), each rank maps the others' regions instead and the window
 *   is direct with loads and stores like MPI_Win_allocate's (w->maps; not
 *   cma). Dynamic windows on one node are CMA windows as well (since issue
 *   26, rma5): a displacement is an address in the target, and each rank
 *   publishes its attached regions in the segment for the origins to check
 *   (rma_cma.c, "dynamic windows").
 *
 * - Active messages. Otherwise (MPI_Win_create or dynamic windows without CMA, groups
 *   spanning nodes, or when the segment cannot be made) every process runs
 *   a target-side agent: a receive posted on the window's context for
 *   ANY_SOURCE and tag RMA_TAG_AM, whose completion callback (inside the
 *   device's progress, device lock held) decodes one rma_hdr_t, performs it
 *   on window memory and posts itself again. A header carries the kind, the
 *   target byte offset, the target layout (a flattened list of (offset,
 *   length) blocks unless the target datatype is contiguous), the
 *   accumulate op and its basic type, and small data inline. Puts larger
 *   than CANAL_RMA_INLINE_MAX send their data as a second message with a
 *   per-operation tag that the agent receives straight into window memory
 *   (rendezvous and rdma_read where the channel has it); gets and fetching
 *   operations are answered with a message on a reply tag that the origin
 *   posted a receive for before sending the request, so the reply lands in
 *   the origin's buffer with the origin's datatype. Accumulates always
 *   carry their data inline, so one agent applies them in arrival order:
 *   element-wise atomic and ordered (accumulate_ordering rar,raw,war,waw).
 *   The agent also keeps the lock queue of its window (FIFO; shared locks
 *   granted together) and answers LOCK, UNLOCK, FLUSH, POST and COMPLETE
 *   messages; an UNLOCK, FLUSH or COMPLETE waits for the large-put data of
 *   that origin still in flight before it is acknowledged.
 *
 * Completion. Origin: each operation counts the device requests it still
 *   waits for (data send, reply receive); flush_local waits for those.
 *   Remote completion of puts and accumulates: flush and unlock send a
 *   FLUSH/UNLOCK and wait for the acknowledgement; MPI_Win_complete sends
 *   COMPLETE and MPI_Win_wait waits for one from each origin; a fence sums
 *   the operations every origin sent to every target (reduce_scatter) and
 *   waits until that many were applied here (counters per fence-epoch
 *   parity, because operations of the next epoch may arrive before this
 *   process leaves the fence).
 *
 * Progress. Passive-target epochs must complete while the target computes
 *   without calling MPI. Direct windows need nothing from the target. An
 *   active-message window needs its agent to run, which happens whenever
 *   the process polls the device: inside any MPI call, or in the RMA
 *   progress thread. The thread starts with the first window that needs it
 *   and stops (joined) at the MPI_Win_free of the last one, or at
 *   MPI_Finalize. CANAL_RMA_PROGRESS_THREAD: auto (the default) starts it
 *   for windows that are not direct, span more than one process and whose
 *   info does not say no_locks=true (no passive target, so fence and PSCW
 *   progress in the calls that close them); 1 for every window; 0 never (a
 *   computing target then delays lock grants, flushes and gets until its
 *   next MPI call, as MPICH does without MPIR_CVAR_ASYNC_PROGRESS). It runs
 *   at every thread level: below MPI_THREAD_MULTIPLE the device lock is
 *   switched on for good when the thread first starts (adi_lock_enable),
 *   which costs an uncontended mutex per device entry and makes blocked
 *   waits yield instead of sleeping in the channel, as under MULTIPLE. The
 *   thread sleeps between polls: RMA_PROGRESS_INTERVAL (50 us) while
 *   operations arrive, backing off to RMA_PROGRESS_IDLE_INTERVAL (1 ms)
 *   when idle, and it does not poll while the application itself polls
 *   (it is inside MPI): an idle window costs a few microseconds per
 *   millisecond, and a rank that communicates never fights it for the
 *   device lock. Measured on a target that computes on a 2-core machine
 *   (the thread must be scheduled next to it): lock/get/unlock 0.5-1.5 ms.
 *   doc/rma.md has the numbers and the list of what is direct and what is
 *   an active message.
 *
 * Errors. Argument and epoch errors are found at the origin and raised
 *   through the window's error handler (MPI_ERRORS_ARE_FATAL by default):
 *   target rank (MPI_ERR_RANK), displacement outside the target's window
 *   (MPI_ERR_RMA_RANGE, checked against the sizes gathered at creation),
 *   operation outside an epoch or overlapping epochs (MPI_ERR_RMA_SYNC),
 *   lock type (MPI_ERR_LOCKTYPE), assertions (MPI_ERR_ASSERT), mismatched
 *   datatypes (MPI_ERR_TYPE), ops (MPI_ERR_OP). The target checks every
 *   address again (dynamic windows: against the attached regions) and
 *   never touches memory outside the window; what it refuses is reported
 *   to the origin in the next flush/unlock acknowledgement or as a short
 *   reply, and raised at the origin's next synchronization call.
 */
#include "rma_impl.h"
#include "mpi/api_impl.h"

#include "common/cvar.h"
#include "common/shmseg.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */
long long rma_cvar_int(const char *name, long long def)
{
    /* The rows are added to common/cvar.c by the integrator; until then the
     * defaults apply. */
    return common_cvar_find(name) >= 0 ? common_cvar_int(name) : def;
}

int rma_cvar_bool(const char *name, int def)
{
    return common_cvar_find(name) >= 0 ? common_cvar_bool(name) : def;
}

rma_win_t *rma_win_get(MPI_Win h)
{
    if (mpi_handle_kind(h) != MPI_HKIND_DIRECT || mpi_handle_objtype(h) != MPI_OBJ_WIN)
        return NULL;
    return mpi_handle_get(MPI_OBJ_WIN, h);
}

int rma_win_check(MPI_Win h, const char *fn, rma_win_t **out)
{
    rma_win_t *w = rma_win_get(h);
    if (w == NULL)
        return mpi_err_raise(NULL, MPI_ERR_WIN, fn, "win=%#x is not a valid window%s", (unsigned)h,
                             h == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");
    *out = w;
    return MPI_SUCCESS;
}

/* The window's handler; one never set follows MPI_COMM_WORLD's when that
 * is predefined (MPICH does so: errors/attr/keyvalmis sets
 * MPI_ERRORS_RETURN on the world after creating its window). */
static MPI_Errhandler win_errh(const rma_win_t *w)
{
    MPI_Errhandler wh = mpi_comm_world_obj.errhandler;
    if (w->errh_default && (wh == MPI_ERRORS_RETURN || wh == MPI_ERRORS_ARE_FATAL ||
                            wh == MPI_ERRORS_ABORT))
        return wh;
    return w->errhandler;
}

static int win_verr(rma_win_t *w, int errclass, const char *fn, const char *fmt, va_list ap)
{
    char detail[MPI_MAX_ERROR_STRING];
    MPI_Win h = w->handle;

    vsnprintf(detail, sizeof detail, fmt, ap);
    return mpi_err_raise_errh(win_errh(w), MPI_OBJ_WIN, &h, errclass, fn, "%s", detail);
}

int rma_err(rma_win_t *w, int errclass, const char *fn, const char *fmt, ...)
{
    va_list ap;
    int code;

    va_start(ap, fmt);
    code = win_verr(w, errclass, fn, fmt, ap);
    va_end(ap);
    return code;
}

/* Raise an existing error code (from the attribute functions, or the
 * user's in MPI_Win_call_errhandler) through the window's handler. */
static int raise_code(rma_win_t *w, int code, const char *fn)
{
    MPI_Win h = w->handle;
    return mpi_err_invoke_errh(win_errh(w), MPI_OBJ_WIN, &h, code, fn);
}

/* [lo, hi) lies in attached memory; it may span regions attached next to
 * each other (MPICH rma/win_dynamic_rma_flush_get attaches two halves of
 * one array and accesses across the seam). */
int rma_dynamic_contains(rma_win_t *w, uintptr_t lo, uintptr_t hi)
{
    int advanced = 1;

    if (lo > hi)
        return 0;
    while (advanced) {
        advanced = 0;
        for (rma_region_t *r = w->regions; r != NULL; r = r->next)
            if (lo >= r->base && lo < r->base + r->size) {
                if (hi <= r->base + r->size)
                    return 1;
                lo = r->base + r->size; /* covered up to here: look for the next piece */
                advanced = 1;
            }
    }
    return 0;
}

char *rma_local_addr(rma_win_t *w, int target, MPI_Aint disp, int64_t lo, int64_t hi)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t a = (uintptr_t)disp, x = a + (uintptr_t)lo, y = a + (uintptr_t)hi;
        if (hi > lo && (target == w->rank ? !rma_dynamic_contains(w, x, y)
                                          : !w->cma || !rma_dyn_peer_contains(w, target, x, y)))
            return NULL;
        return (char *)a;
    }
    char *base = w->direct ? w->peer_base[target] : (target == w->rank ? w->base : NULL);
    int64_t off = 0, a = 0, b = 0;
    if (__builtin_mul_overflow((int64_t)disp, (int64_t)w->units[target], &off))
        return NULL;
    if (hi > lo && (base == NULL || __builtin_add_overflow(off, lo, &a) ||
                    __builtin_add_overflow(off, hi, &b) || a < 0 || b > (int64_t)w->sizes[target]))
        return NULL;
    return base + off;
}

void rma_acc_lock(rma_win_t *w, int target)
{
    if (!w->direct) {
        adi_lock(); /* serializes with the agent, which runs under it */
        return;
    }
    volatile int *p = &w->slots[target].acc;
    for (int spins = 0; __atomic_exchange_n(p, 1, __ATOMIC_ACQUIRE) != 0;) {
        while (__atomic_load_n(p, __ATOMIC_RELAXED) != 0)
            if (++spins > 64)
                sched_yield();
    }
}

void rma_acc_unlock(rma_win_t *w, int target)
{
    if (!w->direct) {
        adi_unlock();
        return;
    }
    __atomic_store_n(&w->slots[target].acc, 0, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- progress thread */
/* A thread that polls the device while windows that need it exist, so that
 * passive-target operations complete while the target computes without
 * calling MPI (see "Progress" at the top). CANAL_RMA_PROGRESS_THREAD says
 * when: auto (windows whose targets must help: not direct, not no_locks),
 * 1 (every window), 0 (never). Below MPI_THREAD_MULTIPLE the device lock is
 * switched on first (adi_lock_enable), because the thread and the caller
 * then share the device.
 *
 * It must not cost the computing ranks a core (ranks often outnumber the
 * cores): it sleeps between polls, RMA_PROGRESS_INTERVAL (50 us) while
 * operations arrive, doubling up to RMA_PROGRESS_IDLE_INTERVAL (1 ms) while
 * nothing does; and when another thread has polled the device since its
 * last look (the application is inside MPI and serves the windows itself),
 * it does not poll at all, so it never contends for the device lock with a
 * rank that is communicating. Idle, that is one wake-up per millisecond of a
 * few microseconds. It sleeps on a condition variable so that the last
 * MPI_Win_free (or MPI_Finalize) stops it at once. */
enum { PROG_AUTO, PROG_ALWAYS, PROG_NEVER };

static int truthy(const char *v);

static pthread_mutex_t prog_life = PTHREAD_MUTEX_INITIALIZER; /* start/stop, prog_users */
static pthread_mutex_t prog_mu = PTHREAD_MUTEX_INITIALIZER;   /* prog_cv, prog_stop */
static pthread_cond_t prog_cv;
static int prog_cv_ready;
static pthread_t prog_thread;
static int prog_users, prog_stop, prog_hook = -1, prog_mode = -1;
/* adi_progress() calls of every thread, counted by a progress hook (which
 * runs with the device lock held, so plain increments do not race). */
static uint64_t prog_polls;

static void prog_count(void *arg)
{
    (void)arg;
    __atomic_store_n(&prog_polls, __atomic_load_n(&prog_polls, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

static int word_in(const char *v, const char *const *words)
{
    for (; *words != NULL; words++)
        if (strcasecmp(v, *words) == 0)
            return 1;
    return 0;
}

/* CANAL_RMA_PROGRESS_THREAD, read once (prog_life held). */
static int prog_mode_get(void)
{
    static const char *const on[] = {"1", "yes", "on", "true", "always", NULL};
    static const char *const off[] = {"0", "no", "off", "false", "never", NULL};
    const char *v;

    if (prog_mode >= 0)
        return prog_mode;
    v = common_cvar_find("RMA_PROGRESS_THREAD") >= 0 ? common_cvar_str("RMA_PROGRESS_THREAD")
                                                    : "auto";
    if (word_in(v, on))
        prog_mode = PROG_ALWAYS;
    else if (word_in(v, off))
        prog_mode = PROG_NEVER;
    else {
        if (strcasecmp(v, "auto") != 0)
            LOG_WARN("CANAL_RMA_PROGRESS_THREAD=%s: expected auto, 1 or 0; using auto", v);
        prog_mode = PROG_AUTO;
    }
    return prog_mode;
}

static long prog_fast_us, prog_idle_us; /* read by prog_start, before the thread */
enum { PROG_QUIET_POLLS = 20 };         /* at the short interval after work */

static void *prog_main(void *arg)
{
    long fast = prog_fast_us, idle = prog_idle_us, us;
    int quiet = PROG_QUIET_POLLS + 1; /* empty polls since the last work */
    uint64_t seen = __atomic_load_n(&prog_polls, __ATOMIC_RELAXED);
    struct timespec dl;

    (void)arg;
    if (fast < 1)
        fast = 1;
    if (idle < fast)
        idle = fast;
    us = fast;
    pthread_mutex_lock(&prog_mu);
    while (!prog_stop) {
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_nsec += us * 1000;
        dl.tv_sec += dl.tv_nsec / 1000000000;
        dl.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&prog_cv, &prog_mu, &dl);
        if (prog_stop)
            break;
        pthread_mutex_unlock(&prog_mu);
        if (__atomic_load_n(&prog_polls, __ATOMIC_RELAXED) != seen) {
            /* The application polled since our last look: it is in MPI. */
            us = us * 2 < idle ? us * 2 : idle;
        } else {
            int n = 0, k;
            /* Serve a burst before sleeping again: a get or a lock round
             * trip needs a few polls. */
            for (int i = 0; i < 64 && (k = adi_progress()) > 0; i++)
                n += k;
            /* After work, stay at the short interval for a while: the
             * origin's next message of the epoch (the get after the lock
             * grant, the unlock after the get) comes one round trip later. */
            if (n > 0)
                quiet = 0;
            us = n > 0 || ++quiet <= PROG_QUIET_POLLS ? fast : us * 2 < idle ? us * 2 : idle;
        }
        seen = __atomic_load_n(&prog_polls, __ATOMIC_RELAXED);
        pthread_mutex_lock(&prog_mu);
    }
    pthread_mutex_unlock(&prog_mu);
    return NULL;
}

/* prog_life held. 1 when the thread runs. */
static int prog_start(void)
{
    pthread_condattr_t ca;
    sigset_t all, old;
    int rc;

    if (!prog_cv_ready) {
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&prog_cv, &ca);
        pthread_condattr_destroy(&ca);
        prog_cv_ready = 1;
    }
    /* Below MPI_THREAD_MULTIPLE the device is unlocked; the caller is the
     * only thread inside MPI and is not inside the device now. */
    if (mpi_thread_level != MPI_THREAD_MULTIPLE)
        adi_lock_enable();
    prog_hook = adi_progress_hook_add(prog_count, NULL);
    if (prog_hook < 0) {
        LOG_INFO("rma: no progress hook left; passive targets progress when they call MPI");
        return 0;
    }
    prog_stop = 0;
    prog_fast_us = (long)rma_cvar_int("RMA_PROGRESS_INTERVAL", 50);
    prog_idle_us = (long)rma_cvar_int("RMA_PROGRESS_IDLE_INTERVAL", 1000);
    /* Signals for the process stay with the application's threads. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&prog_thread, NULL, prog_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        LOG_WARN("rma: cannot start the progress thread (%s); passive targets progress when "
                 "they call MPI",
                 strerror(rc));
        adi_progress_hook_remove(prog_hook);
        prog_hook = -1;
        return 0;
    }
    return 1;
}

/* prog_life held. */
static void prog_stop_join(void)
{
    pthread_mutex_lock(&prog_mu);
    prog_stop = 1;
    pthread_cond_signal(&prog_cv);
    pthread_mutex_unlock(&prog_mu);
    pthread_join(prog_thread, NULL);
    adi_progress_hook_remove(prog_hook);
    prog_hook = -1;
}

/* Does this window need the thread? Passive-target operations need the
 * target's agent unless every origin reaches the memory directly (direct
 * windows; a window of one process), or the info says the window is never
 * locked. */
static int prog_wanted(rma_win_t *w, int mode)
{
    if (mode == PROG_NEVER)
        return 0;
    if (mode == PROG_ALWAYS)
        return 1;
    return !w->direct && w->size > 1 && !truthy(mpi_info_lookup(w->hints, "no_locks"));
}

/* Called by win_init (not inside the device): 1 when the window holds a
 * reference on the thread. */
static int prog_retain(rma_win_t *w)
{
    int on = 0;
    pthread_mutex_lock(&prog_life);
    if (prog_wanted(w, prog_mode_get()) && (prog_users > 0 || prog_start())) {
        prog_users++;
        on = 1;
    }
    pthread_mutex_unlock(&prog_life);
    return on;
}

static void prog_release(void)
{
    pthread_mutex_lock(&prog_life);
    if (prog_users > 0 && --prog_users == 0)
        prog_stop_join();
    pthread_mutex_unlock(&prog_life);
}

/* MPI_Finalize with windows never freed: stop the thread before the device
 * goes down. */
static void rma_module_finalize(void)
{
    pthread_mutex_lock(&prog_life);
    if (prog_users > 0) {
        prog_users = 0;
        prog_stop_join();
    }
    pthread_mutex_unlock(&prog_life);
}

__attribute__((constructor)) static void rma_module_register(void)
{
    mpi_register_hook(NULL, rma_module_finalize);
}

/* ---------------------------------------------------------------- hints */
static const char *const hint_keys[] = {"no_locks",       "accumulate_ordering",
                                        "accumulate_ops", "same_size",
                                        "same_disp_unit", "alloc_shared_noncontig"};
static const char *const hint_defaults[] = {"false", "rar,raw,war,waw", "same_op_no_op",
                                            "false", "false",           "false"};
enum { NHINTS = 6 };

static int truthy(const char *v)
{
    return v != NULL && strcmp(v, "true") == 0;
}

static int hints_apply(rma_win_t *w, MPI_Info info)
{
    int err;
    if (w->hints == MPI_INFO_NULL) {
        if ((err = mpi_info_new(&w->hints)) != MPI_SUCCESS)
            return err;
        for (int i = 0; i < NHINTS; i++) {
            if (i == 5 && w->flavor != MPI_WIN_FLAVOR_SHARED)
                continue;
            if ((err = mpi_info_put(w->hints, hint_keys[i], hint_defaults[i])) != MPI_SUCCESS)
                return err;
        }
    }
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    for (int i = 0; i < NHINTS; i++) {
        const char *v = mpi_info_lookup(info, hint_keys[i]);
        if (v == NULL || (i == 5 && w->flavor != MPI_WIN_FLAVOR_SHARED))
            continue;
        if ((err = mpi_info_put(w->hints, hint_keys[i], v)) != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- segments */
/* Every rank of the window maps one segment: a page of lock slots (one
 * per rank, and one more whose words are the fence's barrier), then each
 * rank's memory. Collective over w->comm; *ok_out says whether every
 * rank has it mapped (if not, nobody keeps it). */
static int seg_setup(rma_win_t *w, int contiguous, const uint64_t *remote, int cma, int *ok_out,
                     const char *fn)
{
    long page = sysconf(_SC_PAGESIZE);
    /* one slot per rank and one for the fence's barrier */
    size_t slots_len = (size_t)(w->size + 1) * sizeof(rma_shm_slot_t);
    size_t mbox_len = cma ? rma_mbox_bytes(w->size) : 0; /* cma: mailboxes */
    /* PSCW's post and complete counters, one pair per ordered pair of ranks */
    size_t pscw_len = 2 * (size_t)w->size * (size_t)w->size * sizeof(uint32_t);
    /* a dynamic window's published tables of attached regions */
    size_t dyn_len = cma && w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? rma_dyn_bytes(w->size) : 0;
    size_t hdr = (slots_len + mbox_len + pscw_len + dyn_len + (size_t)page - 1) &
                 ~((size_t)page - 1);
    size_t *off = malloc(sizeof *off * (size_t)w->size);
    size_t total = hdr;
    char name[COMMON_SHM_NAME_MAX] = "";
    int ok = 1, all_ok = 0, err;
    void *seg = MAP_FAILED;

    *ok_out = 0;
    if (off == NULL)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < w->size; r++) {
        if (!contiguous)
            total = (total + (size_t)page - 1) & ~((size_t)page - 1);
        off[r] = total;
        if (remote == NULL) /* a CMA window's segment holds the slots only */
            total += (size_t)w->sizes[r];
    }
    if (total == hdr)
        total += 1;
    if (w->rank == 0 && (seg = common_shm_create("win", total, name)) == NULL)
        seg = MAP_FAILED;
    err = mpi_bcast_impl(name, sizeof name, MPI_CHAR, 0, w->comm, fn);
    if (err != MPI_SUCCESS) {
        if (seg != MAP_FAILED)
            munmap(seg, total);
        common_shm_unlink(name);
        free(off);
        return err;
    }
    if (name[0] == '\0') {
        free(off);
        return MPI_SUCCESS; /* no segment: the caller decides */
    }
    if (w->rank != 0 && (seg = common_shm_attach(name, total)) == NULL)
        seg = MAP_FAILED;
    ok = seg != MAP_FAILED;
    err = mpi_allreduce_impl(&ok, &all_ok, 1, MPI_INT, MPI_MIN, w->comm, fn);
    if (w->rank == 0)
        common_shm_unlink(name); /* everyone who could attach has attached */
    if (err != MPI_SUCCESS || !all_ok) {
        if (seg != MAP_FAILED)
            munmap(seg, total);
        free(off);
        return err;
    }
    w->seg = seg;
    w->seg_len = total;
    w->slots = seg;
    w->pscw_post = (uint32_t *)((char *)seg + slots_len + mbox_len);
    w->pscw_done = w->pscw_post + (size_t)w->size * (size_t)w->size;
    w->peer_base = malloc(sizeof *w->peer_base * (size_t)w->size);
    if (w->peer_base == NULL ||
        (dyn_len > 0 && rma_dyn_start(w, (char *)seg + slots_len + mbox_len + pscw_len) < 0)) {
        free(off);
        return MPI_ERR_NO_MEM; /* the others go on; this process reports */
    }
    for (int r = 0; r < w->size; r++)
        w->peer_base[r] = remote != NULL ? (char *)(uintptr_t)remote[r] : (char *)seg + off[r];
    free(off);
    w->direct = 1;
    w->cma = cma; /* (remote but not cma: a mapped created window) */
    if (mbox_len > 0)
        rma_mbox_start(w, (char *)seg + slots_len);
    w->base = w->peer_base[w->rank];
    *ok_out = 1;
    return MPI_SUCCESS;
}

static int all_on_this_node(mpi_comm_t *c)
{
    int me = mpi_pmi.node_of != NULL ? mpi_pmi.node_of[mpi_pmi.rank] : 0;
    if (mpi_pmi.node_of == NULL)
        return mpi_pmi.size == 1;
    for (int r = 0; r < c->size; r++)
        if (mpi_pmi.node_of[mpi_comm_peer_job_rank(c, r)] != me)
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- create/free */
static void win_destroy(rma_win_t *w)
{
    if (w == NULL)
        return;
    if (w->progress_thread)
        prog_release();
    if (w->agent != NULL)
        rma_agent_stop(w);
    rma_mbox_stop(w);
    rma_dyn_stop(w);
    if (w->seg != NULL)
        munmap(w->seg, w->seg_len);
    for (int r = 0; w->maps != NULL && r < w->size; r++)
        if (w->maps[r] != NULL && w->map_lens != NULL)
            munmap(w->maps[r], w->map_lens[r]);
    free(w->maps);
    free(w->map_lens);
    free(w->owned_mem);
    while (w->regions != NULL) {
        rma_region_t *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    while (!common_list_empty(&w->lq)) {
        rma_lockreq_t *q = common_list_entry(w->lq.head, rma_lockreq_t, link);
        common_list_remove(&w->lq, &q->link);
        free(q);
    }
    if (w->hints != MPI_INFO_NULL)
        mpi_info_release(w->hints);
    mpi_errhandler_release(w->errhandler);
    if (w->handle != 0)
        mpi_handle_del(MPI_OBJ_WIN, w->handle);
    if (w->comm != NULL)
        mpi_comm_destroy(w->comm); /* frees the context */
    free(w->peer_base);
    free(w->pids);
    free(w->cq);
    free(w->cq_stage);
    free(w->sizes);
    free(w->units);
    free(w->job);
    free(w->peer);
    free(w->abuf);
    free(w);
}

/* win_init, phase by phase: the arguments every rank checks alone, the
 * window's own context and communicator, everybody's size and unit, the
 * memory. Each raises its errors on the user's communicator c; win_init
 * destroys the window when one fails. */
static int win_check_args(const char *fn, int flavor, MPI_Aint size, MPI_Aint disp_unit,
                          MPI_Info info, mpi_comm_t *c, void *baseptr)
{
    MPI_Comm comm = c->handle;

    if (c->is_inter)
        return mpi_err_fail(c, MPI_ERR_COMM, fn,
                            "comm=%#x is an intercommunicator; windows need an intracommunicator",
                            (unsigned)comm);
    /* (MPICH's order: the info before the size and the unit) */
    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return mpi_err_fail(c, MPI_ERR_INFO, fn, "info=%#x is not a valid info object",
                            (unsigned)info);
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        if (size < 0)
            return mpi_err_fail(c, MPI_ERR_SIZE, fn, "size=%lld is negative", (long long)size);
        if (disp_unit <= 0)
            return mpi_err_fail(c, MPI_ERR_DISP, fn, "disp_unit=%lld is not positive",
                                (long long)disp_unit);
    }
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && baseptr == NULL)
        return mpi_err_fail(c, MPI_ERR_ARG, fn, "baseptr is NULL");
    if (flavor == MPI_WIN_FLAVOR_SHARED && !all_on_this_node(c))
        return mpi_err_fail(c, MPI_ERR_RMA_SHARED, fn,
                            "the processes of comm=%#x are not all on one node, so their "
                            "memory cannot be shared",
                            (unsigned)comm);
    return MPI_SUCCESS;
}

static int win_comm(const char *fn, rma_win_t *w, mpi_comm_t *c)
{
    mpi_group_t *g;
    int err, ctx = -1;
    canal_status_t st;

    /* A context of its own, and a communicator to run collectives on. The
     * agreement returns a status (CANAL_ERR_LIMIT with its message when
     * every id is taken, a lost peer's class), not an MPI class. */
    if ((st = mpi_comm_context_alloc(c, &ctx)) != CANAL_OK)
        return mpi_err_fail_status(c, st, fn);
    g = mpi_comm_local_group(c);
    if (g == NULL || (err = mpi_comm_new_intra(c, ctx, g, &w->comm)) != MPI_SUCCESS) {
        mpi_comm_context_free(ctx);
        err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for the window's communicator");
        return err;
    }
    mpi_errhandler_release(w->comm->errhandler);
    w->comm->errhandler = MPI_ERRORS_RETURN;
    w->comm->errh_default = 0;
    w->ctx = ctx;
    return MPI_SUCCESS;
}

static int win_exchange_sizes(const char *fn, rma_win_t *w, mpi_comm_t *c, MPI_Aint size,
                              MPI_Aint disp_unit)
{
    MPI_Aint mine[2] = {size, disp_unit};
    MPI_Aint *all = malloc(sizeof *all * 2 * (size_t)w->size);
    int err;

    if (all == NULL)
        return mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory");
    err = mpi_allgather_impl(mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, w->comm, fn);
    for (int r = 0; r < w->size && err == MPI_SUCCESS; r++) {
        w->sizes[r] = all[2 * r];
        w->units[r] = all[2 * r + 1];
    }
    free(all);
    if (err != MPI_SUCCESS)
        return mpi_err_fail_code(c, err, fn);
    return MPI_SUCCESS;
}

/* Direct windows map a shared segment; MPI_Win_allocate without one gets
 * aligned memory of its own. */
static int win_memory(const char *fn, rma_win_t *w, mpi_comm_t *c, int flavor, MPI_Aint size)
{
    int err, shm_ok = 0;

    if (flavor == MPI_WIN_FLAVOR_SHARED ||
        (flavor == MPI_WIN_FLAVOR_ALLOCATE && rma_cvar_bool("RMA_DIRECT", 1) &&
         all_on_this_node(c))) {
        err = seg_setup(w, flavor == MPI_WIN_FLAVOR_SHARED && !w->noncontig, NULL, 0, &shm_ok,
                        fn);
        if (err != MPI_SUCCESS)
            return mpi_err_fail(c, err, fn, "cannot map the window's shared segment");
        if (!shm_ok && flavor == MPI_WIN_FLAVOR_SHARED)
            return mpi_err_fail(c, MPI_ERR_NO_MEM, fn,
                                "cannot create a %lld-byte shared-memory segment for the window "
                                "(is /dev/shm large enough?)",
                                (long long)size);
    }
    if ((flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC) && w->size > 1 &&
        rma_cvar_bool("RMA_DIRECT", 1) && all_on_this_node(c)) {
        /* The user's memory, reached with CMA; the locks in a segment
         * (dynamic windows: with the tables of attached regions). */
        uint64_t *bases = NULL;
        int mapped = 0;
        err = rma_cma_setup(w, c, &bases, &mapped, fn);
        if (err == MPI_SUCCESS && bases != NULL)
            err = seg_setup(w, 0, bases, !mapped, &shm_ok, fn);
        free(bases);
        if (err != MPI_SUCCESS)
            return mpi_err_fail(c, err, fn, "cannot set up single-copy access to the window");
    }
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE && !shm_ok) {
        if (posix_memalign(&w->owned_mem, 64, size > 0 ? (size_t)size : 1) != 0)
            return mpi_err_fail(c, MPI_ERR_NO_MEM, fn,
                                "cannot allocate %lld bytes of window memory", (long long)size);
        w->base = w->owned_mem;
    }
    return MPI_SUCCESS;
}

static int win_init(const char *fn, int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                    mpi_comm_t *c, void *base, void *baseptr, MPI_Win *win_out)
{
    rma_win_t *w = NULL;
    int err;
    const char *nc;

    if ((err = win_check_args(fn, flavor, size, disp_unit, info, c, baseptr)) != MPI_SUCCESS)
        return mpi_result(err);

    w = calloc(1, sizeof *w);
    if (w == NULL)
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn, "out of memory for a window");
    w->flavor = flavor;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->errh_default = 1;
    w->hints = MPI_INFO_NULL;
    w->lock_excl = -1;
    w->mbox_hook = -1;
    w->size = c->size;
    w->rank = c->rank;
    w->bytes = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    w->disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit;
    w->base = flavor == MPI_WIN_FLAVOR_CREATE ? base : NULL;
    w->peer = calloc((size_t)w->size, sizeof *w->peer);
    w->job = malloc(sizeof *w->job * (size_t)w->size);
    w->sizes = malloc(sizeof *w->sizes * (size_t)w->size);
    w->units = malloc(sizeof *w->units * (size_t)w->size);
    if (w->peer == NULL || w->job == NULL || w->sizes == NULL || w->units == NULL) {
        err =
            mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of memory for a window of %d ranks", w->size);
        goto fail;
    }
    for (int r = 0; r < w->size; r++)
        w->job[r] = mpi_comm_peer_job_rank(c, r);

    /* A context of its own, and a communicator to run collectives on. */
    if ((err = win_comm(fn, w, c)) != MPI_SUCCESS)
        goto fail;

    if (flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        (err = win_exchange_sizes(fn, w, c, size, disp_unit)) != MPI_SUCCESS)
        goto fail;
    /* (memory allocation kinds: the communicator's, or those of info) */
    if ((err = hints_apply(w, info)) != MPI_SUCCESS ||
        (err = mpi_memkinds_put(w->hints, mpi_memkinds_of(c->info), info)) != MPI_SUCCESS) {
        err = mpi_err_fail(c, err, fn, "cannot record the window's info hints");
        goto fail;
    }
    nc = mpi_info_lookup(w->hints, "alloc_shared_noncontig");
    w->noncontig = truthy(nc);

    if ((err = win_memory(fn, w, c, flavor, size)) != MPI_SUCCESS)
        goto fail;
    if (rma_agent_start(w) < 0) {
        err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "cannot start the window's target agent: %s",
                           common_err_detail());
        goto fail;
    }
    w->progress_thread = prog_retain(w);
    w->handle = mpi_handle_new(MPI_OBJ_WIN, w);
    if (w->handle == 0) {
        err = mpi_err_fail(c, MPI_ERR_NO_MEM, fn, "out of window handles");
        goto fail;
    }
    if (baseptr != NULL)
        *(void **)baseptr = w->base;
    *win_out = w->handle;
    return MPI_SUCCESS;
fail:
    win_destroy(w);
    return mpi_result(err);
}

int mpi_win_create_impl(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        mpi_comm_t *comm, MPI_Win *win, const char *fn)
{
    if (base == MPI_IN_PLACE && size > 0)
        return mpi_err_fail(comm, MPI_ERR_ARG, fn,
                            "base is MPI_IN_PLACE with size=%lld; only collectives take it",
                            (long long)size);
    return win_init(fn, MPI_WIN_FLAVOR_CREATE, size, disp_unit, info, comm, base, NULL, win);
}

int mpi_win_allocate_impl(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi_comm_t *comm,
                          void *baseptr, MPI_Win *win, const char *fn)
{
    return win_init(fn, MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, comm, NULL, baseptr, win);
}

int mpi_win_allocate_shared_impl(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi_comm_t *comm,
                                 void *baseptr, MPI_Win *win, const char *fn)
{
    return win_init(fn, MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, comm, NULL, baseptr, win);
}

int mpi_win_create_dynamic_impl(MPI_Info info, mpi_comm_t *comm, MPI_Win *win, const char *fn)
{
    return win_init(fn, MPI_WIN_FLAVOR_DYNAMIC, 0, 1, info, comm, NULL, NULL, win);
}

int mpi_win_free_impl(MPI_Win *win, const char *fn)
{
    rma_win_t *w = NULL;
    int err;

    if ((err = rma_win_check(*win, fn, &w)) || w == NULL)
        return err; /* (w NULL: the handler cleared the code) */
    if (rma_win_busy(w))
        return rma_err(w, MPI_ERR_RMA_SYNC, fn,
                       "the window still has an open epoch (%s); close it before MPI_Win_free",
                       w->nlocks     ? "a lock"
                       : w->lock_all ? "MPI_Win_lock_all"
                       : w->access   ? "MPI_Win_start"
                       : w->exposure ? "MPI_Win_post"
                                     : "operations after the last fence");
    if ((err = mpi_attr_delete_all(MPI_OBJ_WIN, w->handle, &w->attrs)) != MPI_SUCCESS)
        return raise_code(w, err, fn);
    rma_cma_flush_queue(w); /* (empty once the epochs are closed) */
    /* Everyone has closed its epochs toward us once everyone is here. */
    if ((err = mpi_barrier_impl(w->comm, fn)) != MPI_SUCCESS)
        return raise_code(w, err, fn);
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- dynamic memory */
int mpi_win_attach_impl(rma_win_t *w, void *base, MPI_Aint size, const char *fn)
{
    rma_region_t *r;
    uintptr_t lo = (uintptr_t)base, hi = lo + (uintptr_t)size;

    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return rma_err(w, MPI_ERR_RMA_FLAVOR, fn,
                       "memory can be attached only to windows of MPI_Win_create_dynamic");
    if (size < 0)
        return rma_err(w, MPI_ERR_SIZE, fn, "size=%lld is negative", (long long)size);
    if (base == NULL && size > 0)
        return rma_err(w, MPI_ERR_ARG, fn, "base is NULL with size=%lld", (long long)size);
    if (base == MPI_IN_PLACE && size > 0)
        return rma_err(w, MPI_ERR_ARG, fn,
                       "base is MPI_IN_PLACE with size=%lld; only collectives take it",
                       (long long)size);
    if (size == 0)
        return MPI_SUCCESS;
    for (r = w->regions; r != NULL; r = r->next)
        if (lo < r->base + r->size && r->base < hi)
            return rma_err(w, MPI_ERR_RMA_ATTACH, fn,
                           "[%p, +%lld) overlaps memory already attached at [%p, +%zu)", base,
                           (long long)size, (void *)r->base, r->size);
    r = malloc(sizeof *r);
    if (r == NULL)
        return rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory");
    r->base = lo;
    r->size = (size_t)size;
    adi_lock(); /* the agent reads the list */
    r->next = w->regions;
    w->regions = r;
    if (rma_dyn_publish(w) < 0) { /* (direct: the others read the table) */
        w->regions = r->next;
        adi_unlock();
        free(r);
        return rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory for the table of attached memory");
    }
    adi_unlock();
    return MPI_SUCCESS;
}

int mpi_win_detach_impl(rma_win_t *w, const void *base, const char *fn)
{
    rma_region_t **pp, *r;

    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return rma_err(w, MPI_ERR_RMA_FLAVOR, fn,
                       "memory can be detached only from windows of MPI_Win_create_dynamic");
    adi_lock();
    for (pp = &w->regions; *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->base == (uintptr_t)base)
            break;
    r = *pp;
    if (r != NULL)
        *pp = r->next;
    if (r != NULL)
        rma_dyn_publish(w); /* (the table only shrinks: nothing to allocate) */
    adi_unlock();
    if (r == NULL)
        return rma_err(w, MPI_ERR_RMA_ATTACH, fn, "base=%p is not the start of attached memory",
                       base);
    free(r);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- shared query */
int mpi_win_shared_query_impl(rma_win_t *w, int rank, MPI_Aint *size, MPI_Aint *unit, void *baseptr,
                              const char *fn)
{
    /* MPI 4.0 and MPICH 4.0.2 (libmpi.so.12): only shared windows. MPI 4.1
     * opens the call to every flavor, answering size 0 and a NULL base where
     * memory is not shared: the standard ABI (MPI 5.0) does so (MPICH main's
     * rma/win_shared_query -flavor=create). */
    /* (not mapped created windows, nor dynamic ones) */
    int shared = w->direct && (w->flavor == MPI_WIN_FLAVOR_SHARED ||
                               w->flavor == MPI_WIN_FLAVOR_ALLOCATE);
    if (!shared && !mpi_abi_standard)
        return rma_err(w, MPI_ERR_RMA_FLAVOR, fn,
                       "the window's memory is not shared (create it with "
                       "MPI_Win_allocate_shared)");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        return rma_err(w, MPI_ERR_RANK, fn, "rank=%d is not in [0, %d) or MPI_PROC_NULL", rank,
                       w->size);
    if (baseptr == NULL)
        return rma_err(w, MPI_ERR_ARG, fn, "baseptr is NULL");
    if (!shared) {
        *size = 0;
        *unit = 0;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    if (rank == MPI_PROC_NULL) {
        for (rank = 0; rank < w->size && w->sizes[rank] == 0; rank++)
            ;
        if (rank == w->size) {
            *size = 0;
            *unit = 0;
            *(void **)baseptr = NULL;
            return MPI_SUCCESS;
        }
    }
    *size = w->sizes[rank];
    *unit = w->units[rank];
    /* a process that gave no memory has no base (rma/win_shared_noncontig_put) */
    *(void **)baseptr = w->sizes[rank] > 0 ? w->peer_base[rank] : NULL;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- group, info, name */
int mpi_win_get_group_impl(rma_win_t *w, MPI_Group *group, const char *fn)
{
    mpi_group_t *g;
    int err;

    g = mpi_comm_local_group(w->comm);
    if (g == NULL)
        return rma_err(w, MPI_ERR_NO_MEM, fn, "out of memory");
    mpi_group_retain(g);
    if ((err = mpi_group_to_handle(g, group)) != MPI_SUCCESS)
        return rma_err(w, err, fn, "cannot make a group handle");
    return MPI_SUCCESS;
}

int mpi_win_set_info_impl(rma_win_t *w, MPI_Info info, const char *fn)
{
    int err;

    if (info != MPI_INFO_NULL && !mpi_info_valid(info))
        return rma_err(w, MPI_ERR_INFO, fn, "info=%#x is not a valid info object", (unsigned)info);
    if ((err = hints_apply(w, info)) != MPI_SUCCESS)
        return rma_err(w, err, fn, "cannot record the hints");
    return MPI_SUCCESS;
}

int mpi_win_get_info_impl(rma_win_t *w, MPI_Info *info_used, const char *fn)
{
    MPI_Info out;
    int err, n;

    if ((err = mpi_info_new(&out)) != MPI_SUCCESS)
        return rma_err(w, err, fn, "cannot create an info object");
    n = mpi_info_nkeys(w->hints);
    for (int i = 0; i < n; i++) {
        const char *v = NULL, *k = mpi_info_nth(w->hints, i, &v);
        if (k != NULL && (err = mpi_info_put(out, k, v)) != MPI_SUCCESS) {
            mpi_info_release(out);
            return rma_err(w, err, fn, "cannot fill the info object");
        }
    }
    *info_used = out;
    return MPI_SUCCESS;
}

int mpi_win_set_name_impl(rma_win_t *w, const char *win_name, const char *fn)
{

    if (win_name == NULL)
        return rma_err(w, MPI_ERR_ARG, fn, "win_name is NULL");
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
}

/* MPI 4.1 gives MPI_WIN_NULL a name, "MPI_WIN_NULL": the standard ABI (MPI
 * 5.0) does so; libmpi.so.12 keeps MPI 4.0's and MPICH 4.0.2's MPI_ERR_WIN
 * (test/mpi/rma_attr). */
int mpi_win_get_name_impl(MPI_Win win, char *win_name, int *resultlen, const char *fn)
{
    rma_win_t *w = NULL;
    int err;

    if (win == MPI_WIN_NULL && mpi_abi_standard)
        return mpi_name_of_null("MPI_WIN_NULL", win_name, resultlen, fn, "win_name");
    if ((err = rma_win_check(win, fn, &w)) || w == NULL)
        return err; /* (w NULL: the handler cleared the code) */
    if (win_name == NULL)
        return rma_err(w, MPI_ERR_ARG, fn, "win_name is NULL");
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- error handlers */
int mpi_win_set_errhandler_impl(rma_win_t *w, MPI_Errhandler errhandler, const char *fn)
{

    if (mpi_errhandler_retain(errhandler, MPI_OBJ_WIN) < 0)
        return rma_err(w, MPI_ERR_ARG, fn, "errhandler=%#x is not a valid window error handler",
                       (unsigned)errhandler);
    mpi_errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    w->errh_default = 0;
    return MPI_SUCCESS;
}

int mpi_win_get_errhandler_impl(rma_win_t *w, MPI_Errhandler *errhandler, const char *fn)
{

    *errhandler = win_errh(w);
    mpi_errhandler_retain(*errhandler, MPI_OBJ_WIN);
    return MPI_SUCCESS;
}

int mpi_win_call_errhandler_impl(rma_win_t *w, int errorcode, const char *fn)
{

    raise_code(w, errorcode, fn);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- attributes */
int mpi_win_create_keyval_impl(MPI_Win_copy_attr_function *win_copy_attr_fn,
                               MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                               void *extra_state, const char *fn)
{
    int err;
    err = mpi_keyval_create(MPI_OBJ_WIN, (void (*)(void))win_copy_attr_fn,
                            (void (*)(void))win_delete_attr_fn, extra_state, win_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(NULL, err, fn);
}

int mpi_win_free_keyval_impl(int *win_keyval, const char *fn)
{
    int err;
    err = mpi_keyval_free(MPI_OBJ_WIN, win_keyval, fn);
    return err == MPI_SUCCESS ? err : mpi_err_raise_code(NULL, err, fn);
}

static int predefined_keyval(int k)
{
    return k == MPI_WIN_BASE || k == MPI_WIN_SIZE || k == MPI_WIN_DISP_UNIT ||
           k == MPI_WIN_CREATE_FLAVOR || k == MPI_WIN_MODEL;
}

int mpi_win_set_attr_impl(rma_win_t *w, int win_keyval, void *attribute_val, const char *fn)
{
    int err;

    if (predefined_keyval(win_keyval))
        return rma_err(w, MPI_ERR_KEYVAL, fn, "keyval=%#x is predefined and cannot be set",
                       (unsigned)win_keyval);
    err = mpi_attr_set(MPI_OBJ_WIN, w->handle, &w->attrs, win_keyval, attribute_val, fn);
    return err == MPI_SUCCESS ? err : raise_code(w, err, fn);
}

int mpi_win_get_attr_impl(rma_win_t *w, int win_keyval, void *attribute_val, int *flag,
                          const char *fn)
{
    int err;

    if (predefined_keyval(win_keyval)) {
        /* The values live in the window; the user gets their addresses
         * (the base itself for MPI_WIN_BASE), as C asks. */
        static int model = MPI_WIN_UNIFIED;
        switch (win_keyval) {
        case MPI_WIN_BASE:
            *(void **)attribute_val = w->base;
            break;
        case MPI_WIN_SIZE:
            *(MPI_Aint **)attribute_val = &w->bytes;
            break;
        case MPI_WIN_DISP_UNIT:
            w->attr_disp_unit = (int)w->disp_unit;
            *(int **)attribute_val = &w->attr_disp_unit;
            break;
        case MPI_WIN_CREATE_FLAVOR:
            *(int **)attribute_val = &w->flavor;
            break;
        default:
            *(int **)attribute_val = &model;
            break;
        }
        *flag = 1;
        return MPI_SUCCESS;
    }
    err = mpi_attr_get(MPI_OBJ_WIN, w->attrs, win_keyval, attribute_val, flag, fn);
    return err == MPI_SUCCESS ? err : raise_code(w, err, fn);
}

/* MPI_WIN_BASE ... MPI_WIN_MODEL in C's form or Fortran's (C's + 1), as
 * C's; 0 for any other keyval (the hooks of MPICH's language libraries). */
static int predefined_any_lang(int keyval)
{
    int k = keyval;
    if (mpi_handle_kind(k) == MPI_HKIND_BUILTIN && (k & 1) == 0)
        k -= 1;
    return predefined_keyval(k) ? k : 0;
}

int rma_win_attr_set_kind(rma_win_t *w, int keyval, void *value, mpi_attr_kind_t kind,
                          const char *fn)
{
    int err;

    if (predefined_any_lang(keyval))
        return rma_err(w, MPI_ERR_KEYVAL, fn, "keyval=%#x is predefined and cannot be set",
                       (unsigned)keyval);
    err = mpi_attr_set_kind(MPI_OBJ_WIN, w->handle, &w->attrs, keyval, value, kind, fn);
    return err == MPI_SUCCESS ? err : raise_code(w, err, fn);
}

int rma_win_attr_get_kind(rma_win_t *w, int keyval, void *attribute_val, int *flag,
                          mpi_attr_kind_t kind, const char *fn)
{
    static int model = MPI_WIN_UNIFIED;
    int err, k = predefined_any_lang(keyval);

    if (k != 0 && kind != MPI_ATTR_KIND_PTR) {
        /* Fortran: the values themselves (the base as an address) */
        intptr_t *v = attribute_val;
        *v = k == MPI_WIN_BASE            ? (intptr_t)w->base
             : k == MPI_WIN_SIZE          ? (intptr_t)w->bytes
             : k == MPI_WIN_DISP_UNIT     ? (intptr_t)w->disp_unit
             : k == MPI_WIN_CREATE_FLAVOR ? (intptr_t)w->flavor
                                          : (intptr_t)model;
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (k != 0) {
        /* C's convention, as MPI_Win_get_attr: the base, or addresses */
        w->attr_disp_unit = (int)w->disp_unit;
        *(void **)attribute_val = k == MPI_WIN_BASE            ? w->base
                                  : k == MPI_WIN_SIZE          ? (void *)&w->bytes
                                  : k == MPI_WIN_DISP_UNIT     ? (void *)&w->attr_disp_unit
                                  : k == MPI_WIN_CREATE_FLAVOR ? (void *)&w->flavor
                                                               : (void *)&model;
        *flag = 1;
        return MPI_SUCCESS;
    }
    err = mpi_attr_get_kind(MPI_OBJ_WIN, w->attrs, keyval, attribute_val, flag, kind, fn);
    return err == MPI_SUCCESS ? err : raise_code(w, err, fn);
}

int mpi_win_delete_attr_impl(rma_win_t *w, int win_keyval, const char *fn)
{
    int err;

    if (predefined_keyval(win_keyval))
        return rma_err(w, MPI_ERR_KEYVAL, fn, "keyval=%#x is predefined and cannot be deleted",
                       (unsigned)win_keyval);
    err = mpi_attr_delete(MPI_OBJ_WIN, w->handle, &w->attrs, win_keyval, fn);
    return err == MPI_SUCCESS ? err : raise_code(w, err, fn);
}
