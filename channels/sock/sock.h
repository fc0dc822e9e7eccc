/*
 * Internals of the TCP channel (channels/sock/), shared by its source files
 * and its unit test (test/unit/test_ch_sock.c); the device sees only
 * ch_sock_ops from channels/channel.h.
 *
 * The files: sock.c (init, post_fence, finalize, describe: the life cycle),
 * sock_conn.c (connections, epoll, sendv, progress, block), sock_wire.c (the
 * byte formats of frames and handshake messages, and the proofs: pure
 * functions, so the parser can be fuzzed), sock_addr.c (interface choice and
 * address cards), sha256.c (SHA-256 and HMAC).
 *
 * The wire, per connection (all integers little-endian):
 *
 *   handshake, acceptor A and connector C, secret S (32 bytes, per job):
 *     A -> C  CHALLENGE  "CNLSOCK1", u32 version, u32 A's rank, nonce_a[32]    48 bytes
 *     C -> A  RESPONSE   "CNLSOCK1", u32 C's rank, u32 A's rank, nonce_c[32],
 *                        HMAC(S, "canal-sock connector" | nonce_a | nonce_c |
 *                                C's rank | A's rank)                          80 bytes
 *     A -> C  VERDICT    "CNLSOCK1", u32 verdict (1 accept, 2 reject), u32 0,
 *                        HMAC(S, "canal-sock acceptor" | verdict | nonce_a |
 *                                nonce_c | C's rank | A's rank)                48 bytes
 *   Both nonces are fresh per connection, so neither proof can be replayed;
 *   the labels keep one side's proof from serving as the other's. A sends
 *   nothing but the challenge until C has proved itself; C sends nothing but
 *   the response until A has. "Reject" settles simultaneous connects.
 *
 *   dynamic peers (processes of other jobs, MPI_Comm_connect/spawn/join):
 *   the same three messages, but C's RESPONSE is
 *     C -> A  DYN RESP   "CNLSDYN1", u64 C's id, u64 A's id, nonce_c[32],
 *                        HMAC(P, "canal-sock dynamic connector" | nonce_a |
 *                                nonce_c | C's id | A's id)                    88 bytes
 *   and A's VERDICT starts with "CNLSDYN1" and proves P with the label
 *   "canal-sock dynamic acceptor" over verdict, nonces and ids. An id is
 *   the 64-bit random number a process draws when it opens the channel
 *   (part of its dynamic card "<addr>#<id hex>"); P is the pair secret the
 *   two processes were given by whoever introduced them (adi/dynamic.c).
 *   The acceptor looks C's id up among its dynamic peers; when it does not
 *   know it yet (C's side learned of A first) the connection is parked,
 *   unanswered, until peer_add() names that id or SOCK_DYN_PARK_S pass.
 *   Simultaneous connects: the connection of the lower id wins.
 *
 *   then frames, each a multiple of 8 bytes long (so headers and payloads
 *   arrive 8-byte aligned in the receive buffer):
 *     u32 payload length, u8 header length (<= CH_HDR_MAX), u8 type,
 *     u16 magic 0xC5A1, header, zeros to 8, payload, zeros to 8.
 *   Type DATA carries a packet; GOODBYE (no header, no payload) says the
 *   sender finalized, so its closing the connection afterwards is no failure.
 */
#ifndef CANAL_CH_SOCK_H
#define CANAL_CH_SOCK_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "channels/channel.h"
#include "common/clock.h"
#include "common/hex.h"
#include "common/random.h"

