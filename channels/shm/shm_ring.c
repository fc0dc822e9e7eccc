/*
 * The shm channel's data path: sendv() into the ring to a local peer,
 * progress() out of the rings from every local peer, and the doorbell that
 * lets a rank sleep in block() until a peer's wake() or a drained ring.
 * Called by the device (adi/) through ch_shm_ops; nothing here makes a
 * system call unless a peer has announced that it is asleep.
 *
 * Memory ordering, in one place:
 *  - a record is published by storing its head's seq with release after its
 *    bytes and after the terminator (a stale seq in the head that follows
 *    it, when that is inside the record's last line), and found by loading
 *    seq with acquire; a skip record is published after the record it skips
 *    to. Records are given back by storing stale seqs into the line starts
 *    inside them, then the ring's consumed byte count with release (once
 *    per progress() for all the records the previous one took), and a
 *    sender reuses bytes only after an acquire load of consumed says so;
 *  - sleep and wake are Dekker pairs: a sender (store seq; barrier; load
 *    sleeping) against a sleeper (store sleeping=1; barrier; load seq), a
 *    drainer (store consumed; barrier; load blocked, then sleeping)
 *    against a blocked sender going to sleep (store blocked=1, sleeping=1;
 *    barrier; load consumed), and whoever changes what the sleeper's own
 *    condition reads (store; wake(): barrier; load sleeping) against the
 *    sleeper (store sleeping=1; barrier; call ready()). At least one side
 *    of each pair sees the other, so a wake-up is never lost. The barriers are asymmetric
 *    when the kernel allows: the sleeper (slow path, about to make a
 *    futex call anyway) issues membarrier(GLOBAL_EXPEDITED), which makes
 *    every registered running thread execute a full barrier, and the fast
 *    paths need only a compiler barrier. Without membarrier both sides use
 *    a seq_cst fence.
 */
#include "channels/shm/shm.h"
#include "common/copy.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "common/clock.h"
#include "common/proc.h"

