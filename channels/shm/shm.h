/*
 * Internals of the shared-memory channel (channels/shm/), shared by its source
 * files and by its unit test (test/unit/test_ch_shm.c); the device sees only
 * ch_shm_ops from channels/channel.h.
 *
 * One POSIX shm segment per node and job holds, in this order:
 *   - a header (magic, version, the layout the creator chose);
 *   - one slot per local rank: a doorbell line (futex word + "I am asleep"
 *     flag) and a line with the rank's pid and a probe address for CMA;
 *   - the rings, grouped by receiver: receiver r's block holds one ring per
 *     sender s (self included), each two control lines (the sender's "I am
 *     blocked on a full ring" flag; the receiver's count of consumed
 *     packets) followed by `ncells` cells (a power of two). Each block
 *     starts on a page so that the receiver's first touch places it.
 * A ring is a byte ring of ncells * cell_stride bytes (the geometry is still
 * given in cells: a cell is what the largest packet needs) holding records
 * back to back, each 8-byte aligned: an 8-byte head (sequence number, header
 * length and payload length in one word), the header bytes and, 8-byte
 * aligned after them (32-byte aligned above 64 bytes), the payload. A record
 * of more than 32 bytes, or one that leaves less than 32 in its line, is
 * followed by padding to the next line. A small message thus costs the bytes
 * it needs, not a cell: an 8-byte eager message takes 32 bytes, two share a
 * cache line, and a window of them fills the ring only after thousands.
 * Record m of a ring carries sequence m + 1; the receiver polls the head at its read
 * position for the sequence it expects. The sender writes a record, then a
 * stale sequence into the head that follows it (the "terminator"), then
 * publishes the record's sequence: the receiver, at the next position, sees
 * the terminator until the next record is published, never old bytes that
 * happen to look like a head. The terminator is written only inside the
 * record's last line; a line start gets a stale sequence from the receiver
 * when the receiver gives back the bytes around it, and before any record
 * reached it, at attach (shm.c, in_ring_init). A record that would run past the end leaves a
 * skip record there and starts again at offset 0; so does one that crosses
 * a multiple of the soft-wrap size (CANAL_SHM_SOFT_WRAP, 8 KiB) when the
 * receiver has given back everything sent (the soft wrap, shm_ring.c: a
 * ping-pong reuses the ring's first lines instead of walking it all). The
 * receiver does not clean the line starts of skipped bytes: none was
 * written since it last cleaned or skipped them. The sender reuses bytes
 * once the receiver's consumed count (bytes, wrapping) says they were
 * consumed; the receiver never writes the ring, and the counts themselves
 * live in each process's memory.
 */
#ifndef CANAL_CH_SHM_H
#define CANAL_CH_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "channels/channel.h"

enum {
    SHM_LINE = 64,
    SHM_MAGIC = 0x314d5343, /* "CSM1" */
    SHM_VERSION = 1,
    SHM_CELL_HEAD = 16,
};

/* The probe word every rank exposes for the CMA probe ("CANALCMA"). */
#define SHM_CMA_PROBE 0x414d434c414e4143ULL

/* The segment's geometry; every rank computes it from local_size and the
 * CANAL_SHM_* variables, and attachers check it against the creator's. */
typedef struct {
    int local_size;
    size_t payload_cap;  /* max_payload: payload bytes one cell carries */
    size_t ncells;       /* cells per ring, a power of two */
    size_t cell_stride;  /* what the largest record needs (cache-line multiple) */
    size_t ring_bytes;   /* ncells * cell_stride: the records' room in one ring */
    size_t ring_stride;  /* control lines + cells */
    size_t block_stride; /* one receiver's rings, page multiple */
    size_t slots_off;    /* offset of the per-rank slots */
    size_t rings_off;    /* offset of receiver 0's block (page multiple) */
    size_t seg_size;
    int over_budget; /* even the smallest layout exceeds the limit */
} ch_shm_layout_t;

typedef struct {
    uint32_t magic;
    uint32_t version;
    uint32_t local_size;
    uint32_t pad;
    uint64_t payload_cap;
    uint64_t ncells;
    uint64_t cell_stride;
    uint64_t block_stride;
    uint64_t seg_size;
} ch_shm_seg_head_t;

typedef struct {
    /* Doorbell: written by its owner (sleeping) and by wakers (seq). */
    _Alignas(SHM_LINE) _Atomic uint32_t seq; /* futex word; wakers bump it */
    _Atomic uint32_t sleeping;               /* owner is in (or entering) block() */
    /* Identity: written once by the owner before the second fence. */
    _Alignas(SHM_LINE) int32_t pid;
    uint32_t membarrier_ok; /* registered for MEMBARRIER_CMD_GLOBAL_EXPEDITED */
    uint64_t probe_addr;
    uint64_t pidns; /* its pid namespace (common_pidns): where pid means it */
    _Atomic uint32_t finalized; /* left cleanly: its exit is not a failure */
} ch_shm_slot_t;

