/*
 * The harness the channel tests share (test_ch_shm.c, test_ch_sock.c,
 * test_ch_ofi.c), and the cases every channel must pass the same way: the
 * per-rank checks (T_CHECK: a failing rank prints where and why and exits
 * 1, which the Check test sees), the checked message (a header that names
 * sender, sequence number and length, a payload whose every byte is a
 * function of them), the receiver that verifies order and content, the
 * table of header/payload sizes, and the bring-up and tear-down the device
 * does. A test file describes its channel once (conf_channel_t: the ops and
 * the few things channels do differently) and writes only its own cases.
 */
#ifndef CANAL_TEST_CH_CONFORM_H
#define CANAL_TEST_CH_CONFORM_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "channels/channel.h"
#include "test/unit/fake_pmi.h"
#include "test/unit/unit_limits.h"

/* What differs between channels; the test file defines conf_channel. */
typedef struct {
    const char *file;                /* the test's file name, for messages */
    const ch_ops_t *ops;
    void (*idle)(void);              /* a poll found nothing: NULL yields the CPU */
    void (*after_send)(int peer);    /* NULL, or what follows a sendv (shm: wake the peer) */
    void (*before_init)(void);       /* NULL, or after pmi_init, before ops->init */
    void (*flush)(void);             /* NULL, or push out what sendv accepted, before the fence */
    void (*on_fail)(void);           /* NULL, or print state / clean up when a check fails */
    const char *(*label)(void);      /* NULL, or a prefix for failure messages */
    int skip_unsupported;            /* init's CANAL_ERR_UNSUPPORTED skips the test */
    int check_alignment;             /* header and payload arrive 8-byte aligned */
    /* For the table of cases (conf_add_cases): */
    int self_send;                   /* a rank sends to itself through the channel */
    int checks_null_header;          /* sendv refuses a NULL header base */
    unsigned pingpong_rounds;        /* 0: 2000 */
    int upcall_send_may_wait;        /* sendv inside on_packet may say AGAIN (retried) */
    /* NULL, or a job of nprocs ranks that reach each other over variant v
     * (ofi: provider v); NULL runs run_job(nprocs, 1, body, v). */
    int (*run)(int nprocs, int variant, fake_pmi_body_t body);
    /* NULL, or conf_bring_up for variant v (returns 0 to skip). */
    int (*bring_up)(int variant, ch_upcalls_t *up);
    void (*after_order)(void);       /* NULL, or the channel's own checks after the order case */
} conf_channel_t;
extern const conf_channel_t conf_channel;

#define CH (conf_channel.ops)
/* The endpoint the tests use: made from CH on first use (in the rank that
 * uses it), freed by tear_down(). */
ch_endpoint_t *conf_ep(void);
#define EP (conf_ep())

extern pmi_info_t info;
extern ch_caps_t caps;

void rank_fail(int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
#define T_CHECK(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            rank_fail(__LINE__, #cond, __VA_ARGS__);                                               \
    } while (0)

double now_s(void);
void sleep_ms(int ms);
/* One progress call; when nothing came, the channel's idle action, so that
 * jobs with more ranks than cores still make progress. */
int poll_once(void);

/* ---- checked messages ---------------------------------------------------- */
typedef struct {
    uint32_t magic;
    uint32_t src;
    uint32_t seq;
    uint32_t len;
} thdr_t;
enum { THDR_MAGIC = 0x54534854 };

unsigned char pattern(int src, unsigned seq, size_t i);
void make_payload(unsigned char *buf, int src, unsigned seq, size_t len);

/* What the receiving side has seen, per source rank. */
extern unsigned expect_seq[FAKE_PMI_MAX_PROCS];
extern unsigned received[FAKE_PMI_MAX_PROCS];
extern long delivered_total;
void counters_reset(void);
/* on_packet for checked messages: in order, intact, from who they say. */
void on_packet_check(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len);
void on_rdma_done_unused(void *cookie, canal_status_t st);

/* Send one checked message, progressing while the channel says AGAIN. */
void send_checked(int peer, unsigned seq, size_t len, unsigned char *scratch);
/* Progress until n checked messages arrived (a hang fails). */
void wait_delivered(long n);

/* pmi_init, channel init, fence, post_fence, counters reset: what the device
 * does. Returns 0 when the channel is not available here and the channel
 * skips such tests (conf_channel.skip_unsupported), else 1. */
int conf_bring_up(ch_upcalls_t *up);
/* flush, fence, finalize. Returns 0 (a body's success). */
int tear_down(void);
int run_job(int nprocs, int nnodes, fake_pmi_body_t body, void *arg);

/* ---- every header length and payload size -------------------------------- */
typedef struct {
    size_t hl, len;
} size_case_t;
enum { SIZE_CASES_MAX = 1000 };
extern size_case_t cases[SIZE_CASES_MAX];
extern int ncases, case_next;
unsigned char hdr_byte(unsigned seq, size_t i);
/* Every header length with a few payload sizes, and every payload size at
 * the interesting spots between 0 and max, both directions. Both sides
 * build the same list; the receiver checks case k against the k-th packet. */
void size_cases(size_t max);
/* on_packet of the sizes case (a 4-byte "ack!" header with no payload is
 * counted in received[] instead). */
void on_packet_sizes(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len);


/* ---- cases every channel runs the same way -------------------------------- */
/* sendv's argument checks, on a channel that is up: a peer out of range
 * (-1, size), a NULL or empty iov, a header over CH_HDR_MAX (or with a NULL
 * base, when null_header), a payload over max_payload, a NULL payload base
 * and an iov_len that wraps are CANAL_ERR_ARG. `peer` is one the channel
 * reaches. */
void conf_sendv_bad_args(int peer, int null_header);

/* ---- the table of cases every channel runs ------------------------------- */
/* The cases (each a job, over every variant): order_2 and order_4 (every rank
 * sends CONF_ORDER_MSGS to every rank it reaches, interleaved, sizes from 0 to max_payload;
 * all arrive in order and intact), sizes (every header length and payload
 * size, both directions, gathered from 4 iovecs), pingpong_callback (round
 * trips of an 8-byte message whose header counts, each answer sent from
 * the receive up-call, which must accept it at once, while a progress()
 * nested in the up-call delivers nothing), block_wake (block() with nothing to do returns; a rank
 * blocked without a timeout is woken by a packet; no assertion on how long
 * anything took), sendv_bad_args (conf_sendv_bad_args). conf_add_cases adds
 * them to tc as one loop test over cases x nvariants. */
void conf_add_cases(TCase *tc, int nvariants);
enum { CONF_ORDER_MSGS = 1500 };
/* The order case's payload size of message seq (0 .. max). */
size_t conf_order_len(unsigned seq, size_t max);
/* The order case's body (arg: the variant), for a channel's own variations
 * (more ranks, counters that wrap, another address family). */
int conf_body_order(int rank, void *arg);

#endif
