/*
 * The channel tests' shared harness (see ch_conform.h): compiled into
 * test_ch_shm, test_ch_sock and test_ch_ofi, each of which supplies
 * conf_channel.
 */
#include "test/unit/ch_conform.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

pmi_info_t info;
ch_caps_t caps;
unsigned expect_seq[FAKE_PMI_MAX_PROCS];
unsigned received[FAKE_PMI_MAX_PROCS];
long delivered_total;
size_case_t cases[SIZE_CASES_MAX];
int ncases, case_next;

void rank_fail(int line, const char *cond, const char *fmt, ...)
{
    const char *label = conf_channel.label != NULL ? conf_channel.label() : NULL;
    va_list ap;

    fake_pmi_note_failed();
    fprintf(stderr, "[%s%srank %d] %s:%d: check failed: %s: ", label ? label : "",
            label ? " " : "", fake_pmi_rank(), conf_channel.file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (last error: %s)\n", common_err_detail());
    if (conf_channel.on_fail != NULL)
        conf_channel.on_fail();
    fflush(NULL);
    _exit(1);
}

double now_s(void)
{
    return common_now_s();
}

void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int poll_once(void)
{
    int n = ch_progress(EP), failed = fake_pmi_failed_rank();
    if (failed >= 0 && failed != fake_pmi_rank())
        rank_fail(__LINE__, "another rank failed", "rank %d failed a check; this rank's state:",
                  failed);
    if (n == 0) {
        if (conf_channel.idle != NULL)
            conf_channel.idle();
        else
            sched_yield();
    }
    return n;
}

unsigned char pattern(int src, unsigned seq, size_t i)
{
    return (unsigned char)(src * 131 + seq * 7 + i * 13 + (i >> 8));
}

void make_payload(unsigned char *buf, int src, unsigned seq, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = pattern(src, seq, i);
}

void counters_reset(void)
{
    memset(expect_seq, 0, sizeof expect_seq);
    memset(received, 0, sizeof received);
    delivered_total = 0;
}

void on_packet_check(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    thdr_t h;
    const unsigned char *p = payload;

    T_CHECK(hdr_len == sizeof h, "header length %zu from %d", hdr_len, peer);
    if (conf_channel.check_alignment)
        T_CHECK(((uintptr_t)hdr & 7) == 0 && ((uintptr_t)payload & 7) == 0, "unaligned delivery");
    memcpy(&h, hdr, sizeof h);
    T_CHECK(h.magic == THDR_MAGIC, "bad magic from %d", peer);
    T_CHECK((int)h.src == peer, "header says src %u, channel says %d", h.src, peer);
    T_CHECK(h.seq == expect_seq[peer], "from %d: seq %u, expected %u (reordered or lost)", peer,
            h.seq, expect_seq[peer]);
    T_CHECK(h.len == len, "from %d seq %u: length %zu, header says %u", peer, h.seq, len, h.len);
    for (size_t i = 0; i < len; i++)
        T_CHECK(p[i] == pattern(peer, h.seq, i), "from %d seq %u: byte %zu of %zu wrong", peer,
                h.seq, i, len);
    expect_seq[peer]++;
    received[peer]++;
    delivered_total++;
}

void on_rdma_done_unused(void *cookie, canal_status_t st)
{
    (void)cookie;
    (void)st;
}

/* The bodies that mix in turns set this: send_checked then sends two of
 * every three packets with sendv_turn (channel.h), the pingpong every one. */
static int conf_turns;

static canal_status_t conf_send(int peer, const struct iovec *iov, int n, int turn)
{
    return turn ? ch_sendv_turn(EP, peer, iov, n) : ch_sendv(EP, peer, iov, n);
}

void send_checked(int peer, unsigned seq, size_t len, unsigned char *scratch)
{
    thdr_t h = {THDR_MAGIC, (uint32_t)info.rank, seq, (uint32_t)len};
    struct iovec iov[2] = {{&h, sizeof h}, {scratch, len}};
    canal_status_t st;
    double t0 = now_s();

    make_payload(scratch, info.rank, seq, len);
    while ((st = conf_send(peer, iov, 2, conf_turns && seq % 3 != 2)) == CANAL_AGAIN) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(now_s() - t0 < unit_hang_s(), "sendv to %d stuck in AGAIN", peer);
    }
    T_CHECK(st == CANAL_OK, "sendv to %d len %zu returned %d", peer, len, st);
    if (conf_channel.after_send != NULL)
        conf_channel.after_send(peer);
}

