/*
 * Internals of the ofi channel (channels/ofi/), shared by its source files
 * and by its unit test (test/unit/test_ch_ofi.c); the device sees only
 * ch_ofi_ops (channels/channel.h) and channels/ofi/ofi.h.
 *
 * Every operation handed to libfabric carries an ofi_op_t first, whose
 * struct fi_context2 satisfies the FI_CONTEXT/FI_CONTEXT2 modes and whose
 * kind tells the completion handler what came back.
 *
 * On the wire a packet is one message: an ofi_wire_t, then the device's
 * header, then (8-byte aligned) the payload. The sender's rank and a
 * per-pair sequence number let the receiver deliver in order even where the
 * provider completes receives out of order (comp_order FI_ORDER_NONE, as
 * tcp;ofi_rxm does when a large message finishes after a later small one).
 */
#ifndef CANAL_CH_OFI_IMPL_H
#define CANAL_CH_OFI_IMPL_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdint.h>

#include "common/list.h"
#include "channels/channel.h"
#include "channels/ofi/ofi.h"

enum {
    OFI_WIRE_MAGIC = 0xca7f,
    OFI_WIRE_PROBE = 0xca7e,  /* a liveness probe: no header, no payload, no sequence number */
    OFI_WIRE_BYE = 0xca7d,    /* the sender is finalizing: probe it no more (bare, as a probe) */
    OFI_CARD_VERSION = 3,
    OFI_ADDR_MAX = 480,       /* fi_getname bytes; hex-encoded it fits a PMI value */
    OFI_PREFIX_MAX = 16 + 72, /* ofi_wire_t + CH_HDR_MAX rounded up to 8 */
};

/* The channel's own header, first in every message. */
typedef struct {
    uint32_t src;     /* sender's rank in the job */
    uint32_t seq;     /* per (sender, receiver) pair, from 0 */
    uint32_t len;     /* payload bytes */
    uint16_t hdr_len; /* device header bytes (<= CH_HDR_MAX) */
    uint16_t magic;
} ofi_wire_t;

static inline size_t ofi_payload_off(size_t hdr_len)
{
    return sizeof(ofi_wire_t) + ((hdr_len + 7) & ~(size_t)7);
}

typedef enum { OFI_OP_TX = 1, OFI_OP_RX, OFI_OP_RMA } ofi_op_kind_t;

typedef struct {
    struct fi_context2 ctx; /* must stay first: libfabric hands it back */
    ofi_op_kind_t kind;
} ofi_op_t;

typedef struct ofi_txbuf {
    ofi_op_t op;
    struct ofi_txbuf *next;
    int peer;
    unsigned char *data;
} ofi_txbuf_t;

typedef struct ofi_rxbuf {
    ofi_op_t op;
    struct ofi_rxbuf *next;
    size_t got;  /* bytes the completion reported */
    uint32_t src, seq;
    unsigned char *data;
} ofi_rxbuf_t;

typedef struct ofi_mr_entry ofi_mr_entry_t;

typedef struct ofi_rma {
    ofi_op_t op;
    struct ofi_rma *next;
    int peer;
    unsigned char *dst;
    uint64_t addr;   /* remote address or offset of the first byte */
    uint64_t key;
    size_t len;
    size_t posted;   /* bytes covered by reads already posted */
    size_t piece;    /* bytes of the read in flight */
    void *cookie;
    ofi_mr_entry_t *dst_mr; /* FI_MR_LOCAL: registration of dst */
    canal_status_t st;
    char why[160];          /* the error's detail, restored before the up-call */
} ofi_rma_t;

