/*
 * Unit tests of the TCP channel (channels/sock/): SHA-256 and HMAC against
 * the FIPS 180-4 and RFC 4231 vectors; the frame and handshake parsers,
 * including a fuzz-style run over random and mutated input; address cards
 * and interface choice; the table of cases every channel runs (ch_conform.c),
 * and sock's own over 2..16 forked ranks (IPv6, many iovecs, back-pressure,
 * simultaneous and many-at-once connects); the
 * handshake against strangers (garbage, wrong key, replay, truncation,
 * silence, floods, an impostor acceptor, an insider's oversized frame); and
 * faults (a killed peer, a refused connect, a clean finalize). Each job runs
 * through test/unit/fake_pmi.c; the ranks check their own results and
 * report by exit status, which the Check test asserts.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channels/channel.h"
#include "channels/sock/sha256.h"
#include "channels/sock/sock.h"
#include "common/log.h"
#include "test/unit/ch_conform.h"

#define ST ((sock_state_t *)EP->state)

/* ---- the channel under test (test/unit/ch_conform.h) -------------------- */

/* When a poll found nothing, sleep in block() for at most 1 ms, as the
 * device does, so that jobs with more ranks than cores still make progress
 * (and the kernel's network work is not starved by spinning ranks). */
static void sock_idle(void)
{
    if (ST->ready)
        ch_block(EP, 1000);
}

static void sock_log_rank(void)
{
    common_log_set_rank(info.rank);
}

/* What the device must do at finalize: push out what sendv accepted (the
 * connection may still be handshaking), then fence, then finalize. */
static void flush_all(void)
{
    double t0 = now_s();
    while (ch_flush(EP) == CANAL_AGAIN) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(now_s() - t0 < unit_hang_s(), "flush stuck");
    }
}

/* After the table's order case: one connection per peer (and IPv6 when
 * test_order_ipv6 asked for it). */
static int want_ipv6;
static void sock_after_order(void)
{
    T_CHECK(ch_sock_count_up(ST) == info.size - 1, "%d connections up for %d peers",
            ch_sock_count_up(ST), info.size - 1);
    if (want_ipv6)
        T_CHECK(ST->laddr.ss.ss_family == AF_INET6, "not IPv6 with CANAL_SOCK_IFACE=%s",
                getenv("CANAL_SOCK_IFACE"));
}

const conf_channel_t conf_channel = {
    .file = "test_ch_sock.c",
    .ops = &ch_sock_ops,
    .idle = sock_idle,
    .before_init = sock_log_rank,
    .flush = flush_all,
    .check_alignment = 1,
    .checks_null_header = 1,
    .pingpong_rounds = 5000,
    .after_order = sock_after_order,
};

static int failed_peer = -1;
static canal_status_t failed_status;
static int nfailures;

static void on_peer_failed_record(int peer, canal_status_t st)
{
    failed_peer = peer;
    failed_status = st;
    nfailures++;
}

static void on_peer_failed_fatal(int peer, canal_status_t st)
{
    rank_fail(__LINE__, "no peer failure", "rank %d failed (%d)", peer, st);
}

static ch_upcalls_t up_check = {on_packet_check, on_rdma_done_unused, on_peer_failed_fatal};
static ch_upcalls_t up_check_record = {on_packet_check, on_rdma_done_unused, on_peer_failed_record};

/* pmi_init, channel init, fence, post_fence: what the device does. */
static void bring_up(ch_upcalls_t *up)
{
    conf_bring_up(up);
    failed_peer = -1;
    nfailures = 0;
}

/* A word of memory shared by the test process and its job (flags between ranks). */
static volatile int *shared_flags;

static void shared_setup(void)
{
    shared_flags = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert(shared_flags != MAP_FAILED);
    memset((void *)shared_flags, 0, 4096);
}

static void shared_teardown(void)
{
    munmap((void *)shared_flags, 4096);
}

/* ---- SHA-256 and HMAC ----------------------------------------------------- */

static void hex_of(const unsigned char *d, size_t n, char *out)
{
    common_hex_encode(d, n, out);
}

static void unhex(const char *h, unsigned char *out, size_t *n_out)
{
    size_t n = strlen(h) / 2;
    ck_assert_int_eq(ch_sock_hex_decode(h, out, n), CANAL_OK);
    *n_out = n;
}

START_TEST(test_sha256_fips)
{
    static const struct {
        const char *msg;
        const char *digest;
    } v[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
         "lmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    unsigned char d[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];

    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        ch_sock_sha256(v[i].msg, strlen(v[i].msg), d);
        hex_of(d, sizeof d, hex);
        ck_assert_str_eq(hex, v[i].digest);
        /* The same through the streaming interface, a byte at a time. */
        sock_sha256_t c;
        ch_sock_sha256_init(&c);
        for (size_t k = 0; k < strlen(v[i].msg); k++)
            ch_sock_sha256_update(&c, v[i].msg + k, 1);
        ch_sock_sha256_final(&c, d);
        hex_of(d, sizeof d, hex);
        ck_assert_str_eq(hex, v[i].digest);
    }
    /* One million 'a', in uneven pieces. */
    {
        static char a[1000];
        sock_sha256_t c;
        size_t left = 1000000, k = 1;
        memset(a, 'a', sizeof a);
        ch_sock_sha256_init(&c);
        while (left > 0) {
            size_t n = (k * 37) % 999 + 1;
            if (n > left)
                n = left;
            ch_sock_sha256_update(&c, a, n);
            left -= n;
            k++;
        }
        ch_sock_sha256_final(&c, d);
        hex_of(d, sizeof d, hex);
        ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    /* Lengths around the padding boundary agree between one-shot and streaming. */
    for (size_t n = 50; n < 140; n++) {
        unsigned char msg[140], d2[SHA256_LEN];
        sock_sha256_t c;
        for (size_t i = 0; i < n; i++)
            msg[i] = (unsigned char)(i * 7);
        ch_sock_sha256(msg, n, d);
        ch_sock_sha256_init(&c);
        ch_sock_sha256_update(&c, msg, n / 3);
        ch_sock_sha256_update(&c, msg + n / 3, n - n / 3);
        ch_sock_sha256_final(&c, d2);
        ck_assert(memcmp(d, d2, SHA256_LEN) == 0);
    }
}
END_TEST

START_TEST(test_hmac_rfc4231)
{
    /* RFC 4231 test cases 1-7 (case 5 truncated to 128 bits). */
    static const struct {
        const char *key_hex;
        const char *data_hex;
        const char *mac_hex;
    } v[] = {
        {"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
         "dddddddddddddd",
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        {"0102030405060708090a0b0c0d0e0f10111213141516171819",
         "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
         "cdcdcdcdcdcdcd",
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        {"0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c", "546573742057697468205472756e636174696f6e",
         "a3b6167473100ee06e0c796c2955552b"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368"
         "204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a"
         "65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865"
         "206b6579206e6565647320746f20626520686173686564206265666f7265206265696e672075736564206279"
         "2074686520484d414320616c676f726974686d2e",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
    };
    unsigned char key[256], data[256], mac[SHA256_LEN];
    char hex[2 * SHA256_LEN + 1];
    size_t kl, dl;

    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unhex(v[i].key_hex, key, &kl);
        unhex(v[i].data_hex, data, &dl);
        ch_sock_hmac_sha256(key, kl, data, dl, mac);
        hex_of(mac, sizeof mac, hex);
        ck_assert_msg(strncmp(hex, v[i].mac_hex, strlen(v[i].mac_hex)) == 0, "case %zu: %s", i + 1,
                      hex);
    }
    ck_assert(ch_sock_ct_equal("abcd", "abcd", 4));
    ck_assert(!ch_sock_ct_equal("abcd", "abce", 4));
    ck_assert(!ch_sock_ct_equal("xbcd", "abcd", 4));
    ck_assert(ch_sock_ct_equal("", "", 0));
}
END_TEST

/* ---- wire formats, and a fuzz of the parsers -------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    /* xorshift64*: reproducible, good enough to make garbage. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static void rnd_bytes(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
}

START_TEST(test_frame_format)
{
    unsigned char h[SOCK_FRAME_HEAD];
    sock_frame_t f;
    size_t need;

    ch_sock_frame_encode(h, SOCK_FRAME_DATA, 24, 1000);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_OK);
    ck_assert_int_eq(f.len, 1000);
    ck_assert_int_eq(f.hdr_len, 24);
    ck_assert_int_eq(f.type, SOCK_FRAME_DATA);
    ck_assert_int_eq(f.wire_len, 8 + 24 + 1000);
    ch_sock_frame_encode(h, SOCK_FRAME_DATA, 3, 5);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_OK);
    ck_assert_int_eq(f.wire_len, 8 + 8 + 8);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4, &f), CANAL_ERR_PROTO); /* len 5 > max 4 */
    ch_sock_frame_encode(h, SOCK_FRAME_DATA, 65, 0);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_ERR_PROTO);
    ck_assert(strstr(common_err_detail(), "header length") != NULL);
    ch_sock_frame_encode(h, 7, 0, 0);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_ERR_PROTO);
    ch_sock_frame_encode(h, SOCK_FRAME_GOODBYE, 0, 0);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_OK);
    ck_assert_int_eq(f.wire_len, 8);
    ch_sock_frame_encode(h, SOCK_FRAME_GOODBYE, 0, 8);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_ERR_PROTO);
    /* The largest length field: refused before anything is sized by it. */
    memcpy(h, "\xff\xff\xff\xff\x00\x01\xa1\xc5", 8);
    ck_assert_int_eq(ch_sock_frame_decode(h, 256 * 1024, &f), CANAL_ERR_PROTO);
    ck_assert(strstr(common_err_detail(), "4294967295") != NULL);
    memcpy(h, "\x00\x00\x00\x00\x00\x01\xa1\xc6", 8);
    ck_assert_int_eq(ch_sock_frame_decode(h, 4096, &f), CANAL_ERR_PROTO);
    ck_assert(strstr(common_err_detail(), "magic") != NULL);
    /* Scan: partial heads need more, whole frames are found. */
    ch_sock_frame_encode(h, SOCK_FRAME_DATA, 16, 100);
    ck_assert_int_eq(ch_sock_frame_scan(h, 5, 4096, &f, &need), 0);
    ck_assert_int_eq(need, 8);
    ck_assert_int_eq(ch_sock_frame_scan(h, 8, 4096, &f, &need), 0);
    ck_assert_int_eq(need, 8 + 16 + 104);
}
END_TEST

