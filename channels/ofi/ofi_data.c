/*
 * The ofi channel's data path: sendv() into a registered bounce buffer, the
 * completion queue, progress() delivering arrivals in per-pair order, and
 * rdma_read() with fi_read. Called by the device through ch_ofi_ops.
 *
 * Back-pressure: sendv() never waits. When the bounce pool is empty or the
 * provider answers FI_EAGAIN, it reads the completion queue once (which may
 * return buffers, and lets manual-progress providers move) and returns
 * CANAL_AGAIN; the device retries after its next progress().
 *
 * Up-calls happen only in progress(): ch_ofi_cq_drive(), which sendv() also
 * uses, only queues what completed (arrivals, finished reads, failed peers)
 * so that the device is never re-entered from inside its own sendv().
 */
#include "channels/ofi/ofi_impl.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/proc.h"

static canal_status_t check_peer(ofi_state_t *st, int peer, const char *what)
{
    if (!st->ready)
        return common_err_set(CANAL_ERR_INTERN, "ofi %s: used before post_fence() or after "
                              "finalize()", what);
    if (peer < 0 || peer >= st->size)
        return common_err_set(CANAL_ERR_ARG, "ofi %s: peer rank %d outside 0..%d", what, peer,
                              st->size - 1);
    if (!st->peers[peer].reachable)
        return common_err_set(CANAL_ERR_PEER, "ofi %s: rank %d is not reachable over %s: %s", what,
                              peer, st->prov, ch_ofi_unreach_reason(st, peer));
    if (st->peers[peer].failed)
        return common_err_set(CANAL_ERR_PEER, "ofi %s: the connection to rank %d failed earlier",
                              what, peer);
    return CANAL_OK;
}

/* ---- receive buffers ------------------------------------------------------ */

canal_status_t ch_ofi_rx_post(ofi_state_t *st, ofi_rxbuf_t *b)
{
    ssize_t rc = fi_recv(st->ep, b->data, st->buf_size, st->rx_mr != NULL ? st->rx_mr->desc : NULL,
                         FI_ADDR_UNSPEC, &b->op.ctx);
    if (rc == 0) {
        st->rx_posted++;
        return CANAL_OK;
    }
    if (rc == -FI_EAGAIN) {
        b->next = st->repost;
        st->repost = b;
        return CANAL_AGAIN;
    }
    return common_err_set(CANAL_ERR_IO, "ofi: fi_recv(%s): %s", st->prov, ch_ofi_err((int)rc));
}

static canal_status_t rx_repost_waiting(ofi_state_t *st)
{
    ofi_rxbuf_t *list = st->repost;
    canal_status_t err = CANAL_OK;

    st->repost = NULL;
    while (list != NULL) {
        ofi_rxbuf_t *b = list;
        list = b->next;
        if (err < 0) { /* keep the rest for later */
            b->next = st->repost;
            st->repost = b;
            continue;
        }
        canal_status_t e = ch_ofi_rx_post(st, b);
        if (e < 0)
            err = e;
    }
    return err;
}

/* ---- RDMA reads ---------------------------------------------------------- */

static void rma_finish(ofi_state_t *st, ofi_rma_t *r)
{
    r->next = NULL;
    if (st->rma_done_tail != NULL)
        st->rma_done_tail->next = r;
    else
        st->rma_done = r;
    st->rma_done_tail = r;
}

/* Post the next piece of r; CANAL_AGAIN queues it for progress(). */
static canal_status_t rma_post(ofi_state_t *st, ofi_rma_t *r)
{
    size_t piece = r->len - r->posted < st->rma_max ? r->len - r->posted : st->rma_max;
    ssize_t rc = -FI_EAGAIN;

    if (st->tx_inflight + st->rma_posted < st->tx_cap)
        rc = fi_read(st->ep, r->dst + r->posted, piece, r->dst_mr != NULL ? r->dst_mr->desc : NULL,
                     st->peers[r->peer].addr, r->addr + r->posted, r->key, &r->op.ctx);
    if (rc == 0) {
        r->piece = piece;
        st->rma_posted++;
        return CANAL_OK;
    }
    if (rc == -FI_EAGAIN) {
        r->next = st->rma_wait;
        st->rma_wait = r;
        return CANAL_AGAIN;
    }
    return common_err_set(CANAL_ERR_IO, "ofi: fi_read of %zu bytes from rank %d: %s", piece,
                          r->peer, ch_ofi_err((int)rc));
}