typedef struct {
    fi_addr_t addr;
    int reachable;        /* has a valid address card with our provider */
    int failed;           /* a send to it failed; sendv refuses */
    int fail_pending;     /* on_peer_failed not yet called */
    canal_status_t fail_st;
    int tx_inflight;      /* sends in bounce buffers not yet completed */
    uint32_t tx_seq;      /* next sequence number we send */
    uint32_t rx_seq;      /* next sequence number we deliver */
    ofi_rxbuf_t *held;    /* arrived early, sorted by seq */
    double refused_since; /* its probes say FI_EAGAIN since then (0: they do not) */
    int connected;        /* a send to it completed or a packet came from it */
    int departed;         /* it said BYE (MPI_Finalize): never probed, never lost by probes */
    int alive_noted;      /* logged once that it refuses probes but its process lives */
    long pid;             /* its process id (from its card; 0: unknown) */
    uint64_t pidns;       /* the pid namespace pid is of (common_pidns) */
} ofi_peer_t;

/* Test switches, read at init (see test_ch_ofi.c). */
enum {
    OFI_TEST_FORCE_MR_LOCAL = 1,   /* act as if the provider required FI_MR_LOCAL */
    OFI_TEST_NO_RMA = 2,           /* do not ask for FI_RMA */
};
extern int ch_ofi_test_flags;

struct ofi_mr_entry {
    common_link_t link; /* on the cache list, most recently used first */
    uintptr_t base;
    size_t len;
    uint64_t access;
    struct fid_mr *mr;
    void *desc;
    uint64_t key;
    int refs;
    int stale;       /* invalidated while in use: close at the last release */
    int pool;        /* a channel buffer pool, not in the cache */
    struct ofi_mr_cb *cbs;
};

typedef struct {
    int initialized, ready;
    ch_upcalls_t up;
    int rank, size;
    int node;            /* this rank's node index */
    int *node_of;        /* copy of pmi->node_of (NULL if unknown) */

    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int wait_fd;         /* the CQ's file descriptor for block(), or -1 */
    int cq_wait_fd;      /* open the CQ with FI_WAIT_FD (-1: not yet decided) */
    char prov[64];
    char fabric_name[128];
    char domain_name[64];
    char card[PMI_VAL_MAX];

    int has_rma;
    int mr_local, mr_virt, mr_prov_key, mr_allocated, mr_endpoint;
    int local_only;      /* the provider reaches only this node (shm) */
    int pins;            /* registration pins pages (hardware provider) */
    int keep_idle;       /* the cache keeps registrations without users */
    int idle_max;
    size_t max_payload, buf_size, rma_max;
    uint16_t key_tag;

    ofi_peer_t *peers;
    int nreachable;
    unsigned char *unreach_why; /* per rank: why it is unreachable (UNREACH_*) */

    /* Buffers: one allocation and one registration per pool. */
    unsigned char *tx_mem, *rx_mem;
    ofi_txbuf_t *tx_bufs, *tx_free;
    ofi_rxbuf_t *rx_bufs;
    ofi_mr_entry_t *tx_mr, *rx_mr;
    int ntx, nrx, tx_inflight, rx_posted;

    /* Queues between the completion queue and progress(). */
    ofi_rxbuf_t *arrived, *arrived_tail;   /* completed receives, in CQ order */
    ofi_rxbuf_t *repost;                   /* fi_recv said FI_EAGAIN */
    ofi_rma_t *rma_wait;                   /* fi_read said FI_EAGAIN */
    ofi_rma_t *rma_done, *rma_done_tail;   /* finished, callback not yet called */
    int rma_inflight;                      /* reads not yet reported */
    int rma_posted;                        /* reads with a piece at the provider */
    int tx_cap;                            /* the provider's transmit queue depth */
    int fail_pending;
    int in_progress;
    /* Liveness (ch_ofi_progress): a provider reports a lost peer only as the
     * error of an operation toward it, so a rank that only waits would never
     * learn of it. After OFI_PROBE_IDLE_S without an arrival, and then at that
     * interval, the peers ch_ofi_probe_wanted names get a probe. */
    unsigned idle_polls;
    double idle_since, probe_at; /* 0: not idle / never probed */
    double lost_s;               /* CANAL_OFI_PEER_LOST_S */
    int probe_all_max;           /* CANAL_OFI_PROBE_ALL_MAX */
    int bye_sent;                /* flush() told the peers we are leaving */
    unsigned long probes, byes;
    char iface[64];              /* the interface chosen for socket providers ("": libfabric's) */
    char iface_why[128];

    /* The registration cache. */
    common_list_t mr_list; /* the registration cache, most recently used first */
    int mr_active, mr_idle;
    ch_ofi_mr_stats_t mr_stats;

    /* Counters for describe(), ch_ofi_state_text() and tests. */
    unsigned long tx_eagain, tx_nobuf, reordered, sends;
    unsigned long rx_completions, tx_completions, cq_errors, delivered;
    char last_cq_err[160];  /* the last fi_cq_readerr's text, for ch_ofi_state_text() */
} ofi_state_t;

