/*
 * Unit tests of the libfabric channel (channels/ofi/) and its conformance
 * to channels/channel.h, run once per provider (tcp;ofi_rxm and net by
 * default, udp;ofi_rxd and shm on request; CANAL_TEST_OFI_PROVIDERS="a,b" replaces the
 * list). The deprecated sockets provider passes too, but not reliably: now
 * and then it never completes a send its peer has received (libfabric's
 * own fi_pingpong hangs with it here), so it is left out of the default
 * list to keep "make check" deterministic. The tests: the table of cases
 * every channel runs (ch_conform.c: order with 2 and 4 ranks, every header
 * and payload size, sendv() from inside on_packet(), block/wake, sendv's
 * argument checks) per provider; then ofi's own: back-pressure (also the
 * provider's), block() with and without a CQ descriptor, rdma_read through fi_read (also on the
 * FI_MR_LOCAL path), the registration cache, provider selection
 * (CANAL_OFI_PROVIDER, FI_PROVIDER, default), unreachable and dead peers,
 * bad input (and the hang report's state text), loading libfabric at init (CANAL_OFI_LIBRARY
 * missing or wrong). A failed check prints that report (test/unit/ofi_test_diag.h). Each test
 * forks a small job through test/unit/fake_pmi.c;
 * ranks check their own results and report by exit status. A provider that
 * is absent, or lacks a capability a test needs, makes that test print
 * SKIP and pass; when no provider of the list could be brought up at all,
 * the program exits 77 (automake's SKIP) instead of passing. No check here
 * depends on speed: waits only fail as hangs (test/unit/unit_limits.h).
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "channels/channel.h"
#include "channels/ofi/ofi.h"
#include "channels/ofi/ofi_impl.h"
#include "test/unit/ch_conform.h"
#include "test/unit/ofi_test_diag.h"

#define OFI_ST ((ofi_state_t *)EP->state)

/* ---- providers ---------------------------------------------------------- */

enum { NPROV_MAX = 8 };
static char prov_names[NPROV_MAX][64];
static int nprov;

static void providers_init(void)
{
    const char *env = getenv("CANAL_TEST_OFI_PROVIDERS");
    char buf[512];
    char *save = NULL;

    /* The default is what CI can rely on: libfabric 1.17's udp;ofi_rxd stalls
     * on a loaded machine and its shm provider sometimes refuses fi_enable
     * (EBUSY) right after a killed peer. Both pass the suite when asked for:
     * CANAL_TEST_OFI_PROVIDERS="tcp;ofi_rxm,udp;ofi_rxd,shm,net". */
    snprintf(buf, sizeof buf, "%s",
             env != NULL && env[0] != '\0' ? env : "tcp;ofi_rxm,net");
    nprov = 0;
    for (char *t = strtok_r(buf, ",", &save); t != NULL && nprov < NPROV_MAX - 1;
         t = strtok_r(NULL, ",", &save))
        snprintf(prov_names[nprov++], sizeof prov_names[0], "%s", t);
}

/* ---- the channel under test (test/unit/ch_conform.h) -------------------- */

static const char *prov;
/* Shared by every forked test and rank: channel inits that succeeded. */
static _Atomic int *prov_inits;

static const char *ofi_label(void)
{
    return prov ? prov : "-";
}

static void ofi_select_provider(void)
{
    setenv("CANAL_OFI_PROVIDER", prov, 1);
}

/* A failed check: what the channel holds and where the bytes are. */
static void ofi_dump_state(void)
{
    ofi_test_diag(stderr, EP, NULL);
    ofi_test_diag_sockets(stderr);
}

/* Progress until our sends have completed (reached the peer): datagram
 * providers with manual progress (udp;ofi_rxd) need the sender to poll. */
static void flush_sends(void)
{
    double t0 = now_s();
    unsigned long done = OFI_ST->tx_completions;
    while (OFI_ST->tx_inflight > 0) {
        T_CHECK(poll_once() >= 0, "progress");
        if (OFI_ST->tx_completions != done) { /* moving: not a hang */
            done = OFI_ST->tx_completions;
            t0 = now_s();
        }
        T_CHECK(now_s() - t0 < unit_hang_s(), "%d sends never completed", OFI_ST->tx_inflight);
    }
}

static int bring_up_prov(int pi, ch_upcalls_t *up);
static int run_prov_job(int nprocs, int pi, fake_pmi_body_t body);
static void ofi_after_order(void);

const conf_channel_t conf_channel = {
    .file = "test_ch_ofi.c",
    .ops = &ch_ofi_ops,
    .self_send = 1,
    .checks_null_header = 1,
    .upcall_send_may_wait = 1,
    .run = run_prov_job,
    .bring_up = bring_up_prov,
    .after_order = ofi_after_order,
    .before_init = ofi_select_provider,
    .flush = flush_sends,
    .on_fail = ofi_dump_state,
    .label = ofi_label,
    .skip_unsupported = 1,
};

static int rdma_done_count;
static canal_status_t rdma_last_st;
static void *rdma_last_cookie;

static void on_rdma_done_rec(void *cookie, canal_status_t st)
{
    rdma_done_count++;
    rdma_last_st = st;
    rdma_last_cookie = cookie;
}

static int peer_failed_count;
static unsigned peer_failed_mask; /* bit r: rank r was reported (r < 32) */
static void on_peer_failed_rec(int peer, canal_status_t st)
{
    peer_failed_count++;
    if (peer >= 0 && peer < 32)
        peer_failed_mask |= 1u << peer;
}

static ch_upcalls_t up_check = {on_packet_check, on_rdma_done_rec, on_peer_failed_rec};

/* Select the provider, init (SKIP when the provider is absent), fence,
 * post_fence. Returns 0 when the test should be skipped. */
static int bring_up_prov(int pi, ch_upcalls_t *up)
{
    prov = prov_names[pi];
    if (!conf_bring_up(up))
        return 0;
    atomic_fetch_add(prov_inits, 1);
    return 1;
}

static int nnodes_for(int pi)
{
    /* The shm provider reaches only its node; the others see two nodes. */
    return strcmp(prov_names[pi], "shm") == 0 ? 1 : 2;
}

static int run_prov_job(int nprocs, int pi, fake_pmi_body_t body)
{
    fake_pmi_job_t job = {.nprocs = nprocs, .nnodes = nnodes_for(pi), .cyclic = 1};
    return fake_pmi_run(&job, body, (void *)(intptr_t)pi);
}

#define PI ((int)(intptr_t)arg)

/* After the table's order case: how many packets the channel held back to
 * put them in order (printed, not judged). */
static void ofi_after_order(void)
{
    if (info.rank == 0)
        fprintf(stderr, "%s: order x%d: %lu packets held back for reordering\n", prov, info.size,
                OFI_ST->reordered);
}

/* Wait until every rank has received `n` from every rank in `from`. */
/* ---- back-pressure ---------------------------------------------------------- */

enum { BP_MSGS_DEFAULT = 4000 };
static unsigned BP_MSGS = BP_MSGS_DEFAULT;

/* Rank 0 floods rank 1, which does not poll (it waits in the fence): sendv
 * must start saying AGAIN (bounded memory) and never wait for the receiver
 * (a sendv that did would wait for ever, and fail as a hang). Then rank 1
 * drains while rank 0 pushes the rest; everything arrives in order. */
