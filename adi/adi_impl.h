/*
 * Private to adi/: the wire header of the device's packets, the per-peer
 * state, the matching queues and the functions the device's files share.
 * Nothing outside adi/ includes this.
 */
#ifndef CANAL_ADI_IMPL_H
#define CANAL_ADI_IMPL_H

#include "adi/adi.h"
#include "adi/lock.h"
#include "channels/channel.h"

#include <pthread.h>
#include <stddef.h>

/* Packet types of the device protocol. */
enum {
    PKT_EAGER = 1,    /* header + whole message */
    PKT_RTS = 2,      /* rendezvous request: size, sender request, maybe raddr */
    PKT_CTS = 3,      /* receiver ready: send DATA for rreq */
    PKT_DATA = 4,     /* a chunk of a rendezvous message */
    PKT_FIN = 5,      /* receiver pulled the data with rdma_read */
    PKT_SYNC_ACK = 6, /* a synchronous eager send was matched */
    PKT_CREDIT = 7,   /* the receiver released `size` bytes of eager buffering */
    PKT_PUSH = 8,     /* receiver: write your bytes from offset rkey, `size` of them, to raddr */
    PKT_PUSHED = 9,   /* sender: wrote the `size` bytes PUSH asked for (0: could not) */
    PKT_WITHDRAW = 10, /* sender: the address the RTS of sreq offered is gone: ask (CTS);
                          flagged DROPPED: it finalizes, no PUSH answered (offer_close) */
    PKT_WITHDRAWN = 11, /* receiver: nothing reads that address from now on (answers WITHDRAW) */
};

/* Eager flow control: a sender may have at most `credit` bytes of eager
 * messages (payload + ADI_EAGER_COST each) that the receiver has not yet
 * released; beyond that it uses rendezvous, which buffers nothing at the
 * receiver. The receiver returns credit in PKT_CREDIT packets once a quarter
 * of the window has been released, so unexpected messages are bounded by
 * CANAL_UNEXPECTED_LIMIT in total. */
enum { ADI_EAGER_COST = 64 };

/* PKT_FLAG_REVOKED, on FIN and SYNC_ACK: the receiver dropped the message
 * unread, its communicator being revoked (ULFM). PKT_FLAG_DROPPED, on an
 * empty DATA: the sender dropped the message it had announced (a send of an
 * abandoned collective whose bytes it had no memory to keep). */
enum { PKT_FLAG_SYNC = 1, PKT_FLAG_RDMA = 2, PKT_FLAG_REVOKED = 4, PKT_FLAG_DROPPED = 8 };

typedef struct {
    uint8_t type;
    uint8_t flags;
    uint16_t reserved;
    int32_t context;
    int32_t src_rank;  /* sender's rank in the communicator */
    int32_t tag;
    uint32_t sreq;     /* sender's request index */
    uint32_t rreq;     /* receiver's request index */
    uint64_t size;     /* whole message, bytes */
    uint64_t raddr;    /* RTS with RDMA: sender's buffer; DATA: offset */
    uint64_t rkey;
} adi_pkt_t;

_Static_assert(sizeof(adi_pkt_t) <= CH_HDR_MAX, "device header must fit a channel header");

/* Packets that carry no address (EAGER, RTS without RDMA, CTS, FIN,
 * SYNC_ACK, CREDIT) go with the header cut after `size`: the receiver reads
 * raddr and rkey as 0. With the shm cell's 16-byte head an eager message of
 * up to 16 bytes then fits one cache line instead of two, and the line is
 * what a small message costs between cores (doc/bench.md). */
enum { ADI_PKT_SHORT = offsetof(adi_pkt_t, raddr) };
_Static_assert(ADI_PKT_SHORT == 32, "the short header is the first 32 bytes");

/* An eager message that is not synchronous needs neither request index, and
 * its size is the payload's: it goes with the first 16 bytes (type, flags,
 * context, source, tag) and the receiver reads sreq and rreq as 0 and size
 * as the payload length. On shm an eager message of up to 8 bytes is then a
 * 32-byte record, two to a cache line (doc/bench.md). */