static long futex_call(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
    /* Not FUTEX_PRIVATE_FLAG: the word is in memory shared across processes. */
    return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

/* 1 if this process will receive global expedited membarriers. */
int ch_shm_membarrier_register(void)
{
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        !(cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED))
        return 0;
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

/* The fast side of the Dekker pairs. */
static inline void barrier_fast(const ch_shm_state_t *st)
{
    if (st->mb)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* The slow side: 0, or -1 if the barrier could not be issued (then the
 * caller must not sleep). */
static int barrier_slow(const ch_shm_state_t *st)
{
    if (st->mb)
        return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0 ? 0 : -1;
    atomic_thread_fence(memory_order_seq_cst);
    return 0;
}

/* The doorbell of a peer found asleep; out of line, so that the fast paths
 * that only look at `sleeping` keep no registers for the system call. */
__attribute__((noinline, cold)) static void ring_bell(ch_shm_state_t *st, ch_shm_slot_t *s)
{
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_seq_cst);
    futex_call(&s->seq, FUTEX_WAKE, INT_MAX, NULL);
    st->futex_wakes++;
}

static inline void wake_slot(ch_shm_state_t *st, ch_shm_slot_t *s)
{
    barrier_fast(st);
    if (atomic_load_explicit(&s->sleeping, memory_order_relaxed) != 0)
        ring_bell(st, s);
}

static inline void wake_local(ch_shm_state_t *st, int li)
{
    wake_slot(st, &st->slots[li]);
}

uint32_t ch_shm_soft_wrap_first(size_t soft_wrap, size_t ring_bytes)
{
    return soft_wrap != 0 && ring_bytes / 4 >= soft_wrap ? (uint32_t)soft_wrap : UINT32_MAX;
}

/* The soft wrap: a record at pos that would end past p->wrap_at (a multiple
 * of the soft-wrap size) goes to offset 0 instead, after a skip record, if
 * the reader has given back everything sent. A ping-pong then reuses the
 * ring's first lines, still near both cores, instead of walking the whole
 * ring (about 258 KiB a direction: every line a 512 B-4 KiB message wrote
 * came from far in the hierarchy; bench.md). Only with the reader caught
 * up: until it takes the skip, the sender has only the bytes below pos, and
 * with a stream's reader a window behind those are the bytes it has not
 * read, so the rest of the window would meet a full ring. Tried only if
 * something came from the peer since the last try (a one-way stream does
 * not pull the reader's consumed line), at most once per soft-wrap size of
 * the ring if it fails; only for records of up to half that size (and a
 * line). Returns the bytes to skip, or 0. */
__attribute__((noinline)) static uint32_t ring_soft_wrap(ch_shm_state_t *st, ch_shm_peer_t *p,
                                                         uint32_t pos, uint32_t rec)
{
    uint32_t sw = st->wrap_first;

    /* Larger records walk on: reusing the lines that the reader has just
     * read (and cleaned) made 8-16 KiB ping-pongs slower (bench.md). */
    if (rec > sw / 2 + SHM_LINE)
        return 0;
    p->wrap_recs = p->received_recs;
    p->wrap_at = (pos + rec + sw - 1) / sw * sw;
    ch_shm_peer_limit(p, (uint32_t)st->lay.ring_bytes);
    /* Room at 0 for the record and the terminator after it, below pos. */
    if (ch_shm_rec_next(0, rec) + SHM_REC_HEAD > pos)
        return 0;
    if (p->peer_consumed != p->sent) {
        p->peer_consumed = atomic_load_explicit(&p->out_ctl->consumed, memory_order_acquire);
        if (p->peer_consumed != p->sent)
            return 0;
    }
    st->soft_wraps++;
    return (uint32_t)st->lay.ring_bytes - pos;
}

/* The first send to a peer reads every line of the ring to it once (then
 * the straight path may take the next sends): a line that no core's cache
 * holds (the receiver zeroed it at start) cost the sender a write miss to
 * memory on the ring's first lap, and an 8-byte stream ran its first 264
 * KiB at half the rate of the later laps (osu_like mbw_mr 8 B repeated in
 * one process: 4.0-7.5 M msg/s, then 13-14; read, 10-14 from the start;
 * bench.md, "The first lap of a ring"); read, a line comes in exclusive
 * and the first write to it stays in this core. About 1 ms of CPU for a 264 KiB
 * ring: on the first send rather than in MPI_Init for every ring, which at
 * 8 local ranks cost 7 ms of CPU per rank (bench.md, helper ring4). The
 * reader only polls the first record's head meanwhile: nothing changes for
 * it. This rank's own ring is never read: it shares this core's cache. */
__attribute__((noinline, cold)) static void ring_out_read(ch_shm_state_t *st, ch_shm_peer_t *p)
{
    const unsigned char *a = (const unsigned char *)p->out_ctl;

    for (size_t off = 0; off < st->lay.ring_stride; off += SHM_LINE)
        (void)*(volatile const unsigned char *)(a + off);
    p->out_read = 1;
    ch_shm_peer_limit(p, (uint32_t)st->lay.ring_bytes);
}

static canal_status_t check_peer(ch_shm_state_t *st, int peer, int *li_out)
{
    if (!st->attached)
        return common_err_set(CANAL_ERR_INTERN,
                              "shm: used before post_fence() or after finalize()");
    if (peer < 0 || peer >= st->world_size)
        return common_err_set(CANAL_ERR_ARG, "shm: peer rank %d outside 0..%d", peer,
                              st->world_size - 1);
    if (st->local_of[peer] < 0)
        return common_err_set(CANAL_ERR_ARG, "shm: peer rank %d is not on this node", peer);
    *li_out = st->local_of[peer];
    return CANAL_OK;
}

/* Publish the record of rec bytes just written at `at` (ending, padded, at
 * `end`), after a skip record at pos if skip: the terminator, the record's
 * sequence, the skip's, the sender's counts, the blocked flag, the prefetch
 * of the line ahead and the doorbell. sendv_general() ends here; the
 * straight path (ch_shm_sendv) does the same less what it excludes. */
__attribute__((always_inline)) static inline void ring_publish(ch_shm_state_t *st,
                                                               ch_shm_peer_t *p,
                                                               ch_shm_rec_t *r, uint32_t pos,
                                                               uint32_t at, uint32_t end,
                                                               uint32_t rec, uint32_t skip)
{
    uint32_t ring = (uint32_t)st->lay.ring_bytes;
    uint32_t seq = p->sent_recs + (skip ? 2 : 1);

    p->sent += skip + (end - at);
    /* A new lap: this record starts it, or the next one will (the straight
     * path does not look for offset 0). */
    if (at == 0 || end == ring) {
        p->wrap_at = st->wrap_first;
        ch_shm_peer_limit(p, ring);
    }
    end = end == ring ? 0 : end;
    /* The terminator: a sequence the reader does not expect there. Only
     * inside the record's last line: a store to the next line would have
     * to take that line from the reader first, and the reader would take
     * the record's line back meanwhile (one more transfer per message).
     * A line start needs none: the reader cleans those (ring_release). */
    if ((end & (SHM_LINE - 1)) != 0)
        atomic_store_explicit(&ch_shm_rec_at(p->out_ring, end)->seq, seq, memory_order_relaxed);
    atomic_store_explicit(&r->seq, seq, memory_order_release);
    if (skip) {
        /* Published after the record at 0, so a reader that takes the skip
         * finds that record already there. */
        r = ch_shm_rec_at(p->out_ring, pos);
        r->lens = SHM_REC_SKIP;
        atomic_store_explicit(&r->seq, seq - 1, memory_order_release);
    }
    p->sent_recs = seq;
    p->out_pos = end;
    if (p->blocked) {
        atomic_store_explicit(&p->out_ctl->blocked, 0, memory_order_relaxed);
        p->blocked = 0;
        st->nblocked--;
        ch_shm_peer_limit(p, ring);
    }
    /* The line after the terminator's, if the record crossed into a new
     * line: take it now, so the next sends do not wait for it. Built for
     * generic x86-64 this is a read prefetch; PREFETCHW here measured worse
     * (16-32 B far, 512 B-2 KiB near; bench.md, helper far). */
    if ((end & (SHM_LINE - 1)) < rec && end + SHM_LINE < ring)
        __builtin_prefetch(p->out_ring + ((end + SHM_LINE) & ~(uint32_t)(SHM_LINE - 1)), 1, 3);
    /* The reader may be asleep waiting for this record (caps.sendv_wakes:
     * the device does not call wake() after each packet). */
    if (p->bell != NULL)
        wake_slot(st, p->bell);
}

/* Everything sendv() takes: any iovec, the ring's end, the soft wrap, a
 * full ring (blocked flag, one more look), and every argument error. */
__attribute__((noinline)) static canal_status_t sendv_general(ch_shm_state_t *st, int peer,
                                                              const struct iovec *iov, int n)
{
    size_t cap = st->lay.payload_cap;
    size_t hdr_len, len = 0;
    canal_status_t err;
    ch_shm_peer_t *p;
    ch_shm_rec_t *r;
    unsigned char *dst;
    uint32_t ring, rec, pos, skip, need, at, end;
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
    if (p->dead)
        return common_err_set(CANAL_ERR_PEER, "shm: local rank %d has died", peer);
    if (!p->out_read)
        ring_out_read(st, p);
    ring = (uint32_t)st->lay.ring_bytes;
    rec = ch_shm_rec_size(hdr_len, len);
    pos = p->out_pos;
    skip = pos + rec > ring ? ring - pos : 0;
    if (skip == 0 && pos + rec > p->wrap_at && p->wrap_recs != p->received_recs)
        skip = ring_soft_wrap(st, p, pos, rec);
    at = skip ? 0 : pos;
    end = ch_shm_rec_next(at, rec);
    /* Room for the record (with its padding), a skip before it, and the
     * terminator after it. */
    need = skip + (end - at) + SHM_REC_HEAD;
    if (p->sent - p->peer_consumed > ring - need) {
        p->peer_consumed = atomic_load_explicit(&p->out_ctl->consumed, memory_order_acquire);
        if (p->sent - p->peer_consumed > ring - need) {
            /* Ring full: tell the reader we wait for room, then look once
             * more (see the Dekker note at the top). */
            if (!p->blocked) {
                atomic_store_explicit(&p->out_ctl->blocked, 1, memory_order_relaxed);
                p->blocked = 1;
                st->nblocked++;
                ch_shm_peer_limit(p, ring);
            }
            barrier_fast(st);
            p->peer_consumed = atomic_load_explicit(&p->out_ctl->consumed, memory_order_acquire);
            if (p->sent - p->peer_consumed > ring - need)
                return CANAL_AGAIN;
        }
    }

    r = ch_shm_rec_at(p->out_ring, at);
    dst = r->bytes;
    common_copy_small(dst, iov[0].iov_base, hdr_len);
    dst += ch_shm_payload_off(hdr_len, len);
    for (int i = 1; i < n; i++) {
        common_copy_small(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    r->lens = (uint32_t)hdr_len | (uint32_t)len << 8;
    ring_publish(st, p, r, pos, at, end, rec, skip);
    return CANAL_OK;
}

/* The straight path: a header of 1 to SHM_STRAIGHT_HDR bytes and at most
 * one payload of up to SHM_STRAIGHT_PAYLOAD (the device's eager packets of
 * small and mid-size messages: up to SHM_PAYLOAD_ALIGN_FROM copied inline,
 * 8-byte aligned after the header; larger ones placed as ch_shm_payload_off
 * says and copied by memcpy), into the ring where it stands, with room
 * known (or found at one load of the reader's count). One compare against the peer's out_limit
 * (ch_shm_peer_limit) says no skip, no soft-wrap try, no blocked flag to
 * clear, a live peer and a record that ends a line before the ring's end;
 * a stream past a soft-wrap boundary with nothing received since the last
 * try (no try due) stays here after three more. The device's 16-byte
 * header is copied at its fixed size. Anything else, an error included,
 * goes to sendv_general() by a tail call, which checks everything again;
 * kept out of line so that this path saves fewer registers (bench.md,
 * helpers ring3 and ring4: instructions per send). */
enum { SHM_STRAIGHT_HDR = 32 };
/* At most the smallest payload_cap (ch_shm_layout_compute: 1024), so the
 * straight path needs no look at the layout's cap. A 256-byte block of a
 * scatter's root took the general path's checks, about 220 instructions
 * against the straight path's 60 (doc/bench.md, helper lat13). */
enum { SHM_STRAIGHT_PAYLOAD = 1024 };

/* The straight path's copy of a payload above 64 bytes: memcpy out of line
 * and out of GCC's value ranges (noipa; inline, or given len <= 1024, it made
 * the copy a rep movsq, one instruction per 8 bytes under callgrind, where
 * glibc's memcpy, as the general path calls it, moves 32 bytes a load). */
static __attribute__((noipa)) void straight_copy(void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
}

canal_status_t ch_shm_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    ch_shm_state_t *st = ep->state;
    ch_shm_peer_t *p;
    ch_shm_rec_t *r;
    const void *hb, *pb = NULL;
    size_t hl, len = 0;
    uint32_t pos, rec, end, seq, lens, ring;
    int li;

    if ((unsigned)peer >= (unsigned)st->send_n || (unsigned)n - 1 > 1 || iov == NULL)
        goto general;
    li = st->local_of[peer];
    hl = iov[0].iov_len;
    hb = iov[0].iov_base;
    if (li < 0 || hl - 1 >= SHM_STRAIGHT_HDR || hb == NULL)
        goto general;
    if (n == 2) {
        len = iov[1].iov_len;
        pb = iov[1].iov_base;
        if (len > SHM_STRAIGHT_PAYLOAD || (len != 0 && pb == NULL))
            goto general;
    }
    /* From here on the general path is called with p->world for peer and
     * n from the payload's length (a second iovec of 0 bytes changes
     * nothing there): ep, peer and n need no register. */
    p = &st->peers[li];
    pos = p->out_pos;
    lens = (uint32_t)hl | (uint32_t)len << 8;
    rec = ch_shm_rec_size(hl, len);
    ring = (uint32_t)st->lay.ring_bytes;
    if (pos + rec > p->out_limit &&
        (p->out_limit == 0 || pos + rec > ring - 2 * SHM_LINE || p->wrap_recs != p->received_recs))
        goto late;
    end = ch_shm_rec_next(pos, rec);
    if (p->sent - p->peer_consumed > ring - SHM_REC_HEAD - (end - pos)) {
        p->peer_consumed = atomic_load_explicit(&p->out_ctl->consumed, memory_order_acquire);
        if (p->sent - p->peer_consumed > ring - SHM_REC_HEAD - (end - pos))
            goto late;
    }
    r = ch_shm_rec_at(p->out_ring, pos);
    if (hl == 16)
        memcpy(r->bytes, hb, 16); /* the device's tiny header */
    else
        common_copy_small(r->bytes, hb, hl);
    if (len > SHM_PAYLOAD_ALIGN_FROM)
        straight_copy(r->bytes + ch_shm_payload_off(hl, len), pb, len);
    else if (len != 0)
        common_copy_small(r->bytes + ((hl + 7) & ~(size_t)7), pb, len);
    r->lens = lens;
    /* ring_publish() without a skip, a new lap, the ring's end or a blocked
     * flag: the terminator inside the last line, the sequence, the counts,
     * the line ahead (the record crossed into a new line: pos and end lie
     * in different lines), the doorbell. */
    seq = p->sent_recs + 1;
    p->sent += end - pos;
    if ((end & (SHM_LINE - 1)) != 0)
        atomic_store_explicit(&ch_shm_rec_at(p->out_ring, end)->seq, seq, memory_order_relaxed);
    atomic_store_explicit(&r->seq, seq, memory_order_release);
    p->sent_recs = seq;
    p->out_pos = end;
    if ((pos ^ end) >= SHM_LINE)
        __builtin_prefetch(p->out_ring + ((end + SHM_LINE) & ~(uint32_t)(SHM_LINE - 1)), 1, 3);
    if (p->bell != NULL)
        wake_slot(st, p->bell);
    return CANAL_OK;
late:
    return sendv_general(st, p->world, iov, lens >> 8 != 0 ? 2 : 1);
general:
    return sendv_general(st, peer, iov, n);
}

/* A turn: a packet of at most SHM_TURN_BYTES that the device expects the
 * peer to be waiting for, with nothing posted here (channel.h, sendv_turn).
 * On this Intel host a line written by one core and read by the other, with
 * the answer in another line, costs two to three times a line both write
 * in turn (doc/bench.md, stop 35: 119-201 ns one way against 53-75), and
 * a ring per direction is the first case. So each pair of local ranks
 * shares one line, half each way (ch_shm_turn_t): a ping-pong moves that
 * one line once per message. A half is written again only once the peer
 * acknowledged its last turn, which only the peer's own turns do (its
 * answer in a ping-pong): a store of its own for it made the peer's line
 * bounce in the patterns that answer through the ring (doc/bench.md, stop
 * 37). Else, and for anything larger, the packet goes through the ring.
 * Order with the ring holds by the count of ring records sent before the
 * turn, which the reader must have taken first (progress()). Two senders
 * at once would contend for the line (Exchange's shape, stop 35's
 * prototype): the device asks for a turn only for an MPI_Send with no
 * receive posted. */
canal_status_t ch_shm_sendv_turn(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    ch_shm_state_t *st = ep->state;
    ch_shm_peer_t *p;
    ch_shm_turn_t *t;
    size_t hl, len;
    uint16_t seq;
    int li;

    /* (what the device checked is not looked at again, channel.h: the
     * peer is a live local one, n and the header are good; turn_out is
     * NULL for this rank itself and with turns off) */
    li = st->local_of[peer];
    p = &st->peers[li];
    hl = iov[0].iov_len;
    len = n == 2 ? iov[1].iov_len : 0;
    if ((t = p->turn_out) == NULL || hl - 1 >= SHM_TURN_BYTES ||
        len > SHM_TURN_BYTES - ch_shm_payload_off(hl, 0) || (len != 0 && iov[1].iov_base == NULL) ||
        (uint16_t)(atomic_load_explicit(&p->turn_in->head, memory_order_acquire) >> 16) !=
            p->turn_sent)
        goto ring; /* (the peer has not taken our last turn yet) */
    if (hl == 16)
        memcpy(t->bytes, iov[0].iov_base, 16); /* the device's tiny header */
    else
        common_copy_small(t->bytes, iov[0].iov_base, hl);
    if (len != 0)
        common_copy_small(t->bytes + ch_shm_payload_off(hl, 0), iov[1].iov_base, len);
    seq = (uint16_t)(p->turn_sent + 1);
    atomic_store_explicit(&t->head,
                          (uint64_t)seq | (uint64_t)p->turn_took << 16 |
                              (uint64_t)(uint16_t)p->sent_recs << 32 |
                              (uint64_t)(hl | len << 8) << 48,
                          memory_order_release);
    p->turn_sent = seq;
    st->turns_sent++;
    if (p->bell != NULL)
        wake_slot(st, p->bell);
    return CANAL_OK;
ring:
    return ch_shm_sendv(ep, peer, iov, n);
}

/* Deliver the peer's turn whose head is h. It stays in the half until the
 * peer sees it acknowledged, so that on_packet() can read it whatever it
 * sends meanwhile (channel.h): turn_took moves after the call. Inline in
 * progress() (GCC kept it out of line once progress() had two paths). */
static inline __attribute__((always_inline)) canal_status_t turn_take(ch_shm_state_t *st,
                                                                     ch_shm_peer_t *p, uint64_t h)
{
    uint32_t hl = (uint32_t)(h >> 48) & 0xff, len = (uint32_t)(h >> 56);

    if (hl == 0 || hl > SHM_TURN_BYTES || len > SHM_TURN_BYTES - ch_shm_payload_off(hl, 0))
        return common_err_set(CANAL_ERR_PROTO,
                              "shm: corrupt turn from rank %d: header %u B, payload %u B",
                              p->world, hl, len);
    st->up.on_packet(p->world, p->turn_in->bytes, hl,
                     p->turn_in->bytes + ch_shm_payload_off(hl, 0), len);
    p->turn_took++;
    return CANAL_OK;
}

__attribute__((noinline, cold)) static void check_peers_alive(ch_shm_state_t *st);

/* Give the sender back what progress() consumed from ring li: first a stale
 * sequence into every line start strictly inside the consumed bytes not
 * yet cleaned (a skip taken with nothing pending is not: see progress()),
 * where the sender writes no terminator and a later record's head may land
 * on old payload; then the consumed count (release). Called at the start of the
 * next progress() (so that a reply sent meanwhile does not wait behind these
 * stores) and before sleeping. One store for the whole batch: the sender
 * reads the count only when its ring looks full. */
static void ring_release(ch_shm_state_t *st, ch_shm_peer_t *p)
{
    uint32_t ring = (uint32_t)st->lay.ring_bytes, n = p->received - p->cleaned;
    /* (p's fields in locals: GCC took the stores into the ring for stores
     * into p and loaded all three again for every line, 12 instructions a
     * line: a 1 KiB message's release cost 222, helper lat13) */
    uint32_t from = p->rel_pos, stale = p->received_recs;
    unsigned char *in = p->in_ring;

    for (uint32_t off = SHM_LINE - (from & (SHM_LINE - 1)); off < n; off += SHM_LINE) {
        uint32_t y = from + off;
        if (y >= ring)
            y -= ring;
        atomic_store_explicit(&ch_shm_rec_at(in, y)->seq, stale, memory_order_relaxed);
    }
    p->cleaned = p->received;
    p->released = p->received;
    p->rel_pos = p->in_pos;
    atomic_store_explicit(&p->in_ctl->consumed, p->received, memory_order_release);
    /* The sender may be asleep waiting for room in this ring. */
    barrier_fast(st);
    if (p->bell != NULL && atomic_load_explicit(&p->in_ctl->blocked, memory_order_relaxed) != 0)
        wake_slot(st, p->bell);
}

/* Lines after the head's that the reader asks for at once when it finds a
 * record: a memcpy of a larger payload has the hardware prefetcher. */
enum { SHM_PREFETCH_LINES = 16 };

/* Prefetch the lines of the record of rec bytes at pos after its first one
 * (at most SHM_PREFETCH_LINES), for a record that does not fit in its first
 * line; a record never crosses the ring's end. Always inlined: GCC takes a
 * function that only prefetches for one without side effects (pure-const)
 * and dropped the calls to it. */
__attribute__((always_inline)) static inline void ring_prefetch_rest(const unsigned char *ring,
                                                                     uint32_t pos, uint32_t rec)
{
    uint32_t first = (pos & ~(uint32_t)(SHM_LINE - 1)) + SHM_LINE;
    uint32_t n = (pos + rec - first + SHM_LINE - 1) / SHM_LINE;

    if (n > SHM_PREFETCH_LINES)
        n = SHM_PREFETCH_LINES;
    for (uint32_t k = 0; k < n; k++)
        __builtin_prefetch(ring + first + k * SHM_LINE, 0, 3);
}

/* Records taken from one ring per progress() before the next ring's turn. */
enum { SHM_POLL_BATCH = 256 };

/* Take what ring li holds, up to SHM_POLL_BATCH records (and the peer's turn
 * when it is due), giving back first what the last call took: the records
 * taken, or a (negative) error for a corrupt record or turn. Inline in both
 * of progress()'s paths. */
static inline __attribute__((always_inline)) int ring_poll(ch_shm_state_t *st, ch_shm_peer_t *p,
                                                           uint32_t ring)
{
    uint32_t got = 0;

    if (p->released != p->received)
        ring_release(st, p);
    while (got < SHM_POLL_BATCH) {
        ch_shm_rec_t *r = ch_shm_rec_at(p->in_ring, p->in_pos);
        uint32_t hl, len, lens, rec, next, seq;
        uint64_t h;

        /* The ring's next sequence first, then the turn: a record sent
         * after the turn is seen only with the turn (the sender's
         * stores and these loads keep their order), so the turn is
         * never passed over. A turn is due when every ring record sent
         * before it was taken. */
        seq = atomic_load_explicit(&r->seq, memory_order_acquire);
        h = atomic_load_explicit(&p->turn_in->head, memory_order_acquire);
        if ((uint16_t)h == (uint16_t)(p->turn_took + 1) &&
            (uint16_t)(h >> 32) == (uint16_t)p->received_recs) {
            canal_status_t terr = turn_take(st, p, h);
            if (terr != CANAL_OK)
                return terr;
            /* A turn is a lone MPI_Send's, whose sender most likely waits
             * now: ring records sent after it are rare, and the next poll
             * takes them (no second look at both words for a ping-pong's
             * answer: about 12 instructions an arrival, helper lat13). */
            got++;
            break;
        }
        if (seq != p->received_recs + 1) {
            /* Nothing new, polling a line start: ask for the next line
             * too, again at every such poll. A record of 41-64 B
             * crosses into it; its sender writes both lines before it
             * publishes the sequence in the first, so the second comes
             * while this one is awaited, not after (far, 48-64 B
             * osu_latency 0.37-0.40 us against 0.42-0.50). Not from a
             * line's middle: a stream of 32-byte records then fills
             * the polled line first, and a reader pulling the next
             * one back on every poll took it from the sender's writes
             * (osu_mbw_mr 8 B far, medians 9.9 against 13.0 M msg/s;
             * at line starts only, 13.7) (doc/bench.md, stop 33). */
            uint32_t ahead = (p->in_pos | (SHM_LINE - 1)) + 1;
            if (got == 0 && (p->in_pos & (SHM_LINE - 1)) == 0 && ahead < ring)
                __builtin_prefetch(p->in_ring + ahead, 0, 3);
            break;
        }
        lens = r->lens;
        hl = lens & 0xff;
        len = lens >> 8;
        if (hl == SHM_REC_SKIP && len == 0) {
            /* The skipped bytes were not written since this reader
             * last cleaned or skipped them: their line starts hold
             * stale sequences already. With nothing else waiting to be
             * cleaned (always so after a soft wrap, which needs the
             * reader caught up), they are not cleaned again: a soft
             * wrap skips most of the ring, and cleaning it would pull
             * every line into this cache. Given back as usual. */
            int clean = p->cleaned == p->received;
            p->received += ring - p->in_pos;
            p->received_recs++;
            p->in_pos = 0;
            if (clean) {
                p->cleaned = p->received;
                p->rel_pos = 0;
            }
            continue;
        }
        rec = ch_shm_rec_size(hl, len);
        if (hl > CH_HDR_MAX || len > st->lay.payload_cap || rec > ring - p->in_pos) {
            atomic_store_explicit(&p->in_ctl->consumed, p->received, memory_order_release);
            return common_err_set(CANAL_ERR_PROTO,
                                  "shm: corrupt record from rank %d at offset %u: header %u B, "
                                  "payload %u B",
                                  p->world, p->in_pos, hl, len);
        }
        /* The record's other lines (a 41-64 B message with its 16-byte
         * header crosses into a second line): ask for them all now, so
         * that they come from the sender's cache together with the
         * device's matching instead of one after the other when
         * on_packet() copies the payload out. */
        if ((p->in_pos & (SHM_LINE - 1)) + rec > SHM_LINE)
            ring_prefetch_rest(p->in_ring, p->in_pos, rec);
        /* Start pulling the line after this record from the sender's
         * cache while this packet is handled: when messages stream it
         * is already written, and its transfer overlaps this one's
         * delivery instead of following it. It pays off beyond
         * streams: without it (far) the one-way stream of 8-byte
         * records took 49-74 ns a message against 38-40, and
         * Exchange's aligned state (two records sharing the next
         * line, shm_pingpong ex+gap) fell to the odd one's 530-550 ns
         * from 450; taken only from a poll's second record on, the
         * stream lost in two rounds of three (bench.md, helper bidir). */
        if (p->in_pos + rec + SHM_LINE < ring)
            __builtin_prefetch(p->in_ring + p->in_pos + rec + SHM_LINE, 0, 3);
        st->up.on_packet(p->world, r->bytes, hl, r->bytes + ch_shm_payload_off(hl, len), len);
        next = ch_shm_rec_next(p->in_pos, rec);
        p->received += next - p->in_pos;
        p->received_recs++;
        p->in_pos = next == ring ? 0 : next;
        got++;
    }
    /* Given back at the next call, unless the sender waits for room, or
     * the bytes held back could be all that keeps it from sending (then
     * it could wait for a reader that has nothing left to read). */
    if (p->released != p->received &&
        (p->received - p->released > ring - 2 * (uint32_t)st->lay.cell_stride ||
         atomic_load_explicit(&p->in_ctl->blocked, memory_order_relaxed) != 0))
        ring_release(st, p);
    return (int)got;
}

/* 1 if ring_poll() would find nothing new in p's ring: no record at the
 * next position, no new turn of the peer's (valid only with nothing to give
 * back: progress(), release_due). Loaded in ring_poll()'s order (the
 * sequence, then the turn's head); a ring with anything new is polled in
 * full, which loads both again. An idle ring at a line start has its next
 * line prefetched, as ring_poll() does. */
static inline __attribute__((always_inline)) int ring_idle(const ch_shm_peer_t *p,
                                                           uint32_t last_line)
{
    unsigned char *in = p->in_ring;
    uint32_t pos = p->in_pos;

    if (atomic_load_explicit(&ch_shm_rec_at(in, pos)->seq, memory_order_acquire) ==
            p->received_recs + 1 ||
        (uint16_t)atomic_load_explicit(&p->turn_in->head, memory_order_acquire) ==
            (uint16_t)(p->turn_took + 1))
        return 0;
    if ((pos & (SHM_LINE - 1)) == 0 && pos < last_line)
        __builtin_prefetch(in + pos + SHM_LINE, 0, 3);
    return 1;
}

/* A dead peer is otherwise noticed only by a wait that sleeps; a rank whose
 * ring to it is full, or that never sleeps (locked mode), looks too: every
 * 256th empty poll while blocked (it reads the clock, which on every poll
 * cost a sender waiting for room more than the polls), every 4096th else,
 * and at most every 0.1 s. */
static inline void progress_idle(ch_shm_state_t *st)
{
    if ((++st->idle_polls & (st->nblocked > 0 ? 255 : 4095)) == 0)
        check_peers_alive(st);
}

/* progress() with something to do: our own ring holds records or bytes to
 * give back, or ring poll_order[rr_next + first] has news (the ones before
 * it had none). Nothing in the others' rings waits to be given back
 * (progress_released). */
__attribute__((noinline)) static int progress_rings(ch_shm_state_t *st, int first)
{
    ch_shm_peer_t *const *order = st->poll_order + st->rr_next;
    ch_shm_peer_t *me = st->own;
    uint32_t ring = (uint32_t)st->lay.ring_bytes, last_line = ring - SHM_LINE;
    int n = st->local_size - 1, total = 0, got;

    st->in_progress = 1;
    /* Our own ring holds something only if we put it there; nothing orders
     * it against the others' rings. */
    if (me->sent != me->received || me->released != me->received) {
        if ((total = ring_poll(st, me, ring)) < 0)
            goto fail;
    }
    /* The others' rings round robin, each first in turn (one busy peer does
     * not starve the others: SHM_POLL_BATCH); from `first`, as those before
     * it had nothing a moment ago. */
    for (int k = first; k < n; k++) {
        if (k != first && ring_idle(order[k], last_line))
            continue;
        if ((got = ring_poll(st, order[k], ring)) < 0) {
            total = got;
            goto fail;
        }
        total += got;
    }
    st->rr_next = st->rr_next + 1 < n ? st->rr_next + 1 : 0;
    st->in_progress = 0;
    /* Only a ring this call took from can hold bytes not given back. */
    st->release_due = total != 0;
    if (total == 0)
        progress_idle(st);
    return total;
fail:
    st->in_progress = 0;
    st->release_due = 1;
    return total;
}

/* The poll with nothing to give back in the others' rings: our own ring
 * first if it holds anything, then one look at each peer's ring (ring_idle:
 * two loads) with no call and no register saved, which is what a waiting
 * rank pays per poll; the first ring with news and everything after it go
 * to progress_rings(). */
static inline __attribute__((always_inline)) int progress_scan(ch_shm_state_t *st)
{
    const ch_shm_peer_t *me = st->own;
    ch_shm_peer_t *const *order, *const *o, *const *end;
    uint32_t last_line;

    if (me->sent != me->received || me->released != me->received)
        return progress_rings(st, 0);
    order = st->poll_order + st->rr_next;
    end = order + st->local_size - 1;
    last_line = (uint32_t)st->lay.ring_bytes - SHM_LINE;
    for (o = order; o < end; o++)
        if (!ring_idle(*o, last_line))
            return progress_rings(st, (int)(o - order));
    st->rr_next = st->rr_next + 2 < st->local_size ? st->rr_next + 1 : 0;
    progress_idle(st);
    return 0;
}

/* The poll after one that took something: first give back what it took,
 * as ring_poll() would at its start (only a ring that call took from can
 * hold any), then the scan. */
__attribute__((noinline)) static int progress_released(ch_shm_state_t *st)
{
    ch_shm_peer_t *const *order = st->poll_order;
    int n = st->local_size - 1;

    for (int k = 0; k < n; k++)
        if (order[k]->released != order[k]->received)
            ring_release(st, order[k]);
    st->release_due = 0;
    return progress_scan(st);
}

/* Two local ranks and nothing in our own ring (nothing sent to ourselves,
 * nothing to give back): the peer's ring alone, with no round robin to keep
 * (a ping-pong's polls, empty or not; the loop cost about 40 instructions
 * more: doc/bench.md, helper near9), and the packet delivered from here:
 * the scan's call to progress_rings() cost the arrival about 50 more
 * (helper coll9). ring_poll() gives back first, so this keeps no
 * release_due: progress_rings(st, 0) polls that ring in full. */
__attribute__((noinline)) static int progress_pair(ch_shm_state_t *st)
{
    int total;

    st->in_progress = 1;
    total = ring_poll(st, &st->peers[1 - st->local_rank], (uint32_t)st->lay.ring_bytes);
    st->in_progress = 0;
    if (total == 0)
        progress_idle(st);
    return total;
}

int ch_shm_progress(ch_endpoint_t *ep)
{
    ch_shm_state_t *st = ep->state;
    const ch_shm_peer_t *me;

    /* on_packet() may call sendv() but a nested progress() would deliver
     * out of order from under the outer loop: it polls nothing. */
    if (!st->attached || st->in_progress)
        return 0;
    me = st->own;
    if (st->local_size == 2 && me->sent == me->received && me->released == me->received)
        return progress_pair(st);
    if (st->release_due)
        return progress_released(st);
    return progress_scan(st);
}

/* Something to do: a record in an incoming ring, or room freed in a ring we
 * were blocked on. Called after announcing sleep (store; fence). */
static int ch_shm_ready(ch_shm_state_t *st)
{
    for (int li = 0; li < st->local_size; li++) {
        ch_shm_peer_t *p = &st->peers[li];
        ch_shm_rec_t *r = ch_shm_rec_at(p->in_ring, p->in_pos);
        if (atomic_load_explicit(&r->seq, memory_order_acquire) == p->received_recs + 1 ||
            (uint16_t)atomic_load_explicit(&p->turn_in->head, memory_order_acquire) ==
                (uint16_t)(p->turn_took + 1))
            return 1;
        if (p->blocked &&
            atomic_load_explicit(&p->out_ctl->consumed, memory_order_acquire) != p->peer_consumed)
            return 1;
    }
    return 0;
}
/* A local peer that dies cannot say so: while we sleep with nothing to do,
 * or poll in vain (progress), look at the peers' pids now and then, at most
 * every 0.1 s (never on the fast path). Only in our own pid namespace: a
 * peer in another one (a container per rank) has a pid that names nothing
 * here, and its loss is left to the launcher. */
__attribute__((noinline, cold)) static void check_peers_alive(ch_shm_state_t *st)
{
    double t = common_now_s();

    if (t - st->last_alive_check < 0.1)
        return;
    st->last_alive_check = t;
    for (int li = 0; li < st->local_size; li++) {
        ch_shm_peer_t *p = &st->peers[li];
        if (li == st->local_rank || p->dead ||
            atomic_load_explicit(&st->slots[li].finalized, memory_order_acquire))
            continue;
        if (common_pid_gone(st->slots[li].pid, st->slots[li].pidns) == 1) {
            p->dead = 1;
            st->ndead++;
            ch_shm_peer_limit(p, (uint32_t)st->lay.ring_bytes);
            common_err_set(CANAL_ERR_PEER, "shm: the process of job rank %d (pid %ld) is gone", p->world,
                           (long)st->slots[li].pid);
            if (st->up.on_peer_failed != NULL)
                st->up.on_peer_failed(p->world, CANAL_ERR_PEER);
        }
    }
}

/* One sleep of at most timeout_us (< 0: no limit). Returns CANAL_AGAIN if
 * it timed out with nothing to do and no peer newly dead, else CANAL_OK.
 * ready (or NULL): the sleeper's own condition, checked with the rings
 * after the announcement -- the third Dekker pair: whoever changes what it
 * waits for (the node's shared collective block) stores, then rings
 * through wake() (barrier; load sleeping). */
static canal_status_t block_once(ch_shm_state_t *st, long timeout_us, int (*ready)(void *arg),
                                 void *arg)
{
    ch_shm_slot_t *me = &st->slots[st->local_rank];
    struct timespec ts, *tsp = NULL;
    int dead_before = st->ndead;
    uint32_t seen;

    /* A sender may wait for what this rank consumed but has not given back. */
    for (int li = 0; li < st->local_size; li++)
        if (st->peers[li].released != st->peers[li].received)
            ring_release(st, &st->peers[li]);

    atomic_store_explicit(&me->sleeping, 1, memory_order_seq_cst);
    if (barrier_slow(st) != 0) {
        atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
        return CANAL_OK; /* cannot sleep safely; the device polls */
    }
    seen = atomic_load_explicit(&me->seq, memory_order_acquire);
    if (timeout_us == 0 || ch_shm_ready(st) || (ready != NULL && ready(arg))) {
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
    if (futex_call(&me->seq, FUTEX_WAIT, seen, tsp) != 0) {
        int e = errno;
        if (e != EAGAIN && e != ETIMEDOUT && e != EINTR) {
            atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
            return common_err_set(CANAL_ERR_IO, "shm block: futex wait: %s", strerror(e));
        }
        if (e == ETIMEDOUT) {
            atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
            check_peers_alive(st);
            return st->ndead != dead_before ? CANAL_OK : CANAL_AGAIN;
        }
    }
    atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
    return CANAL_OK;
}

canal_status_t ch_shm_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                            void *arg)
{
    ch_shm_state_t *st = ep->state;
    canal_status_t err;

    if (!st->attached)
        return common_err_set(CANAL_ERR_INTERN, "shm block: used before post_fence()");
    if (timeout_us >= 0 || st->local_size == 1)
        return block_once(st, timeout_us, ready, arg);
    /* No limit: sleep in slices so that a dead peer is still noticed. */
    while ((err = block_once(st, 200000, ready, arg)) == CANAL_AGAIN)
        ;
    return err;
}

void ch_shm_wake(ch_endpoint_t *ep, int peer)
{
    ch_shm_state_t *st = ep->state;
    int li;

    if (!st->attached || peer < 0 || peer >= st->world_size)
        return;
    li = st->local_of[peer];
    if (li < 0 || li == st->local_rank)
        return;
    wake_local(st, li);
}