static int body_backpressure(int rank, void *arg)
{
    unsigned char *buf;

    if (getenv("TEST_BP_MSGS") != NULL)
        BP_MSGS = (unsigned)atoi(getenv("TEST_BP_MSGS"));

    if (!bring_up_prov(PI, &up_check))
        return 0;
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    /* Rank 1 -> 0 first, so that connection set-up is not what says AGAIN. */
    if (rank == 1) {
        send_checked(0, 0, 8, buf);
        flush_sends();
    } else {
        wait_delivered(1);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 0) {
        unsigned seq = 0;
        canal_status_t st;
        for (;;) {
            size_t len = seq % 3 == 0 ? caps.max_payload : seq % 3 == 1 ? 0 : 77;
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            make_payload(buf, 0, seq, len);
            st = ch_sendv(EP, 1, iov, 2);
            if (st == CANAL_AGAIN)
                break;
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            seq++;
            T_CHECK(seq < BP_MSGS, "never got CANAL_AGAIN in %u sends", seq);
        }
        fprintf(stderr,
                "%s: back-pressure after %u packets (%lu with no free buffer, %lu "
                "FI_EAGAIN)\n",
                prov, seq, OFI_ST->tx_nobuf, OFI_ST->tx_eagain);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        for (; seq < BP_MSGS; seq++)
            send_checked(1, seq, seq % 3 == 0 ? caps.max_payload : seq % 3 == 1 ? 0 : 77, buf);
        /* The end: wait for rank 1's acknowledgement, while our last sends
         * complete (each completion restarts the hang limit). */
        {
            double t0 = now_s();
            unsigned long done = OFI_ST->tx_completions;
            while (received[1] < 2) {
                T_CHECK(poll_once() >= 0, "progress");
                if (OFI_ST->tx_completions != done) {
                    done = OFI_ST->tx_completions;
                    t0 = now_s();
                }
                T_CHECK(now_s() - t0 < unit_hang_s(), "no final ack");
            }
        }
    } else {
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        wait_delivered(BP_MSGS);
        send_checked(0, 1, 0, buf);
    }
    free(buf);
    return tear_down();
}

START_TEST(test_backpressure) { ck_assert_int_eq(run_prov_job(2, _i, body_backpressure), 0); }
END_TEST

/* With more send buffers than the provider's transmit queue, the provider's
 * own FI_EAGAIN is what stops the flood. */
START_TEST(test_backpressure_provider)
{
    if (strcmp(prov_names[_i], "udp;ofi_rxd") == 0) {
        /* Seen with libfabric 1.17: a receive completion whose length
         * belongs to another packet (the channel reports a malformed
         * packet), or a stall, once rxd's whole transmit queue is in use. */
        fprintf(stderr, "SKIP %s provider back-pressure: rxd misbehaves with its transmit "
                "queue full\n", prov_names[_i]);
        return;
    }
    setenv("CANAL_OFI_TX_BUFS", "8192", 1);
    setenv("CANAL_OFI_MAX_PAYLOAD", "4K", 1);
    setenv("TEST_BP_MSGS", "60000", 1);
    ck_assert_int_eq(run_prov_job(2, _i, body_backpressure), 0);
    unsetenv("CANAL_OFI_TX_BUFS");
    unsetenv("CANAL_OFI_MAX_PAYLOAD");
    unsetenv("TEST_BP_MSGS");
}
END_TEST

/* ---- rdma_read ---------------------------------------------------------------- */

/* Read and wait for the completion; CANAL_AGAIN if `limit` seconds pass
 * (only used for reads that should fail: some providers drop them). */
static canal_status_t read_wait_for(int peer, void *dst, uint64_t raddr, uint64_t key,
                                    size_t len, void *cookie, double limit)
{
    int before = rdma_done_count;
    canal_status_t st = ch_rdma_read(EP, peer, dst, raddr, key, len, cookie);
    double t0 = now_s();

    if (st != CANAL_INPROGRESS)
        return st;
    while (rdma_done_count == before) {
        T_CHECK(poll_once() >= 0, "progress");
        if (now_s() - t0 > limit)
            return CANAL_AGAIN;
    }
    T_CHECK(rdma_last_cookie == cookie, "cookie %p, expected %p", rdma_last_cookie, cookie);
    return rdma_last_st;
}

static canal_status_t read_wait(int peer, void *dst, uint64_t raddr, uint64_t key, size_t len,
                                void *cookie)
{
    canal_status_t st = read_wait_for(peer, dst, raddr, key, len, cookie, unit_hang_s());
    T_CHECK(st != CANAL_AGAIN, "rdma_read of %zu bytes never completed", len);
    return st;
}

static volatile int *rdma_flag; /* shared by the job: rank 1 finished reading */

static int body_rdma(int rank, void *arg)
{
    size_t len = (4u << 20) + 123;
    unsigned char *buf = malloc(len);
    char val[128];
    canal_status_t st;

    T_CHECK(buf != NULL, "malloc");
    if (getenv("TEST_OFI_MR_LOCAL") != NULL)
        ch_ofi_test_flags = OFI_TEST_FORCE_MR_LOCAL;
    if (!bring_up_prov(PI, &up_check))
        return 0;
    if (!caps.has_rdma) {
        if (rank == 0)
            fprintf(stderr, "SKIP %s rdma_read: the provider offers no RMA here\n", prov);
        T_CHECK(ch_rdma_read(EP, 1 - rank, buf, (uintptr_t)buf, 0, 8, NULL) ==
                    CANAL_ERR_UNSUPPORTED,
                "rdma_read without RMA");
        free(buf);
        return tear_down();
    }
    if (rank == 0) {
        uint64_t key = 0;
        T_CHECK(ch_mem_register(EP, buf, len, NULL) == CANAL_ERR_ARG, "NULL key_out");
        make_payload(buf, 0, 5, len);
        st = ch_mem_register(EP, buf, len, &key);
        T_CHECK(st == CANAL_OK, "mem_register: %d", st);
        T_CHECK(key != UINT64_MAX, "key is the device's 'no key' value");
        snprintf(val, sizeof val, "%llx %llx", (unsigned long long)(uintptr_t)buf,
                 (unsigned long long)key);
        T_CHECK(pmi_put("test-buf", val) == CANAL_OK, "put");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        /* Serve the reads (manual progress) until rank 1 says it is done. */
        double t0 = now_s();
        while (*rdma_flag == 0) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "rank 1 never finished reading");
        }
        T_CHECK(ch_mem_deregister(EP, key) == CANAL_OK, "deregister");
        T_CHECK(ch_mem_deregister(EP, key ^ 0x5a5a) == CANAL_ERR_NOTFOUND, "deregister bad key");
    } else {
        unsigned long long raddr, key;
        int cookie;
        double t0;
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(pmi_get(0, "test-buf", val, sizeof val) == CANAL_OK, "get");
        T_CHECK(sscanf(val, "%llx %llx", &raddr, &key) == 2, "parse %s", val);
        memset(buf, 0, len);
        t0 = now_s();
        st = read_wait(0, buf, raddr, key, len, &cookie);
        T_CHECK(st == CANAL_OK, "rdma_read of %zu bytes: %d", len, st);
        fprintf(stderr, "%s: rdma_read of %zu bytes: %.1f MB/s\n", prov, len,
                len / (now_s() - t0) / 1e6);
        for (size_t i = 0; i < len; i++)
            T_CHECK(buf[i] == pattern(0, 5, i), "byte %zu", i);
        for (size_t off = 1; off < len; off = off * 3 + 7) {
            size_t l = off % 5000 + 1 < len - off ? off % 5000 + 1 : len - off;
            memset(buf, 0, l);
            T_CHECK(read_wait(0, buf + 3, raddr + off, key, l, &cookie) == CANAL_OK, "piece");
            for (size_t i = 0; i < l; i++)
                T_CHECK(buf[3 + i] == pattern(0, 5, off + i), "piece at %zu byte %zu", off, i);
        }
        T_CHECK(ch_rdma_read(EP, 0, buf, raddr, key, 0, NULL) == CANAL_OK, "len 0");
        T_CHECK(ch_rdma_read(EP, 0, NULL, raddr, key, 64, NULL) == CANAL_ERR_ARG, "NULL dst");
        T_CHECK(ch_rdma_read(EP, info.size, buf, raddr, key, 8, NULL) == CANAL_ERR_ARG, "bad peer");
        T_CHECK(ch_rdma_read(EP, 0, buf, ~0ULL - 8, key, 64, NULL) == CANAL_ERR_ARG, "wrapping");
        if (!OFI_ST->mr_virt)
            T_CHECK(ch_rdma_read(EP, 0, buf, 4096, key, 64, NULL) == CANAL_ERR_ARG,
                    "below the base");
        /* A range outside the registration, then a wrong key. Providers
         * differ: sockets reports an error and goes on, tcp reports it and
         * drops the connection, shm (CMA) reads whatever is mapped there,
         * rxd drops the request silently. Canal must pass on whatever it
         * gets without crashing or hanging; only what it gets is printed. */
        {
            static const char *what[2] = {"beyond the registration", "with a wrong key"};
            for (int k = 0; k < 2; k++) {
                st = read_wait_for(0, buf, k == 0 ? raddr + len + 2 * 4096 : raddr,
                                   k == 0 ? key : key ^ ((uint64_t)0x77 << 48), 64, &cookie, 3);
                fprintf(stderr, "%s: a read %s -> %s%s%s\n", prov, what[k],
                        st == CANAL_AGAIN ? "no completion within 3 s" : common_status_name(st),
                        st < 0 ? ": " : "", st < 0 ? common_err_detail() : "");
                if (st == CANAL_AGAIN)
                    break;
            }
        }
        if (st != CANAL_AGAIN) {
            memset(buf, 0, 100);
            st = read_wait_for(0, buf, raddr + 100, key, 100, &cookie, 3);
            fprintf(stderr, "%s: a good read after those: %s\n", prov,
                    st == CANAL_OK && buf[0] == pattern(0, 5, 100) ? "works" :
                    st == CANAL_AGAIN ? "no completion" : common_err_detail());
        }
        *rdma_flag = 1;
    }
    tear_down();
    free(buf);
    return 0;
}

