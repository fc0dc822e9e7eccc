/*
 * The channel interface: how the device (adi/) moves packets between two
 * processes. A channel knows nothing of tags, communicators or datatypes: it
 * carries a small opaque header plus a contiguous payload to a peer (named by
 * its rank in the job) and hands arriving packets up through one callback.
 * Channels: self (a process to itself), shm (same node), sock (TCP), ofi
 * (libfabric). Each fills a ch_ops_t statically, every operation set: an
 * optional operation a channel lacks is one of the ch_no_* stubs below, never
 * NULL. The device calls them only through the inline wrappers at the end.
 *
 * Endpoints: an opened channel is a ch_endpoint_t, made by ch_endpoint_new()
 * from the ops table and options (ch_opts_t) and opened by ch_init() with the
 * PMI info; every operation takes the endpoint it acts on, and the channel's
 * state lives in ep->state (ops->state_size bytes, zeroed at creation), so
 * one process may open two endpoints of one channel (an options' instance
 * name keeps their PMI keys apart). ch_endpoint_free() releases it after
 * finalize.
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
 *    will be called from a later progress(). A channel whose rdma_read()
 *    never returns CANAL_INPROGRESS says so (caps.rdma_read_sync).
 *  - rdma_readv() is rdma_read() into n local pieces (a non-contiguous
 *    receive), always synchronous: CANAL_OK means done; any error means
 *    the pieces may hold part of the data and the device sends it again
 *    by other means (CANAL_ERR_UNSUPPORTED where the channel has no such
 *    read).
 *  - rdma_write() copies len local bytes into the peer's memory at raddr
 *    (caps.has_rdma_write), synchronously: CANAL_OK means done.
 *  - rdma_read_batch() is n rdma_read()s from one peer at once, synchronous
 *    (caps.has_read_batch: one system call for them all on shm; n may be
 *    1), each with its own status in st_out; CANAL_OK when all were read.
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
    int has_rdma_write;   /* rdma_write() works (into any memory of the peer) */
    int rdma_read_sync;   /* rdma_read() never returns CANAL_INPROGRESS: when it
                           * returns CANAL_OK the bytes are in place. The device
                           * asks a peer to push part of a message (rdma_write)
                           * while it reads the rest only then: the receive ends
                           * at the peer's answer, which an asynchronous read's
                           * on_rdma_done would not wait for */
    int local_only;       /* serves only peers on this node */
    int block_wakes_fast; /* block() returns as soon as a packet arrives (kernel
                           * notification): waits should sleep there early
                           * rather than spin, which starves the kernel */
    int can_block;        /* block() sleeps (else it is ch_no_block) */
    int has_dyn;          /* serves processes of other jobs (dyn_* work) */
    int sendv_wakes;      /* sendv() itself wakes a peer asleep in block(): the
                           * device need not call wake() after each packet */
    int has_read_batch;   /* rdma_read_batch() reads several messages for the
                           * price of about one rdma_read() */
    size_t turn_max;      /* sendv_turn() carries header + payload of at most this
                           * (the payload 8-aligned after the header) its own way;
                           * 0: it is sendv(), the device need not ask */
} ch_caps_t;

/* One read of rdma_read_batch(): len bytes at raddr (key rkey) into dst. */
typedef struct {
    void *dst;
    uint64_t raddr, rkey;
    size_t len;
} ch_read_t;

typedef struct {
    void (*on_packet)(int peer, const void *hdr, size_t hdr_len, const void *payload,
                      size_t len);
    void (*on_rdma_done)(void *cookie, canal_status_t st);
    /* The connection to `peer` broke (peer died, reset). */
    void (*on_peer_failed)(int peer, canal_status_t st);
    /* Optional (NULL: not told): what eager_hint() answers for `peer` just
     * changed (shm: CMA was judged refused at run time). Called from within
     * a channel call, under the device lock like every upcall. */
    void (*on_eager_hint)(int peer);
} ch_upcalls_t;

typedef struct ch_endpoint ch_endpoint_t;

/* What selects an endpoint besides its channel. */
typedef struct {
    /* NULL or "": the job's one endpoint of this channel (PMI keys as ever);
     * else a short name ([A-Za-z0-9_], at most 15) appended to the channel's
     * PMI keys, so that a second endpoint publishes beside the first. */
    const char *instance;
    /* ofi: the provider to open (NULL: CANAL_OFI_PROVIDER / the default);
     * ignored by the other channels. At most 63 characters. */
    const char *provider;
} ch_opts_t;

