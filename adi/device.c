/*
 * The device's life cycle and progress engine: which channel serves which
 * peer (self for this process, shm on this node, a network channel beyond),
 * the eager limits per peer, polling every channel, and the wait policy:
 * a blocked wait spins a little, then yields the CPU, then sleeps in the
 * channel until a sender wakes it, so ranks that outnumber cores do not
 * starve each other. In locked mode (MPI_THREAD_MULTIPLE, or adi_lock_enable)
 * the device lock guards the channels and per-peer send state; one thread at
 * a time polls (a trylock: the others check their own requests and back off
 * instead of queueing behind it). Matching queues and the request pool have
 * their own locks (pt2pt.c, request.c). Why: doc/design.md, "Threads and
 * locking".
 */
#include "adi/adi_impl.h"

#include "common/clock.h"
#include "common/cvar.h"
#include "common/log.h"
#include "common/proc.h"
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

adi_device_t adi_dev;
adi_stats_t adi_stats;
const char *const adi_stats_channel_names[ADI_STATS_NCHANNELS] = {"self", "shm", "sock", "ofi"};

void adi_stats_get(adi_stats_t *out)
{
    uint64_t *dst = (uint64_t *)out;
    const uint64_t *src = (const uint64_t *)&adi_stats;
    for (size_t i = 0; i < sizeof adi_stats / sizeof(uint64_t); i++)
        dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
    adi_queue_levels(out);
}

int adi_caps_push(const ch_caps_t *caps)
{
    return caps->has_rdma_write && caps->rdma_read_sync;
}

static int stats_slot_of(const ch_endpoint_t *ch)
{
    for (int i = 0; i < ADI_STATS_NCHANNELS; i++)
        if (strcmp(ch_name(ch), adi_stats_channel_names[i]) == 0)
            return i;
    return 0;
}

/* Recursive: completion callbacks and progress hooks run with it held and
 * may send (adi_isend takes it again). Statically initialized so that
 * adi_lock_enable works whenever it is called. An adi_mutex_t (lock.h) with
 * its holder and depth: dev_owner is the holder's pthread_self() or 0,
 * written only by the holder and read by any thread (a thread can only find
 * its own id there when it holds the lock); dev_depth is the holder's. */
static adi_mutex_t dev_lock = ADI_MUTEX_INIT;
static uintptr_t dev_owner;
static unsigned dev_depth;
static const pmi_info_t *dev_pmi; /* for opening a channel for other jobs later */
static int dyn_slot = -1;         /* the active channel serving other jobs */
static ch_endpoint_t *active[4];  /* one endpoint per opened channel */
static ch_caps_t active_caps[4];
static int nactive;

static void dev_on_eager_hint(int peer);

static const ch_upcalls_t upcalls = {
    .on_packet = adi_on_packet,
    .on_rdma_done = adi_on_rdma_done,
    .on_peer_failed = adi_on_peer_failed,
    .on_eager_hint = dev_on_eager_hint,
};

void adi_mutex_wait(adi_mutex_t *m)
{
    /* Mark it contended (2) and sleep while it is held; whoever drops it
     * sees the 2 and wakes one sleeper, which marks it 2 again in case
     * others sleep too. */
    while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &m->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void adi_mutex_wake(adi_mutex_t *m)
{
    syscall(SYS_futex, &m->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline uintptr_t dev_self(void) { return adi_thread_self(); }

int adi_locked;

/* The bias (lock.h): set by adi_init for its caller in locked mode. */
uintptr_t adi_bias_owner;
unsigned adi_bias_held;
int adi_bias_revoking;
static adi_mutex_t bias_lock = ADI_MUTEX_INIT; /* (revokers, one at a time) */

void adi_bias_revoke(void)
{
    adi_mutex_take(&bias_lock);
    if (__atomic_load_n(&adi_bias_owner, __ATOMIC_ACQUIRE) != 0) {
        __atomic_store_n(&adi_bias_revoking, 1, __ATOMIC_RELAXED);
        /* Every thread of the process passes a full barrier: the owner
         * either sees adi_bias_revoking or its count is seen here. (It
         * was registered by adi_init, which gave no bias when it failed.) */
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
        while (__atomic_load_n(&adi_bias_held, __ATOMIC_ACQUIRE) != 0)
            sched_yield();
        __atomic_store_n(&adi_bias_owner, 0, __ATOMIC_RELEASE);
        LOG_DEBUG("device: the lock bias ended (a second thread in the device)");
    }
    adi_mutex_drop(&bias_lock);
}

/* adi_init in locked mode: the bias for the calling thread, if the system
 * has the private expedited membarrier and CANAL_THREAD_BIAS allows. */
static void bias_init(int thread_multiple)
{
    long cmds;

    adi_bias_owner = 0;
    adi_bias_held = 0;
    adi_bias_revoking = 0;
    if (!thread_multiple || !common_cvar_bool("THREAD_BIAS"))
        return;
    cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
        return;
    adi_bias_owner = adi_thread_self();
}

void adi_lock_slow(void)
{
    uintptr_t self = dev_self();

    if (__atomic_load_n(&dev_owner, __ATOMIC_RELAXED) == self) {
        dev_depth++;
        return;
    }
    adi_bmutex_take(&dev_lock);
    __atomic_store_n(&dev_owner, self, __ATOMIC_RELAXED);
    dev_depth = 1;
}

/* Threads asleep in waits (below); a release of the device lock wakes
 * those whose wait it may have ended (every completion and arrival happens
 * under the lock). */
static int nsleepers;
static long thread_sleep_us = 200; /* CANAL_THREAD_WAIT_SLEEP_US */
static long thread_guard_us = 1000000; /* CANAL_THREAD_WAIT_GUARD_US */
static void sleepers_scan(int all);

void adi_unlock_slow(void)
{
    if (--dev_depth > 0)
        return;
    __atomic_store_n(&dev_owner, 0, __ATOMIC_RELAXED);
    adi_bmutex_drop(&dev_lock);
    /* (seq_cst against sleepers_enter's count: a sleeper that registered
     * before this load is scanned, one after it sees the change) */
    if (__atomic_load_n(&nsleepers, __ATOMIC_SEQ_CST) != 0)
        sleepers_scan(1);
}

/* (inline in progress_poll: an empty poll is the commonest call of a wait) */
static inline __attribute__((always_inline)) int dev_trylock(void)
{
    uintptr_t self;

    if (!adi_locked)
        return 1;
    self = dev_self();
    if (__atomic_load_n(&dev_owner, __ATOMIC_RELAXED) == self) {
        dev_depth++;
        return 1;
    }
    if (!adi_bmutex_try(&dev_lock))
        return 0;
    __atomic_store_n(&dev_owner, self, __ATOMIC_RELAXED);
    dev_depth = 1;
    return 1;
}

int adi_trylock(void) { return dev_trylock(); }

void adi_lock_enable(void)
{
    /* No other thread is inside the device (the caller's promise), so a
     * plain store suffices: threads started later see it through
     * pthread_create's ordering. */
    adi_locked = 1;
}

int adi_job_rank(void) { return adi_dev.rank; }
int adi_job_size(void) { return adi_dev.size; }

int adi_oversubscribed(void) { return adi_dev.oversubscribed; }

const char *adi_peer_channel(int peer)
{
    if (peer < 0 || peer >= __atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE) ||
        adi_dev.peers[peer].ch == NULL)
        return "none";
    return ch_name(adi_dev.peers[peer].ch);
}

/* ---------------------------------------------------------------- oversubscription */
/* Whether the ranks of this node outnumber the CPUs the job may use here.
 * That is the union of the local ranks' affinity masks (the kernel already
 * restricts each to its cpuset), not this rank's own mask: a launcher that
 * binds each rank to its own core (Open MPI's mpirun, mpiexec -bind-to
 * core) gives every rank a one-CPU mask on a node that is not
 * oversubscribed at all. Every rank puts its mask (hex, lowest CPUs last)
 * before the device's fence; after it a rank reads the others' only when
 * its own mask cannot decide: when it has fewer CPUs than there are local
 * ranks and does not already hold every online CPU, and only until the
 * union has enough. A mask that cannot be read counts as every online CPU. */
#define ADI_KEY_CPUS "adi-cpus"

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void cpus_encode(const cpu_set_t *set, char *out, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    int top = 0;
    size_t o = 0;

    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set))
            top = c / 4 + 1;
    if (top == 0)
        top = 1;
    for (int nib = top - 1; nib >= 0 && o + 1 < len; nib--) {
        int v = 0;
        for (int b = 0; b < 4; b++)
            if (CPU_ISSET(nib * 4 + b, set))
                v |= 1 << b;
        out[o++] = hex[v];
    }
    out[o] = '\0';
}

