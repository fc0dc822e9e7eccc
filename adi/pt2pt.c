/*
 * The device's point-to-point protocols and matching. A send becomes either
 * one EAGER packet (header + data) or, above the peer's eager limit, a
 * rendezvous: RTS; then the receiver pulls the data with the channel's
 * rdma_read (rdma_readv into the pieces of a non-contiguous receive) and
 * answers FIN, or, when it cannot (no RDMA, a non-contiguous sender, CMA
 * denied), answers CTS and the sender streams DATA chunks.
 * Synchronous eager sends complete on SYNC_ACK. Arrivals match the posted
 * queue of their context in order; the rest wait in the unexpected queue
 * (both are adi/match.c's queues: O(1) per match however long they get).
 *
 * Locking (locked mode; doc/design.md, "Threads and locking"): the device
 * lock (adi_lock) covers the channels, the per-peer send queues and credit,
 * and every completion; each context's queues have their own lock, taken
 * after the device lock when both are needed and never held while calling
 * out. A receive is posted, or takes its unexpected message, under the
 * context lock alone; only delivering the data (which may answer the
 * sender and completes the request) takes the device lock.
 */
#include "config.h"

#include "adi/adi_impl.h"
#include "common/clock.h"
#include "common/copy.h"
#include "common/log.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)0)
#endif

/* ---------------------------------------------------------------- queues */
/* Contexts -> queues: a two-level table whose chunks and entries are
 * created on first use with compare-and-swap and never move, so looking a
 * context up takes no lock (threads on different communicators never meet
 * here). Context ids are small (mpi/comm.c hands out < 8192). */
enum { CTX_CHUNK = 256, CTX_CHUNKS = 4096 };
static adi_ctx_queues_t **ctx_tab[CTX_CHUNKS];

/* adi_ctx's first use of a context: its chunk and queues are made. */
static __attribute__((noinline, cold)) adi_ctx_queues_t *ctx_make(int context)
{
    adi_ctx_queues_t **chunk, *q;

    chunk = __atomic_load_n(&ctx_tab[context / CTX_CHUNK], __ATOMIC_ACQUIRE);
    if (chunk == NULL) {
        adi_ctx_queues_t **fresh = calloc(CTX_CHUNK, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        if (__atomic_compare_exchange_n(&ctx_tab[context / CTX_CHUNK], &chunk, fresh, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            chunk = fresh;
        else
            free(fresh); /* another thread won; chunk is now its table */
    }
    q = __atomic_load_n(&chunk[context % CTX_CHUNK], __ATOMIC_ACQUIRE);
    if (q == NULL) {
        adi_ctx_queues_t *fresh = calloc(1, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        adi_mutex_init(&fresh->lock);
        adi_mq_init(&fresh->posted, 0);
        adi_mq_init(&fresh->unexpected, 1);
        if (__atomic_compare_exchange_n(&chunk[context % CTX_CHUNK], &q, fresh, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            q = fresh;
        } else {
            free(fresh);
        }
    }
    return q;
}

/* The lookup itself is two loads (inline in this file's receive and
 * arrival paths, where it ran as a call of ~26 instructions per message). */
static inline adi_ctx_queues_t *ctx_get(int context)
{
    adi_ctx_queues_t **chunk, *q;

    if ((unsigned)context >= (unsigned)ADI_CONTEXT_MAX ||
        (unsigned)context >= (unsigned)CTX_CHUNK * CTX_CHUNKS)
        return NULL;
    chunk = __atomic_load_n(&ctx_tab[context / CTX_CHUNK], __ATOMIC_ACQUIRE);
    if (__builtin_expect(chunk != NULL, 1) &&
        (q = __atomic_load_n(&chunk[context % CTX_CHUNK], __ATOMIC_ACQUIRE)) != NULL)
        return q;
    return ctx_make(context);
}

adi_ctx_queues_t *adi_ctx(int context) { return ctx_get(context); }

/* Whether a receive is posted on context's queue, without making the
 * queues (send_now's turn hint): a plain read of the length, as only
 * unlocked mode asks. */
static inline int ctx_has_posted(int context)
{
    adi_ctx_queues_t **chunk, *q;

    if ((unsigned)context >= (unsigned)ADI_CONTEXT_MAX ||
        (unsigned)context >= (unsigned)CTX_CHUNK * CTX_CHUNKS ||
        (chunk = __atomic_load_n(&ctx_tab[context / CTX_CHUNK], __ATOMIC_ACQUIRE)) == NULL ||
        (q = __atomic_load_n(&chunk[context % CTX_CHUNK], __ATOMIC_ACQUIRE)) == NULL)
        return 0;
    return q->posted.len != 0;
}

int adi_ctx_idle(int context)
{
    adi_ctx_queues_t **chunk, *q;
    int idle;

    if (context < 0 || context >= ADI_CONTEXT_MAX || context >= CTX_CHUNK * CTX_CHUNKS)
        return 1;
    chunk = __atomic_load_n(&ctx_tab[context / CTX_CHUNK], __ATOMIC_ACQUIRE);
    if (chunk == NULL)
        return 1;
    q = __atomic_load_n(&chunk[context % CTX_CHUNK], __ATOMIC_ACQUIRE);
    if (q == NULL)
        return 1;
    adi_q_lock(q);
    idle = q->posted.len == 0;
    adi_q_unlock(q);
    return idle;
}

static adi_request_t *req_of(adi_mq_entry_t *e)
{
    return e != NULL ? (adi_request_t *)((char *)e - offsetof(adi_request_t, match)) : NULL;
}

static adi_message_t *msg_of(adi_mq_entry_t *e)
{
    return e != NULL ? (adi_message_t *)((char *)e - offsetof(adi_message_t, match)) : NULL;
}

/* Unexpected messages: a free list, so that an eager message that arrives
 * before its receive costs no malloc or free when its payload fits
 * ADI_MSG_INLINE (the arrival runs in progress, a receive gives its message
 * back while delivering it: both under the device lock, which guards the
 * list). At most MSG_POOL_MAX wait in it; beyond, they are freed. The
 * bound is the deepest unexpected queue of a collective's usual pattern:
 * in a loop of small MPI_Gather(v) calls the other ranks run ahead of the
 * root by up to their credit, a few hundred messages each (IMB's 200
 * iterations: 600 at 4 ranks, 1,400 at 8); with 256 kept, the root paid a
 * malloc and a free for most of them (np4 MPI_Gatherv of 1 B: 525 of the
 * root's 7,871 instructions a call, callgrind). The list holds only what
 * the process once had queued at the same time.
 *
 * A larger payload (up to the eager limit) gets a buffer of the next power
 * of two from PAYLOAD_CLASSES free lists, 512 B to 64 KiB, kept there when
 * the message goes (at most PAYLOAD_KEEP_BYTES of them per class, and no
 * more than MSG_POOL_MAX): a window of unexpected 4 KiB messages, the
 * probe-then-receive path of messages of unknown size, costs no malloc or
 * free either. Larger payloads are malloc'ed and freed. */
enum { MSG_POOL_MAX = 2048 };
enum { PAYLOAD_MIN_SHIFT = 9, PAYLOAD_CLASSES = 8, PAYLOAD_KEEP_BYTES = 256 << 10 };
_Static_assert(ADI_MSG_INLINE < (1 << PAYLOAD_MIN_SHIFT), "inline payloads need no class");
static adi_message_t *msg_pool;
static int msg_pool_n;
/* a free buffer's first bytes link it to the next */
typedef struct payload_free {
    struct payload_free *next;
} payload_free_t;
static payload_free_t *payload_pool[PAYLOAD_CLASSES];
static int payload_pool_n[PAYLOAD_CLASSES];

/* The class of a payload of len bytes (> ADI_MSG_INLINE): its buffers have
 * 1 << (PAYLOAD_MIN_SHIFT + class) bytes; PAYLOAD_CLASSES when too large. */
static int payload_class(size_t len)
{
    int c = 0;

    if (len > ((size_t)1 << (PAYLOAD_MIN_SHIFT + PAYLOAD_CLASSES - 1)))
        return PAYLOAD_CLASSES;
    if (len > ((size_t)1 << PAYLOAD_MIN_SHIFT))
        c = (int)(sizeof(unsigned long) * 8) - __builtin_clzl((unsigned long)(len - 1)) -
            PAYLOAD_MIN_SHIFT;
    return c;
}

static void *payload_get(adi_message_t *m, size_t len)
{
    int c = payload_class(len);
    payload_free_t *b;

    m->payload_class = (uint8_t)c;
    if (c == PAYLOAD_CLASSES)
        return malloc(len);
    if ((b = payload_pool[c]) != NULL) {
        payload_pool[c] = b->next;
        payload_pool_n[c]--;
        return b;
    }
    return malloc((size_t)1 << (PAYLOAD_MIN_SHIFT + c));
}

static void payload_put(adi_message_t *m)
{
    int c = m->payload_class;
    payload_free_t *b = m->data;

    if (c == PAYLOAD_CLASSES ||
        payload_pool_n[c] >= MSG_POOL_MAX ||
        (size_t)payload_pool_n[c] << (PAYLOAD_MIN_SHIFT + c) >= PAYLOAD_KEEP_BYTES) {
        free(b);
        return;
    }
    b->next = payload_pool[c];
    payload_pool[c] = b;
    payload_pool_n[c]++;
}

/* An unexpected message with room for a payload of len bytes; NULL without
 * memory (device lock held). */
static adi_message_t *msg_get(size_t len)
{
    adi_message_t *m = msg_pool;

    if (m != NULL) {
        msg_pool = m->next_free;
        msg_pool_n--;
    } else if ((m = malloc(sizeof *m)) == NULL) {
        return NULL;
    }
    m->data = m->inline_data;
    if (len > ADI_MSG_INLINE && (m->data = payload_get(m, len)) == NULL) {
        adi_msg_free(m);
        return NULL;
    }
    return m;
}

void adi_msg_free(adi_message_t *m)
{
    if (m->data != m->inline_data && m->data != NULL)
        payload_put(m);
    m->data = NULL;
    if (msg_pool_n >= MSG_POOL_MAX) {
        free(m);
        return;
    }
    m->next_free = msg_pool;
    msg_pool = m;
    msg_pool_n++;
}

static void msg_pool_finalize(void)
{
    while (msg_pool != NULL) {
        adi_message_t *m = msg_pool;
        msg_pool = m->next_free;
        free(m);
    }
    msg_pool_n = 0;
    for (int c = 0; c < PAYLOAD_CLASSES; c++) {
        while (payload_pool[c] != NULL) {
            payload_free_t *b = payload_pool[c];
            payload_pool[c] = b->next;
            free(b);
        }
        payload_pool_n[c] = 0;
    }
}

static adi_message_t *find_unexpected(adi_ctx_queues_t *q, int src, int tag)
{
    return msg_of(adi_mq_find_unexpected(&q->unexpected, src, tag));
}

/* The marks adi_queue_levels reported so far: a mark never falls (a sum
 * read once stays the mark after the queues emptied). Any thread may read
 * MPI_T: an atomic maximum. */
static uint64_t posted_peak, unexpected_peak;

static uint64_t levels_peak(uint64_t *peak, uint64_t now)
{
    uint64_t seen = __atomic_load_n(peak, __ATOMIC_RELAXED);
    while (now > seen &&
           !__atomic_compare_exchange_n(peak, &seen, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return now > seen ? now : seen;
}

/* Every context's queues made so far, in context order, each given to fn
 * with its context id (no lock taken: fn takes q's). */
static void ctx_for_each(void (*fn)(adi_ctx_queues_t *q, int context, void *arg), void *arg)
{
    for (int c = 0; c < CTX_CHUNKS; c++) {
        adi_ctx_queues_t **chunk = __atomic_load_n(&ctx_tab[c], __ATOMIC_ACQUIRE);
        if (chunk == NULL)
            continue;
        for (int i = 0; i < CTX_CHUNK; i++) {
            adi_ctx_queues_t *q = __atomic_load_n(&chunk[i], __ATOMIC_ACQUIRE);
            if (q != NULL)
                fn(q, c * CTX_CHUNK + i, arg);
        }
    }
}

typedef struct {
    size_t posted, unexpected, posted_hwm, unexpected_hwm;
} levels_t;

static void levels_add(adi_ctx_queues_t *q, int context, void *arg)
{
    levels_t *l = arg;

    (void)context;
    adi_q_lock(q);
    l->posted += q->posted.len;
    l->unexpected += q->unexpected.len;
    if (q->posted_hwm > l->posted_hwm)
        l->posted_hwm = q->posted_hwm;
    if (q->unexpected_hwm > l->unexpected_hwm)
        l->unexpected_hwm = q->unexpected_hwm;
    adi_q_unlock(q);
}

void adi_queue_levels(adi_stats_t *out)
{
    levels_t l = {0};

    ctx_for_each(levels_add, &l);
    out->posted_len = l.posted;
    out->unexpected_len = l.unexpected;
    out->posted_hwm =
        levels_peak(&posted_peak, l.posted_hwm > l.posted ? l.posted_hwm : l.posted);
    out->unexpected_hwm = levels_peak(
        &unexpected_peak, l.unexpected_hwm > l.unexpected ? l.unexpected_hwm : l.unexpected);
}

void adi_queues_finalize(void)
{
    for (int c = 0; c < CTX_CHUNKS; c++) {
        if (ctx_tab[c] == NULL)
            continue;
        for (int i = 0; i < CTX_CHUNK; i++) {
            adi_ctx_queues_t *q = ctx_tab[c][i];
            if (q == NULL)
                continue;
            while (adi_mq_first(&q->unexpected) != NULL) {
                adi_message_t *m = msg_of(adi_mq_first(&q->unexpected));
                adi_mq_remove(&q->unexpected, &m->match);
                adi_msg_free(m);
            }
            adi_mq_fini(&q->unexpected);
            adi_mq_fini(&q->posted);
            free(q);
        }
        free(ctx_tab[c]);
        ctx_tab[c] = NULL;
    }
    msg_pool_finalize();
}

/* ---------------------------------------------------------------- sending */
/* The oldest pending send to peer p, or NULL. */
static inline adi_request_t *sq_first(adi_peer_t *p)
{
    return common_list_entry(p->sendq.head, adi_request_t, sendq);
}

static void sq_append(int peer, adi_request_t *r)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    common_list_push_back(&p->sendq, &r->sendq);
    r->in_queue = 1;
    if (!p->in_pump_list) {
        p->in_pump_list = 1;
        adi_dev.pump_list[adi_dev.npump] = peer;
        __atomic_store_n(&adi_dev.npump, adi_dev.npump + 1, __ATOMIC_RELAXED);
    }
}

static void sq_pop(int peer)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    adi_request_t *r = sq_first(p);
    common_list_remove(&p->sendq, &r->sendq);
    r->in_queue = 0;
}

static canal_status_t send_pkt(int peer, const adi_pkt_t *h, const void *data, size_t len)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    struct iovec iov[2] = {{(void *)h, adi_pkt_len(h)}, {(void *)data, len}};
    canal_status_t st = ch_sendv(p->ch, peer, iov, len ? 2 : 1);
    if (st == CANAL_OK && p->needs_wake)
        ch_wake(p->ch, peer);
    return st;
}

static void fill_hdr(adi_pkt_t *h, const adi_request_t *r, int type)
{
    memset(h, 0, sizeof *h);
    h->type = (uint8_t)type;
    h->context = r->context;
    h->src_rank = r->rank;
    h->tag = r->tag;
    h->sreq = (uint32_t)r->index;
    h->size = r->size;
}

static const void *contig_ptr(const adi_request_t *r)
{
    return (const char *)r->buf + dt_true_lb(r->dt);
}

/* Complete r with the loss of `peer` (device lock held): a queued control
 * packet is dropped; a send or receive reports st, naming the peer. */
static void req_fail(adi_request_t *r, int peer, canal_status_t st)
{
    if (r->proto == PROTO_CTRL && r->state == REQ_CTRL) {
        r->user_freed = 1;
        adi_req_finish(r);
        return;
    }
    if (r->proto == PROTO_RTS && r->rkey != UINT64_MAX) {
        ch_mem_deregister(adi_dev.peers[peer].ch, r->rkey);
        r->rkey = UINT64_MAX;
    }
    r->status.error = st;
    r->status.peer = peer;
    adi_req_finish(r);
}

/* A peer pulls about RNDV_PULL_BYTES_PER_US (shm's process_vm_readv of 1-4
 * MiB: 10-14 GB/s here, 7 loaded): a deliberately slow estimate, past which
 * a wait sleeps as before. */
enum { RNDV_PULL_BYTES_PER_US = 4096 };

/* An RTS offering len bytes to be pulled went out: its receiver may copy
 * them for about len / RNDV_PULL_BYTES_PER_US after the pulls already
 * expected, and the waits until then do not take contended mode's early
 * sleep (adi_wait_contended_after). Device lock held. */
static void rndv_pull_expect(size_t len)
{
    long long now = common_now_us();
    long long from = __atomic_load_n(&adi_dev.pull_until_us, __ATOMIC_RELAXED);

    if (from < now)
        from = now;
    __atomic_store_n(&adi_dev.pull_until_us, from + (long long)(len / RNDV_PULL_BYTES_PER_US) + 1,
                     __ATOMIC_RELAXED);
}

/* Whether rendezvous send r offers its buffer to be read by the receiver
 * (the channel's rdma_read: CMA on shm, one copy on the receiver's CPU)
 * rather than streamed (CTS, then DATA: the sender copies into the channel
 * and the receiver out of it): a contiguous message to a peer whose channel
 * reads, except on an oversubscribed node where the read is the reader's own
 * copy (caps.rdma_read_sync: shm's CMA; a NIC's reads of another node's
 * memory and a rank's memmove of its own stay). There a read runs on the reader's CPU alone while its
 * sender waits to hear FIN: a root that read
 * its peers' blocks one after another kept one CPU busy and the other idle
 * (IMB np8 Gatherv 128-256 KiB on 2 CPUs: 2-3 times as long as with the
 * senders copying in), and pairs that exchange halves (np4 Allreduce 256
 * KiB-1 MiB) took up to twice as long. So below CANAL_RNDV_STREAM_MAX (8
 * MiB) it streams, unless it is one of several sends at once (ADI_MODE_FANOUT:
 * a broadcast's or scatter's root, a linear allgather or alltoall): their
 * receivers' reads run at once on every CPU, where streaming makes the one
 * sender copy each message (np8 Bcast 1-4 MiB 1.5-3.5 times as long
 * streamed, np4-8 Scatter 32-64 KiB 1.5-2); doc/bench.md, stop 43. */
static inline int rndv_offer(const adi_peer_t *p, const adi_request_t *r)
{
    return p->has_rdma && dt_is_contig(r->dt) &&
           (!adi_dev.oversubscribed || !p->read_sync || r->peer == adi_dev.rank ||
            r->size >= adi_dev.stream_max || r->mode == ADI_MODE_FANOUT);
}

/* A send dropped by send_drop (its caller left it, no memory to copy its
 * bytes): nothing is read from r->buf again. A flag of the request, not a
 * buffer address: a NULL buffer is MPI_BOTTOM, the buffer of every send of
 * absolute addresses (MPIX_Sendv's segments among them), and r->buf keeps
 * what the caller gave. */
static inline int send_dropped(const adi_request_t *r)
{
    return r->dropped;
}

/* Try to transmit the head piece of request r; CANAL_OK when the request
 * has nothing more to send right now, CANAL_AGAIN when the channel is full. */
static canal_status_t send_step(int peer, adi_request_t *r)
{
    adi_pkt_t h;
    canal_status_t st;

    switch (r->proto) {
    case PROTO_EAGER: {
        const void *data = r->tmp ? r->tmp : (r->size ? contig_ptr(r) : NULL);
        fill_hdr(&h, r, PKT_EAGER);
        if (r->mode == ADI_MODE_SYNC)
            h.flags |= PKT_FLAG_SYNC;
        st = send_pkt(peer, &h, data, r->size);
        if (st != CANAL_OK)
            return st;
        if (r->mode == ADI_MODE_SYNC) {
            r->state = REQ_SEND_WAIT_ACK;
        } else {
            r->status.bytes = r->size;
            adi_req_finish(r);
        }
        return CANAL_OK;
    }
    case PROTO_RTS:
        fill_hdr(&h, r, PKT_RTS);
        if (r->rkey != UINT64_MAX) {
            h.flags |= PKT_FLAG_RDMA;
            h.raddr = (uint64_t)(uintptr_t)contig_ptr(r);
            h.rkey = r->rkey;
        }
        st = send_pkt(peer, &h, NULL, 0);
        if (st != CANAL_OK)
            return st;
        if (r->rkey != UINT64_MAX)
            rndv_pull_expect(r->size);
        r->state = REQ_SEND_WAIT_CTS;
        return CANAL_OK;
    case PROTO_DATA:
        if (__builtin_expect(send_dropped(r), 0)) {
            /* (send_drop: the receiver asked for bytes nobody keeps) */
            memset(&h, 0, sizeof h);
            h.type = PKT_DATA;
            h.flags = PKT_FLAG_DROPPED;
            h.rreq = r->peer_req;
            h.raddr = r->offset;
            h.size = r->size;
            if ((st = send_pkt(peer, &h, NULL, 0)) != CANAL_OK)
                return st;
            adi_req_finish(r);
            return CANAL_OK;
        }
        while (r->offset < r->size) {
            size_t n = r->size - r->offset;
            const void *data;
            if (n > adi_dev.peers[peer].chunk)
                n = adi_dev.peers[peer].chunk;
            if (dt_is_contig(r->dt)) {
                data = (const char *)contig_ptr(r) + r->offset;
            } else {
                if (r->tmp_len == 0) {
                    if (r->tmp == NULL && (r->tmp = malloc(adi_dev.peers[peer].chunk)) == NULL)
                        return CANAL_AGAIN; /* retry later; memory may come back */
                    r->tmp_len = dt_pack_next(r->cursor, r->buf, r->tmp, n);
                }
                n = r->tmp_len;
                data = r->tmp;
            }
            memset(&h, 0, sizeof h);
            h.type = PKT_DATA;
            h.rreq = r->peer_req;
            h.raddr = r->offset;
            h.size = r->size;
            st = send_pkt(peer, &h, data, n);
            if (st != CANAL_OK)
                return st;
            r->offset += n;
            r->tmp_len = 0;
        }
        r->status.bytes = r->size;
        adi_req_finish(r);
        return CANAL_OK;
    case PROTO_CTRL:
        st = send_pkt(peer, (const adi_pkt_t *)r->ctl_hdr, NULL, 0);
        if (st != CANAL_OK)
            return st;
        r->user_freed = 1;
        adi_req_finish(r);
        return CANAL_OK;
    }
    return common_err_set(CANAL_ERR_INTERN, "send_step: bad protocol %d", r->proto);
}

int adi_peer_pump(int peer)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    int sent = 0;

    while (!common_list_empty(&p->sendq)) {
        adi_request_t *r = sq_first(p);
        canal_status_t st = send_step(peer, r);
        if (st == CANAL_AGAIN)
            break;
        sq_pop(peer);
        sent++;
        /* The channel refused it for good (the peer is lost): the request
         * ends with that error instead of waiting for ever. */
        if (st < 0)
            req_fail(r, peer, st);
    }
    return sent;
}

void adi_send_ctrl(int peer, const adi_pkt_t *pkt)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    adi_request_t *r;

    if (p->failed)
        return; /* nobody is there to answer */
    if (common_list_empty(&p->sendq) && send_pkt(peer, pkt, NULL, 0) == CANAL_OK)
        return;
    r = adi_request_alloc(ADI_REQ_OTHER);
    if (r == NULL) {
        LOG_ERR("out of memory queueing a control packet for rank %d", peer);
        abort();
    }
    memcpy(r->ctl_hdr, pkt, sizeof *pkt);
    r->proto = PROTO_CTRL;
    r->state = REQ_CTRL;
    sq_append(peer, r);
}

canal_status_t adi_isend_into(adi_request_t *r, const void *buf, size_t count, dt_type_t *dt,
                              int dest, int my_rank, int tag, int context, adi_send_mode_t mode)
{
    adi_peer_t *p;
    canal_status_t st;

    if (dest < 0 || dest >= __atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE))
        return common_err_set(CANAL_ERR_ARG, "destination job rank %d out of range", dest);
    p = &adi_dev.peers[dest];
    __atomic_store_n(&r->done, 0, __ATOMIC_RELAXED);
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    dt_retain(dt);
    r->size = count * dt_size(dt);
    r->peer = dest;
    r->rank = my_rank;
    r->tag = tag;
    r->context = context;
    r->mode = (uint8_t)mode;
    r->dropped = 0;
    r->withdrawing = 0;
    r->offset = 0;
    r->tmp_len = 0;
    r->status.source = my_rank;
    r->status.tag = tag;
    r->status.error = 0;
    r->status.cancelled = 0;
    r->status.bytes = 0;
    r->status.peer = -1;
    adi_lock(); /* the peer's credit and send queue, the channel */
    if (p->failed) {
        st = common_err_set(CANAL_ERR_PEER,
                            "rank %d failed earlier (the process died or its connection was lost)",
                            dest);
        goto out_fail;
    }
    if (__atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) > 0 && adi_ctx_revoked(context)) {
        st = common_err_set(CANAL_ERR_REVOKED, "the communicator was revoked");
        goto out_fail;
    }
    if (r->size <= p->eager_limit && p->credit >= r->size + ADI_EAGER_COST) {
        p->credit -= r->size + ADI_EAGER_COST;
        r->proto = PROTO_EAGER;
        if (!dt_is_contig(dt) && r->size > 0) {
            size_t packed = 0;
            r->tmp = malloc(r->size);
            if (r->tmp == NULL) {
                st = common_err_set(CANAL_ERR_NOMEM, "no memory to pack %zu bytes", r->size);
                goto out_fail;
            }
            if ((st = dt_pack(buf, count, dt, r->tmp, r->size, &packed)) < 0)
                goto out_fail;
        }
    } else {
        r->proto = PROTO_RTS;
        r->rkey = UINT64_MAX;
        if (rndv_offer(p, r) && ch_mem_register(p->ch, contig_ptr(r), r->size, &r->rkey) != CANAL_OK)
            r->rkey = UINT64_MAX;
        if (!dt_is_contig(dt) && (st = adi_req_cursor_init(r)) < 0)
            goto out_fail;
    }
    adi_stat_add_devlocked(&adi_stats.msgs_sent[p->stats_slot], 1);
    adi_stat_add_devlocked(&adi_stats.bytes_sent[p->stats_slot], r->size);
    if (r->proto == PROTO_RTS)
        adi_stat_add_devlocked(&adi_stats.rndv_sent, 1);
    r->state = REQ_SEND_QUEUED;
    if (common_list_empty(&p->sendq) && (st = send_step(dest, r)) != CANAL_AGAIN) {
        /* Sent, or refused for good: then the request reports the error. */
        if (st < 0)
            req_fail(r, dest, st);
        adi_unlock();
        return CANAL_OK;
    }
    sq_append(dest, r);
    adi_unlock();
    return CANAL_OK;
out_fail:
    free(r->tmp);
    r->tmp = NULL;
    dt_release(dt);
    r->dt = NULL;
    adi_unlock();
    return st;
}