START_TEST(test_frame_fuzz)
{
    enum { MAXP = 4096, STREAM = 1 << 20 };
    unsigned char *buf = malloc(STREAM);
    unsigned char *stream = malloc(STREAM);
    size_t lens[4096], hls[4096];
    int nframes = 0;
    size_t slen = 0;

    ck_assert(buf != NULL && stream != NULL);
    /* Random bytes: the scanner either finds a frame within the bytes it
     * was given, asks for more, or reports an error; it never claims more
     * than the limits allow. */
    for (int iter = 0; iter < 200000; iter++) {
        size_t avail = rnd() % 64;
        sock_frame_t f;
        size_t need = 0;
        int r;
        rnd_bytes(buf, avail);
        if (iter % 3 == 0 && avail >= 8) { /* often with the right magic */
            buf[6] = 0xa1;
            buf[7] = 0xc5;
            buf[5] = (unsigned char)(rnd() % 4);
        }
        r = ch_sock_frame_scan(buf, avail, MAXP, &f, &need);
        ck_assert(r == 0 || r == 1 || r == CANAL_ERR_PROTO);
        if (r == 1) {
            ck_assert(f.wire_len <= avail && f.len <= MAXP && f.hdr_len <= CH_HDR_MAX);
            ck_assert(f.type == SOCK_FRAME_DATA || f.type == SOCK_FRAME_GOODBYE);
        }
        if (r == 0)
            ck_assert(need <= SOCK_FRAME_HEAD + CH_HDR_MAX + 8 + MAXP + 8);
    }
    /* A valid stream of random frames, cut at random places, reads back
     * exactly, whatever the cuts. */
    while (slen < STREAM - (SOCK_FRAME_HEAD + 72 + MAXP + 8) && nframes < 4096) {
        size_t hl = rnd() % (CH_HDR_MAX + 1),
               len = rnd() % 3 == 0 ? rnd() % (MAXP + 1) : rnd() % 40;
        ch_sock_frame_encode(stream + slen, SOCK_FRAME_DATA, hl, len);
        slen += SOCK_FRAME_HEAD;
        rnd_bytes(stream + slen, sock_pad8(hl) + sock_pad8(len));
        slen += sock_pad8(hl) + sock_pad8(len);
        lens[nframes] = len;
        hls[nframes] = hl;
        nframes++;
    }
    {
        size_t fed = 0, have = 0;
        int seen = 0;
        while (seen < nframes) {
            size_t cut = rnd() % 3000 + 1;
            sock_frame_t f;
            size_t need;
            if (cut > slen - fed)
                cut = slen - fed;
            memcpy(buf + have, stream + fed, cut);
            fed += cut;
            have += cut;
            size_t off = 0;
            while (ch_sock_frame_scan(buf + off, have - off, MAXP, &f, &need) == 1) {
                ck_assert_int_eq(f.len, lens[seen]);
                ck_assert_int_eq(f.hdr_len, hls[seen]);
                off += f.wire_len;
                seen++;
            }
            memmove(buf, buf + off, have - off);
            have -= off;
            ck_assert(fed < slen || seen == nframes);
        }
    }
    free(buf);
    free(stream);
}
END_TEST

