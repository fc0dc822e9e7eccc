/*
 * The self channel: packets a process sends to itself. sendv copies the
 * packet into a queue that progress() delivers, so sends to self behave like
 * any other (ordering, unexpected messages, rendezvous); rdma_read is a
 * memcpy within the process, so large self-messages are single copy.
 * Its state (the queue) is the endpoint's, like every channel's.
 * Delivered packets of at most SELF_SPARE_CAP bytes are kept on a spare
 * list (at most SELF_SPARE_BYTES in all) for the next sends, so that a
 * steady stream of small messages to itself allocates nothing (a malloc
 * and free per message were 129 of bench/insn_loop's 1256 instructions);
 * finalize frees them.
 */
#include "channels/channel.h"

#include <stdlib.h>
#include <string.h>

/* Spare packets: each holds at least SELF_SPARE_MIN bytes, so that one
 * serves any small message; the list holds at most SELF_SPARE_BYTES. */
enum { SELF_SPARE_MIN = 256, SELF_SPARE_CAP = 4096, SELF_SPARE_BYTES = 64 * 1024 };

typedef struct self_pkt {
    struct self_pkt *next;
    size_t hdr_len, len;
    size_t cap; /* bytes data[] holds */
    unsigned char data[]; /* header then payload */
} self_pkt_t;

typedef struct {
    ch_upcalls_t up;
    int rank;
    self_pkt_t *q_head, *q_tail;
    self_pkt_t *spare; /* delivered packets kept for the next sends */
    size_t spare_bytes;
} self_state_t;

/* A packet for total bytes: the first spare when it is large enough. */
static self_pkt_t *pkt_take(self_state_t *st, size_t total)
{
    self_pkt_t *p = st->spare;
    size_t cap;

    if (p != NULL && p->cap >= total) {
        st->spare = p->next;
        st->spare_bytes -= p->cap;
        return p;
    }
    cap = total < SELF_SPARE_MIN ? SELF_SPARE_MIN : total;
    p = malloc(sizeof *p + cap);
    if (p != NULL)
        p->cap = cap;
    return p;
}

static void pkt_put(self_state_t *st, self_pkt_t *p)
{
    if (p->cap > SELF_SPARE_CAP || st->spare_bytes + p->cap > SELF_SPARE_BYTES) {
        free(p);
        return;
    }
    p->next = st->spare;
    st->spare = p;
    st->spare_bytes += p->cap;
}

static void pkt_free_list(self_pkt_t *p)
{
    while (p != NULL) {
        self_pkt_t *next = p->next;
        free(p);
        p = next;
    }
}

static canal_status_t self_init(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                                ch_caps_t *caps)
{
    self_state_t *st = ep->state;

    if (pmi == NULL || up == NULL || up->on_packet == NULL || caps == NULL)
        return common_err_set(CANAL_ERR_ARG, "self init: a NULL argument");
    st->up = *up;
    st->rank = pmi->rank;
    caps->max_payload = (size_t)1 << 62;
    caps->has_rdma = 1;
    caps->rdma_read_sync = 1; /* (memmove) */
    caps->local_only = 1;
    caps->block_wakes_fast = 0;
    caps->can_block = 0;
    caps->has_dyn = 0;
    return CANAL_OK;
}

static canal_status_t self_finalize(ch_endpoint_t *ep)
{
    self_state_t *st = ep->state;

    pkt_free_list(st->q_head);
    st->q_head = st->q_tail = NULL;
    pkt_free_list(st->spare);
    st->spare = NULL;
    st->spare_bytes = 0;
    return CANAL_OK;
}

static int self_reaches(ch_endpoint_t *ep, int peer)
{
    return peer == ((self_state_t *)ep->state)->rank;
}

static canal_status_t self_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    self_state_t *st = ep->state;
    size_t total = 0, off = 0;
    self_pkt_t *p;

    (void)peer;

    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    p = pkt_take(st, total);
    if (p == NULL)
        return CANAL_AGAIN;
    for (int i = 0; i < n; i++) {
        if (iov[i].iov_len)
            memcpy(p->data + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    p->hdr_len = iov[0].iov_len;
    p->len = total - p->hdr_len;
    p->next = NULL;
    if (st->q_tail)
        st->q_tail->next = p;
    else
        st->q_head = p;
    st->q_tail = p;
    return CANAL_OK;
}

/* The packets queued, delivered (self_progress). Out of line: the empty
 * poll, every poll of a rank that sends nothing to itself, then saves no
 * registers (about 12 instructions a poll, doc/bench.md, helper near11). */
static __attribute__((noinline)) int self_deliver(self_state_t *st)
{
    int n = 0;
    /* Only what is queued now: packets sent by the callbacks wait a round. */
    self_pkt_t *p = st->q_head, *end = st->q_tail;

    st->q_head = st->q_tail = NULL;
    for (;;) {
        self_pkt_t *next = p->next;
        int last = p == end;
        st->up.on_packet(st->rank, p->data, p->hdr_len, p->data + p->hdr_len, p->len);
        pkt_put(st, p);
        n++;
        if (last)
            break;
        p = next;
    }
    return n;
}

static int self_progress(ch_endpoint_t *ep)
{
    self_state_t *st = ep->state;

    return st->q_head == NULL ? 0 : self_deliver(st);
}

static canal_status_t self_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                        uint64_t *key_out)
{
    (void)ep, (void)buf, (void)len;
    *key_out = 0;
    return CANAL_OK;
}

static canal_status_t self_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                     uint64_t rkey, size_t len, void *cookie)
{
    (void)ep, (void)peer, (void)rkey, (void)cookie;
    memmove(dst, (const void *)(uintptr_t)raddr, len);
    return CANAL_OK;
}

const ch_ops_t ch_self_ops = {
    .name = "self",
    .state_size = sizeof(self_state_t),
    .remote_worth = ch_no_remote_worth,
    .init = self_init,
    .post_fence = ch_no_post_fence,
    .finalize = self_finalize,
    .reaches = self_reaches,
    .sendv = self_sendv,
    .sendv_turn = ch_no_sendv_turn,
    .progress = self_progress,
    .mem_register = self_mem_register,
    .mem_deregister = ch_no_mem_deregister,
    .rdma_read = self_rdma_read,
    .rdma_readv = ch_no_rdma_readv,
    .rdma_read_batch = ch_no_rdma_read_batch,
    .rdma_write = ch_no_rdma_write,
    .block = ch_no_block,
    .wake = ch_no_wake,
    .flush = ch_no_flush,
    .describe = ch_no_describe,
    .eager_hint = ch_no_eager_hint,
    .dyn_open = ch_no_dyn_open,
    .dyn_card = ch_no_dyn_card,
    .dyn_peer_add = ch_no_dyn_peer_add,
};