static void rma_fail(ofi_state_t *st, ofi_rma_t *r, canal_status_t err)
{
    r->st = err;
    snprintf(r->why, sizeof r->why, "%s", common_err_detail());
    rma_finish(st, r);
}

static void rma_retry_waiting(ofi_state_t *st)
{
    ofi_rma_t *list = st->rma_wait;

    st->rma_wait = NULL;
    while (list != NULL) {
        ofi_rma_t *r = list;
        canal_status_t e;
        list = r->next;
        e = rma_post(st, r);
        if (e < 0)
            rma_fail(st, r, e);
    }
}

canal_status_t ch_ofi_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                uint64_t rkey, size_t len, void *cookie)
{
    ofi_state_t *st = ep->state;
    canal_status_t err;
    uint64_t addr = raddr;
    ofi_rma_t *r;

    if ((err = check_peer(st, peer, "rdma_read")) != CANAL_OK)
        return err;
    if (!st->has_rma)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "ofi: provider %s has no RMA reads here",
                              st->prov);
    if (dst == NULL)
        return common_err_set(CANAL_ERR_ARG, "ofi rdma_read: dst is NULL");
    if (len == 0)
        return CANAL_OK;
    if (raddr + len < raddr)
        return common_err_set(CANAL_ERR_ARG, "ofi rdma_read: remote range 0x%llx + %zu wraps",
                              (unsigned long long)raddr, len);
    if (!st->mr_virt) {
        /* The provider addresses registrations from 0: the key carries the
         * registration's base (ofi_mr.c). */
        uint64_t base = ch_ofi_mr_key_base(rkey);
        if (raddr < base)
            return common_err_set(CANAL_ERR_ARG, "ofi rdma_read: address 0x%llx lies below the "
                                  "registration of key 0x%llx", (unsigned long long)raddr,
                                  (unsigned long long)rkey);
        addr = raddr - base;
    }
    if ((r = calloc(1, sizeof *r)) == NULL)
        return common_err_set(CANAL_ERR_NOMEM, "ofi rdma_read: operation");
    r->op.kind = OFI_OP_RMA;
    r->peer = peer;
    r->dst = dst;
    r->addr = addr;
    r->key = rkey;
    r->len = len;
    r->cookie = cookie;
    if (st->mr_local && (err = ch_ofi_mr_get(st, dst, len, FI_READ, &r->dst_mr)) != CANAL_OK) {
        free(r);
        return err;
    }
    err = rma_post(st, r);
    if (err < 0) {
        if (r->dst_mr != NULL)
            ch_ofi_mr_put(st, r->dst_mr, NULL, NULL);
        free(r);
        return err;
    }
    st->rma_inflight++;
    return CANAL_INPROGRESS;
}

/* ---- the completion queue -------------------------------------------------- */

static void peer_fail(ofi_state_t *st, int peer, canal_status_t err)
{
    ofi_peer_t *p = &st->peers[peer];
    if (!p->failed) {
        p->failed = 1;
        p->fail_pending = 1;
        p->fail_st = err;
        st->fail_pending = 1;
    }
}

static void complete(ofi_state_t *st, const struct fi_cq_data_entry *e)
{
    ofi_op_t *op = e->op_context;

    if (op == NULL) {
        /* Only operations we posted, each with its context, can complete. */
        LOG_ERR("ofi: %s reported a completion without an operation (flags 0x%llx)", st->prov,
                (unsigned long long)e->flags);
        return;
    }
    switch (op->kind) {
    case OFI_OP_TX: {
        ofi_txbuf_t *b = (ofi_txbuf_t *)op;
        b->next = st->tx_free;
        st->tx_free = b;
        st->tx_inflight--;
        st->peers[b->peer].tx_inflight--;
        st->peers[b->peer].connected = 1;
        st->tx_completions++;
        break;
    }
    case OFI_OP_RX: {
        ofi_rxbuf_t *b = (ofi_rxbuf_t *)op;
        st->rx_completions++;
        b->got = e->len;
        b->next = NULL;
        if (st->arrived_tail != NULL)
            st->arrived_tail->next = b;
        else
            st->arrived = b;
        st->arrived_tail = b;
        st->rx_posted--;
        break;
    }
    case OFI_OP_RMA: {
        ofi_rma_t *r = (ofi_rma_t *)op;
        canal_status_t err;
        st->rma_posted--;
        r->posted += r->piece;
        r->piece = 0;
        if (r->posted < r->len) {
            if ((err = rma_post(st, r)) < 0)
                rma_fail(st, r, err);
        } else {
            r->st = CANAL_OK;
            rma_finish(st, r);
        }
        break;
    }
    }
}