START_TEST(test_handshake_fuzz)
{
    unsigned char secret[SOCK_SECRET_LEN], other[SOCK_SECRET_LEN];
    unsigned char na[SOCK_NONCE_LEN], nc[SOCK_NONCE_LEN], got_nc[SOCK_NONCE_LEN], na2[32];
    unsigned char ch[SOCK_CHALLENGE_LEN], resp[SOCK_RESPONSE_LEN], ver[SOCK_VERDICT_LEN];
    unsigned char m[SOCK_RESPONSE_LEN];
    int c = -1, a = -1, v = 0;

    ck_assert_int_eq(common_random_bytes(secret, sizeof secret), CANAL_OK);
    ck_assert_int_eq(common_random_bytes(other, sizeof other), CANAL_OK);
    ck_assert_int_eq(common_random_bytes(na, sizeof na), CANAL_OK);
    ck_assert_int_eq(common_random_bytes(nc, sizeof nc), CANAL_OK);
    ck_assert(memcmp(na, nc, 32) != 0);

    /* The good path: rank 3 connects to rank 5 of 8. */
    ch_sock_hs_challenge_encode(ch, 5, na);
    ck_assert_int_eq(ch_sock_hs_challenge_decode(ch, &a, na2), CANAL_OK);
    ck_assert_int_eq(a, 5);
    ck_assert(memcmp(na, na2, 32) == 0);
    ch_sock_hs_response_encode(resp, secret, na, nc, 3, 5);
    ck_assert_int_eq(ch_sock_hs_response_check(resp, secret, na, 5, 8, &c, got_nc), CANAL_OK);
    ck_assert_int_eq(c, 3);
    ck_assert(memcmp(got_nc, nc, 32) == 0);
    ch_sock_hs_verdict_encode(ver, secret, SOCK_VERDICT_ACCEPT, na, nc, 3, 5);
    ck_assert_int_eq(ch_sock_hs_verdict_check(ver, secret, na, nc, 3, 5, &v), CANAL_OK);
    ck_assert_int_eq(v, SOCK_VERDICT_ACCEPT);
    ch_sock_hs_verdict_encode(ver, secret, SOCK_VERDICT_REJECT, na, nc, 3, 5);
    ck_assert_int_eq(ch_sock_hs_verdict_check(ver, secret, na, nc, 3, 5, &v), CANAL_OK);
    ck_assert_int_eq(v, SOCK_VERDICT_REJECT);

    /* Wrong key, replay (other nonce), wrong ranks. */
    ch_sock_hs_response_encode(m, other, na, nc, 3, 5);
    ck_assert_int_eq(ch_sock_hs_response_check(m, secret, na, 5, 8, &c, got_nc), CANAL_ERR_PROTO);
    ck_assert(strstr(common_err_detail(), "wrong proof") != NULL);
    {
        unsigned char fresh[32];
        common_random_bytes(fresh, 32);
        ck_assert_int_eq(ch_sock_hs_response_check(resp, secret, fresh, 5, 8, &c, got_nc),
                         CANAL_ERR_PROTO);
    }
    ck_assert_int_eq(ch_sock_hs_response_check(resp, secret, na, 4, 8, &c, got_nc),
                     CANAL_ERR_PROTO);
    ck_assert_int_eq(ch_sock_hs_response_check(resp, secret, na, 5, 3, &c, got_nc),
                     CANAL_ERR_PROTO);
    ch_sock_hs_response_encode(m, secret, na, nc, 5, 5);
    ck_assert_int_eq(ch_sock_hs_response_check(m, secret, na, 5, 8, &c, got_nc), CANAL_ERR_PROTO);
    /* The acceptor's proof cannot serve as the connector's and vice versa. */
    memcpy(m, resp, sizeof m);
    ch_sock_hs_acceptor_proof(secret, SOCK_VERDICT_ACCEPT, na, nc, 3, 5, m + 48);
    ck_assert_int_eq(ch_sock_hs_response_check(m, secret, na, 5, 8, &c, got_nc), CANAL_ERR_PROTO);
    ch_sock_hs_verdict_encode(ver, secret, SOCK_VERDICT_ACCEPT, na, nc, 3, 5);
    ch_sock_hs_connector_proof(secret, na, nc, 3, 5, ver + 16);
    ck_assert_int_eq(ch_sock_hs_verdict_check(ver, secret, na, nc, 3, 5, &v), CANAL_ERR_PROTO);
    /* A verdict for another connection (other nonce) is refused. */
    ch_sock_hs_verdict_encode(ver, secret, SOCK_VERDICT_ACCEPT, na, nc, 3, 5);
    {
        unsigned char nc2[32];
        memcpy(nc2, nc, 32);
        nc2[31] ^= 1;
        ck_assert_int_eq(ch_sock_hs_verdict_check(ver, secret, na, nc2, 3, 5, &v), CANAL_ERR_PROTO);
        ck_assert_int_eq(ch_sock_hs_verdict_check(ver, secret, na, nc, 4, 5, &v), CANAL_ERR_PROTO);
    }

    /* Every single-bit change of a good response or verdict is refused. */
    for (size_t bit = 0; bit < 8 * SOCK_RESPONSE_LEN; bit++) {
        memcpy(m, resp, sizeof m);
        m[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        ck_assert_msg(ch_sock_hs_response_check(m, secret, na, 5, 8, &c, got_nc) == CANAL_ERR_PROTO,
                      "response with bit %zu flipped accepted", bit);
    }
    ch_sock_hs_verdict_encode(ver, secret, SOCK_VERDICT_ACCEPT, na, nc, 3, 5);
    for (size_t bit = 0; bit < 8 * SOCK_VERDICT_LEN; bit++) {
        unsigned char w[SOCK_VERDICT_LEN];
        memcpy(w, ver, sizeof w);
        w[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        ck_assert_msg(ch_sock_hs_verdict_check(w, secret, na, nc, 3, 5, &v) == CANAL_ERR_PROTO,
                      "verdict with bit %zu flipped accepted", bit);
    }
    /* Random messages, with and without the magic: never accepted. */
    for (int iter = 0; iter < 50000; iter++) {
        rnd_bytes(m, sizeof m);
        if (iter % 2)
            memcpy(m, ch_sock_magic, SOCK_MAGIC_LEN);
        if (iter % 4 == 1) {
            m[8] = 3, m[9] = m[10] = m[11] = 0;
            m[12] = 5, m[13] = m[14] = m[15] = 0;
        }
        ck_assert(ch_sock_hs_response_check(m, secret, na, 5, 8, &c, got_nc) == CANAL_ERR_PROTO);
        ck_assert(ch_sock_hs_verdict_check(m, secret, na, nc, 3, 5, &v) == CANAL_ERR_PROTO);
        int r = ch_sock_hs_challenge_decode(m, &a, na2);
        ck_assert(r == CANAL_ERR_PROTO || (r == CANAL_OK && memcmp(m, ch_sock_magic, 8) == 0));
    }
    /* Hex of the secret. */
    {
        char hex[65];
        unsigned char back[32];
        common_hex_encode(secret, 32, hex);
        ck_assert_int_eq(strlen(hex), 64);
        ck_assert_int_eq(ch_sock_hex_decode(hex, back, 32), CANAL_OK);
        ck_assert(memcmp(back, secret, 32) == 0);
        ck_assert_int_eq(ch_sock_hex_decode("abc", back, 32), CANAL_ERR_PROTO);
        hex[10] = 'g';
        ck_assert_int_eq(ch_sock_hex_decode(hex, back, 32), CANAL_ERR_PROTO);
        ck_assert_int_eq(ch_sock_hex_decode(NULL, back, 32), CANAL_ERR_PROTO);
    }
}
END_TEST

/* ---- addresses ---------------------------------------------------------------- */

START_TEST(test_addr_cards)
{
    sock_addr_t a;
    char out[SOCK_CARD_MAX];
    static const char *const good[] = {"127.0.0.1:80", "10.1.2.3:65535", "[::1]:4000",
                                       "[fd00::2]:1", "[::ffff:1.2.3.4]:9"};
    static const char *const bad[] = {"",
                                      "127.0.0.1",
                                      "127.0.0.1:",
                                      "127.0.0.1:0",
                                      "1.2.3.4:65536",
                                      "1.2.3.4:-5",
                                      "1.2.3.4:5x",
                                      "host:80",
                                      "[::1:80",
                                      "[::1]80",
                                      "[]:80",
                                      "::1:80",
                                      "1.2.3.4: 80",
                                      "[zz::1]:80",
                                      ":80",
                                      "1.2.3.4:99999999999999999999"};

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ck_assert_msg(ch_sock_addr_parse(good[i], &a) == CANAL_OK, "%s: %s", good[i],
                      common_err_detail());
        ck_assert_int_eq(ch_sock_addr_format(&a, out, sizeof out), CANAL_OK);
        ck_assert_str_eq(out, good[i]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(ch_sock_addr_parse(bad[i], &a) == CANAL_ERR_PROTO, "accepted \"%s\"", bad[i]);
    {
        char longcard[2000];
        memset(longcard, '1', sizeof longcard);
        longcard[sizeof longcard - 1] = '\0';
        ck_assert_int_eq(ch_sock_addr_parse(longcard, &a), CANAL_ERR_PROTO);
    }
    ck_assert_int_eq(ch_sock_addr_parse(NULL, &a), CANAL_ERR_ARG);
    ck_assert_int_eq(ch_sock_addr_format(&a, out, 3) == CANAL_OK, 0);
}
END_TEST

START_TEST(test_addr_choose)
{
    sock_addr_t a;
    char ifname[64], out[SOCK_CARD_MAX];

    ck_assert_int_eq(ch_sock_addr_choose("auto", 0, &a, ifname, sizeof ifname), CANAL_OK);
    ck_assert(ch_sock_addr_is_loopback(&a));
    ck_assert_int_eq(ch_sock_addr_choose("lo", 1, &a, ifname, sizeof ifname), CANAL_OK);
    ck_assert_str_eq(ifname, "lo");
    ck_assert_int_eq(a.ss.ss_family, AF_INET);
    ck_assert_int_eq(ch_sock_addr_choose("127.0.0.0/8", 0, &a, ifname, sizeof ifname), CANAL_OK);
    ch_sock_addr_format(&a, out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1:0");
    ck_assert_int_eq(ch_sock_addr_choose("127.0.0.1", 0, &a, ifname, sizeof ifname), CANAL_OK);
    ck_assert_int_eq(ch_sock_addr_choose("nosuchif9", 0, &a, ifname, sizeof ifname),
                     CANAL_ERR_NOTFOUND);
    ck_assert_msg(strstr(common_err_detail(), "nosuchif9") != NULL &&
                      strstr(common_err_detail(), "lo ") != NULL,
                  "%s", common_err_detail());
    ck_assert_int_eq(ch_sock_addr_choose("203.0.113.0/24", 0, &a, ifname, sizeof ifname),
                     CANAL_ERR_NOTFOUND);
    ck_assert_int_eq(ch_sock_addr_choose("10.0.0.0/33", 0, &a, ifname, sizeof ifname),
                     CANAL_ERR_ARG);
    ck_assert_int_eq(ch_sock_addr_choose("10.0.0.0/", 0, &a, ifname, sizeof ifname), CANAL_ERR_ARG);
    ck_assert_int_eq(
        ch_sock_addr_choose("averyveryverylonginterfacename", 0, &a, ifname, sizeof ifname),
        CANAL_ERR_ARG);
    if (ch_sock_addr_choose("::1/128", 0, &a, ifname, sizeof ifname) == CANAL_OK) {
        ck_assert_int_eq(a.ss.ss_family, AF_INET6);
        ch_sock_addr_format(&a, out, sizeof out);
        ck_assert_str_eq(out, "[::1]:0");
    } else {
        fprintf(stderr, "SKIP IPv6 loopback: %s\n", common_err_detail());
    }
    /* Remote peers: not loopback, when anything else is up. */
    if (ch_sock_addr_choose("auto", 1, &a, ifname, sizeof ifname) == CANAL_OK) {
        ch_sock_addr_format(&a, out, sizeof out);
        fprintf(stderr, "default interface for remote peers: %s %s\n", ifname, out);
        /* Loopback only when nothing else is up: then 0.0.0.0/0 finds only 127.x. */
        if (ch_sock_addr_is_loopback(&a)) {
            sock_addr_t b;
            char n2[64];
            ck_assert(ch_sock_addr_choose("0.0.0.0/0", 0, &b, n2, sizeof n2) != CANAL_OK ||
                      ch_sock_addr_is_loopback(&b));
        }
    }
}
END_TEST

/* ---- conformance: ordering, sizes -------------------------------------------------- */

/* IPv6: the table's order case over ::1 (a SKIP without IPv6 loopback). */

static int body_order_ipv6(int rank, void *arg)
{
    setenv("CANAL_SOCK_IFACE", (const char *)arg, 1);
    want_ipv6 = 1;
    return conf_body_order(rank, (void *)0);
}

START_TEST(test_order_ipv6)
{
    sock_addr_t a;
    char ifname[64];
    if (ch_sock_addr_choose("::1/128", 0, &a, ifname, sizeof ifname) != CANAL_OK) {
        fprintf(stderr, "SKIP test_order_ipv6: no IPv6 loopback\n");
        return;
    }
    ck_assert_int_eq(run_job(3, 1, body_order_ipv6, "::1/128"), 0);
}
END_TEST

static ch_upcalls_t up_sizes = {on_packet_sizes, on_rdma_done_unused, on_peer_failed_fatal};

/* What is sock's own beside the table's sizes case: its default payload
 * limit and caps, and a packet of more iovecs than one writev batch. */
static int body_many_iovecs(int rank, void *arg)
{
    enum { NIOV = 100 };
    unsigned char hdr[8], *buf;
    struct iovec iov[NIOV + 1];
    double t0;

    bring_up(&up_sizes);
    T_CHECK(caps.max_payload == 256 * 1024, "default max_payload %zu", caps.max_payload);
    T_CHECK(!caps.has_rdma && !caps.local_only, "caps");
    buf = malloc(NIOV * 7);
    T_CHECK(buf != NULL, "malloc");
    ncases = 1;
    cases[0] = (size_case_t){8, NIOV * 7};
    case_next = 0;
    if (rank == 0) {
        for (size_t i = 0; i < 8; i++)
            hdr[i] = hdr_byte(0, i);
        make_payload(buf, 0, 0, NIOV * 7);
        iov[0] = (struct iovec){hdr, 8};
        for (int i = 0; i < NIOV; i++)
            iov[i + 1] = (struct iovec){buf + 7 * i, 7};
        T_CHECK(ch_sendv(EP, 1, iov, NIOV + 1) == CANAL_OK, "sendv of %d iovecs", NIOV + 1);
        flush_all();
    } else {
        t0 = now_s();
        while (case_next < 1) {
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "many-iovec packet missing");
        }
    }
    free(buf);
    return tear_down();
}

START_TEST(test_many_iovecs)
{
    ck_assert_int_eq(run_job(2, 1, body_many_iovecs, NULL), 0);
}
END_TEST

/* ---- back-pressure --------------------------------------------------------------- */

enum { BP_MSGS = 600 };

static int body_backpressure(int rank, void *arg)
{
    unsigned char *buf;
    double t0;

    setenv("CANAL_SOCK_OUTBUF_LIMIT", "1M", 1);
    bring_up(&up_check);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    T_CHECK(ST->outbuf_limit == 1u << 20, "outbuf limit %zu", ST->outbuf_limit);
    if (rank == 0) {
        unsigned seq = 0;
        canal_status_t st;
        /* Before the connection is up, the queue alone takes the flood. */
        for (;;) {
            size_t len = seq % 2 == 0 ? caps.max_payload : 100;
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            make_payload(buf, 0, seq, len);
            st = ch_sendv(EP, 1, iov, 2);
            if (st == CANAL_AGAIN)
                break;
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            seq++;
            T_CHECK(seq < 1000, "never got CANAL_AGAIN");
        }
        T_CHECK(ST->peers[1].out_bytes >= ST->outbuf_limit &&
                    ST->peers[1].out_bytes <= ST->outbuf_limit + caps.max_payload + 128,
                "queued %zu with limit %zu", ST->peers[1].out_bytes, ST->outbuf_limit);
        T_CHECK(ST->peers[1].state != SOCK_PS_UP, "connection up while rank 1 sleeps");
        {
            thdr_t h = {THDR_MAGIC, 0, seq, 0};
            struct iovec iov[1] = {{&h, sizeof h}};
            T_CHECK(ch_sendv(EP, 1, iov, 1) == CANAL_AGAIN, "second AGAIN");
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        /* Rank 1 reads now; once the kernel's buffers are full too, the
         * queue fills again and AGAIN comes back. */
        for (; seq < BP_MSGS; seq++)
            send_checked(1, seq, seq % 2 == 0 ? caps.max_payload : 100, buf);
        flush_all();
        T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
        /* With the connection up and rank 1 not reading. */
        {
            unsigned again = 0, sent = 0;
            for (unsigned k = 0; k < 2000 && again == 0; k++) {
                thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)caps.max_payload};
                struct iovec iov[2] = {{&h, sizeof h}, {buf, caps.max_payload}};
                make_payload(buf, 0, seq, caps.max_payload);
                st = ch_sendv(EP, 1, iov, 2);
                if (st == CANAL_AGAIN) {
                    again++;
                    break;
                }
                T_CHECK(st == CANAL_OK, "sendv: %d", st);
                seq++;
                sent++;
                ch_progress(EP);
            }
            T_CHECK(again == 1, "no AGAIN after %u packets over a live connection", sent);
            T_CHECK(ST->peers[1].out_bytes <= ST->outbuf_limit + caps.max_payload + 128,
                    "queued %zu", ST->peers[1].out_bytes);
            fprintf(stderr, "back-pressure: AGAIN after %u x %zu B with the connection up\n", sent,
                    caps.max_payload);
            shared_flags[0] = (int)seq;
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence 3");
        flush_all();
    } else {
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        t0 = now_s();
        while (received[0] < BP_MSGS) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "only %u of %d arrived", received[0], BP_MSGS);
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
        T_CHECK(pmi_fence() == CANAL_OK, "fence 3");
        wait_delivered(shared_flags[0]);
    }
    free(buf);
    return tear_down();
}

START_TEST(test_backpressure)
{
    shared_setup();
    ck_assert_int_eq(run_job(2, 1, body_backpressure, NULL), 0);
    shared_teardown();
}
END_TEST

/* ---- the latency ---------------------- */

/* The latency number: 8-byte payloads. How a waiting rank polls matters
 * as much as the channel: mode 0 spins on progress(), mode 1 yields the CPU
 * when a poll found nothing, mode 2 sleeps in block() (the kernel wakes it).
 * Spinning without a pause can starve the kernel's network softirq work on
 * small VMs (ksoftirqd waits for the spinner's time slice). */
static const char *const lat_mode_name[] = {"busy polling", "polling + sched_yield",
                                            "block() when idle"};

static void lat_wait(unsigned *counter, unsigned target, long mode)
{
    while (*counter < target) {
        if (ch_progress(EP) > 0 || mode == 0)
            continue;
        if (mode == 1)
            sched_yield();
        else
            ch_block(EP, 1000);
    }
}

static int body_latency(int rank, void *arg)
{
    long mode = (long)arg;
    /* Busy polling is slow on an oversubscribed host: fewer rounds. */
    const int WARM = mode == 0 ? 100 : 1000, ITER = mode == 0 ? 2000 : 20000;
    unsigned char b[8] = {0};
    double t0 = 0, dt;

    bring_up(&up_check);
    for (int i = 0; i < WARM + ITER; i++) {
        if (i == WARM)
            t0 = now_s();
        if (rank == 0) {
            send_checked(1, (unsigned)i, 8, b);
            lat_wait(&received[1], (unsigned)i + 1, mode);
        } else {
            lat_wait(&received[0], (unsigned)i + 1, mode);
            send_checked(0, (unsigned)i, 8, b);
        }
    }
    dt = now_s() - t0;
    if (rank == 0) {
        fprintf(stderr,
                "sock latency (8 B payload, loopback, %s): %.2f us one way "
                "(%d round trips, %.3f s)\n",
                lat_mode_name[mode], dt / ITER / 2 * 1e6, ITER, dt);
        shared_flags[1 + mode] = (int)(dt / ITER / 2 * 1e9); /* ns */
    }
    return tear_down();
}

/* Streaming bandwidth with max_payload packets, and the receiver blocking
 * when idle. */
static int body_bandwidth(int rank, void *arg)
{
    enum { MSGS = 2000 };
    unsigned char *buf;
    double t0, dt;

    bring_up(&up_check);
    buf = calloc(1, caps.max_payload);
    T_CHECK(buf != NULL, "calloc");
    /* Connect and warm up. */
    if (rank == 0) {
        thdr_t h = {THDR_MAGIC, 0, 0, 0};
        struct iovec iov[1] = {{&h, sizeof h}};
        T_CHECK(ch_sendv(EP, 1, iov, 1) == CANAL_OK, "sendv");
        flush_all();
    } else {
        wait_delivered(1);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    t0 = now_s();
    if (rank == 0) {
        thdr_t h = {THDR_MAGIC, 0, 0, (uint32_t)caps.max_payload};
        struct iovec iov[2] = {{&h, sizeof h}, {buf, caps.max_payload}};
        for (unsigned i = 1; i <= MSGS; i++) {
            canal_status_t st;
            h.seq = i;
            buf[0] = pattern(0, i, 0);
            while ((st = ch_sendv(EP, 1, iov, 2)) == CANAL_AGAIN)
                if (ch_progress(EP) == 0)
                    ch_block(EP, 1000);
            T_CHECK(st == CANAL_OK, "sendv %d", st);
        }
        flush_all();
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    } else {
        /* Count without checking every byte: the conformance tests do that. */
        while (delivered_total < MSGS + 1)
            if (ch_progress(EP) == 0)
                ch_block(EP, 1000);
        dt = now_s() - t0;
        fprintf(stderr, "sock bandwidth (%zu B packets, loopback): %.0f MB/s\n", caps.max_payload,
                (double)MSGS * caps.max_payload / dt / 1e6);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    }
    free(buf);
    return tear_down();
}

static void on_packet_count(int peer, const void *hdr, size_t hdr_len, const void *payload,
                            size_t len)
{
    const unsigned char *p = payload;
    thdr_t h;
    memcpy(&h, hdr, sizeof h);
    T_CHECK(h.seq == expect_seq[peer], "seq %u, expected %u", h.seq, expect_seq[peer]);
    T_CHECK(len == 0 || p[0] == pattern(0, h.seq, 0), "first byte of %u", h.seq);
    expect_seq[peer]++;
    delivered_total++;
}

START_TEST(test_bandwidth)
{
    up_check.on_packet = on_packet_count;
    ck_assert_int_eq(run_job(2, 1, body_bandwidth, NULL), 0);
    up_check.on_packet = on_packet_check;
}
END_TEST

START_TEST(test_latency)
{
    shared_setup();
    for (long mode = 0; mode < 3; mode++) {
        ck_assert_int_eq(run_job(2, 1, body_latency, (void *)mode), 0);
        /* Measured and printed, never judged: on a loaded machine spinning
         * ranks wait a time slice per message. Every message arrived in
         * order (on_packet_check). */
        ck_assert_msg(shared_flags[1 + mode] > 0, "no latency measured");
    }
    shared_teardown();
}
END_TEST

/* ---- connects: simultaneous, many at once ------------------------------------------ */

enum { SIM_MSGS = 200 };

/* Every rank sends to every other at once, right after the fence, so that
 * each pair connects from both sides together. One connection per pair
 * must survive, with every packet in order. */
static int body_simultaneous(int rank, void *arg)
{
    unsigned char buf[256];
    int n;

    bring_up(&up_check);
    n = info.size;
    for (unsigned i = 0; i < SIM_MSGS; i++)
        for (int k = 1; k < n; k++)
            send_checked((rank + k) % n, i, i % 200, buf);
    wait_delivered((long)SIM_MSGS * (n - 1));
    flush_all();
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    T_CHECK(ch_sock_count_up(ST) == n - 1, "%d connections up for %d peers", ch_sock_count_up(ST),
            n - 1);
    for (int k = 0; k < n; k++)
        T_CHECK(k == rank || ST->peers[k].state == SOCK_PS_UP, "peer %d state %d", k,
                ST->peers[k].state);
    shared_flags[2 + rank] = (int)ST->rejects_sent;
    return tear_down();
}

START_TEST(test_simultaneous_2)
{
    int rejects = 0;
    shared_setup();
    for (int rep = 0; rep < 10; rep++) {
        ck_assert_int_eq(run_job(2, 1, body_simultaneous, NULL), 0);
        rejects += shared_flags[2] + shared_flags[3];
    }
    fprintf(stderr, "simultaneous connects, 2 ranks x 10 jobs: %d rejected duplicates\n", rejects);
    shared_teardown();
}
END_TEST

START_TEST(test_simultaneous_6)
{
    shared_setup();
    for (int rep = 0; rep < 3; rep++)
        ck_assert_int_eq(run_job(6, 1, body_simultaneous, NULL), 0);
    shared_teardown();
}
END_TEST

/* Sixteen ranks connect to rank 0 at the same moment; rank 0 answers each. */
static int body_many(int rank, void *arg)
{
    unsigned char buf[64];
    int n;

    bring_up(&up_check);
    n = info.size;
    if (rank != 0) {
        for (unsigned i = 0; i < 20; i++)
            send_checked(0, i, 33, buf);
        wait_delivered(20);
    } else {
        wait_delivered(20L * (n - 1));
        for (int k = 1; k < n; k++)
            for (unsigned i = 0; i < 20; i++)
                send_checked(k, i, 33, buf);
        T_CHECK(ch_sock_count_up(ST) == n - 1, "%d connections", ch_sock_count_up(ST));
        T_CHECK(ST->npending == 0, "%d pending", ST->npending);
    }
    return tear_down();
}

START_TEST(test_many_peers)
{
    ck_assert_int_eq(run_job(16, 1, body_many, NULL), 0);
}
END_TEST

/* ---- strangers ------------------------------------------------------------------------ */

/* A blocking TCP connection to rank r's card, as a stranger would make it. */
static int raw_connect(int r)
{
    char key[32], card[PMI_VAL_MAX];
    sock_addr_t a;
    struct timeval tv = {5, 0};
    int fd;

    snprintf(key, sizeof key, "sock-%d", r);
    T_CHECK(pmi_get(r, key, card, sizeof card) == CANAL_OK, "card of %d", r);
    T_CHECK(ch_sock_addr_parse(card, &a) == CANAL_OK, "card %s", card);
    fd = socket(a.ss.ss_family, SOCK_STREAM, 0);
    T_CHECK(fd >= 0, "socket");
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    T_CHECK(connect(fd, (struct sockaddr *)&a.ss, a.len) == 0, "connect to %s: %s", card,
            strerror(errno));
    return fd;
}

/* The socket's 5 s receive timeout only lets the loop look at the clock. */
static void read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    double t0 = now_s();
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            T_CHECK(now_s() - t0 < unit_hang_s(), "read %zu of %zu bytes in %.0f s", got, n,
                    now_s() - t0);
            continue;
        }
        T_CHECK(r > 0, "read %zu of %zu bytes: %s", got, n, r == 0 ? "EOF" : strerror(errno));
        got += (size_t)r;
    }
}