enum { ADI_PKT_TINY = offsetof(adi_pkt_t, sreq) };
_Static_assert(ADI_PKT_TINY == 16, "the tiny header is the first 16 bytes");

/* The header length a packet is sent with. */
static inline size_t adi_pkt_len(const adi_pkt_t *h)
{
    if (h->type == PKT_DATA || (h->flags & PKT_FLAG_RDMA))
        return sizeof *h;
    return h->type == PKT_EAGER && !(h->flags & PKT_FLAG_SYNC) ? ADI_PKT_TINY : ADI_PKT_SHORT;
}

/* Context ids on the wire are below this: mpi/comm.c hands out 2 * 4096 of
 * them; the bound keeps a corrupt header from growing the queue table. */
enum { ADI_CONTEXT_MAX = 1 << 16 };

/* Request states. */
enum {
    REQ_FREE = 0,
    REQ_IDLE,          /* allocated, nothing in flight */
    REQ_SEND_QUEUED,   /* waiting in the peer's send queue */
    REQ_SEND_WAIT_ACK, /* eager sync: sent, waiting for SYNC_ACK */
    REQ_SEND_WAIT_CTS, /* RTS sent, waiting for CTS or FIN */
    REQ_SEND_DATA,     /* streaming DATA (queued) */
    REQ_RECV_POSTED,   /* in the posted queue */
    REQ_RECV_DATA,     /* matched an RTS, receiving DATA */
    REQ_RECV_RDMA,     /* matched an RTS, rdma_read in progress */
    REQ_RECV_HALF,     /* pulled its part of a message both copy; waiting for PUSHED */
    REQ_CTRL,          /* internal: a control packet waiting to be sent */
    REQ_DONE,
};

/* Protocol of a queued send. */
enum { PROTO_EAGER = 1, PROTO_RTS, PROTO_DATA, PROTO_CTRL };

/* Bytes of an unexpected eager message's payload kept inside its
 * adi_message_t (larger payloads get a pooled buffer, adi/pt2pt.c). */
enum { ADI_MSG_INLINE = 256 };

/* An arrived message nobody asked for yet (also the MPI_Message object).
 * Taken from a free list of the device's and given back with adi_msg_free
 * (adi/pt2pt.c), both under the device lock. */
struct adi_message {
    adi_mq_entry_t match;   /* place in the unexpected queue; envelope (src_rank, tag) */
    adi_mq_link_t links[2]; /* the entry's two extra index links */
    int context, src_rank, tag;
    int peer;            /* job rank of the sender */
    uint8_t type;        /* PKT_EAGER or PKT_RTS */
    uint8_t flags;
    uint8_t payload_class; /* data's buffer size class when not inline_data */
    uint32_t sreq;
    size_t size;
    uint64_t raddr, rkey;
    void *data;          /* eager payload copy (size bytes): inline_data or a pooled buffer */
    adi_message_t *next_free; /* in the free list */
    _Alignas(16) unsigned char inline_data[ADI_MSG_INLINE];
};

/* Matching queues of one context, with their own lock (locked mode): post,
 * match and probe on one context never wait for another context, nor for a
 * thread polling the channels. Lock order: device lock, then a context's. */
typedef struct {
    adi_mutex_t lock;
    adi_mq_t posted;        /* receives (adi_request_t.match) */
    adi_mq_t unexpected;    /* messages (adi_message_t.match) */
    unsigned arrivals;      /* messages queued unexpected so far (written under
                               lock, read atomically by adi_recv_now's wait) */
    struct adi_recv_waiter *waiter; /* a blocking receive waiting unposted here for
                               its first match (unlocked mode only; adi/pt2pt.c) */
    size_t posted_hwm, unexpected_hwm; /* the most entries each queue ever held
                               (under lock; the levels are the queues' len) */
} adi_ctx_queues_t;

