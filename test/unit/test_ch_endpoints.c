/*
 * Two endpoints of one channel in one process (channels/channel.h): every
 * rank of a forked 2-rank job (test/unit/fake_pmi.c, two simulated nodes)
 * opens endpoint "A" (no instance name, the job's usual PMI keys) and
 * endpoint "B" (instance "b") of the same channel, each with its own
 * up-calls, and sends packets to the other rank through both, interleaved.
 * Each packet must arrive, in order and intact, through the endpoint it was
 * sent on; the two endpoints must not share state. Built three times: for the
 * sock channel (test_ch_endpoints_sock), with CANAL_TEST_EP_SHM for the shm
 * channel (test_ch_endpoints_shm: both ranks on one node, each endpoint with
 * its own segment, and a creator killed between create and unlink leaves
 * neither segment behind), and, with CANAL_TEST_EP_OFI, for the ofi
 * channel (test_ch_endpoints_ofi) over the provider CANAL_TEST_OFI_PROVIDER
 * names (default tcp;ofi_rxm): a provider that cannot be opened here makes
 * that program exit 77 (automake's SKIP) with the reason. No wall-clock
 * assertion: a hang limit (unit_hang_s) only turns a hang into a failure.
 */
#include <check.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channels/channel.h"
#include "common/clock.h"
#include "test/unit/fake_pmi.h"
#include "test/unit/unit_limits.h"

#ifdef CANAL_TEST_EP_OFI
#include "test/unit/ofi_test_diag.h"
#define TEST_OPS (&ch_ofi_ops)
#define TEST_NAME "test_ch_endpoints_ofi"
#define TEST_NODES 2
#elif defined(CANAL_TEST_EP_SHM)
#include "channels/shm/shm.h"
#define TEST_OPS (&ch_shm_ops)
#define TEST_NAME "test_ch_endpoints_shm"
#define TEST_NODES 1
#else
#define TEST_NODES 2
#define TEST_OPS (&ch_sock_ops)
#define TEST_NAME "test_ch_endpoints_sock"
#endif

enum { NPKT = 500, NEP = 2 };

/* Shared with the parent (mmap): a rank that could not open the provider. */
static _Atomic int *skipped;

typedef struct {
    char tag;     /* 'A' or 'B': the endpoint it was sent on */
    uint32_t seq; /* per endpoint */
    uint32_t len;
} pkt_hdr_t;

static ch_endpoint_t *eps[NEP];
static unsigned got[NEP];

static void rank_fail(int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fake_pmi_note_failed();
    fprintf(stderr, "[rank %d] %s.c:%d: check failed: %s: ", fake_pmi_rank(), TEST_NAME, line,
            cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (last error: %s)\n", common_err_detail());
#ifdef CANAL_TEST_EP_OFI
    /* A hang says where the packets are (test/unit/ofi_test_diag.h). */
    for (int e = 0; e < NEP; e++)
        if (eps[e] != NULL) {
            char label[16];
            snprintf(label, sizeof label, "endpoint %c", 'A' + e);
            ofi_test_diag(stderr, eps[e], label);
        }
    ofi_test_diag_sockets(stderr);
#endif
    fflush(NULL);
    _exit(1);
}
#define T_CHECK(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            rank_fail(__LINE__, #cond, __VA_ARGS__);                                               \
    } while (0)

static unsigned char byte_of(int e, uint32_t seq, size_t i)
{
    return (unsigned char)(e * 101 + seq * 7 + i);
}

static void on_packet_ep(int e, int peer, const void *hdr, size_t hdr_len, const void *payload,
                         size_t len)
{
    pkt_hdr_t h;
    const unsigned char *p = payload;

    T_CHECK(hdr_len == sizeof h, "endpoint %c: header of %zu bytes", 'A' + e, hdr_len);
    memcpy(&h, hdr, sizeof h);
    T_CHECK(peer == 1 - fake_pmi_rank(), "endpoint %c: packet from %d", 'A' + e, peer);
    T_CHECK(h.tag == 'A' + e, "endpoint %c delivered a packet sent on %c", 'A' + e, h.tag);
    T_CHECK(h.seq == got[e], "endpoint %c: seq %u, expected %u", 'A' + e, h.seq, got[e]);
    T_CHECK(h.len == len, "endpoint %c: %zu bytes, header says %u", 'A' + e, len, h.len);
    for (size_t i = 0; i < len; i++)
        T_CHECK(p[i] == byte_of(e, h.seq, i), "endpoint %c seq %u: byte %zu", 'A' + e, h.seq, i);
    got[e]++;
}

static void on_packet_a(int peer, const void *hdr, size_t hl, const void *payload, size_t len)
{
    on_packet_ep(0, peer, hdr, hl, payload, len);
}

static void on_packet_b(int peer, const void *hdr, size_t hl, const void *payload, size_t len)
{
    on_packet_ep(1, peer, hdr, hl, payload, len);
}