static void write_full(int fd, const void *buf, size_t n)
{
    T_CHECK(send(fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n, "write %zu bytes: %s", n,
            strerror(errno));
}

/* Wait for the other side to close; returns seconds taken. Whatever it sends
 * before that must not be a verdict that accepts us. */
static double expect_closed(int fd)
{
    double t0 = now_s();
    unsigned char b[256];
    for (;;) {
        ssize_t r = read(fd, b, sizeof b);
        if (r == 0 || (r < 0 && errno == ECONNRESET))
            break;
        T_CHECK(r > 0 || errno == EAGAIN || errno == EINTR, "read: %s", strerror(errno));
        T_CHECK(now_s() - t0 < unit_hang_s(), "connection still open after %.1f s", now_s() - t0);
    }
    close(fd);
    return now_s() - t0;
}

static void get_secret(unsigned char secret[SOCK_SECRET_LEN])
{
    char hex[PMI_VAL_MAX];
    T_CHECK(pmi_get(0, "sock-secret", hex, sizeof hex) == CANAL_OK, "secret");
    T_CHECK(ch_sock_hex_decode(hex, secret, SOCK_SECRET_LEN) == CANAL_OK, "secret hex");
}

enum { STRANGER_LEGIT_MSGS = 300 };

/* Rank 0 serves, rank 1 is a legitimate peer, rank 2 attacks rank 0 (it is
 * a process of the job without the channel: it can read the KVS, so it
 * stands for an outsider who recorded traffic, or guessed). */
static int body_strangers(int rank, void *arg)
{
    unsigned char ch[SOCK_CHALLENGE_LEN], resp[SOCK_RESPONSE_LEN], na[SOCK_NONCE_LEN];
    unsigned char nc[SOCK_NONCE_LEN], secret[SOCK_SECRET_LEN], wrong[SOCK_SECRET_LEN];
    unsigned char buf[256];
    int fd, a;

    setenv("CANAL_SOCK_HANDSHAKE_TIMEOUT", "1", 1);
    if (rank == 2) {
        T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        get_secret(secret);
        common_random_bytes(wrong, sizeof wrong);

        /* 1. Garbage. */
        fd = raw_connect(0);
        write_full(fd, "GET / HTTP/1.0\r\n\r\n", 18);
        expect_closed(fd);
        /* 2. The magic, then random bytes. */
        fd = raw_connect(0);
        read_full(fd, ch, sizeof ch);
        memcpy(resp, ch_sock_magic, 8);
        rnd_bytes(resp + 8, sizeof resp - 8);
        write_full(fd, resp, sizeof resp);
        expect_closed(fd);
        /* 3. A well-formed response made with the wrong key, claiming rank 1. */
        fd = raw_connect(0);
        read_full(fd, ch, sizeof ch);
        T_CHECK(ch_sock_hs_challenge_decode(ch, &a, na) == CANAL_OK && a == 0, "challenge");
        common_random_bytes(nc, sizeof nc);
        ch_sock_hs_response_encode(resp, wrong, na, nc, 1, 0);
        write_full(fd, resp, sizeof resp);
        expect_closed(fd);
        /* 4. Replay: a response valid for an earlier connection's nonce. */
        fd = raw_connect(0);
        read_full(fd, ch, sizeof ch);
        ch_sock_hs_challenge_decode(ch, &a, na);
        ch_sock_hs_response_encode(resp, secret, na, nc, 1, 0);
        close(fd); /* recorded, never used on its own connection */
        for (int k = 0; k < 3; k++) {
            fd = raw_connect(0);
            read_full(fd, ch, sizeof ch);
            write_full(fd, resp, sizeof resp);
            expect_closed(fd);
        }
        /* 5. A truncated handshake. */
        fd = raw_connect(0);
        read_full(fd, ch, sizeof ch);
        ch_sock_hs_challenge_decode(ch, &a, na);
        ch_sock_hs_response_encode(resp, secret, na, nc, 1, 0);
        write_full(fd, resp, 40);
        shutdown(fd, SHUT_WR);
        expect_closed(fd);
        /* 6. Too much: bytes beyond the response, before any verdict. */
        fd = raw_connect(0);
        read_full(fd, ch, sizeof ch);
        memset(buf, 0, sizeof buf);
        memcpy(buf, ch_sock_magic, 8);
        write_full(fd, buf, 200);
        expect_closed(fd);
        /* 7. Silence: dropped by CANAL_SOCK_HANDSHAKE_TIMEOUT (1 s). When
         * is not judged (no wall-clock assertion in make check); that it is
         * dropped at all is, within the hang limit of expect_closed. */
        fd = raw_connect(0);
        (void)expect_closed(fd);
        /* 8. Random garbage of random lengths on many connections, some of it
         * with the right magic in front (a fuzz of the live acceptor). */
        rng_state ^= (uint64_t)getpid();
        for (int k = 0; k < 60; k++) {
            size_t len = rnd() % 200 + 1;
            fd = raw_connect(0);
            rnd_bytes(buf, len);
            if (k % 2)
                memcpy(buf, ch_sock_magic, len < 8 ? len : 8);
            write_full(fd, buf, len);
            if (len >= 80 || k % 2 == 0 || k % 3 == 0) {
                shutdown(fd, SHUT_WR);
                expect_closed(fd);
                shared_flags[1]++; /* rank 0 saw these bytes: it must count a stranger */
            } else {
                close(fd); /* may reach rank 0 as a reset, which is no stranger's proof */
            }
        }
        /* 9. A flood of connections that say nothing: beyond the cap each
         * new one evicts the oldest, the rest time out. */
        {
            int fds[200];
            for (int k = 0; k < 200; k++)
                fds[k] = raw_connect(0);
            for (int k = 0; k < 200; k++)
                expect_closed(fds[k]);
        }
        shared_flags[0] = 1; /* attacks done */
    } else {
        bring_up(&up_check);
        if (rank == 1) {
            unsigned char b[128];
            /* Half while the attacks run, half after. */
            for (unsigned i = 0; i < STRANGER_LEGIT_MSGS / 2; i++) {
                send_checked(0, i, i % 100, b);
                sleep_ms(5);
                ch_progress(EP);
            }
            while (!shared_flags[0]) {
                ch_progress(EP);
                sleep_ms(1);
            }
            for (unsigned i = STRANGER_LEGIT_MSGS / 2; i < STRANGER_LEGIT_MSGS; i++)
                send_checked(0, i, i % 100, b);
        } else {
            double t0 = now_s();
            while (!shared_flags[0] || received[1] < STRANGER_LEGIT_MSGS) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "stuck: attacks done %d, %u from rank 1",
                        shared_flags[0], received[1]);
            }
            T_CHECK(delivered_total == STRANGER_LEGIT_MSGS, "%ld packets delivered",
                    delivered_total);
            fprintf(stderr, "strangers dropped by rank 0: %lu\n", ST->strangers_dropped);
            T_CHECK(ST->strangers_dropped >= 9 + (unsigned long)shared_flags[1] + 200,
                    "only %lu dropped (%d of the fuzz connections waited for)",
                    ST->strangers_dropped, shared_flags[1]);
            T_CHECK(ch_sock_count_up(ST) == 1, "%d connections up", ch_sock_count_up(ST));
            T_CHECK(ST->peers[2].state == SOCK_PS_IDLE, "the stranger became peer 2 (%d)",
                    ST->peers[2].state);
            T_CHECK(ST->npending == 0, "%d still pending", ST->npending);
        }
    }
    if (rank == 2) {
        T_CHECK(pmi_fence() == CANAL_OK, "final fence");
        return 0;
    }
    return tear_down();
}