canal_status_t adi_isend(const void *buf, size_t count, dt_type_t *dt, int dest, int my_rank,
                         int tag, int context, adi_send_mode_t mode, adi_request_t **req_out)
{
    adi_request_t *r = adi_request_alloc_fast(ADI_REQ_SEND);
    canal_status_t st;

    if (r == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a request");
    st = adi_isend_into(r, buf, count, dt, dest, my_rank, tag, context, mode);
    if (st < 0) {
        adi_request_free(r);
        return st;
    }
    *req_out = r;
    return CANAL_OK;
}

/* adi_isend_std's general path, out of line (its frame stays off the
 * common one). */
static __attribute__((noinline)) canal_status_t isend_queued(const adi_send_args_t *a,
                                                             adi_request_t **req_out)
{
    return adi_isend(a->buf, a->count, a->dt, a->dest, a->my_rank, a->tag, a->context,
                     ADI_MODE_STANDARD, req_out);
}

/* A standard-mode send of a contiguous message that fits the eager limit and
 * the peer's credit, sent at once with no request when nothing waits in the
 * peer's send queue (so it cannot overtake an earlier send): the blocking
 * sends and MPI_Sendrecv. CANAL_OK when it is on its way (the buffer is
 * free again), CANAL_AGAIN when the caller must take the request path (too
 * big, no credit, queue not empty, ring full, the peer failed, the context
 * revoked, a bad rank: that path reports those). The credit and the MPI_T
 * counts are taken before the channel call and given back when it fails
 * (rare; under the device lock, and sums that commute with what progress
 * inside the call adds), so that only `a` and p are needed after it: the
 * rest of the arguments stay in the caller's struct. */
static inline __attribute__((always_inline)) canal_status_t send_now(const adi_send_args_t *a)
{
    adi_peer_t *p;
    dt_type_t *dt = a->dt;
    size_t size, cost;
    adi_pkt_t h;
    struct iovec iov[2];
    int dest = a->dest;

    if (!dt_is_contig(dt) ||
        (unsigned)dest >= (unsigned)__atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE))
        return CANAL_AGAIN;
    p = &adi_dev.peers[dest];
    size = a->count * dt_contig_size(dt);
    cost = size + ADI_EAGER_COST;
    if (size > __atomic_load_n(&p->eager_limit, __ATOMIC_RELAXED)) /* (may rise: device.c) */
        return CANAL_AGAIN;
    adi_lock();
    /* What sends the message the general way, in one test: the peer lost,
     * no credit, a send queued before it, a revoked communicator. */
    if (__builtin_expect(p->credit < cost || p->failed || !common_list_empty(&p->sendq) ||
                             (__atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) > 0 &&
                              adi_ctx_revoked(a->context)),
                         0))
        goto again;
    /* A standard eager message goes with the tiny header (adi_pkt_len): its
     * 16 bytes are stored, nothing else of h is sent or read. */
    h.type = PKT_EAGER;
    h.flags = 0;
    h.reserved = 0;
    h.context = a->context;
    h.src_rank = a->my_rank;
    h.tag = a->tag;
    iov[0].iov_base = &h;
    iov[0].iov_len = ADI_PKT_TINY;
    iov[1].iov_base = (char *)a->buf + dt_contig_lb(dt);
    iov[1].iov_len = size;
    p->credit -= cost;
    adi_stat_add_devlocked(&adi_stats.msgs_sent[p->stats_slot], 1);
    adi_stat_add_devlocked(&adi_stats.bytes_sent[p->stats_slot], size);
    /* MPI_Send with no receive posted on its communicator (unlocked
     * mode): the peer most likely waits for this message and sends
     * nothing before it has it, and this rank sends nothing more before
     * it waits, a turn of a ping-pong; the channel may carry it where a
     * lone packet is fastest (shm: the line the pair shares; caps.turn_max
     * says which sizes, others take sendv at once). Not MPI_Isend (a
     * window follows) nor MPI_Sendrecv (both directions at once): the
     * turns of those measured slower than the ring (doc/bench.md, stop
     * 37). Locked mode asks for none: the queue's length is read without
     * its lock. */
    if (__builtin_expect(a->lone && size < p->turn_lim && !adi_locked &&
                                     !ctx_has_posted(a->context)
                             ? ch_sendv_turn(p->ch, dest, iov, size ? 2 : 1) != CANAL_OK
                             : ch_sendv(p->ch, dest, iov, size ? 2 : 1) != CANAL_OK,
                         0)) {
        /* (the ring is full: given back; iov still holds the size) */
        p->credit += iov[1].iov_len + ADI_EAGER_COST;
        adi_stat_add_devlocked(&adi_stats.msgs_sent[p->stats_slot], (uint64_t)-1);
        adi_stat_add_devlocked(&adi_stats.bytes_sent[p->stats_slot], -(uint64_t)iov[1].iov_len);
        goto again;
    }
    if (p->needs_wake)
        ch_wake(p->ch, a->dest);
    adi_unlock();
    return CANAL_OK;