static int run_rdma(int pi)
{
    int rc;
    rdma_flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert(rdma_flag != MAP_FAILED);
    *rdma_flag = 0;
    rc = run_prov_job(2, pi, body_rdma);
    munmap((void *)rdma_flag, 4096);
    return rc;
}

START_TEST(test_rdma_read) { ck_assert_int_eq(run_rdma(_i), 0); }
END_TEST

START_TEST(test_rdma_read_mr_local)
{
    /* The FI_MR_LOCAL path (registered bounce buffers and read targets),
     * which none of the providers here requires. */
    setenv("TEST_OFI_MR_LOCAL", "1", 1);
    ck_assert_int_eq(run_rdma(_i), 0);
    unsetenv("TEST_OFI_MR_LOCAL");
}
END_TEST

/* ---- block ------------------------------------------------------------------ */

/* block() sleeps up to its timeout when nothing comes, and a packet sent
 * while a rank sleeps wakes it (or it returns at once where the provider
 * has no wait descriptor). */
/* CANAL_OFI_CQ_WAIT for body_block: "fd" (sleep on the CQ's descriptor
 * where the provider has one) or "none" (no descriptor: block() naps). */
static const char *block_wait = "fd";

static int body_block(int rank, void *arg)
{
    unsigned char buf[16];
    double t0;

    setenv("CANAL_OFI_CQ_WAIT", block_wait, 1);
    if (!bring_up_prov(PI, &up_check))
        return 0;
    unsetenv("CANAL_OFI_CQ_WAIT");
    if (strcmp(block_wait, "none") == 0)
        T_CHECK(OFI_ST->wait_fd < 0, "CANAL_OFI_CQ_WAIT=none, but the CQ has a descriptor");
    if (rank == 1) {
        /* Let any connection set-up traffic settle, then nothing arrives. */
        for (int i = 0; i < 50; i++)
            poll_once();
        t0 = now_s();
        if (OFI_ST->wait_fd >= 0) {
            T_CHECK(ch_block(EP, 100000) == CANAL_OK, "block");
        } else {
            /* Without a descriptor nothing could wake it: block() naps
             * briefly whatever the timeout. One that slept for the timeout
             * given here would outlast the hang limit. */
            T_CHECK(ch_block(EP, unit_block_forever_us()) == CANAL_OK, "block");
            T_CHECK(now_s() - t0 < unit_hang_s(), "block without a descriptor slept %.0f s",
                    now_s() - t0);
        }
        T_CHECK(ch_block(EP, 0) == CANAL_OK, "block(0)");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 0) {
        struct timespec ts = {0, 200000000L};
        nanosleep(&ts, NULL);
        send_checked(1, 0, 8, buf);
    } else {
        int blocks = 0;
        t0 = now_s();
        while (received[0] == 0) {
            T_CHECK(ch_block(EP, 2 * 1000000L) == CANAL_OK, "block");
            blocks++;
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "never woken");
        }
        fprintf(stderr, "%s: the sleeper was woken (%d blocks)\n", prov, blocks);
    }
    return tear_down();
}

START_TEST(test_block)
{
    block_wait = "fd";
    ck_assert_int_eq(run_prov_job(2, _i, body_block), 0);
}
END_TEST

START_TEST(test_block_nofd)
{
    block_wait = "none";
    ck_assert_int_eq(run_prov_job(2, _i, body_block), 0);
}
END_TEST

/* ---- the registration cache ------------------------------------------------ */

static int cb_order[8];
static int ncb;
static void cb_rec(void *arg) { cb_order[ncb++] = (int)(intptr_t)arg; }