enum {
    SOCK_SECRET_LEN = 32,
    SOCK_NONCE_LEN = 32,
    SOCK_MAC_LEN = 32,
    SOCK_MAGIC_LEN = 8,
    SOCK_VERSION = 1,
    SOCK_CHALLENGE_LEN = 48,
    SOCK_RESPONSE_LEN = 80,
    SOCK_VERDICT_LEN = 48,
    SOCK_DYN_RESPONSE_LEN = 88,
    SOCK_HS_MAX = 88,
    SOCK_DYN_PARK_S = 30,
    SOCK_FRAME_HEAD = 8,
    SOCK_FRAME_MAGIC = 0xC5A1,
    SOCK_FRAME_DATA = 1,
    SOCK_FRAME_GOODBYE = 2,
    SOCK_VERDICT_ACCEPT = 1,
    SOCK_VERDICT_REJECT = 2,
    SOCK_CARD_MAX = 80,
    /* Unauthenticated connections held at once: a new one beyond this evicts
     * the one that has waited longest, so strangers cannot fill the table
     * and keep the job's own connections out. */
    SOCK_PENDING_MAX = 128,
    /* Connector attempts to one peer that end before the handshake did are
     * retried after pauses that double from 0.1 s up to SOCK_RETRY_PAUSE_MAX_MS;
     * the peer is declared failed once SOCK_RETRY_MIN attempts failed and the
     * first of them started CANAL_SOCK_HANDSHAKE_TIMEOUT ago (or twice that
     * long ago, however many failed). */
    SOCK_RETRY_MIN = 8,
    SOCK_RETRY_PAUSE_MAX_MS = 2000,
};

extern const unsigned char ch_sock_magic[SOCK_MAGIC_LEN];
extern const unsigned char ch_sock_dyn_magic[SOCK_MAGIC_LEN];

/* ---- sock_wire.c: formats and proofs (pure functions) ------------------ */

typedef struct {
    uint32_t len;     /* payload bytes */
    uint32_t hdr_len; /* header bytes */
    int type;
    size_t wire_len; /* whole frame on the wire, padding included */
} sock_frame_t;

static inline size_t sock_pad8(size_t x)
{
    return (x + 7) & ~(size_t)7;
}

void ch_sock_frame_encode(unsigned char head[SOCK_FRAME_HEAD], int type, size_t hdr_len,
                          size_t len);
/* Check the head at p against the limits; CANAL_ERR_PROTO with a detail
 * naming the bad field otherwise. Never trusts a length before checking it. */
canal_status_t ch_sock_frame_decode(const unsigned char head[SOCK_FRAME_HEAD], size_t max_payload,
                                    sock_frame_t *out);
/* Scan buf[0..avail): 1 and *out if a whole frame starts at buf, 0 if more
 * bytes are needed (*need_out says how many the frame needs in all, once the
 * head is there), or an error. */
int ch_sock_frame_scan(const unsigned char *buf, size_t avail, size_t max_payload,
                       sock_frame_t *out, size_t *need_out);

void ch_sock_hs_challenge_encode(unsigned char out[SOCK_CHALLENGE_LEN], int acceptor,
                                 const unsigned char nonce_a[SOCK_NONCE_LEN]);
canal_status_t ch_sock_hs_challenge_decode(const unsigned char in[SOCK_CHALLENGE_LEN],
                                           int *acceptor_out,
                                           unsigned char nonce_a_out[SOCK_NONCE_LEN]);
void ch_sock_hs_connector_proof(const unsigned char secret[SOCK_SECRET_LEN],
                                const unsigned char nonce_a[SOCK_NONCE_LEN],
                                const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                                int acceptor, unsigned char mac_out[SOCK_MAC_LEN]);
void ch_sock_hs_acceptor_proof(const unsigned char secret[SOCK_SECRET_LEN], int verdict,
                               const unsigned char nonce_a[SOCK_NONCE_LEN],
                               const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                               int acceptor, unsigned char mac_out[SOCK_MAC_LEN]);
void ch_sock_hs_response_encode(unsigned char out[SOCK_RESPONSE_LEN],
                                const unsigned char secret[SOCK_SECRET_LEN],
                                const unsigned char nonce_a[SOCK_NONCE_LEN],
                                const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                                int acceptor);
/* The acceptor's check of a response: the ranks are in range, name us and
 * not us, and the proof is right (constant-time compare). On success
 * *connector_out and nonce_c_out are set. */