again:
    adi_unlock();
    return CANAL_AGAIN;
}

canal_status_t adi_send_now(const void *buf, size_t count, dt_type_t *dt, int dest, int my_rank,
                            int tag, int context, int lone)
{
    /* (a struct the inlined send_now takes apart again: the arguments stay
     * in registers, where this caller has them; nothing is kept across the
     * channel call here, as there is no fallback to make) */
    adi_send_args_t a = {buf, count, dt, dest, my_rank, tag, context, lone};
    return send_now(&a);
}

canal_status_t adi_send_now_args(const adi_send_args_t *a) { return send_now(a); }

canal_status_t adi_isend_std(const adi_send_args_t *a, adi_request_t **req_out)
{
    if (__builtin_expect(send_now(a) == CANAL_OK, 1))
        return CANAL_OK;
    return isend_queued(a, req_out);
}

/* ---------------------------------------------------------------- flow control */
/* The eager message of `len` bytes from `peer` no longer occupies buffering. */
/* Return the released credit to peer (eager_released's rare part). */
static __attribute__((noinline)) void credit_return(int peer)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    adi_pkt_t h;

    memset(&h, 0, sizeof h);
    h.type = PKT_CREDIT;
    h.size = p->released;
    p->released = 0;
    adi_send_ctrl(peer, &h);
}

/* An eager message of len bytes from peer left its buffering: count its
 * credit, returned a quarter of the window at a time (inline: an addition
 * and a compare per message). */
static inline void eager_released(int peer, size_t len)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    p->released += len + ADI_EAGER_COST;
    if (__builtin_expect(p->released >= p->window / 4, 0))
        credit_return(peer);
}

/* ---------------------------------------------------------------- receiving */
static size_t recv_capacity(const adi_request_t *r) { return r->count * dt_size(r->dt); }

static __attribute__((noinline, cold)) void recv_truncated(adi_request_t *r, size_t cap)
{
    common_err_set(CANAL_ERR_TRUNCATE,
                   "message of %zu bytes from rank %d (tag %d) truncated to the %zu bytes of "
                   "the receive buffer",
                   r->size, r->status.source, r->status.tag, cap);
    r->status.error = CANAL_ERR_TRUNCATE;
}

/* Copy `len` bytes of message data at message offset `off` into the receive. */
static void recv_put(adi_request_t *r, const void *data, size_t len)
{
    size_t cap = recv_capacity(r);
    if (r->offset >= cap || r->status.error != 0 || r->detached) {
        r->offset += len;
        return;
    }
    size_t n = len < cap - r->offset ? len : cap - r->offset;
    if (n == 0) /* an empty message may come with no data pointer at all */
        return;
    if (dt_is_contig(r->dt))
        memcpy((char *)r->buf + dt_true_lb(r->dt) + r->offset, data, n);
    else
        dt_unpack_next(r->cursor, r->buf, data, n);
    r->offset += len;
}

static void recv_done(adi_request_t *r)
{
    size_t cap = recv_capacity(r);
    r->status.bytes = r->size < cap ? r->size : cap;
    if (r->size > cap && r->status.error == 0)
        recv_truncated(r, cap);
    adi_req_finish(r);
}

/* The sender of r's rendezvous message dropped it (PKT_FLAG_DROPPED on
 * DATA or PUSHED; send_drop): r fails with that. */
static void recv_dropped(adi_request_t *r, int peer)
{
    if (r->status.error != 0)
        return;
    r->status.peer = peer; /* (the message of a completion names it: mpi_status_error_code) */
    r->status.error = common_err_set(CANAL_ERR_REMOTE,
                                     "rank %d dropped the %zu-byte message it had announced "
                                     "(its collective was abandoned and the bytes could not "
                                     "be kept)",
                                     peer, r->size);
}

static void send_fin_like(int peer, int type, uint32_t sreq)
{
    adi_pkt_t h;
    memset(&h, 0, sizeof h);
    h.type = (uint8_t)type;
    h.sreq = sreq;
    adi_send_ctrl(peer, &h);
}

/* A message arrived on (or waited in the unexpected queue of) a revoked
 * context: dropped unread; its buffering is released, and a sender that
 * waits for an answer gets one flagged REVOKED. */
static void revoked_drop(int peer, uint8_t type, uint8_t flags, uint32_t sreq, size_t size)
{
    adi_pkt_t h;

    if (type == PKT_EAGER)
        eager_released(peer, size);
    if (type == PKT_EAGER && !(flags & PKT_FLAG_SYNC))
        return;
    memset(&h, 0, sizeof h);
    h.type = type == PKT_EAGER ? PKT_SYNC_ACK : PKT_FIN;
    h.flags = PKT_FLAG_REVOKED;
    h.sreq = sreq;
    adi_send_ctrl(peer, &h);
}

/* Local pieces per channel read of a non-contiguous receive (4 KiB of
 * stack: this runs in any thread's progress), bytes per read, and the smallest mean piece worth reading so:
 * the kernel spends about 40 ns on each piece of a process_vm_readv, so a
 * receive of 8-byte pieces went at 0.2 GB/s read that way against 1.5-5 GB/s
 * packed through the ring, while from 256-byte pieces up the single copy
 * was faster on an idle node and 4-9 times faster on a loaded one (two
 * ranks, 256 MiB, issue 27; doc/conformance.md). */
enum { RNDV_READV_IOV = 256, RNDV_READV_MIN_PIECE = 128 };
#define RNDV_READV_MAX ((size_t)1 << 30)

/* A contiguous sender's rendezvous message into a non-contiguous receive in
 * one copy: the receive type's pieces, a batch at a time, read straight
 * from the sender's buffer (the channel's rdma_readv; CMA on shm), instead
 * of packed into the channel and unpacked out of it. */
static canal_status_t rndv_read_pieces(adi_request_t *r, int peer, uint64_t raddr, uint64_t rkey,
                                       size_t n)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    struct iovec iov[RNDV_READV_IOV];
    size_t done = 0;

    while (done < n) {
        size_t want = n - done < RNDV_READV_MAX ? n - done : RNDV_READV_MAX;
        int k = 0;
        size_t got = dt_iov_next(r->cursor, r->buf, iov, RNDV_READV_IOV, want, &k);
        canal_status_t st;
        if (got == 0)
            return common_err_set(CANAL_ERR_INTERN,
                                  "rendezvous: the receive type ended at %zu of %zu bytes", done,
                                  n);
        if (done == 0 && got < n && got / (size_t)k < RNDV_READV_MIN_PIECE)
            return common_err_set(CANAL_ERR_UNSUPPORTED,
                                  "rendezvous: pieces of %zu bytes on average are cheaper "
                                  "streamed",
                                  got / (size_t)k);
        st = ch_rdma_readv(p->ch, peer, iov, k, raddr + done, rkey);
        if (st != CANAL_OK)
            return st;
        done += got;
    }
    return CANAL_OK;
}

/* Of a contiguous message of n bytes that the receiver pulls from a peer on
 * this node, the bytes the sender is asked to push (PKT_PUSH) while the
 * receiver pulls the others: both CPUs copy at once, which halves the time
 * of a copy that one CPU's loads and stores bound, not the memory (osu_bw
 * 1.05-1.7x and osu_latency 1.35-1.75x from 256 KiB to 4 MiB here, even at
 * 128 KiB, 9% slower at 64 KiB: the default threshold is 128 KiB;
 * doc/bench.md, stop 32). A receive then ends only once the sender has
 * entered MPI to push. Not below
 * CANAL_RNDV_HALVES_MIN, nor on an oversubscribed node (the sender may not
 * be running to push), nor where the channel cannot write the peer's
 * memory. The receiver's part is whole pages. 0: the receiver pulls all. */
static size_t rndv_push_part(const adi_peer_t *p, size_t n)
{
    if (adi_dev.halves_min == 0 || n < adi_dev.halves_min || !p->has_rdma_write ||
        adi_dev.oversubscribed)
        return 0;
    return n - ((n / 2) & ~(size_t)4095);
}

/* Ask the sender (request sreq) to write the last `part` bytes of its
 * message to dst, where r's receive buffer holds them. */
static void rndv_ask_push(int peer, const adi_request_t *r, uint32_t sreq, char *dst,
                          size_t from, size_t part)
{
    adi_pkt_t h;

    memset(&h, 0, sizeof h);
    h.type = PKT_PUSH;
    h.flags = PKT_FLAG_RDMA; /* (the whole header: it carries an address) */
    h.sreq = sreq;
    h.rreq = (uint32_t)r->index;
    h.size = part;
    h.raddr = (uint64_t)(uintptr_t)dst;
    h.rkey = from;
    adi_send_ctrl(peer, &h);
}

/* The sender's side of PKT_PUSH: write the bytes asked for from the buffer
 * the RTS offered (r, or NULL when no such send waits: then nothing) and say
 * how many (PKT_PUSHED). When the write fails, PUSHED says 0 and where the
 * bytes are, and the receiver reads them itself. The send ends at the FIN,
 * which the receiver sends once it has every byte. */
static void rndv_push(int peer, adi_request_t *r, const adi_pkt_t *ask)
{
    adi_pkt_t h;

    memset(&h, 0, sizeof h);
    h.type = PKT_PUSHED;
    h.rreq = ask->rreq;
    if (r != NULL && r->proto == PROTO_RTS && r->rkey != UINT64_MAX && ask->rkey <= r->size &&
        ask->size <= r->size - ask->rkey) {
        const char *src = (const char *)contig_ptr(r) + ask->rkey;
        canal_status_t st = ch_rdma_write(adi_dev.peers[peer].ch, peer, src, ask->raddr, 0,
                                          (size_t)ask->size);
        if (st == CANAL_OK) {
            h.size = ask->size;
            adi_stat_add(&adi_stats.rndv_pushed, 1);
        } else {
            LOG_DEBUG("rdma_write to rank %d failed (%s); it reads the %llu bytes itself", peer,
                      common_err_detail(), (unsigned long long)ask->size);
            h.flags = PKT_FLAG_RDMA;
            h.raddr = (uint64_t)(uintptr_t)src;
            h.rkey = r->rkey;
        }
    }
    /* (a dropped send: the receiver fails, then ends the send with a FIN or
     * a CTS, as it sent one or not) */
    if (r != NULL && r->proto == PROTO_RTS && send_dropped(r))
        h.flags = PKT_FLAG_DROPPED;
    adi_send_ctrl(peer, &h);
}

/* r's read of `peer`'s buffer failed with st (CMA refused, also at run
 * time after earlier reads; a bad address): ask the sender, which still
 * waits for a FIN or a CTS, to stream the whole message (DATA from offset
 * 0). A bad address (CANAL_ERR_ARG) is this message's alone: the peer's
 * later messages are read as before (rndv_start). */
static void rndv_read_failed(adi_request_t *r, int peer, canal_status_t st)
{
    adi_pkt_t h;

    LOG_DEBUG("rdma_read from rank %d failed (%s); falling back to CTS/DATA", peer,
              common_err_detail());
    if (st != CANAL_ERR_ARG)
        adi_dev.peers[peer].has_rdma = 0;
    r->state = REQ_RECV_DATA;
    r->offset = 0;
    memset(&h, 0, sizeof h);
    h.type = PKT_CTS;
    h.sreq = r->peer_req;
    h.rreq = (uint32_t)r->index;
    adi_send_ctrl(peer, &h);
}

/* PKT_PUSHED for r, which pulled its part (REQ_RECV_HALF): the sender wrote
 * the rest, or (0 bytes) says where it is, and r reads it; then FIN, which
 * ends the send, and r ends. When that read fails too (CMA denied here since
 * r read its part), the sender streams the whole message instead. */
static void rndv_pushed(adi_request_t *r, int peer, const adi_pkt_t *h)
{
    size_t cap = recv_capacity(r), n = r->size < cap ? r->size : cap;
    size_t part = n - r->offset; /* (what PKT_PUSH asked for: rndv_start) */
    char *dst = (char *)r->buf + dt_true_lb(r->dt) + r->offset;

    /* The sender's kernel wrote these bytes: memcheck saw nothing write them
     * here (a user's program under valgrind took the message for
     * uninitialised). One no-op instruction sequence outside valgrind. */
    if (h->size == part)
        VALGRIND_MAKE_MEM_DEFINED(dst, part);
    if (h->flags & PKT_FLAG_DROPPED) {
        recv_dropped(r, peer);
        goto fin;
    }
    if (h->size != part && r->detached)
        goto fin; /* (its caller left it: nothing more lands in the buffer) */
    if (h->size != part) {
        canal_status_t st = CANAL_ERR_IO;
        if (h->size == 0 && (h->flags & PKT_FLAG_RDMA)) {
            st = ch_rdma_read(adi_dev.peers[peer].ch, peer, dst, h->raddr, h->rkey, part, r);
            if (st == CANAL_OK)
                adi_stat_add(&adi_stats.rndv_push_failed, 1);
            else if (!adi_dev.peers[peer].failed) {
                rndv_read_failed(r, peer, st);
                return;
            }
        }
        if (st != CANAL_OK && r->status.error == 0)
            r->status.error = common_err_set(st < 0 ? st : CANAL_ERR_IO,
                                             "the last %zu bytes of a %zu-byte message from "
                                             "rank %d: neither written by it nor read here",
                                             part, r->size, peer);
        if (h->size == 0 && !(h->flags & PKT_FLAG_RDMA))
            goto done; /* (no such send there: nobody waits for a FIN) */
    }
fin:
    send_fin_like(peer, PKT_FIN, r->peer_req);
done:
    recv_done(r);
}

/* A receive of `peer`'s message sreq whose read of the sender's buffer is
 * still under way (REQ_RECV_RDMA: a channel that reads asynchronously). */
typedef struct {
    int peer;
    uint32_t sreq;
    adi_request_t *found;
} rdma_reader_t;

static void rdma_reader_find(adi_request_t *r, void *arg)
{
    rdma_reader_t *w = arg;

    if (r->kind == ADI_REQ_RECV && r->state == REQ_RECV_RDMA && r->peer == w->peer &&
        r->peer_req == w->sreq)
        w->found = r;
}

static void offer_final(int peer, const adi_pkt_t *h);

/* PKT_WITHDRAW (rts_withdraw): the RTS of h->sreq, if it still waits
 * unmatched, loses its address; its receive will ask for the bytes. The
 * sender's caller frees its buffer once PKT_WITHDRAWN answers (the sender
 * waits for it: adi_send_detach): sent now, after whatever this rank did
 * with the RTS already (a read of the buffer done, a FIN, CTS or PUSH sent
 * before this answer on the same channel); when a read of it is still under
 * way (a channel that reads asynchronously), none: the FIN or CTS sent when
 * that read ends (adi_on_rdma_done) ends the sender's wait. */
