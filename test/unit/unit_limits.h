/*
 * Hang limits of the unit tests. No unit test asserts how fast anything is:
 * on a loaded machine a test only takes longer. A wait for something that
 * must happen counts as a hang after unit_hang_s() seconds: 300 s, times
 * max(1, load average / cores) as test/mpi/runtests.sh grows its limits (the
 * 1-minute load average, read again every 10 s), times
 * CANAL_TEST_TIMEOUT_SCALE when set. Waits for a stream restart that limit
 * at every arrival, so a slow stream is never a hang. A fake_pmi job is
 * killed after twice the limit, and Check abandons one test after
 * unit_case_timeout_s(). A channel
 * wait that must be woken (block()) is given a timeout longer than the hang
 * limit, so that a lost wake-up becomes a hang, and so a failure.
 * Header-only: included by the tests and test/unit/fake_pmi.c.
 */
#ifndef CANAL_TEST_UNIT_LIMITS_H
#define CANAL_TEST_UNIT_LIMITS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double unit_timeout_scale(void)
{
    const char *s = getenv("CANAL_TEST_TIMEOUT_SCALE");
    double f = s != NULL ? strtod(s, NULL) : 1.0;
    return f > 0 ? f : 1.0;
}

/* max(1, 1-minute load average / online CPUs): the share of a core a
 * process gets on a busy machine, as test/mpi/runtests.sh counts it. */
static inline double unit_load_factor(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double load = 0;

    if (f != NULL) {
        if (fscanf(f, "%lf", &load) != 1)
            load = 0;
        fclose(f);
    }
    return cores > 0 && load / (double)cores > 1 ? load / (double)cores : 1.0;
}

/* Seconds a wait may make no progress before the test calls it a hang.
 * Cheap enough for every turn of a wait loop: the load is read again only
 * when the last reading is 10 s old (per process and file). */
static inline double unit_hang_s(void)
{
    static double limit, read_at;
    struct timespec ts;
    double now;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    if (limit == 0 || now - read_at > 10) {
        limit = 300.0 * unit_load_factor() * unit_timeout_scale();
        read_at = now;
    }
    return limit;
}

/* A block() timeout (microseconds) beyond the hang limit. */
static inline long unit_block_forever_us(void)
{
    return (long)(2 * unit_hang_s() * 1e6);
}

/* Check's limit for one test (tcase_set_timeout). */
static inline double unit_case_timeout_s(void)
{
    return 3 * unit_hang_s() + 60;
}

#endif