void wait_delivered(long n)
{
    double t0 = now_s(), limit = unit_hang_s();
    long seen = delivered_total;

    /* A hang is no arrival for the whole limit; a slow but moving stream
     * (a loaded machine) is not one, however long it takes. */
    while (delivered_total < n) {
        T_CHECK(poll_once() >= 0, "progress");
        if (delivered_total != seen) {
            seen = delivered_total;
            t0 = now_s();
        }
        T_CHECK(now_s() - t0 < limit, "only %ld of %ld messages arrived, none in the last %.0f s",
                delivered_total, n, limit);
    }
}

static ch_endpoint_t *the_ep;

ch_endpoint_t *conf_ep(void)
{
    if (the_ep == NULL && ch_endpoint_new(CH, NULL, &the_ep) != CANAL_OK) {
        fprintf(stderr, "%s: no endpoint: %s\n", conf_channel.file, common_err_detail());
        _exit(1);
    }
    return the_ep;
}

int conf_bring_up(ch_upcalls_t *up)
{
    canal_status_t st;

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    if (conf_channel.before_init != NULL)
        conf_channel.before_init();
    st = ch_init(EP, &info, up, &caps);
    if (st == CANAL_ERR_UNSUPPORTED && conf_channel.skip_unsupported) {
        if (info.rank == 0)
            fprintf(stderr, "SKIP %s: %s\n",
                    conf_channel.label != NULL ? conf_channel.label() : conf_channel.file,
                    common_err_detail());
        return 0;
    }
    T_CHECK(st == CANAL_OK, "init returned %d", st);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    st = ch_post_fence(EP);
    T_CHECK(st == CANAL_OK, "post_fence returned %d", st);
    counters_reset();
    return 1;
}

int tear_down(void)
{
    if (conf_channel.flush != NULL)
        conf_channel.flush();
    T_CHECK(pmi_fence() == CANAL_OK, "final fence");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    ch_endpoint_free(the_ep);
    the_ep = NULL;
    return 0;
}

int run_job(int nprocs, int nnodes, fake_pmi_body_t body, void *arg)
{
    fake_pmi_job_t job = {.nprocs = nprocs, .nnodes = nnodes};
    return fake_pmi_run(&job, body, arg);
}

unsigned char hdr_byte(unsigned seq, size_t i)
{
    return (unsigned char)(0xa0 + i + seq);
}

void size_cases(size_t max)
{
    ncases = 0;
    for (size_t hl = 0; hl <= CH_HDR_MAX; hl++) {
        cases[ncases++] = (size_case_t){hl, 0};
        cases[ncases++] = (size_case_t){hl, 9};
        cases[ncases++] = (size_case_t){hl, max};
    }
    for (size_t s = 0; s <= 130; s++) {
        cases[ncases++] = (size_case_t){24, s};
        cases[ncases++] = (size_case_t){0, s};
    }
    for (size_t s = 256; s <= max / 2; s *= 2)
        for (size_t d = 0; d < 3; d++) {
            cases[ncases++] = (size_case_t){24, s + d - 1};
            cases[ncases++] = (size_case_t){CH_HDR_MAX, s + d - 1};
        }
    for (size_t d = 0; d <= 72; d += 4)
        cases[ncases++] = (size_case_t){d % 40, max - d};
}

void on_packet_sizes(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    const unsigned char *h = hdr, *p = payload;
    unsigned seq = (unsigned)case_next;

    if (hdr_len == 4 && len == 0 && memcmp(hdr, "ack!", 4) == 0) {
        received[peer]++;
        return;
    }
    T_CHECK(case_next < ncases, "more packets than cases");
    T_CHECK(hdr_len == cases[seq].hl && len == cases[seq].len,
            "case %u: got hl %zu len %zu, sent %zu %zu", seq, hdr_len, len, cases[seq].hl,
            cases[seq].len);
    for (size_t i = 0; i < hdr_len; i++)
        T_CHECK(h[i] == hdr_byte(seq, i), "case %u: header byte %zu", seq, i);
    for (size_t i = 0; i < len; i++)
        T_CHECK(p[i] == pattern(peer, seq, i), "case %u (hl %zu len %zu): byte %zu", seq, hdr_len,
                len, i);
    case_next++;
}

static unsigned pp_count, pp_rounds;