typedef struct ch_ops {
    const char *name;
    size_t state_size; /* bytes of per-endpoint state (ep->state) */
    /* Optional: is this channel worth opening for peers on other nodes
     * (CANAL_CHANNEL=auto)? 0 with the reason in `why` when it is not. */
    int (*remote_worth)(ch_endpoint_t *ep, char *why, size_t len);
    /* Open the endpoint, publish its address card through PMI (the device
     * calls pmi_fence() after every channel's init). */
    canal_status_t (*init)(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                           ch_caps_t *caps_out);
    /* Optional: after the fence, finish setup that needs the others' cards. */
    canal_status_t (*post_fence)(ch_endpoint_t *ep);
    canal_status_t (*finalize)(ch_endpoint_t *ep);
    /* Nonzero if this endpoint can reach `peer`. */
    int (*reaches)(ch_endpoint_t *ep, int peer);
    /* Concurrency: the device serializes every call into a channel (its
     * device lock is held around sendv, progress, rdma_read, mem_register,
     * flush, wake), so a channel needs no locks of its own and sendv never
     * runs concurrently with progress. block() is called only when the
     * device is not in locked mode. See doc/design.md, "Threads and locking". */
    canal_status_t (*sendv)(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
    /* Optional: sendv() of a packet the device expects to be a turn of a
     * ping-pong (a blocking send with no receive posted on its
     * communicator): the peer most likely waits for this packet and sends
     * nothing before it has it.
     * The same contract as sendv() (order with every other packet to the
     * peer included); a channel may carry it where a lone packet is fastest
     * and two senders at once would contend (shm: the line the pair shares).
     * A wrong hint costs time, never order or data (ch_no_sendv_turn:
     * sendv()). The device calls it only as its ping-pong's send, between
     * post_fence() and finalize(), with what that send has already checked:
     * a peer this endpoint reaches and never reported failed
     * (on_peer_failed), n 1 or 2, iov[0] a header of 1..CH_HDR_MAX bytes
     * at a valid address; the channel need not check these again. Sizes
     * are sendv()'s (what does not fit a turn goes the other way), and a
     * payload base may be NULL (an erroneous program's: sendv() says so). */
    canal_status_t (*sendv_turn)(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
    /* Poll once; returns the number of packets delivered, or an error. */
    int (*progress)(ch_endpoint_t *ep);
    /* Optional: zero-copy reads of large payloads (caps.has_rdma). */
    canal_status_t (*mem_register)(ch_endpoint_t *ep, const void *buf, size_t len,
                                   uint64_t *key_out);
    canal_status_t (*mem_deregister)(ch_endpoint_t *ep, uint64_t key);
    canal_status_t (*rdma_read)(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                uint64_t rkey, size_t len, void *cookie);
    canal_status_t (*rdma_readv)(ch_endpoint_t *ep, int peer, const struct iovec *dst, int n,
                                 uint64_t raddr, uint64_t rkey);
    canal_status_t (*rdma_write)(ch_endpoint_t *ep, int peer, const void *src, uint64_t raddr,
                                 uint64_t rkey, size_t len);
    canal_status_t (*rdma_read_batch)(ch_endpoint_t *ep, int peer, const ch_read_t *reads, int n,
                                      canal_status_t *st_out);
    /* Optional: sleep until a packet may have arrived, a wake(), or
     * timeout_us passes (caps.can_block); wake(peer) is called by a sender
     * after it queued a packet to a peer that may be sleeping (unless
     * caps.sendv_wakes), and by whoever changed something else a sleeper
     * waits for (the node's shared collective block, a window). ready (or
     * NULL) is the sleeper's own condition: a channel whose wake() rings a
     * doorbell calls it after announcing the sleep, as it rechecks its
     * rings, and does not sleep when it holds, so that a change made just
     * before the announcement (whose wake() found nobody asleep) is not
     * slept through. CANAL_AGAIN: it slept until timeout_us with nothing
     * noticed (ch_block reports that as CANAL_OK). */
    canal_status_t (*block)(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                            void *arg);
    void (*wake)(ch_endpoint_t *ep, int peer);
    /* Optional: CANAL_OK when every packet sendv() accepted has left this
     * process (handed to the kernel or the peer), CANAL_AGAIN while some
     * still waits (a connection still handshaking, a full socket). The
     * device calls progress() until it says CANAL_OK before the fence of its
     * finalize, and only there: a channel may take the first call as this
     * process's orderly exit and tell its peers (ofi sends BYE, so that its
     * liveness probes never take a rank waiting in the fence, or gone after
     * it, for a lost one); the peers are still progressing then. */
    canal_status_t (*flush)(ch_endpoint_t *ep);
    /* Optional: one line describing the configuration, for CANAL_SUMMARY. */
    void (*describe)(ch_endpoint_t *ep, char *buf, size_t len);
    /* Optional: 0, or the eager limit `peer` is best served by as far as the
     * channel knows now (shm: the size above which its single-copy read
     * beats two copies through the ring, while CMA is not known refused):
     * the device's for that peer unless CANAL_EAGER_LIMIT is set. Asked
     * after post_fence (when the probes are done) and again when the channel
     * calls up->on_eager_hint(peer); never per message (ch_no_eager_hint: 0). */
    size_t (*eager_hint)(ch_endpoint_t *ep, int peer);
    /* Optional (caps.has_dyn): processes of other jobs ("dynamic peers",
     * adi/dynamic.c). dyn_open makes the endpoint able to serve them; when
     * init() was never called (this job did not need the channel) it opens
     * the endpoint itself and then serves no job rank. dyn_card writes this
     * process's card for other jobs. dyn_peer_add makes `peer` (an index >=
     * the job size, each new one the next free index) the process named by
     * `card`, authenticated both ways by the 32-byte pair secret. Only sock
     * has them: shm is not used across jobs, even on one node. */
    canal_status_t (*dyn_open)(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                               ch_caps_t *caps_out);
    canal_status_t (*dyn_card)(ch_endpoint_t *ep, char *buf, size_t len);
    canal_status_t (*dyn_peer_add)(ch_endpoint_t *ep, int peer, const char *card,
                                   const unsigned char secret[32]);
} ch_ops_t;

struct ch_endpoint {
    const ch_ops_t *ops;
    void *state;       /* the channel's, ops->state_size bytes */
    char instance[16]; /* ch_opts_t.instance, "" for the job's one */
    char provider[64]; /* ch_opts_t.provider, "" for the default */
};

/* The channels (channels/<name>/), declared here for the device. */
extern const ch_ops_t ch_self_ops;
extern const ch_ops_t ch_shm_ops;
extern const ch_ops_t ch_sock_ops;
extern const ch_ops_t ch_ofi_ops; /* defined only when CANAL_HAVE_OFI */

/* channels/channel.c: endpoints, and the stubs of the optional operations. */
canal_status_t ch_endpoint_new(const ch_ops_t *ops, const ch_opts_t *opts, ch_endpoint_t **ep_out);
void ch_endpoint_free(ch_endpoint_t *ep);
/* The PMI key `base` of this endpoint: base, or base.<instance>. */
void ch_endpoint_key(const ch_endpoint_t *ep, const char *base, char *out, size_t len);

int ch_no_remote_worth(ch_endpoint_t *ep, char *why, size_t len);
canal_status_t ch_no_sendv_turn(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
canal_status_t ch_no_post_fence(ch_endpoint_t *ep);
canal_status_t ch_no_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                  uint64_t *key_out);
canal_status_t ch_no_mem_deregister(ch_endpoint_t *ep, uint64_t key);
canal_status_t ch_no_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                               uint64_t rkey, size_t len, void *cookie);
canal_status_t ch_no_rdma_readv(ch_endpoint_t *ep, int peer, const struct iovec *dst, int n,
                                uint64_t raddr, uint64_t rkey);
canal_status_t ch_no_rdma_write(ch_endpoint_t *ep, int peer, const void *src, uint64_t raddr,
                                uint64_t rkey, size_t len);
canal_status_t ch_no_rdma_read_batch(ch_endpoint_t *ep, int peer, const ch_read_t *reads, int n,
                                     canal_status_t *st_out);
canal_status_t ch_no_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                           void *arg);
void ch_no_wake(ch_endpoint_t *ep, int peer);
canal_status_t ch_no_flush(ch_endpoint_t *ep);
void ch_no_describe(ch_endpoint_t *ep, char *buf, size_t len);
size_t ch_no_eager_hint(ch_endpoint_t *ep, int peer);
canal_status_t ch_no_dyn_open(ch_endpoint_t *ep, const pmi_info_t *pmi, const ch_upcalls_t *up,
                              ch_caps_t *caps_out);
