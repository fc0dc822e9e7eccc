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
 *     sender s (self included), each a control line (the sender's "I am
 *     blocked on a full ring" flag) followed by `ncells` cells. Each block
 *     starts on a page so that the receiver's first touch places it.
 * A cell is a 16-byte head (full flag, header length, payload length) and
 * then the header bytes and, 8-byte aligned after it, the payload. The
 * producer and consumer positions live in each process's private memory:
 * a ring has one writer and one reader, and the per-cell full flag (release
 * on publish, acquire on poll) is the only shared state on the fast path.
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
    size_t payload_cap;   /* max_payload: payload bytes one cell carries */
    size_t ncells;        /* cells per ring */
    size_t cell_stride;   /* bytes from one cell to the next (cache-line multiple) */
    size_t ring_stride;   /* control line + cells */
    size_t block_stride;  /* one receiver's rings, page multiple */
    size_t slots_off;     /* offset of the per-rank slots */
    size_t rings_off;     /* offset of receiver 0's block (page multiple) */
    size_t seg_size;
    int over_budget;      /* even the smallest layout exceeds the limit */
} shm_layout_t;

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
} shm_seg_head_t;

typedef struct {
    /* Doorbell: written by its owner (sleeping) and by wakers (seq). */
    _Alignas(SHM_LINE) _Atomic uint32_t seq; /* futex word; wakers bump it */
    _Atomic uint32_t sleeping;               /* owner is in (or entering) block() */
    /* Identity: written once by the owner before the second fence. */
    _Alignas(SHM_LINE) int32_t pid;
    uint32_t pad;
    uint64_t probe_addr;
} shm_slot_t;

typedef struct {
    _Atomic uint32_t full; /* 1: written by the sender, not yet consumed */
    uint32_t hdr_len;
    uint32_t len;
    uint32_t pad;
    unsigned char bytes[]; /* header, then payload at shm_payload_off(hdr_len) */
} shm_cell_t;

/* Per local peer, in this process's memory. */
typedef struct {
    unsigned char *out_cells;        /* ring me -> peer */
    _Atomic uint32_t *out_blocked;
    unsigned char *in_cells;         /* ring peer -> me */
    _Atomic uint32_t *in_blocked;
    uint32_t send_idx;
    uint32_t recv_idx;
    int world;                       /* the peer's rank in the job */
    int blocked;                     /* we set out_blocked and have not cleared it */
} shm_peer_t;

enum { SHM_CMA_NO = 0, SHM_CMA_YES = 1, SHM_CMA_AUTO = 2 };
enum { SHM_CMA_UNKNOWN = 0, SHM_CMA_WORKS = 1, SHM_CMA_DENIED = 2 };

typedef struct {
    int initialized; /* init() succeeded */
    int attached;    /* post_fence() succeeded: sendv/progress usable */
    ch_upcalls_t up;
    int world_rank, world_size;
    int local_rank, local_size;
    int *local_of; /* world rank -> local index, -1 if not on this node */
    shm_peer_t *peers;
    shm_layout_t lay;

    char name[96];  /* "/canal-..." ; empty for the anonymous one-rank case */
    int creator;
    int anon;
    int unlinked;
    unsigned char *base;
    shm_slot_t *slots;

    int rr_next;     /* where the next progress() starts polling */
    int in_progress; /* progress() is on the stack (on_packet re-entry) */
    int nblocked;    /* peers whose ring we are blocked on */

    int cma_mode;
    int cma_state;
    char cma_why[160];

    /* Counters for tests and describe(). */
    unsigned long futex_wakes;
    unsigned long futex_waits;
} shm_state_t;

extern shm_state_t ch_shm_state;

static inline size_t shm_payload_off(size_t hdr_len) { return (hdr_len + 7) & ~(size_t)7; }

static inline shm_cell_t *shm_cell_at(unsigned char *cells, uint32_t idx, size_t stride)
{
    return (shm_cell_t *)(void *)(cells + (size_t)idx * stride);
}

/* shm_seg.c */
canal_status_t shm_layout_compute(int local_size, size_t payload_cap, size_t ncells,
                                  size_t max_bytes, shm_layout_t *out);
void shm_seg_name(const char *jobid, int node, long pid, char *out, size_t len);
canal_status_t shm_seg_create(shm_state_t *st);
canal_status_t shm_seg_attach(shm_state_t *st, const char *name);
canal_status_t shm_seg_unlink(shm_state_t *st);
void shm_seg_detach(shm_state_t *st);

/* shm_ring.c */
canal_status_t shm_sendv(int peer, const struct iovec *iov, int n);
int shm_progress(void);
canal_status_t shm_block(long timeout_us);
void shm_wake(int peer);

/* shm_cma.c */
uint64_t shm_cma_probe_addr(void);
canal_status_t shm_cma_parse_mode(const char *text, int *mode_out);
canal_status_t shm_cma_probe_self(shm_state_t *st);
canal_status_t shm_cma_probe_peer(shm_state_t *st);
canal_status_t shm_mem_register(const void *buf, size_t len, uint64_t *key_out);
canal_status_t shm_mem_deregister(uint64_t key);
canal_status_t shm_rdma_read(int peer, void *dst, uint64_t raddr, uint64_t rkey, size_t len,
                             void *cookie);

/* For tests: the segment's name ("" when anonymous). */
const char *ch_shm_segment_name(void);

#endif