canal_status_t ch_sock_hs_response_check(const unsigned char in[SOCK_RESPONSE_LEN],
                                         const unsigned char secret[SOCK_SECRET_LEN],
                                         const unsigned char nonce_a[SOCK_NONCE_LEN], int me,
                                         int size, int *connector_out,
                                         unsigned char nonce_c_out[SOCK_NONCE_LEN]);
void ch_sock_hs_verdict_encode(unsigned char out[SOCK_VERDICT_LEN],
                               const unsigned char secret[SOCK_SECRET_LEN], int verdict,
                               const unsigned char nonce_a[SOCK_NONCE_LEN],
                               const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                               int acceptor);
/* The connector's check of a verdict; *verdict_out is ACCEPT or REJECT. */
canal_status_t ch_sock_hs_verdict_check(const unsigned char in[SOCK_VERDICT_LEN],
                                        const unsigned char secret[SOCK_SECRET_LEN],
                                        const unsigned char nonce_a[SOCK_NONCE_LEN],
                                        const unsigned char nonce_c[SOCK_NONCE_LEN], int connector,
                                        int acceptor, int *verdict_out);

/* The dynamic handshake (pure, like the above). decode only parses the
 * ids (the acceptor needs C's id to find the pair secret); check verifies
 * the proof with that secret. */
void ch_sock_hs_dyn_response_encode(unsigned char out[SOCK_DYN_RESPONSE_LEN],
                                    const unsigned char secret[SOCK_SECRET_LEN],
                                    const unsigned char nonce_a[SOCK_NONCE_LEN],
                                    const unsigned char nonce_c[SOCK_NONCE_LEN], uint64_t cid,
                                    uint64_t aid);
canal_status_t ch_sock_hs_dyn_response_decode(const unsigned char in[SOCK_DYN_RESPONSE_LEN],
                                              uint64_t *cid_out, uint64_t *aid_out);
canal_status_t ch_sock_hs_dyn_response_check(const unsigned char in[SOCK_DYN_RESPONSE_LEN],
                                             const unsigned char secret[SOCK_SECRET_LEN],
                                             const unsigned char nonce_a[SOCK_NONCE_LEN],
                                             unsigned char nonce_c_out[SOCK_NONCE_LEN]);
void ch_sock_hs_dyn_verdict_encode(unsigned char out[SOCK_VERDICT_LEN],
                                   const unsigned char secret[SOCK_SECRET_LEN], int verdict,
                                   const unsigned char nonce_a[SOCK_NONCE_LEN],
                                   const unsigned char nonce_c[SOCK_NONCE_LEN], uint64_t cid,
                                   uint64_t aid);
canal_status_t ch_sock_hs_dyn_verdict_check(const unsigned char in[SOCK_VERDICT_LEN],
                                            const unsigned char secret[SOCK_SECRET_LEN],
                                            const unsigned char nonce_a[SOCK_NONCE_LEN],
                                            const unsigned char nonce_c[SOCK_NONCE_LEN],
                                            uint64_t cid, uint64_t aid, int *verdict_out);
/* Dynamic cards: "<address card>#<16 hex digits of the id>". */
void ch_sock_dyn_card_format(const char *addr, uint64_t id, char *out, size_t len);
canal_status_t ch_sock_dyn_card_parse(const char *card, char *addr_out, size_t len,
                                      uint64_t *id_out);

/* The secret's hex from the PMI KVS (common_hex_encode wrote it) back to
 * bytes: exactly 2*n digits, else CANAL_ERR_PROTO saying why. Random bytes
 * come from common_random_bytes (common/random.h). */
canal_status_t ch_sock_hex_decode(const char *in, unsigned char *out, size_t n);

/* ---- sock_addr.c: where to listen, how to write it down ---------------- */

typedef struct {
    struct sockaddr_storage ss;
    socklen_t len;
} sock_addr_t;