/* One direction of the line a pair of local ranks shares for turns
 * (shm_ring.c, ch_shm_sendv_turn): a packet of at most SHM_TURN_BYTES,
 * header and payload (placed as in a small ring record, ch_shm_payload_off:
 * 8-aligned after the header), under one 8-byte head that only
 * the half's owner writes: the turn's number (16 bits, the first is 1), the
 * number of the last turn of the peer's that the owner took (its
 * acknowledgement: the peer writes its half again only after it), the ring
 * records the owner had sent before this turn (the low 16 bits: the reader
 * takes the turn when it has taken exactly those), and the lengths (header
 * | payload << 8). A half is read only by the peer, so a ping-pong moves the
 * line once per message: the answer carries the acknowledgement, and
 * nobody frees a half by writing it (which made the waiting peer take the
 * line twice, doc/bench.md, stop 37 (lead)). */
enum { SHM_TURN_BYTES = 24 };
typedef struct {
    _Atomic uint64_t head;
    unsigned char bytes[SHM_TURN_BYTES];
} ch_shm_turn_t;

/* A turn names the ring records before it by their count's low 16 bits,
 * which is exact while a ring cannot hold 2^16 records unread (a record
 * takes 16 bytes at least, a skip 8 once a lap): rings larger than that
 * (CANAL_SHM_* settings of more than 1 MiB) send no turns. */
static inline int ch_shm_turns_fit(size_t ring_bytes)
{
    return ring_bytes / 16 + 2 < 65536;
}

typedef struct {
    /* The pair's line, in the control lines of ring lo -> hi only (lo < hi,
     * local ranks): turn[0] is lo's half, turn[1] hi's. */
    _Alignas(SHM_LINE) ch_shm_turn_t turn[2];
    /* Written by the sender when it found the ring full and may sleep. */
    _Alignas(SHM_LINE) _Atomic uint32_t blocked;
    /* Written by the receiver: bytes consumed so far (wraps). */
    _Alignas(SHM_LINE) _Atomic uint32_t consumed;
} ch_shm_ring_ctl_t;

/* A record's head. lens: header length in the low 8 bits (SHM_REC_SKIP for
 * a skip record, which carries nothing and sends the reader to offset 0),
 * payload length above them (payload_cap is at most 1 MiB). */
typedef struct {
    _Atomic uint32_t seq; /* record number + 1 (wraps) */
    uint32_t lens;
    unsigned char bytes[]; /* header, then payload at ch_shm_payload_off(hdr_len, len) */
} ch_shm_rec_t;

enum { SHM_REC_HEAD = 8, SHM_REC_SKIP = 0xff };
_Static_assert((int)CH_HDR_MAX < (int)SHM_REC_SKIP, "a header length fits the head's low byte");

/* Per local peer, in this process's memory. */
typedef struct {
    unsigned char *out_ring; /* ring me -> peer */
    ch_shm_ring_ctl_t *out_ctl;
    unsigned char *in_ring; /* ring peer -> me */
    ch_shm_ring_ctl_t *in_ctl;
    uint32_t sent;          /* bytes put into out ring (wraps) */
    uint32_t sent_recs;     /* records put into out ring (wraps) */
    uint32_t out_pos;       /* offset of the next record in out ring */
    uint32_t peer_consumed; /* out_ctl->consumed when last read */
    uint32_t received;      /* bytes consumed from in ring (wraps) */
    uint32_t received_recs; /* records consumed from in ring (wraps) */
    uint32_t in_pos;        /* offset of the next record in in ring */
    uint32_t released;      /* bytes given back to the sender (in_ctl->consumed) */
    uint32_t cleaned;       /* bytes whose line starts were cleaned or need none (skipped) */
    uint32_t rel_pos;       /* offset up to which they were cleaned */
    uint32_t wrap_at;       /* out_pos + record beyond this: try the soft wrap */
    uint32_t wrap_recs;     /* received_recs at the last soft-wrap try */
    uint32_t out_limit;     /* the straight path's bound (ch_shm_peer_limit) */
    int world;              /* the peer's rank in the job */
    int blocked;            /* we set out_ctl->blocked and have not cleared it */
    int dead;               /* its process is gone (reported once) */
    int out_read;           /* out ring read once (shm_ring.c, ring_out_read) */
    ch_shm_slot_t *bell;    /* the peer's doorbell; NULL for this rank's own ring */
    ch_shm_turn_t *turn_out; /* this rank's half of the pair's line; NULL for its own
                                ring and when turns are off (ch_shm_turns_fit) */
    ch_shm_turn_t *turn_in;  /* the peer's half (else a half never written) */
    uint16_t turn_sent;      /* the number of this rank's last turn to the peer */
    uint16_t turn_took;      /* the number of the peer's last turn taken */
} ch_shm_peer_t;

