/*
 * Hang limits of the unit tests. No unit test asserts how fast anything is:
 * on a loaded machine a test only takes longer. A wait for something that
 * must happen counts as a hang after unit_hang_s() seconds (300 s, times
 * CANAL_TEST_TIMEOUT_SCALE when set); a fake_pmi job is killed after twice
 * that, and Check abandons one test after unit_case_timeout_s(). A channel
 * wait that must be woken (block()) is given a timeout longer than the hang
 * limit, so that a lost wake-up becomes a hang, and so a failure.
 * Header-only: included by the tests and test/unit/fake_pmi.c.
 */
#ifndef CANAL_TEST_UNIT_LIMITS_H
#define CANAL_TEST_UNIT_LIMITS_H

#include <stdlib.h>

static inline double unit_timeout_scale(void)
{
    const char *s = getenv("CANAL_TEST_TIMEOUT_SCALE");
    double f = s != NULL ? strtod(s, NULL) : 1.0;
    return f > 0 ? f : 1.0;
}

/* Seconds a wait may make no progress before the test calls it a hang. */
static inline double unit_hang_s(void)
{
    return 300.0 * unit_timeout_scale();
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
