/*
 * The MPI tool information interface, MPI_T (MPI 4.0 chapter 15). Tools
 * (and programs) call it before, during and after MPI_Init: it needs nothing
 * from the layers below except the configuration registry (common/cvar.h)
 * and counters the device and the MPI front already keep.
 *
 * - Control variables are the rows of the registry, in its order, named
 *   CANAL_<NAME> (MPI_T_cvar_get_index also accepts <NAME> and the
 *   MPIR_CVAR_ name where MPICH has the same knob). Every layer reads its
 *   variables once, at MPI_Init or at first use, so a write can only take
 *   effect before MPI_Init: then it sets CANAL_<NAME> in the environment,
 *   which is where the registry reads from. After MPI_Init a write returns
 *   MPI_T_ERR_CVAR_SET_NEVER (nothing can change at run time).
 * - Performance variables come from the managed-runtime counters of the
 *   device (adi/managed.h), the partitioned-communication and session
 *   counters of mpi/, and, once adi/adi.h declares adi_stats_get()
 *   (ADI_HAVE_STATS), the per-channel message and byte counts, the queue
 *   lengths and high-water marks, rendezvous counts and time blocked in waits.
 * - Categories: one per layer, channels with one child per channel.
 * - Events: none yet (MPI_T_event_get_num says 0); one time source exists.
 *
 * Everything is serialized by one mutex: MPI_T must be thread safe
 * whatever thread level MPI itself runs at.
 */
#include "mpiimpl.h"
#include "mpi/api_impl.h"

#include "adi/managed.h"
#include "common/clock.h"
#include "common/cvar.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The managed-runtime counters exist when adi/managed.c is linked in
 * (mpi/managed.inc); until then their variables are not offered. */
void adi_mgd_stats(adi_mgd_stats_t *out) __attribute__((weak));

static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
static int t_refcount;

enum { CVAR_STRLEN = 256 };

/* ---------------------------------------------------------------- helpers */
/* The MPI_T convention for returned strings: copy at most *len - 1
 * characters and a terminating NUL when buf is given and *len > 0, then set
 * *len to the full length plus one. */
static void copy_str(const char *src, char *buf, int *len)
{
    size_t n = strlen(src);
    if (len == NULL)
        return;
    if (buf != NULL && *len > 0) {
        size_t m = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
        memcpy(buf, src, m);
        buf[m] = '\0';
    }
    *len = n + 1 > INT_MAX ? INT_MAX : (int)n + 1;
}

