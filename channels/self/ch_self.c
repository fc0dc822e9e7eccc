/*
 * The self channel: packets a process sends to itself. sendv copies the
 * packet into a queue that progress() delivers, so sends to self behave like
 * any other (ordering, unexpected messages, rendezvous); rdma_read is a
 * memcpy within the process, so large self-messages are single copy.
 */
#include "channels/channel.h"

#include <stdlib.h>
#include <string.h>

typedef struct self_pkt {
    struct self_pkt *next;
    size_t hdr_len, len;
    unsigned char data[]; /* header then payload */
} self_pkt_t;

static const ch_upcalls_t *self_up;
static int self_rank;
static self_pkt_t *q_head, *q_tail;

static canal_status_t self_init(const pmi_info_t *pmi, const ch_upcalls_t *up, ch_caps_t *caps)
{
    self_up = up;
    self_rank = pmi->rank;
    caps->max_payload = (size_t)1 << 62;
    caps->has_rdma = 1;
    caps->local_only = 1;
    return CANAL_OK;
}

static canal_status_t self_finalize(void)
{
    while (q_head != NULL) {
        self_pkt_t *p = q_head;
        q_head = p->next;
        free(p);
    }
    q_tail = NULL;
    return CANAL_OK;
}

static int self_reaches(int peer) { return peer == self_rank; }

static canal_status_t self_sendv(int peer, const struct iovec *iov, int n)
{
    size_t total = 0, off = 0;
    self_pkt_t *p;

    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    p = malloc(sizeof *p + total);
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
    if (q_tail)
        q_tail->next = p;
    else
        q_head = p;
    q_tail = p;
    return CANAL_OK;
}

static int self_progress(void)
{
    int n = 0;
    /* Only what is queued now: packets sent by the callbacks wait a round. */
    self_pkt_t *p = q_head, *end = q_tail;

    if (p == NULL)
        return 0;
    q_head = q_tail = NULL;
    for (;;) {
        self_pkt_t *next = p->next;
        int last = p == end;
        self_up->on_packet(self_rank, p->data, p->hdr_len, p->data + p->hdr_len, p->len);
        free(p);
        n++;
        if (last)
            break;
        p = next;
    }
    return n;
}

static canal_status_t self_mem_register(const void *buf, size_t len, uint64_t *key_out)
{
    *key_out = 0;
    return CANAL_OK;
}

static canal_status_t self_rdma_read(int peer, void *dst, uint64_t raddr, uint64_t rkey,
                                     size_t len, void *cookie)
{
    memmove(dst, (const void *)(uintptr_t)raddr, len);
    return CANAL_OK;
}

const ch_ops_t ch_self_ops = {
    .name = "self",
    .init = self_init,
    .finalize = self_finalize,
    .reaches = self_reaches,
    .sendv = self_sendv,
    .progress = self_progress,
    .mem_register = self_mem_register,
    .rdma_read = self_rdma_read,
};
