/*
 * What the ofi channel (channels/ofi/, libfabric) offers beyond ch_ofi_ops:
 * reference-counted memory registration for the device's rendezvous and for
 * the managed-runtime extension (MPIX buffer hooks), which needs to know
 * when the last operation using a buffer has finished so that it can unpin
 * the object. Only built when CANAL_HAVE_OFI is defined.
 *
 * A registration covers whole pages and is shared: acquiring a range that
 * lies inside a live registration takes another reference to it (a cache
 * hit) instead of registering again. The key returned is what a peer passes
 * to rdma_read() together with the virtual address of the data; the channel
 * turns that address into an offset itself when the provider wants offsets
 * (no FI_MR_VIRT_ADDR). See ofi_mr.c for the cache and its invalidation.
 */
#ifndef CANAL_CH_OFI_H
#define CANAL_CH_OFI_H

#include <stddef.h>
#include <stdint.h>

#include "channels/channel.h"
#include "common/status.h"

/* The remote_worth operation of ch_ofi_ops. CANAL_CHANNEL=auto, peers on
 * other nodes: is the ofi channel worth opening? 0, with why filled, when this node has no fabric
 * hardware (no device in /sys/class/infiniband (InfiniBand, RoCE, iWARP, EFA) or /sys/class/cxi
 * (Slingshot), no /dev/hfi1_* (Omni-Path)) and nothing asks for libfabric (the endpoint's provider
 * option, CANAL_OFI_PROVIDER, CANAL_OFI_LIBRARY, FI_PROVIDER): its providers are then software over
 * the kernel's sockets (tcp, udp), slower than the sock channel, and loading libfabric and opening
 * an endpoint cost about a second of CPU per process. 1 otherwise. Reads only sysfs and the
 * environment (libfabric is not loaded). */
int ch_ofi_remote_worth(ch_endpoint_t *ep, char *why, size_t len);

/* Register [buf, buf+len) for remote reads (or take one more reference to a
 * registration that covers it). *key_out is the remote key; *handle_out is
 * given back to ch_ofi_mr_release(). Fails with CANAL_ERR_UNSUPPORTED when
 * the channel has no RMA, CANAL_ERR_ARG on a NULL or empty range. */
canal_status_t ch_ofi_mr_acquire(ch_endpoint_t *ep, const void *buf, size_t len, uint64_t *key_out,
                                 void **handle_out);

/* Drop one reference. When it was the last, every callback passed to a
 * release of this registration (this one included) is called, in order,
 * before this returns; otherwise cb is remembered and called when the last
 * user releases. cb may be NULL. */
canal_status_t ch_ofi_mr_release(ch_endpoint_t *ep, void *handle, void (*cb)(void *arg), void *arg);

/* The memory [buf, buf+len) was freed, moved or remapped (a managed runtime
 * moved an object, an allocator returned pages): idle registrations that
 * overlap it are closed; live ones are no longer handed out and are closed
 * when their last user releases them. */
void ch_ofi_mr_invalidate(ch_endpoint_t *ep, const void *buf, size_t len);

typedef struct {
    unsigned long hits;          /* acquires served by an existing registration */
    unsigned long misses;        /* acquires that registered memory */
    unsigned long evictions;     /* idle registrations closed to stay under the limit */
    unsigned long invalidations; /* registrations dropped by ch_ofi_mr_invalidate */
    int active;                  /* registrations with users */
    int idle;                    /* registrations kept without users */
} ch_ofi_mr_stats_t;

void ch_ofi_mr_stats(ch_endpoint_t *ep, ch_ofi_mr_stats_t *out);

/* The data path's state as text (lines ending in '\n', truncated to len),
 * for whoever waited too long for a packet: the unit tests print it when a
 * wait fails as a hang. Receives posted, completed and waiting to be
 * reposted; sends in bounce buffers; reads; completions read from the
 * queue; and per peer the sequence numbers sent and expected and the
 * packets held back because they completed ahead of an earlier one. A
 * packet the provider never completed reads "expects 23, holds 42 (24..65)";
 * one it never delivered at all reads "expects 23" with nothing held on the
 * receiver and "sent 24" on the sender. */
void ch_ofi_state_text(ch_endpoint_t *ep, char *buf, size_t len);

#endif
