/*
 * Unit tests of the sock channel's dynamic peers (processes of other jobs,
 * channels/sock/, ops dyn_open/dyn_card/dyn_peer_add): the dynamic
 * handshake's encoders and parsers (round trips, every tampered byte
 * refused, random input never accepted) and dynamic cards; then forked
 * processes that each open the channel for other jobs only and meet as
 * dynamic peers: a mesh where the late adders' incoming connections are
 * parked until peer_add names them, ordering and payloads checked; a wrong
 * pair secret (dropped as a stranger, nothing delivered); and a job whose
 * ranks also know each other as dynamic peers (both handshakes on one
 * listener). Jobs run through test/unit/fake_pmi.c (used only to pass
 * cards); ranks report by exit status.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "channels/channel.h"
#include "channels/sock/sock.h"
#include "common/log.h"
#include "test/unit/fake_pmi.h"
#include "test/unit/unit_limits.h"

#define CH (&ch_sock_ops)
#define ST ((sock_state_t *)EP->state)
#define EP (test_ep())

static void rank_fail(int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "[rank %d] test_ch_sock_dyn.c:%d: check failed: %s: ", fake_pmi_rank(), line,
            cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (last error: %s)\n", common_err_detail());
    fflush(NULL);
    _exit(1);
}

/* The sock endpoint of this rank, made on first use. */
static ch_endpoint_t *the_ep;
static ch_endpoint_t *test_ep(void)
{
    if (the_ep == NULL && ch_endpoint_new(CH, NULL, &the_ep) != CANAL_OK) {
        fprintf(stderr, "endpoint: %s\n", common_err_detail());
        _exit(1);
    }
    return the_ep;
}

#define T_CHECK(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            rank_fail(__LINE__, #cond, __VA_ARGS__);                                               \
    } while (0)

static double now_s(void)
{
    return common_now_s();
}


/* ---- the wire --------------------------------------------------------------- */

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

START_TEST(test_dyn_wire)
{
    unsigned char s[SOCK_SECRET_LEN], s2[SOCK_SECRET_LEN], na[SOCK_NONCE_LEN], nc[SOCK_NONCE_LEN];
    unsigned char resp[SOCK_DYN_RESPONSE_LEN], v[SOCK_VERDICT_LEN], got[SOCK_NONCE_LEN];
    uint64_t cid = 0x1122334455667788ULL, aid = 0x99aabbccddeeff01ULL, c, a;
    int verdict;

    fill(s, sizeof s, 1);
    fill(s2, sizeof s2, 2);
    fill(na, sizeof na, 3);
    fill(nc, sizeof nc, 4);
    ch_sock_hs_dyn_response_encode(resp, s, na, nc, cid, aid);
    ck_assert_int_eq(ch_sock_hs_dyn_response_decode(resp, &c, &a), CANAL_OK);
    ck_assert(c == cid && a == aid);
    ck_assert_int_eq(ch_sock_hs_dyn_response_check(resp, s, na, got), CANAL_OK);
    ck_assert(memcmp(got, nc, sizeof nc) == 0);
    /* another secret, another challenge */
    ck_assert_int_lt(ch_sock_hs_dyn_response_check(resp, s2, na, got), 0);
    na[5] ^= 1;
    ck_assert_int_lt(ch_sock_hs_dyn_response_check(resp, s, na, got), 0);
    na[5] ^= 1;
    /* every byte matters */
    for (size_t i = 0; i < sizeof resp; i++) {
        resp[i] ^= 0x40;
        ck_assert_msg(ch_sock_hs_dyn_response_check(resp, s, na, got) < 0, "byte %zu", i);
        resp[i] ^= 0x40;
    }
    /* a job-rank response is not a dynamic one, and zero/equal ids are refused */
    memcpy(resp, ch_sock_magic, SOCK_MAGIC_LEN);
    ck_assert_int_lt(ch_sock_hs_dyn_response_decode(resp, &c, &a), 0);
    ch_sock_hs_dyn_response_encode(resp, s, na, nc, 0, aid);
    ck_assert_int_lt(ch_sock_hs_dyn_response_decode(resp, &c, &a), 0);
    ch_sock_hs_dyn_response_encode(resp, s, na, nc, aid, aid);
    ck_assert_int_lt(ch_sock_hs_dyn_response_decode(resp, &c, &a), 0);

    for (int vd = SOCK_VERDICT_ACCEPT; vd <= SOCK_VERDICT_REJECT; vd++) {
        ch_sock_hs_dyn_verdict_encode(v, s, vd, na, nc, cid, aid);
        ck_assert_int_eq(ch_sock_hs_dyn_verdict_check(v, s, na, nc, cid, aid, &verdict), CANAL_OK);
        ck_assert_int_eq(verdict, vd);
        ck_assert_int_lt(ch_sock_hs_dyn_verdict_check(v, s2, na, nc, cid, aid, &verdict), 0);
        ck_assert_int_lt(ch_sock_hs_dyn_verdict_check(v, s, na, nc, aid, cid, &verdict), 0);
        for (size_t i = 0; i < sizeof v; i++) {
            v[i] ^= 0x01;
            ck_assert_msg(ch_sock_hs_dyn_verdict_check(v, s, na, nc, cid, aid, &verdict) < 0,
                          "verdict byte %zu", i);
            v[i] ^= 0x01;
        }
    }
    /* the job-rank verdict of the same secret does not pass as a dynamic one */
    ch_sock_hs_verdict_encode(v, s, SOCK_VERDICT_ACCEPT, na, nc, 1, 2);
    ck_assert_int_lt(ch_sock_hs_dyn_verdict_check(v, s, na, nc, cid, aid, &verdict), 0);
}
END_TEST