canal_status_t ch_no_dyn_card(ch_endpoint_t *ep, char *buf, size_t len);
canal_status_t ch_no_dyn_peer_add(ch_endpoint_t *ep, int peer, const char *card,
                                  const unsigned char secret[32]);
/* The name of the first operation of `ops` that is NULL, or NULL when every
 * one is set (the conformance test checks each channel's table). */
const char *ch_ops_missing(const ch_ops_t *ops);

/* ---- the wrappers: the device's only way into a channel ---------------- */
static inline const char *ch_name(const ch_endpoint_t *ep)
{
    return ep->ops->name;
}

static inline int ch_remote_worth(ch_endpoint_t *ep, char *why, size_t len)
{
    return ep->ops->remote_worth(ep, why, len);
}

static inline canal_status_t ch_init(ch_endpoint_t *ep, const pmi_info_t *pmi,
                                     const ch_upcalls_t *up, ch_caps_t *caps_out)
{
    return ep->ops->init(ep, pmi, up, caps_out);
}

static inline canal_status_t ch_post_fence(ch_endpoint_t *ep)
{
    return ep->ops->post_fence(ep);
}

static inline canal_status_t ch_finalize(ch_endpoint_t *ep)
{
    return ep->ops->finalize(ep);
}

static inline int ch_reaches(ch_endpoint_t *ep, int peer)
{
    return ep->ops->reaches(ep, peer);
}

