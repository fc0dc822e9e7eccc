/*
 * The channel interface: how the device (adi/) moves packets between two
 * processes. A channel knows nothing of tags, communicators or datatypes: it
 * carries a small opaque header plus a contiguous payload to a peer (named by
 * its rank in the job) and hands arriving packets up through one callback.
 * Channels: shm (same node), sock (TCP), ofi (libfabric). Each fills a
 * ch_ops_t statically; the device calls them through the inline wrappers at
 * the end, so a missing optional operation is an "unsupported" stub, never NULL.
 *
 * Contract:
 *  - sendv() either takes the whole packet (copies it or queues it
 *    internally; the caller's buffers are free on return) and returns
 *    CANAL_OK, or takes nothing and returns CANAL_AGAIN; the device retries
 *    after progress(). The total payload is at most caps.max_payload and
 *    the header at most CH_HDR_MAX bytes. Packets from one sender to one
 *    receiver arrive in the order they were sent.
 *  - progress() delivers arriving packets through up->on_packet(); the
 *    callback consumes or copies the payload before it returns and may
 *    call sendv() (the channel must allow this).
 *  - rdma_read() copies len bytes from the peer's registered memory;
 *    CANAL_OK means done, CANAL_INPROGRESS means up->on_rdma_done(cookie)
 *    will be called from a later progress().
 */
#ifndef CANAL_CHANNEL_H
#define CANAL_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "common/status.h"
#include "pmi/pmi.h"

enum { CH_HDR_MAX = 64 };

typedef struct {
    size_t max_payload;   /* largest payload one sendv() may carry */
    int has_rdma;         /* rdma_read() and mem_register() work */
    int local_only;       /* serves only peers on this node */
    int block_wakes_fast; /* block() returns as soon as a packet arrives (kernel
                           * notification): waits should sleep there early
                           * rather than spin, which starves the kernel */
} ch_caps_t;

typedef struct {
    void (*on_packet)(int peer, const void *hdr, size_t hdr_len, const void *payload,
                      size_t len);
    void (*on_rdma_done)(void *cookie, canal_status_t st);
    /* The connection to `peer` broke (peer died, reset). */
    void (*on_peer_failed)(int peer, canal_status_t st);
} ch_upcalls_t;

typedef struct ch_ops {
    const char *name;
    /* Open the endpoint, publish its address card through PMI (the device
     * calls pmi_fence() after every channel's init). */
    canal_status_t (*init)(const pmi_info_t *pmi, const ch_upcalls_t *up, ch_caps_t *caps_out);
    /* After the fence: finish setup that needs the others' cards. */
    canal_status_t (*post_fence)(void);
    canal_status_t (*finalize)(void);
    /* Nonzero if this channel can reach `peer`. */
    int (*reaches)(int peer);
    /* Concurrency: the device serializes every call into a channel (its
     * device lock is held around sendv, progress, rdma_read, mem_register,
     * flush, wake), so a channel needs no locks of its own and sendv never
     * runs concurrently with progress. block() is called only when the
     * device is not in locked mode. See doc/design.md, "Threads and locking". */
    canal_status_t (*sendv)(int peer, const struct iovec *iov, int n);
    /* Poll once; returns the number of packets delivered, or an error. */
    int (*progress)(void);
    /* Optional: zero-copy reads of large payloads. */
    canal_status_t (*mem_register)(const void *buf, size_t len, uint64_t *key_out);
    canal_status_t (*mem_deregister)(uint64_t key);
    canal_status_t (*rdma_read)(int peer, void *dst, uint64_t raddr, uint64_t rkey, size_t len,
                                void *cookie);
    /* Optional: sleep until a packet may have arrived or timeout_us passes;
     * wake(peer) is called by a sender after it queued a packet to a peer that
     * may be sleeping. */
    canal_status_t (*block)(long timeout_us);
    void (*wake)(int peer);
    /* Optional: CANAL_OK when every packet sendv() accepted has left this
     * process (handed to the kernel or the peer), CANAL_AGAIN while some
     * still waits (a connection still handshaking, a full socket). The
     * device calls progress() until it says CANAL_OK before the fence of its
     * finalize; the peers are still progressing then. */
    canal_status_t (*flush)(void);
    /* Optional: one line describing the configuration, for CANAL_SUMMARY. */
    void (*describe)(char *buf, size_t len);
    /* Optional: processes of other jobs ("dynamic peers", adi/dynamic.c).
     * dyn_open makes the channel able to serve them; when init() was never
     * called (this job did not need the channel) it opens the endpoint
     * itself and then serves no job rank. dyn_card writes this process's
     * card for other jobs. dyn_peer_add makes `peer` (an index >= the job
     * size, each new one the next free index) the process named by `card`,
     * authenticated both ways by the 32-byte pair secret. Only sock has
     * them: shm is not used across jobs, even on one node. */
    canal_status_t (*dyn_open)(const pmi_info_t *pmi, const ch_upcalls_t *up, ch_caps_t *caps_out);
    canal_status_t (*dyn_card)(char *buf, size_t len);
    canal_status_t (*dyn_peer_add)(int peer, const char *card, const unsigned char secret[32]);
} ch_ops_t;

extern const ch_ops_t ch_shm_ops;
extern const ch_ops_t ch_sock_ops;
#ifdef CANAL_HAVE_OFI
extern const ch_ops_t ch_ofi_ops;
#endif

static inline canal_status_t ch_sendv(const ch_ops_t *ch, int peer, const struct iovec *iov, int n)
{
    return ch->sendv(peer, iov, n);
}

static inline int ch_progress(const ch_ops_t *ch) { return ch->progress(); }

static inline canal_status_t ch_mem_register(const ch_ops_t *ch, const void *buf, size_t len,
                                             uint64_t *key_out)
{
    if (ch->mem_register == NULL)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot register memory",
                              ch->name);
    return ch->mem_register(buf, len, key_out);
}

static inline canal_status_t ch_mem_deregister(const ch_ops_t *ch, uint64_t key)
{
    return ch->mem_deregister == NULL ? CANAL_OK : ch->mem_deregister(key);
}

static inline canal_status_t ch_rdma_read(const ch_ops_t *ch, int peer, void *dst, uint64_t raddr,
                                          uint64_t rkey, size_t len, void *cookie)
{
    if (ch->rdma_read == NULL)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "channel %s cannot read remote memory",
                              ch->name);
    return ch->rdma_read(peer, dst, raddr, rkey, len, cookie);
}

static inline canal_status_t ch_block(const ch_ops_t *ch, long timeout_us)
{
    return ch->block == NULL ? CANAL_AGAIN : ch->block(timeout_us);
}

static inline void ch_wake(const ch_ops_t *ch, int peer)
{
    if (ch->wake != NULL)
        ch->wake(peer);
}

#endif
