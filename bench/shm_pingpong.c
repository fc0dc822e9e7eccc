/*
 * Micro benchmark of the shm channel alone (no device, no MPI): 2 forked
 * ranks through test/unit/fake_pmi.c, a 16-byte header as the device's
 * tiny eager one (ADI_PKT_TINY). Modes (first argument, default all):
 *   floor  the cache-line ping-pong floor (two processes bouncing one flag
 *          in a shared line), the bound the channel's latency aims at;
 *   pp     ping-pong, half round trip, for sizes around one and two lines;
 *   sr     both directions at once, one message each way per iteration
 *          (each rank sends, then waits for the other's: MPI_Sendrecv's
 *          shape, IMB Sendrecv with 2 ranks): time per iteration;
 *   ex     both directions at once, two messages each way per iteration
 *          (IMB Exchange with 2 ranks: two sends, then both receives); also
 *          after one odd message (the pair then starts in a line's second
 *          half) and with 150 ns between the two sends (ex+gap: MPI_Isend's
 *          own time, which lets the reader take the first line before the
 *          second record exists: the two states of IMB Exchange 8 B);
 *   bibw   both directions at once in windows of 64 (osu_bibw's shape):
 *          each rank sends 64, then waits for the other's 64; ns per
 *          message each way;
 *   bw     one direction in windows of 64 with a 4-byte reply (osu_bw);
 *   stream streaming bandwidth through the rings (max_payload packets);
 *   insn   for callgrind, not timed: rank 0 sends INSN_SENDS records of a
 *          16-byte header and L bytes (`shm_pingpong insn L`, default 8) in
 *          windows of 16, each answered by a 4-byte record, so the ring never
 *          fills and every send of rank 0 takes the same path; per send:
 *            valgrind --tool=callgrind ./shm_pingpong insn 8, then rank 0's
 *            ch_shm_sendv inclusive count over its 19969 calls
 *            (callgrind_annotate --inclusive=yes; no AGAIN retry if
 *            sendv_general is called 1248 times or less: once per window).
 * Each time is the best and the median of BURSTS bursts: the best filters
 * out other load on the machine; the ring's soft wraps are counted (a
 * Sendrecv loop that never wraps early walks the whole ring). Run it under
 * `chrt -f 1` (root) and label it with bench/floor.c (doc/bench.md).
 * Not built by `make`; a developer's tool (from the top of the tree):
 *   gcc -O2 -std=gnu11 -D_GNU_SOURCE -I. -I_build -o /tmp/shm_pingpong bench/shm_pingpong.c \
 *       channels/shm/shm*.c channels/channel.c common/status.c common/log.c common/cvar.c \
 *       common/clock.c test/unit/fake_pmi.c
 * (-I_build for config.h). `shm_pingpong sr` against `shm_pingpong pp` says
 * what the ring alone costs when both directions run at once (doc/bench.md,
 * helper ring2).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "channels/channel.h"
#include "channels/shm/shm.h"
#include "test/unit/fake_pmi.h"

static ch_endpoint_t *ep;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile long got;
static char *sink; /* the receiver copies payloads out, as the device does */

static void on_packet(int peer, const void *hdr, size_t hl, const void *payload, size_t len)
{
    (void)peer, (void)hdr, (void)hl;
    got++;
    memcpy(sink, payload, len);
}
static void on_rdma(void *c, canal_status_t s) { (void)c, (void)s; }
static void on_fail(int p, canal_status_t s) { (void)p, (void)s; }

static ch_upcalls_t up = {.on_packet = on_packet, .on_rdma_done = on_rdma,
                          .on_peer_failed = on_fail};
static pmi_info_t info;
static ch_caps_t caps;
static const char *mode = "all";
static size_t insn_len = 8; /* insn mode's payload */

static void send_one(int peer, const void *hdr, size_t hl, const void *buf, size_t len)
{
    struct iovec iov[2] = {{(void *)hdr, hl}, {(void *)buf, len}};
    while (ch_sendv(ep, peer, iov, 2) == CANAL_AGAIN)
        ch_progress(ep);
}

static void wait_for(long n)
{
    while (got < n)
        ch_progress(ep);
}

static _Atomic long *floor_flag; /* shared with the parent, made before fork */