START_TEST(test_dyn_wire_fuzz)
{
    unsigned char s[SOCK_SECRET_LEN], na[SOCK_NONCE_LEN], buf[SOCK_DYN_RESPONSE_LEN],
        got[SOCK_NONCE_LEN];
    unsigned seed = 12345;
    uint64_t c, a;
    int verdict;

    fill(s, sizeof s, 9);
    fill(na, sizeof na, 8);
    for (int round = 0; round < 20000; round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (unsigned char)(seed >> 16);
        }
        if (round % 2)
            memcpy(buf, ch_sock_dyn_magic, SOCK_MAGIC_LEN);
        ck_assert_int_lt(ch_sock_hs_dyn_response_check(buf, s, na, got), 0);
        (void)ch_sock_hs_dyn_response_decode(buf, &c, &a);
        ck_assert_int_lt(ch_sock_hs_dyn_verdict_check(buf, s, na, na, 1, 2, &verdict), 0);
    }
}
END_TEST

START_TEST(test_dyn_cards)
{
    char card[SOCK_CARD_MAX + 20], addr[SOCK_CARD_MAX];
    uint64_t id = 0;

    ch_sock_dyn_card_format("10.1.2.3:4567", 0xdeadbeef01ULL, card, sizeof card);
    ck_assert_str_eq(card, "10.1.2.3:4567#000000deadbeef01");
    ck_assert_int_eq(ch_sock_dyn_card_parse(card, addr, sizeof addr, &id), CANAL_OK);
    ck_assert_str_eq(addr, "10.1.2.3:4567");
    ck_assert(id == 0xdeadbeef01ULL);
    ch_sock_dyn_card_format("[::1]:80", ~0ULL, card, sizeof card);
    ck_assert_int_eq(ch_sock_dyn_card_parse(card, addr, sizeof addr, &id), CANAL_OK);
    ck_assert_str_eq(addr, "[::1]:80");
    ck_assert(id == ~0ULL);
    ck_assert_int_lt(ch_sock_dyn_card_parse("10.1.2.3:4567", addr, sizeof addr, &id), 0);
    ck_assert_int_lt(ch_sock_dyn_card_parse("#0000000000000001", addr, sizeof addr, &id), 0);
    ck_assert_int_lt(ch_sock_dyn_card_parse("1.2.3.4:5#000000000000000", addr, sizeof addr, &id),
                     0);
    ck_assert_int_lt(ch_sock_dyn_card_parse("1.2.3.4:5#00000000000000001", addr, sizeof addr, &id),
                     0);
    ck_assert_int_lt(ch_sock_dyn_card_parse("1.2.3.4:5#000000000000000g", addr, sizeof addr, &id),
                     0);
    ck_assert_int_lt(ch_sock_dyn_card_parse("1.2.3.4:5#0000000000000000", addr, sizeof addr, &id),
                     0);
    ck_assert_int_lt(ch_sock_dyn_card_parse(NULL, addr, sizeof addr, &id), 0);
    ck_assert_int_lt(ch_sock_dyn_card_parse("1.2.3.4:5#0000000000000001", addr, 4, &id), 0);
}
END_TEST