static int body_mr_cache(int rank, void *arg)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *a = aligned_alloc(ps, 16 * ps);
    uint64_t k1, k2, k3;
    void *h1, *h2, *h3;
    ch_ofi_mr_stats_t s;
    canal_status_t st;

    T_CHECK(a != NULL, "alloc");
    memset(a, 1, 16 * ps);
    setenv("CANAL_OFI_MR_CACHE_ENTRIES", "4", 1);
    if (!bring_up_prov(PI, &up_check))
        return 0;
    if (!caps.has_rdma) {
        T_CHECK(ch_ofi_mr_acquire(EP, a, ps, &k1, &h1) == CANAL_ERR_UNSUPPORTED, "no RMA");
        fprintf(stderr, "SKIP %s registration cache: no RMA\n", prov);
        return tear_down();
    }
    T_CHECK(ch_ofi_mr_acquire(EP, NULL, 8, &k1, &h1) == CANAL_ERR_ARG, "NULL buf");
    T_CHECK(ch_ofi_mr_acquire(EP, a, 0, &k1, &h1) == CANAL_ERR_ARG, "len 0");
    T_CHECK(ch_ofi_mr_acquire(EP, a, 8, NULL, &h1) == CANAL_ERR_ARG, "NULL key_out");
    T_CHECK(ch_ofi_mr_release(EP, a, NULL, NULL) == CANAL_ERR_ARG, "release a non-handle");

    /* Miss, then hits inside it. */
    T_CHECK(ch_ofi_mr_acquire(EP, a + 10, 4 * ps, &k1, &h1) == CANAL_OK, "acquire 1");
    T_CHECK(ch_ofi_mr_acquire(EP, a + ps, 100, &k2, &h2) == CANAL_OK, "acquire 2 inside 1");
    T_CHECK(ch_ofi_mr_acquire(EP, a + 10, 4 * ps, &k3, &h3) == CANAL_OK, "acquire 3 = 1");
    ch_ofi_mr_stats(EP, &s);
    T_CHECK(s.misses == 1 && s.hits == 2, "misses %lu hits %lu", s.misses, s.hits);
    T_CHECK(h1 == h2 && h2 == h3 && k1 == k2 && k2 == k3, "not shared");
    T_CHECK(s.active == 1 && s.idle == 0, "active %d idle %d", s.active, s.idle);
    /* Outside: a miss. */
    T_CHECK(ch_ofi_mr_acquire(EP, a + 8 * ps, ps, &k2, &h2) == CANAL_OK, "acquire 4");
    T_CHECK(h2 != h1 && k2 != k1, "distinct registrations share a key");
    ch_ofi_mr_stats(EP, &s);
    T_CHECK(s.misses == 2 && s.active == 2, "misses %lu active %d", s.misses, s.active);

    /* Release callbacks run when the last user is gone, in order. */
    ncb = 0;
    T_CHECK(ch_ofi_mr_release(EP, h1, cb_rec, (void *)1) == CANAL_OK, "release 1");
    T_CHECK(ch_ofi_mr_release(EP, h1, NULL, NULL) == CANAL_OK, "release 2");
    T_CHECK(ncb == 0, "callback before the last release");
    T_CHECK(ch_ofi_mr_release(EP, h1, cb_rec, (void *)2) == CANAL_OK, "release 3");
    T_CHECK(ncb == 2 && cb_order[0] == 1 && cb_order[1] == 2, "callbacks %d", ncb);
    T_CHECK(ch_ofi_mr_release(EP, h2, cb_rec, (void *)3) == CANAL_OK, "release 4");
    T_CHECK(ncb == 3, "callback of a single user");
    ch_ofi_mr_stats(EP, &s);
    T_CHECK(s.active == 0, "active %d", s.active);

    /* After the last release: kept (software providers) or closed. */
    T_CHECK(ch_ofi_mr_acquire(EP, a + 20, 100, &k1, &h1) == CANAL_OK, "acquire again");
    ch_ofi_mr_stats(EP, &s);
    if (OFI_ST->keep_idle)
        T_CHECK(s.hits == 3 && s.misses == 2, "idle entry not reused: hits %lu misses %lu",
                s.hits, s.misses);
    else
        T_CHECK(s.hits == 2 && s.misses == 3, "closed entry reused: hits %lu misses %lu", s.hits,
                s.misses);
    T_CHECK(ch_ofi_mr_release(EP, h1, NULL, NULL) == CANAL_OK, "release");

    /* Invalidation drops idle entries; live ones are not handed out again. */
    T_CHECK(ch_ofi_mr_acquire(EP, a + 12 * ps, ps, &k3, &h3) == CANAL_OK, "acquire live");
    ch_ofi_mr_invalidate(EP, a, 16 * ps);
    ch_ofi_mr_stats(EP, &s);
    T_CHECK(s.idle == 0 && s.active == 1, "after invalidate: idle %d active %d", s.idle,
            s.active);
    {
        unsigned long m0 = s.misses;
        T_CHECK(ch_ofi_mr_acquire(EP, a + 12 * ps, ps, &k1, &h1) == CANAL_OK,
                "acquire stale range");
        ch_ofi_mr_stats(EP, &s);
        T_CHECK(s.misses == m0 + 1 && h1 != h3, "a stale registration was handed out");
        T_CHECK(ch_ofi_mr_release(EP, h1, NULL, NULL) == CANAL_OK &&
                    ch_ofi_mr_release(EP, h3, NULL, NULL) == CANAL_OK,
                "release");
    }

    /* The idle limit (CANAL_OFI_MR_CACHE_ENTRIES=4). */
    {
        unsigned char *bufs[10];
        for (int i = 0; i < 10; i++) {
            bufs[i] = aligned_alloc(ps, ps);
            T_CHECK(bufs[i] != NULL, "alloc");
            bufs[i][0] = 1;
            T_CHECK(ch_ofi_mr_acquire(EP, bufs[i], ps, &k1, &h1) == CANAL_OK, "acquire %d", i);
            T_CHECK(ch_ofi_mr_release(EP, h1, NULL, NULL) == CANAL_OK, "release %d", i);
        }
        ch_ofi_mr_stats(EP, &s);
        T_CHECK(s.idle <= 4 && s.active == 0, "idle %d active %d", s.idle, s.active);
        if (OFI_ST->keep_idle)
            T_CHECK(s.evictions >= 6, "evictions %lu", s.evictions);
        for (int i = 0; i < 10; i++)
            free(bufs[i]);
    }

    /* mem_register/deregister count like acquire/release. */
    T_CHECK(ch_mem_register(EP, a, ps, &k1) == CANAL_OK, "mem_register");
    T_CHECK(ch_mem_register(EP, a, ps, &k2) == CANAL_OK && k1 == k2, "mem_register again");
    T_CHECK(ch_mem_deregister(EP, k1) == CANAL_OK && ch_mem_deregister(EP, k1) == CANAL_OK,
            "dereg");
    st = ch_mem_deregister(EP, k1);
    T_CHECK(st == CANAL_ERR_NOTFOUND, "third deregister: %d", st);
    ch_ofi_mr_stats(EP, &s);
    if (rank == 0)
        fprintf(stderr, "%s: MR cache (%s): hits %lu misses %lu evictions %lu invalidations %lu\n",
                prov, OFI_ST->keep_idle ? "keeps idle" : "live only", s.hits, s.misses, s.evictions,
                s.invalidations);
    free(a);
    return tear_down();
}

START_TEST(test_mr_cache) { ck_assert_int_eq(run_prov_job(1, _i, body_mr_cache), 0); }
END_TEST

static int body_mr_cache_off(int rank, void *arg)
{
    static unsigned char a[8192];
    uint64_t k;
    void *h;
    ch_ofi_mr_stats_t s;

    setenv("CANAL_OFI_MR_CACHE", "no", 1);
    if (!bring_up_prov(PI, &up_check))
        return 0;
    if (caps.has_rdma) {
        for (int i = 0; i < 3; i++) {
            T_CHECK(ch_ofi_mr_acquire(EP, a, 100, &k, &h) == CANAL_OK, "acquire");
            T_CHECK(ch_ofi_mr_release(EP, h, NULL, NULL) == CANAL_OK, "release");
        }
        ch_ofi_mr_stats(EP, &s);
        T_CHECK(s.misses == 3 && s.hits == 0 && s.idle == 0, "misses %lu hits %lu idle %d",
                s.misses, s.hits, s.idle);
    }
    return tear_down();
}

START_TEST(test_mr_cache_off) { ck_assert_int_eq(run_prov_job(1, _i, body_mr_cache_off), 0); }
END_TEST

/* ---- unreachable peers, describe, bad input ------------------------------- */

/* Rank 1 picks another provider: each says the other is unreachable and
 * why, and both still reach themselves. */
static int body_mismatch(int rank, void *arg)
{
    const char *other = strcmp(prov_names[PI], "sockets") == 0 ? "tcp;ofi_rxm" : "sockets";
    canal_status_t st;
    char b[8] = "x";
    struct iovec iov[1] = {{b, 1}};

    prov = rank == 0 ? prov_names[PI] : other;
    setenv("CANAL_OFI_PROVIDER", prov, 1);
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    st = ch_init(EP, &info, &up_check, &caps);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (st == CANAL_ERR_UNSUPPORTED) {
        fprintf(stderr, "SKIP %s mismatch: %s\n", prov, common_err_detail());
        /* The other rank may have its provider: meet its final fence. */
        T_CHECK(pmi_fence() == CANAL_OK, "final fence");
        return 0;
    }
    T_CHECK(st == CANAL_OK, "init: %d", st);
    T_CHECK(ch_post_fence(EP) == CANAL_OK, "post_fence");
    T_CHECK(ch_reaches(EP, rank) && !ch_reaches(EP, 1 - rank), "reaches");
    st = ch_sendv(EP, 1 - rank, iov, 1);
    T_CHECK(st == CANAL_ERR_PEER, "sendv to an unreachable peer: %d", st);
    T_CHECK(strstr(common_err_detail(), "provider") != NULL ||
                strstr(common_err_detail(), "initialize") != NULL,
            "message: %s", common_err_detail());
    if (rank == 0)
        fprintf(stderr, "mismatch message: %s\n", common_err_detail());
    return tear_down();
}

