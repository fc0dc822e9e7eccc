/*
 * Micro benchmark of the shm channel alone (no device, no MPI): 2 forked
 * ranks through test/unit/fake_pmi.c. Prints
 *   - the cache-line ping-pong floor (two processes bouncing one flag in a
 *     shared line), the bound the channel's small-message latency aims at;
 *   - ping-pong half round-trip latency of sendv/progress for a few sizes
 *     (header 32 B, as the device's will be about that);
 *   - streaming bandwidth through the rings (max_payload packets);
 *   - single-copy bandwidth of rdma_read (process_vm_readv) for large reads.
 * Not built by `make`; a developer's tool:
 *   gcc -O2 -std=gnu11 -D_GNU_SOURCE -I. -o /tmp/ch_shm_pingpong bench/shm_pingpong.c
 *       channels/shm/shm*.c common/status.c common/log.c common/cvar.c test/unit/fake_pmi.c
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "channels/channel.h"
#include "test/unit/fake_pmi.h"

#define CH (&ch_shm_ops)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile long got;
static char *sink; /* the receiver copies payloads out, as the device will */

static void on_packet(int peer, const void *hdr, size_t hl, const void *payload, size_t len)
{
    got++;
    memcpy(sink, payload, len);
}
static void on_rdma(void *c, canal_status_t s) {}
static void on_fail(int p, canal_status_t s) {}

static ch_upcalls_t up = {on_packet, on_rdma, on_fail};
static pmi_info_t info;
static ch_caps_t caps;

static void send_one(int peer, const void *hdr, size_t hl, const void *buf, size_t len)
{
    struct iovec iov[2] = {{(void *)hdr, hl}, {(void *)buf, len}};
    while (CH->sendv(peer, iov, 2) == CANAL_AGAIN)
        CH->progress();
    CH->wake(peer);
}

static void wait_for(long n)
{
    while (got < n)
        CH->progress();
}

static _Atomic int *floor_flag; /* shared with the parent, made before fork */

/* Latencies are the best and the median of BURSTS bursts of BURST round
 * trips: the best filters out other load on the machine. */
enum { BURSTS = 41, BURST = 2000 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static int body(int rank, void *arg)
{
    static const size_t sizes[] = {0, 8, 64, 256, 1024, 4096, 16384};
    char hdr[32] = {0};
    char *buf;
    int peer = 1 - rank;
    double t0, t;

    /* Cache-line floor: the flag only grows, so no reset between bursts. */
    {
        double best = 1e9, all[BURSTS];
        int v = 0;
        for (int rep = 0; rep < BURSTS; rep++) {
            t0 = now_s();
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
            if (all[rep] < best)
                best = all[rep];
        }
        if (rank == 0)
            printf("cache-line ping-pong floor (one way): best %.1f ns, median %.1f ns\n", best,
                   median(all, BURSTS));
    }

    if (pmi_init(&info) != CANAL_OK || CH->init(&info, &up, &caps) != CANAL_OK ||
        pmi_fence() != CANAL_OK || CH->post_fence() != CANAL_OK) {
        fprintf(stderr, "setup failed: %s\n", common_err_detail());
        return 1;
    }
    buf = malloc(4 << 20);
    memset(buf, 1, 4 << 20);
    sink = malloc(caps.max_payload);
    if (rank == 0) {
        char d[256];
        CH->describe(d, sizeof d);
        printf("%s\n", d);
    }
    if (rank == 0)
        printf("%8s %14s %14s %14s\n", "bytes", "hdr32 best", "hdr32 median", "hdr0 best");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double best[2] = {1e9, 1e9}, all[BURSTS], med = 0;
        for (int h = 0; h < 2; h++) {
            size_t hl = h == 0 ? sizeof hdr : 0;
            pmi_fence();
            got = 0;
            for (int rep = 0; rep < BURSTS; rep++) {
                long base = got;
                t0 = now_s();
                for (int i = 1; i <= BURST; i++) {
                    if (rank == 0) {
                        send_one(peer, hdr, hl, buf, sizes[k]);
                        wait_for(base + i);
                    } else {
                        wait_for(base + i);
                        send_one(peer, hdr, hl, buf, sizes[k]);
                    }
                }
                all[rep] = (now_s() - t0) / BURST / 2 * 1e9;
                if (all[rep] < best[h])
                    best[h] = all[rep];
            }
            if (h == 0)
                med = median(all, BURSTS);
        }
        if (rank == 0)
            printf("%8zu %14.1f %14.1f %14.1f\n", sizes[k], best[0], med, best[1]);
    }

    /* Streaming through the rings: best of a few bursts per packet size. */
    for (size_t len = 1024; len <= caps.max_payload; len *= 4) {
        long n = (long)((64u << 20) / len);
        double best = 1e9;
        for (int rep = 0; rep < 5; rep++) {
            pmi_fence();
            got = 0;
            t0 = now_s();
            if (rank == 0) {
                for (long i = 0; i < n; i++)
                    send_one(peer, hdr, sizeof hdr, buf, len);
                wait_for(1);
            } else {
                wait_for(n);
                send_one(peer, hdr, sizeof hdr, buf, 0);
            }
            t = now_s() - t0;
            if (t < best)
                best = t;
        }
        if (rank == 0)
            printf("stream %6zu B packets: %.2f GB/s\n", len, n * (double)len / best / 1e9);
    }

    /* rdma_read bandwidth. */
    {
        char val[64];
        unsigned long long raddr;
        snprintf(val, sizeof val, "%llx", (unsigned long long)(uintptr_t)buf);
        pmi_put("bench-buf", val);
        pmi_fence();
        if (rank == 1) {
            char *dst = malloc(4 << 20);
            pmi_get(0, "bench-buf", val, sizeof val);
            raddr = strtoull(val, NULL, 16);
            for (size_t len = 64 << 10; len <= (4u << 20); len *= 4) {
                int n = (int)((256u << 20) / len);
                canal_status_t st = CANAL_OK;
                t0 = now_s();
                for (int i = 0; i < n && st == CANAL_OK; i++)
                    st = CH->rdma_read(0, dst, raddr, 0, len, NULL);
                t = now_s() - t0;
                if (st != CANAL_OK) {
                    printf("rdma_read: %s\n", common_err_detail());
                    break;
                }
                printf("rdma_read %7zu B: %.2f GB/s\n", len, n * (double)len / t / 1e9);
            }
            free(dst);
        }
        pmi_fence();
    }
    CH->finalize();
    free(buf);
    return 0;
}

int main(void)
{
    fake_pmi_job_t job = {.nprocs = 2, .timeout_s = 300};
    floor_flag = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    return fake_pmi_run(&job, body, NULL) == 0 ? 0 : 1;
}