START_TEST(test_strangers)
{
    shared_setup();
    ck_assert_int_eq(run_job(3, 1, body_strangers, NULL), 0);
    shared_teardown();
}
END_TEST

enum { HOLD_STRANGERS = 400, HOLD_MSGS = 20 };

/* Rank 2 holds HOLD_STRANGERS silent connections to rank 0, which accepts
 * them all (the handshake timeout is the default 120 s, so none times out);
 * only then does rank 1 connect to rank 0 for the first time. The newest
 * connection must evict the oldest stranger and get through: before, a full
 * table closed rank 1's attempts at accept until it gave rank 0 up. */
static int body_strangers_hold(int rank, void *arg)
{
    (void)arg;
    if (rank == 2) {
        static int fds[HOLD_STRANGERS];
        T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        for (int k = 0; k < HOLD_STRANGERS; k++)
            fds[k] = raw_connect(0);
        shared_flags[0] = 1;
        while (!shared_flags[1])
            sleep_ms(5);
        for (int k = 0; k < HOLD_STRANGERS; k++)
            close(fds[k]);
        T_CHECK(pmi_fence() == CANAL_OK, "final fence");
        return 0;
    }
    bring_up(&up_check);
    if (rank == 0) {
        double t0 = now_s();
        /* Every stranger accepted: the table is full of them. */
        while (!shared_flags[0] || ST->strangers_evicted < HOLD_STRANGERS - SOCK_PENDING_MAX) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < 40, "%lu strangers evicted", ST->strangers_evicted);
        }
        T_CHECK(ST->npending == SOCK_PENDING_MAX, "%d pending", ST->npending);
        shared_flags[2] = 1;
        while (received[1] < HOLD_MSGS) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < 40, "%u of %d messages from rank 1", received[1], HOLD_MSGS);
        }
        shared_flags[1] = 1;
    } else {
        unsigned char b[128];
        while (!shared_flags[2])
            T_CHECK(poll_once() >= 0, "progress");
        for (unsigned i = 0; i < HOLD_MSGS; i++)
            send_checked(0, i, i, b);
    }
    return tear_down();
}