/* ---- processes that meet as dynamic peers ----------------------------------- */

static pmi_info_t info;
static ch_caps_t caps;

typedef struct {
    uint32_t from; /* the sender's fake rank */
    uint32_t seq;
    uint32_t len;
    uint32_t pad;
} dhdr_t;

enum { MAXP = 16, NMSG = 30 };
static int rank_of_peer[MAXP + FAKE_PMI_MAX_PROCS]; /* channel peer -> fake rank */
static unsigned next_seq[FAKE_PMI_MAX_PROCS];
static long delivered;

static unsigned char pat(int from, unsigned seq, size_t i)
{
    return (unsigned char)(from * 17 + seq * 5 + i * 3);
}

static void on_packet(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    dhdr_t h;
    const unsigned char *p = payload;
    T_CHECK(hdr_len == sizeof h, "header of %zu bytes", hdr_len);
    memcpy(&h, hdr, sizeof h);
    T_CHECK(peer >= info.size && rank_of_peer[peer] == (int)h.from,
            "peer %d delivered a packet of rank %u", peer, h.from);
    T_CHECK(h.seq == next_seq[h.from], "from %u: seq %u, expected %u", h.from, h.seq,
            next_seq[h.from]);
    T_CHECK(h.len == len, "length %zu, header says %u", len, h.len);
    for (size_t i = 0; i < len; i++)
        T_CHECK(p[i] == pat((int)h.from, h.seq, i), "from %u seq %u byte %zu", h.from, h.seq, i);
    next_seq[h.from]++;
    delivered++;
}

static void on_rdma_unused(void *cookie, canal_status_t st) {}

static int nfailed;
static void on_failed(int peer, canal_status_t st) { nfailed++; }

static ch_upcalls_t up = {on_packet, on_rdma_unused, on_failed};

static void poll_once(void)
{
    if (ch_progress(EP) == 0)
        ch_block(EP, 1000);
}

/* Every rank publishes its card; the secret is rank 0's (or per rank with
 * `own_secret`, to make them differ). */