typedef struct {
    ch_endpoint_t *ch;
    size_t eager_limit;   /* payload bytes sent eagerly to this peer */
    size_t chunk;         /* DATA chunk size */
    int has_rdma;
    int has_rdma_write;   /* the channel writes into the peer's memory (PKT_PUSH) */
    int read_batch;       /* the channel reads several messages at once (caps.has_read_batch) */
    int read_sync;        /* its reads are the reader's own copies (caps.rdma_read_sync:
                             shm's CMA, not a NIC's): rndv_offer streams them when oversubscribed */
    int needs_wake;       /* call ch_wake() after each packet (not caps.sendv_wakes) */
    size_t turn_lim;      /* eager payloads below this may go as a turn (caps.turn_max
                             less the tiny header, plus 1; 0: no turns) */
    common_list_t sendq; /* pending sends, in order (adi_request_t.sendq) */
    size_t credit;        /* eager bytes we may still send to this peer */
    size_t window;        /* the full credit window per peer */
    size_t released;      /* eager bytes from this peer released, not yet returned */
    int in_pump_list;
    int failed;           /* lost: its place in the order of losses (1, 2, ...); 0 while alive */
    int launcher_failed;  /* the launcher said it failed; not yet taken (atomic) */
    int stats_slot;       /* adi_stats_t channel slot of ch */
    int offers_closed;    /* its final word came: it finalizes and serves no PUSH or read of
                             its buffers any more (offer_final in adi/pt2pt.c; atomic) */
} adi_peer_t;

typedef struct {
    int rank, size;
    int npeers;           /* size + dynamic peers (processes of other jobs) */
    int cap;              /* size + CANAL_DYNAMIC_PEERS: room in peers and pump_list */
    adi_peer_t *peers;
    int oversubscribed;   /* local ranks outnumber node_cpus (or CANAL_OVERSUBSCRIBED) */
    size_t halves_min;    /* CANAL_RNDV_HALVES_MIN: pulled messages both sides copy (0: none) */
    size_t stream_max;    /* CANAL_RNDV_STREAM_MAX: smaller rendezvous messages are
                           * streamed, never read, when oversubscribed (rndv_offer) */
    uint8_t fault_detach_nomem; /* CANAL_FAULT_DETACH_NOMEM (a test knob): detach finds no memory */
    size_t detach_keep_max; /* CANAL_DETACH_KEEP_MAX: bytes of detached sends' copies at once */
    long long detach_wait_us; /* CANAL_DETACH_WAIT_MS: adi_send_detach's wait for WITHDRAWN */
    long long finalize_wait_ms; /* CANAL_FINALIZE_WAIT_MS: adi_finalize's limit before its fence */
    size_t detached_bytes;  /* (atomic) bytes in those copies now (adi_send_detach) */
    int local_size;       /* ranks of this job on this node */
    int node_cpus;        /* CPUs in the local ranks' affinity masks (0: not asked) */
    int own_cpus;         /* no other local rank's mask shares a CPU with this one's */
    long spin_count;
    long long spin_us, sleep_after_us;
    long long preempted_us; /* CANAL_WAIT_PREEMPTED_US (0: no contended mode) */
    /* the wait policy's two values on CPUs of its own and shared
     * (adi_init, wait_policy_set) */
    long long own_spin_us, own_preempted_us, shared_spin_us, shared_preempted_us;
    int own_threads_max; /* threads the own policy allows (0: not looked at) */
    long long own_threads_look_us; /* CANAL_OWN_THREADS_LOOK_US: between two looks */
    long sleep_us;          /* CANAL_WAIT_SLEEP_US: one sleep in the channel at most */
    size_t unexpected_bytes, unexpected_limit;
    int thread_multiple;
    int npump;
    int *pump_list;       /* peers with non-empty send queues */
    int polling;          /* in progress_poll_hold's channel loop: a rendezvous read may
                             wait for the loop's end (adi_rndv_flush) */
    int nreads;           /* reads waiting for it */
    int nfailed;          /* peers reported failed (atomic: read on the posting path) */
    long long pull_until_us; /* common_now_us until which local peers are expected to be
                                pulling our rendezvous data (rndv_pull_expect; atomic) */
} adi_device_t;

extern adi_device_t adi_dev;

/* A wait's sleep threshold in contended mode (doc/design.md, "Waiting"):
 * contended_us, unless peers are expected to be pulling our rendezvous data
 * until pull_until (common_now_us): then until then, counted from the
 * wait's start t0; never past normal_us, the threshold outside it. */