START_TEST(test_strangers_hold)
{
    shared_setup();
    ck_assert_int_eq(run_job(3, 1, body_strangers_hold, NULL), 0);
    shared_teardown();
}
END_TEST

/* Rank 0 gives rank 1 up (rank 1's listener is gone: refused) while rank 1
 * lives on; when rank 1 then connects to rank 0, its connection must end
 * without a verdict, so that rank 1 gives rank 0 up in turn instead of
 * waiting for ever (a reject made it wait for rank 0's own connection). */
static int body_failed_both_ways(int rank, void *arg)
{
    unsigned char b[64];
    double t0;

    (void)arg;
    setenv("CANAL_SOCK_HANDSHAKE_TIMEOUT", "2", 1);
    bring_up(&up_check_record);
    t0 = now_s();
    if (rank == 1) {
        close(ST->lfd);
        ST->lfd = -1;
        shared_flags[0] = 1;
        while (!shared_flags[1])
            sleep_ms(5);
        send_checked(0, 0, sizeof b, b);
        while (nfailures == 0) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < 40, "rank 0 never counted as failed here");
        }
        T_CHECK(failed_peer == 0 && failed_status == CANAL_ERR_PEER, "failed peer %d, status %d",
                failed_peer, failed_status);
        shared_flags[2] = 1;
    } else {
        thdr_t h = {THDR_MAGIC, 0, 0, 0};
        struct iovec iov[1] = {{&h, sizeof h}};
        while (!shared_flags[0])
            sleep_ms(5);
        (void)ch_sendv(EP, 1, iov, 1); /* refused: now, or in progress */
        while (nfailures == 0) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < 20, "rank 1's refusal never counted");
        }
        shared_flags[1] = 1;
        while (!shared_flags[2]) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < 45, "rank 1 did not finish");
        }
    }
    return tear_down();
}

START_TEST(test_failed_both_ways)
{
    shared_setup();
    ck_assert_int_eq(run_job(2, 1, body_failed_both_ways, NULL), 0);
    shared_teardown();
}
END_TEST

/* The connector authenticates the acceptor: rank 1 is an impostor that
 * publishes a card and answers rank 0's connection without the secret (or
 * claims another rank, or speaks another protocol). Rank 0 must fail the
 * peer with a clear error and deliver nothing. */
static int body_impostor(int rank, void *arg)
{
    long mode = (long)arg;

    if (rank == 1) {
        sock_addr_t a;
        char ifname[64], card[SOCK_CARD_MAX];
        unsigned char ch[SOCK_CHALLENGE_LEN], resp[SOCK_RESPONSE_LEN], ver[SOCK_VERDICT_LEN];
        unsigned char na[32], nc[32], fake[32];
        int lfd, fd;

        T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
        T_CHECK(ch_sock_addr_choose("127.0.0.1", 0, &a, ifname, sizeof ifname) == CANAL_OK, "addr");
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        T_CHECK(bind(lfd, (struct sockaddr *)&a.ss, a.len) == 0 && listen(lfd, 4) == 0, "listen");
        a.len = sizeof a.ss;
        getsockname(lfd, (struct sockaddr *)&a.ss, &a.len);
        ch_sock_addr_format(&a, card, sizeof card);
        T_CHECK(pmi_put("sock-1", card) == CANAL_OK, "put");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        fd = accept(lfd, NULL, NULL);
        T_CHECK(fd >= 0, "accept");
        common_random_bytes(na, 32);
        common_random_bytes(fake, 32);
        if (mode == 2) {
            write_full(fd,
                       "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"
                       "0123456789abcdef",
                       48);
        } else {
            ch_sock_hs_challenge_encode(ch, mode == 1 ? 0 : 1, na);
            write_full(fd, ch, sizeof ch);
        }
        if (mode == 0) {
            read_full(fd, resp, sizeof resp);
            memcpy(nc, resp + 16, 32);
            ch_sock_hs_verdict_encode(ver, fake, SOCK_VERDICT_ACCEPT, na, nc, 0, 1);
            write_full(fd, ver, sizeof ver);
            /* And a frame, which must never be delivered. */
            unsigned char fr[8 + 16];
            ch_sock_frame_encode(fr, SOCK_FRAME_DATA, 16, 0);
            memset(fr + 8, 0, 16);
            write_full(fd, fr, sizeof fr);
        }
        expect_closed(fd);
        close(lfd);
        T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
        return 0;
    }
    bring_up(&up_check_record);
    {
        unsigned char b[8];
        thdr_t h = {THDR_MAGIC, 0, 0, 8};
        struct iovec iov[2] = {{&h, sizeof h}, {b, 8}};
        double t0 = now_s();
        T_CHECK(ch_sendv(EP, 1, iov, 2) == CANAL_OK, "sendv");
        while (nfailures == 0) {
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "impostor not detected");
        }
        T_CHECK(failed_peer == 1 && failed_status == CANAL_ERR_PROTO, "failed %d status %d",
                failed_peer, failed_status);
        T_CHECK(strstr(common_err_detail(), mode == 0   ? "failed to prove"
                                            : mode == 1 ? "says it is rank 0"
                                                        : "not as a canal sock endpoint") != NULL,
                "detail: %s", common_err_detail());
        T_CHECK(delivered_total == 0, "delivered %ld", delivered_total);
        T_CHECK(ch_sendv(EP, 1, iov, 2) == CANAL_ERR_PEER, "sendv to a failed peer");
        for (int k = 0; k < 20; k++)
            poll_once();
        T_CHECK(nfailures == 1, "%d failure reports", nfailures);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_impostor_bad_proof)
{
    ck_assert_int_eq(run_job(2, 1, body_impostor, (void *)0L), 0);
}
END_TEST
START_TEST(test_impostor_wrong_rank)
{
    ck_assert_int_eq(run_job(2, 1, body_impostor, (void *)1L), 0);
}
END_TEST
START_TEST(test_impostor_other_protocol)
{
    ck_assert_int_eq(run_job(2, 1, body_impostor, (void *)2L), 0);
}
END_TEST

/* An insider (knows the secret, completes the handshake as rank 1) sends a
 * frame with an absurd length: the connection is dropped, the peer failed
 * with CANAL_ERR_PROTO, and nothing is allocated for it. */