static void share_cards(int dyn_only, unsigned char secret[SOCK_SECRET_LEN], int own_secret)
{
    char card[PMI_VAL_MAX], key[PMI_KEY_MAX], hex[2 * SOCK_SECRET_LEN + 1];

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    common_log_set_rank(info.rank);
    if (dyn_only) {
        T_CHECK(ch_dyn_open(EP, &info, &up, &caps) == CANAL_OK, "dyn_open");
    } else {
        T_CHECK(ch_init(EP, &info, &up, &caps) == CANAL_OK, "init");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(ch_post_fence(EP) == CANAL_OK, "post_fence");
        T_CHECK(ch_dyn_open(EP, &info, &up, &caps) == CANAL_OK, "dyn_open after init");
    }
    T_CHECK(ch_dyn_card(EP, card, sizeof card) == CANAL_OK, "dyn_card");
    snprintf(key, sizeof key, "dyn-card-%d", info.rank);
    T_CHECK(pmi_put(key, card) == CANAL_OK, "put");
    if (info.rank == 0 || own_secret) {
        fill(secret, SOCK_SECRET_LEN, (unsigned)(own_secret ? 100 + info.rank : 100));
        common_hex_encode(secret, SOCK_SECRET_LEN, hex);
        if (info.rank == 0)
            T_CHECK(pmi_put("dyn-secret", hex) == CANAL_OK, "put");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (info.rank != 0 && !own_secret) {
        T_CHECK(pmi_get(0, "dyn-secret", hex, sizeof hex) == CANAL_OK, "get");
        T_CHECK(ch_sock_hex_decode(hex, secret, SOCK_SECRET_LEN) == CANAL_OK, "hex");
    }
}

/* Add every other rank as a dynamic peer, in rank order; returns the
 * channel index of rank r in idx[r]. */
static void add_all(const unsigned char secret[SOCK_SECRET_LEN], int idx[])
{
    int next = info.size;
    for (int r = 0; r < info.size; r++) {
        char card[PMI_VAL_MAX], key[PMI_KEY_MAX];
        idx[r] = -1;
        if (r == info.rank)
            continue;
        snprintf(key, sizeof key, "dyn-card-%d", r);
        T_CHECK(pmi_get(r, key, card, sizeof card) == CANAL_OK, "card of %d", r);
        T_CHECK(ch_dyn_peer_add(EP, next, card, secret) == CANAL_OK, "add rank %d", r);
        T_CHECK(ch_reaches(EP, next), "does not reach new peer %d", next);
        rank_of_peer[next] = r;
        idx[r] = next++;
    }
}

static void send_one(int peer, unsigned seq, size_t len)
{
    static unsigned char buf[200000];
    dhdr_t h = {(uint32_t)info.rank, seq, (uint32_t)len, 0};
    struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
    canal_status_t st;
    double t0 = now_s();
    for (size_t i = 0; i < len; i++)
        buf[i] = pat(info.rank, seq, i);
    while ((st = ch_sendv(EP, peer, iov, 2)) == CANAL_AGAIN) {
        poll_once();
        T_CHECK(now_s() - t0 < unit_hang_s(), "sendv stuck");
    }
    T_CHECK(st == CANAL_OK, "sendv to %d: %d", peer, st);
}

static void finish(void)
{
    double t0 = now_s();
    while (ch_flush(EP) == CANAL_AGAIN) {
        poll_once();
        T_CHECK(now_s() - t0 < unit_hang_s(), "flush stuck");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
}

/* Rank r adds its peers r * 300 ms late, and the last rank only once every
 * other rank's connection to it has arrived and been parked (however slow the
 * machine): those parked connections must then carry everything in order. */
static int body_mesh(int rank, void *arg)
{
    unsigned char secret[SOCK_SECRET_LEN];
    int idx[FAKE_PMI_MAX_PROCS], dyn_only = *(int *)arg;
    long want;
    double t0;

    share_cards(dyn_only, secret, 0);
    if (dyn_only)
        T_CHECK(!ch_reaches(EP, (rank + 1) % info.size),
                "a job rank is reachable in dyn-only mode");
    /* progressing meanwhile, so that early connections are read and parked */
    t0 = now_s();
    if (rank == info.size - 1) {
        while (ST->dyn_parked < (unsigned long)(info.size - 1)) {
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "%lu of %d connections parked",
                    ST->dyn_parked, info.size - 1);
        }
    } else {
        while (now_s() - t0 < 0.3 * rank)
            poll_once();
    }
    add_all(secret, idx);
    for (unsigned s = 0; s < NMSG; s++)
        for (int r = 0; r < info.size; r++)
            if (r != rank)
                send_one(idx[r], s, s % 7 == 0 ? 150000 : (size_t)s * 13);
    want = (long)NMSG * (info.size - 1);
    t0 = now_s();
    while (delivered < want) {
        poll_once();
        T_CHECK(now_s() - t0 < unit_hang_s(), "only %ld of %ld packets arrived", delivered, want);
    }
    T_CHECK(nfailed == 0, "%d peers failed", nfailed);
    T_CHECK(ST->handshakes_ok >= (unsigned long)(info.size - 1) / 2, "handshakes %lu",
            ST->handshakes_ok);
    finish();
    return 0;
}

START_TEST(test_dyn_mesh)
{
    int dyn_only = 1;
    fake_pmi_job_t job = {.nprocs = 4};
    ck_assert_int_eq(fake_pmi_run(&job, body_mesh, &dyn_only), 0);
}
END_TEST

/* The job's ranks also meet as dynamic peers: both handshakes on one listener. */
START_TEST(test_dyn_with_job)
{
    int dyn_only = 0;
    fake_pmi_job_t job = {.nprocs = 3};
    ck_assert_int_eq(fake_pmi_run(&job, body_mesh, &dyn_only), 0);
}
END_TEST

/* Different pair secrets: rank 1's connection cannot prove it; rank 0
 * drops it as a stranger and delivers nothing. */
static int body_wrong_secret(int rank, void *arg)
{
    unsigned char secret[SOCK_SECRET_LEN];
    int idx[FAKE_PMI_MAX_PROCS];
    volatile int *dropped = arg; /* shared: rank 0 dropped the impostor */
    double t0;

    share_cards(1, secret, 1);
    add_all(secret, idx);
    if (rank == 1)
        send_one(idx[0], 0, 10);
    /* Both progress (rank 1 must write its handshake) until rank 0 drops it. */
    t0 = now_s();
    while (!*dropped) {
        poll_once();
        if (rank == 0 && ST->strangers_dropped > 0)
            *dropped = 1;
        T_CHECK(now_s() - t0 < unit_hang_s(), "the impostor was not dropped");
    }
    T_CHECK(delivered == 0, "a packet crossed with a wrong secret");
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_dyn_wrong_secret)
{
    fake_pmi_job_t job = {.nprocs = 2};
    int *dropped = mmap(NULL, sizeof *dropped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    ck_assert(dropped != MAP_FAILED);
    *dropped = 0;
    ck_assert_int_eq(fake_pmi_run(&job, body_wrong_secret, dropped), 0);
    munmap(dropped, sizeof *dropped);
}
END_TEST

/* Bad input to dyn_peer_add. */
static int body_bad_add(int rank, void *arg)
{
    unsigned char secret[SOCK_SECRET_LEN];
    char mine[PMI_VAL_MAX];
    (void)arg;
    (void)rank;
    share_cards(1, secret, 0);
    T_CHECK(ch_dyn_card(EP, mine, sizeof mine) == CANAL_OK, "card");
    T_CHECK(ch_dyn_peer_add(EP, info.size + 1, "1.2.3.4:5#0000000000000001", secret) < 0,
            "a gap in the indices was taken");
    T_CHECK(ch_dyn_peer_add(EP, info.size, "garbage", secret) < 0, "garbage card taken");
    T_CHECK(ch_dyn_peer_add(EP, info.size, mine, secret) < 0, "our own card taken");
    T_CHECK(ch_dyn_peer_add(EP, info.size, "1.2.3.4:5#0000000000000001", NULL) < 0, "NULL secret");
    T_CHECK(ch_dyn_peer_add(EP, info.size, "1.2.3.4:5#0000000000000001", secret) == CANAL_OK,
            "add");
    T_CHECK(ch_dyn_peer_add(EP, info.size + 1, "1.2.3.4:6#0000000000000001", secret) < 0,
            "the same id twice");
    T_CHECK(ch_sendv(EP, 0, NULL, 0) < 0, "sendv to a job rank in dyn-only mode");
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_dyn_bad_add)
{
    fake_pmi_job_t job = {.nprocs = 1};
    ck_assert_int_eq(fake_pmi_run(&job, body_bad_add, NULL), 0);
}
END_TEST

static Suite *dyn_suite(void)
{
    Suite *s = suite_create("ch_sock_dyn");
    TCase *wire = tcase_create("wire"), *procs = tcase_create("procs");
    tcase_set_timeout(wire, unit_case_timeout_s());
    tcase_add_test(wire, test_dyn_wire);
    tcase_add_test(wire, test_dyn_wire_fuzz);
    tcase_add_test(wire, test_dyn_cards);
    suite_add_tcase(s, wire);
    tcase_set_timeout(procs, unit_case_timeout_s());
    tcase_add_test(procs, test_dyn_mesh);
    tcase_add_test(procs, test_dyn_with_job);
    tcase_add_test(procs, test_dyn_wrong_secret);
    tcase_add_test(procs, test_dyn_bad_add);
    suite_add_tcase(s, procs);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(dyn_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