/* ofi.c */
const char *ch_ofi_err(int fi_rc);
const char *ch_ofi_unreach_reason(ofi_state_t *st, int peer);

/* Which network interface socket-based providers (tcp, sockets, net) use,
 * when the user set none of FI_TCP_IFACE, FI_SOCKETS_IFACE, FI_NET_IFACE:
 * "lo" when every rank is on this node (nnodes <= 1), else the interface
 * named by CANAL_SOCK_IFACE (mpiexec -iface), else the one the route to the
 * launcher's PMI_PORT host leaves through (not loopback). 1 with the name
 * in out, 0 to leave libfabric's choice; why says which rule decided. */
int ch_ofi_iface_choose(int nnodes, char *out, size_t len, char *why, size_t wlen);

/* ofi_data.c: does an idle round probe rank peer? Every live peer in a job
 * of at most CANAL_OFI_PROBE_ALL_MAX ranks; in a larger one, the peers we
 * are connected to and the OFI_PROBE_RING ranks after us (wrapping), so that
 * every rank is watched by that many others without a connection from
 * every rank to every other (the probe opens one). Not us, nor a peer that
 * is unreachable, failed, or said BYE. */
enum { OFI_PROBE_RING = 4 };
int ch_ofi_probe_wanted(const ofi_state_t *st, int peer);

/* ofi_dl.c: load libfabric (CANAL_OFI_LIBRARY, else libfabric.so.1) on
 * first use; its path once loaded, else NULL. */
canal_status_t ch_ofi_dl_open(void);
const char *ch_ofi_dl_path(void);

/* ofi_data.c */
canal_status_t ch_ofi_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
int ch_ofi_progress(ch_endpoint_t *ep);
canal_status_t ch_ofi_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                uint64_t rkey, size_t len, void *cookie);
canal_status_t ch_ofi_rx_post(ofi_state_t *st, ofi_rxbuf_t *b);
/* Read the completion queue once: recycle send buffers, queue arrivals and
 * finished reads for progress(). Never calls an up-call. */
canal_status_t ch_ofi_cq_drive(ofi_state_t *st);
void ch_ofi_drain_tx(ofi_state_t *st, double seconds);
canal_status_t ch_ofi_flush(ch_endpoint_t *ep);
canal_status_t ch_ofi_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                            void *arg);

/* ofi_mr.c */
canal_status_t ch_ofi_mr_get(ofi_state_t *st, const void *buf, size_t len, uint64_t access,
                             ofi_mr_entry_t **out);
canal_status_t ch_ofi_mr_put(ofi_state_t *st, ofi_mr_entry_t *e, void (*cb)(void *), void *arg);
canal_status_t ch_ofi_mr_pool(ofi_state_t *st, void *buf, size_t len, uint64_t access,
                              ofi_mr_entry_t **out);
void ch_ofi_mr_close_all(ofi_state_t *st);
uint64_t ch_ofi_mr_key_base(uint64_t key);
canal_status_t ch_ofi_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                   uint64_t *key_out);
canal_status_t ch_ofi_mem_deregister(ch_endpoint_t *ep, uint64_t key);

#endif