static void rts_withdrawn(int peer, const adi_pkt_t *h)
{
    adi_ctx_queues_t *q = adi_ctx(h->context);
    rdma_reader_t w = {peer, h->sreq, NULL};
    int found = 0;

    if (h->flags & PKT_FLAG_DROPPED) {
        offer_final(peer, h);
        return;
    }
    if (q != NULL) {
        adi_q_lock(q);
        for (adi_mq_entry_t *e = adi_mq_first(&q->unexpected); e != NULL;
             e = adi_mq_next(e)) {
            adi_message_t *m = msg_of(e);
            if (m->peer == peer && m->type == PKT_RTS && m->sreq == h->sreq) {
                m->flags &= (uint8_t)~PKT_FLAG_RDMA;
                found = 1;
                break;
            }
        }
        adi_q_unlock(q);
    }
    if (!found) {
        adi_request_each_live(rdma_reader_find, &w);
        if (w.found != NULL)
            return; /* (its FIN or CTS, when the read ends, answers) */
    }
    send_fin_like(peer, PKT_WITHDRAWN, h->sreq);
}

/* Rendezvous reads gathered while a poll delivers packets (a receiver of a
 * window of mid-size messages matches one RTS after another), made when the
 * channels' loop ends: per peer with one rdma_read_batch, each ending as an
 * asynchronous read ends (adi_on_rdma_done: FIN, or CTS when it failed).
 * Only reads a whole message takes (no halves: those start at
 * CANAL_RNDV_HALVES_MIN, 128 KiB) up to RNDV_BATCH_MAX, and only through a
 * channel that reads synchronously. The sender's FIN comes at the poll's
 * end instead of after each read. */
enum { RNDV_BATCH = 64 };
#define RNDV_BATCH_MAX ((size_t)64 << 10)
static struct {
    adi_request_t *r; /* (its peer: r->peer) */
    ch_read_t rd;
} rndv_pending[RNDV_BATCH];

void adi_rndv_flush(void)
{
    int n = adi_dev.nreads, idx[RNDV_BATCH];
    ch_read_t rd[RNDV_BATCH];
    canal_status_t sts[RNDV_BATCH];

    adi_dev.nreads = 0;
    for (int i = 0; i < n; i++) {
        int peer, m = 0;
        if (rndv_pending[i].r == NULL)
            continue; /* (read with an earlier one's peer) */
        peer = rndv_pending[i].r->peer;
        for (int k = i; k < n; k++)
            if (rndv_pending[k].r != NULL && rndv_pending[k].r->peer == peer) {
                idx[m] = k;
                rd[m++] = rndv_pending[k].rd;
            }
        /* (a batch of one is the channel's single read) */
        ch_rdma_read_batch(adi_dev.peers[peer].ch, peer, rd, m, sts);
        if (m > 1)
            adi_stat_add(&adi_stats.rndv_batched, (uint64_t)m);
        for (int j = 0; j < m; j++) {
            adi_request_t *r = rndv_pending[idx[j]].r;
            rndv_pending[idx[j]].r = NULL;
            if (r->state == REQ_RECV_RDMA) /* (not failed meanwhile) */
                adi_on_rdma_done(r, sts[j]);
        }
    }
}

/* A receive matched a rendezvous message: pull it or ask for it. */
static void rndv_start(adi_request_t *r, int peer, uint32_t sreq, uint8_t flags, uint64_t raddr,
                       uint64_t rkey)
{
    adi_peer_t *p = &adi_dev.peers[peer];
    size_t cap = recv_capacity(r);
    adi_pkt_t h;

    r->peer = peer;
    r->peer_req = sreq;
    r->offset = 0;
    if (p->failed) {
        /* The sender was lost after its RTS arrived: its data never will. */
        r->state = REQ_RECV_DATA;
        req_fail(r, peer, CANAL_ERR_PEER);
        return;
    }
    if (r->size == 0) {
        /* An empty message (a rendezvous for want of eager credit): nothing
         * to pull or stream. A CTS would wait for ever: the sender's DATA
         * loop sends no packet for 0 bytes and finishes at once. */
        send_fin_like(peer, PKT_FIN, sreq);
        recv_done(r);
        return;
    }
    if (!dt_is_contig(r->dt) && adi_req_cursor_init(r) < 0)
        r->status.error = CANAL_ERR_NOMEM; /* nothing lands; the message is drained */
    if ((flags & PKT_FLAG_RDMA) && p->has_rdma && dt_is_contig(r->dt)) {
        size_t n = r->size < cap ? r->size : cap;
        size_t part = rndv_push_part(p, n);
        char *dst = (char *)r->buf + dt_true_lb(r->dt);
        canal_status_t st;
        r->state = REQ_RECV_RDMA;
        if (part == 0 && p->read_batch && adi_dev.polling && n <= RNDV_BATCH_MAX && n > 0 &&
            adi_dev.nreads < RNDV_BATCH) {
            int k = adi_dev.nreads++;
            rndv_pending[k].r = r;
            rndv_pending[k].rd = (ch_read_t){dst, raddr, rkey, n};
            return;
        }
        if (part != 0) {
            /* (REQ_RECV_HALF: where the part asked for starts, for PUSHED) */
            r->offset = n - part;
            rndv_ask_push(peer, r, sreq, dst + r->offset, r->offset, part);
        }
        /* (a channel that writes reads synchronously: never INPROGRESS then) */
        st = ch_rdma_read(p->ch, peer, dst, raddr, rkey, n - part, r);
        if (st == CANAL_OK) {
            adi_stat_add(&adi_stats.rndv_pulled, 1);
            if (part != 0) {
                /* the sender's part may still land: FIN and the end at PUSHED */
                r->state = REQ_RECV_HALF;
                return;
            }
            send_fin_like(peer, PKT_FIN, sreq);
            recv_done(r);
            return;
        }
        if (st == CANAL_INPROGRESS)
            return;
        /* (having asked for a push: the sender pushes before it answers the
         * CTS below, and its PUSHED arrives while r receives DATA) */
        /* RDMA refused (e.g. CMA not permitted): use the pipelined protocol.
         * A bad address (CANAL_ERR_ARG: EFAULT, a key the peer dropped) is
         * this message's alone (an erroneous sender's freed buffer): the
         * peer's later messages are read as before. */
        LOG_DEBUG("rdma_read from rank %d failed (%s); falling back to CTS/DATA", peer,
                  common_err_detail());
        if (st != CANAL_ERR_ARG)
            p->has_rdma = 0;
        r->offset = 0; /* (DATA counts from the start) */
    }
    if ((flags & PKT_FLAG_RDMA) && p->has_rdma && !dt_is_contig(r->dt) &&
        r->status.error == 0) {
        size_t n = r->size < cap ? r->size : cap;
        r->state = REQ_RECV_RDMA;
        if (rndv_read_pieces(r, peer, raddr, rkey, n) == CANAL_OK) {
            send_fin_like(peer, PKT_FIN, sreq);
            adi_stat_add(&adi_stats.rndv_pulled, 1);
            recv_done(r);
            return;
        }
        /* (no such read, or it failed part way: the sender streams it all
         * again into a rewound cursor) */
        LOG_DEBUG("rdma_readv from rank %d failed (%s); falling back to CTS/DATA", peer,
                  common_err_detail());
        if (dt_cursor_seek(r->cursor, 0) != CANAL_OK)
            r->status.error = CANAL_ERR_INTERN;
    }
    r->state = REQ_RECV_DATA;
    memset(&h, 0, sizeof h);
    h.type = PKT_CTS;
    h.sreq = sreq;
    h.rreq = (uint32_t)r->index;
    adi_send_ctrl(peer, &h);
}

/* An eager message into a contiguous receive (the common case: a window of
 * small messages): what recv_put, eager_released and recv_done do, with
 * one look at the type and no intermediate copy. r->status.source/tag and
 * r->size are set. */
static inline __attribute__((always_inline)) void
recv_eager_contig(adi_request_t *r, int peer, uint8_t flags, uint32_t sreq,
                              size_t size, const void *data)
{
    size_t unit = dt_contig_size(r->dt), cap = r->count * unit;
    size_t n = size < cap ? size : cap;

    if (r->status.error == 0) {
        common_copy_small((char *)r->buf + dt_contig_lb(r->dt), data, n);
        if (size > cap)
            recv_truncated(r, cap);
    }
    r->offset = size;
    r->status.bytes = n;
    eager_released(peer, size);
    if (flags & PKT_FLAG_SYNC)
        send_fin_like(peer, PKT_SYNC_ACK, sreq);
    /* A filled buffer, or one of bytes, cannot end inside an element: the
     * partial-element check (a call into the type) only for the rest. */
    if (n < cap && unit != 1)
        adi_req_finish(r);
    else
        adi_req_finish_checked(r);
}

/* Deliver a matched message (arrived packet or unexpected entry) into r. */
static void deliver(adi_request_t *r, int peer, uint8_t type, uint8_t flags, int src, int tag,
                    size_t size, uint32_t sreq, uint64_t raddr, uint64_t rkey, const void *data)
{
    r->status.source = src;
    r->status.tag = tag;
    r->size = size;
    r->offset = 0;
    if (r->alloc_buf != NULL) {
        size_t unit = dt_size(r->dt);
        r->buf = r->alloc_buf(size, r->alloc_arg);
        r->alloc_buf = NULL;
        r->count = unit ? (size + unit - 1) / unit : 0;
        if (r->buf == NULL && size > 0) {
            r->count = 0;
            r->status.error = common_err_set(CANAL_ERR_NOMEM,
                                             "the buffer callback returned no buffer for a "
                                             "%zu-byte message",
                                             size);
        }
    }
    if (type == PKT_EAGER) {
        if (__builtin_expect(dt_is_contig(r->dt), 1)) {
            recv_eager_contig(r, peer, flags, sreq, size, data);
            return;
        }
        if (adi_req_cursor_init(r) < 0)
            r->status.error = CANAL_ERR_NOMEM;
        recv_put(r, data, size);
        eager_released(peer, size);
        if (flags & PKT_FLAG_SYNC)
            send_fin_like(peer, PKT_SYNC_ACK, sreq);
        recv_done(r);
    } else {
        rndv_start(r, peer, sreq, flags, raddr, rkey);
    }
}

static void posted_fail(adi_ctx_queues_t *q, adi_request_t *r, int peer, canal_status_t st);

/* The eager bytes waiting in unexpected queues (adi_dev.unexpected_bytes,
 * a hint for adi_recv_now): added by arrivals (device lock), taken off by
 * receives (a context's lock): an atomic only where threads are. */
static inline void unexpected_add(size_t len)
{
    if (adi_locked)
        __atomic_add_fetch(&adi_dev.unexpected_bytes, len, __ATOMIC_RELAXED);
    else
        adi_dev.unexpected_bytes += len;
}

/* An unexpected message left its queue. */
static void unexpected_sub(const adi_message_t *m)
{
    if (m->type != PKT_EAGER)
        return;
    if (adi_locked)
        __atomic_sub_fetch(&adi_dev.unexpected_bytes, m->size, __ATOMIC_RELAXED);
    else
        adi_dev.unexpected_bytes -= m->size;
}

/* A receive's fields, for a request that was live before (adi_irecv_into:
 * a persistent receive's). */
static inline void irecv_fields(adi_request_t *r, void *buf, size_t count, dt_type_t *dt, int src,
                                int tag, int context)
{
    __atomic_store_n(&r->done, 0, __ATOMIC_RELAXED);
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->rank = src;
    r->tag = tag;
    r->context = context;
    r->status.error = 0;
    r->status.cancelled = 0;
    r->status.bytes = 0;
    r->status.peer = -1;
    r->tmp_len = 0;
    r->detached = 0;
}

/* Post r, whose fields are set (irecv_fields or adi_req_init_msg), on
 * context's queues: inline in adi_irecv (MPI_Irecv's path). */
static inline __attribute__((always_inline)) canal_status_t
irecv_post(adi_request_t *r, dt_type_t *dt, int src, int tag, int context)
{
    adi_ctx_queues_t *q;
    adi_message_t *m;

    q = ctx_get(context);
    if (q == NULL) {
        r->dt = NULL;
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the queues of context %d", context);
    }
    dt_retain(dt);
    adi_q_lock(q);
    m = find_unexpected(q, src, tag);
    if (m != NULL) {
        adi_mq_remove(&q->unexpected, &m->match);
    } else {
        r->state = REQ_RECV_POSTED;
        adi_mq_add(&q->posted, &r->match, src, tag);
        adi_q_hwm(&q->posted, &q->posted_hwm);
    }
    adi_q_unlock(q);
    if (m == NULL) {
        int peer = -1;
        canal_status_t fst;
        /* Posted for a peer already lost (or on a revoked context): it would
         * wait for ever. (A failure reported while it was being posted finds
         * it in the queue.) Nothing lost or revoked: two loads, no call. */
        if (__builtin_expect(__atomic_load_n(&adi_dev.nfailed, __ATOMIC_SEQ_CST) == 0 &&
                                 __atomic_load_n(&adi_nrevoked, __ATOMIC_SEQ_CST) == 0,
                             1))
            return CANAL_OK;
        if ((fst = adi_ctx_src_failed(context, src, tag, &peer)) < 0 && fst != CANAL_ERR_PEER_PENDING)
            posted_fail(q, r, peer, fst);
        return CANAL_OK;
    }
    /* The message is ours alone now; delivering it may answer the sender
     * (credit, SYNC_ACK, CTS) and completes r: device lock. */
    unexpected_sub(m);
    adi_lock();
    deliver(r, m->peer, m->type, m->flags, m->src_rank, m->tag, m->size, m->sreq, m->raddr,
            m->rkey, m->data);
    adi_msg_free(m);
    adi_unlock();
    return CANAL_OK;
}

canal_status_t adi_irecv_into(adi_request_t *r, void *buf, size_t count, dt_type_t *dt, int src,
                              int tag, int context)
{
    irecv_fields(r, buf, count, dt, src, tag, context);
    return irecv_post(r, dt, src, tag, context);
}