enum { BURSTS = 21, BURST = 4000, WIN = 64 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int on(const char *m)
{
    return strcmp(mode, "all") == 0 || strcmp(mode, m) == 0;
}

/* Runs fn BURSTS times (each preceded by a fence and got = 0) and prints
 * best and median of the per-unit times fn returns, on rank 0. */
static void report(int rank, const char *what, double (*fn)(int rank, size_t len), size_t len)
{
    double all[BURSTS];
    unsigned long wraps0 = ((ch_shm_state_t *)ep->state)->soft_wraps;

    for (int rep = 0; rep < BURSTS; rep++) {
        pmi_fence();
        got = 0;
        pmi_fence();
        all[rep] = fn(rank, len);
    }
    qsort(all, BURSTS, sizeof all[0], cmp_double);
    if (rank == 0)
        printf("%-8s %6zu B: best %7.1f ns, median %7.1f ns  (soft wraps %lu)\n", what, len,
               all[0], all[BURSTS / 2], ((ch_shm_state_t *)ep->state)->soft_wraps - wraps0);
}

static char hdr[16];
static char *buf;

static double run_pp(int rank, size_t len)
{
    double t0 = now_s();
    for (int i = 1; i <= BURST; i++) {
        if (rank == 0) {
            send_one(1, hdr, sizeof hdr, buf, len);
            wait_for(i);
        } else {
            wait_for(i);
            send_one(0, hdr, sizeof hdr, buf, len);
        }
    }
    return (now_s() - t0) / BURST / 2 * 1e9;
}

static double run_sr(int rank, size_t len)
{
    double t0 = now_s();
    for (int i = 1; i <= BURST; i++) {
        send_one(1 - rank, hdr, sizeof hdr, buf, len);
        wait_for(i);
    }
    return (now_s() - t0) / BURST * 1e9;
}

/* Work between ex's two sends, as MPI_Isend's own between its channel
 * calls (about 150 ns here): gap_ns of spinning on the clock, 0 for none. */
static long gap_ns;

static void gap(void)
{
    if (gap_ns > 0) {
        double end = now_s() + gap_ns * 1e-9;
        while (now_s() < end)
            ;
    }
}

static double run_ex(int rank, size_t len)
{
    double t0 = now_s();
    for (int i = 1; i <= BURST; i++) {
        send_one(1 - rank, hdr, sizeof hdr, buf, len);
        gap();
        send_one(1 - rank, hdr, sizeof hdr, buf, len);
        wait_for(2L * i);
    }
    return (now_s() - t0) / BURST * 1e9;
}

static double run_bibw(int rank, size_t len)
{
    int windows = BURST / WIN;
    double t0 = now_s();
    for (int w = 1; w <= windows; w++) {
        for (int i = 0; i < WIN; i++)
            send_one(1 - rank, hdr, sizeof hdr, buf, len);
        wait_for((long)w * WIN);
    }
    return (now_s() - t0) / (windows * WIN) * 1e9;
}

/* One direction in windows of win records of len bytes from rank 0, each
 * window answered by a 4-byte record (osu_bw's shape; the insn mode). */
static void windows_one_way(int rank, int windows, int win, size_t len)
{
    for (int w = 1; w <= windows; w++) {
        if (rank == 0) {
            for (int i = 0; i < win; i++)
                send_one(1, hdr, sizeof hdr, buf, len);
            wait_for(w);
        } else {
            wait_for((long)w * win);
            send_one(0, hdr, sizeof hdr, buf, 4);
        }
    }
}

static double run_bw(int rank, size_t len)
{
    double t0 = now_s();

    windows_one_way(rank, BURST / WIN, WIN, len);
    return (now_s() - t0) / (BURST / WIN * WIN) * 1e9;
}

/* Windows of 16: 64 records of 128 bytes after a soft wrap would meet a
 * full ring until the reader takes the skip (a retry under callgrind). */
enum { INSN_SENDS = 19968, INSN_WIN = 16 };

static int body(int rank, void *arg)
{
    (void)arg;
    if (on("floor")) {
        double all[BURSTS];
        long v = 0;
        for (int rep = 0; rep < BURSTS; rep++) {
            double t0 = now_s();
            for (int i = 0; i < BURST; i++) {
                if (rank == 0) {
                    atomic_store_explicit(floor_flag, ++v, memory_order_release);
                    while (atomic_load_explicit(floor_flag, memory_order_acquire) != v + 1)
                        ;
                    v++;
                } else {
                    while (atomic_load_explicit(floor_flag, memory_order_acquire) != v + 1)
                        ;
                    v++;
                    atomic_store_explicit(floor_flag, ++v, memory_order_release);
                }
            }
            all[rep] = (now_s() - t0) / BURST / 2 * 1e9;
        }
        qsort(all, BURSTS, sizeof all[0], cmp_double);
        if (rank == 0)
            printf("floor (one line, one way): best %.1f ns, median %.1f ns\n", all[0],
                   all[BURSTS / 2]);
    }

    if (ch_endpoint_new(&ch_shm_ops, NULL, &ep) != CANAL_OK || pmi_init(&info) != CANAL_OK ||
        ch_init(ep, &info, &up, &caps) != CANAL_OK || pmi_fence() != CANAL_OK ||
        ch_post_fence(ep) != CANAL_OK) {
        fprintf(stderr, "setup failed: %s\n", common_err_detail());
        return 1;
    }
    buf = malloc(4 << 20);
    memset(buf, 1, 4 << 20);
    sink = malloc(caps.max_payload);
    if (rank == 0) {
        char d[256];
        ch_describe(ep, d, sizeof d);
        printf("%s\n", d);
    }
    if (strcmp(mode, "insn") == 0) {
        /* One send first, so the first lap's setup is not in the count. */
        pmi_fence();
        got = 0;
        send_one(1 - rank, hdr, sizeof hdr, buf, 0);
        wait_for(1);
        pmi_fence();
        got = 0;
        windows_one_way(rank, INSN_SENDS / INSN_WIN, INSN_WIN, insn_len);
    }
    if (on("pp")) {
        static const size_t sizes[] = {8, 40, 48, 56, 64, 128};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            report(rank, "pp", run_pp, sizes[k]);
    }
    if (on("sr")) {
        static const size_t sizes[] = {0, 8, 56, 64};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            report(rank, "sr", run_sr, sizes[k]);
    }
    if (on("ex")) {
        static const size_t sizes[] = {0, 8, 64};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            report(rank, "ex", run_ex, sizes[k]);
        /* Once more after one odd 8-byte message each way: a pair of 32-byte
         * records then starts in the second half of a line (IMB runs its
         * sizes one after the other and lands in either state). */
        pmi_fence();
        got = 0;
        send_one(1 - rank, hdr, sizeof hdr, buf, 8);
        wait_for(1);
        report(rank, "ex odd", run_ex, 8);
        report(rank, "ex odd", run_ex, 0);
        /* Both states again with 150 ns between the two sends. */
        gap_ns = 150;
        pmi_fence();
        got = 0;
        send_one(1 - rank, hdr, sizeof hdr, buf, 64); /* the next record starts a line */
        wait_for(1);
        report(rank, "ex+gap", run_ex, 8);
        pmi_fence();
        got = 0;
        send_one(1 - rank, hdr, sizeof hdr, buf, 8); /* the next record starts mid-line */
        wait_for(1);
        report(rank, "ex+gap odd", run_ex, 8);
        gap_ns = 0;
    }
    if (on("bibw")) {
        static const size_t sizes[] = {8, 64};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            report(rank, "bibw", run_bibw, sizes[k]);
    }
    if (on("bw")) {
        static const size_t sizes[] = {8, 64};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            report(rank, "bw", run_bw, sizes[k]);
    }
    if (on("stream")) {
        for (size_t len = 1024; len <= caps.max_payload; len *= 4) {
            long n = (long)((64u << 20) / len);
            double best = 1e9;
            for (int rep = 0; rep < 5; rep++) {
                pmi_fence();
                got = 0;
                pmi_fence();
                double t0 = now_s();
                if (rank == 0) {
                    for (long i = 0; i < n; i++)
                        send_one(1, hdr, sizeof hdr, buf, len);
                    wait_for(1);
                } else {
                    wait_for(n);
                    send_one(0, hdr, sizeof hdr, buf, 0);
                }
                double t = now_s() - t0;
                if (t < best)
                    best = t;
            }
            if (rank == 0)
                printf("stream %6zu B packets: %.2f GB/s\n", len, n * (double)len / best / 1e9);
        }
    }
    pmi_fence();
    ch_finalize(ep);
    ch_endpoint_free(ep);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    fake_pmi_job_t job = {.nprocs = 2, .timeout_s = 300};
    if (argc > 1)
        mode = argv[1];
    if (argc > 2)
        insn_len = (size_t)atol(argv[2]);
    floor_flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    return fake_pmi_run(&job, body, NULL) == 0 ? 0 : 1;
}