static void on_packet_pingpong(int peer, const void *hdr, size_t hdr_len, const void *payload,
                               size_t len)
{
    unsigned v;
    canal_status_t st;

    (void)payload;
    T_CHECK(hdr_len == sizeof v && len == 8, "ping-pong packet hl %zu len %zu", hdr_len, len);
    memcpy(&v, hdr, sizeof v);
    T_CHECK(v == pp_count, "ping-pong: got %u, expected %u", v, pp_count);
    pp_count++;
    if (v + 1 < 2 * pp_rounds) {
        unsigned next = v + 1;
        uint64_t data = next;
        struct iovec iov[2] = {{&next, sizeof next}, {&data, sizeof data}};
        /* A channel whose sends wait for the provider's credits may say
         * AGAIN here (ofi); the others must take it at once. */
        while ((st = conf_send(peer, iov, 2, conf_turns)) == CANAL_AGAIN &&
               conf_channel.upcall_send_may_wait)
            ;
        T_CHECK(st == CANAL_OK, "sendv inside on_packet: %d", st);
        /* A nested progress() must deliver nothing. */
        T_CHECK(ch_progress(EP) == 0, "nested progress delivered");
        pp_count++;
    }
}

void conf_sendv_bad_args(int peer, int null_header)
{
    unsigned char big[CH_HDR_MAX + 1] = {0};
    struct iovec iov[3];
    unsigned char *pay;

    iov[0] = (struct iovec){big, 4};
    T_CHECK(ch_sendv(EP, -1, iov, 1) == CANAL_ERR_ARG, "sendv to -1");
    T_CHECK(ch_sendv(EP, info.size, iov, 1) == CANAL_ERR_ARG, "sendv to size");
    T_CHECK(ch_sendv(EP, peer, NULL, 1) == CANAL_ERR_ARG, "NULL iov");
    T_CHECK(ch_sendv(EP, peer, iov, 0) == CANAL_ERR_ARG, "n = 0");
    iov[0] = (struct iovec){big, sizeof big};
    T_CHECK(ch_sendv(EP, peer, iov, 1) == CANAL_ERR_ARG, "header too long");
    if (null_header) {
        iov[0] = (struct iovec){NULL, 4};
        T_CHECK(ch_sendv(EP, peer, iov, 1) == CANAL_ERR_ARG, "NULL header");
    }
    pay = malloc(caps.max_payload + 1);
    T_CHECK(pay != NULL, "malloc");
    iov[0] = (struct iovec){big, 4};
    iov[1] = (struct iovec){pay, caps.max_payload};
    iov[2] = (struct iovec){pay, 1};
    T_CHECK(ch_sendv(EP, peer, iov, 3) == CANAL_ERR_ARG, "payload too long");
    iov[1] = (struct iovec){NULL, 5};
    T_CHECK(ch_sendv(EP, peer, iov, 2) == CANAL_ERR_ARG, "NULL payload base");
    iov[1] = (struct iovec){(void *)-1, SIZE_MAX};
    T_CHECK(ch_sendv(EP, peer, iov, 2) == CANAL_ERR_ARG, "huge iov_len");
    free(pay);
}

/* ---- the table of cases ----------------------------------------------------- */

static int conf_variant(void *arg)
{
    return (int)(intptr_t)arg;
}

/* A peer reported failed while a case ran is checked before the tear-down
 * (a channel may report a peer's exit during finalize: not a failure). */
static int conf_peer_failures, conf_failed_peer;
static void on_peer_failed_count(int peer, canal_status_t st)
{
    (void)st;
    conf_peer_failures++;
    conf_failed_peer = peer;
}

static int conf_tear_down(void)
{
    T_CHECK(conf_peer_failures == 0, "%d peer failures (last: rank %d)", conf_peer_failures,
            conf_failed_peer);
    return tear_down();
}

static int conf_up(void *arg, ch_upcalls_t *up)
{
    conf_peer_failures = 0;
    if (conf_channel.bring_up != NULL)
        return conf_channel.bring_up(conf_variant(arg), up);
    return conf_bring_up(up);
}

size_t conf_order_len(unsigned seq, size_t max)
{
    static const size_t sizes[] = {0, 1, 8, 48, 100, 1024, 4000, 20000};
    if (seq % 97 == 0)
        return max;
    return sizes[seq % 8] < max ? sizes[seq % 8] : max;
}