static int body_oversized(int rank, void *arg)
{
    long mode = (long)arg;

    if (rank == 1) {
        unsigned char secret[32], ch[SOCK_CHALLENGE_LEN], resp[SOCK_RESPONSE_LEN];
        unsigned char ver[SOCK_VERDICT_LEN], na[32], nc[32], fr[16];
        int fd, a, v;

        T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        get_secret(secret);
        fd = raw_connect(0);
        read_full(fd, ch, sizeof ch);
        T_CHECK(ch_sock_hs_challenge_decode(ch, &a, na) == CANAL_OK, "challenge");
        common_random_bytes(nc, 32);
        ch_sock_hs_response_encode(resp, secret, na, nc, 1, 0);
        write_full(fd, resp, sizeof resp);
        read_full(fd, ver, sizeof ver);
        T_CHECK(ch_sock_hs_verdict_check(ver, secret, na, nc, 1, 0, &v) == CANAL_OK &&
                    v == SOCK_VERDICT_ACCEPT,
                "verdict");
        /* One good frame, then the bad one. */
        thdr_t h = {THDR_MAGIC, 1, 0, 0};
        unsigned char good[8 + 16];
        ch_sock_frame_encode(good, SOCK_FRAME_DATA, 16, 0);
        memcpy(good + 8, &h, 16);
        write_full(fd, good, sizeof good);
        if (mode == 0)
            memcpy(fr, "\xf0\xff\xff\xff\x10\x01\xa1\xc5", 8); /* 4 GiB payload */
        else
            memcpy(fr, "\x00\x00\x00\x00\xc8\x01\xa1\xc5", 8); /* 200-byte header */
        memset(fr + 8, 0, 8);
        write_full(fd, fr, sizeof fr);
        expect_closed(fd);
        T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
        return 0;
    }
    bring_up(&up_check_record);
    {
        double t0 = now_s();
        while (nfailures == 0) {
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "bad frame not detected");
        }
        T_CHECK(failed_peer == 1 && failed_status == CANAL_ERR_PROTO, "failed %d status %d",
                failed_peer, failed_status);
        T_CHECK(strstr(common_err_detail(), mode == 0 ? "payload length" : "header length") != NULL,
                "detail: %s", common_err_detail());
        T_CHECK(received[1] == 1, "the good frame first (%u)", received[1]);
        T_CHECK(ch_sock_count_up(ST) == 0, "connection still up");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_oversized_frame)
{
    ck_assert_int_eq(run_job(2, 1, body_oversized, (void *)0L), 0);
}
END_TEST
START_TEST(test_oversized_header)
{
    ck_assert_int_eq(run_job(2, 1, body_oversized, (void *)1L), 0);
}
END_TEST

/* ---- faults --------------------------------------------------------------------------- */

/* mode 0: rank 1 dies while idle on a live connection; mode 1: while rank 0
 * streams to it; mode 2: before anyone connected (its listener is gone). */
static int body_death(int rank, void *arg)
{
    long mode = (long)arg;
    unsigned char *buf;

    bring_up(&up_check_record);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    if (rank == 1) {
        if (mode != 2) {
            send_checked(0, 0, 8, buf);
            wait_delivered(1);
            flush_all();
        }
        if (mode == 1) {
            while (received[0] < 20)
                poll_once();
        }
        kill(getpid(), SIGKILL);
        for (;;)
            pause();
    }
    {
        double t0 = now_s();
        unsigned seq = 0;
        canal_status_t st;
        if (mode != 2) {
            wait_delivered(1);
            send_checked(1, seq++, 8, buf);
        } else {
            sleep_ms(300); /* rank 1 is dead by now */
        }
        while (nfailures == 0) {
            if (mode >= 1) {
                thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)caps.max_payload};
                struct iovec iov[2] = {{&h, sizeof h}, {buf, caps.max_payload}};
                make_payload(buf, 0, seq, caps.max_payload);
                st = ch_sendv(EP, 1, iov, 2);
                T_CHECK(st == CANAL_OK || st == CANAL_AGAIN || st == CANAL_ERR_PEER, "sendv: %d",
                        st);
                if (st == CANAL_OK)
                    seq++;
            }
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "rank 1's death not noticed");
        }
        T_CHECK(failed_peer == 1 && failed_status == CANAL_ERR_PEER, "failed %d status %d",
                failed_peer, failed_status);
        T_CHECK(strstr(common_err_detail(), "rank 1") != NULL, "detail: %s", common_err_detail());
        fprintf(stderr, "death mode %ld noticed after %.3f s: %s\n", mode, now_s() - t0,
                common_err_detail());
        T_CHECK(ch_sendv(EP, 1, (struct iovec[]){{buf, 8}}, 1) == CANAL_ERR_PEER,
                "sendv after failure");
        for (int k = 0; k < 20; k++)
            poll_once();
        T_CHECK(nfailures == 1, "%d failure reports", nfailures);
    }
    free(buf);
    /* No fence: rank 1 is gone. */
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

static void run_death(long mode)
{
    int ws[2];
    fake_pmi_job_t job = {.nprocs = 2, .wstatus_out = ws};
    ck_assert_int_eq(fake_pmi_run(&job, body_death, (void *)mode), 1);
    ck_assert_msg(WIFEXITED(ws[0]) && WEXITSTATUS(ws[0]) == 0, "rank 0 status 0x%x", ws[0]);
    ck_assert(WIFSIGNALED(ws[1]) && WTERMSIG(ws[1]) == SIGKILL);
}

START_TEST(test_death_idle)
{
    run_death(0);
}
END_TEST
START_TEST(test_death_streaming)
{
    run_death(1);
}
END_TEST
START_TEST(test_death_before_connect)
{
    run_death(2);
}
END_TEST

/* A peer that finalizes while we keep running is no failure; sending to it
 * afterwards is an error that says so. */
static int body_clean_close(int rank, void *arg)
{
    unsigned char buf[64];

    bring_up(&up_check_record);
    if (rank == 1) {
        send_checked(0, 0, 8, buf);
        wait_delivered(1);
        flush_all();
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
        T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
        return 0;
    }
    wait_delivered(1);
    send_checked(1, 0, 8, buf);
    flush_all();
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    {
        double t0 = now_s();
        while (ST->peers[1].state != SOCK_PS_GONE) {
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "no goodbye from rank 1 (state %d)", ST->peers[1].state);
        }
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence 2");
    for (int k = 0; k < 100; k++) {
        poll_once();
        sleep_ms(1);
    }
    T_CHECK(nfailures == 0, "a clean finalize was reported as a failure of rank %d", failed_peer);
    {
        thdr_t h = {THDR_MAGIC, 0, 1, 0};
        struct iovec iov[1] = {{&h, sizeof h}};
        T_CHECK(ch_sendv(EP, 1, iov, 1) == CANAL_ERR_PEER, "sendv to a finalized rank");
        T_CHECK(strstr(common_err_detail(), "finalized") != NULL, "%s", common_err_detail());
    }
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_clean_close)
{
    ck_assert_int_eq(run_job(2, 1, body_clean_close, NULL), 0);
}
END_TEST

/* ---- bad input, configuration, describe ----------------------------------------------- */

static int body_bad_input(int rank, void *arg)
{
    unsigned char big[CH_HDR_MAX + 1];
    struct iovec iov[3];
    int other = 1 - rank;
    ch_caps_t c2;

    T_CHECK(ch_progress(EP) == 0, "progress before init");
    iov[0] = (struct iovec){big, 4};
    T_CHECK(ch_sendv(EP, other, iov, 1) < 0, "sendv before init");
    T_CHECK(ch_post_fence(EP) < 0, "post_fence before init");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize before init");

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    T_CHECK(ch_init(EP, NULL, &up_check, &caps) == CANAL_ERR_ARG, "NULL pmi");
    T_CHECK(ch_init(EP, &info, NULL, &caps) == CANAL_ERR_ARG, "NULL up");
    T_CHECK(ch_init(EP, &info, &up_check, NULL) == CANAL_ERR_ARG, "NULL caps");
    {
        pmi_info_t bad = info;
        bad.rank = 7;
        T_CHECK(ch_init(EP, &bad, &up_check, &caps) == CANAL_ERR_ARG, "rank out of range");
    }
    setenv("CANAL_SOCK_IFACE", "nosuchif0", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_NOTFOUND, "bad interface");
    T_CHECK(strstr(common_err_detail(), "CANAL_SOCK_IFACE=nosuchif0") != NULL, "%s",
            common_err_detail());
    setenv("CANAL_SOCK_IFACE", "lo", 1);
    setenv("CANAL_SOCK_MAX_PAYLOAD", "100", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG, "tiny max payload");
    T_CHECK(strstr(common_err_detail(), "CANAL_SOCK_MAX_PAYLOAD") != NULL, "%s",
            common_err_detail());
    setenv("CANAL_SOCK_MAX_PAYLOAD", "64K", 1);
    setenv("CANAL_SOCK_OUTBUF_LIMIT", "1K", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG, "limit below max payload");
    unsetenv("CANAL_SOCK_OUTBUF_LIMIT");
    setenv("CANAL_SOCK_HANDSHAKE_TIMEOUT", "0", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG, "zero timeout");
    unsetenv("CANAL_SOCK_HANDSHAKE_TIMEOUT");

    bring_up(&up_check);
    T_CHECK(caps.max_payload == 64 * 1024, "max payload %zu", caps.max_payload);
    T_CHECK(ch_init(EP, &info, &up_check, &c2) == CANAL_ERR_PENDING, "double init");
    T_CHECK(ch_reaches(EP, other) && !ch_reaches(EP, rank), "reaches");
    T_CHECK(!ch_reaches(EP, -1) && !ch_reaches(EP, info.size), "reaches out of range");
    iov[0] = (struct iovec){big, 4};
    T_CHECK(ch_sendv(EP, rank, iov, 1) == CANAL_ERR_ARG, "sendv to self");
    conf_sendv_bad_args(other, 1);
    T_CHECK(ST->peers[other].state == SOCK_PS_IDLE, "a bad sendv started a connection");
    T_CHECK(!caps.has_rdma && CH->rdma_read == ch_no_rdma_read &&
                CH->mem_register == ch_no_mem_register,
            "no rdma");
    T_CHECK(ch_rdma_read(EP, other, big, 0, 0, 8, NULL) == CANAL_ERR_UNSUPPORTED, "rdma stub");
    return tear_down();
}

START_TEST(test_bad_input)
{
    ck_assert_int_eq(run_job(2, 1, body_bad_input, NULL), 0);
}
END_TEST