START_TEST(test_provider_mismatch)
{
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = 1};
    ck_assert_int_eq(fake_pmi_run(&job, body_mismatch, (void *)(intptr_t)_i), 0);
}
END_TEST

/* FI_PROVIDER is honoured (libfabric filters by it) when CANAL_OFI_PROVIDER
 * is unset; with neither, the first provider that is not node-local wins. */
static int body_fi_provider(int rank, void *arg)
{
    const char *want = prov_names[PI];
    canal_status_t st;
    char core[64];

    unsetenv("CANAL_OFI_PROVIDER");
    if (want[0] != '\0')
        setenv("FI_PROVIDER", want, 1);
    else
        unsetenv("FI_PROVIDER");
    prov = want[0] != '\0' ? want : "(default)";
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    st = ch_init(EP, &info, &up_check, &caps);
    if (st == CANAL_ERR_UNSUPPORTED) {
        fprintf(stderr, "SKIP FI_PROVIDER=%s: %s\n", want, common_err_detail());
        return 0;
    }
    T_CHECK(st == CANAL_OK, "init: %d", st);
    snprintf(core, sizeof core, "%.*s", (int)strcspn(want, ";"), want);
    if (want[0] != '\0')
        T_CHECK(strncmp(OFI_ST->prov, core, strlen(core)) == 0, "FI_PROVIDER=%s gave %s", want,
                OFI_ST->prov);
    else
        fprintf(stderr, "default provider: %s (%s)\n", OFI_ST->prov,
                OFI_ST->local_only ? "node-local" : "reaches other nodes");
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    T_CHECK(ch_post_fence(EP) == CANAL_OK, "post_fence");
    return tear_down();
}

START_TEST(test_fi_provider_env)
{
    fake_pmi_job_t job = {.nprocs = 1};
    ck_assert_int_eq(fake_pmi_run(&job, body_fi_provider, (void *)(intptr_t)_i), 0);
}
END_TEST

START_TEST(test_default_provider)
{
    fake_pmi_job_t job = {.nprocs = 1};
    snprintf(prov_names[NPROV_MAX - 1], sizeof prov_names[0], "%s", "");
    ck_assert_int_eq(fake_pmi_run(&job, body_fi_provider, (void *)(intptr_t)(NPROV_MAX - 1)),
                     0);
}
END_TEST

static int body_describe(int rank, void *arg)
{
    char desc[512];

    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "not initialized") != NULL, "%s", desc);
    if (!bring_up_prov(PI, &up_check))
        return 0;
    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "provider") != NULL && strstr(desc, prov) != NULL, "%s", desc);
    /* The address card must pass every PMI: printable, no blank, no ';'. */
    for (const char *c = OFI_ST->card; *c != '\0'; c++)
        T_CHECK(*c > 0x20 && *c < 0x7f && *c != ';', "card %s has '%c'", OFI_ST->card, *c);
    if (rank == 0)
        fprintf(stderr, "describe: %s\n", desc);
    ch_describe(EP, desc, 0);
    ch_describe(EP, NULL, 10);
    return tear_down();
}

START_TEST(test_describe) { ck_assert_int_eq(run_prov_job(2, _i, body_describe), 0); }
END_TEST

/* tcp;ofi_rxm: none of the channel's packets takes rxm's rendezvous, which
 * over tcp now and then never completes a max-size packet under load
 * (doc/bench.md, helpers `ofi` and `ofi2`). The channel raises
 * FI_OFI_RXM_EAGER_LIMIT to its largest packet unless the user set it
 * (kept as is: arg's variant 1 sets it). Checked by what rxm then does:
 * eager packets on one connection complete in the order sent, so rank 1
 * holds none back for order, while a rendezvous (a read by the receiver)
 * completes after the small packets behind it. Other providers: SKIP. */
enum { EAGER_BURST = 64 };

static int body_rxm_eager(int rank, void *arg)
{
    int pi = PI % nprov, user = PI / nprov;
    const char *v;
    unsigned char *buf;

    if (strcmp(prov_names[pi], "tcp;ofi_rxm") != 0) {
        if (rank == 0)
            fprintf(stderr, "SKIP rxm_eager: %s is not tcp;ofi_rxm\n", prov_names[pi]);
        return 0;
    }
    if (user)
        setenv("FI_OFI_RXM_EAGER_LIMIT", "20000", 1);
    else
        unsetenv("FI_OFI_RXM_EAGER_LIMIT");
    if (!bring_up_prov(pi, &up_check))
        return 0;
    v = getenv("FI_OFI_RXM_EAGER_LIMIT");
    T_CHECK(v != NULL, "FI_OFI_RXM_EAGER_LIMIT not set by init");
    if (user) {
        T_CHECK(strcmp(v, "20000") == 0, "the user's FI_OFI_RXM_EAGER_LIMIT became %s", v);
        return tear_down();
    }
    T_CHECK(strtoull(v, NULL, 10) >= OFI_ST->buf_size,
            "FI_OFI_RXM_EAGER_LIMIT=%s is below the largest packet (%zu bytes)", v,
            OFI_ST->buf_size);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    if (rank == 0)
        for (unsigned i = 0; i < 2 * EAGER_BURST; i++)
            send_checked(1, i, i % 2 == 0 ? caps.max_payload : 8, buf);
    else
        wait_delivered(2 * EAGER_BURST);
    free(buf);
    if (rank == 1)
        T_CHECK(OFI_ST->reordered == 0, "%lu of %d packets completed out of order: max-size "
                "packets took rxm's rendezvous", OFI_ST->reordered, 2 * EAGER_BURST);
    return tear_down();
}

START_TEST(test_rxm_eager)
{
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = nnodes_for(_i % nprov), .cyclic = 1};
    ck_assert_int_eq(fake_pmi_run(&job, body_rxm_eager, (void *)(intptr_t)_i), 0);
}
END_TEST