canal_status_t adi_irecv(void *buf, size_t count, dt_type_t *dt, int src, int tag, int context,
                         adi_request_t **req_out)
{
    adi_request_t *r;
    canal_status_t st;

    /* adi_request_alloc_fast, with the receive's fields stored by the
     * initialization itself, in locked mode too (the cache's request once
     * initialized whole, then the receive's fields again, was 50
     * instructions more) */
    if ((r = adi_request_take()) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a request");
    adi_req_init_msg(r, ADI_REQ_RECV, buf, count, dt, src, tag, context);
    st = irecv_post(r, dt, src, tag, context);
    if (st < 0) {
        adi_request_free(r);
        return st;
    }
    *req_out = r;
    return CANAL_OK;
}

/* Copy an eager message of `size` bytes at data from (src, tag) into a
 * contiguous receive buffer of count dt, and set *st_out and *size_out (the
 * message's size) as the request path's completion would: the copy and
 * status of eager_take_into and of an arrival that fills a waiting receive
 * (waiter_fill). */
static inline void eager_copy_status(void *buf, size_t count, dt_type_t *dt, const void *data,
                                     size_t size, int src, int tag, adi_status_t *st_out,
                                     size_t *size_out)
{
    size_t cap = count * dt_contig_size(dt), n = size < cap ? size : cap;

    common_copy_small((char *)buf + dt_contig_lb(dt), data, n);
    st_out->source = src;
    st_out->tag = tag;
    st_out->error = CANAL_OK;
    st_out->cancelled = 0;
    st_out->bytes = n;
    st_out->peer = -1;
    *size_out = size;
    if (size > cap)
        st_out->error = common_err_set(CANAL_ERR_TRUNCATE,
                                       "message of %zu bytes from rank %d (tag %d) truncated to "
                                       "the %zu bytes of the receive buffer",
                                       size, src, tag, cap);
    else if (n < cap && adi_recv_partial_elem(dt, count, n))
        st_out->error = CANAL_ERR_TRUNCATE; /* (as adi_req_finish says; a buffer the
                                                message fills, a probed size, has none) */
}

/* Copy an eager message out of its queue (unexpected_sub done) into a
 * contiguous receive buffer of count dt, set *st_out and *size_out (the
 * message's size) as the request path's completion would, release the
 * message's buffering, answer a synchronous sender and free it: the end of
 * adi_recv_now and adi_mrecv_now, with no request. */
/* An unexpected eager message taken (device lock held): as deliver() does,
 * release its buffering and answer a synchronous sender; then free it. */
static void eager_dispose(adi_message_t *m)
{
    eager_released(m->peer, m->size);
    if (m->flags & PKT_FLAG_SYNC)
        send_fin_like(m->peer, PKT_SYNC_ACK, m->sreq);
    adi_msg_free(m);
}

static void eager_take_into(adi_message_t *m, void *buf, size_t count, dt_type_t *dt,
                            adi_status_t *st_out, size_t *size_out, int held)
{
    eager_copy_status(buf, count, dt, m->data, m->size, m->src_rank, m->tag, st_out, size_out);
    /* (held: in the device-lock round the caller's wait kept) */
    if (!held)
        adi_lock();
    eager_dispose(m);
    if (held)
        adi_wait_unlock();
    else
        adi_unlock();
}

/* Take the first message (src, tag) matches on q when it is an eager one:
 * NULL when there is none (*rts 0), or when the first match is a rendezvous
 * request (*rts 1: its receive needs a request, and the caller posts one,
 * which finds it). */
static adi_message_t *take_eager(adi_ctx_queues_t *q, int src, int tag, int *rts)
{
    adi_message_t *m;

    adi_q_lock(q);
    m = find_unexpected(q, src, tag);
    *rts = m != NULL && m->type != PKT_EAGER;
    if (m != NULL && !*rts) {
        adi_mq_remove(&q->unexpected, &m->match);
    } else {
        m = NULL;
    }
    adi_q_unlock(q);
    return m;
}

/* adi_recv_now's wait: for an eager message to take, a rendezvous request
 * first in line, or a loss or revocation anywhere (the request path then
 * decides what the receive gets). Below locked mode the wait is also its
 * context's waiter (q->waiter): an eager arrival that no posted receive
 * takes and that the wait matches is copied by adi_on_packet from the
 * channel straight into the receive's buffer (waiter_fill), instead of into
 * an unexpected message that the wait then finds, takes and copies out
 * again. The first arrival it matches ends the waiter either way: a
 * rendezvous request stays queued (and the wait takes the request path),
 * so nothing it matches later can overtake it. */
struct adi_recv_waiter {
    adi_ctx_queues_t *q;
    int src, tag;
    unsigned seen;     /* q->arrivals when last looked */
    int nlost, nrevoked;
    int rts;
    int filled;        /* waiter_fill delivered its message */
    adi_message_t *m;
    /* the receive, for waiter_fill */
    void *buf;
    size_t count;
    dt_type_t *dt;
    adi_status_t *st_out;
    size_t *size_out;
};
typedef struct adi_recv_waiter recv_wait_t;

/* Make w, a receive into buf, q's waiter (adi_recv_now, adi_recv_ready). */
static inline void waiter_post(recv_wait_t *w, void *buf, size_t count, dt_type_t *dt,
                               adi_status_t *st_out, size_t *size_out)
{
    w->buf = buf;
    w->count = count;
    w->dt = dt;
    w->st_out = st_out;
    w->size_out = size_out;
    w->q->waiter = w;
}

/* An arrival of (src, tag) that no posted receive took: does q's waiter
 * match it? (The waiter then stops waiting on q: see above.) */
static inline recv_wait_t *waiter_claim(adi_ctx_queues_t *q, int src, int tag)
{
    recv_wait_t *w = q->waiter;

    if (__builtin_expect(w == NULL, 1) || (w->src != src && w->src != ADI_ANY_SOURCE) ||
        (w->tag != tag && w->tag != ADI_ANY_TAG))
        return NULL;
    q->waiter = NULL;
    return w;
}

/* An eager message from peer that the waiting receive w claimed, copied from
 * the channel into its buffer; its buffering released and a synchronous
 * sender answered, as eager_take_into does (device lock held: progress). */
static void waiter_fill(recv_wait_t *w, int peer, const adi_pkt_t *h, const void *payload)
{
    eager_copy_status(w->buf, w->count, w->dt, payload, h->size, h->src_rank, h->tag, w->st_out,
                      w->size_out);
    eager_released(peer, h->size);
    if (h->flags & PKT_FLAG_SYNC)
        send_fin_like(peer, PKT_SYNC_ACK, h->sreq);
    w->filled = 1;
}

static int recv_wait_pred(void *arg)
{
    recv_wait_t *w = arg;
    unsigned a;

    if (w->filled)
        return 1;
    a = __atomic_load_n(&w->q->arrivals, __ATOMIC_ACQUIRE);
    if (a != w->seen) {
        w->seen = a;
        if ((w->m = take_eager(w->q, w->src, w->tag, &w->rts)) != NULL || w->rts)
            return 1;
    }
    return __atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) != w->nlost ||
           __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) != w->nrevoked;
}

/* What a thread asleep in one of these waits waits for (adi_watch_t): the
 * next arrival on its context (a loss or revocation wakes every watched
 * sleeper: device.c, failures_now). */
static void arrivals_watch(const adi_ctx_queues_t *q, unsigned seen, adi_watch_t *out)
{
    out->word = (const volatile int *)&q->arrivals;
    out->unless = (int)seen;
}

static void recv_wait_watch(void *arg, adi_watch_t *out)
{
    recv_wait_t *w = arg;
    arrivals_watch(w->q, w->seen, out);
}

/* The look of a receive that is not posted, below locked mode (adi_recv_now,
 * adi_recv_ready): its message taken from q when it is an eager one queued
 * already, else NULL (*rts 1: the first match is a rendezvous request).
 * An empty queue is seen without the search: no other thread can fill it
 * meanwhile. */
static inline __attribute__((always_inline)) adi_message_t *recv_look(adi_ctx_queues_t *q,
                                                                      int src, int tag, int *rts)
{
    return q->unexpected.len != 0 ? take_eager(q, src, tag, rts) : NULL;
}

/* A message recv_look (or a wait's predicate) took, copied into the
 * receive's buffer and freed (held: in the device-lock round the caller's
 * wait kept). */
static inline __attribute__((always_inline)) canal_status_t
recv_take(adi_message_t *m, void *buf, size_t count, dt_type_t *dt, adi_status_t *st_out,
          size_t *size_out, int held)
{
    unexpected_sub(m);
    eager_take_into(m, buf, count, dt, st_out, size_out, held);
    return CANAL_OK;
}

/* adi_recv_now in locked mode (adi.h's inline adi_recv_now picks the body):
 * the message only if it is queued already (a receive that waits unposted
 * is not matched first: see below); the queue is searched only when some
 * unexpected eager bytes are queued at all (a hint: the request path looks
 * again under the lock, and finds an empty or rendezvous message this
 * misses). Apart, so that a locked receive whose message has not come yet
 * (a ping-pong's, mpi4py's) costs a few loads, not the unlocked wait's
 * setup: about 55 instructions (doc/bench.md, helper near11); and the
 * unlocked path tests adi_locked once. */
canal_status_t adi_recv_now_locked(void *buf, size_t count, dt_type_t *dt, int src, int tag,
                                   int context, adi_status_t *st_out, size_t *size_out)
{
    adi_ctx_queues_t *q;
    adi_message_t *m;
    int rts = 0;

    if (__atomic_load_n(&adi_dev.unexpected_bytes, __ATOMIC_RELAXED) == 0 || !dt_is_contig(dt) ||
        (q = adi_ctx(context)) == NULL || (m = take_eager(q, src, tag, &rts)) == NULL)
        return CANAL_AGAIN;
    return recv_take(m, buf, count, dt, st_out, size_out, 0);
}

/* adi_recv_now below locked mode (see above). */
canal_status_t adi_recv_now_unlocked(void *buf, size_t count, dt_type_t *dt, int src, int tag,
                                     int context, adi_status_t *st_out, size_t *size_out)
{
    recv_wait_t w;
    adi_message_t *m;
    size_t cap;
    int held = 0; /* the device lock, kept from the wait's last poll */

    if (!dt_is_contig(dt))
        return CANAL_AGAIN;
    cap = count * dt_contig_size(dt);
    /* A larger receive only takes what is there: with no unexpected eager
     * bytes anywhere (a hint: the request path looks again under the lock,
     * and finds an empty or rendezvous message this misses) it posts at
     * once, for about 80 instructions less than looking. */
    if (cap > ADI_MSG_INLINE && __atomic_load_n(&adi_dev.unexpected_bytes, __ATOMIC_RELAXED) == 0)
        return CANAL_AGAIN;
    if ((w.q = adi_ctx(context)) == NULL)
        return CANAL_AGAIN;
    w.src = src;
    w.tag = tag;
    w.m = NULL;
    w.seen = __atomic_load_n(&w.q->arrivals, __ATOMIC_ACQUIRE);
    w.rts = 0;
    m = recv_look(w.q, src, tag, &w.rts);
    if (m == NULL) {
        w.nlost = __atomic_load_n(&adi_nlost, __ATOMIC_RELAXED);
        w.nrevoked = __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED);
        /* Not there yet: a small receive waits for it unposted, and takes it
         * from the unexpected queue (a copy of at most ADI_MSG_INLINE bytes
         * more than a posted receive's, against the request's making,
         * posting, completing and freeing); others post a request at once.
         * Not after a loss or revocation: the request path's rules apply.
         * Not in locked mode either (adi_recv_now_locked): a receive that
         * waits unposted is not matched first, and another thread's
         * receive posted (or looking) after it would take its message
         * from the unexpected queue (a counter thread in
         * MPI_Recv(MPI_ANY_SOURCE) and the main thread's request to
         * itself, then MPI_Recv of the answer: mpi4py's nxtval-threads.py
         * demo; test/mpi/pt2pt_threads_self.c). */
        if (w.rts || cap > ADI_MSG_INLINE || w.nlost != 0 || w.nrevoked != 0)
            return CANAL_AGAIN;
        /* (one thread: nothing arrives between the look above and this; a
         * waiter already there is an outer wait's, which keeps it. So the
         * predicate is false now, and the wait polls before it asks: a
         * message already in the channel is taken by that first poll
         * without the wait loop's frame, and one still on its way costs
         * one call of the predicate less) */
        w.filled = 0;
        if (w.q->waiter == NULL)
            waiter_post(&w, buf, count, dt, st_out, size_out);
        adi_wait_polling_locked_watch(recv_wait_pred, recv_wait_watch, &w);
        if (w.q->waiter == &w)
            w.q->waiter = NULL;
        if (w.filled) {
            adi_wait_unlock();
            return CANAL_OK;
        }
        held = 1;
        if ((m = w.m) == NULL) {
            adi_wait_unlock();
            return CANAL_AGAIN;
        }
    }
    return recv_take(m, buf, count, dt, st_out, size_out, held);
}

/* adi_recv_now without its wait: the message is taken when it is queued or
 * when one poll of the device brings it (a small receive is the context's
 * waiter meanwhile, so the poll copies it from the channel straight into
 * buf, waiter_fill); else CANAL_AGAIN, and the caller posts a request
 * (coll/pair.c's scatter leaf, whose wait is the collectives' watched one). */
canal_status_t adi_recv_ready(void *buf, size_t count, dt_type_t *dt, int src, int tag,
                              int context, adi_status_t *st_out, size_t *size_out)
{
    recv_wait_t w;
    adi_message_t *m = NULL;

    if (adi_locked || !dt_is_contig(dt) || (w.q = adi_ctx(context)) == NULL)
        return CANAL_AGAIN;
    w.rts = 0;
    m = recv_look(w.q, src, tag, &w.rts);
    if (m == NULL && !w.rts) {
        /* (as adi_recv_now's wait: small, nothing lost or revoked, no
         * other waiter) */
        if (count * dt_contig_size(dt) > ADI_MSG_INLINE || w.q->waiter != NULL ||
            __atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) != 0 ||
            __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) != 0)
            return CANAL_AGAIN;
        w.src = src;
        w.tag = tag;
        w.filled = 0;
        waiter_post(&w, buf, count, dt, st_out, size_out);
        adi_progress();
        if (w.q->waiter == &w)
            w.q->waiter = NULL;
        return w.filled ? CANAL_OK : CANAL_AGAIN;
    }
    if (m == NULL)
        return CANAL_AGAIN; /* (a rendezvous request: its receive needs one) */
    return recv_take(m, buf, count, dt, st_out, size_out, 0);
}

/* Probes. A probe looks in the unexpected queue first and polls the
 * device only when its message is not there (a message already queued is
 * found for the price of the search; an empty queue is seen without the
 * search when no other thread can fill it meanwhile). A matched probe
 * (take) removes the message from matching; the others fill *st_out under
 * the context's lock, while the message cannot leave. */
static adi_message_t *probe_look(adi_ctx_queues_t *q, int src, int tag, int take,
                                 adi_status_t *st_out)
{
    adi_message_t *m;

    if (!adi_locked && q->unexpected.len == 0)
        return NULL;
    adi_q_lock(q);
    m = find_unexpected(q, src, tag);
    if (m != NULL) {
        if (take) {
            adi_mq_remove(&q->unexpected, &m->match);
        }
        if (st_out != NULL) {
            st_out->source = m->src_rank;
            st_out->tag = m->tag;
            st_out->bytes = m->size;
            st_out->error = 0;
            st_out->cancelled = 0;
            st_out->peer = -1;
        }
    }
    adi_q_unlock(q);
    if (m != NULL && take)
        unexpected_sub(m);
    return m;
}

/* Why a probe that found nothing can never match: a lost peer it names (or
 * any unacknowledged loss for MPI_ANY_SOURCE) or a revoked context; 0 when
 * it may still. A blocking probe reports a pending any-source loss as the
 * loss itself (it cannot stay posted as a receive does). */
static canal_status_t probe_failed(int src, int tag, int context, int blocking)
{
    int peer = -1;
    canal_status_t st = adi_ctx_src_failed(context, src, tag, &peer);

    if (st == CANAL_ERR_PEER_PENDING && blocking)
        st = CANAL_ERR_PEER;
    if (st == CANAL_ERR_PEER || st == CANAL_ERR_PEER_PENDING)
        return common_err_set(st, "rank %d (job rank) has failed: no message from it can match",
                              peer);
    if (st == CANAL_ERR_REVOKED)
        return common_err_set(st, "the communicator (context %d) is revoked", context);
    return st < 0 ? st : CANAL_OK;
}

static canal_status_t probe_now(int src, int tag, int context, int take, int *flag_out,
                                adi_message_t **msg_out, adi_status_t *st_out)
{
    adi_ctx_queues_t *q = adi_ctx(context);
    adi_message_t *m = NULL;

    if (q != NULL && (m = probe_look(q, src, tag, take, st_out)) == NULL) {
        adi_progress();
        m = probe_look(q, src, tag, take, st_out);
    }
    *flag_out = m != NULL;
    if (m == NULL) {
        if (q == NULL)
            adi_progress(); /* (a probe loop still progresses) */
        if (__atomic_load_n(&adi_nlost, __ATOMIC_RELAXED) != 0 ||
            __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) != 0)
            return probe_failed(src, tag, context, 0);
        return CANAL_OK;
    }
    if (take)
        *msg_out = m;
    return CANAL_OK;
}

canal_status_t adi_iprobe(int src, int tag, int context, int *flag_out, adi_status_t *st_out)
{
    return probe_now(src, tag, context, 0, flag_out, NULL, st_out);
}

canal_status_t adi_improbe(int src, int tag, int context, int *flag_out, adi_message_t **msg_out,
                           adi_status_t *st_out)
{
    return probe_now(src, tag, context, 1, flag_out, msg_out, st_out);
}