/* ORs the mask in s into *set; 0 if s is not a mask. */
static int cpus_decode_or(const char *s, cpu_set_t *set)
{
    size_t n = strlen(s);
    if (n == 0 || n > CPU_SETSIZE / 4)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[n - 1 - i];
        int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (v < 0)
            return 0;
        for (int b = 0; b < 4; b++)
            if (v & (1 << b))
                CPU_SET((int)i * 4 + b, set);
    }
    return 1;
}

static void cpus_put(void)
{
    cpu_set_t set;
    char val[CPU_SETSIZE / 4 + 1];

    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return; /* the others count every online CPU for us */
    cpus_encode(&set, val, sizeof val);
    if (pmi_put(ADI_KEY_CPUS, val) < 0)
        LOG_DEBUG("device: cannot publish this rank's CPUs (%s)", common_err_detail());
}

/* The CPUs of this node the job's local ranks may run on (after the fence).
 * A rank bound to fewer than every online CPU on a node of at most
 * OWN_CPUS_MAX_RANKS local ranks reads every other mask (n - 1 PMI gets:
 * bounded, as a launcher may serve each one), to tell whether
 * any shares a CPU with its own (*own_out: none does); otherwise it stops
 * once the union has enough, and *own_out is 0. */
enum { OWN_CPUS_MAX_RANKS = 64 };

static int node_cpus(const pmi_info_t *pmi, int *own_out)
{
    cpu_set_t mine, all, other, both;
    char val[CPU_SETSIZE / 4 + 1];
    int online = online_cpus(), n, own;

    *own_out = 0;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        return online;
    all = mine;
    n = CPU_COUNT(&all);
    own = n < online && pmi->local_size <= OWN_CPUS_MAX_RANKS;
    for (int i = 0; i < pmi->local_size && (own || (n < pmi->local_size && n < online)); i++) {
        int r = pmi->local_ranks[i];
        if (r == pmi->rank)
            continue;
        CPU_ZERO(&other);
        if (pmi_get(r, ADI_KEY_CPUS, val, sizeof val) < 0 || !cpus_decode_or(val, &other))
            return online;
        CPU_AND(&both, &other, &mine);
        if (CPU_COUNT(&both) > 0)
            own = 0;
        CPU_OR(&all, &all, &other);
        n = CPU_COUNT(&all);
    }
    *own_out = own && pmi->local_size > 1;
    return n;
}

/* Open the endpoint ep (made by ch_endpoint_new) as the next active
 * channel; on failure it is freed. */
static canal_status_t open_endpoint(ch_endpoint_t *ep, const pmi_info_t *pmi, int *slot_out)
{
    canal_status_t st;

    if (nactive >= (int)(sizeof active / sizeof active[0])) {
        ch_endpoint_free(ep);
        return common_err_set(CANAL_ERR_INTERN, "no room for another channel");
    }
    memset(&active_caps[nactive], 0, sizeof active_caps[nactive]);
    if ((st = ch_init(ep, pmi, &upcalls, &active_caps[nactive])) < 0) {
        ch_endpoint_free(ep);
        return st;
    }
    active[nactive] = ep;
    *slot_out = nactive++;
    return CANAL_OK;
}

/* A channel's hint below the device's own limit says that its rendezvous
 * is one copy (shm: the receiver's CMA read, where two copies through the
 * ring lose above 4 KiB on Intel CPUs). On an oversubscribed node such a
 * rendezvous streams below CANAL_RNDV_STREAM_MAX (rndv_offer in pt2pt.c):
 * two copies as eager's, plus a handshake with a receiver that may not be on
 * a CPU. So there the hint does not lower the limit. (The window computed
 * from the limit agrees on every rank of the node, as they agree on being
 * oversubscribed.) */
static int eager_hint_void(int slot, size_t own, size_t hint)
{
    return adi_dev.oversubscribed && active_caps[slot].rdma_read_sync && hint < own &&
           adi_dev.stream_max > own;
}

/* The eager limit to `peer` through the channel in `slot`: CANAL_EAGER_LIMIT
 * if the user set it, else the channel's hint for that peer if it has one
 * (shm: CANAL_SHM_EAGER_LIMIT while CMA is not known refused), within the
 * channel's largest payload. */
static size_t channel_eager(int slot, int peer)
{
    size_t e = (size_t)common_cvar_int("EAGER_LIMIT"), hint;
    if (strcmp(common_cvar_source("EAGER_LIMIT"), "default") == 0 &&
        (hint = ch_eager_hint(active[slot], peer)) != 0 && !eager_hint_void(slot, e, hint))
        e = hint;
    return e < active_caps[slot].max_payload ? e : active_caps[slot].max_payload;
}

/* A channel's hint for `peer` changed (shm: CMA refused at run time; the
 * device lock is held): new sends to it follow. A message already on its
 * way keeps its protocol (adi_isend_into decides it once, under the lock);
 * send_now's unlocked look at the limit may see the old one and take the
 * general path, which looks again under the lock. The credit window stays:
 * both sides computed it at init and must keep agreeing. */
static void dev_on_eager_hint(int peer)
{
    adi_peer_t *p;

    if (peer < 0 || peer >= adi_dev.size)
        return;
    p = &adi_dev.peers[peer];
    for (int i = 0; i < nactive; i++)
        if (active[i] == p->ch)
            __atomic_store_n(&p->eager_limit, channel_eager(i, peer), __ATOMIC_RELAXED);
}

/* The job's one endpoint of channel `ops` (no options). */
static canal_status_t open_channel(const ch_ops_t *ops, const pmi_info_t *pmi, int *slot_out)
{
    ch_endpoint_t *ep;
    canal_status_t st = ch_endpoint_new(ops, NULL, &ep);
    return st < 0 ? st : open_endpoint(ep, pmi, slot_out);
}

static void wait_policy_set(int own);