static void on_rdma_done(void *cookie, canal_status_t st)
{
    (void)cookie, (void)st;
}

static void on_peer_failed(int peer, canal_status_t st)
{
    T_CHECK(0, "peer %d failed (%d)", peer, st);
}

static const ch_upcalls_t ups[NEP] = {
    {.on_packet = on_packet_a, .on_rdma_done = on_rdma_done, .on_peer_failed = on_peer_failed},
    {.on_packet = on_packet_b, .on_rdma_done = on_rdma_done, .on_peer_failed = on_peer_failed},
};

static void progress_all(void)
{
    int failed = fake_pmi_failed_rank();
    for (int e = 0; e < NEP; e++)
        T_CHECK(ch_progress(eps[e]) >= 0, "progress of endpoint %c", 'A' + e);
    /* The peer gave up: say where our packets are too. */
    T_CHECK(failed < 0 || failed == fake_pmi_rank(), "rank %d failed a check; this rank's state:",
            failed);
}

static void send_one(int e, int peer, uint32_t seq, size_t cap)
{
    static unsigned char buf[4096];
    size_t len = (seq * 37u) % (cap < sizeof buf ? cap : sizeof buf);
    pkt_hdr_t h = {.tag = (char)('A' + e), .seq = seq, .len = (uint32_t)len};
    struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
    double t0 = common_now_s();
    canal_status_t st;

    for (size_t i = 0; i < len; i++)
        buf[i] = byte_of(e, seq, i);
    while ((st = ch_sendv(eps[e], peer, iov, 2)) == CANAL_AGAIN) {
        progress_all();
        T_CHECK(common_now_s() - t0 < unit_hang_s(), "endpoint %c: sendv stuck", 'A' + e);
    }
    T_CHECK(st == CANAL_OK, "endpoint %c: sendv seq %u returned %d", 'A' + e, seq, st);
}

static int body(int rank, void *arg)
{
    const char *prov = arg;
    const ch_opts_t opts[NEP] = {{.instance = NULL, .provider = prov},
                                 {.instance = "b", .provider = prov}};
    ch_caps_t caps[NEP];
    pmi_info_t info;
    char desc[NEP][512];
    int peer = 1 - rank;
    double t0;

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    for (int e = 0; e < NEP; e++) {
        canal_status_t st;
        T_CHECK(ch_endpoint_new(TEST_OPS, &opts[e], &eps[e]) == CANAL_OK, "endpoint %c", 'A' + e);
        memset(&caps[e], 0, sizeof caps[e]);
        st = ch_init(eps[e], &info, &ups[e], &caps[e]);
#ifdef CANAL_TEST_EP_OFI
        if (st != CANAL_OK && e == 0) {
            /* The provider is not usable here: a SKIP, said why. Both ranks
             * fail the same way; the fence below is never reached. */
            fprintf(stderr, "SKIP %s: provider %s: %s\n", TEST_NAME, prov, common_err_detail());
            atomic_store(skipped, 1);
            return 0;
        }
#endif
        T_CHECK(st == CANAL_OK, "init of endpoint %c returned %d", 'A' + e, st);
    }
    T_CHECK(eps[0]->state != eps[1]->state, "the endpoints share their state");
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    for (int e = 0; e < NEP; e++)
        T_CHECK(ch_post_fence(eps[e]) == CANAL_OK, "post_fence of endpoint %c", 'A' + e);
    for (int e = 0; e < NEP; e++) {
        T_CHECK(ch_reaches(eps[e], peer), "endpoint %c does not reach rank %d", 'A' + e, peer);
        ch_describe(eps[e], desc[e], sizeof desc[e]);
        T_CHECK(strncmp(desc[e], TEST_OPS->name, strlen(TEST_OPS->name)) == 0,
                "endpoint %c describes itself as \"%s\"", 'A' + e, desc[e]);
    }

    /* Interleaved: A, B, A, B, ... then wait for the peer's. */
    for (uint32_t seq = 0; seq < NPKT; seq++)
        for (int e = 0; e < NEP; e++)
            send_one(e, peer, seq, caps[e].max_payload);
    t0 = common_now_s();
    while (got[0] < NPKT || got[1] < NPKT) {
        unsigned before = got[0] + got[1];
        progress_all();
        if (got[0] + got[1] != before) /* moving: not a hang */
            t0 = common_now_s();
        T_CHECK(common_now_s() - t0 < unit_hang_s(), "only %u (A) and %u (B) of %d arrived", got[0],
                got[1], NPKT);
    }
    /* What sendv accepted leaves before the fence (a peer may still read). */
    t0 = common_now_s();
    for (int e = 0; e < NEP; e++)
        while (ch_flush(eps[e]) != CANAL_OK) {
            progress_all();
            T_CHECK(common_now_s() - t0 < unit_hang_s(), "endpoint %c never flushed", 'A' + e);
        }
    T_CHECK(pmi_fence() == CANAL_OK, "final fence");
    for (int e = NEP - 1; e >= 0; e--) {
        T_CHECK(ch_finalize(eps[e]) == CANAL_OK, "finalize of endpoint %c", 'A' + e);
        ch_endpoint_free(eps[e]);
    }
    return 0;
}