/* Every function but MPI_T_init_thread: lock, or say "not initialized". */
static int t_enter(void)
{
    pthread_mutex_lock(&t_lock);
    if (t_refcount > 0)
        return MPI_SUCCESS;
    pthread_mutex_unlock(&t_lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

static int t_leave(int err)
{
    pthread_mutex_unlock(&t_lock);
    return err;
}

/* ---------------------------------------------------------------- enums */
struct MPIR_T_enum_s {
    const char *name;
    int n;
    const char *const *items;
};

static const char *const bool_items[] = {"false", "true"};
static struct MPIR_T_enum_s enum_bool = {"canal_bool", 2, bool_items};

static int enum_valid(MPI_T_enum e) { return e == &enum_bool; }

/* ---------------------------------------------------------------- categories */
typedef enum {
    CAT_COMMON,
    CAT_PMI,
    CAT_MPI,
    CAT_COLL,
    CAT_ADI,
    CAT_MANAGED,
    CAT_DATATYPE,
    CAT_CHANNELS,
    CAT_SHM,
    CAT_SOCK,
    CAT_OFI,
    CAT_RMA,
    CAT_COUNT
} cat_id_t;

static const struct {
    const char *name, *desc;
    int parent; /* -1: top level */
} cats[CAT_COUNT] = {
    [CAT_COMMON] = {"canal_common", "logging and settings shared by every layer", -1},
    [CAT_PMI] = {"canal_pmi", "process management client (PMI-1, PMI-2, PMIx, singleton)", -1},
    [CAT_MPI] = {"canal_mpi", "the MPI front: sessions, partitioned communication", -1},
    [CAT_COLL] = {"canal_coll", "collective algorithms and their selection", -1},
    [CAT_ADI] = {"canal_adi", "the device: protocols, queues, progress and waits", -1},
    [CAT_MANAGED] = {"canal_managed", "the device's support for managed runtimes (pinning)",
                     CAT_ADI},
    [CAT_DATATYPE] = {"canal_datatype", "the datatype engine", -1},
    [CAT_CHANNELS] = {"canal_channels", "the channels that move packets; choice of channel", -1},
    [CAT_SHM] = {"canal_shm", "shared-memory channel", CAT_CHANNELS},
    [CAT_SOCK] = {"canal_sock", "TCP socket channel", CAT_CHANNELS},
    [CAT_OFI] = {"canal_ofi", "libfabric channel", CAT_CHANNELS},
    [CAT_RMA] = {"canal_rma", "one-sided communication", -1},
};

/* Which layer a registry row belongs to: by the prefix of its name (the
 * registry groups rows by layer and prefixes them), else a few known names. */
static int cvar_category(const common_cvar_desc_t *d)
{
    static const struct {
        const char *prefix;
        int cat;
    } prefixes[] = {
        {"COLL_", CAT_COLL}, {"SHM_", CAT_SHM},     {"SOCK_", CAT_SOCK}, {"OFI_", CAT_OFI},
        {"RMA_", CAT_RMA},   {"DT_", CAT_DATATYPE}, {"PMI", CAT_PMI},    {"CHANNEL", CAT_CHANNELS},
        {"MGD_", CAT_MANAGED}, {"MANAGED_", CAT_MANAGED},
    };
    static const char *const adi_names[] = {"EAGER_LIMIT", "UNEXPECTED_LIMIT", "RNDV_CHUNK",
                                            "SPIN_COUNT", "OVERSUBSCRIBED"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(d->name, prefixes[i].prefix, strlen(prefixes[i].prefix)) == 0)
            return prefixes[i].cat;
    for (size_t i = 0; i < sizeof adi_names / sizeof adi_names[0]; i++)
        if (strcmp(d->name, adi_names[i]) == 0)
            return CAT_ADI;
    if (strncmp(d->name, "ADI_", 4) == 0 || strncmp(d->name, "RNDV_", 5) == 0)
        return CAT_ADI;
    return CAT_COMMON;
}

/* ---------------------------------------------------------------- performance variables */
typedef enum {
    SRC_MGD,     /* adi_mgd_stats(): arg = field */
    SRC_PART,    /* mpi_part_stats(): arg = 0 started, 1 partitions, 2 messages */
    SRC_SESSION, /* mpi_session_count() */
#ifdef ADI_HAVE_STATS
    SRC_ADI,     /* adi_stats_get(): arg = field, chan = channel slot */
#endif
} pvar_src_t;

enum { MGD_OPS, MGD_PINS, MGD_UNPINS, MGD_DEFERRED, MGD_AVOIDED, MGD_COPIES, MGD_SAFEPOINTS,
       MGD_SKIPPED, MGD_INFLIGHT };

typedef struct {
    char name[64];
    char desc[160];
    int var_class;
    int cat;
    pvar_src_t src;
    int arg, chan;
} pvar_desc_t;

enum { PVAR_MAX = 96 };
static pvar_desc_t pvars[PVAR_MAX];
static int npvars;

static void pvar_add(const char *name, const char *desc, int var_class, int cat, pvar_src_t src,
                     int arg, int chan)
{
    pvar_desc_t *p;
    if (npvars >= PVAR_MAX)
        return;
    p = &pvars[npvars++];
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->desc, sizeof p->desc, "%s", desc);
    p->var_class = var_class;
    p->cat = cat;
    p->src = src;
    p->arg = arg;
    p->chan = chan;
}

#ifdef ADI_HAVE_STATS
enum { ADI_F_MSGS_SENT, ADI_F_BYTES_SENT, ADI_F_MSGS_RECV, ADI_F_BYTES_RECV, ADI_F_UNEXP_LEN,
       ADI_F_UNEXP_HWM, ADI_F_POSTED_LEN, ADI_F_POSTED_HWM, ADI_F_RNDV_SENT, ADI_F_RNDV_RECV,
       ADI_F_WAIT_NS, ADI_F_WAITS, ADI_F_RNDV_PULLED, ADI_F_RNDV_PUSHED, ADI_F_RNDV_PUSH_FAILED, ADI_F_RNDV_BATCHED, ADI_F_WAIT_SLEEPS, ADI_F_WAIT_SLEEPS_MISSED,
       ADI_F_THREAD_SLEEPS, ADI_F_THREAD_SLEEPS_MISSED, ADI_F_UNEXP_MSGS };

static unsigned long long adi_field(int f, int chan)
{
    adi_stats_t s;
    adi_stats_get(&s);
    switch (f) {
    case ADI_F_MSGS_SENT: return s.msgs_sent[chan];
    case ADI_F_BYTES_SENT: return s.bytes_sent[chan];
    case ADI_F_MSGS_RECV: return s.msgs_recv[chan];
    case ADI_F_BYTES_RECV: return s.bytes_recv[chan];
    case ADI_F_UNEXP_LEN: return s.unexpected_len;
    case ADI_F_UNEXP_HWM: return s.unexpected_hwm;
    case ADI_F_POSTED_LEN: return s.posted_len;
    case ADI_F_POSTED_HWM: return s.posted_hwm;
    case ADI_F_RNDV_SENT: return s.rndv_sent;
    case ADI_F_RNDV_RECV: return s.rndv_recv;
    case ADI_F_WAIT_NS: return s.wait_ns;
    case ADI_F_WAITS: return s.waits;
    case ADI_F_RNDV_PULLED: return s.rndv_pulled;
    case ADI_F_RNDV_PUSHED: return s.rndv_pushed;
    case ADI_F_RNDV_PUSH_FAILED: return s.rndv_push_failed;
    case ADI_F_RNDV_BATCHED: return s.rndv_batched;
    case ADI_F_WAIT_SLEEPS: return s.wait_sleeps;
    case ADI_F_WAIT_SLEEPS_MISSED: return s.wait_sleeps_missed;
    case ADI_F_THREAD_SLEEPS: return s.thread_sleeps;
    case ADI_F_THREAD_SLEEPS_MISSED: return s.thread_sleeps_missed;
    case ADI_F_UNEXP_MSGS: return s.unexpected_msgs;
    default: return 0;
    }
}

static void pvars_add_adi(void)
{
    static const int chan_cat[ADI_STATS_NCHANNELS] = {CAT_CHANNELS, CAT_SHM, CAT_SOCK, CAT_OFI};
    static const struct {
        const char *what, *desc;
        int field;
    } per_chan[] = {
        {"messages_sent", "messages sent through the %s channel", ADI_F_MSGS_SENT},
        {"bytes_sent", "payload bytes sent through the %s channel", ADI_F_BYTES_SENT},
        {"messages_received", "messages received through the %s channel", ADI_F_MSGS_RECV},
        {"bytes_received", "payload bytes received through the %s channel", ADI_F_BYTES_RECV},
    };
    char name[64], desc[160];
    for (int c = 0; c < ADI_STATS_NCHANNELS; c++) {
        for (size_t i = 0; i < sizeof per_chan / sizeof per_chan[0]; i++) {
            snprintf(name, sizeof name, "canal_%s_%s", adi_stats_channel_names[c], per_chan[i].what);
            snprintf(desc, sizeof desc, per_chan[i].desc, adi_stats_channel_names[c]);
            pvar_add(name, desc, MPI_T_PVAR_CLASS_COUNTER, chan_cat[c], SRC_ADI, per_chan[i].field,
                     c);
        }
    }
    pvar_add("canal_unexpected_queue_length", "messages in the unexpected queues now",
             MPI_T_PVAR_CLASS_LEVEL, CAT_ADI, SRC_ADI, ADI_F_UNEXP_LEN, 0);
    pvar_add("canal_unexpected_messages",
             "messages that arrived before a receive matched them and waited in an unexpected "
             "queue (a queue entry and a second copy each)",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_UNEXP_MSGS, 0);
    pvar_add("canal_unexpected_queue_hwm",
             "most messages ever held in one communicator's unexpected queue (or in all of "
             "them at a read)",
             MPI_T_PVAR_CLASS_HIGHWATERMARK, CAT_ADI, SRC_ADI, ADI_F_UNEXP_HWM, 0);
    pvar_add("canal_posted_queue_length", "receives posted and not yet matched",
             MPI_T_PVAR_CLASS_LEVEL, CAT_ADI, SRC_ADI, ADI_F_POSTED_LEN, 0);
    pvar_add("canal_posted_queue_hwm",
             "most receives ever waiting in one communicator's posted queue (or in all of "
             "them at a read)",
             MPI_T_PVAR_CLASS_HIGHWATERMARK, CAT_ADI, SRC_ADI, ADI_F_POSTED_HWM, 0);
    pvar_add("canal_rndv_sent", "messages sent with the rendezvous protocol",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_RNDV_SENT, 0);
    pvar_add("canal_rndv_received", "messages received with the rendezvous protocol",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_RNDV_RECV, 0);
    pvar_add("canal_rndv_pulled",
             "rendezvous messages the receiver read from the sender's buffer itself (one copy: "
             "CMA on shm), not streamed through the channel",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_RNDV_PULLED, 0);
    pvar_add("canal_rndv_pushed",
             "rendezvous messages whose last part the sender wrote into the receive buffer "
             "while the receiver read the first (both copy: CANAL_RNDV_HALVES_MIN)",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_RNDV_PUSHED, 0);
    pvar_add("canal_rndv_push_failed",
             "rendezvous messages whose sender could not write its last part (canal_rndv_pushed) "
             "into the receive buffer: the receiver read that part itself",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_RNDV_PUSH_FAILED, 0);
    pvar_add("canal_rndv_batched",
             "rendezvous messages the receiver read together with others from the same sender "
             "(one system call on shm: a poll that matched several)",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_RNDV_BATCHED, 0);
    pvar_add("canal_wait_time", "seconds threads spent blocked in the device's waits",
             MPI_T_PVAR_CLASS_TIMER, CAT_ADI, SRC_ADI, ADI_F_WAIT_NS, 0);
    pvar_add("canal_waits", "blocking waits entered", MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI,
             ADI_F_WAITS, 0);
    pvar_add("canal_wait_sleeps", "sleeps of blocked waits in a channel (futex, epoll)",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_WAIT_SLEEPS, 0);
    pvar_add("canal_wait_missed_wakes",
             "sleeps of blocked waits that lasted their whole CANAL_WAIT_SLEEP_US although what "
             "the wait waited for had happened: a wake-up that never came (0 unless a waker was "
             "descheduled for that long between its change and its wake-up)",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_WAIT_SLEEPS_MISSED, 0);
    pvar_add("canal_thread_wait_sleeps",
             "sleeps of threads waiting while another thread polls (MPI_THREAD_MULTIPLE)",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_THREAD_SLEEPS, 0);
    pvar_add("canal_thread_wait_missed_wakes",
             "sleeps of waiting threads that lasted their whole bound (1 s for a wait on a "
             "request or an arrival) although what the wait waited for had happened: a "
             "wake-up that never came",
             MPI_T_PVAR_CLASS_COUNTER, CAT_ADI, SRC_ADI, ADI_F_THREAD_SLEEPS_MISSED, 0);
}
#endif

static void pvars_build(void)
{
    if (npvars > 0)
        return;
#ifdef ADI_HAVE_STATS
    pvars_add_adi();
#endif
    if (adi_mgd_stats == NULL)
        goto mpi_layer;
    pvar_add("canal_managed_ops", "operations on managed-runtime references",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MANAGED, SRC_MGD, MGD_OPS, 0);
    pvar_add("canal_managed_pins", "buffers pinned for a managed runtime", MPI_T_PVAR_CLASS_COUNTER,
             CAT_MANAGED, SRC_MGD, MGD_PINS, 0);
    pvar_add("canal_managed_unpins", "buffers unpinned", MPI_T_PVAR_CLASS_COUNTER, CAT_MANAGED,
             SRC_MGD, MGD_UNPINS, 0);
    pvar_add("canal_managed_deferred_pins", "pins deferred until a wait let the collector run",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MANAGED, SRC_MGD, MGD_DEFERRED, 0);
    pvar_add("canal_managed_pins_avoided", "operations that completed without ever pinning",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MANAGED, SRC_MGD, MGD_AVOIDED, 0);
    pvar_add("canal_managed_copies", "managed buffers copied instead of pinned",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MANAGED, SRC_MGD, MGD_COPIES, 0);
    pvar_add("canal_managed_safepoints", "safepoints polled during waits",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MANAGED, SRC_MGD, MGD_SAFEPOINTS, 0);
    pvar_add("canal_managed_safepoints_skipped", "safepoints skipped", MPI_T_PVAR_CLASS_COUNTER,
             CAT_MANAGED, SRC_MGD, MGD_SKIPPED, 0);
    pvar_add("canal_managed_inflight", "managed references in flight now", MPI_T_PVAR_CLASS_LEVEL,
             CAT_MANAGED, SRC_MGD, MGD_INFLIGHT, 0);
mpi_layer:
    pvar_add("canal_part_starts", "partitioned requests started", MPI_T_PVAR_CLASS_COUNTER,
             CAT_MPI, SRC_PART, 0, 0);
    pvar_add("canal_part_partitions_ready", "send partitions marked ready",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MPI, SRC_PART, 1, 0);
    pvar_add("canal_part_messages_sent", "messages sent for partitioned sends",
             MPI_T_PVAR_CLASS_COUNTER, CAT_MPI, SRC_PART, 2, 0);
    pvar_add("canal_sessions", "MPI sessions open now", MPI_T_PVAR_CLASS_LEVEL, CAT_MPI,
             SRC_SESSION, 0, 0);
}

/* The raw value: counts, or nanoseconds for timers. */
static unsigned long long pvar_raw(const pvar_desc_t *p)
{
    switch (p->src) {
    case SRC_MGD: {
        adi_mgd_stats_t s;
        long long v;
        adi_mgd_stats(&s);
        switch (p->arg) {
        case MGD_OPS: v = s.ops; break;
        case MGD_PINS: v = s.pins; break;
        case MGD_UNPINS: v = s.unpins; break;
        case MGD_DEFERRED: v = s.deferred_pins; break;
        case MGD_AVOIDED: v = s.pins_avoided; break;
        case MGD_COPIES: v = s.copies; break;
        case MGD_SAFEPOINTS: v = s.safepoints; break;
        case MGD_SKIPPED: v = s.safepoints_skipped; break;
        default: v = s.inflight; break;
        }
        return v < 0 ? 0 : (unsigned long long)v;
    }
    case SRC_PART: {
        unsigned long long v[3];
        mpi_part_stats(&v[0], &v[1], &v[2]);
        return v[p->arg];
    }
    case SRC_SESSION:
        return (unsigned long long)mpi_session_count();
#ifdef ADI_HAVE_STATS
    case SRC_ADI:
        return adi_field(p->arg, p->chan);
#endif
    }
    return 0;
}

/* Counters and timers accumulate between start and stop and can be reset
 * and written; levels and high-water marks are continuous and read only. */
static int pvar_is_continuous(const pvar_desc_t *p)
{
    return p->var_class != MPI_T_PVAR_CLASS_COUNTER && p->var_class != MPI_T_PVAR_CLASS_TIMER;
}

static MPI_Datatype pvar_datatype(const pvar_desc_t *p)
{
    return p->var_class == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
}

struct MPIR_T_pvar_handle_s {
    int index;
    int started;
    unsigned long long acc;  /* accumulated in earlier start..stop intervals (or written) */
    unsigned long long base; /* raw value at the last start */
    struct MPIR_T_pvar_handle_s *next;
};

struct MPIR_T_pvar_session_s {
    struct MPIR_T_pvar_handle_s *handles;
    struct MPIR_T_pvar_session_s *next;
};

static struct MPIR_T_pvar_session_s *sessions;

static int session_valid(MPI_T_pvar_session s)
{
    for (struct MPIR_T_pvar_session_s *x = sessions; x != NULL; x = x->next)
        if (x == s)
            return 1;
    return 0;
}

static int handle_in(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct MPIR_T_pvar_handle_s *x = s->handles; x != NULL; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

static unsigned long long handle_value(MPI_T_pvar_handle h)
{
    const pvar_desc_t *p = &pvars[h->index];
    if (pvar_is_continuous(p))
        return pvar_raw(p);
    return h->acc + (h->started ? pvar_raw(p) - h->base : 0);
}

static void handle_store(MPI_T_pvar_handle h, void *buf)
{
    unsigned long long v = handle_value(h);
    if (pvar_datatype(&pvars[h->index]) == MPI_DOUBLE)
        *(double *)buf = (double)v * 1e-9;
    else
        *(unsigned long long *)buf = v;
}

/* ---------------------------------------------------------------- init, finalize */
int mpi_t_init_thread_impl(int required, int *provided, const char *fn)
{
    if (provided == NULL)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&t_lock);
    if (t_refcount == INT_MAX) {
        pthread_mutex_unlock(&t_lock);
        return MPI_T_ERR_CANNOT_INIT;
    }
    t_refcount++;
    pvars_build();
    pthread_mutex_unlock(&t_lock);
    /* One mutex serializes MPI_T, so every level is provided. */
    *provided = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                 : required;
    return MPI_SUCCESS;
}

int mpi_t_finalize_impl(const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    /* The last finalize frees what tools forgot to free. */
    if (--t_refcount == 0) {
        while (sessions != NULL) {
            struct MPIR_T_pvar_session_s *s = sessions;
            sessions = s->next;
            while (s->handles != NULL) {
                struct MPIR_T_pvar_handle_s *h = s->handles;
                s->handles = h->next;
                free(h);
            }
            free(s);
        }
    }
    return t_leave(MPI_SUCCESS);
}

/* ---------------------------------------------------------------- enums */
int mpi_t_enum_get_info_impl(MPI_T_enum enumtype, int *num, char *name, int *name_len,
                             const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (!enum_valid(enumtype))
        return t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (num == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num = enumtype->n;
    copy_str(enumtype->name, name, name_len);
    return t_leave(MPI_SUCCESS);
}

int mpi_t_enum_get_item_impl(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len,
                             const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (!enum_valid(enumtype))
        return t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (indx < 0 || indx >= enumtype->n)
        return t_leave(MPI_T_ERR_INVALID_ITEM);
    if (value == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *value = indx;
    copy_str(enumtype->items[indx], name, name_len);
    return t_leave(MPI_SUCCESS);
}

/* ---------------------------------------------------------------- control variables */
static MPI_Datatype cvar_datatype(const common_cvar_desc_t *d)
{
    switch (d->type) {
    case CVAR_TYPE_INT: return MPI_INT;
    case CVAR_TYPE_SIZE: return MPI_LONG_LONG;
    case CVAR_TYPE_BOOL: return MPI_INT;
    default: return MPI_CHAR;
    }
}

int mpi_t_cvar_get_num_impl(int *num_cvar, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (num_cvar == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num_cvar = common_cvar_count();
    return t_leave(MPI_SUCCESS);
}

int mpi_t_cvar_get_info_impl(int cvar_index, char *name, int *name_len, int *verbosity,
                             MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                             int *desc_len, int *bind, int *scope, const char *fn)
{
    const common_cvar_desc_t *d;
    char full[160];
    int err = t_enter();
    if (err)
        return err;
    if ((d = common_cvar_at(cvar_index)) == NULL)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    snprintf(full, sizeof full, "CANAL_%s", d->name);
    copy_str(full, name, name_len);
    copy_str(d->desc != NULL ? d->desc : "", desc, desc_len);
    if (verbosity != NULL)
        *verbosity = strcmp(d->name, "DEBUG") == 0 || strcmp(d->name, "SUMMARY") == 0
                         ? MPI_T_VERBOSITY_USER_BASIC
                         : MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype != NULL)
        *datatype = cvar_datatype(d);
    if (enumtype != NULL)
        *enumtype = d->type == CVAR_TYPE_BOOL ? &enum_bool : MPI_T_ENUM_NULL;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    /* Writable (locally) only before MPI_Init: the layers read their
     * variables when MPI starts and keep them (see MPI_T_cvar_write), so
     * from then on every variable reports itself read-only, and tools
     * that write what is not read-only (MPICH's mpi_t/cvarwrite) are told
     * the truth. */
    if (scope != NULL)
        *scope = mpi_state == MPI_STATE_PRE_INIT ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_cvar_get_index_impl(const char *name, int *cvar_index, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (name == NULL || cvar_index == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < common_cvar_count(); i++) {
        const common_cvar_desc_t *d = common_cvar_at(i);
        if (strcmp(name, d->name) == 0 ||
            (strncmp(name, "CANAL_", 6) == 0 && strcmp(name + 6, d->name) == 0) ||
            (d->mpich_name != NULL && strncmp(name, "MPIR_CVAR_", 10) == 0 &&
             strcmp(name + 10, d->mpich_name) == 0)) {
            *cvar_index = i;
            return t_leave(MPI_SUCCESS);
        }
    }
    return t_leave(MPI_T_ERR_INVALID_NAME);
}

struct MPIR_T_cvar_handle_s {
    int index;
    struct MPIR_T_cvar_handle_s *next;
};
static struct MPIR_T_cvar_handle_s *cvar_handles;

static int cvar_handle_valid(MPI_T_cvar_handle h)
{
    for (struct MPIR_T_cvar_handle_s *x = cvar_handles; x != NULL; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

int mpi_t_cvar_handle_alloc_impl(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                                 int *count, const char *fn)
{
    const common_cvar_desc_t *d;
    struct MPIR_T_cvar_handle_s *h;
    int err = t_enter();
    if (err)
        return err;
    if ((d = common_cvar_at(cvar_index)) == NULL)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    if (handle == NULL || count == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    if ((h = malloc(sizeof *h)) == NULL)
        return t_leave(MPI_T_ERR_MEMORY);
    h->index = cvar_index;
    h->next = cvar_handles;
    cvar_handles = h;
    *handle = h;
    *count = d->type == CVAR_TYPE_STRING ? CVAR_STRLEN : 1;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_cvar_handle_free_impl(MPI_T_cvar_handle *handle, const char *fn)
{
    struct MPIR_T_cvar_handle_s **pp;
    int err = t_enter();
    if (err)
        return err;
    if (handle == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    for (pp = &cvar_handles; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == *handle) {
            struct MPIR_T_cvar_handle_s *h = *pp;
            *pp = h->next;
            free(h);
            *handle = MPI_T_CVAR_HANDLE_NULL;
            return t_leave(MPI_SUCCESS);
        }
    }
    return t_leave(MPI_T_ERR_INVALID_HANDLE);
}

int mpi_t_cvar_read_impl(MPI_T_cvar_handle handle, void *buf, const char *fn)
{
    const common_cvar_desc_t *d;
    int err = t_enter();
    if (err)
        return err;
    if (!cvar_handle_valid(handle))
        return t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (buf == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    d = common_cvar_at(handle->index);
    switch (d->type) {
    case CVAR_TYPE_INT: {
        long long v = common_cvar_int(d->name);
        *(int *)buf = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
        break;
    }
    case CVAR_TYPE_SIZE:
        *(long long *)buf = common_cvar_int(d->name);
        break;
    case CVAR_TYPE_BOOL:
        *(int *)buf = common_cvar_bool(d->name);
        break;
    default:
        snprintf(buf, CVAR_STRLEN, "%s", common_cvar_str(d->name));
        break;
    }
    return t_leave(MPI_SUCCESS);
}

int mpi_t_cvar_write_impl(MPI_T_cvar_handle handle, const void *buf, const char *fn)
{
    const common_cvar_desc_t *d;
    char key[160], text[CVAR_STRLEN];
    int err = t_enter();
    if (err)
        return err;
    if (!cvar_handle_valid(handle))
        return t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (buf == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    /* Layers read their variables at MPI_Init or at first use and keep the
     * value: once MPI is up no variable can change any more. */
    if (mpi_state != MPI_STATE_PRE_INIT)
        return t_leave(MPI_T_ERR_CVAR_SET_NEVER);
    d = common_cvar_at(handle->index);
    switch (d->type) {
    case CVAR_TYPE_INT:
        snprintf(text, sizeof text, "%d", *(const int *)buf);
        break;
    case CVAR_TYPE_SIZE:
        if (*(const long long *)buf < 0)
            return t_leave(MPI_T_ERR_INVALID);
        snprintf(text, sizeof text, "%lld", *(const long long *)buf);
        break;
    case CVAR_TYPE_BOOL:
        if (*(const int *)buf != 0 && *(const int *)buf != 1)
            return t_leave(MPI_T_ERR_INVALID);
        snprintf(text, sizeof text, "%d", *(const int *)buf);
        break;
    default:
        if (memchr(buf, '\0', CVAR_STRLEN) == NULL)
            return t_leave(MPI_T_ERR_INVALID); /* longer than the count we announced */
        snprintf(text, sizeof text, "%s", (const char *)buf);
        break;
    }
    snprintf(key, sizeof key, "CANAL_%s", d->name);
    if (setenv(key, text, 1) != 0)
        return t_leave(MPI_T_ERR_MEMORY);
    return t_leave(MPI_SUCCESS);
}

/* ---------------------------------------------------------------- performance variables */
int mpi_t_pvar_get_num_impl(int *num_pvar, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (num_pvar == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num_pvar = npvars;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_get_info_impl(int pvar_index, char *name, int *name_len, int *verbosity,
                             int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                             char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                             int *atomic, const char *fn)
{
    const pvar_desc_t *p;
    int err = t_enter();
    if (err)
        return err;
    if (pvar_index < 0 || pvar_index >= npvars)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    p = &pvars[pvar_index];
    copy_str(p->name, name, name_len);
    copy_str(p->desc, desc, desc_len);
    if (verbosity != NULL)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (var_class != NULL)
        *var_class = p->var_class;
    if (datatype != NULL)
        *datatype = pvar_datatype(p);
    if (enumtype != NULL)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind != NULL)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly != NULL)
        *readonly = pvar_is_continuous(p);
    if (continuous != NULL)
        *continuous = pvar_is_continuous(p);
    if (atomic != NULL)
        *atomic = 0;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_get_index_impl(const char *name, int var_class, int *pvar_index, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (name == NULL || pvar_index == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < npvars; i++) {
        if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return t_leave(MPI_SUCCESS);
        }
    }
    return t_leave(MPI_T_ERR_INVALID_NAME);
}

int mpi_t_pvar_session_create_impl(MPI_T_pvar_session *session, const char *fn)
{
    struct MPIR_T_pvar_session_s *s;
    int err = t_enter();
    if (err)
        return err;
    if (session == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    if ((s = calloc(1, sizeof *s)) == NULL)
        return t_leave(MPI_T_ERR_OUT_OF_SESSIONS);
    s->next = sessions;
    sessions = s;
    *session = s;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_session_free_impl(MPI_T_pvar_session *session, const char *fn)
{
    struct MPIR_T_pvar_session_s **pp;
    int err = t_enter();
    if (err)
        return err;
    if (session == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    for (pp = &sessions; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == *session) {
            struct MPIR_T_pvar_session_s *s = *pp;
            *pp = s->next;
            while (s->handles != NULL) {
                struct MPIR_T_pvar_handle_s *h = s->handles;
                s->handles = h->next;
                free(h);
            }
            free(s);
            *session = MPI_T_PVAR_SESSION_NULL;
            return t_leave(MPI_SUCCESS);
        }
    }
    return t_leave(MPI_T_ERR_INVALID_SESSION);
}

int mpi_t_pvar_handle_alloc_impl(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                 MPI_T_pvar_handle *handle, int *count, const char *fn)
{
    struct MPIR_T_pvar_handle_s *h;
    int err = t_enter();
    if (err)
        return err;
    if (!session_valid(session))
        return t_leave(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= npvars)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    if (handle == NULL || count == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    if ((h = calloc(1, sizeof *h)) == NULL)
        return t_leave(MPI_T_ERR_OUT_OF_HANDLES);
    h->index = pvar_index;
    h->started = pvar_is_continuous(&pvars[pvar_index]);
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_handle_free_impl(MPI_T_pvar_session session, MPI_T_pvar_handle *handle,
                                const char *fn)
{
    struct MPIR_T_pvar_handle_s **pp;
    int err = t_enter();
    if (err)
        return err;
    if (!session_valid(session))
        return t_leave(MPI_T_ERR_INVALID_SESSION);
    if (handle == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    for (pp = &session->handles; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == *handle) {
            struct MPIR_T_pvar_handle_s *h = *pp;
            *pp = h->next;
            free(h);
            *handle = MPI_T_PVAR_HANDLE_NULL;
            return t_leave(MPI_SUCCESS);
        }
    }
    return t_leave(MPI_T_ERR_INVALID_HANDLE);
}

static void handle_start(MPI_T_pvar_handle h)
{
    if (!h->started) {
        h->base = pvar_raw(&pvars[h->index]);
        h->started = 1;
    }
}

static void handle_stop(MPI_T_pvar_handle h)
{
    if (h->started) {
        h->acc += pvar_raw(&pvars[h->index]) - h->base;
        h->started = 0;
    }
}

static void handle_reset(MPI_T_pvar_handle h)
{
    h->acc = 0;
    h->base = pvar_raw(&pvars[h->index]);
}

/* start, stop and reset: one handle, or every handle of the session for
 * MPI_T_PVAR_ALL_HANDLES (where handles that do not take the operation are
 * skipped, as the standard says). */
static int pvar_apply(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                      void (*op)(MPI_T_pvar_handle), int refused)
{
    int err = t_enter();
    if (err)
        return err;
    if (!session_valid(session))
        return t_leave(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct MPIR_T_pvar_handle_s *h = session->handles; h != NULL; h = h->next)
            if (!pvar_is_continuous(&pvars[h->index]))
                op(h);
        return t_leave(MPI_SUCCESS);
    }
    if (handle == NULL || !handle_in(session, handle))
        return t_leave(MPI_T_ERR_INVALID_HANDLE);
    if (pvar_is_continuous(&pvars[handle->index]))
        return t_leave(refused);
    op(handle);
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_start_impl(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const char *fn)
{
    return pvar_apply(session, handle, handle_start, MPI_T_ERR_PVAR_NO_STARTSTOP);
}

int mpi_t_pvar_stop_impl(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const char *fn)
{
    return pvar_apply(session, handle, handle_stop, MPI_T_ERR_PVAR_NO_STARTSTOP);
}

int mpi_t_pvar_reset_impl(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const char *fn)
{
    return pvar_apply(session, handle, handle_reset, MPI_T_ERR_PVAR_NO_WRITE);
}

static int pvar_lookup(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    if (!session_valid(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES || handle == NULL || !handle_in(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (buf == NULL)
        return MPI_T_ERR_INVALID;
    return MPI_SUCCESS;
}

int mpi_t_pvar_read_impl(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf,
                         const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if ((err = pvar_lookup(session, handle, buf)))
        return t_leave(err);
    handle_store(handle, buf);
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_readreset_impl(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf,
                              const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if ((err = pvar_lookup(session, handle, buf)))
        return t_leave(err);
    if (pvar_is_continuous(&pvars[handle->index]))
        return t_leave(MPI_T_ERR_PVAR_NO_WRITE);
    handle_store(handle, buf);
    handle_reset(handle);
    return t_leave(MPI_SUCCESS);
}

int mpi_t_pvar_write_impl(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf,
                          const char *fn)
{
    const pvar_desc_t *p;
    int err = t_enter();
    if (err)
        return err;
    if ((err = pvar_lookup(session, handle, buf)))
        return t_leave(err);
    p = &pvars[handle->index];
    if (pvar_is_continuous(p))
        return t_leave(MPI_T_ERR_PVAR_NO_WRITE);
    if (pvar_datatype(p) == MPI_DOUBLE) {
        double d = *(const double *)buf;
        if (!(d >= 0) || d > 1.8e10)
            return t_leave(MPI_T_ERR_INVALID);
        handle->acc = (unsigned long long)(d * 1e9);
    } else {
        handle->acc = *(const unsigned long long *)buf;
    }
    handle->base = pvar_raw(p);
    return t_leave(MPI_SUCCESS);
}

/* ---------------------------------------------------------------- categories */
int mpi_t_category_get_num_impl(int *num_cat, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (num_cat == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num_cat = CAT_COUNT;
    return t_leave(MPI_SUCCESS);
}

/* Members of category cat: kind 0 cvars, 1 pvars, 2 subcategories. Stores
 * up to len indices when out is given; returns the total. */
static int cat_members(int cat, int kind, int len, int out[])
{
    int n = 0;
    int total = kind == 0 ? common_cvar_count() : kind == 1 ? npvars : CAT_COUNT;
    for (int i = 0; i < total; i++) {
        int c = kind == 0 ? cvar_category(common_cvar_at(i)) : kind == 1 ? pvars[i].cat
                                                                         : cats[i].parent;
        if (c != cat)
            continue;
        if (out != NULL && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

int mpi_t_category_get_info_impl(int cat_index, char *name, int *name_len, char *desc,
                                 int *desc_len, int *num_cvars, int *num_pvars, int *num_categories,
                                 const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (cat_index < 0 || cat_index >= CAT_COUNT)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    copy_str(cats[cat_index].name, name, name_len);
    copy_str(cats[cat_index].desc, desc, desc_len);
    if (num_cvars != NULL)
        *num_cvars = cat_members(cat_index, 0, 0, NULL);
    if (num_pvars != NULL)
        *num_pvars = cat_members(cat_index, 1, 0, NULL);
    if (num_categories != NULL)
        *num_categories = cat_members(cat_index, 2, 0, NULL);
    return t_leave(MPI_SUCCESS);
}

int mpi_t_category_get_index_impl(const char *name, int *cat_index, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (name == NULL || cat_index == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < CAT_COUNT; i++) {
        if (strcmp(cats[i].name, name) == 0) {
            *cat_index = i;
            return t_leave(MPI_SUCCESS);
        }
    }
    return t_leave(MPI_T_ERR_INVALID_NAME);
}

static int cat_list(int cat_index, int len, int indices[], int kind)
{
    int err = t_enter();
    if (err)
        return err;
    if (cat_index < 0 || cat_index >= CAT_COUNT)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && indices == NULL))
        return t_leave(MPI_T_ERR_INVALID);
    if (kind >= 0)
        cat_members(cat_index, kind, len, indices);
    return t_leave(MPI_SUCCESS);
}

int mpi_t_category_get_cvars_impl(int cat_index, int len, int indices[], const char *fn)
{
    return cat_list(cat_index, len, indices, 0);
}

int mpi_t_category_get_pvars_impl(int cat_index, int len, int indices[], const char *fn)
{
    return cat_list(cat_index, len, indices, 1);
}

int mpi_t_category_get_categories_impl(int cat_index, int len, int indices[], const char *fn)
{
    return cat_list(cat_index, len, indices, 2);
}

int mpi_t_category_get_events_impl(int cat_index, int len, int indices[], const char *fn)
{
    return cat_list(cat_index, len, indices, -1); /* no events */
}

int mpi_t_category_get_num_events_impl(int cat_index, int *num_events, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (cat_index < 0 || cat_index >= CAT_COUNT)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    if (num_events == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_category_changed_impl(int *update_number, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (update_number == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *update_number = 0; /* variables and categories never change after MPI_T_init_thread */
    return t_leave(MPI_SUCCESS);
}

/* ---------------------------------------------------------------- sources */
/* One time source, the monotonic clock in nanoseconds: what event
 * timestamps would use once events exist. */
int mpi_t_source_get_num_impl(int *num_sources, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (num_sources == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num_sources = 1;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_source_get_info_impl(int source_index, char *name, int *name_len, char *desc,
                               int *desc_len, MPI_T_source_order *ordering,
                               MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info,
                               const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (source_index != 0)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    copy_str("canal_clock", name, name_len);
    copy_str("the monotonic clock of this process, in nanoseconds", desc, desc_len);
    if (ordering != NULL)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second != NULL)
        *ticks_per_second = 1000000000;
    if (max_ticks != NULL)
        *max_ticks = (MPI_Count)LLONG_MAX;
    /* No hints to report; an info object cannot be made before MPI_Init. */
    if (info != NULL)
        *info = MPI_INFO_NULL;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_source_get_timestamp_impl(int source_index, MPI_Count *timestamp, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (source_index != 0)
        return t_leave(MPI_T_ERR_INVALID_INDEX);
    if (timestamp == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *timestamp = (MPI_Count)common_now_ns();
    return t_leave(MPI_SUCCESS);
}

/* ---------------------------------------------------------------- events */
/* Canal defines no event types yet, so no registration or instance handle
 * can exist: every handle a caller passes is invalid. */
int mpi_t_event_get_num_impl(int *num_events, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (num_events == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return t_leave(MPI_SUCCESS);
}

int mpi_t_event_get_info_impl(int event_index, char *name, int *name_len, int *verbosity,
                              MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                              int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                              int *desc_len, int *bind, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    return t_leave(MPI_T_ERR_INVALID_INDEX);
}

int mpi_t_event_get_index_impl(const char *name, int *event_index, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    if (name == NULL || event_index == NULL)
        return t_leave(MPI_T_ERR_INVALID);
    return t_leave(MPI_T_ERR_INVALID_NAME);
}

int mpi_t_event_handle_alloc_impl(int event_index, void *obj_handle, MPI_Info info,
                                  MPI_T_event_registration *event_registration, const char *fn)
{
    int err = t_enter();
    if (err)
        return err;
    return t_leave(MPI_T_ERR_INVALID_INDEX);
}

static int no_event_handle(void)
{
    int err = t_enter();
    if (err)
        return err;
    return t_leave(MPI_T_ERR_INVALID_HANDLE);
}

int mpi_t_event_handle_free_impl(MPI_T_event_registration event_registration, void *user_data,
                                 MPI_T_event_free_cb_function free_cb_function, const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_handle_get_info_impl(MPI_T_event_registration event_registration,
                                     MPI_Info *info_used, const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_handle_set_info_impl(MPI_T_event_registration event_registration, MPI_Info info,
                                     const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_register_callback_impl(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                       MPI_T_event_cb_function event_cb_function, const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_callback_get_info_impl(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info *info_used,
                                       const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_callback_set_info_impl(MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, MPI_Info info, const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_set_dropped_handler_impl(MPI_T_event_registration event_registration,
                                         MPI_T_event_dropped_cb_function dropped_cb_function,
                                         const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_copy_impl(MPI_T_event_instance event_instance, void *buffer, const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_read_impl(MPI_T_event_instance event_instance, int element_index, void *buffer,
                          const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_get_source_impl(MPI_T_event_instance event_instance, int *source_index,
                                const char *fn)
{
    return no_event_handle();
}

int mpi_t_event_get_timestamp_impl(MPI_T_event_instance event_instance, MPI_Count *event_timestamp,
                                   const char *fn)
{
    return no_event_handle();
}