int conf_body_order(int rank, void *arg)
{
    ch_upcalls_t up = {on_packet_check, on_rdma_done_unused, on_peer_failed_count};
    unsigned sent[FAKE_PMI_MAX_PROCS] = {0};
    int peers[FAKE_PMI_MAX_PROCS];
    unsigned char *buf;
    int n, npeers = 0;

    if (!conf_up(arg, &up))
        return 0;
    n = info.size;
    /* A node-local channel reaches its node, the others every rank. */
    for (int k = 0; k < n; k++) {
        int r = (rank + k) % n;
        int want = !caps.local_only || info.node_of == NULL ||
                   info.node_of[r] == info.node_of[rank];
        if (r != rank)
            T_CHECK(ch_reaches(EP, r) == want, "reaches(%d) is %d", r, !want);
        if (want && (r != rank || conf_channel.self_send))
            peers[npeers++] = r;
    }
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    for (unsigned i = 0; i < CONF_ORDER_MSGS; i++)
        for (int k = 0; k < npeers; k++) {
            int peer = peers[k]; /* interleaved destinations */
            send_checked(peer, sent[peer], conf_order_len(sent[peer], caps.max_payload), buf);
            sent[peer]++;
            if (i % 16 == 0)
                T_CHECK(poll_once() >= 0, "progress");
        }
    wait_delivered((long)CONF_ORDER_MSGS * npeers);
    for (int k = 0; k < npeers; k++)
        T_CHECK(received[peers[k]] == CONF_ORDER_MSGS, "from %d: %u", peers[k],
                received[peers[k]]);
    if (conf_channel.after_order != NULL)
        conf_channel.after_order();
    free(buf);
    return conf_tear_down();
}

/* Both directions in turn: the sender sends every case, the receiver checks
 * each against the table and answers "ack!" when it has them all. */
static int conf_body_sizes(int rank, void *arg)
{
    ch_upcalls_t up = {on_packet_sizes, on_rdma_done_unused, on_peer_failed_count};
    unsigned char hdr[CH_HDR_MAX];
    unsigned char *buf;
    double t0;

    if (!conf_up(arg, &up))
        return 0;
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    size_cases(caps.max_payload);
    for (int sender = 0; sender < 2; sender++) {
        case_next = 0;
        received[1 - rank] = 0;
        if (rank == sender) {
            for (int k = 0; k < ncases; k++) {
                size_t hl = cases[k].hl, len = cases[k].len;
                /* The payload over three iovecs: the channel gathers. */
                size_t a = len / 3, b = len / 2 - len / 3;
                struct iovec iov[4] = {
                    {hdr, hl}, {buf, a}, {buf + a, b}, {buf + a + b, len - a - b}};
                canal_status_t st;
                for (size_t i = 0; i < hl; i++)
                    hdr[i] = hdr_byte((unsigned)k, i);
                make_payload(buf, rank, (unsigned)k, len);
                t0 = now_s();
                while ((st = ch_sendv(EP, 1 - rank, iov, 4)) == CANAL_AGAIN) {
                    T_CHECK(poll_once() >= 0, "progress");
                    T_CHECK(now_s() - t0 < unit_hang_s(), "stuck at case %d", k);
                }
                T_CHECK(st == CANAL_OK, "sendv hl %zu len %zu: %d", hl, len, st);
                if (conf_channel.after_send != NULL)
                    conf_channel.after_send(1 - rank);
            }
            t0 = now_s();
            while (received[1 - rank] == 0) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "no ack");
            }
        } else {
            struct iovec ack[1] = {{"ack!", 4}};
            canal_status_t st;
            t0 = now_s();
            while (case_next < ncases) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "only %d of %d cases arrived", case_next,
                        ncases);
            }
            while ((st = ch_sendv(EP, 1 - rank, ack, 1)) == CANAL_AGAIN)
                T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(st == CANAL_OK, "ack: %d", st);
            if (conf_channel.after_send != NULL)
                conf_channel.after_send(1 - rank);
        }
        if (conf_channel.flush != NULL)
            conf_channel.flush();
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    }
    free(buf);
    return conf_tear_down();
}