static int body_bad_input(int rank, void *arg)
{
    unsigned char big[CH_HDR_MAX + 1] = {0};
    unsigned char *pay;
    struct iovec iov[3];
    ch_caps_t c2;
    canal_status_t st;

    /* Before init. */
    T_CHECK(ch_progress(EP) == 0, "progress before init");
    iov[0] = (struct iovec){big, 4};
    T_CHECK(ch_sendv(EP, 0, iov, 1) < 0, "sendv before init");
    T_CHECK(ch_post_fence(EP) < 0, "post_fence before init");
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize before init");
    T_CHECK(ch_mem_deregister(EP, 5) < 0, "deregister before init");

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    T_CHECK(ch_init(EP, NULL, &up_check, &caps) == CANAL_ERR_ARG, "NULL pmi");
    T_CHECK(ch_init(EP, &info, NULL, &caps) == CANAL_ERR_ARG, "NULL up");
    T_CHECK(ch_init(EP, &info, &up_check, NULL) == CANAL_ERR_ARG, "NULL caps");
    {
        pmi_info_t bad = info;
        bad.rank = bad.size;
        T_CHECK(ch_init(EP, &bad, &up_check, &caps) == CANAL_ERR_ARG, "rank out of range");
    }
    setenv("CANAL_OFI_PROVIDER", "no-such-provider", 1);
    st = ch_init(EP, &info, &up_check, &caps);
    T_CHECK(st == CANAL_ERR_UNSUPPORTED && strstr(common_err_detail(), "no-such-provider"),
            "unknown provider: %d %s", st, common_err_detail());
    setenv("CANAL_OFI_PROVIDER", prov_names[PI], 1);
    setenv("CANAL_OFI_MAX_PAYLOAD", "12", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG &&
                strstr(common_err_detail(), "CANAL_OFI_MAX_PAYLOAD"),
            "tiny payload: %s", common_err_detail());
    unsetenv("CANAL_OFI_MAX_PAYLOAD");
    setenv("CANAL_OFI_MR_CACHE", "sometimes", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG &&
                strstr(common_err_detail(), "CANAL_OFI_MR_CACHE"),
            "bad cache mode: %s", common_err_detail());
    unsetenv("CANAL_OFI_MR_CACHE");
    setenv("CANAL_OFI_RX_BUFS", "1", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG, "1 rx buffer");
    unsetenv("CANAL_OFI_RX_BUFS");

    /* The failed inits above published "!why" cards; a real one replaces them. */
    if (!bring_up_prov(PI, &up_check))
        return 0;
    T_CHECK(ch_init(EP, &info, &up_check, &c2) == CANAL_ERR_PENDING, "double init");
    iov[0] = (struct iovec){big, 4};
    pay = malloc(caps.max_payload + 1);
    T_CHECK(pay != NULL, "malloc");
    T_CHECK(!ch_reaches(EP, -1) && !ch_reaches(EP, info.size), "reaches out of range");
    /* Self delivery through the provider. */
    {
        thdr_t h = {THDR_MAGIC, (uint32_t)rank, 0, 3};
        struct iovec ok[2] = {{&h, sizeof h}, {pay, 3}};
        double t0 = now_s();
        make_payload(pay, rank, 0, 3);
        while ((st = ch_sendv(EP, rank, ok, 2)) == CANAL_AGAIN)
            poll_once();
        T_CHECK(st == CANAL_OK, "self send: %d", st);
        while (received[rank] == 0) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "no self delivery");
        }
    }
    /* The hang report's text names this rank's own traffic. */
    {
        char text[2048], want[64];
        ch_ofi_state_text(EP, text, sizeof text);
        snprintf(want, sizeof want, "peer %d (self) at ", rank);
        T_CHECK(strncmp(text, "ofi ", 4) == 0 && strstr(text, want) != NULL &&
                    strstr(text, "sent 1 (") != NULL && strstr(text, "expects 1") != NULL,
                "state text: %s", text);
        if (rank == 0)
            fprintf(stderr, "%s: state text after a self send:\n%s", prov, text);
        ch_ofi_state_text(EP, text, 10); /* truncated, terminated */
        T_CHECK(strlen(text) == 9, "truncated state text: %s", text);
    }
    free(pay);
    return tear_down();
}

START_TEST(test_bad_input) { ck_assert_int_eq(run_prov_job(2, _i, body_bad_input), 0); }
END_TEST

/* A peer dies: sends to it fail with on_peer_failed or an error naming it,
 * never a hang or a crash. */
static int body_peer_dies(int rank, void *arg)
{
    unsigned char *buf;
    double t0;
    canal_status_t st = CANAL_OK;

    if (!bring_up_prov(PI, &up_check))
        return 0;
    buf = calloc(1, caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    /* One exchange so that the connection exists. */
    if (rank == 0) {
        send_checked(1, 0, 10, buf);
        while (received[1] == 0)
            T_CHECK(poll_once() >= 0, "progress");
    } else {
        while (received[0] == 0)
            T_CHECK(poll_once() >= 0, "progress");
        send_checked(0, 0, 10, buf);
        flush_sends();
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 1)
        _exit(0); /* dies without finalize */
    sleep(1);
    t0 = now_s();
    for (unsigned seq = 1; now_s() - t0 < 8 && peer_failed_count == 0; seq++) {
        thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)caps.max_payload};
        struct iovec iov[2] = {{&h, sizeof h}, {buf, caps.max_payload}};
        st = ch_sendv(EP, 1, iov, 2);
        if (st < 0)
            break;
        int n = ch_progress(EP);
        if (n < 0) {
            st = n;
            break;
        }
    }
    fprintf(stderr, "%s: after the peer died: on_peer_failed %d, last status %s (%s) after %.1f "
            "s\n", prov, peer_failed_count, common_status_name(st), common_err_detail(),
            now_s() - t0);
    /* Datagram providers may not notice within the bound; that is allowed,
     * a hang or a crash is not. */
    free(buf);
    ch_finalize(EP);
    return 0;
}

/* A peer dies while this rank only waits (no send toward it in flight): the
 * channel's liveness probes must report it (on_peer_failed), never a wait
 * for ever. Before them nothing did: a provider reports a lost peer only as
 * the error of an operation toward it. */
static int body_peer_dies_idle(int rank, void *arg)
{
    unsigned char buf[16] = {0};
    double t0;

    if (!bring_up_prov(PI, &up_check))
        return 0;
    if (rank == 0) {
        send_checked(1, 0, 10, buf);
        flush_sends();
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        t0 = now_s();
        while (peer_failed_count == 0) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "rank 1 died %.0f s ago; never reported",
                    now_s() - t0);
        }
        fprintf(stderr, "%s: a peer lost while idle, reported after %.1f s (%lu probes)\n", prov,
                now_s() - t0, OFI_ST->probes);
        ch_finalize(EP);
        return 0;
    }
    wait_delivered(1);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    _exit(0); /* dies without finalize */
}

START_TEST(test_peer_dies_idle)
{
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = nnodes_for(_i), .cyclic = 1};
    if (strcmp(prov_names[_i], "udp;ofi_rxd") == 0 || strcmp(prov_names[_i], "shm") == 0) {
        /* No connection to break: a send to a dead peer may just vanish. */
        fprintf(stderr, "SKIP %s peer lost while idle: no connection to lose\n", prov_names[_i]);
        return;
    }
    ck_assert_int_eq(fake_pmi_run(&job, body_peer_dies_idle, (void *)(intptr_t)_i), 0);
}
END_TEST

/* A peer that never exchanged a packet with this rank dies (rank 1), and
 * another that never did either stops progressing (rank 2: it sleeps, as a
 * rank computing or waiting in MPI_Finalize's fence does). The probes reach
 * every peer of the job, so rank 0 learns of rank 1 (before, it probed only
 * peers it had talked to and learnt nothing); rank 2's connection never
 * comes up, so its probes are refused as a dead peer's are, but its process
 * runs: never reported lost. One node, so that the pids tell them apart
 * (CANAL_OFI_PEER_LOST_S=1 shortens the verdict). */
static int body_peer_never_talked(int rank, void *arg)
{
    double t0;

    setenv("CANAL_OFI_PEER_LOST_S", "1", 1);
    if (!bring_up_prov(PI, &up_check))
        return 0;
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 1)
        _exit(0); /* dies without finalize */
    if (rank == 2) {
        sleep(6); /* no progress: its endpoint answers nothing */
        ch_finalize(EP);
        return 0;
    }
    t0 = now_s();
    while ((peer_failed_mask & 2u) == 0 || now_s() - t0 < 5) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK((peer_failed_mask & 4u) == 0, "rank 2 (alive, not progressing) reported lost "
                "after %.1f s", now_s() - t0);
        T_CHECK(now_s() - t0 < unit_hang_s(), "rank 1 (never talked to) died %.0f s ago; never "
                "reported", now_s() - t0);
        usleep(1000);
    }
    fprintf(stderr, "%s: a peer never talked to lost, reported (%lu probes); the one asleep "
            "not\n", prov, OFI_ST->probes);
    ch_finalize(EP);
    return 0;
}