/* The straight send path's one compare: a record of rec bytes at out_pos
 * with out_pos + rec <= out_limit needs no skip, no soft-wrap try and no
 * blocked flag cleared, and ends at least a line before the ring's end (so
 * the terminator, the next position and the line prefetched ahead need no
 * test for it). min(wrap_at, ring end - 2 lines), or 0 while the sender is
 * blocked on the ring, the peer is dead or the out ring was not read yet
 * (the first send takes the general path); set wherever those change. */
static inline void ch_shm_peer_limit(ch_shm_peer_t *p, uint32_t ring)
{
    uint32_t lim = ring > 2 * SHM_LINE ? ring - 2 * SHM_LINE : 0;

    if (p->wrap_at < lim)
        lim = p->wrap_at;
    p->out_limit = p->blocked | p->dead | !p->out_read ? 0 : lim;
}

enum { SHM_CMA_NO = 0, SHM_CMA_YES = 1, SHM_CMA_AUTO = 2 };
enum { SHM_CMA_UNKNOWN = 0, SHM_CMA_WORKS = 1, SHM_CMA_DENIED = 2 };

typedef struct {
    int initialized; /* init() succeeded */
    int attached;    /* post_fence() succeeded: sendv/progress usable */
    int send_n;      /* world_size once attached, else 0 (sendv's one test) */
    ch_upcalls_t up;
    int world_rank, world_size;
    int local_rank, local_size;
    int *local_of; /* world rank -> local index, -1 if not on this node */
    ch_shm_peer_t *peers;
    ch_shm_peer_t *own; /* &peers[local_rank]: the ring this rank sends itself */
    ch_shm_layout_t lay;

    char name[96]; /* "/canal-..." ; empty for the anonymous one-rank case */
    int creator;
    int anon;
    int unlinked;
    int armed_slot; /* shm_seg.c's crash clean-up slot while armed, else -1 */
    unsigned char *base;
    ch_shm_slot_t *slots;

    /* The other local ranks' peers in order, twice (2 * (local_size - 1)
     * entries): progress() polls poll_order[rr_next ...] for local_size - 1
     * rings, a round robin without a modulo or a test for the own ring. */
    ch_shm_peer_t **poll_order;
    int rr_next;       /* where the next progress() starts polling (0..local_size - 2) */
    int release_due;   /* the last progress() took something: a ring may hold
                        * bytes not given back yet (released != received) */
    int in_progress;   /* progress() is on the stack (on_packet re-entry) */
    int nblocked;      /* peers whose ring we are blocked on */
    int mb_registered; /* this process registered for global expedited membarrier */
    int turns;         /* CANAL_SHM_TURNS: ping-pong turns through the pairs' lines */
    int mb;            /* every local rank did: sleepers use membarrier(), the fast
                        * paths only a compiler barrier (see shm_ring.c) */

    uint32_t wrap_first; /* first soft-wrap boundary of a lap (UINT32_MAX: never) */

    int cma_mode;
    int cma_state;
    char cma_why[160];
    int cma_write_fail; /* CANAL_SHM_CMA_WRITE_FAIL (testing): the errno every
                         * rdma_write fails with, as process_vm_writev would; 0 */
    /* CANAL_SHM_CMA_FAIL_AFTER (testing): reads (each message of a batch
     * one) are counted from 1; read number cma_fail_at fails with
     * cma_fail_errno, after its first half when cma_fail_partial; in a
     * batch, its first (cma_fail_where -1) or last (1) read instead. 0: off
     * (cma_reads then counts only the reads of batches, unused) */
    uint64_t cma_fail_at;
    uint64_t cma_reads;
    int cma_fail_errno;
    int cma_fail_partial;
    int cma_fail_where;
    int cma_fail_probe; /* (with ,probe: the init probes fail with cma_fail_errno) */
    int cma_yes_warned; /* a single copy failed under CANAL_SHM_CMA=yes: warned once */
    size_t eager_limit; /* CANAL_SHM_EAGER_LIMIT: eager_hint() while CMA is not
                         * known refused */

    double last_alive_check; /* CLOCK_MONOTONIC seconds */
    unsigned idle_polls;     /* progress() calls that found nothing */
    int ndead;               /* peers found dead */

    /* Counters for tests and describe(). */
    unsigned long futex_wakes;
    unsigned long futex_waits;
    unsigned long turns_sent; /* packets sent through a pair's line (tests) */
    unsigned long soft_wraps; /* records sent back to offset 0 early (the soft wrap) */
} ch_shm_state_t;