static int conf_body_pingpong(int rank, void *arg)
{
    ch_upcalls_t up = {on_packet_pingpong, on_rdma_done_unused, on_peer_failed_count};
    double t0;

    (void)rank;
    if (!conf_up(arg, &up))
        return 0;
    pp_rounds = conf_channel.pingpong_rounds != 0 ? conf_channel.pingpong_rounds : 2000;
    pp_count = 0;
    if (info.rank == 0) {
        unsigned v = 0;
        uint64_t data = 0;
        struct iovec iov[2] = {{&v, sizeof v}, {&data, sizeof data}};
        canal_status_t st;
        while ((st = conf_send(1, iov, 2, conf_turns)) == CANAL_AGAIN)
            T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(st == CANAL_OK, "first ping: %d", st);
        if (conf_channel.after_send != NULL)
            conf_channel.after_send(1);
        pp_count = 1;
    }
    t0 = now_s();
    while (pp_count < 2 * pp_rounds) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(now_s() - t0 < unit_hang_s(), "ping-pong stuck at %u", pp_count);
    }
    return conf_tear_down();
}

/* block() with nothing to do returns (after its timeout or sooner: a
 * channel may nap); a rank blocked without a timeout is woken by the packet
 * rank 0 sends after a pause (the pause only makes the sleep likely; nothing
 * is judged by the clock, the hang limit only turns a lost wake-up into a
 * failure). Twice, so the second wake-up finds the connection made. */
static int conf_body_block_wake(int rank, void *arg)
{
    ch_upcalls_t up = {on_packet_check, on_rdma_done_unused, on_peer_failed_count};
    unsigned char buf[16];
    double t0;

    if (!conf_up(arg, &up))
        return 0;
    if (rank == 1) {
        T_CHECK(ch_block(EP, 100000) == CANAL_OK, "block(100 ms) with nothing to do");
        T_CHECK(ch_block(EP, 0) == CANAL_OK, "block(0)");
        T_CHECK(delivered_total == 0, "%ld packets from nowhere", delivered_total);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    for (unsigned round = 0; round < 2; round++) {
        if (rank == 0) {
            sleep_ms(200);
            send_checked(1, round, 8, buf);
            if (conf_channel.flush != NULL)
                conf_channel.flush();
        } else if (rank == 1) {
            t0 = now_s();
            while (received[0] < round + 1) {
                T_CHECK(ch_block(EP, unit_block_forever_us()) == CANAL_OK, "block");
                T_CHECK(ch_progress(EP) >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "round %u: never woken", round);
            }
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    }
    return conf_tear_down();
}

static int conf_body_bad_args(int rank, void *arg)
{
    ch_upcalls_t up = {on_packet_check, on_rdma_done_unused, on_peer_failed_count};

    if (!conf_up(arg, &up))
        return 0;
    conf_sendv_bad_args(1 - rank, conf_channel.checks_null_header);
    return conf_tear_down();
}

/* The order and ping-pong cases with turns mixed in (sendv_turn: the same
 * order and data as sendv, whether the channel takes the hint or not). */
static int conf_body_order_turns(int rank, void *arg)
{
    conf_turns = 1;
    return conf_body_order(rank, arg);
}

static int conf_body_pingpong_turns(int rank, void *arg)
{
    conf_turns = 1;
    return conf_body_pingpong(rank, arg);
}

typedef struct {
    const char *name;
    int nprocs;
    fake_pmi_body_t body;
} conf_case_t;

static const conf_case_t conf_cases[] = {
    {"order_2", 2, conf_body_order},
    {"order_4", 4, conf_body_order},
    {"sizes", 2, conf_body_sizes},
    {"pingpong_callback", 2, conf_body_pingpong},
    {"order_turns_2", 2, conf_body_order_turns},
    {"order_turns_4", 4, conf_body_order_turns},
    {"pingpong_turns", 2, conf_body_pingpong_turns},
    {"block_wake", 2, conf_body_block_wake},
    {"sendv_bad_args", 2, conf_body_bad_args},
};
enum { NCONF_CASES = sizeof conf_cases / sizeof conf_cases[0] };

START_TEST(conf_case)
{
    const conf_case_t *c = &conf_cases[_i % NCONF_CASES];
    int variant = _i / NCONF_CASES, rc;

    fprintf(stderr, "%s: conformance case %s (variant %d)\n", conf_channel.file, c->name, variant);
    if (conf_channel.run != NULL)
        rc = conf_channel.run(c->nprocs, variant, c->body);
    else
        rc = run_job(c->nprocs, 1, c->body, (void *)(intptr_t)variant);
    ck_assert_msg(rc == 0, "conformance case %s (variant %d) failed", c->name, variant);
}
END_TEST

void conf_add_cases(TCase *tc, int nvariants)
{
    tcase_add_loop_test(tc, conf_case, 0, NCONF_CASES * (nvariants > 0 ? nvariants : 1));
}