START_TEST(test_peer_never_talked)
{
    fake_pmi_job_t job = {.nprocs = 3, .nnodes = 1};
    if (strcmp(prov_names[_i], "udp;ofi_rxd") == 0 || strcmp(prov_names[_i], "shm") == 0) {
        fprintf(stderr, "SKIP %s peer never talked to: no connection to lose\n", prov_names[_i]);
        return;
    }
    ck_assert_int_eq(fake_pmi_run(&job, body_peer_never_talked, (void *)(intptr_t)_i), 0);
}
END_TEST

/* Orderly exit: rank 1 talks to rank 0, flushes (MPI_Finalize's first step,
 * which sends BYE to every peer it is connected to) and exits, as a rank
 * whose finalize skipped the fence after a failure does. Rank 0, idle well
 * past CANAL_OFI_PEER_LOST_S, must not report it lost: before the BYE its
 * broken connection failed the next probe. */
static int body_peer_bye(int rank, void *arg)
{
    unsigned char buf[16] = {0};
    double t0;

    setenv("CANAL_OFI_PEER_LOST_S", "1", 1);
    if (!bring_up_prov(PI, &up_check))
        return 0;
    if (rank == 1) {
        wait_delivered(1);
        while (ch_flush(EP) != CANAL_OK)
            T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        _exit(0);
    }
    send_checked(1, 0, 10, buf);
    flush_sends();
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    t0 = now_s();
    while (now_s() - t0 < 4) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(peer_failed_count == 0, "rank 1 said BYE and exited; reported lost after %.1f s",
                now_s() - t0);
        usleep(1000);
    }
    T_CHECK(OFI_ST->peers[1].departed, "rank 1's BYE never arrived");
    ch_finalize(EP);
    return 0;
}

START_TEST(test_peer_bye)
{
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = nnodes_for(_i), .cyclic = 1};
    if (strcmp(prov_names[_i], "udp;ofi_rxd") == 0 || strcmp(prov_names[_i], "shm") == 0) {
        fprintf(stderr, "SKIP %s BYE: no connection to lose\n", prov_names[_i]);
        return;
    }
    ck_assert_int_eq(fake_pmi_run(&job, body_peer_bye, (void *)(intptr_t)_i), 0);
}
END_TEST

/* Which peers an idle round probes (ch_ofi_probe_wanted): all of a small
 * job; in a large one the connected ones and the OFI_PROBE_RING after us,
 * wrapping, so that every rank is watched by that many; never ourselves, nor
 * an unreachable, failed or departed peer. */
START_TEST(test_probe_wanted)
{
    enum { N = 200 };
    static ofi_peer_t peers[N];
    ofi_state_t st;
    int watchers[N] = {0};

    memset(&st, 0, sizeof st);
    st.peers = peers;
    st.size = N;
    st.probe_all_max = 64;
    for (int me = 0; me < N; me++) {
        int n = 0;
        memset(peers, 0, sizeof peers);
        for (int r = 0; r < N; r++)
            peers[r].reachable = 1;
        st.rank = me;
        for (int r = 0; r < N; r++)
            if (ch_ofi_probe_wanted(&st, r)) {
                n++;
                watchers[r]++;
            }
        ck_assert_int_eq(n, OFI_PROBE_RING);
        ck_assert(!ch_ofi_probe_wanted(&st, me));
        ck_assert(ch_ofi_probe_wanted(&st, (me + 1) % N));
        ck_assert(ch_ofi_probe_wanted(&st, (me + OFI_PROBE_RING) % N));
        ck_assert(!ch_ofi_probe_wanted(&st, (me + OFI_PROBE_RING + 1) % N));
        ck_assert(!ch_ofi_probe_wanted(&st, (me + N - 1) % N));
    }
    for (int r = 0; r < N; r++)
        ck_assert_int_eq(watchers[r], OFI_PROBE_RING);
    st.rank = 7;
    peers[150].connected = 1;
    ck_assert(ch_ofi_probe_wanted(&st, 150));
    peers[8].departed = 1;
    ck_assert(!ch_ofi_probe_wanted(&st, 8));
    peers[9].failed = 1;
    ck_assert(!ch_ofi_probe_wanted(&st, 9));
    peers[10].reachable = 0;
    ck_assert(!ch_ofi_probe_wanted(&st, 10));
    st.probe_all_max = N; /* a small job: every live peer */
    ck_assert(ch_ofi_probe_wanted(&st, 100));
    ck_assert(!ch_ofi_probe_wanted(&st, 7));
    ck_assert(!ch_ofi_probe_wanted(&st, 8));
}
END_TEST

/* The interface socket providers use (channels/ofi/ofi.c, iface_set):
 * FI_*_IFACE set by the user wins; one node: lo; several: CANAL_SOCK_IFACE,
 * else the route to PMI_PORT's host, never loopback for remote peers. */
START_TEST(test_iface_choice)
{
    char out[64], why[128];
    struct ifaddrs *all = NULL;

    unsetenv("FI_TCP_IFACE");
    unsetenv("FI_SOCKETS_IFACE");
    unsetenv("FI_NET_IFACE");
    unsetenv("CANAL_SOCK_IFACE");
    unsetenv("PMI_PORT");
    ck_assert_int_eq(ch_ofi_iface_choose(1, out, sizeof out, why, sizeof why), 1);
    ck_assert_str_eq(out, "lo");
    ck_assert_int_eq(ch_ofi_iface_choose(2, out, sizeof out, why, sizeof why), 0);
    ck_assert_str_eq(out, "");
    setenv("PMI_PORT", "127.0.0.1:7", 1);
    ck_assert_msg(ch_ofi_iface_choose(2, out, sizeof out, why, sizeof why) == 0,
                  "remote peers, launcher on loopback: chose %s (%s)", out, why);
    setenv("CANAL_SOCK_IFACE", "lo", 1);
    ck_assert_int_eq(ch_ofi_iface_choose(2, out, sizeof out, why, sizeof why), 1);
    ck_assert_str_eq(out, "lo");
    unsetenv("CANAL_SOCK_IFACE");
    /* The launcher at an address of another interface: that interface. */
    if (getifaddrs(&all) == 0) {
        for (const struct ifaddrs *i = all; i != NULL; i = i->ifa_next) {
            char host[INET_ADDRSTRLEN], port[64];
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
                (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, host,
                      sizeof host);
            snprintf(port, sizeof port, "%s:7", host);
            setenv("PMI_PORT", port, 1);
            ck_assert_msg(ch_ofi_iface_choose(2, out, sizeof out, why, sizeof why) == 1 &&
                              strcmp(out, i->ifa_name) == 0,
                          "launcher at %s (%s): chose '%s' (%s)", host, i->ifa_name, out, why);
            break;
        }
        freeifaddrs(all);
    }
    /* The user's variable wins. */
    setenv("FI_TCP_IFACE", "eth9", 1);
    ck_assert_int_eq(ch_ofi_iface_choose(1, out, sizeof out, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "FI_TCP_IFACE=eth9") != NULL, "why: %s", why);
    unsetenv("FI_TCP_IFACE");
    unsetenv("PMI_PORT");
}
END_TEST

/* init on one node with no FI_*_IFACE: the channel pins lo for libfabric
 * and says so in describe(). */
static int body_iface_init(int rank, void *arg)
{
    char d[1024];

    unsetenv("FI_TCP_IFACE");
    unsetenv("FI_SOCKETS_IFACE");
    unsetenv("FI_NET_IFACE");
    if (!bring_up_prov(PI, &up_check))
        return 0;
    T_CHECK(getenv("FI_TCP_IFACE") != NULL && strcmp(getenv("FI_TCP_IFACE"), "lo") == 0,
            "FI_TCP_IFACE=%s after init on one node", getenv("FI_TCP_IFACE"));
    ch_describe(EP, d, sizeof d);
    T_CHECK(strstr(d, "interface lo") != NULL, "describe: %s", d);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    ch_finalize(EP);
    return 0;
}

