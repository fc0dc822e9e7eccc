/*
 * The shm channel's data path: sendv() into the ring to a local peer,
 * progress() out of the rings from every local peer, and the doorbell that
 * lets a rank sleep in block() until a peer's wake() or a drained ring.
 * Called by the device (adi/) through ch_shm_ops; nothing here makes a
 * system call unless a peer has announced that it is asleep.
 *
 * Memory ordering, in one place:
 *  - a cell is published by storing full=1 with release after its bytes, and
 *    consumed by loading full with acquire; it is freed by storing full=0
 *    with release after on_packet() returned, and a sender reuses it only
 *    after an acquire load sees 0;
 *  - sleep and wake are Dekker pairs, each side storing its flag, issuing a
 *    seq_cst fence, then loading the other's: a sender (store full=1; fence;
 *    load sleeping) against a sleeper (store sleeping=1; fence; load full),
 *    and a drainer (store full=0; fence; load blocked) against a blocked
 *    sender (store blocked=1; fence; load full). At least one side of each
 *    pair sees the other, so a wake-up is never lost.
 */
#include "channels/shm/shm.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex_call(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
    /* Not FUTEX_PRIVATE_FLAG: the word is in memory shared across processes. */
    return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

static void wake_local(shm_state_t *st, int li)
{
    shm_slot_t *s = &st->slots[li];

    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&s->sleeping, memory_order_relaxed) != 0) {
        atomic_fetch_add_explicit(&s->seq, 1, memory_order_seq_cst);
        futex_call(&s->seq, FUTEX_WAKE, INT_MAX, NULL);
        st->futex_wakes++;
    }
}

static canal_status_t check_peer(shm_state_t *st, int peer, int *li_out)
{
    if (!st->attached)
        return common_err_set(CANAL_ERR_INTERN, "shm: used before post_fence() or after finalize()");
    if (peer < 0 || peer >= st->world_size)
        return common_err_set(CANAL_ERR_ARG, "shm: peer rank %d outside 0..%d", peer,
                              st->world_size - 1);
    if (st->local_of[peer] < 0)
        return common_err_set(CANAL_ERR_ARG, "shm: peer rank %d is not on this node", peer);
    *li_out = st->local_of[peer];
    return CANAL_OK;
}