/* adi_probe's wait: a look after each arrival on the context, and the
 * failure check after each loss or revocation. */
typedef struct {
    adi_ctx_queues_t *q;
    int src, tag, context, take;
    unsigned seen; /* q->arrivals when last looked */
    int nlost, nrevoked;
    canal_status_t st;
    adi_status_t *st_out;
    adi_message_t *m;
} probe_wait_t;

static int probe_wait_pred(void *arg)
{
    probe_wait_t *w = arg;
    unsigned a = __atomic_load_n(&w->q->arrivals, __ATOMIC_ACQUIRE);
    int nlost, nrevoked;

    if (a != w->seen) {
        w->seen = a;
        if ((w->m = probe_look(w->q, w->src, w->tag, w->take, w->st_out)) != NULL)
            return 1;
    }
    nlost = __atomic_load_n(&adi_nlost, __ATOMIC_RELAXED);
    nrevoked = __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED);
    if (nlost != w->nlost || nrevoked != w->nrevoked) {
        w->nlost = nlost;
        w->nrevoked = nrevoked;
        /* (a message that came before the loss is still received) */
        if ((w->m = probe_look(w->q, w->src, w->tag, w->take, w->st_out)) != NULL)
            return 1;
        if ((w->st = probe_failed(w->src, w->tag, w->context, 1)) < 0)
            return 1;
    }
    return 0;
}

static void probe_wait_watch(void *arg, adi_watch_t *out)
{
    probe_wait_t *w = arg;
    arrivals_watch(w->q, w->seen, out);
}