static canal_status_t complete_error(ofi_state_t *st)
{
    struct fi_cq_err_entry e;
    char detail[128] = "";
    ofi_op_t *op;
    ssize_t rc;

    memset(&e, 0, sizeof e);
    rc = fi_cq_readerr(st->cq, &e, 0);
    if (rc == -FI_EAGAIN)
        return CANAL_OK;
    if (rc < 0)
        return common_err_set(CANAL_ERR_IO, "ofi: fi_cq_readerr(%s): %s", st->prov,
                              ch_ofi_err((int)rc));
    fi_cq_strerror(st->cq, e.prov_errno, e.err_data, detail, sizeof detail);
    st->cq_errors++;
    op = e.op_context;
    snprintf(st->last_cq_err, sizeof st->last_cq_err, "%s: %s (%s)",
             op == NULL                ? "no operation"
             : op->kind == OFI_OP_TX   ? "a send"
             : op->kind == OFI_OP_RX   ? "a receive"
                                       : "a read",
             ch_ofi_err(e.err), detail);
    if (op == NULL)
        return common_err_set(CANAL_ERR_IO,
                              "ofi: %s reported an error without an operation: "
                              "%s (%s)",
                              st->prov, ch_ofi_err(e.err), detail);
    switch (op->kind) {
    case OFI_OP_TX: {
        ofi_txbuf_t *b = (ofi_txbuf_t *)op;
        b->next = st->tx_free;
        st->tx_free = b;
        st->tx_inflight--;
        st->peers[b->peer].tx_inflight--;
        LOG_ERR("ofi: a send to rank %d failed in %s: %s (%s)", b->peer, st->prov,
                ch_ofi_err(e.err), detail);
        peer_fail(st, b->peer, CANAL_ERR_PEER);
        return CANAL_OK;
    }
    case OFI_OP_RX: {
        ofi_rxbuf_t *b = (ofi_rxbuf_t *)op;
        st->rx_posted--;
        if (e.err == FI_ECANCELED)
            return CANAL_OK; /* endpoint closing */
        ch_ofi_rx_post(st, b);
        return common_err_set(e.err == FI_ETRUNC ? CANAL_ERR_PROTO : CANAL_ERR_IO,
                              "ofi: a receive failed in %s: %s (%s)%s", st->prov, ch_ofi_err(e.err),
                              detail,
                              e.err == FI_ETRUNC ? "; a peer sent more than "
                                                   "CANAL_OFI_MAX_PAYLOAD allows"
                                                 : "");
    }
    case OFI_OP_RMA: {
        ofi_rma_t *r = (ofi_rma_t *)op;
        st->rma_posted--;
        canal_status_t code = e.err == FI_EINVAL || e.err == FI_EACCES || e.err == FI_EFAULT ||
                                      e.err == FI_EKEYREJECTED || e.err == FI_ENOKEY
                                  ? CANAL_ERR_ARG
                                  : CANAL_ERR_PEER;
        common_err_set(code,
                       "ofi: reading %zu bytes from rank %d (key 0x%llx) failed in %s: "
                       "%s (%s)",
                       r->len, r->peer, (unsigned long long)r->key, st->prov, ch_ofi_err(e.err),
                       detail);
        rma_fail(st, r, code);
        return CANAL_OK;
    }
    }
    return CANAL_OK;
}