static inline canal_status_t ch_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n)
{
    return ep->ops->sendv(ep, peer, iov, n);
}

static inline canal_status_t ch_sendv_turn(ch_endpoint_t *ep, int peer, const struct iovec *iov,
                                           int n)
{
    return ep->ops->sendv_turn(ep, peer, iov, n);
}

static inline int ch_progress(ch_endpoint_t *ep)
{
    return ep->ops->progress(ep);
}

static inline canal_status_t ch_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                             uint64_t *key_out)
{
    return ep->ops->mem_register(ep, buf, len, key_out);
}

static inline canal_status_t ch_mem_deregister(ch_endpoint_t *ep, uint64_t key)
{
    return ep->ops->mem_deregister(ep, key);
}

static inline canal_status_t ch_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                          uint64_t rkey, size_t len, void *cookie)
{
    return ep->ops->rdma_read(ep, peer, dst, raddr, rkey, len, cookie);
}

static inline canal_status_t ch_rdma_readv(ch_endpoint_t *ep, int peer, const struct iovec *dst,
                                           int n, uint64_t raddr, uint64_t rkey)
{
    return ep->ops->rdma_readv(ep, peer, dst, n, raddr, rkey);
}

static inline canal_status_t ch_rdma_write(ch_endpoint_t *ep, int peer, const void *src,
                                           uint64_t raddr, uint64_t rkey, size_t len)
{
    return ep->ops->rdma_write(ep, peer, src, raddr, rkey, len);
}

static inline canal_status_t ch_rdma_read_batch(ch_endpoint_t *ep, int peer,
                                                const ch_read_t *reads, int n,
                                                canal_status_t *st_out)
{
    return ep->ops->rdma_read_batch(ep, peer, reads, n, st_out);
}

static inline canal_status_t ch_block(ch_endpoint_t *ep, long timeout_us)
{
    canal_status_t st = ep->ops->block(ep, timeout_us, NULL, NULL);
    return st == CANAL_AGAIN ? CANAL_OK : st;
}

/* block() with the sleeper's condition; CANAL_AGAIN when it slept to the
 * timeout (or cannot sleep: ch_no_block). */
static inline canal_status_t ch_block_until(ch_endpoint_t *ep, long timeout_us,
                                            int (*ready)(void *arg), void *arg)
{
    return ep->ops->block(ep, timeout_us, ready, arg);
}

static inline void ch_wake(ch_endpoint_t *ep, int peer)
{
    ep->ops->wake(ep, peer);
}

static inline canal_status_t ch_flush(ch_endpoint_t *ep)
{
    return ep->ops->flush(ep);
}

static inline void ch_describe(ch_endpoint_t *ep, char *buf, size_t len)
{
    ep->ops->describe(ep, buf, len);
}

static inline size_t ch_eager_hint(ch_endpoint_t *ep, int peer)
{
    return ep->ops->eager_hint(ep, peer);
}

static inline canal_status_t ch_dyn_open(ch_endpoint_t *ep, const pmi_info_t *pmi,
                                         const ch_upcalls_t *up, ch_caps_t *caps_out)
{
    return ep->ops->dyn_open(ep, pmi, up, caps_out);
}

static inline canal_status_t ch_dyn_card(ch_endpoint_t *ep, char *buf, size_t len)
{
    return ep->ops->dyn_card(ep, buf, len);
}

static inline canal_status_t ch_dyn_peer_add(ch_endpoint_t *ep, int peer, const char *card,
                                             const unsigned char secret[32])
{
    return ep->ops->dyn_peer_add(ep, peer, card, secret);
}

#endif