canal_status_t adi_probe(int src, int tag, int context, int take, adi_message_t **msg_out,
                         adi_status_t *st_out)
{
    probe_wait_t w;

    if ((w.q = adi_ctx(context)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for the queues of context %d", context);
    w.src = src;
    w.tag = tag;
    w.context = context;
    w.take = take;
    w.st = CANAL_OK;
    w.st_out = st_out;
    w.seen = __atomic_load_n(&w.q->arrivals, __ATOMIC_ACQUIRE);
    w.nlost = __atomic_load_n(&adi_nlost, __ATOMIC_RELAXED);
    w.nrevoked = __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED);
    w.m = probe_look(w.q, src, tag, take, st_out);
    if (w.m == NULL && (w.nlost != 0 || w.nrevoked != 0) &&
        (w.st = probe_failed(src, tag, context, 1)) < 0)
        return w.st;
    if (w.m == NULL)
        adi_wait_until_watch(probe_wait_pred, probe_wait_watch, &w);
    if (w.m == NULL)
        return w.st;
    if (take)
        *msg_out = w.m;
    return CANAL_OK;
}

canal_status_t adi_mrecv_now(void *buf, size_t count, dt_type_t *dt, adi_message_t *m,
                             adi_status_t *st_out, size_t *size_out)
{
    if (m->type != PKT_EAGER || !dt_is_contig(dt))
        return CANAL_AGAIN;
    eager_take_into(m, buf, count, dt, st_out, size_out, 0);
    return CANAL_OK;
}

canal_status_t adi_imrecv(void *buf, size_t count, dt_type_t *dt, adi_message_t *m,
                          adi_request_t **req_out)
{
    adi_request_t *r = adi_request_alloc(ADI_REQ_RECV);

    if (r == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "no memory for a request");
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    dt_retain(dt);
    r->context = m->context;
    adi_lock();
    deliver(r, m->peer, m->type, m->flags, m->src_rank, m->tag, m->size, m->sreq, m->raddr,
            m->rkey, m->data);
    adi_msg_free(m);
    adi_unlock();
    *req_out = r;
    return CANAL_OK;
}

void adi_mdiscard(adi_message_t *m)
{
    adi_lock();
    if (m->type == PKT_EAGER) {
        eager_dispose(m);
    } else {
        /* (the sender's RTS waits for this FIN, pulled or not: it ends) */
        send_fin_like(m->peer, PKT_FIN, m->sreq);
        adi_msg_free(m);
    }
    adi_unlock();
}

/* r's RTS, out with the address of its caller's buffer, which the caller
 * may free from now on (adi_send_detach): tell the receiver, which then
 * asks for the bytes (CTS) instead of reading there, unless it has matched
 * the RTS already (it read the buffer while still valid, or it fails or
 * asks on EFAULT). The packet follows the RTS on the same channel, before
 * the caller can free the buffer unless the peer's queue holds it back. */
static void rts_withdraw(adi_request_t *r)
{
    adi_pkt_t h;

    if (r->state != REQ_SEND_WAIT_CTS)
        return; /* (queued: the RTS goes out without the address) */
    fill_hdr(&h, r, PKT_WITHDRAW);
    adi_send_ctrl(r->peer, &h);
    r->withdrawing = 1; /* (until PKT_WITHDRAWN: adi_send_detach waits) */
}

/* adi_send_detach's wait: r's WITHDRAW answered, or r ended (its FIN,
 * CTS-answered DATA, or the loss of the peer). */
static int withdraw_answered(void *arg)
{
    const adi_request_t *r = arg;
    return !__atomic_load_n(&r->withdrawing, __ATOMIC_ACQUIRE) ||
           __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* A send whose caller left it and whose bytes could not be copied
 * (adi_send_detach, device lock held): it never reads the caller's buffer
 * again and ends with CANAL_ERR_NOMEM. Not transmitted yet: out of the
 * queue, ended now. Its RTS out (or DATA part way): r->dropped is set, the
 * address the RTS offered is withdrawn: a PUSH is answered by a PUSHED
 * flagged DROPPED (rndv_push), a CTS or the rest of the DATA stream by one
 * DATA packet flagged DROPPED (send_step); either fails the receive, and
 * the send ends at the receiver's FIN or at that DATA. */
static void send_drop(adi_request_t *r)
{
    adi_peer_t *p = &adi_dev.peers[r->peer];

    if (r->rkey != UINT64_MAX && r->proto == PROTO_RTS) {
        rts_withdraw(r);
        ch_mem_deregister(p->ch, r->rkey);
        r->rkey = UINT64_MAX;
    }
    r->status.error = CANAL_ERR_NOMEM;
    r->status.peer = r->peer;
    r->dropped = 1; /* (r->buf stays: send_dropped, never read again) */
    if (r->state == REQ_SEND_QUEUED && r->in_queue && r->proto != PROTO_DATA) {
        common_list_remove(&p->sendq, &r->sendq);
        r->in_queue = 0;
        if (r->proto == PROTO_EAGER) /* (its credit was taken when it was queued) */
            p->credit += r->size + ADI_EAGER_COST;
        adi_req_finish(r);
    }
}

canal_status_t adi_send_detach(adi_request_t *r)
{
    canal_status_t st = CANAL_OK;
    size_t packed = 0, kept;
    void *copy;

    adi_lock();
    /* Nothing left to read from the caller's buffer: done, an eager send
     * sent (waiting for its SYNC_ACK) or packed already, or no bytes. */
    if (r->kind != ADI_REQ_SEND || r->done || r->size == 0 || r->proto == PROTO_CTRL ||
        (r->proto == PROTO_EAGER && r->tmp != NULL) ||
        (r->state != REQ_SEND_QUEUED && r->state != REQ_SEND_WAIT_CTS &&
         r->state != REQ_SEND_DATA))
        goto out;
    /* (copies kept at once are bounded: a receiver may never ask) */
    kept = __atomic_load_n(&adi_dev.detached_bytes, __ATOMIC_RELAXED);
    if (r->size > adi_dev.detach_keep_max - (kept < adi_dev.detach_keep_max
                                                 ? kept : adi_dev.detach_keep_max)) {
        send_drop(r);
        st = common_err_set(CANAL_ERR_LIMIT, "the %zu bytes of a send to rank %d that its caller "
                                             "left are more than CANAL_DETACH_KEEP_MAX (%zu, %zu "
                                             "kept already) lets keep: the send was dropped",
                            r->size, r->peer, adi_dev.detach_keep_max, kept);
        goto out;
    }
    copy = __builtin_expect(adi_dev.fault_detach_nomem, 0) ? NULL : malloc(r->size);
    if (copy == NULL) {
        send_drop(r);
        st = common_err_set(CANAL_ERR_NOMEM, "no memory to keep the %zu bytes of a send to "
                                             "rank %d that its caller left: the send was dropped",
                            r->size, r->peer);
        goto out;
    }
    if (dt_is_contig(r->dt))
        memcpy(copy, contig_ptr(r), r->size);
    else if ((st = dt_pack(r->buf, r->count, r->dt, copy, r->size, &packed)) < 0) {
        free(copy);
        goto out;
    }
    /* A rendezvous request not sent yet offers no address to pull from
     * (the registration is of the caller's buffer); one sent already
     * keeps the address it offered: a receiver that pulls from it after
     * the caller freed it fails there (it is in an erroneous call anyway),
     * one that asks for the bytes (CTS) gets them from the copy. */
    if (r->state == REQ_SEND_QUEUED && r->proto == PROTO_RTS && r->rkey != UINT64_MAX) {
        ch_mem_deregister(adi_dev.peers[r->peer].ch, r->rkey);
        r->rkey = UINT64_MAX;
    } else if (r->proto == PROTO_RTS && r->rkey != UINT64_MAX) {
        rts_withdraw(r); /* (the registration stays: a PUSH reads the copy) */
    }
    /* From now on the message is r->size contiguous bytes at copy, owned
     * as r->tmp (freed with the request, as a packed eager send's bytes
     * are; an eager send reads r->tmp, a DATA stream r->buf); a DATA chunk
     * packed but not sent yet is sent again from the copy, the same bytes. */
    free(r->tmp);
    r->tmp = copy;
    r->tmp_len = 0;
    dt_release(r->dt);
    r->dt = dt_builtin(DT_BYTE);
    dt_retain(r->dt);
    r->buf = copy; /* (buf == tmp: a detached copy, counted off when freed) */
    r->count = r->size;
    __atomic_add_fetch(&adi_dev.detached_bytes, r->size, __ATOMIC_RELAXED);
    st = CANAL_OK;
out:
    adi_unlock();
    /* An RTS out with the address of the caller's buffer (WITHDRAW sent):
     * its receiver may have matched it already and be about to read there
     * (a receive posted before the RTS arrived matches it on arrival,
     * before the WITHDRAW behind it): the caller frees the buffer only
     * once the receiver has answered (PKT_WITHDRAWN, after any such read)
     * or the send ended. The receiver answers from any progress of its
     * own; a lost one ends the send. One that has entered MPI_Finalize's
     * fence (its call of the mismatch returned, the communicator not
     * freed) never answers: after CANAL_DETACH_WAIT_MS the caller goes on,
     * with a warning (that receiver reads nothing any more). */
    if (!withdraw_answered(r)) {
        char detail[512]; /* (st's message: progress may set others) */
        snprintf(detail, sizeof detail, "%s", common_err_detail());
        if (adi_wait_until_for(withdraw_answered, r,
                               adi_dev.detach_wait_us > 0 ? adi_dev.detach_wait_us : 1) !=
            CANAL_OK)
            LOG_WARN("a send to rank %d left by an abandoned collective: rank %d did not "
                     "answer the withdrawal of the buffer address its RTS offered within "
                     "CANAL_DETACH_WAIT_MS (%lld ms; it may be in MPI_Finalize); going on",
                     r->peer, r->peer, adi_dev.detach_wait_us / 1000);
        if (st < 0)
            common_err_set(st, "%s", detail);
    }
    return st;
}

/* adi_recv_detach's wait: nothing reads into r or writes r's buffer any
 * more (r's read or its sender's part ended), or r ended. */
static int recv_settled(void *arg)
{
    const adi_request_t *r = arg;
    uint8_t state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
    return (state != REQ_RECV_RDMA && state != REQ_RECV_HALF) ||
           __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* Whether a receive was ever detached in this process: adi_finalize looks
 * for their streams only then. */
static int recv_detached_ever;

static void detached_find(adi_request_t *r, void *arg)
{
    if (r->kind == ADI_REQ_RECV && r->detached && !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) &&
        !(r->state == REQ_RECV_RDMA && adi_dev.peers[r->peer].offers_closed))
        *(int *)arg = r->peer; /* (not a read its finalizing sender no longer serves) */
}

int adi_recv_detached_pending(void)
{
    int peer = -1;

    if (!__atomic_load_n(&recv_detached_ever, __ATOMIC_ACQUIRE))
        return -1;
    adi_lock();
    adi_request_each_live(detached_find, &peer);
    adi_unlock();
    return peer;
}

/* adi_recv_detach's wait past CANAL_DETACH_WAIT_MS: r settled, or its
 * sender finalizes (its final word: it writes nothing more, and serves no
 * read from its fence). */
static int recv_left_alone(void *arg)
{
    const adi_request_t *r = arg;
    return recv_settled(arg) ||
           __atomic_load_n(&adi_dev.peers[r->peer].offers_closed, __ATOMIC_ACQUIRE);
}

void adi_recv_detach(adi_request_t *r)
{
    if (r->kind != ADI_REQ_RECV)
        return;
    /* (a read under way ends in progress: adi_on_rdma_done; a sender's
     * part with its PUSHED) */
    if (!recv_settled(r) &&
        adi_wait_until_for(recv_settled, r,
                           adi_dev.detach_wait_us > 0 ? adi_dev.detach_wait_us : 1) != CANAL_OK) {
        LOG_WARN("a receive from rank %d left by an abandoned collective: its message was still "
                 "being read or written into the caller's buffer after CANAL_DETACH_WAIT_MS "
                 "(%lld ms); waiting for it (rank %d moves it at its next MPI call, or says at "
                 "MPI_Finalize that it never will)",
                 r->peer, adi_dev.detach_wait_us / 1000, r->peer);
        /* The sender writes its part, or serves the read (a channel that
         * reads asynchronously: ofi), whenever it next polls, however late
         * (a rank computing after its own failed call): the caller may
         * reuse the buffer only after that, or after the sender said it
         * never will (offer_final) or was lost. Before, the caller went on
         * here and the bytes landed in its reused buffer (coll_detach_wait
         * args=timeout). */
        adi_wait_until(recv_left_alone, r);
    }
    adi_lock();
    if (!r->done) {
        r->detached = 1; /* (recv_put: a stream's rest is dropped) */
        __atomic_store_n(&recv_detached_ever, 1, __ATOMIC_RELEASE);
    }
    adi_unlock();
}

/* The sender's side at MPI_Finalize (adi_offers_final): a send whose RTS
 * offered its buffer's address and that has not ended (its collective was
 * abandoned, or its request freed) may still get a PUSH, which this rank
 * would never answer from its fence: its receiver, if it waits for the
 * part, reads it itself, or, if its caller left it (adi_recv_detach),
 * stops waiting. PKT_WITHDRAW flagged PKT_FLAG_DROPPED ("final") with the
 * buffer's address and key; from now on rndv_push writes nothing for the
 * send (no key: PUSHED says 0), so that no byte lands after the receiver
 * took the final word as the end. */
static void offer_close(adi_request_t *r, void *arg)
{
    adi_pkt_t h;

    (void)arg;
    if (r->kind != ADI_REQ_SEND || r->done || r->proto != PROTO_RTS ||
        r->state != REQ_SEND_WAIT_CTS || r->rkey == UINT64_MAX)
        return;
    fill_hdr(&h, r, PKT_WITHDRAW);
    h.flags = PKT_FLAG_DROPPED | PKT_FLAG_RDMA; /* (the whole header: the address) */
    h.raddr = (uint64_t)(uintptr_t)contig_ptr(r);
    h.rkey = r->rkey;
    adi_send_ctrl(r->peer, &h);
    r->rkey = UINT64_MAX; /* (its registration goes with the channel) */
}

void adi_offers_final(void)
{
    adi_lock();
    adi_request_each_live(offer_close, NULL);
    adi_unlock();
}

/* A receive of `peer`'s message sreq that waits for the sender's part. */
static void half_find(adi_request_t *r, void *arg)
{
    rdma_reader_t *w = arg;

    if (r->kind == ADI_REQ_RECV && r->state == REQ_RECV_HALF && r->peer == w->peer &&
        r->peer_req == w->sreq && !r->done)
        w->found = r;
}

/* The receiver's side of the final PKT_WITHDRAW (offer_close): `peer`
 * answers no PUSH any more. No later message from it is split in halves;
 * a receive that waits for its part of h->sreq reads it itself from the
 * address the packet carries (rndv_pushed, as when the sender's write
 * fails), or, detached, reads nothing and ends. */
static void offer_final(int peer, const adi_pkt_t *h)
{
    rdma_reader_t w = {peer, h->sreq, NULL};
    adi_pkt_t pushed;

    adi_dev.peers[peer].has_rdma_write = 0;
    __atomic_store_n(&adi_dev.peers[peer].offers_closed, 1, __ATOMIC_RELEASE);
    adi_request_each_live(half_find, &w);
    if (w.found == NULL)
        return;
    pushed = *h;
    pushed.type = PKT_PUSHED;
    pushed.flags = PKT_FLAG_RDMA;
    pushed.size = 0;
    pushed.raddr = h->raddr + w.found->offset; /* (where its part starts) */
    rndv_pushed(w.found, peer, &pushed);
}

canal_status_t adi_cancel(adi_request_t *r)
{
    int unposted = 0;

    adi_lock();
    if (r->state == REQ_RECV_POSTED || r->state == REQ_IDLE) {
        /* A receive is posted, and claimed by an arrival, under its
         * context's lock: look at its state under that lock too. */
        adi_ctx_queues_t *q = adi_ctx(r->context);
        if (q != NULL) {
            adi_q_lock(q);
            if (r->state == REQ_RECV_POSTED) {
                adi_mq_remove(&q->posted, &r->match);
                r->state = REQ_IDLE;
                unposted = 1;
            }
            adi_q_unlock(q);
        }
    }
    if (unposted) {
        r->status.cancelled = 1;
        adi_req_finish(r);
    } else if (r->state == REQ_SEND_QUEUED && r->in_queue &&
               (r->proto == PROTO_EAGER || r->proto == PROTO_RTS)) {
        /* Not transmitted yet (in_queue): take it out of the peer's queue. */
        adi_peer_t *p = &adi_dev.peers[r->peer];
        common_list_remove(&p->sendq, &r->sendq);
        r->in_queue = 0;
        if (r->rkey != UINT64_MAX && r->proto == PROTO_RTS)
            ch_mem_deregister(p->ch, r->rkey);
        r->status.cancelled = 1;
        adi_req_finish(r);
    }
    adi_unlock();
    return CANAL_OK;
}

/* ---------------------------------------------------------------- arrivals */
/* The live request `index` in one of two states, that talks to `peer`:
 * a packet naming another sender's request is not for it. */
static adi_request_t *req_for_packet(uint32_t index, int peer, int state1, int state2)
{
    adi_request_t *r = adi_request_at((int)index);
    if (r == NULL || (r->state != state1 && r->state != state2) || r->peer != peer)
        return NULL;
    return r;
}

canal_status_t adi_pkt_check(int peer, int npeers, const void *hdr, size_t hdr_len, size_t len,
                             adi_pkt_t *pkt_out)
{
    adi_pkt_t h;

    if (peer < 0 || peer >= npeers)
        return common_err_set(CANAL_ERR_PROTO, "packet from peer %d, the device knows %d", peer,
                              npeers);
    if (hdr_len != sizeof h && hdr_len != ADI_PKT_SHORT && hdr_len != ADI_PKT_TINY)
        return common_err_set(CANAL_ERR_PROTO,
                              "packet from rank %d has a %zu-byte header, not %zu, %zu or %zu",
                              peer, hdr_len, sizeof h, (size_t)ADI_PKT_SHORT,
                              (size_t)ADI_PKT_TINY);
    memcpy(&h, hdr, hdr_len);
    if (hdr_len == ADI_PKT_TINY) {
        h.sreq = 0;
        h.rreq = 0;
        h.size = len;
    }
    if (hdr_len <= ADI_PKT_SHORT) {
        h.raddr = 0;
        h.rkey = 0;
    }
    if (h.type < PKT_EAGER || h.type > PKT_WITHDRAWN)
        return common_err_set(CANAL_ERR_PROTO, "packet from rank %d has unknown type %u", peer,
                              (unsigned)h.type);
    if (h.flags & ~(PKT_FLAG_SYNC | PKT_FLAG_RDMA | PKT_FLAG_REVOKED | PKT_FLAG_DROPPED))
        return common_err_set(CANAL_ERR_PROTO, "packet from rank %d has unknown flags 0x%x", peer,
                              (unsigned)h.flags);
    if (hdr_len != adi_pkt_len(&h))
        return common_err_set(CANAL_ERR_PROTO,
                              "packet of type %u from rank %d has a %zu-byte header, not %zu",
                              (unsigned)h.type, peer, hdr_len, adi_pkt_len(&h));
    switch (h.type) {
    case PKT_EAGER:
    case PKT_RTS:
        if (h.context < 0 || h.context >= ADI_CONTEXT_MAX)
            return common_err_set(CANAL_ERR_PROTO, "packet from rank %d names context %d",
                                  peer, (int)h.context);
        /* Tags may be negative: partitioned communication (mpi/part.c) sets the
         * top bit. A source rank never is. */
        if (h.src_rank < 0)
            return common_err_set(CANAL_ERR_PROTO, "packet from rank %d has source rank %d",
                                  peer, (int)h.src_rank);
        if (h.type == PKT_EAGER && h.size != len)
            return common_err_set(CANAL_ERR_PROTO,
                                  "eager packet from rank %d carries %zu bytes, header says %llu",
                                  peer, len, (unsigned long long)h.size);
        if (h.type == PKT_RTS && (len != 0 || h.size > SIZE_MAX / 2))
            return common_err_set(CANAL_ERR_PROTO,
                                  "rendezvous request from rank %d: %zu bytes of payload, "
                                  "message size %llu",
                                  peer, len, (unsigned long long)h.size);
        break;
    case PKT_DATA:
        if (h.rreq > INT32_MAX || h.raddr > SIZE_MAX / 2)
            return common_err_set(CANAL_ERR_PROTO,
                                  "data packet from rank %d: %zu bytes at offset %llu for "
                                  "request %u",
                                  peer, len, (unsigned long long)h.raddr, (unsigned)h.rreq);
        break;
    case PKT_CREDIT:
        if (len != 0 || h.size == 0 || h.size > SIZE_MAX / 2)
            return common_err_set(CANAL_ERR_PROTO, "credit packet from rank %d returns %llu bytes",
                                  peer, (unsigned long long)h.size);
        break;
    case PKT_PUSH:
        if (len != 0 || h.sreq > INT32_MAX || h.rreq > INT32_MAX || h.size == 0 ||
            h.size > SIZE_MAX / 2 || h.rkey > SIZE_MAX / 2 || h.raddr == 0)
            return common_err_set(CANAL_ERR_PROTO,
                                  "push packet from rank %d: %llu bytes from offset %llu to "
                                  "%#llx, requests %u and %u, %zu bytes of payload",
                                  peer, (unsigned long long)h.size, (unsigned long long)h.rkey,
                                  (unsigned long long)h.raddr, (unsigned)h.sreq,
                                  (unsigned)h.rreq, len);
        break;
    case PKT_WITHDRAW:
        if (len != 0 || h.sreq > INT32_MAX || h.context < 0 || h.context >= ADI_CONTEXT_MAX)
            return common_err_set(CANAL_ERR_PROTO,
                                  "withdraw packet from rank %d: request %u, context %d, %zu "
                                  "bytes of payload",
                                  peer, (unsigned)h.sreq, (int)h.context, len);
        break;
    case PKT_PUSHED:
        if (len != 0 || h.rreq > INT32_MAX || h.size > SIZE_MAX / 2)
            return common_err_set(CANAL_ERR_PROTO,
                                  "pushed packet from rank %d: %llu bytes for request %u, %zu "
                                  "bytes of payload",
                                  peer, (unsigned long long)h.size, (unsigned)h.rreq, len);
        break;
    default: /* CTS, FIN, SYNC_ACK: a request index and nothing else */
        if (len != 0 || h.sreq > INT32_MAX)
            return common_err_set(CANAL_ERR_PROTO,
                                  "control packet of type %u from rank %d: %zu bytes of payload, "
                                  "request %u",
                                  (unsigned)h.type, peer, len, (unsigned)h.sreq);
        break;
    }
    *pkt_out = h;
    return CANAL_OK;
}

/* The receive r, the oldest posted on q that takes the eager or rendezvous
 * message h, is claimed (no longer cancellable: its state changes under
 * q's lock, which this drops) and gets the message. */
static inline void arrive_matched(adi_ctx_queues_t *q, adi_request_t *r, int peer,
                                  const adi_pkt_t *h, const void *payload)
{
    r->state = h->type == PKT_EAGER ? REQ_DONE : REQ_RECV_DATA;
    adi_q_unlock(q);
    if (h->type == PKT_EAGER && r->alloc_buf == NULL && dt_is_contig(r->dt)) {
        /* (what deliver does for it, without its eleven arguments) */
        r->status.source = h->src_rank;
        r->status.tag = h->tag;
        r->size = h->size;
        recv_eager_contig(r, peer, h->flags, h->sreq, h->size, payload);
        return;
    }
    deliver(r, peer, h->type, h->flags, h->src_rank, h->tag, h->size, h->sreq, h->raddr,
            h->rkey, payload);
}

static void arrive_unposted(adi_ctx_queues_t *q, int peer, const adi_pkt_t *h,
                            const void *payload, size_t len);

/* An eager or rendezvous message h (checked) on q, whose lock the caller
 * took and this drops: the oldest posted receive that takes it, or a
 * blocking receive waiting unposted for it, or the unexpected queue. */
static __attribute__((noinline)) void arrive_search(adi_ctx_queues_t *q, int peer,
                                                    const adi_pkt_t *h, const void *payload,
                                                    size_t len)
{
    adi_request_t *r;

    r = req_of(adi_mq_find_posted(&q->posted, h->src_rank, h->tag));
    if (r != NULL) {
        adi_mq_remove(&q->posted, &r->match);
        arrive_matched(q, r, peer, h, payload);
        return;
    }
    arrive_unposted(q, peer, h, payload, len);
}

/* arrive_search's message h that no posted receive takes (q locked; this
 * unlocks it). */
static __attribute__((noinline)) void arrive_unposted(adi_ctx_queues_t *q, int peer,
                                                      const adi_pkt_t *h, const void *payload,
                                                      size_t len)
{
    adi_message_t *m;

    if (__atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) > 0 && adi_ctx_revoked(h->context)) {
        /* No receive will ever be posted here (ULFM). */
        adi_q_unlock(q);
        revoked_drop(peer, h->type, h->flags, h->sreq, h->size);
        return;
    }
    /* A blocking receive waiting unposted for it (a rendezvous request
     * it matches is queued, and ends the waiter). */
    {
        recv_wait_t *w = waiter_claim(q, h->src_rank, h->tag);
        if (w != NULL && h->type == PKT_EAGER) {
            adi_q_unlock(q);
            waiter_fill(w, peer, h, payload);
            return;
        }
    }
    m = msg_get(h->type == PKT_EAGER ? len : 0);
    if (m == NULL) {
        LOG_ERR("out of memory buffering an unexpected message from rank %d", peer);
        abort();
    }
    m->context = h->context;
    m->src_rank = h->src_rank;
    m->tag = h->tag;
    m->peer = peer;
    m->type = h->type;
    m->flags = h->flags;
    m->sreq = h->sreq;
    m->size = h->size;
    m->raddr = h->raddr;
    m->rkey = h->rkey;
    if (h->type == PKT_EAGER && len > 0) {
        common_copy_small(m->data, payload, len);
        unexpected_add(len);
    }
    m->match.extra = m->links;
    adi_mq_add(&q->unexpected, &m->match, h->src_rank, h->tag);
    __atomic_store_n(&q->arrivals, q->arrivals + 1, __ATOMIC_RELEASE);
    adi_q_hwm(&q->unexpected, &q->unexpected_hwm);
    /* (every arrival holds the device lock: no atomic) */
    adi_stat_add_devlocked(&adi_stats.unexpected_msgs, 1);
    adi_q_unlock(q);
}

/* A message of len bytes from peer, counted per channel (device lock held). */
static inline void arrive_count(int peer, size_t len)
{
    int slot = adi_dev.peers[peer].stats_slot;

    adi_stat_add_devlocked(&adi_stats.msgs_recv[slot], 1);
    adi_stat_add_devlocked(&adi_stats.bytes_recv[slot], len);
}

/* The commonest arrival, a tiny-header eager message (adi_pkt_check's
 * checks, inline): 1 when hdr is one and it was taken, 0 for the general
 * path (any other packet). When the head of the posted queue takes it into
 * a contiguous buffer (a window of receives posted in the order their
 * messages come) this is all it costs: no packet built, no search. */
static inline __attribute__((always_inline)) int
arrive_tiny(int peer, int npeers, const void *hdr, size_t hdr_len, const void *payload,
            size_t len)
{
    adi_pkt_t h;
    adi_ctx_queues_t *q;
    adi_mq_entry_t *e;
    adi_request_t *r;

    if (hdr_len != ADI_PKT_TINY || (unsigned)peer >= (unsigned)npeers)
        return 0;
    memcpy(&h, hdr, ADI_PKT_TINY);
    if (h.type != PKT_EAGER || h.flags != 0 || (unsigned)h.context >= ADI_CONTEXT_MAX ||
        h.src_rank < 0)
        return 0;
    if ((q = ctx_get(h.context)) == NULL)
        return 0; /* (adi_on_packet's path says so) */
    arrive_count(peer, len);
    adi_q_lock(q);
    e = adi_mq_first(&q->posted);
    if (__builtin_expect(e != NULL, 1) && (e->src == h.src_rank || e->src == ADI_ANY_SOURCE) &&
        (e->tag == h.tag || e->tag == ADI_ANY_TAG)) {
        r = req_of(e);
        if (__builtin_expect(r->alloc_buf == NULL && dt_is_contig(r->dt), 1)) {
            adi_mq_remove_first(&q->posted, e);
            r->state = REQ_DONE;
            adi_q_unlock(q);
            r->status.source = h.src_rank;
            r->status.tag = h.tag;
            r->size = len;
            recv_eager_contig(r, peer, 0, 0, len, payload);
            return 1;
        }
    }
    /* Nothing posted, and a blocking receive waits unposted for it (the
     * 2-rank ping-pong's MPI_Recv, adi_recv_now): copied into its buffer
     * here, as arrive_unposted would, without that call and the packet's
     * other fields (from the arrival to MPI_Recv's return: doc/bench.md,
     * helper near9). Not after a revocation: arrive_unposted looks. */
    if (e == NULL && q->waiter != NULL && __atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) == 0) {
        recv_wait_t *w = waiter_claim(q, h.src_rank, h.tag);
        if (w != NULL) {
            adi_q_unlock(q);
            /* (flags 0: no synchronous sender to answer) */
            eager_copy_status(w->buf, w->count, w->dt, payload, len, h.src_rank, h.tag,
                              w->st_out, w->size_out);
            eager_released(peer, len);
            w->filled = 1;
            return 1;
        }
    }
    h.sreq = 0;
    h.rreq = 0;
    h.size = len;
    h.raddr = 0;
    h.rkey = 0;
    if (e == NULL)
        arrive_unposted(q, peer, &h, payload, len); /* (nothing posted: no search) */
    else
        arrive_search(q, peer, &h, payload, len);
    return 1;
}