/* A job of one rank: init and finalize, nothing to talk to. */
static int body_single(int rank, void *arg)
{
    bring_up(&up_check);
    T_CHECK(!ch_reaches(EP, 0), "reaches self");
    T_CHECK(ch_progress(EP) == 0, "progress");
    T_CHECK(ch_block(EP, 1000) == CANAL_OK, "block");
    return tear_down();
}

START_TEST(test_single)
{
    ck_assert_int_eq(run_job(1, 1, body_single, NULL), 0);
}
END_TEST

static int body_describe(int rank, void *arg)
{
    char desc[512];
    unsigned char b[8];

    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "not initialized") != NULL, "%s", desc);
    bring_up(&up_check);
    if (rank == 0)
        send_checked(1, 0, 8, b);
    else
        wait_delivered(1);
    flush_all();
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "1 connections up") != NULL && strstr(desc, ST->card) != NULL, "%s", desc);
    if (rank == 0)
        fprintf(stderr, "describe: %s\n", desc);
    ch_describe(EP, desc, 0);
    ch_describe(EP, NULL, 10);
    return tear_down();
}

START_TEST(test_describe)
{
    ck_assert_int_eq(run_job(2, 1, body_describe, NULL), 0);
}
END_TEST

/* The channel can be opened again after finalize (a fresh listener, secret
 * and connections), as a test harness or a restarted runtime would. */
static int body_reinit(int rank, void *arg)
{
    unsigned char b[64];

    for (int round = 0; round < 3; round++) {
        bring_up(&up_check);
        for (unsigned i = 0; i < 50; i++)
            send_checked(1 - rank, i, i, b);
        wait_delivered(50);
        tear_down();
        T_CHECK(!ST->initialized && ST->conns == NULL && ST->peers == NULL, "state after finalize");
    }
    return 0;
}

START_TEST(test_reinit)
{
    ck_assert_int_eq(run_job(2, 1, body_reinit, NULL), 0);
}
END_TEST

/* Peers on other (simulated) nodes: the card is not loopback when the host
 * has another interface up; the job still works over it. */
static int body_remote_default(int rank, void *arg)
{
    sock_addr_t a;
    char ifname[64];
    unsigned char b[8];

    bring_up(&up_check);
    T_CHECK(info.nnodes == 2, "nnodes %d", info.nnodes);
    if (ch_sock_addr_choose("auto", 1, &a, ifname, sizeof ifname) == CANAL_OK &&
        !ch_sock_addr_is_loopback(&a))
        T_CHECK(!ch_sock_addr_is_loopback(&ST->laddr), "listening on loopback: %s", ST->card);
    if (rank == 0)
        fprintf(stderr, "remote peers: listening on %s (%s)\n", ST->card, ST->ifname);
    send_checked(1 - rank, 0, 8, b);
    wait_delivered(1);
    return tear_down();
}

START_TEST(test_remote_default)
{
    ck_assert_int_eq(run_job(2, 2, body_remote_default, NULL), 0);
}
END_TEST

/* ---- two hosts: network namespaces joined by a veth pair ------------------------ */

typedef struct {
    char ns[2][32];
    const char *iface;  /* CANAL_SOCK_IFACE, or NULL for auto */
    const char *prefix; /* what the cards must start with */
} netns_job_t;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
    char cmd[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static int enter_netns(const char *name)
{
    char path[128];
    int fd, rc;
    snprintf(path, sizeof path, "/var/run/netns/%s", name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    rc = setns(fd, CLONE_NEWNET);
    close(fd);
    return rc;
}

static int body_netns(int rank, void *arg)
{
    const netns_job_t *j = arg;
    unsigned char *buf;
    unsigned sent[FAKE_PMI_MAX_PROCS] = {0};
    int n;

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    T_CHECK(enter_netns(j->ns[info.node_of[rank]]) == 0, "setns %s: %s", j->ns[info.node_of[rank]],
            strerror(errno));
    if (j->iface != NULL)
        setenv("CANAL_SOCK_IFACE", j->iface, 1);
    bring_up(&up_check);
    T_CHECK(strncmp(ST->card, j->prefix, strlen(j->prefix)) == 0, "card %s (%s), expected %s...",
            ST->card, ST->ifname, j->prefix);
    if (rank == 0)
        fprintf(stderr, "two namespaces: rank 0 listens on %s (%s)\n", ST->card, ST->ifname);
    n = info.size;
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    for (unsigned i = 0; i < 300; i++)
        for (int k = 1; k < n; k++) {
            int peer = (rank + k) % n;
            send_checked(peer, sent[peer], conf_order_len(sent[peer], caps.max_payload), buf);
            sent[peer]++;
        }
    wait_delivered(300L * (n - 1));
    free(buf);
    return tear_down();
}

static void run_netns(const char *iface, const char *prefix)
{
    netns_job_t j;
    int pid = (int)getpid(), failed;

    snprintf(j.ns[0], sizeof j.ns[0], "canal-sock-a%d", pid);
    snprintf(j.ns[1], sizeof j.ns[1], "canal-sock-b%d", pid);
    j.iface = iface;
    j.prefix = prefix;
    if (sh("ip netns add %s 2>/dev/null", j.ns[0]) != 0) {
        fprintf(stderr, "SKIP two-namespace test: cannot create network namespaces here\n");
        return;
    }
    {
        const char *a = j.ns[0], *b = j.ns[1];
        char va[16], vb[16];
        snprintf(va, sizeof va, "cva%d", pid);
        snprintf(vb, sizeof vb, "cvb%d", pid);
        if (sh("ip netns add %s", b) != 0 ||
            sh("ip link add %s type veth peer name %s", va, vb) != 0 ||
            sh("ip link set %s netns %s && ip link set %s netns %s", va, a, vb, b) != 0 ||
            sh("ip -n %s addr add 10.77.0.1/24 dev %s && ip -n %s addr add 10.77.0.2/24 dev %s", a,
               va, b, vb) != 0 ||
            sh("ip -n %s addr add fd77::1/64 dev %s nodad && "
               "ip -n %s addr add fd77::2/64 dev %s nodad",
               a, va, b, vb) != 0 ||
            sh("ip -n %s link set %s up && ip -n %s link set %s up", a, va, b, vb) != 0 ||
            sh("ip -n %s link set lo up && ip -n %s link set lo up", a, b) != 0) {
            sh("ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null", a, b);
            fprintf(stderr, "SKIP two-namespace test: cannot set up the veth pair\n");
            return;
        }
    }
    {
        fake_pmi_job_t job = {.nprocs = 4, .nnodes = 2};
        failed = fake_pmi_run(&job, body_netns, &j);
    }
    sh("ip netns del %s; ip netns del %s", j.ns[0], j.ns[1]);
    ck_assert_int_eq(failed, 0);
}

START_TEST(test_two_netns_auto)
{
    run_netns(NULL, "10.77.0.");
}
END_TEST
START_TEST(test_two_netns_ipv6)
{
    run_netns("fd77::/64", "[fd77::");
}
END_TEST

static Suite *sock_suite(void)
{
    Suite *s = suite_create("ch_sock");
    TCase *unit = tcase_create("unit");
    TCase *conf = tcase_create("conformance");
    TCase *auth = tcase_create("auth");
    TCase *fault = tcase_create("faults");
    TCase *perf = tcase_create("latency");

    tcase_set_timeout(unit, unit_case_timeout_s());
    tcase_add_test(unit, test_sha256_fips);
    tcase_add_test(unit, test_hmac_rfc4231);
    tcase_add_test(unit, test_frame_format);
    tcase_add_test(unit, test_frame_fuzz);
    tcase_add_test(unit, test_handshake_fuzz);
    tcase_add_test(unit, test_addr_cards);
    tcase_add_test(unit, test_addr_choose);
    suite_add_tcase(s, unit);

    tcase_set_timeout(conf, unit_case_timeout_s());
    conf_add_cases(conf, 1);
    tcase_add_test(conf, test_order_ipv6);
    tcase_add_test(conf, test_many_iovecs);
    tcase_add_test(conf, test_backpressure);
    tcase_add_test(conf, test_simultaneous_2);
    tcase_add_test(conf, test_simultaneous_6);
    tcase_add_test(conf, test_many_peers);
    tcase_add_test(conf, test_bad_input);
    tcase_add_test(conf, test_single);
    tcase_add_test(conf, test_describe);
    tcase_add_test(conf, test_reinit);
    tcase_add_test(conf, test_remote_default);
    tcase_add_test(conf, test_two_netns_auto);
    tcase_add_test(conf, test_two_netns_ipv6);
    suite_add_tcase(s, conf);

    tcase_set_timeout(auth, unit_case_timeout_s());
    tcase_add_test(auth, test_strangers);
    tcase_add_test(auth, test_strangers_hold);
    tcase_add_test(auth, test_impostor_bad_proof);
    tcase_add_test(auth, test_impostor_wrong_rank);
    tcase_add_test(auth, test_impostor_other_protocol);
    tcase_add_test(auth, test_oversized_frame);
    tcase_add_test(auth, test_oversized_header);
    suite_add_tcase(s, auth);

    tcase_set_timeout(fault, unit_case_timeout_s());
    tcase_add_test(fault, test_death_idle);
    tcase_add_test(fault, test_death_streaming);
    tcase_add_test(fault, test_death_before_connect);
    tcase_add_test(fault, test_failed_both_ways);
    tcase_add_test(fault, test_clean_close);
    suite_add_tcase(s, fault);

    tcase_set_timeout(perf, unit_case_timeout_s());
    tcase_add_test(perf, test_latency);
    tcase_add_test(perf, test_bandwidth);
    suite_add_tcase(s, perf);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sock_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