canal_status_t adi_init(const pmi_info_t *pmi, int thread_multiple)
{
    canal_status_t st;
    int self_slot = -1, shm_slot = -1, net_slot = -1, over_auto = 0;
    long long chunk = common_cvar_int("RNDV_CHUNK");
    const char *over = common_cvar_str("OVERSUBSCRIBED");
    const char *force = common_cvar_str("CHANNEL");

    memset(&adi_dev, 0, sizeof adi_dev);
    adi_dev.thread_multiple = thread_multiple;
    adi_locked = thread_multiple;
    bias_init(thread_multiple);
    adi_dev.rank = pmi->rank;
    adi_dev.size = pmi->size;
    adi_dev.spin_count = common_cvar_int("SPIN_COUNT");
    adi_dev.halves_min = (size_t)common_cvar_int("RNDV_HALVES_MIN");
    adi_dev.stream_max = (size_t)common_cvar_int("RNDV_STREAM_MAX");
    adi_dev.fault_detach_nomem = (uint8_t)common_cvar_bool("FAULT_DETACH_NOMEM");
    adi_dev.detach_keep_max = (size_t)common_cvar_int("DETACH_KEEP_MAX");
    adi_dev.detach_wait_us = common_cvar_int("DETACH_WAIT_MS") * 1000LL;
    adi_dev.finalize_wait_ms = common_cvar_int("FINALIZE_WAIT_MS");
    adi_dev.spin_us = common_cvar_int("SPIN_US");
    adi_dev.sleep_after_us = common_cvar_int("SLEEP_AFTER_US");
    adi_dev.preempted_us = common_cvar_int("WAIT_PREEMPTED_US");
    adi_dev.own_spin_us = adi_dev.shared_spin_us = adi_dev.spin_us;
    adi_dev.own_threads_look_us = common_cvar_int("OWN_THREADS_LOOK_US");
    adi_dev.own_preempted_us = adi_dev.shared_preempted_us = adi_dev.preempted_us;
    {
        long long sl = common_cvar_int("WAIT_SLEEP_US");
        if (sl < 1 || sl > 10000000)
            return common_err_set(CANAL_ERR_ARG, "CANAL_WAIT_SLEEP_US=%lld must be 1..10000000",
                                  sl);
        adi_dev.sleep_us = (long)sl;
        sl = common_cvar_int("THREAD_WAIT_SLEEP_US");
        if (sl < 1 || sl > 100000000)
            return common_err_set(CANAL_ERR_ARG,
                                  "CANAL_THREAD_WAIT_SLEEP_US=%lld must be 1..100000000", sl);
        thread_sleep_us = (long)sl;
        sl = common_cvar_int("THREAD_WAIT_GUARD_US");
        if (sl < 1 || sl > 100000000)
            return common_err_set(CANAL_ERR_ARG,
                                  "CANAL_THREAD_WAIT_GUARD_US=%lld must be 1..100000000", sl);
        thread_guard_us = (long)sl;
    }
    adi_dev.unexpected_limit = (size_t)common_cvar_int("UNEXPECTED_LIMIT");
    if (strcmp(over, "yes") == 0)
        adi_dev.oversubscribed = 1;
    else if (strcmp(over, "no") == 0)
        adi_dev.oversubscribed = 0;
    else
        over_auto = 1; /* decided after the fence (node_cpus) */
    if (over_auto && pmi->size > 1 && pmi->local_size > 1)
        cpus_put();
    {
        /* Room for processes of other jobs is reserved (calloc: untouched
         * pages cost nothing), so peers never moves under a running send. */
        long long ndyn = common_cvar_int("DYNAMIC_PEERS");
        if (ndyn < 0 || ndyn > 1000000)
            return common_err_set(CANAL_ERR_ARG, "CANAL_DYNAMIC_PEERS=%lld must be 0..1000000",
                                  ndyn);
        adi_dev.cap = pmi->size + (int)ndyn;
    }
    adi_dev.npeers = pmi->size;
    dev_pmi = pmi;
    dyn_slot = -1;
    adi_dev.peers = calloc((size_t)adi_dev.cap, sizeof *adi_dev.peers);
    adi_dev.pump_list = calloc((size_t)adi_dev.cap, sizeof *adi_dev.pump_list);
    if (adi_dev.peers == NULL || adi_dev.pump_list == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for %d peers", adi_dev.cap);
    pmi_set_rank_failed_handler(adi_launcher_failed);

    if ((st = open_channel(&ch_self_ops, pmi, &self_slot)) < 0)
        return st;
    if (strcmp(force, "auto") != 0 && strcmp(force, "shm") != 0 && strcmp(force, "sock") != 0 &&
        strcmp(force, "ofi") != 0)
        return common_err_set(CANAL_ERR_ARG, "CANAL_CHANNEL=%s: expected auto, shm, sock or ofi",
                              force);
    /* Every rank opens shm when any might (its post_fence fences the whole
     * job); a rank alone on its node gets an anonymous segment. */
    if (pmi->size > 1 && strcmp(force, "sock") != 0 && strcmp(force, "ofi") != 0) {
        if ((st = open_channel(&ch_shm_ops, pmi, &shm_slot)) < 0)
            return st;
    }
    if (pmi->size > pmi->local_size || (pmi->local_size > 1 && shm_slot < 0)) {
        /* Peers the shm channel does not serve need a network channel:
         * ofi when this node has fabric hardware (or libfabric is asked
         * for) and a provider is usable, else sock (or what CANAL_CHANNEL
         * says). */
#ifdef CANAL_HAVE_OFI
        if (net_slot < 0 && strcmp(force, "sock") != 0) {
            char why[300];
            ch_endpoint_t *ep;
            if ((st = ch_endpoint_new(&ch_ofi_ops, NULL, &ep)) < 0)
                return st;
            if (strcmp(force, "auto") == 0 && !ch_remote_worth(ep, why, sizeof why)) {
                LOG_DEBUG("ofi channel not opened: %s", why); /* sock serves these peers */
                ch_endpoint_free(ep);
            } else {
                st = open_endpoint(ep, pmi, &net_slot);
                if (st < 0 && strcmp(force, "ofi") == 0)
                    return st;
                if (st < 0)
                    LOG_WARN("ofi channel unusable (%s); using the sock channel",
                             common_err_detail());
            }
        }
#endif
        if (net_slot < 0 && strcmp(force, "ofi") != 0) {
            if ((st = open_channel(&ch_sock_ops, pmi, &net_slot)) < 0)
                return st;
        }
        if (net_slot < 0)
            return common_err_set(CANAL_ERR_UNSUPPORTED,
                                  "ranks on other nodes (or CANAL_CHANNEL=%s) need a network "
                                  "channel, and none is usable in this build",
                                  force);
    }
    if (pmi->size > 1 && (st = pmi_fence()) < 0)
        return st;
    adi_dev.local_size = pmi->local_size;
    if (over_auto) {
        adi_dev.node_cpus = node_cpus(pmi, &adi_dev.own_cpus);
        adi_dev.oversubscribed = pmi->local_size > adi_dev.node_cpus;
    }
    if (adi_dev.own_cpus && !adi_dev.oversubscribed) {
        /* A rank alone on its CPUs (bound apart: mpiexec's -bind-to auto,
         * Open MPI's mpirun) keeps no other rank of the job off a CPU by
         * spinning, and what shares its CPU is another program: a yield
         * or an early sleep hands that program the CPU for a time slice
         * (2-rank MPI_Barrier beside two busy loops, bound: 0.6-2.2 us
         * spinning, 1.3-21 yielding after 200 us, 4-19 in contended
         * mode; doc/bench.md "Stop 39"). So it spins until the sleep
         * (CANAL_SLEEP_AFTER_US) and never enters contended mode, unless
         * CANAL_SPIN_US or CANAL_WAIT_PREEMPTED_US is set; until
         * processes of another job come (adi_cpus_shared), and while the
         * process has more threads than CPUs (own_threads_look, at any
         * thread level). */
        if (strcmp(common_cvar_source("SPIN_US"), "default") == 0 &&
            adi_dev.spin_us < adi_dev.sleep_after_us)
            adi_dev.own_spin_us = adi_dev.sleep_after_us;
        if (strcmp(common_cvar_source("WAIT_PREEMPTED_US"), "default") == 0)
            adi_dev.own_preempted_us = 0;
        wait_policy_set(1);
        {
            /* (the threads there are now, but one: MPI_Init's caller, and
             * the launcher watch's, which sleeps, and whatever else the
             * program started before; then one per CPU may run beside; at
             * every thread level: a FUNNELED hybrid program's OpenMP
             * threads compute while its main thread waits in MPI) */
            cpu_set_t mine;
            int n = common_thread_count();
            if (n > 0 && sched_getaffinity(0, sizeof mine, &mine) == 0)
                adi_dev.own_threads_max = n - 1 + CPU_COUNT(&mine);
        }
    }
    for (int i = 0; i < nactive; i++)
        if ((st = ch_post_fence(active[i])) < 0)
            return st;

    for (int peer = 0; peer < pmi->size; peer++) {
        adi_peer_t *p = &adi_dev.peers[peer];
        int slot;
        if (peer == pmi->rank)
            slot = self_slot;
        else if (shm_slot >= 0 && pmi->node_of[peer] == pmi->node_of[pmi->rank])
            slot = shm_slot;
        else
            slot = net_slot;
        if (slot < 0)
            return common_err_set(CANAL_ERR_UNSUPPORTED, "no channel reaches rank %d", peer);
        p->ch = active[slot];
        p->stats_slot = stats_slot_of(p->ch);
        p->has_rdma = active_caps[slot].has_rdma;
        /* (a push only where the receiver's own read is synchronous: it
         * ends at PUSHED, never at an on_rdma_done; channels/channel.h) */
        p->has_rdma_write = adi_caps_push(&active_caps[slot]);
        p->read_batch = active_caps[slot].has_read_batch && active_caps[slot].rdma_read_sync;
        p->read_sync = active_caps[slot].rdma_read_sync;
        p->needs_wake = !active_caps[slot].sendv_wakes;
        p->turn_lim = active_caps[slot].turn_max >= ADI_PKT_TINY
                          ? active_caps[slot].turn_max - ADI_PKT_TINY + 1
                          : 0;
        p->eager_limit = channel_eager(slot, peer); /* (after post_fence: the probes are done) */
        /* Each peer may fill its share of the unexpected-memory budget. */
        p->window = adi_dev.unexpected_limit / (size_t)(pmi->size > 1 ? pmi->size - 1 : 1);
        if (p->window < 4 * (p->eager_limit + ADI_EAGER_COST))
            p->window = 4 * (p->eager_limit + ADI_EAGER_COST);
        p->credit = p->window;
        p->chunk = (size_t)chunk;
        if (p->chunk > active_caps[slot].max_payload)
            p->chunk = active_caps[slot].max_payload;
        if (p->chunk == 0)
            p->chunk = 1;
    }
    return CANAL_OK;
}

/* Other jobs are reached through the sock channel (the one channel with
 * dynamic peers): the one the job already uses, or opened now for them
 * alone -- and polled only from the first dynamic peer on, so that a
 * process that merely opens a port keeps its wait policy (one channel to
 * sleep in). Called with the device lock held. */
static ch_endpoint_t *dyn_ch; /* opened for other jobs, maybe not yet active */
static ch_caps_t dyn_caps;

canal_status_t adi_dev_dyn_channel(ch_endpoint_t **ch_out)
{
    canal_status_t st;

    if (dyn_slot < 0 && dyn_ch == NULL) {
        for (int i = 0; i < nactive; i++)
            if (active_caps[i].has_dyn)
                dyn_slot = i;
    }
    if (dyn_slot >= 0) {
        /* (into a copy: waiters read active_caps without the lock, and
         * opening again reports what the channel already said) */
        ch_caps_t caps = active_caps[dyn_slot];
        if ((st = ch_dyn_open(active[dyn_slot], dev_pmi, &upcalls, &caps)) < 0)
            return st;
        if (memcmp(&caps, &active_caps[dyn_slot], sizeof caps) != 0)
            active_caps[dyn_slot] = caps;
        *ch_out = active[dyn_slot];
        return CANAL_OK;
    }
    if (dyn_ch == NULL) {
        ch_endpoint_t *ep;
        if ((st = ch_endpoint_new(&ch_sock_ops, NULL, &ep)) < 0)
            return st;
        memset(&dyn_caps, 0, sizeof dyn_caps);
        if ((st = ch_dyn_open(ep, dev_pmi, &upcalls, &dyn_caps)) < 0) {
            ch_endpoint_free(ep);
            return st;
        }
        dyn_ch = ep;
    }
    *ch_out = dyn_ch;
    return CANAL_OK;
}

/* The wait policy of a rank alone on its CPUs (adi_init: own 1) or of one
 * whose CPUs something else of the job may need (own 0). The wait loop reads
 * the two words relaxed, so they may change while other threads wait. */
static pthread_mutex_t wait_policy_lock = PTHREAD_MUTEX_INITIALIZER;

static void wait_policy_set(int own)
{
    /* (a leaf lock: the two words stay one policy when a spawn's
     * adi_cpus_shared and a thread's own_threads_look meet; the own
     * policy only while the CPUs are still the rank's own) */
    pthread_mutex_lock(&wait_policy_lock);
    own = own && __atomic_load_n(&adi_dev.own_cpus, __ATOMIC_ACQUIRE);
    __atomic_store_n(&adi_dev.spin_us, own ? adi_dev.own_spin_us : adi_dev.shared_spin_us,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&adi_dev.preempted_us,
                     own ? adi_dev.own_preempted_us : adi_dev.shared_preempted_us,
                     __ATOMIC_RELAXED);
    pthread_mutex_unlock(&wait_policy_lock);
}

/* The policy of a rank alone on its CPUs holds while the only processes
 * that wait for it are its job's, each on CPUs of its own. Processes of
 * another job (MPI_Comm_spawn's children, a job that connects or accepts)
 * are placed without knowing those CPUs, and a rank that spins 20 ms in
 * each wait for one of them keeps it off the CPU they may share (mpi4py's
 * test_spawn, 2 ranks bound: 6.7-7.0 s of CPU and 6.6-13 s against 3.6-4.0
 * and 3.5-5.7 with this). So from then on waits spin CANAL_SPIN_US and
 * enter contended mode as on any shared CPU (the values a user set stay).
 * Called at a spawn's start and at every dynamic peer's entry. */
void adi_cpus_shared(void)
{
    if (!__atomic_exchange_n(&adi_dev.own_cpus, 0, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&adi_dev.own_threads_max, 0, __ATOMIC_RELAXED);
    wait_policy_set(0);
    LOG_INFO("processes of another job may share this rank's CPUs: waits spin %lld us, then "
             "yield",
             adi_dev.shared_spin_us);
}

/* On CPUs of its own, at any thread level: a wait that spins without
 * yielding takes half of its CPU from a thread of the program that
 * computes there (a thread waiting in MPI_Recv beside a compute thread,
 * rank bound to one CPU: the compute thread's 0.21 s of work took
 * 0.54-0.79 s against 0.29-0.60 yielding; the same with OpenMP threads of
 * a MPI_THREAD_FUNNELED program whose launcher does not apply mpiexec's
 * OMP_NUM_THREADS rule, looked at only in locked mode before). So while the process has more threads than
 * adi_init counted plus one per CPU of its mask, and more of them are
 * runnable than its mask has CPUs (threads asleep, a library's idle pool,
 * need no CPU), waits use the shared policy. Looked at (/proc/self/stat, a
 * few microseconds; with more threads, each one's /proc/self/task stat) at
 * a wait's first clock reading, at most every CANAL_OWN_THREADS_LOOK_US
 * (100 ms), by one thread. A look is one sample: a pool thread that wakes
 * just then (runnable for one look) switched a bound rank's waits to
 * yielding until the next look; so the policy changes only when two
 * consecutive looks agree (own_threads_seen: the last look's answer;
 * pt2pt_threads_parked args=blip, which sets the period 0 so that each of
 * its waits that reads the clock looks once, whatever the load). */
static long long own_threads_next;
static int own_threads_over, own_threads_seen;

static void own_threads_look(long long now)
{
    long long next = __atomic_load_n(&own_threads_next, __ATOMIC_RELAXED);
    int n, over, seen;

    if (now < next || !__atomic_compare_exchange_n(&own_threads_next, &next,
                                                   now + adi_dev.own_threads_look_us, 0,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    n = common_thread_count();
    over = n > __atomic_load_n(&adi_dev.own_threads_max, __ATOMIC_RELAXED);
    if (over) {
        /* Only threads that are runnable now count, against the CPUs of
         * the mask (the waiting thread among them): a pool asleep on a
         * condition variable (a BLAS library's, an OpenMP team between
         * regions) takes no CPU from the waits (pt2pt_threads_parked) */
        cpu_set_t mine;
        int run = common_threads_running();
        if (run > 0 && sched_getaffinity(0, sizeof mine, &mine) == 0)
            over = run > CPU_COUNT(&mine);
    }
    if (n <= 0 || __atomic_load_n(&adi_dev.own_threads_max, __ATOMIC_RELAXED) == 0)
        return;
    /* (relaxed: the looks are 100 ms apart, in whichever thread waits) */
    seen = __atomic_exchange_n(&own_threads_seen, over, __ATOMIC_RELAXED);
    if (over == own_threads_over || over != seen)
        return;
    own_threads_over = over;
    wait_policy_set(!over);
    LOG_DEBUG("%d threads: waits %s", n,
              over ? "yield after CANAL_SPIN_US (threads share the CPUs)" : "spin (CPUs of their own)");
}

/* The entry of a new dynamic peer: like a job rank's on that channel. */
canal_status_t adi_dev_dyn_peer_init(int peer)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    const ch_caps_t *caps;

    adi_cpus_shared();
    if (dyn_slot < 0 && dyn_ch != NULL) {
        /* The first dynamic peer: from now on the channel is polled. */
        if (nactive >= (int)(sizeof active / sizeof active[0]))
            return common_err_set(CANAL_ERR_INTERN, "no room for another channel");
        active[nactive] = dyn_ch;
        active_caps[nactive] = dyn_caps;
        dyn_slot = nactive++;
    }
    if (dyn_slot < 0 || peer < adi_dev.size || peer >= adi_dev.cap)
        return common_err_set(CANAL_ERR_INTERN, "dynamic peer %d without its channel", peer);
    caps = &active_caps[dyn_slot];
    memset(p, 0, sizeof *p);
    p->ch = active[dyn_slot];
    p->stats_slot = stats_slot_of(p->ch);
    p->has_rdma = 0;
    p->needs_wake = !caps->sendv_wakes;
    p->eager_limit = (size_t)common_cvar_int("EAGER_LIMIT");
    if (p->eager_limit > caps->max_payload)
        p->eager_limit = caps->max_payload;
    /* Both sides must compute the same window (credit comes back after a
     * quarter of the receiver's), and the job sizes differ: the minimum. */
    p->window = 4 * (p->eager_limit + ADI_EAGER_COST);
    p->credit = p->window;
    p->chunk = (size_t)common_cvar_int("RNDV_CHUNK");
    if (p->chunk > caps->max_payload)
        p->chunk = caps->max_payload;
    if (p->chunk == 0)
        p->chunk = 1;
    return CANAL_OK;
}

void adi_describe(char *buf, size_t len)
{
    size_t off = 0;
    char why[128];

    if (adi_dev.node_cpus > 0)
        snprintf(why, sizeof why, "%d local rank%s, %d CPU%s for %s%s", adi_dev.local_size,
                 adi_dev.local_size == 1 ? "" : "s", adi_dev.node_cpus,
                 adi_dev.node_cpus == 1 ? "" : "s", adi_dev.local_size == 1 ? "it" : "them",
                 adi_dev.own_cpus ? ", each rank on CPUs of its own" : "");
    else
        snprintf(why, sizeof why, "set by CANAL_OVERSUBSCRIBED");
    off += (size_t)snprintf(buf + off, len - off,
                            "canal: device: eager limit %lld (a channel's may differ), rendezvous chunk %lld, spin %ld polls "
                            "and %lld us, sleep after %lld us, oversubscribed %s (%s)\n",
                            common_cvar_int("EAGER_LIMIT"), common_cvar_int("RNDV_CHUNK"),
                            adi_dev.spin_count, adi_dev.spin_us, adi_dev.sleep_after_us,
                            adi_dev.oversubscribed ? "yes" : "no", why);
    for (int i = 0; i < nactive && off < len; i++) {
        char line[512] = "";
        int peer = 0; /* (the first this channel serves: shm's limit is the same to each) */
        while (peer < adi_dev.size - 1 && adi_dev.peers[peer].ch != active[i])
            peer++;
        ch_describe(active[i], line, sizeof line);
        off += (size_t)snprintf(buf + off, len - off,
                                "canal: channel %s: max payload %zu, eager limit %zu, rdma %s%s%s\n",
                                ch_name(active[i]), active_caps[i].max_payload,
                                channel_eager(i, peer),
                                active_caps[i].has_rdma ? "yes" : "no", line[0] ? ", " : "", line);
    }
}

enum { MAX_PROGRESS_HOOKS = 32 };
static struct {
    void (*fn)(void *);
    void *arg;
} progress_hooks[MAX_PROGRESS_HOOKS];
static int nprogress_hooks;
static int progress_hooks_did; /* work the hooks of this poll reported (device lock held) */
static void (*wait_hook)(void *);
static void *wait_hook_arg;
static long wait_hook_interval = 1000;

int adi_progress_hook_add(void (*fn)(void *arg), void *arg)
{
    int id = -1;
    adi_lock();
    for (int i = 0; i < MAX_PROGRESS_HOOKS; i++) {
        if (progress_hooks[i].fn == NULL) {
            progress_hooks[i].fn = fn;
            progress_hooks[i].arg = arg;
            if (i >= nprogress_hooks)
                nprogress_hooks = i + 1;
            id = i;
            break;
        }
    }
    adi_unlock();
    return id;
}

void adi_progress_hook_remove(int id)
{
    if (id < 0 || id >= MAX_PROGRESS_HOOKS)
        return;
    adi_lock();
    progress_hooks[id].fn = NULL;
    while (nprogress_hooks > 0 && progress_hooks[nprogress_hooks - 1].fn == NULL)
        nprogress_hooks--;
    adi_unlock();
}

void adi_progress_hook_did(int n)
{
    if (n > 0)
        progress_hooks_did += n;
}

void adi_wake_peer(int peer)
{
    adi_lock();
    if (peer >= 0 && peer < adi_dev.npeers && adi_dev.peers[peer].ch != NULL)
        ch_wake(adi_dev.peers[peer].ch, peer);
    adi_unlock();
}

int adi_wake_reaches(int peer)
{
    return peer >= 0 && peer < adi_dev.npeers && adi_dev.peers[peer].ch != NULL &&
           adi_dev.peers[peer].ch->ops->wake != ch_no_wake;
}

void adi_set_wait_hook(void (*fn)(void *arg), void *arg, long interval)
{
    wait_hook = fn;
    wait_hook_arg = arg;
    wait_hook_interval = interval > 0 ? interval : 1000;
}

/* A wait's predicate as the channel's sleep checks it: a predicate may act
 * once it holds (a blocking probe's takes the message it found, and says 0
 * when asked again), so whoever finds it true first records that here and
 * the wait ends on the record. */
typedef struct {
    int (*pred)(void *arg);
    void *arg;
    int held;
} wait_cond_t;

static int wait_cond_ready(void *c)
{
    wait_cond_t *wc = c;
    if (!wc->held)
        wc->held = wc->pred(wc->arg);
    return wc->held;
}

/* Threads waiting while another polls (locked mode). A wait polls for
 * itself for its first WAIT_ROLE_POLLS empty polls (a trylock of the device
 * lock: a thread that finds it taken yields). After that only one waiting
 * thread polls: the holder of the polling role (`poll_role`, its thread
 * id), the first that got there while the role was free; it polls until its
 * own wait ends and then passes the role to the oldest sleeper (a wake-up of
 * one thread, not all). The others sleep, each on its own futex word (a
 * record on its stack in the list `sleepers`, oldest first, under
 * `sleepers_lock`, a leaf lock), with more threads than CPUs leaving the
 * CPU to the poller, and are woken for one of two reasons only:
 * - what it waits for happened: a wait that names a watch (adi_watch_t: a
 *   request's done flag, a context's arrival count) is woken when that word
 *   moved, or when a peer was lost or a context revoked since it fell
 *   asleep (failures_now: either may end a wait whose word stays), by
 *   whichever thread next releases the device lock (every completion and
 *   arrival happens under it: adi_unlock, progress_release, sleepers_scan;
 *   and the role holder releases it at every poll); a wait without a watch
 *   is woken by every release after a poll that delivered something or a
 *   send (it cannot say what it waits for);
 * - it is handed the polling role (role_pass).
 * The counts and the role are read seq_cst on both sides (a sleeper counts
 * itself, then looks; a releaser changes, then reads the count), so while
 * anyone sleeps a thread with the role is awake in a wait, and no wake-up
 * is left to a timeout. A sleep without a watch still ends after
 * CANAL_THREAD_WAIT_SLEEP_US (200 us) at most, for a change no release
 * announces (another process's write into a shared block). A sleep with a
 * watch has only a guard, CANAL_THREAD_WAIT_GUARD_US (1 s; or the former
 * when longer):
 * bounding it by 200 us too made a thread waiting for a window of 64
 * messages wake about 15 times before its window came (bench/mt_rate.c at
 * 4 threads: a sleep per 14 messages, not one per window). A guarded sleep
 * that ran out with its watch moved is given one more bound, still listed
 * (the change may have come just before, its releaser not yet scanning);
 * when that one runs out too, the wake-up was lost and is counted
 * (canal_thread_wait_missed_wakes). */
typedef struct waiter {
    struct waiter *next, *prev;
    adi_watch_t watch; /* word NULL: woken by any release */
    uintptr_t self;    /* the sleeper's thread id (for the role) */
    uint32_t word;     /* WS_*: the futex word */
    int losses;        /* failures_now() when it went to sleep */
} waiter_t;

enum { WS_SLEEP, WS_WOKEN, WS_ROLE };
static adi_mutex_t sleepers_lock = ADI_MUTEX_INIT;
static waiter_t sleepers = {&sleepers, &sleepers, {NULL, 0}, 0, 0, 0};
/* (nsleepers, above: records in the list, read without the lock) */
static uintptr_t poll_role; /* the thread that polls for the sleepers, or 0 */

static inline int watch_moved(const adi_watch_t *w)
{
    return __atomic_load_n(w->word, __ATOMIC_ACQUIRE) != w->unless;
}

/* Peers lost and contexts revoked so far: either may end a wait whose
 * watch did not move (a receive a failure holds up, a probe or small
 * receive on a revoked context), so a change wakes every watched sleeper. */
static inline int failures_now(void)
{
    return __atomic_load_n(&adi_nlost, __ATOMIC_SEQ_CST) +
           __atomic_load_n(&adi_nrevoked, __ATOMIC_SEQ_CST);
}

/* Whether the sleeper w has a reason to wake (its watch, or a failure);
 * for a sleeper without a watch, `all`. */
static inline int waiter_due(const waiter_t *w, int all)
{
    if (w->watch.word == NULL)
        return all;
    return watch_moved(&w->watch) || failures_now() != w->losses;
}

/* Wake the sleepers whose watch moved, and with `all` those without a
 * watch (not after an empty poll: they would wake at every poll). */
static __attribute__((noinline)) void sleepers_scan(int all)
{
    adi_mutex_take(&sleepers_lock);
    for (waiter_t *w = sleepers.next; w != &sleepers; w = w->next) {
        if (__atomic_load_n(&w->word, __ATOMIC_RELAXED) != WS_SLEEP || !waiter_due(w, all))
            continue;
        __atomic_store_n(&w->word, WS_WOKEN, __ATOMIC_RELEASE);
        syscall(SYS_futex, &w->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    adi_mutex_drop(&sleepers_lock);
}

/* 1 when this thread now holds the polling role. */
static inline int role_take(uintptr_t self)
{
    uintptr_t none = 0;
    return __atomic_compare_exchange_n(&poll_role, &none, self, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_RELAXED);
}

/* The end of the role holder's wait: the oldest sleeper still asleep polls
 * next (unless a thread that just began to wait took the role first).
 * seq_cst against sleepers_enter: a sleeper that saw the role held is
 * counted before this load. */
static __attribute__((noinline)) void role_pass_slow(void)
{
    adi_mutex_take(&sleepers_lock);
    for (waiter_t *w = sleepers.next; w != &sleepers; w = w->next) {
        if (__atomic_load_n(&w->word, __ATOMIC_RELAXED) != WS_SLEEP)
            continue;
        if (role_take(w->self)) {
            __atomic_store_n(&w->word, WS_ROLE, __ATOMIC_RELEASE);
            syscall(SYS_futex, &w->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        }
        break;
    }
    adi_mutex_drop(&sleepers_lock);
}

static inline void role_pass(void)
{
    __atomic_store_n(&poll_role, 0, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&nsleepers, __ATOMIC_SEQ_CST) != 0)
        role_pass_slow();
}

/* How long a sleeper whose guard ran out with its watch moved waits for
 * the wake-up on its way before it counts it as lost (us, < 1 s). */
enum { LATE_WAKE_US = 500000 };

/* Sleep on w's word until it is woken or ts ran out. */
static void sleep_once(waiter_t *w, const struct timespec *ts)
{
    while (__atomic_load_n(&w->word, __ATOMIC_ACQUIRE) == WS_SLEEP &&
           syscall(SYS_futex, &w->word, FUTEX_WAIT_PRIVATE, WS_SLEEP, ts, NULL, 0) != 0 &&
           errno == EINTR)
        ; /* (EAGAIN: woken meanwhile; ETIMEDOUT: the bound) */
}

/* A waiter that has polled for a while: take the polling role if nobody
 * holds it (1: the caller polls on, and does not sleep until its wait
 * ends), else sleep until what it waits for happens or it is handed the
 * role (1) or not (0). */
static int sleepers_enter(wait_cond_t *wc, const adi_watch_t *watch)
{
    /* (a sleep with a watch has only a guard: every change is announced) */
    long bound = watch != NULL && thread_sleep_us < thread_guard_us ? thread_guard_us
                                                                     : thread_sleep_us;
    struct timespec ts = {bound / 1000000, bound % 1000000 * 1000L};
    waiter_t me = {NULL, NULL, {NULL, 0}, dev_self(), WS_SLEEP, 0};
    uint32_t why;
    int missed = 0;

    if (role_take(me.self))
        return 1;
    if (watch != NULL) {
        me.watch = *watch;
        me.losses = failures_now();
    }
    adi_mutex_take(&sleepers_lock);
    me.prev = sleepers.prev;
    me.next = &sleepers;
    sleepers.prev->next = &me;
    sleepers.prev = &me;
    __atomic_add_fetch(&nsleepers, 1, __ATOMIC_SEQ_CST);
    /* Counted before looking: a holder that drops the role after this
     * look sees the count (role_pass), and so does a release after a
     * change (adi_unlock, sleepers_scan). */
    if (role_take(me.self))
        __atomic_store_n(&me.word, WS_ROLE, __ATOMIC_RELAXED);
    adi_mutex_drop(&sleepers_lock);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&me.word, __ATOMIC_RELAXED) == WS_SLEEP &&
        !(me.watch.word != NULL ? waiter_due(&me, 0) : wait_cond_ready(wc))) {
        sleep_once(&me, &ts);
        /* A guard that ran out with the watch moved: the change may have
         * come just now, its releaser not yet at its scan (it finishes its
         * poll first, and may lose its CPU meanwhile). Still listed, the
         * sleeper gives that wake-up one more bound, at least LATE_WAKE_US;
         * only a wake-up that does not come then was lost. */
        if (me.watch.word != NULL && __atomic_load_n(&me.word, __ATOMIC_ACQUIRE) == WS_SLEEP &&
            waiter_due(&me, 0)) {
            if (bound < LATE_WAKE_US)
                ts = (struct timespec){0, LATE_WAKE_US * 1000L};
            sleep_once(&me, &ts);
            missed = __atomic_load_n(&me.word, __ATOMIC_ACQUIRE) == WS_SLEEP;
        }
    }
    adi_mutex_take(&sleepers_lock);
    me.prev->next = me.next;
    me.next->prev = me.prev;
    __atomic_sub_fetch(&nsleepers, 1, __ATOMIC_SEQ_CST);
    why = __atomic_load_n(&me.word, __ATOMIC_ACQUIRE); /* (final: nobody sees me now) */
    adi_mutex_drop(&sleepers_lock);
    __atomic_add_fetch(&adi_stats.thread_sleeps, 1, __ATOMIC_RELAXED);
    if (missed && why == WS_SLEEP)
        __atomic_add_fetch(&adi_stats.thread_sleeps_missed, 1, __ATOMIC_RELAXED);
    return why == WS_ROLE;
}

/* Poll every channel, make the rendezvous reads the poll gathered
 * (adi_rndv_flush), send what is queued, run the hooks. In locked mode
 * only one thread polls at a time: a thread that finds the device lock
 * taken returns -1 at once (the holder is polling, or sending, for
 * everybody; the caller checks its own requests and backs off). Returns
 * with the device lock still held when it polled (n >= 0), so that a wait
 * whose request this poll completed finishes it in the same round;
 * progress_release ends the round. */
static inline __attribute__((always_inline)) int progress_poll_hold(void)
{
    int n = 0;

    if (!dev_trylock())
        return -1;
    adi_dev.polling = 1;
    for (int i = 0; i < nactive; i++) {
        int k = ch_progress(active[i]);
        if (k > 0)
            n += k;
    }
    adi_dev.polling = 0;
    if (adi_dev.nreads != 0)
        adi_rndv_flush();
    if (adi_dev.npump > 0) {
        int keep = 0;
        for (int i = 0; i < adi_dev.npump; i++) {
            int peer = adi_dev.pump_list[i];
            n += adi_peer_pump(peer);
            if (!common_list_empty(&adi_dev.peers[peer].sendq))
                adi_dev.pump_list[keep++] = peer;
            else
                adi_dev.peers[peer].in_pump_list = 0;
        }
        __atomic_store_n(&adi_dev.npump, keep, __ATOMIC_RELAXED); /* read unlocked in waits */
    }
    progress_hooks_did = 0;
    for (int i = 0; i < nprogress_hooks; i++)
        if (progress_hooks[i].fn != NULL)
            progress_hooks[i].fn(progress_hooks[i].arg);
    n += progress_hooks_did; /* (served work keeps a wait awake, as a packet would) */
    return n;
}

/* The end of a poll of progress_poll_hold that returned n >= 0. */
static inline void progress_release(int n)
{
    if (!adi_locked || --dev_depth > 0)
        return;
    __atomic_store_n(&dev_owner, 0, __ATOMIC_RELAXED);
    adi_bmutex_drop(&dev_lock);
    if (__atomic_load_n(&nsleepers, __ATOMIC_SEQ_CST) != 0) /* (as adi_unlock) */
        sleepers_scan(n > 0);
}

static int progress_poll(void)
{
    int n = progress_poll_hold();
    if (n >= 0)
        progress_release(n);
    return n;
}

int adi_progress(void)
{
    int n = progress_poll();
    /* (a program that only tests takes the launcher's failure notices too) */
    if (n <= 0 && __atomic_load_n(&adi_launcher_pending, __ATOMIC_RELAXED) != 0)
        adi_launcher_take();
    return n > 0 ? n : 0;
}

/* The channel a blocked wait may sleep in: only when exactly one active
 * channel other than self can block (sleeping in one would delay the
 * others' packets). *fast_out: that channel wakes on arrival by itself. */
static ch_endpoint_t *sleep_channel(int *fast_out)
{
    ch_endpoint_t *found = NULL;
    *fast_out = 0;
    for (int i = 0; i < nactive; i++) {
        if (active[i]->ops == &ch_self_ops)
            continue;
        if (!active_caps[i].can_block)
            return NULL;
        if (found != NULL)
            return NULL;
        found = active[i];
        *fast_out = active_caps[i].block_wakes_fast;
    }
    return found;
}

/* The wait policy. Spinning is cheapest while the peer answers within a few
 * microseconds, so a wait polls without yielding for CANAL_SPIN_US (and at
 * least CANAL_SPIN_COUNT polls) -- measured in time, not polls, so a busy
 * machine does not cut the spin short. Then it yields on every empty poll,
 * and after CANAL_SLEEP_AFTER_US it sleeps in the channel (a futex doorbell
 * for shm, epoll for sock) for at most 1 ms at a time. Channels the kernel
 * wakes (sock) are slept in almost at once: spinning there starves the
 * kernel's network processing on small machines. Oversubscribed nodes yield
 * from the first empty poll.
 *
 * A CPU shared with other programs changes the trade: a waiter that spins
 * or yields there keeps its partner (or whoever would answer) off a CPU
 * and is itself run late, a time slice at a time (2-rank barriers of
 * milliseconds on a loaded machine), while a sleeper is woken at once and
 * runs ahead of the programs that used their share. So a wait that finds
 * it was descheduled while polling (two clock readings further apart than
 * CANAL_WAIT_PREEMPTED_US, 200; 0 turns
 * this off) marks the process as contended, and for the next
 * WAIT_CONTENDED_KEEP_US every wait sleeps after WAIT_CONTENDED_SLEEP_US.
 * On a dedicated CPU nothing deschedules it and the long spin stays (a
 * sleeping vCPU takes tens of microseconds to wake). */
enum { WAIT_CONTENDED_SLEEP_US = 50, WAIT_CONTENDED_KEEP_US = 1000000 };

/* Except while a local peer copies our rendezvous data (rndv_pull_expect in
 * adi/pt2pt.c): that copy runs on the peer's own CPU for a time the size
 * tells, and a sender asleep for it pays a vCPU wake-up at its FIN, every
 * message (4 MiB ping-pong with contended mode on: 627 us one-way, a sleep
 * per wait, against 330 us without; doc/bench.md, "big"). */
long long adi_wait_contended_after(long long normal_us, long long contended_us, long long t0,
                                   long long pull_until)
{
    long long after = contended_us;

    if (pull_until - t0 > after)
        after = pull_until - t0;
    return after < normal_us ? after : normal_us;
}
/* Locked mode: a wait polls for itself this many empty polls (taking the
 * device lock when it is free); then it polls on only with the polling
 * role, else sleeps (sleepers_enter). */
enum { WAIT_ROLE_POLLS = 16 };
static long long wait_contended_at; /* when a wait last saw itself descheduled */

/* limit_us > 0 (adi_wait_until_for: coll/'s mismatch watch): give up
 * (CANAL_AGAIN, the lock held as well) once limit_us has passed since the
 * first clock reading, looked at where the loop reads the clock anyway,
 * after a sleep and after a poll that delivered something else; a correct
 * program's short waits pay nothing for it. */
static inline int limit_passed(long long *at, long long limit_us, long long now)
{
    if (*at == 0)
        *at = now + limit_us;
    return now >= *at;
}

/* The wait loop; returns with the device lock held (a no-op below locked
 * mode). The poll that makes pred true keeps the lock, so that the caller
 * finishes in the same lock round (MPI_Wait: poll, then the status and the
 * free under the lock); when another thread's poll made it true, the lock
 * is taken here. Either way the wait counters are added under it. */
/* `locked` is adi_locked, a constant of the run, passed as a constant so
 * that the loop below locked mode carries nothing of the polling role (11-13
 * instructions per wait when it tested the role at every poll). */
static inline __attribute__((always_inline)) canal_status_t
wait_loop(int (*pred)(void *arg), void (*watch)(void *arg, adi_watch_t *out), void *arg,
          const int locked, long long limit_us, int look)
{
    canal_status_t ret = CANAL_OK;
    long long limit_at = 0; /* (limit_us after the first clock reading) */
    long idle = 0;
    int role = 0; /* this thread holds the polling role (sleepers_enter) */
    long long t0 = 0, elapsed = 0, entered = 0, last = 0;
    int fast = 0;
    /* (found at the first clock reading: a wait that ends within 64 polls,
     * most of them, never needs them; looking at entry cost 19
     * instructions a wait once sleep_channel stopped being inlined) */
    ch_endpoint_t *sleeper = NULL;
    long long sleep_after = 0, contended_at;
    wait_cond_t wc = {pred, arg, 0};

    for (;;) {
        int n;
        /* (look 0: pred was found false since the last poll, by the
         * caller or after this loop's own poll; poll first) */
        if (wc.held || (look && pred(arg))) {
            adi_lock();
            break;
        }
        /* (locked mode: after WAIT_ROLE_POLLS empty polls only the role
         * holder polls; the others sleep) */
        if (locked && idle >= WAIT_ROLE_POLLS && !role) {
            adi_watch_t wt = {NULL, 0};
            if (watch != NULL)
                watch(arg, &wt);
            role = sleepers_enter(&wc, wt.word != NULL ? &wt : NULL);
            look = 1; /* (asleep: another thread's poll may have made it true) */
            last = 0;
            if (limit_us > 0 && limit_passed(&limit_at, limit_us, common_now_us())) {
                ret = CANAL_AGAIN; /* (asleep: this thread reads no clock below) */
                adi_lock();
                break;
            }
            continue;
        }
        n = progress_poll_hold();
        if (n >= 0) {
            if (pred(arg))
                break; /* (polled, and holds the lock) */
            progress_release(n);
        }
        /* Asked again at the loop's top only when this iteration did not
         * ask after a poll of its own (another thread held the device
         * lock): an empty poll's iteration called pred twice, about 20
         * instructions of each empty poll (doc/bench.md, helper near9). */
        look = n < 0;
        if (n > 0) {
            /* (a poll that delivered may have copied for long: no gap) */
            idle = 0;
            t0 = elapsed = last = 0;
            if (limit_us > 0 && limit_passed(&limit_at, limit_us, common_now_us())) {
                ret = CANAL_AGAIN; /* (other traffic: idle never reaches 64) */
                adi_lock();
                break;
            }
            continue;
        }
        if (__atomic_load_n(&adi_launcher_pending, __ATOMIC_RELAXED) != 0)
            adi_launcher_take(); /* (a rank the launcher saw fail) */
        /* The clock is read every 64th empty poll (every poll when
         * oversubscribed, where each one yields anyway): a small message's
         * whole wait is a few dozen polls, and reading the clock at its
         * start and end was a seventh of a ping-pong's time. */
        if ((++idle & 63) == 0 || adi_dev.oversubscribed) {
            long long now = common_now_us();
            if (entered == 0) {
                entered = now;
                if (__atomic_load_n(&adi_dev.own_threads_max, __ATOMIC_RELAXED) > 0)
                    own_threads_look(now);
                sleeper = sleep_channel(&fast);
                sleep_after = fast ? 50 : adi_dev.sleep_after_us;
                contended_at = __atomic_load_n(&wait_contended_at, __ATOMIC_RELAXED);
                if (contended_at != 0 && now - contended_at < WAIT_CONTENDED_KEEP_US &&
                    sleep_after > WAIT_CONTENDED_SLEEP_US)
                    sleep_after = adi_wait_contended_after(
                        sleep_after, WAIT_CONTENDED_SLEEP_US, now,
                        __atomic_load_n(&adi_dev.pull_until_us, __ATOMIC_RELAXED));
            }
            long long preempted_us = __atomic_load_n(&adi_dev.preempted_us, __ATOMIC_RELAXED);
            if (last != 0 && preempted_us > 0 && now - last > preempted_us) {
                __atomic_store_n(&wait_contended_at, now, __ATOMIC_RELAXED);
                if (sleep_after > WAIT_CONTENDED_SLEEP_US)
                    sleep_after = adi_wait_contended_after(
                        sleep_after, WAIT_CONTENDED_SLEEP_US, t0 != 0 ? t0 : now,
                        __atomic_load_n(&adi_dev.pull_until_us, __ATOMIC_RELAXED));
            }
            last = now;
            if (t0 == 0)
                t0 = now;
            elapsed = now - t0;
            if (limit_us > 0 && limit_passed(&limit_at, limit_us, now)) {
                ret = CANAL_AGAIN;
                adi_lock();
                break;
            }
        }
        if (wait_hook != NULL && idle % wait_hook_interval == 0) {
            wait_hook(wait_hook_arg);
            last = 0; /* (a collector may have run: not a preemption) */
        }
        if (n < 0) {
            /* Another thread holds the device lock (polling or sending):
             * give it the CPU rather than spin against it (2 threads per
             * core is common with MPI_THREAD_MULTIPLE). */
            sched_yield();
            continue;
        }
        /* (npump read atomically: the compiler may load it even in
         * locked mode, where another thread writes it) */
        if (!locked && sleeper != NULL && elapsed > sleep_after &&
            __atomic_load_n(&adi_dev.npump, __ATOMIC_RELAXED) == 0) {
            /* Nothing for a while: sleep until a sender rings or
             * CANAL_WAIT_SLEEP_US (1 ms) passes. A sleep that lasted its
             * whole time while what we wait for had happened was a
             * wake-up that never came: counted (canal_wait_missed_wakes). */
            canal_status_t bst = ch_block_until(sleeper, adi_dev.sleep_us, wait_cond_ready, &wc);
            adi_stat_add_devlocked(&adi_stats.wait_sleeps, 1);
            if (bst == CANAL_AGAIN && wait_cond_ready(&wc))
                adi_stat_add_devlocked(&adi_stats.wait_sleeps_missed, 1);
            last = 0; /* (asleep by choice) */
            if (limit_us > 0 && limit_passed(&limit_at, limit_us, common_now_us())) {
                ret = CANAL_AGAIN; /* (64 sleeps to the next clock reading) */
                adi_lock();
                break;
            }
            continue;
        }
        if (!adi_dev.oversubscribed &&
            (idle < adi_dev.spin_count ||
             elapsed < __atomic_load_n(&adi_dev.spin_us, __ATOMIC_RELAXED)))
            continue;
        sched_yield();
    }
    if (locked && role)
        role_pass(); /* (the oldest sleeper polls next) */
    /* (time from the first clock reading: waits shorter than 64 polls add
     * nothing to canal_wait_time but count in canal_waits; every writer
     * holds the device lock, so no locked read-modify-write) */
    if (entered != 0)
        adi_stat_add_devlocked(&adi_stats.wait_ns, (uint64_t)(common_now_us() - entered) * 1000);
    adi_stat_add_devlocked(&adi_stats.waits, 1);
    return ret;
}

static canal_status_t wait_until_held(int (*pred)(void *arg),
                                      void (*watch)(void *arg, adi_watch_t *out), void *arg,
                                      long long limit_us, int look)
{
    if (adi_locked)
        return wait_loop(pred, watch, arg, 1, limit_us, look);
    return wait_loop(pred, NULL, arg, 0, limit_us, look);
}

canal_status_t adi_wait_until_locked_watch(int (*pred)(void *arg),
                                          void (*watch)(void *arg, adi_watch_t *out), void *arg)
{
    if (pred(arg)) {
        adi_lock();
        return CANAL_OK;
    }
    return wait_until_held(pred, watch, arg, 0, 0);
}

/* (MPI_Wait's: the caller found pred false a moment ago, so the loop polls
 * before it calls pred; each call of MPI_Wait's predicate was ~25
 * instructions, and a wait that one poll ends called it three times.)
 * The first poll is made here, before the loop: a wait that it ends (a
 * small message to itself, or one already in the ring) returns without
 * the loop's frame and its dozen state words: 953 -> 925 instructions for
 * an MPI_Irecv + MPI_Send + MPI_Wait to itself (1098 -> 1059 locked). It counts in
 * canal_waits as the loop's own first poll would. */
canal_status_t adi_wait_polling_locked_watch(int (*pred)(void *arg),
                                            void (*watch)(void *arg, adi_watch_t *out), void *arg)
{
    int n = progress_poll_hold();

    if (n >= 0) {
        if (pred(arg)) {
            adi_stat_add_devlocked(&adi_stats.waits, 1);
            return CANAL_OK;
        }
        progress_release(n);
    }
    return wait_until_held(pred, watch, arg, 0, 0);
}

canal_status_t adi_wait_until_locked(int (*pred)(void *arg), void *arg)
{
    return adi_wait_until_locked_watch(pred, NULL, arg);
}

void adi_wait_unlock(void) { adi_unlock(); }

canal_status_t adi_wait_until_watch(int (*pred)(void *arg),
                                   void (*watch)(void *arg, adi_watch_t *out), void *arg)
{
    if (pred(arg))
        return CANAL_OK;
    return adi_wait_polling_watch(pred, watch, arg);
}

/* (the waits above found pred false just now: their loop polls before it
 * looks again; MPI_Waitall's predicate scans its array) */
canal_status_t adi_wait_polling_watch(int (*pred)(void *arg),
                                     void (*watch)(void *arg, adi_watch_t *out), void *arg)
{
    wait_until_held(pred, watch, arg, 0, 0);
    adi_unlock();
    return CANAL_OK;
}

canal_status_t adi_wait_until_for(int (*pred)(void *arg), void *arg, long long us)
{
    canal_status_t st;
    if (pred(arg))
        return CANAL_OK;
    st = wait_until_held(pred, NULL, arg, us > 0 ? us : 1, 0);
    adi_unlock();
    return st;
}

canal_status_t adi_wait_until(int (*pred)(void *arg), void *arg)
{
    return adi_wait_until_watch(pred, NULL, arg);
}

static int req_done(void *arg) { return __atomic_load_n(&((adi_request_t *)arg)->done, __ATOMIC_ACQUIRE); }

void adi_watch_request(const adi_request_t *req, adi_watch_t *out)
{
    out->word = &req->done;
    out->unless = 0;
}

static void req_watch(void *arg, adi_watch_t *out) { adi_watch_request(arg, out); }

canal_status_t adi_wait(adi_request_t *req) { return adi_wait_until_watch(req_done, req_watch, req); }

/* adi_finalize's wait: its limit (CANAL_FINALIZE_WAIT_MS from its start)
 * and the warnings said once each past it. */
typedef struct {
    double deadline;
    int warned_in, warned_out;
} finalize_wait_t;

/* A peer of the send queues whose queue holds more than copies of sends
 * that abandoned collectives left (adi_send_detach: buf is its copy, tmp),
 * or -1 when none does; *left is a peer whose queue holds such a copy, or
 * -1. Device lock held. */
static int pump_kept(int *left)
{
    *left = -1;
    for (int i = 0; i < adi_dev.npump; i++) {
        int peer = adi_dev.pump_list[i];
        common_list_t *q = &adi_dev.peers[peer].sendq;
        for (common_link_t *l = q->head; l != NULL; l = l->next) {
            adi_request_t *r = common_list_entry(l, adi_request_t, sendq);
            if (r->kind != ADI_REQ_SEND || r->tmp == NULL || r->buf != r->tmp)
                return peer;
            *left = peer;
        }
    }
    return -1;
}

/* Channels are called with the device lock held (flush included). */
static int all_sent(void *arg)
{
    finalize_wait_t *w = arg;
    int done = 1, from, left;

    /* (incoming streams of receives an abandoned collective left: their
     * senders wait for them here too) */
    if ((from = adi_recv_detached_pending()) >= 0) {
        if (common_now_s() < w->deadline)
            return 0;
        if (!w->warned_in++)
            LOG_WARN("finalize: a message from rank %d that an abandoned collective was "
                     "receiving is still coming after CANAL_FINALIZE_WAIT_MS; going on",
                     from);
    }
    adi_lock();
    /* A stream's receiver takes it at its pace: no limit, but for the
     * streams of sends an abandoned collective left, whose receivers may
     * be in their fence already, having waited their own limit (before,
     * such a sender waited there for ever: coll_detach_wait args=stream) */
    if (adi_dev.npump != 0 &&
        (common_now_s() < w->deadline || pump_kept(&left) >= 0 || left < 0))
        done = 0;
    else if (adi_dev.npump != 0 && !w->warned_out++)
        LOG_WARN("finalize: a message to rank %d that an abandoned collective left is still "
                 "being sent after CANAL_FINALIZE_WAIT_MS; going on",
                 left);
    for (int i = 0; done && i < nactive; i++) {
        if (ch_flush(active[i]) == CANAL_OK)
            continue;
        if (common_now_s() < w->deadline) {
            done = 0;
            break;
        }
        LOG_WARN("finalize: channel %s still holds unsent packets; going on", ch_name(active[i]));
    }
    adi_unlock();
    return done;
}

/* adi_wait_sent's wait: every active channel has handed what it holds
 * to the kernel or the peer's memory (device lock held for the flush). */
static int channels_flushed(void *arg)
{
    int done = 1;

    (void)arg;
    adi_lock();
    for (int i = 0; done && i < nactive; i++)
        done = ch_flush(active[i]) == CANAL_OK;
    adi_unlock();
    return done;
}

void adi_wait_sent(void) { adi_wait_until(channels_flushed, NULL); }

canal_status_t adi_finalize(void)
{
    canal_status_t st;
    finalize_wait_t w = {0};

    /* Whatever is still queued (buffered sends, freed requests, packets
     * behind a connection handshake) goes out first, within
     * CANAL_FINALIZE_WAIT_MS (30 s), streams whenever their receivers take
     * them (those of abandoned collectives within the limit), and streams
     * into receives an abandoned collective left come in, within the
     * limit too. */
    adi_offers_final();
    w.deadline = common_now_s() + (double)adi_dev.finalize_wait_ms / 1000.0;
    adi_wait_until(all_sent, &w);
    /* A rank we lost would never reach the fence: after a failure this
     * rank finalizes without waiting for the others. */
    if (__atomic_load_n(&adi_dev.nfailed, __ATOMIC_SEQ_CST) > 0)
        LOG_INFO("finalize: %d peer(s) lost; not waiting for the other ranks",
                 __atomic_load_n(&adi_dev.nfailed, __ATOMIC_SEQ_CST));
    else if (adi_dev.size > 1 && (st = pmi_fence()) < 0)
        return st;
    for (int i = nactive - 1; i >= 0; i--) {
        ch_finalize(active[i]);
        ch_endpoint_free(active[i]);
        active[i] = NULL;
    }
    if (dyn_ch != NULL && dyn_slot < 0) { /* opened for other jobs, never polled */
        ch_finalize(dyn_ch);
        ch_endpoint_free(dyn_ch);
    }
    nactive = 0;
    dyn_slot = -1;
    dyn_ch = NULL;
    adi_queues_finalize();
    adi_ctx_ranks_finalize();
    pmi_set_rank_failed_handler(NULL);
    adi_dyn_finalize();
    free(adi_dev.peers);
    free(adi_dev.pump_list);
    adi_dev.peers = NULL;
    adi_dev.pump_list = NULL;
    return CANAL_OK;
}