static void on_packet_checked(int peer, int npeers, const void *hdr, size_t hdr_len,
                              const void *payload, size_t len);

void adi_on_packet(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    /* peers of other jobs (MPI_Comm_spawn, connect/accept) come after the job's */
    int npeers = __atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE);

    if (arrive_tiny(peer, npeers, hdr, hdr_len, payload, len))
        return;
    on_packet_checked(peer, npeers, hdr, hdr_len, payload, len);
}

/* Any packet but the tiny eager one arrive_tiny took (out of line: the
 * registers it needs are not saved for that one). */
static __attribute__((noinline)) void on_packet_checked(int peer, int npeers, const void *hdr,
                                                        size_t hdr_len, const void *payload,
                                                        size_t len)
{
    adi_pkt_t h;
    adi_ctx_queues_t *q;
    adi_request_t *r;

    if (adi_pkt_check(peer, npeers, hdr, hdr_len, len, &h) != CANAL_OK) {
        LOG_ERR("dropping a packet: %s", common_err_detail());
        return;
    }
    switch (h.type) {
    case PKT_EAGER:
    case PKT_RTS:
        q = ctx_get(h.context);
        if (q == NULL) {
            LOG_ERR("out of memory for the queues of context %d", h.context);
            return;
        }
        arrive_count(peer, h.size);
        if (h.type == PKT_RTS)
            adi_stat_add_devlocked(&adi_stats.rndv_recv, 1);
        adi_q_lock(q);
        arrive_search(q, peer, &h, payload, len);
        return;
    case PKT_CREDIT:
        /* more credit than the window means the peer returns what it never had */
        if (h.size > adi_dev.peers[peer].window - adi_dev.peers[peer].credit)
            break;
        adi_dev.peers[peer].credit += h.size;
        return;
    case PKT_SYNC_ACK:
        r = req_for_packet(h.sreq, peer, REQ_SEND_WAIT_ACK, -1);
        if (r == NULL)
            break;
        if (h.flags & PKT_FLAG_REVOKED) {
            int context = r->context; /* (r may be gone once finished) */
            r->status.error = CANAL_ERR_REVOKED;
            r->status.bytes = r->size;
            adi_req_finish(r);
            adi_ctx_revoked_by_peer_locked(context);
            return;
        }
        r->status.bytes = r->size;
        adi_req_finish(r);
        return;
    case PKT_FIN:
        r = req_for_packet(h.sreq, peer, REQ_SEND_WAIT_CTS, -1);
        if (r == NULL)
            break;
        if (r->rkey != UINT64_MAX)
            ch_mem_deregister(adi_dev.peers[peer].ch, r->rkey);
        if (h.flags & PKT_FLAG_REVOKED) {
            int context = r->context; /* (r may be gone once finished) */
            r->status.error = CANAL_ERR_REVOKED;
            r->status.bytes = r->size;
            adi_req_finish(r);
            adi_ctx_revoked_by_peer_locked(context);
            return;
        }
        r->status.bytes = r->size;
        adi_req_finish(r);
        return;
    case PKT_CTS:
        r = req_for_packet(h.sreq, peer, REQ_SEND_WAIT_CTS, -1);
        if (r == NULL)
            break;
        if (r->rkey != UINT64_MAX) {
            ch_mem_deregister(adi_dev.peers[peer].ch, r->rkey);
            r->rkey = UINT64_MAX;
        }
        r->peer_req = h.rreq;
        r->proto = PROTO_DATA;
        r->state = REQ_SEND_DATA;
        sq_append(peer, r);
        return;
    case PKT_PUSH:
        rndv_push(peer, req_for_packet(h.sreq, peer, REQ_SEND_WAIT_CTS, -1), &h);
        return;
    case PKT_WITHDRAW:
        rts_withdrawn(peer, &h);
        return;
    case PKT_WITHDRAWN:
        /* (the send may have ended already: its FIN came first) */
        r = req_for_packet(h.sreq, peer, REQ_SEND_WAIT_CTS, REQ_SEND_DATA);
        if (r != NULL)
            __atomic_store_n(&r->withdrawing, 0, __ATOMIC_RELEASE);
        return;
    case PKT_PUSHED:
        r = req_for_packet(h.rreq, peer, REQ_RECV_HALF, REQ_RECV_DATA);
        if (r == NULL && h.size == 0 && h.flags == 0)
            return; /* (a finalizing sender's: its final word ended r, offer_final) */
        if (r == NULL)
            break;
        if (r->state == REQ_RECV_DATA)
            return; /* our pull failed and we asked for DATA: it brings every byte */
        rndv_pushed(r, peer, &h);
        return;
    case PKT_DATA:
        r = req_for_packet(h.rreq, peer, REQ_RECV_DATA, -1);
        if (r != NULL && (h.flags & PKT_FLAG_DROPPED) && len == 0) {
            recv_dropped(r, peer);
            recv_done(r);
            return;
        }
        /* in order, and not past the end of the message the RTS announced */
        if (r == NULL || h.raddr != r->offset || len > r->size - r->offset)
            break;
        recv_put(r, payload, len);
        if (r->offset >= r->size)
            recv_done(r);
        return;
    default:
        break;
    }
    LOG_ERR("dropping an unexpected packet of type %d from rank %d", h.type, peer);
}

void adi_on_rdma_done(void *cookie, canal_status_t st)
{
    adi_request_t *r = cookie;
    if (st < 0 && adi_dev.peers[r->peer].failed) {
        req_fail(r, r->peer, CANAL_ERR_PEER);
        return;
    }
    if (st < 0) {
        rndv_read_failed(r, r->peer, st); /* (ask for the data instead) */
        return;
    }
    send_fin_like(r->peer, PKT_FIN, r->peer_req);
    adi_stat_add(&adi_stats.rndv_pulled, 1);
    recv_done(r);
}

/* ---------------------------------------------------------------- failures */
/* Take r out of its posted queue, if it is still there, and fail it. */
static void posted_fail(adi_ctx_queues_t *q, adi_request_t *r, int peer, canal_status_t st)
{
    int took = 0;

    adi_lock();
    adi_q_lock(q);
    if (r->state == REQ_RECV_POSTED) {
        adi_mq_remove(&q->posted, &r->match);
        r->state = REQ_IDLE;
        took = 1;
    }
    adi_q_unlock(q);
    if (took) {
        if (r->rank >= 0)
            r->status.source = r->rank;
        req_fail(r, peer, st);
    }
    adi_unlock();
}

/* Requests that wait for an answer of `peer` and sit in no queue. */
static void waiting_fail(adi_request_t *r, void *arg)
{
    int peer = *(int *)arg;

    if (r->peer != peer)
        return;
    if (r->state == REQ_SEND_WAIT_ACK || r->state == REQ_SEND_WAIT_CTS ||
        r->state == REQ_RECV_DATA || r->state == REQ_RECV_HALF)
        req_fail(r, peer, CANAL_ERR_PEER);
    /* (REQ_RECV_RDMA ends through adi_on_rdma_done, which the channel
     * still calls; REQ_SEND_DATA sits in the send queue.) */
}

/* Posted receives that wait for a failed peer or sit on a revoked context:
 * out of their queues under each context's lock, failed after it is
 * dropped (completion calls out). */
static void posted_fail_ctx(adi_ctx_queues_t *q, int context, void *arg)
{
    common_list_t fail = {0}; /* (through sendq: unused by receives) */
    adi_request_t *r;
    adi_mq_entry_t *e, *enext;
    int peer = -1;
    canal_status_t fst;

    (void)arg;
    adi_q_lock(q);
    for (e = adi_mq_first(&q->posted); e != NULL; e = enext) {
        enext = adi_mq_next(e);
        r = req_of(e);
        fst = adi_ctx_src_failed(context, r->rank, r->tag, &peer);
        if (fst >= 0 || fst == CANAL_ERR_PEER_PENDING)
            continue; /* (any-source: stays posted, ULFM) */
        r->status.error = fst;
        adi_mq_remove(&q->posted, &r->match);
        r->state = REQ_IDLE;
        r->peer = peer;
        common_list_push_back(&fail, &r->sendq);
    }
    adi_q_unlock(q);
    while (!common_list_empty(&fail)) {
        r = common_list_entry(fail.head, adi_request_t, sendq);
        common_list_remove(&fail, &r->sendq);
        if (r->rank >= 0)
            r->status.source = r->rank;
        req_fail(r, r->peer, r->status.error);
    }
}

void adi_posted_fail_all(void) { ctx_for_each(posted_fail_ctx, NULL); }

/* Sends on a revoked context: those not transmitted fail now; those that
 * wait for the receiver's answer report the revocation when it comes (the
 * receiver answers every message of a revoked context: revoked_drop). */
static void revoked_send(adi_request_t *r, void *arg)
{
    int context = *(int *)arg;

    if (r->kind != ADI_REQ_SEND || r->context != context || r->status.error != 0)
        return;
    if (r->state == REQ_SEND_WAIT_ACK || r->state == REQ_SEND_WAIT_CTS) {
        r->status.error = CANAL_ERR_REVOKED;
    } else if (r->state == REQ_SEND_QUEUED && r->in_queue &&
               (r->proto == PROTO_EAGER || r->proto == PROTO_RTS)) {
        adi_peer_t *p = &adi_dev.peers[r->peer];
        common_list_remove(&p->sendq, &r->sendq); /* (in_queue: r is on it) */
        r->in_queue = 0;
        if (r->proto == PROTO_EAGER) /* (its credit was taken when it was queued) */
            p->credit += r->size + ADI_EAGER_COST;
        if (r->proto == PROTO_RTS && r->rkey != UINT64_MAX) {
            ch_mem_deregister(p->ch, r->rkey);
            r->rkey = UINT64_MAX;
        }
        r->status.error = CANAL_ERR_REVOKED;
        adi_req_finish(r);
    }
}

void adi_revoked_sweep(int context)
{
    adi_ctx_queues_t *q = adi_ctx(context);
    adi_message_t *drop = NULL, *m, *next;

    if (q != NULL) {
        adi_q_lock(q);
        while (adi_mq_first(&q->unexpected) != NULL) {
            m = msg_of(adi_mq_first(&q->unexpected));
            adi_mq_remove(&q->unexpected, &m->match);
            m->match.qlink.next = (common_link_t *)drop; /* (out of the queue: a free link) */
            drop = m;
        }
        adi_q_unlock(q);
    }
    for (m = drop; m != NULL; m = next) {
        next = (adi_message_t *)m->match.qlink.next;
        unexpected_sub(m);
        revoked_drop(m->peer, m->type, m->flags, m->sreq, m->size);
        adi_msg_free(m);
    }
    adi_request_each_live(revoked_send, &context);
}

/* Called by a channel (from its progress, device lock held) once per lost
 * peer. Every request involving the peer completes with CANAL_ERR_PEER:
 * under MPI_ERRORS_ARE_FATAL the error handler then ends the job naming
 * the peer, under MPI_ERRORS_RETURN the caller gets the error. Eager sends
 * that completed before the loss cannot be recalled: their receivers see
 * the loss from their side. */
void adi_on_peer_failed(int peer, canal_status_t st)
{
    adi_peer_t *p;
    common_list_t sendq;
    adi_request_t *r;

    if (peer < 0 || peer >= __atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE))
        return;
    p = &adi_dev.peers[peer];
    if (p->failed)
        return;
    (void)st;
    {
        /* The channel's detail says how (it set it before calling us); it
         * becomes the detail of the errors raised from here on. */
        char how[200];
        snprintf(how, sizeof how, "%s", common_err_detail());
        if (peer < adi_dev.size) {
            LOG_ERR("lost rank %d (%s): the requests that involve it fail", peer, how);
            common_err_set(CANAL_ERR_PEER, "rank %d of MPI_COMM_WORLD failed: %s", peer, how);
        } else {
            LOG_ERR("lost the process of another job (peer %d: %s): the requests that involve "
                    "it fail",
                    peer, how);
            common_err_set(CANAL_ERR_PEER, "a process of another job (peer %d) failed: %s", peer,
                           how);
        }
    }
    /* Flag first, then look: a receive posted meanwhile sees the flag
     * (adi_irecv_into) or is found in its queue here. */
    __atomic_store_n(&p->failed, __atomic_add_fetch(&adi_dev.nfailed, 1, __ATOMIC_SEQ_CST),
                     __ATOMIC_SEQ_CST); /* (nonzero, and the order of the losses) */
    __atomic_add_fetch(&adi_nlost, 1, __ATOMIC_SEQ_CST);
    /* The queue is taken whole first, as before: a send queued meanwhile by
     * a completion's call-back is not failed by this walk. */
    sendq = p->sendq;
    p->sendq = (common_list_t){0};
    while (!common_list_empty(&sendq)) {
        r = common_list_entry(sendq.head, adi_request_t, sendq);
        common_list_remove(&sendq, &r->sendq);
        r->in_queue = 0;
        req_fail(r, peer, CANAL_ERR_PEER);
    }
    adi_request_each_live(waiting_fail, &peer);
    adi_posted_fail_all();
}

/* adi_send_now for the n messages of one rooted collective call: one
 * header (tag, context, the sender's rank) and one look at the state that
 * does not depend on the peer (the revoked context), then per message the
 * peer's own test of send_now (its eager limit, credit, a send queued
 * before it, lost) and the channel's send; no request, no call per
 * message (send_now's frame was half of its ~95 instructions). A message
 * that cannot go at once is left unsent (sent 0) for the caller's request;
 * the messages go to different peers, so none overtakes another's. */
int adi_send_now_each(adi_each_msg_t *m, int n, int my_rank, int tag, int context)
{
    unsigned npeers = (unsigned)__atomic_load_n(&adi_dev.npeers, __ATOMIC_ACQUIRE);
    adi_pkt_t h;
    struct iovec iov[2];
    int sent = 0;

    adi_lock();
    if (__atomic_load_n(&adi_nrevoked, __ATOMIC_RELAXED) > 0 && adi_ctx_revoked(context)) {
        for (int i = 0; i < n; i++)
            m[i].sent = 0;
        goto out;
    }
    h.type = PKT_EAGER;
    h.flags = 0;
    h.reserved = 0;
    h.context = context;
    h.src_rank = my_rank;
    h.tag = tag;
    iov[0].iov_base = &h;
    iov[0].iov_len = ADI_PKT_TINY;
    for (int i = 0; i < n; i++) {
        adi_peer_t *p;
        size_t size = m[i].size, cost = size + ADI_EAGER_COST;
        m[i].sent = 0;
        if ((unsigned)m[i].dest >= npeers || size == 0)
            continue;
        p = &adi_dev.peers[m[i].dest];
        if (size > __atomic_load_n(&p->eager_limit, __ATOMIC_RELAXED) || p->credit < cost ||
            p->failed || !common_list_empty(&p->sendq))
            continue;
        iov[1].iov_base = (void *)m[i].buf;
        iov[1].iov_len = size;
        /* (credit taken before the channel's call, as send_now's) */
        p->credit -= cost;
        if (__builtin_expect(ch_sendv(p->ch, m[i].dest, iov, 2) != CANAL_OK, 0)) {
            p->credit += cost; /* (the ring is full: the request's path) */
            continue;
        }
        adi_stat_add_devlocked(&adi_stats.msgs_sent[p->stats_slot], 1);
        adi_stat_add_devlocked(&adi_stats.bytes_sent[p->stats_slot], size);
        if (p->needs_wake)
            ch_wake(p->ch, m[i].dest);
        m[i].sent = 1;
        sent++;
    }
out:
    adi_unlock();
    return sent;
}