/* Choose the address to listen on: spec is CANAL_SOCK_IFACE ("auto", an
 * interface name, a CIDR subnet or one address); remote says whether some
 * peer is on another node (then "auto" avoids loopback); remote == 2: peers
 * may be elsewhere (other jobs), so avoid loopback, but quietly take it
 * when nothing else is up. ifname_out gets the
 * interface's name. The port is 0. */
canal_status_t ch_sock_addr_choose(const char *spec, int remote, sock_addr_t *out, char *ifname_out,
                                   size_t ifname_len);
/* "1.2.3.4:80" or "[::1]:80". */
canal_status_t ch_sock_addr_format(const sock_addr_t *a, char *out, size_t len);
/* Parse a card; numeric addresses only (no name service). */
canal_status_t ch_sock_addr_parse(const char *card, sock_addr_t *out);
int ch_sock_addr_is_loopback(const sock_addr_t *a);

/* ---- sock_conn.c and sock.c: the channel's state ----------------------- */

/* A connection: our outgoing attempt to a peer, or one a stranger or a peer
 * made to us. Before SOCK_CS_UP only handshake bytes are read or written. */
enum {
    SOCK_CS_CONNECTING = 1, /* connector: TCP connect in progress */
    SOCK_CS_WAIT_CHALLENGE, /* connector: connected, waiting for A's nonce */
    SOCK_CS_WAIT_VERDICT,   /* connector: response sent, waiting for A's proof */
    SOCK_CS_WAIT_RESPONSE,  /* acceptor: challenge sent, waiting for C's proof */
    SOCK_CS_PARKED,         /* acceptor: dynamic response from an id not known yet */
    SOCK_CS_UP,             /* authenticated, carries frames */
    SOCK_CS_DEAD,           /* closed; freed at the end of progress() */
};

typedef struct sock_conn {
    struct sock_conn *next; /* in sock_state.conns */
    int fd;
    int acceptor;    /* 1: we accepted it; 0: we connected */
    int state;       /* SOCK_CS_* */
    int peer;        /* rank; -1 on an accepted one until authenticated */
    uint32_t events; /* what epoll watches now */
    double deadline; /* acceptor: the handshake must end by then */
    int got_goodbye;
    int dyn;          /* speaks the dynamic handshake (a peer of another job) */
    uint64_t dyn_cid; /* parked: the connector's id */
    unsigned char nonce_a[SOCK_NONCE_LEN];
    unsigned char nonce_c[SOCK_NONCE_LEN];
    unsigned char hs_out[SOCK_HS_MAX]; /* handshake bytes not yet written */
    size_t hs_len, hs_off;
    int close_after_hs; /* a reject: close once hs_out is written */
    int pending;        /* counted in sock_state.npending */
    unsigned char *in;  /* bytes read and not yet consumed */
    size_t in_cap, in_len;
    char where[SOCK_CARD_MAX]; /* remote address, for log lines */
} sock_conn_t;

/* What we know of one peer rank. */
enum {
    SOCK_PS_IDLE = 0,   /* no connection; the first sendv makes one */
    SOCK_PS_CONNECTING, /* conn is our attempt, not yet authenticated */
    SOCK_PS_WAITING,    /* the peer rejected ours (its own wins); it connects to us */
    SOCK_PS_BACKOFF,    /* our attempt ended in the handshake; again at retry_at */
    SOCK_PS_UP,         /* conn carries frames */
    SOCK_PS_GONE,       /* said goodbye (or we finalized) */
    SOCK_PS_FAILED,     /* lost; on_peer_failed was or will be called */
};

/* Queued output: whole frames, in order, in a list of chunks (small frames
 * share a chunk; a large one has its own), so that back-pressure never moves
 * queued bytes around. */
typedef struct sock_chunk {
    struct sock_chunk *next;
    size_t cap, len, off; /* data[off..len) is still to be written */
    unsigned char data[];
} sock_chunk_t;