START_TEST(test_iface_init)
{
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = 1};
    if (strcmp(prov_names[_i], "shm") == 0)
        return;
    ck_assert_int_eq(fake_pmi_run(&job, body_iface_init, (void *)(intptr_t)_i), 0);
}
END_TEST

START_TEST(test_peer_dies)
{
    int ws[2];
    fake_pmi_job_t job = {.nprocs = 2, .nnodes = nnodes_for(_i), .cyclic = 1,
                          .wstatus_out = ws};
    ck_assert_int_eq(fake_pmi_run(&job, body_peer_dies, (void *)(intptr_t)_i), 0);
}
END_TEST

/* ---- loading libfabric (channels/ofi/ofi_dl.c) ---------------------------
 * The library is dlopen()ed by init. Where configure found it, loading must
 * work: the tests above SKIP on CANAL_ERR_UNSUPPORTED, so a load failure
 * must not pass for an absent provider. */
static int body_library(int rank, void *arg)
{
    prov = "(library)";
    unsetenv("CANAL_OFI_LIBRARY");
    T_CHECK(ch_ofi_dl_open() == CANAL_OK, "ch_ofi_dl_open");
    T_CHECK(ch_ofi_dl_path() != NULL && strcmp(ch_ofi_dl_path(), "libfabric.so.1") == 0, "path %s",
            ch_ofi_dl_path() ? ch_ofi_dl_path() : "(null)");
    T_CHECK(fi_version() >= FI_VERSION(1, 10), "fi_version %u.%u", FI_MAJOR(fi_version()),
            FI_MINOR(fi_version()));
    T_CHECK(ch_ofi_dl_open() == CANAL_OK, "a second ch_ofi_dl_open");
    /* Another library once one is loaded: refused with both names. */
    setenv("CANAL_OFI_LIBRARY", "/elsewhere/libfabric.so.1", 1);
    T_CHECK(ch_ofi_dl_open() == CANAL_ERR_UNSUPPORTED, "a different library");
    T_CHECK(strstr(common_err_detail(), "/elsewhere/libfabric.so.1") != NULL &&
                strstr(common_err_detail(), "already loaded") != NULL,
            "message: %s", common_err_detail());
    unsetenv("CANAL_OFI_LIBRARY");
    return 0;
}

START_TEST(test_library)
{
    fake_pmi_job_t job = {.nprocs = 1};
    ck_assert_int_eq(fake_pmi_run(&job, body_library, NULL), 0);
}
END_TEST

/* CANAL_OFI_LIBRARY names a file that is missing (arg 0) or is not
 * libfabric (arg 1, libc): init fails with a message naming the file and
 * leaves the channel as it was, and then with the right library the same
 * process initializes (nothing half-loaded stays behind). */
static int body_library_bad(int rank, void *arg)
{
    const char *lib = arg == NULL ? "/nonexistent/libfabric.so.1" : "libc.so.6";
    const char *why = arg == NULL ? "cannot load libfabric" : "not a usable libfabric";
    canal_status_t st;

    prov = lib;
    setenv("CANAL_OFI_LIBRARY", lib, 1);
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    st = ch_init(EP, &info, &up_check, &caps);
    T_CHECK(st == CANAL_ERR_UNSUPPORTED, "init with CANAL_OFI_LIBRARY=%s returned %d", lib, st);
    T_CHECK(strstr(common_err_detail(), lib) != NULL && strstr(common_err_detail(), why) != NULL,
            "message: %s", common_err_detail());
    T_CHECK(!OFI_ST->initialized && ch_ofi_dl_path() == NULL, "state after the failure");
    if (rank == 0)
        fprintf(stderr, "bad library message: %s\n", common_err_detail());
    unsetenv("CANAL_OFI_LIBRARY");
    setenv("CANAL_OFI_PROVIDER", prov_names[0], 1);
    st = ch_init(EP, &info, &up_check, &caps);
    if (st == CANAL_ERR_UNSUPPORTED && ch_ofi_dl_path() != NULL) {
        fprintf(stderr, "SKIP %s after a bad library: %s\n", prov_names[0], common_err_detail());
        return 0;
    }
    T_CHECK(st == CANAL_OK, "init with the default library returned %d", st);
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_library_bad)
{
    fake_pmi_job_t job = {.nprocs = 1};
    ck_assert_int_eq(fake_pmi_run(&job, body_library_bad, (void *)(intptr_t)_i), 0);
}
END_TEST

static Suite *ofi_suite(void)
{
    Suite *s = suite_create("ch_ofi");
    TCase *tc = tcase_create("per provider");
    TCase *tc_conf = tcase_create("conformance"), *tc_bp = tcase_create("back-pressure");
    TCase *tc_lost = tcase_create("lost peer");

    /* Three cases, so that a loop can run one (CK_RUN_CASE=back-pressure). */
    providers_init();
    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_set_timeout(tc_conf, unit_case_timeout_s());
    tcase_set_timeout(tc_bp, unit_case_timeout_s());
    tcase_set_timeout(tc_lost, unit_case_timeout_s());
    tcase_add_test(tc, test_library);
    tcase_add_loop_test(tc, test_library_bad, 0, 2);
    tcase_add_loop_test(tc, test_describe, 0, nprov);
    tcase_add_loop_test(tc, test_fi_provider_env, 0, nprov);
    tcase_add_test(tc, test_default_provider);
    tcase_add_loop_test(tc, test_bad_input, 0, nprov);
    conf_add_cases(tc_conf, nprov);
    tcase_add_loop_test(tc, test_rxm_eager, 0, 2 * nprov);
    tcase_add_loop_test(tc_bp, test_backpressure, 0, nprov);
    tcase_add_loop_test(tc_bp, test_backpressure_provider, 0, nprov);
    tcase_add_loop_test(tc, test_block, 0, nprov);
    tcase_add_loop_test(tc, test_block_nofd, 0, nprov);
    tcase_add_loop_test(tc, test_rdma_read, 0, nprov);
    tcase_add_loop_test(tc, test_rdma_read_mr_local, 0, nprov);
    tcase_add_loop_test(tc, test_mr_cache, 0, nprov);
    tcase_add_loop_test(tc, test_mr_cache_off, 0, nprov);
    tcase_add_loop_test(tc, test_provider_mismatch, 0, nprov);
    tcase_add_loop_test(tc, test_peer_dies, 0, nprov);
    tcase_add_loop_test(tc_lost, test_peer_dies_idle, 0, nprov);
    tcase_add_loop_test(tc_lost, test_peer_never_talked, 0, nprov);
    tcase_add_loop_test(tc_lost, test_peer_bye, 0, nprov);
    tcase_add_test(tc, test_iface_choice);
    tcase_add_test(tc, test_probe_wanted);
    tcase_add_loop_test(tc, test_iface_init, 0, nprov);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tc_conf);
    suite_add_tcase(s, tc_bp);
    suite_add_tcase(s, tc_lost);
    return s;
}

int main(void)
{
    SRunner *sr;
    int failed;

    ofi_test_use_loopback();
    prov_inits = mmap(NULL, sizeof *prov_inits, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                      -1, 0);
    if (prov_inits == MAP_FAILED)
        return EXIT_FAILURE;
    sr = srunner_create(ofi_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed == 0 && atomic_load(prov_inits) == 0) {
        /* Every test skipped its provider: nothing was tested. */
        fprintf(stderr, "SKIP test_ch_ofi: no provider of the list could be brought up (");
        for (int i = 0; i < nprov; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", prov_names[i]);
        fprintf(stderr, "; CANAL_TEST_OFI_PROVIDERS chooses others)\n");
        return 77;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