canal_status_t shm_sendv(int peer, const struct iovec *iov, int n)
{
    shm_state_t *st = &ch_shm_state;
    size_t cap = st->lay.payload_cap;
    size_t hdr_len, len = 0;
    canal_status_t err;
    shm_peer_t *p;
    shm_cell_t *c;
    unsigned char *dst;
    int li = 0;

    if ((err = check_peer(st, peer, &li)) != CANAL_OK)
        return err;
    if (iov == NULL || n < 1)
        return common_err_set(CANAL_ERR_ARG, "shm sendv: %s (n = %d); iov[0] is the header",
                              iov == NULL ? "iov is NULL" : "no iovec", n);
    hdr_len = iov[0].iov_len;
    if (hdr_len > CH_HDR_MAX)
        return common_err_set(CANAL_ERR_ARG, "shm sendv: header of %zu bytes exceeds CH_HDR_MAX %d",
                              hdr_len, CH_HDR_MAX);
    if (hdr_len > 0 && iov[0].iov_base == NULL)
        return common_err_set(CANAL_ERR_ARG, "shm sendv: header base is NULL with length %zu",
                              hdr_len);
    for (int i = 1; i < n; i++) {
        if (iov[i].iov_len > cap - len)
            return common_err_set(CANAL_ERR_ARG,
                                  "shm sendv: payload exceeds max_payload %zu bytes (at iov[%d])",
                                  cap, i);
        if (iov[i].iov_len > 0 && iov[i].iov_base == NULL)
            return common_err_set(CANAL_ERR_ARG, "shm sendv: iov[%d] base is NULL with length %zu",
                                  i, iov[i].iov_len);
        len += iov[i].iov_len;
    }

    p = &st->peers[li];
    c = shm_cell_at(p->out_cells, p->send_idx, st->lay.cell_stride);
    if (atomic_load_explicit(&c->full, memory_order_acquire) != 0) {
        /* Ring full: tell the reader we wait for room, then look once more
         * (see the Dekker note at the top). */
        if (!p->blocked) {
            atomic_store_explicit(p->out_blocked, 1, memory_order_relaxed);
            p->blocked = 1;
            st->nblocked++;
        }
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&c->full, memory_order_acquire) != 0)
            return CANAL_AGAIN;
    }

    dst = c->bytes;
    if (hdr_len > 0)
        memcpy(dst, iov[0].iov_base, hdr_len);
    dst += shm_payload_off(hdr_len);
    for (int i = 1; i < n; i++) {
        if (iov[i].iov_len > 0)
            memcpy(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    c->hdr_len = (uint32_t)hdr_len;
    c->len = (uint32_t)len;
    atomic_store_explicit(&c->full, 1, memory_order_release);
    p->send_idx = p->send_idx + 1 == st->lay.ncells ? 0 : p->send_idx + 1;
    if (p->blocked) {
        atomic_store_explicit(p->out_blocked, 0, memory_order_relaxed);
        p->blocked = 0;
        st->nblocked--;
    }
    return CANAL_OK;
}

int shm_progress(void)
{
    shm_state_t *st = &ch_shm_state;
    size_t stride = st->lay.cell_stride;
    uint32_t ncells = (uint32_t)st->lay.ncells;
    int L = st->local_size;
    int start, total = 0;

    /* on_packet() may call sendv() but a nested progress() would deliver
     * out of order from under the outer loop: it polls nothing. */
    if (!st->attached || st->in_progress)
        return 0;
    st->in_progress = 1;
    start = st->rr_next;
    for (int k = 0; k < L; k++) {
        int li = start + k < L ? start + k : start + k - L;
        shm_peer_t *p = &st->peers[li];
        uint32_t got = 0;

        while (got < ncells) {
            shm_cell_t *c = shm_cell_at(p->in_cells, p->recv_idx, stride);
            uint32_t hl, len;

            if (atomic_load_explicit(&c->full, memory_order_acquire) == 0)
                break;
            hl = c->hdr_len;
            len = c->len;
            if (hl > CH_HDR_MAX || len > st->lay.payload_cap) {
                st->in_progress = 0;
                return common_err_set(CANAL_ERR_PROTO,
                                      "shm: corrupt cell from rank %d: header %u B, payload %u B",
                                      p->world, hl, len);
            }
            st->up.on_packet(p->world, c->bytes, hl, c->bytes + shm_payload_off(hl), len);
            atomic_store_explicit(&c->full, 0, memory_order_release);
            p->recv_idx = p->recv_idx + 1 == ncells ? 0 : p->recv_idx + 1;
            got++;
        }
        if (got > 0) {
            total += (int)got;
            /* The sender may be asleep waiting for room in this ring. */
            atomic_thread_fence(memory_order_seq_cst);
            if (li != st->local_rank &&
                atomic_load_explicit(p->in_blocked, memory_order_relaxed) != 0)
                wake_local(st, li);
        }
    }
    st->rr_next = start + 1 < L ? start + 1 : 0;
    st->in_progress = 0;
    return total;
}

/* Something to do: a packet in an incoming ring, or room in a ring we were
 * blocked on. Called after announcing sleep (store; fence). */
static int shm_ready(shm_state_t *st)
{
    size_t stride = st->lay.cell_stride;
    for (int li = 0; li < st->local_size; li++) {
        shm_peer_t *p = &st->peers[li];
        if (atomic_load_explicit(&shm_cell_at(p->in_cells, p->recv_idx, stride)->full,
                                 memory_order_acquire) != 0)
            return 1;
        if (p->blocked &&
            atomic_load_explicit(&shm_cell_at(p->out_cells, p->send_idx, stride)->full,
                                 memory_order_acquire) == 0)
            return 1;
    }
    return 0;
}

canal_status_t shm_block(long timeout_us)
{
    shm_state_t *st = &ch_shm_state;
    shm_slot_t *me;
    struct timespec ts, *tsp = NULL;
    uint32_t seen;

    if (!st->attached)
        return common_err_set(CANAL_ERR_INTERN, "shm block: used before post_fence()");
    me = &st->slots[st->local_rank];
    atomic_store_explicit(&me->sleeping, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    seen = atomic_load_explicit(&me->seq, memory_order_acquire);
    if (timeout_us == 0 || shm_ready(st)) {
        atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
        return CANAL_OK;
    }
    if (timeout_us > 0) {
        ts.tv_sec = timeout_us / 1000000;
        ts.tv_nsec = (timeout_us % 1000000) * 1000;
        tsp = &ts;
    }
    st->futex_waits++;
    /* Returns on a wake, a timeout, a signal, or at once if seq moved since
     * we read it: the device polls after every outcome. */
    if (futex_call(&me->seq, FUTEX_WAIT, seen, tsp) != 0 && errno != EAGAIN &&
        errno != ETIMEDOUT && errno != EINTR) {
        int e = errno;
        atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
        return common_err_set(CANAL_ERR_IO, "shm block: futex wait: %s", strerror(e));
    }
    atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
    return CANAL_OK;
}

void shm_wake(int peer)
{
    shm_state_t *st = &ch_shm_state;
    int li;

    if (!st->attached || peer < 0 || peer >= st->world_size)
        return;
    li = st->local_of[peer];
    if (li < 0 || li == st->local_rank)
        return;
    wake_local(st, li);
}