long long adi_wait_contended_after(long long normal_us, long long contended_us, long long t0,
                                   long long pull_until);
extern adi_stats_t adi_stats;

/* Statistics: relaxed atomics in locked mode (threads update them outside
 * the device lock); plain arithmetic otherwise, where a locked
 * read-modify-write per message cost more than the rest of the bookkeeping.
 * (adi_lock_enable switches modes only while no other thread is inside.) */
static inline void adi_stat_add(uint64_t *counter, uint64_t v)
{
    if (adi_locked)
        __atomic_add_fetch(counter, v, __ATOMIC_RELAXED);
    else
        *counter += v;
}

/* A counter whose every writer holds the device lock (messages and bytes
 * sent and received): the lock orders the writers, so no locked
 * read-modify-write, only stores the readers (MPI_T, canal-info) never see
 * torn; the same instructions as plain arithmetic, in either mode. */
static inline void adi_stat_add_devlocked(uint64_t *counter, uint64_t v)
{
    __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* The queue-length levels of MPI_T are the queues' own lengths, per context
 * (adi_mq_t.len), summed when read (adi_queue_levels, pt2pt.c); only the
 * high-water marks need a word more, kept per context beside the queue.
 * Every write is under the queue's lock (locked mode), so the mark is a
 * compare and, when it grows, a plain store: the global levels they replace
 * were two locked read-modify-writes per received message in locked mode
 * (one on the post, one on the match), the contexts' locks not excluding
 * each other. Call after adding to the queue. */
static inline void adi_q_hwm(const adi_mq_t *mq, size_t *hwm)
{
    if (__builtin_expect(mq->len > *hwm, 0))
        *hwm = mq->len;
}

/* The context queues' lock, taken only in locked mode. */
static inline void adi_q_lock(adi_ctx_queues_t *q)
{
    if (adi_locked)
        adi_bmutex_take(&q->lock);
}

static inline void adi_q_unlock(adi_ctx_queues_t *q)
{
    if (adi_locked)
        adi_bmutex_drop(&q->lock);
}

/* device.c: take the device lock if no other thread holds it (always
 * succeeds when not in locked mode); 1 when taken. */
int adi_trylock(void);

/* request.c */
/* The pool's free list (unlocked mode; locked mode takes from the thread's
 * cache first): adi_request_alloc_fast pops it inline. */
extern adi_request_t *adi_req_free_head;

/* Make r, just taken from the pool, a fresh live request of kind, for a
 * message of count dt at buf with (rank, tag, context): each field stored
 * once, before the release store that makes it live (which keeps a compiler
 * from dropping stores made before it that a later store repeats, the
 * receive's post storing its fields a second time). */
static inline void adi_req_init_msg(adi_request_t *r, adi_req_kind_t kind, void *buf,
                                    size_t count, dt_type_t *dt, int rank, int tag, int context)
{
    /* Field by field rather than one memset of the whole request: a
     * 360-byte memset is a `rep stos` whose start-up cost was a tenth of
     * an 8-byte Isend (perf), and ctl_hdr (64 bytes) is written whole
     * before it is read; index and cursor stay with the pooled request. */
    r->kind = kind;
    r->done = 0;
    r->status = (adi_status_t){.source = ADI_ANY_SOURCE, .tag = ADI_ANY_TAG, .peer = -1};
    r->inner = NULL;
    r->mpi_ext = NULL;
    r->on_complete = NULL;
    r->on_complete_arg = NULL;
    r->user_freed = 0;
    r->owner_handle = 0;
    r->alloc_buf = NULL;
    r->alloc_arg = NULL;
    r->state = REQ_IDLE;
    r->mode = 0;
    r->proto = 0;
    r->in_queue = 0;
    r->detached = 0;
    r->context = context;
    r->rank = rank;
    r->tag = tag;
    r->peer = 0;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->size = r->offset = 0;
    r->peer_req = 0;
    r->rkey = 0;
    r->tmp = NULL;
    r->tmp_len = 0;
    r->match = (adi_mq_entry_t){0};
    r->next = NULL;
    r->sendq = (common_link_t){0};
    __atomic_store_n(&r->live, 1, __ATOMIC_RELEASE);
}

/* Make r, just taken from the pool, a fresh live request of kind. */
static inline void adi_req_init(adi_request_t *r, adi_req_kind_t kind)
{
    adi_req_init_msg(r, kind, NULL, 0, NULL, 0, 0, 0);
}

/* A free request, not initialized, from the thread's cache (locked mode)
 * or the free list when it is empty (NULL when the pool cannot grow): the
 * uncommon way of adi_request_alloc, for a caller that initializes the
 * request itself (adi_req_init_msg) instead of storing its fields twice. */
adi_request_t *adi_request_take_slow(void);

/* A thread's cache of free requests (locked mode; request.c): its head,
 * length and the pool generation it belongs to. */
enum { ADI_RCACHE_MAX = 128 };
typedef struct {
    adi_request_t *head;
    int n;
    unsigned gen;
} adi_req_cache_t;
extern __thread adi_req_cache_t adi_req_tcache;
extern unsigned adi_req_pool_gen;

/* A free request, not initialized: the free list's head popped inline
 * below locked mode, the thread cache's in it (a call, and a frame that
 * saved four registers, was 25-30 instructions a message in locked mode:
 * doc/bench.md, stop 45), else adi_request_take_slow. */
static inline adi_request_t *adi_request_take(void)
{
    adi_request_t *r;

    if (__builtin_expect(!adi_locked, 1)) {
        if ((r = adi_req_free_head) != NULL) {
            adi_req_free_head = r->next;
            return r;
        }
    } else {
        adi_req_cache_t *c = &adi_req_tcache;
        if ((r = c->head) != NULL && c->gen == __atomic_load_n(&adi_req_pool_gen, __ATOMIC_RELAXED)) {
            c->head = r->next;
            c->n--;
            return r;
        }
    }
    return adi_request_take_slow();
}

/* adi_request_alloc with its common case inline (adi_request_take and the
 * stores of adi_req_init, which the caller's own stores may make dead);
 * MPI_Irecv's and MPI_Isend's path. */
static inline adi_request_t *adi_request_alloc_fast(adi_req_kind_t kind)
{
    adi_request_t *r = adi_request_take();

    if (__builtin_expect(r == NULL, 0))
        return NULL;
    adi_req_init(r, kind);
    return r;
}

void adi_request_pool_finalize(void);
/* A receive of count dt that got `bytes` bytes, fewer than its buffer
 * holds, ends inside a basic element of dt: 1 (a truncation, as MPICH
 * reports it). */
int adi_recv_partial_elem(dt_type_t *dt, size_t count, size_t bytes);
/* Complete: set status, release datatype, run callbacks. Device lock held. */
void adi_req_finish(adi_request_t *r);
/* adi_req_finish for a receive whose caller knows it ends on an element
 * boundary (it filled its buffer, or its elements are bytes), or that is
 * not a receive: without the partial-element check. */
void adi_req_finish_checked(adi_request_t *r);
/* Start r's cursor over (r->count, r->dt), allocating it on first use; it
 * is finished by adi_req_finish and freed with the pool. */
canal_status_t adi_req_cursor_init(adi_request_t *r);

/* pt2pt.c */
/* The first thing adi_on_packet does: is this a packet the device can act on
 * at all (sender in the job, header size, type, flags, context, source rank,
 * request indices, payload length consistent with the type)? A pure function
 * of its arguments: 0 and *pkt_out filled, or CANAL_ERR_PROTO with a message
 * naming the field. What needs device state (does the request exist and
 * belong to this sender, does DATA stay inside its message) is checked where
 * the packet is used. */
canal_status_t adi_pkt_check(int peer, int npeers, const void *hdr, size_t hdr_len, size_t len,
                             adi_pkt_t *pkt_out);
void adi_on_packet(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len);
void adi_on_rdma_done(void *cookie, canal_status_t st);
/* The rendezvous reads a poll gathered, made per peer with one rdma_read_batch. */
void adi_rndv_flush(void);
/* A channel lost `peer`: every request that involves it completes with
 * CANAL_ERR_PEER (its send queue, sends waiting for its answer, receives
 * matched to it or posted for it, by adi_ctx_src_failed). */
void adi_on_peer_failed(int peer, canal_status_t st);
/* Try to send what is queued for `peer`; returns packets sent. */
int adi_peer_pump(int peer);
/* Send a control packet now or queue it. */
void adi_send_ctrl(int peer, const adi_pkt_t *pkt);
adi_ctx_queues_t *adi_ctx(int context);
/* Give an unexpected message (out of its queue) back to the free list, its
 * payload freed if it had its own (device lock held). */
void adi_msg_free(adi_message_t *m);

/* device.c, for dynamic.c: the channel that serves other jobs (opened on
 * first use) and the setup of a new dynamic peer's entry. */
canal_status_t adi_dev_dyn_channel(ch_endpoint_t **ch_out);
canal_status_t adi_dev_dyn_peer_init(int peer);
/* device.c: 1 when a receiver on a channel of these caps may ask its peer to
 * push part of a message (PKT_PUSH): the channel writes the peer's memory and
 * its own reads are synchronous (caps.rdma_read_sync). */
int adi_caps_push(const ch_caps_t *caps);
void adi_queues_finalize(void);
/* pt2pt.c: the queue-length levels for adi_stats_get: the posted receives
 * and unexpected messages of every context now (each context's under its
 * lock), and as high-water marks the most one context's queue ever held or
 * the most any read found in all of them, whichever is more: exact for a
 * program whose messages queue on one communicator at a time (the sum's
 * own peak between reads would need one counter that every context's post
 * and match write). */
void adi_queue_levels(adi_stats_t *out);

/* failure.c: the error a receive on `context` from source rank `src` (or
 * ADI_ANY_SOURCE) must complete with, because it waits for a failed peer
 * (CANAL_ERR_PEER, *peer_out its job rank; CANAL_ERR_PEER_PENDING for an
 * any-source receive while a lost rank of the context is not acknowledged:
 * that one stays posted, see adi_recv_failure_pending) or the context is
 * revoked (CANAL_ERR_REVOKED); CANAL_OK when none, or when mpi/ never
 * described the context. `tag` is the receive's: a scope pushed for
 * (context, tag) decides instead of the whole context. */
canal_status_t adi_ctx_src_failed(int context, int src, int tag, int *peer_out);
/* pt2pt.c: fail the posted receives adi_ctx_src_failed condemns (device lock held). */
void adi_posted_fail_all(void);
/* failure.c: a peer's answer says that context is revoked (device lock held). */
void adi_ctx_revoked_by_peer_locked(int context);
/* pt2pt.c: context was just revoked (device lock held): the messages waiting
 * in its unexpected queue are dropped, their senders answered (a FIN or
 * SYNC_ACK flagged REVOKED: nobody waits for ever for a receive that will
 * never be posted); its sends not transmitted yet fail, and those waiting
 * for an answer will report CANAL_ERR_REVOKED when it comes. */
void adi_revoked_sweep(int context);
extern int adi_nrevoked;
void adi_ctx_ranks_finalize(void);
/* failure.c: the launcher's reports of failed ranks (pmi_set_rank_failed_
 * handler, any thread) are noted, and taken (adi_on_peer_failed, under the
 * device lock) by a wait that finds nothing to do. */
void adi_launcher_failed(int rank);
extern int adi_launcher_pending;
void adi_launcher_take(void);

/* pt2pt.c: the sender (job rank) of a receive left by an abandoned
 * collective (adi_recv_detach) whose message still streams in, or -1. Its
 * sender waits at its MPI_Finalize until the stream is taken (all_sent),
 * so this rank takes it before its own finalize's fence. */
int adi_recv_detached_pending(void);
/* MPI_Finalize, before its last progress: the sends whose RTS offered
 * their buffer's address and that have not ended say so to their
 * receivers (a final PKT_WITHDRAW), as this rank answers no PUSH from its
 * fence (adi/pt2pt.c, offer_close). */
void adi_offers_final(void);

#endif