/* Where a record's payload starts after its head: 8-byte aligned after the
 * header, or, above 64 bytes of payload, 32-byte aligned in the record (the
 * record starts a line): 128-256 B ping-pong took 0.2 us longer far with the
 * payload 24 bytes into the line (bench.md), and a small message keeps its
 * 32-byte record. */
enum { SHM_PAYLOAD_ALIGN_FROM = 64 };
static inline size_t ch_shm_payload_off(size_t hdr_len, size_t len)
{
    if (len > SHM_PAYLOAD_ALIGN_FROM)
        return ((SHM_REC_HEAD + hdr_len + 31) & ~(size_t)31) - SHM_REC_HEAD;
    return (hdr_len + 7) & ~(size_t)7;
}

/* Bytes a record of this header and payload takes in the ring. */
static inline uint32_t ch_shm_rec_size(size_t hdr_len, size_t len)
{
    return (uint32_t)((SHM_REC_HEAD + ch_shm_payload_off(hdr_len, len) + len + 7) & ~(size_t)7);
}

/* Where the record after one of rec bytes at offset `at` starts: right after
 * it if it has at most SHM_REC_PAD bytes and at least as many are left in
 * its line, else at the next line. Records of up to 32 bytes (an eager
 * message of up to 8 bytes) thus share lines two by two, and no record
 * straddles a line it need not: a ping-pong message costs the lines it
 * fills, as with a cell per packet. Sender and receiver both compute it;
 * the caller maps `ring` to 0. */
enum { SHM_REC_PAD = 32 };
static inline uint32_t ch_shm_rec_next(uint32_t at, uint32_t rec)
{
    uint32_t end = at + rec, in_line = end & (SHM_LINE - 1);

    if (in_line == 0 || (rec <= SHM_REC_PAD && SHM_LINE - in_line >= SHM_REC_PAD))
        return end;
    return end - in_line + SHM_LINE;
}

static inline ch_shm_rec_t *ch_shm_rec_at(unsigned char *ring, uint32_t off)
{
    return (ch_shm_rec_t *)(void *)(ring + off);
}

/* shm_seg.c */
canal_status_t ch_shm_layout_compute(int local_size, size_t payload_cap, size_t ncells,
                                     size_t max_bytes, ch_shm_layout_t *out);
void ch_shm_seg_name(const char *jobid, int node, long pid, const char *instance, char *out,
                     size_t len);
canal_status_t ch_shm_seg_create(ch_shm_state_t *st);
canal_status_t ch_shm_seg_attach(ch_shm_state_t *st, const char *name);
canal_status_t ch_shm_seg_unlink(ch_shm_state_t *st);
void ch_shm_seg_detach(ch_shm_state_t *st);

/* shm_ring.c */
int ch_shm_membarrier_register(void);
uint32_t ch_shm_soft_wrap_first(size_t soft_wrap, size_t ring_bytes);
canal_status_t ch_shm_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
canal_status_t ch_shm_sendv_turn(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
int ch_shm_progress(ch_endpoint_t *ep);
canal_status_t ch_shm_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                            void *arg);
void ch_shm_wake(ch_endpoint_t *ep, int peer);

/* shm_cma.c */
uint64_t ch_shm_cma_probe_addr(void);
canal_status_t ch_shm_cma_parse_mode(const char *text, int *mode_out);
canal_status_t ch_shm_cma_parse_write_fail(const char *text, int *errno_out);
canal_status_t ch_shm_cma_parse_fail_after(ch_shm_state_t *st, const char *text);
canal_status_t ch_shm_cma_probe_self(ch_shm_state_t *st);
canal_status_t ch_shm_cma_probe_peer(ch_shm_state_t *st);
canal_status_t ch_shm_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                   uint64_t *key_out);
canal_status_t ch_shm_mem_deregister(ch_endpoint_t *ep, uint64_t key);
canal_status_t ch_shm_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                uint64_t rkey, size_t len, void *cookie);
canal_status_t ch_shm_rdma_write(ch_endpoint_t *ep, int peer, const void *src, uint64_t raddr,
                                 uint64_t rkey, size_t len);
canal_status_t ch_shm_rdma_read_batch(ch_endpoint_t *ep, int peer, const ch_read_t *reads, int n,
                                      canal_status_t *st_out);
canal_status_t ch_shm_rdma_readv(ch_endpoint_t *ep, int peer, const struct iovec *dst, int n,
                                 uint64_t raddr, uint64_t rkey);
size_t ch_shm_eager_hint(ch_endpoint_t *ep, int peer);

/* For tests: the segment's name ("" when anonymous), and where the ring
 * counters start (0; a test sets it near 2^32 to cross the wrap; a fresh
 * ring's line starts hold it, shm.c's in_ring_init). */
const char *ch_shm_segment_name(ch_endpoint_t *ep);
extern uint32_t ch_shm_test_count_base;

#endif