canal_status_t ch_ofi_cq_drive(ofi_state_t *st)
{
    struct fi_cq_data_entry ent[16];
    canal_status_t err = CANAL_OK;

    /* A bounded number of batches: a busy peer must not keep us here. */
    for (int round = 0; round < 8; round++) {
        ssize_t n = fi_cq_read(st->cq, ent, 16);
        if (n == -FI_EAGAIN)
            break;
        if (n == -FI_EAVAIL) {
            canal_status_t e = complete_error(st);
            if (e < 0 && err == CANAL_OK)
                err = e;
            continue;
        }
        if (n < 0)
            return common_err_set(CANAL_ERR_IO, "ofi: fi_cq_read(%s): %s", st->prov,
                                  ch_ofi_err((int)n));
        for (ssize_t i = 0; i < n; i++)
            complete(st, &ent[i]);
        if (n < 16)
            break;
    }
    return err;
}

/* Sends still waiting for a peer that has not failed. */
static int tx_pending_live(ofi_state_t *st)
{
    int n = 0;
    if (st->tx_inflight == 0)
        return 0;
    for (int r = 0; r < st->size; r++)
        if (!st->peers[r].failed)
            n += st->peers[r].tx_inflight;
    return n;
}

/* CANAL_OK once every packet sendv() accepted has completed, that is
 * reached the peer (the default completion level of reliable endpoints),
 * except those to peers that failed. With manual-progress providers a
 * packet leaves only while someone polls: the device polls until this says
 * CANAL_OK before the fence of its finalize. */
/* The device calls flush() only in MPI_Finalize, before its fence: the
 * first call tells every peer connected to us that this rank is leaving
 * (BYE), so that none of them reports it lost while it waits in the fence
 * (it no longer progresses) or after it exited (a finalize that skipped the
 * fence after a failure). Peers never connected get no BYE (it would open a
 * connection per peer); probe_refused() finds them alive on this node. */
static ssize_t bare_send(ofi_state_t *st, int peer, uint16_t magic);

static void bye_send(ofi_state_t *st)
{
    st->bye_sent = 1;
    for (int r = 0; r < st->size; r++) {
        const ofi_peer_t *p = &st->peers[r];
        if (r == st->rank || !p->reachable || p->failed || !p->connected)
            continue;
        if (bare_send(st, r, OFI_WIRE_BYE) == 0)
            st->byes++;
        else
            LOG_DEBUG("ofi: no BYE to rank %d (no buffer, or the provider refused it)", r);
    }
}

canal_status_t ch_ofi_flush(ch_endpoint_t *ep)
{
    ofi_state_t *st = ep->state;
    if (!st->ready)
        return CANAL_OK;
    if (!st->bye_sent)
        bye_send(st);
    return tx_pending_live(st) > 0 ? CANAL_AGAIN : CANAL_OK;
}

/* Sleep until the completion queue may have something or timeout_us
 * passes. fi_trywait() says whether sleeping on the CQ's descriptor is
 * safe now (nothing already completed or needing a poll to move). Without
 * a descriptor, return at once: the device then yields instead. */
canal_status_t ch_ofi_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                            void *arg)
{
    ofi_state_t *st = ep->state;
    struct fid *fids[1];
    struct pollfd pfd;
    int ms, n;

    if (!st->ready)
        return common_err_set(CANAL_ERR_INTERN, "ofi block: used before post_fence()");
    if (timeout_us == 0 || st->arrived != NULL || st->rma_done != NULL || st->fail_pending)
        return CANAL_OK;
    /* (no wake() reaches us: checked before, as sock does) */
    if (ready != NULL && ready(arg))
        return CANAL_OK;
    if (st->wait_fd < 0) {
        /* No descriptor (not chosen, CANAL_OFI_CQ_WAIT, or the provider has
         * none, as udp;ofi_rxd and shm): the device asks to sleep only after
         * a long idle spell (CANAL_SLEEP_AFTER_US), so a nap of at most
         * 100 us keeps an idle rank off the CPU at a bounded cost. */
        struct timespec ts = {0, 100000L};
        if (timeout_us > 0 && timeout_us < 100)
            ts.tv_nsec = timeout_us * 1000L;
        nanosleep(&ts, NULL);
        return CANAL_OK;
    }
    fids[0] = &st->cq->fid;
    if (fi_trywait(st->fabric, fids, 1) != FI_SUCCESS)
        return CANAL_OK;
    pfd.fd = st->wait_fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    ms = timeout_us < 0 ? -1 : timeout_us >= 1000000000L ? 1000000 : (int)((timeout_us + 999) / 1000);
    n = poll(&pfd, 1, ms);
    if (n < 0 && errno != EINTR)
        return common_err_set(CANAL_ERR_IO, "ofi block: poll: %s", strerror(errno));
    return n == 0 && ms > 0 ? CANAL_AGAIN : CANAL_OK;
}

