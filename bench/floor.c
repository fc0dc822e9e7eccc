/*
 * The cache-line ping-pong floor: what it costs to move one cache line from
 * one core to the other and back, measured by two processes (fork) that
 * bounce a counter in one line of a shared anonymous mapping. No MPI.
 *
 * bench/compare.sh runs it right before and right after every benchmark run
 * to label that run "near" (the two vCPUs share a cache, ~0.05 us one way)
 * or "far" (~0.2 us), because on these 2-vCPU guests the host flips between
 * the two and every small-message latency moves with it (doc/bench.md,
 * ../shared/benchmarks.md). Comparisons are only made within one mode.
 *
 * Usage: floor [-n iterations] [-t threshold_us] [-B busy_us] [-r]
 *   prints "<one-way us> <near|far|busy>": near below the threshold (default
 *   0.1 us, between the two modes), far below the busy limit (default 0.5 us,
 *   2.5 times the far floor), busy above it: then another program took one
 *   of the cores during the measurement, and so it would during a benchmark
 *   run (run under `chrt -f 1` as root to keep the cores). -r prints the
 *   spread of the 5 repetitions on stderr.
 * Build: cc -O2 -o floor bench/floor.c
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One line, padded so that nothing else shares it. */
struct line {
    _Alignas(128) _Atomic long v;
    char pad[128 - sizeof(long)];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Child: answer every odd value with the next even one until told to stop (-1). */
static void child_loop(struct line *l)
{
    long expect = 1;
    for (;;) {
        long v = atomic_load_explicit(&l->v, memory_order_acquire);
        if (v == -1)
            _exit(0);
        if (v == expect) {
            atomic_store_explicit(&l->v, v + 1, memory_order_release);
            expect += 2;
        }
    }
}

/* Parent: n round trips starting at value base; returns the one-way time in seconds. */
static double bounce(struct line *l, long base, long n)
{
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        long v = base + 2 * i;
        atomic_store_explicit(&l->v, v + 1, memory_order_release);
        while (atomic_load_explicit(&l->v, memory_order_acquire) != v + 2)
            ;
    }
    return (now_s() - t0) / n / 2;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n = 200000;
    double threshold_us = 0.1, busy_us = 0.5;
    int verbose = 0;
    int opt;

    while ((opt = getopt(argc, argv, "n:t:B:r")) != -1) {
        switch (opt) {
        case 'n':
            n = strtol(optarg, NULL, 10);
            break;
        case 't':
            threshold_us = strtod(optarg, NULL);
            break;
        case 'B':
            busy_us = strtod(optarg, NULL);
            break;
        case 'r':
            verbose = 1;
            break;
        default:
            fprintf(stderr, "usage: %s [-n iterations] [-t threshold_us] [-B busy_us] [-r]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1000 || n > 100000000 || !(threshold_us > 0) || !(busy_us > threshold_us)) {
        fprintf(stderr, "floor: -n must be 1000..1e8, -t positive, -B above -t\n");
        return 2;
    }

    struct line *l = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) {
        perror("floor: mmap");
        return 1;
    }
    atomic_store(&l->v, 0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("floor: fork");
        return 1;
    }
    if (pid == 0)
        child_loop(l);

    /* A short warm-up brings the child onto the other core, then five
     * repetitions; the median is robust against a preemption in one of them. */
    enum { REPS = 5 };
    double t[REPS];
    long base = 0;
    bounce(l, base, n / 10);
    base += 2 * (n / 10);
    for (int r = 0; r < REPS; r++) {
        t[r] = bounce(l, base, n / REPS);
        base += 2 * (n / REPS);
    }
    atomic_store(&l->v, -1);
    waitpid(pid, NULL, 0);

    qsort(t, REPS, sizeof t[0], cmp_double);
    double med_us = t[REPS / 2] * 1e6;
    printf("%.3f %s\n", med_us, med_us < threshold_us ? "near" : med_us < busy_us ? "far" : "busy");
    if (verbose)
        fprintf(stderr, "floor: min %.3f median %.3f max %.3f us one way\n", t[0] * 1e6, med_us,
                t[REPS - 1] * 1e6);
    return 0;
}
