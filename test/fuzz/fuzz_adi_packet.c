/*
 * libFuzzer target: the device's packet up-call, adi_on_packet() in
 * adi/pt2pt.c, with arbitrary headers and payloads, as a channel hands them
 * up from the wire. LLVMFuzzerInitialize starts a singleton MPI (the device
 * with its self channel); each input then
 *   1. posts up to 4 receives (contiguous, strided and byte datatypes, exact
 *      size heap buffers so ASan sees any write past them) on contexts 100
 *      and 101, which MPI itself never uses in a singleton, or sends to self
 *      on context 102 (a synchronous eager send waiting for SYNC_ACK, or a
 *      rendezvous send waiting for CTS/FIN), so that control packets find a
 *      sender in the state they act on;
 *   2. feeds a sequence of packets: [op][48-byte adi_pkt_t][len][len bytes].
 *      op may steer fields toward something the device will act on (a posted
 *      receive's index, a context with receives, an eager size equal to the
 *      payload), since pure noise is dropped by the first check;
 *   3. drives progress (control packets the device sends to itself come back
 *      through the same up-call), completes the sends by posting their
 *      receives, then cancels or abandons what is left and drains the
 *      unexpected queues and un-revokes its contexts, so every input starts
 *      from the same state.
 * RDMA is switched off for the self peer: the self channel's rdma_read is a
 * memmove from the address in the RTS, which only this process can send.
 * Built and run by test/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adi/adi_impl.h"
#include "common/log.h"
#include "datatype/dt.h"
#include "mpi.h"
#include "fuzz.h"

enum { NRECV_MAX = 4, CTX0 = 100, CTX_SEND = 102, SEND_TAG = 0x7000 };

static dt_type_t *vec; /* 3 blocks of 1 int, stride 2 */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    common_log_set_level(-1); /* every dropped packet is logged; not here */
    if (adi_dev.size != 1)
        abort();
    adi_dev.peers[0].has_rdma = 0;
    if (dt_create_vector(3, 1, 2, dt_builtin(DT_INT), &vec) != CANAL_OK || dt_commit(vec) != CANAL_OK)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    adi_request_t *rq[NRECV_MAX], *sink[NRECV_MAX];
    void *bufs[NRECV_MAX], *sinkbuf[NRECV_MAX];
    size_t sendlen[NRECV_MAX];
    int nrecv = 0, is_send[NRECV_MAX];
    size_t pos = 1;

    if (n < 1)
        return 0;
    for (int i = 0; i < d[0] % (NRECV_MAX + 1) && pos + 4 <= n; i++, pos += 4) {
        is_send[nrecv] = d[pos] % 4 == 3;
        if (is_send[nrecv]) {
            /* odd count: a 64-byte synchronous eager send; even: rendezvous */
            int sync = d[pos + 1] & 1;
            size_t len = sync ? 64 : adi_dev.peers[0].eager_limit + 1 + d[pos + 1];
            sendlen[nrecv] = len;
            bufs[nrecv] = calloc(1, len);
            if (adi_isend(bufs[nrecv], len, dt_builtin(DT_BYTE), 0, 0, SEND_TAG + i, CTX_SEND,
                          sync ? ADI_MODE_SYNC : ADI_MODE_STANDARD, &rq[nrecv]) != CANAL_OK)
                abort();
            adi_progress(); /* the EAGER or RTS reaches our own unexpected queue */
            nrecv++;
            continue;
        }
        dt_type_t *t = d[pos] % 3 == 0 ? dt_builtin(DT_INT) : d[pos] % 3 == 1 ? vec : dt_builtin(DT_BYTE);
        size_t count = d[pos + 1] % 16, ext = d[pos] % 3 == 1 ? 5 * sizeof(int) : dt_size(t);
        int src = d[pos + 2] % 3 == 0 ? ADI_ANY_SOURCE : d[pos + 2] % 3;
        int tag = d[pos + 3] % 5 == 4 ? ADI_ANY_TAG : d[pos + 3] % 5;
        bufs[nrecv] = malloc(count * ext + 1);
        if (adi_irecv(bufs[nrecv], count, t, src, tag, CTX0 + (d[pos + 3] >> 7), &rq[nrecv]) != CANAL_OK)
            abort();
        nrecv++;
    }
    while (pos + 1 + sizeof(adi_pkt_t) + 1 <= n) {
        uint8_t op = d[pos];
        unsigned char hdr[sizeof(adi_pkt_t)];
        adi_pkt_t h;
        size_t len, hdr_len = sizeof hdr;

        memcpy(hdr, d + pos + 1, sizeof hdr);
        len = d[pos + 1 + sizeof hdr];
        pos += 2 + sizeof hdr;
        if (len > n - pos)
            len = n - pos;
        memcpy(&h, hdr, sizeof h);
        if (op & 0x01)
            h.type = (uint8_t)(1 + h.type % PKT_WITHDRAWN);
        if (op & 0x02)
            h.context = CTX0 + (h.context & 1);
        if (op & 0x04)
            h.size = len;
        if ((op & 0x08) && nrecv > 0) {
            h.rreq = (uint32_t)rq[h.rreq % (uint32_t)nrecv]->index;
            h.sreq = (uint32_t)rq[h.sreq % (uint32_t)nrecv]->index;
        }
        if (op & 0x10) {
            h.src_rank &= 3;
            h.tag &= 7;
            h.flags &= PKT_FLAG_SYNC;
        }
        hdr_len = adi_pkt_len(&h); /* what the device sends */
        if (op & 0x20)
            hdr_len = op % sizeof hdr; /* a header of any other length */
        memcpy(hdr, &h, sizeof h);
        {
            /* the payload in a buffer of exactly len bytes */
            void *payload = malloc(len ? len : 1);
            memcpy(payload, d + pos, len);
            adi_lock();
            adi_on_packet((op & 0xc0) == 0xc0 ? 1 + op % 3 : 0, hdr, hdr_len, payload, len);
            adi_progress();
            adi_unlock();
            free(payload);
        }
        pos += len;
    }
    adi_lock();
    for (int i = 0; i < 4; i++)
        adi_progress();
    adi_unlock();
    /* Receive what the sends sent, so that they complete the ordinary way. */
    for (int i = 0; i < nrecv; i++) {
        sink[i] = NULL;
        sinkbuf[i] = NULL;
        if (!is_send[i])
            continue;
        sinkbuf[i] = malloc(sendlen[i]);
        if (adi_irecv(sinkbuf[i], sendlen[i], dt_builtin(DT_BYTE), 0, SEND_TAG + i, CTX_SEND,
                      &sink[i]) != CANAL_OK)
            abort();
    }
    for (int k = 0; k < 64; k++)
        adi_progress();
    for (int i = 0; i < nrecv; i++) {
        adi_request_t *r = sink[i];
        if (r == NULL)
            continue;
        if (!r->done && r->state == REQ_RECV_POSTED)
            adi_cancel(r);
        if (!r->done) {
            adi_lock();
            r->status.error = CANAL_ERR_PROTO;
            adi_req_finish(r);
            adi_unlock();
        }
        adi_request_free(r);
        free(sinkbuf[i]);
    }
    for (int i = 0; i < nrecv; i++) {
        adi_request_t *r = rq[i];
        if (is_send[i]) {
            /* a send the fuzzer's packets derailed (a CTS for the wrong
             * receive, an RTS consumed elsewhere): nothing of it is queued
             * any more after progress, so it can be abandoned */
            if (!r->done) {
                if (r->in_queue)
                    abort();
                adi_lock();
                r->status.error = CANAL_ERR_PROTO;
                adi_req_finish(r);
                adi_unlock();
            }
            adi_request_free(r);
            free(bufs[i]);
            continue;
        }
        if (!r->done && r->state == REQ_RECV_POSTED)
            adi_cancel(r);
        if (!r->done) { /* mid-rendezvous with a sender that does not exist */
            adi_lock();
            r->status.error = CANAL_ERR_PROTO;
            adi_req_finish(r);
            adi_unlock();
        }
        adi_request_free(r);
        free(bufs[i]);
    }
    for (int c = CTX0; c < CTX0 + 2; c++) {
        int flag = 1;
        while (flag) {
            adi_message_t *m = NULL;
            adi_improbe(ADI_ANY_SOURCE, ADI_ANY_TAG, c, &flag, &m, NULL);
            if (flag)
                adi_msg_free(m);
        }
    }
    /* messages on other contexts (a header the fuzzer did not steer) */
    adi_lock();
    adi_queues_finalize();
    adi_dev.unexpected_bytes = 0;
    adi_unlock();
    /* A FIN or SYNC_ACK flagged REVOKED revokes its send's context (as a
     * peer's answer does): the next input starts with none revoked. */
    for (int c = CTX0; c <= CTX_SEND; c++)
        if (adi_ctx_set_ranks(c, 1, NULL) != CANAL_OK)
            abort();
    return 0;
}