typedef struct {
    int state;         /* SOCK_PS_* */
    sock_conn_t *conn; /* our attempt (CONNECTING) or the live one (UP) */
    sock_chunk_t *out_head, *out_tail;
    size_t out_bytes;  /* queued, not yet written */
    int retries;       /* attempts that ended before authentication */
    double retry_since; /* when the first attempt of the series started */
    double wait_since; /* WAITING since then */
    double retry_at;   /* BACKOFF until then */
    int fail_pending;  /* on_peer_failed still to be called */
    canal_status_t fail_status;
    char fail_why[200];
    /* Dynamic peers (index >= the job size): who and how to prove it. */
    int dyn;
    uint64_t dyn_id;
    unsigned char dyn_secret[SOCK_SECRET_LEN];
    char dyn_addr[SOCK_CARD_MAX];
} sock_peer_t;

typedef struct {
    int initialized; /* init() succeeded */
    int ready;       /* post_fence() succeeded */
    ch_upcalls_t up;
    const ch_endpoint_t *ep; /* the endpoint holding this state (its PMI keys) */
    int rank, size;
    unsigned char secret[SOCK_SECRET_LEN];
    int lfd; /* listening socket */
    int epfd;
    sock_addr_t laddr;
    char card[SOCK_CARD_MAX];
    char ifname[64];
    size_t max_payload;
    size_t outbuf_limit;
    double hs_timeout;  /* seconds */
    sock_peer_t *peers; /* cap entries: job ranks, then dynamic peers */
    int npeers;         /* size + dynamic peers added */
    int cap;            /* size + CANAL_DYNAMIC_PEERS */
    uint64_t dyn_id;    /* our id towards other jobs (random, nonzero) */
    int dyn_only;       /* opened for dynamic peers only: job ranks use other channels */
    sock_conn_t *conns; /* every connection, any state */
    int npending;       /* accepted, not yet authenticated */
    int nfail_pending;
    int ntimed;           /* peers in BACKOFF or WAITING */
    unsigned quiet_polls; /* progress() calls with nothing to watch */
    int in_progress;      /* progress() is on the stack (on_packet re-entry) */
    int finalizing;
    int ndead;                /* conns to free at the end of progress() */
    int delivered;            /* packets delivered by the current progress() */
    double next_timer;        /* when progress() next looks at deadlines */
    unsigned long warn_lines; /* stranger log lines written (rate limit) */
    unsigned long accept_errors;

    /* Counters for tests and describe(). */
    unsigned long strangers_dropped;
    unsigned long strangers_evicted; /* of those: to make room for a newer connection */
    unsigned long handshakes_ok;
    unsigned long rejects_sent;
    unsigned long connects_started;
    unsigned long frames_in, frames_out;
    unsigned long dyn_parked; /* dynamic connections that waited for peer_add */
} sock_state_t;

/* sock_conn.c */
canal_status_t ch_sock_sendv(ch_endpoint_t *ep, int peer, const struct iovec *iov, int n);
int ch_sock_progress(ch_endpoint_t *ep);
canal_status_t ch_sock_block(ch_endpoint_t *ep, long timeout_us, int (*ready)(void *arg),
                             void *arg);
canal_status_t ch_sock_dyn_peer_add(ch_endpoint_t *ep, int peer, const char *card,
                                    const unsigned char secret[SOCK_SECRET_LEN]);
void ch_sock_conn_close_all(sock_state_t *st);
void ch_sock_conn_goodbye_all(sock_state_t *st, double timeout_s);
int ch_sock_count_up(const sock_state_t *st);

/* The device must call this, with progress, before the fence of its
 * finalize: packets accepted by sendv may still sit in our queues (a lazy
 * connection handshakes only when the peer progresses). Returns CANAL_OK
 * when everything is handed to the kernel, CANAL_AGAIN if not yet. Proposed
 * as an optional ch_ops_t.flush; see the report of issue 8. */
canal_status_t ch_sock_flush(ch_endpoint_t *ep);

#endif