START_TEST(test_two_endpoints)
{
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = TEST_NODES};
    const char *prov = NULL;
#ifdef CANAL_TEST_EP_OFI
    prov = getenv("CANAL_TEST_OFI_PROVIDER");
    if (prov == NULL || prov[0] == '\0')
        prov = "tcp;ofi_rxm";
#endif
    ck_assert_int_eq(fake_pmi_run(&job, body, (void *)prov), 0);
}
END_TEST

#ifdef CANAL_TEST_EP_SHM
/* The creator (rank 0) opens both endpoints, so both segments exist, then
 * dies by a signal before post_fence would unlink them: the clean-up armed
 * per endpoint must remove both names, not only the last one armed. */
static char (*crash_names)[256]; /* shared with the parent */

static int body_crash(int rank, void *arg)
{
    const ch_opts_t opts[NEP] = {{.instance = NULL}, {.instance = "b"}};
    ch_caps_t caps;
    pmi_info_t info;

    (void)arg;
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    if (rank != 0)
        return 0;
    /* Check's runner handler would take the whole test down with us. */
    signal(SIGTERM, SIG_DFL);
    for (int e = 0; e < NEP; e++) {
        T_CHECK(ch_endpoint_new(TEST_OPS, &opts[e], &eps[e]) == CANAL_OK, "endpoint %c", 'A' + e);
        T_CHECK(ch_init(eps[e], &info, &ups[e], &caps) == CANAL_OK, "init of endpoint %c",
                'A' + e);
        snprintf(crash_names[e], 256, "/dev/shm%s", ch_shm_segment_name(eps[e]));
        T_CHECK(access(crash_names[e], F_OK) == 0, "%s should exist", crash_names[e]);
    }
    T_CHECK(strcmp(crash_names[0], crash_names[1]) != 0, "both endpoints use %s", crash_names[0]);
    raise(SIGTERM);
    return 0;
}

START_TEST(test_crash_cleanup_both)
{
    int ws[2];
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = 1, .wstatus_out = ws};

    crash_names = mmap(NULL, NEP * 256, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert(crash_names != MAP_FAILED);
    memset(crash_names, 0, NEP * 256);
    ck_assert_int_eq(fake_pmi_run(&job, body_crash, NULL), 1);
    ck_assert(WIFSIGNALED(ws[0]) && WTERMSIG(ws[0]) == SIGTERM);
    ck_assert(WIFEXITED(ws[1]) && WEXITSTATUS(ws[1]) == 0);
    for (int e = 0; e < NEP; e++) {
        ck_assert_msg(crash_names[e][0] != '\0', "endpoint %c never created its segment", 'A' + e);
        ck_assert_msg(access(crash_names[e], F_OK) != 0, "%s left behind", crash_names[e]);
        unlink(crash_names[e]); /* a failed run leaves nothing either */
    }
    munmap(crash_names, NEP * 256);
}
END_TEST
#endif

/* Options that select nothing valid are refused before any channel runs. */
START_TEST(test_bad_options)
{
    ch_endpoint_t *ep = NULL;
    ch_opts_t bad_name = {.instance = "no spaces"};
    ch_opts_t long_name = {.instance = "abcdefghijklmnopq"};

    ck_assert_int_eq(ch_endpoint_new(TEST_OPS, &bad_name, &ep), CANAL_ERR_ARG);
    ck_assert_ptr_null(ep);
    ck_assert_int_eq(ch_endpoint_new(TEST_OPS, &long_name, &ep), CANAL_ERR_ARG);
    ck_assert_int_eq(ch_endpoint_new(NULL, NULL, &ep), CANAL_ERR_ARG);
    ck_assert_int_eq(ch_endpoint_new(TEST_OPS, NULL, &ep), CANAL_OK);
    ck_assert_ptr_nonnull(ep->state);
    ck_assert_str_eq(ep->instance, "");
    ch_endpoint_free(ep);
}
END_TEST

int main(void)
{
    Suite *s = suite_create(TEST_NAME);
    TCase *tc = tcase_create("endpoints");
    SRunner *sr;
    int failed;

#ifdef CANAL_TEST_EP_OFI
    ofi_test_use_loopback();
#endif
    skipped =
        mmap(NULL, sizeof *skipped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (skipped == MAP_FAILED)
        return EXIT_FAILURE;
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_two_endpoints);
#ifdef CANAL_TEST_EP_SHM
    tcase_add_test(tc, test_crash_cleanup_both);
#endif
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed == 0 && atomic_load(skipped))
        return 77; /* the reason was printed by the rank */
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