void ch_ofi_drain_tx(ofi_state_t *st, double seconds)
{
    double t0 = common_now_s();

    while (tx_pending_live(st) > 0 || st->rma_inflight > 0) {
        if (ch_ofi_cq_drive(st) < 0)
            break;
        if (common_now_s() - t0 > seconds) {
            LOG_WARN("ofi: finalize with %d sends and %d reads still in flight after %.1f s",
                     st->tx_inflight, st->rma_inflight, seconds);
            break;
        }
    }
}

/* ---- sendv ---------------------------------------------------------------- */

static unsigned char *gather(unsigned char *dst, const ofi_wire_t *w, const struct iovec *iov,
                             int n)
{
    unsigned char *p = dst + ofi_payload_off(w->hdr_len);

    memcpy(dst, w, sizeof *w);
    if (w->hdr_len > 0)
        memcpy(dst + sizeof *w, iov[0].iov_base, w->hdr_len);
    for (int i = 1; i < n; i++) {
        if (iov[i].iov_len > 0)
            memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    return p;
}

canal_status_t ch_ofi_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    ofi_state_t *st = ep->state;
    size_t hdr_len, len = 0, total;
    canal_status_t err;
    ofi_peer_t *p;
    ofi_txbuf_t *b;
    ofi_wire_t w;
    ssize_t rc;

    if ((err = check_peer(st, peer, "sendv")) != CANAL_OK)
        return err;
    if (iov == NULL || n < 1)
        return common_err_set(CANAL_ERR_ARG, "ofi sendv: %s (n = %d); iov[0] is the header",
                              iov == NULL ? "iov is NULL" : "no iovec", n);
    hdr_len = iov[0].iov_len;
    if (hdr_len > CH_HDR_MAX)
        return common_err_set(CANAL_ERR_ARG, "ofi sendv: header of %zu bytes exceeds CH_HDR_MAX "
                              "%d", hdr_len, CH_HDR_MAX);
    if (hdr_len > 0 && iov[0].iov_base == NULL)
        return common_err_set(CANAL_ERR_ARG, "ofi sendv: header base is NULL with length %zu",
                              hdr_len);
    for (int i = 1; i < n; i++) {
        if (iov[i].iov_len > st->max_payload - len)
            return common_err_set(CANAL_ERR_ARG, "ofi sendv: payload exceeds max_payload %zu "
                                  "bytes (at iov[%d])", st->max_payload, i);
        if (iov[i].iov_len > 0 && iov[i].iov_base == NULL)
            return common_err_set(CANAL_ERR_ARG, "ofi sendv: iov[%d] base is NULL with length "
                                  "%zu", i, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    p = &st->peers[peer];
    w = (ofi_wire_t){(uint32_t)st->rank, p->tx_seq, (uint32_t)len, (uint16_t)hdr_len,
                     OFI_WIRE_MAGIC};
    total = ofi_payload_off(hdr_len) + len;

    if (st->tx_free == NULL || st->tx_inflight + st->rma_posted >= st->tx_cap) {
        st->tx_nobuf++;
        if ((err = ch_ofi_cq_drive(st)) < 0)
            return err;
        if (st->tx_free == NULL || st->tx_inflight + st->rma_posted >= st->tx_cap)
            return CANAL_AGAIN;
    }
    b = st->tx_free;
    st->tx_free = b->next;
    gather(b->data, &w, iov, n);
    rc = fi_send(st->ep, b->data, total, st->tx_mr != NULL ? st->tx_mr->desc : NULL, p->addr,
                 &b->op.ctx);
    if (rc == 0) {
        b->peer = peer;
        st->tx_inflight++;
        p->tx_inflight++;
        p->tx_seq++;
        st->sends++;
        return CANAL_OK;
    }
    b->next = st->tx_free;
    st->tx_free = b;
    if (rc == -FI_EAGAIN) {
        st->tx_eagain++;
        if ((err = ch_ofi_cq_drive(st)) < 0)
            return err;
        return CANAL_AGAIN;
    }
    return common_err_set(CANAL_ERR_PEER, "ofi: sending %zu bytes to rank %d over %s failed: %s",
                          total, peer, st->prov, ch_ofi_err((int)rc));
}

/* ---- liveness ------------------------------------------------------------------ */

enum { OFI_PROBE_IDLE_POLLS = 256 }; /* empty progress calls between clock readings */
#define OFI_PROBE_IDLE_S 1.0

/* A bare ofi_wire_t (a probe or a BYE) to peer: no sequence number, the
 * receiver takes note and drops it. 0 when handed to the provider, else the
 * provider's error (-FI_EAGAIN: refused); 1 when no buffer is free (then
 * sends are in flight, and their completions say as much). */
static ssize_t bare_send(ofi_state_t *st, int peer, uint16_t magic)
{
    ofi_peer_t *p = &st->peers[peer];
    ofi_wire_t w = {(uint32_t)st->rank, 0, 0, 0, magic};
    ofi_txbuf_t *b = st->tx_free;
    ssize_t rc;

    if (b == NULL || st->tx_inflight + st->rma_posted >= st->tx_cap)
        return 1;
    memcpy(b->data, &w, sizeof w);
    rc = fi_send(st->ep, b->data, sizeof w, st->tx_mr != NULL ? st->tx_mr->desc : NULL, p->addr,
                 &b->op.ctx);
    if (rc != 0)
        return rc;
    st->tx_free = b->next;
    b->peer = peer;
    st->tx_inflight++;
    p->tx_inflight++;
    return 0;
}

/* Is the process of a peer that refuses our probes gone? 1 yes, 0 it still
 * runs, -1 cannot tell. A peer that does not progress (computing, or inside
 * MPI_Finalize's fence, or a rank that never talked to us, whose connection
 * then never comes up) refuses probes as a dead one does; on this node, in
 * our pid namespace, its pid tells them apart. */
static int peer_gone(const ofi_state_t *st, int peer)
{
    const ofi_peer_t *p = &st->peers[peer];

    if (st->node_of == NULL || st->node_of[peer] != st->node)
        return -1;
    return common_pid_gone(p->pid, p->pidns);
}

/* A probe the provider refused (FI_EAGAIN) with nothing else in flight to
 * the peer, for CANAL_OFI_PEER_LOST_S: the peer is lost if its process is
 * gone, or, where that cannot be seen (another node), if its connection
 * was up once (tcp;ofi_rxm once the peer's process died: its connection is
 * closed and reconnecting never succeeds). A peer never connected to us on
 * another node is left to the launcher's notice: a connection that never
 * came up says nothing about the peer, only that it has not progressed. */
static void probe_refused(ofi_state_t *st, int peer, double now)
{
    ofi_peer_t *p = &st->peers[peer];
    int gone;

    if (p->refused_since == 0) {
        p->refused_since = now;
        return;
    }
    if (now - p->refused_since < st->lost_s)
        return; /* the next round tries again */
    gone = peer_gone(st, peer);
    if (gone == 1 || (gone < 0 && p->connected)) {
        LOG_ERR("ofi: rank %d has refused every liveness probe for %.0f s in %s%s: lost", peer,
                now - p->refused_since, st->prov, gone == 1 ? " and its process is gone" : "");
        peer_fail(st, peer, CANAL_ERR_PEER);
        return;
    }
    if (!p->alive_noted) {
        p->alive_noted = 1;
        LOG_INFO("ofi: rank %d has refused every liveness probe for %.0f s in %s, but %s: not "
                 "lost", peer, now - p->refused_since, st->prov,
                 gone == 0 ? "its process runs (it does not progress)"
                           : "it never connected and runs on another node");
    }
    p->refused_since = now;
}

static void probe_send(ofi_state_t *st, int peer, double now)
{
    ofi_peer_t *p = &st->peers[peer];
    ssize_t rc = bare_send(st, peer, OFI_WIRE_PROBE);

    if (rc == 1)
        return;
    st->probes++;
    if (rc == -FI_EAGAIN) {
        if (p->tx_inflight > 0)
            p->refused_since = 0; /* busy, not refused: its sends will say */
        else
            probe_refused(st, peer, now);
        return;
    }
    p->refused_since = 0;
    if (rc != 0) {
        /* (tcp;ofi_rxm once the connection broke: the peer is gone) */
        LOG_ERR("ofi: a liveness probe to rank %d failed in %s: %s", peer, st->prov,
                ch_ofi_err((int)rc));
        peer_fail(st, peer, CANAL_ERR_PEER);
    }
}

int ch_ofi_probe_wanted(const ofi_state_t *st, int peer)
{
    const ofi_peer_t *p = &st->peers[peer];

    if (peer == st->rank || !p->reachable || p->failed || p->departed)
        return 0;
    if (st->size <= st->probe_all_max || p->connected)
        return 1;
    return (peer - st->rank + st->size) % st->size <= OFI_PROBE_RING;
}

/* Called by a progress() that delivered nothing: after a second without
 * arrivals, probe, once a second, the live peers ch_ofi_probe_wanted names
 * -- in a job of up to CANAL_OFI_PROBE_ALL_MAX ranks every one, not only
 * those we talked to, so that a rank that never exchanged a packet with a
 * lost one learns of it too. A probe to a peer that died fails
 * (tcp;ofi_rxm: the connection is gone), its error completion reports the
 * peer lost, or the provider refuses it (probe_refused). Peers that said
 * BYE are finalizing and never probed. */
static void idle_probe(ofi_state_t *st)
{
    double now;

    if (++st->idle_polls < OFI_PROBE_IDLE_POLLS)
        return;
    st->idle_polls = 0;
    now = common_now_s();
    if (st->idle_since == 0) {
        st->idle_since = now;
        return;
    }
    if (now - st->idle_since < OFI_PROBE_IDLE_S || now - st->probe_at < OFI_PROBE_IDLE_S)
        return;
    st->probe_at = now;
    for (int r = 0; r < st->size; r++)
        if (ch_ofi_probe_wanted(st, r))
            probe_send(st, r, now);
}

/* ---- progress -------------------------------------------------------------- */

static void deliver(ofi_state_t *st, ofi_rxbuf_t *b, int *count)
{
    ofi_wire_t w;

    memcpy(&w, b->data, sizeof w);
    st->up.on_packet((int)w.src, b->data + sizeof w, w.hdr_len, b->data + ofi_payload_off(w.hdr_len),
                     w.len);
    st->peers[w.src].rx_seq++;
    st->delivered++;
    (*count)++;
    /* FI_EAGAIN: queued, reposted by a later progress(). */
    if (ch_ofi_rx_post(st, b) < 0)
        LOG_ERR("%s; one receive buffer fewer", common_err_detail());
}

/* Check one arrival; CANAL_OK means b->src and b->seq are set. */
static canal_status_t arrival_check(ofi_state_t *st, ofi_rxbuf_t *b)
{
    ofi_wire_t w;

    if (b->got < sizeof w)
        return common_err_set(CANAL_ERR_PROTO, "ofi: a %zu-byte message is too short for a "
                              "Canal packet", b->got);
    memcpy(&w, b->data, sizeof w);
    if (w.magic != OFI_WIRE_MAGIC || w.src >= (uint32_t)st->size || w.hdr_len > CH_HDR_MAX ||
        w.len > st->max_payload || b->got != ofi_payload_off(w.hdr_len) + w.len)
        return common_err_set(CANAL_ERR_PROTO, "ofi: malformed packet (%zu bytes, magic 0x%x, "
                              "claims rank %u, header %u B, payload %u B)", b->got, w.magic,
                              w.src, w.hdr_len, w.len);
    if ((int32_t)(w.seq - st->peers[w.src].rx_seq) < 0)
        return common_err_set(CANAL_ERR_PROTO, "ofi: packet %u from rank %u arrived twice "
                              "(expected %u)", w.seq, w.src, st->peers[w.src].rx_seq);
    b->src = w.src;
    b->seq = w.seq;
    return CANAL_OK;
}

static canal_status_t deliver_arrivals(ofi_state_t *st, int *count)
{
    canal_status_t err = CANAL_OK;
    ofi_rxbuf_t *b;

    /* on_packet() may call sendv(), which may append to the list: take the
     * head each time round. */
    while ((b = st->arrived) != NULL) {
        ofi_peer_t *p;
        st->arrived = b->next;
        if (st->arrived == NULL)
            st->arrived_tail = NULL;
        if (b->got == sizeof(ofi_wire_t)) {
            ofi_wire_t w;
            memcpy(&w, b->data, sizeof w);
            if ((w.magic == OFI_WIRE_PROBE || w.magic == OFI_WIRE_BYE) &&
                w.src < (uint32_t)st->size) {
                /* A peer's liveness probe (it lives) or its BYE (it is
                 * finalizing: probe it no more): nothing to deliver. */
                st->peers[w.src].connected = 1;
                st->peers[w.src].refused_since = 0;
                if (w.magic == OFI_WIRE_BYE && !st->peers[w.src].departed) {
                    st->peers[w.src].departed = 1;
                    LOG_DEBUG("ofi: rank %u is finalizing", w.src);
                }
                ch_ofi_rx_post(st, b);
                continue;
            }
        }
        if (arrival_check(st, b) != CANAL_OK) {
            if (err == CANAL_OK)
                err = CANAL_ERR_PROTO;
            ch_ofi_rx_post(st, b);
            continue;
        }
        p = &st->peers[b->src];
        p->connected = 1;
        if (b->seq != p->rx_seq) {
            /* Completed ahead of an earlier packet: hold it, sorted. */
            ofi_rxbuf_t **pp = &p->held;
            while (*pp != NULL && (int32_t)((*pp)->seq - b->seq) < 0)
                pp = &(*pp)->next;
            if (*pp != NULL && (*pp)->seq == b->seq) {
                common_err_set(CANAL_ERR_PROTO, "ofi: packet %u from rank %u arrived twice",
                               b->seq, b->src);
                if (err == CANAL_OK)
                    err = CANAL_ERR_PROTO;
                ch_ofi_rx_post(st, b);
                continue;
            }
            b->next = *pp;
            *pp = b;
            st->reordered++;
            continue;
        }
        deliver(st, b, count);
        while (p->held != NULL && p->held->seq == p->rx_seq) {
            ofi_rxbuf_t *h = p->held;
            p->held = h->next;
            deliver(st, h, count);
        }
    }
    return err;
}

static int fire_rma_done(ofi_state_t *st)
{
    int n = 0;
    ofi_rma_t *r;

    while ((r = st->rma_done) != NULL) {
        void *cookie = r->cookie;
        canal_status_t res = r->st;
        st->rma_done = r->next;
        if (st->rma_done == NULL)
            st->rma_done_tail = NULL;
        st->rma_inflight--;
        if (r->dst_mr != NULL)
            ch_ofi_mr_put(st, r->dst_mr, NULL, NULL);
        if (res < 0)
            common_err_set(res, "%s", r->why);
        free(r);
        if (st->up.on_rdma_done != NULL)
            st->up.on_rdma_done(cookie, res);
        n++;
    }
    return n;
}

static void fire_peer_failures(ofi_state_t *st)
{
    st->fail_pending = 0;
    for (int r = 0; r < st->size; r++) {
        ofi_peer_t *p = &st->peers[r];
        if (!p->fail_pending)
            continue;
        p->fail_pending = 0;
        common_err_set(p->fail_st, "ofi: the connection to rank %d over %s failed", r, st->prov);
        if (st->up.on_peer_failed != NULL)
            st->up.on_peer_failed(r, p->fail_st);
    }
}

int ch_ofi_progress(ch_endpoint_t *ep)
{
    ofi_state_t *st = ep->state;
    canal_status_t err, e;
    int count = 0;

    /* A nested call from on_packet() would deliver out of order from under
     * the outer loop: it does nothing (sendv still reads the CQ itself). */
    if (!st->ready || st->in_progress)
        return 0;
    st->in_progress = 1;
    err = ch_ofi_cq_drive(st);
    if (st->repost != NULL && (e = rx_repost_waiting(st)) < 0 && err == CANAL_OK)
        err = e;
    if (st->rma_wait != NULL)
        rma_retry_waiting(st);
    if ((e = deliver_arrivals(st, &count)) < 0 && err == CANAL_OK)
        err = e;
    if (st->rma_done != NULL)
        count += fire_rma_done(st);
    if (st->fail_pending)
        fire_peer_failures(st);
    if (count > 0)
        st->idle_since = 0;
    else if (err == CANAL_OK)
        idle_probe(st);
    st->in_progress = 0;
    return err < 0 ? err : count;
}
