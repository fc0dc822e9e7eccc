/*
 * common/clock.c: readings of the monotonic clock (see clock.h). One
 * clock_gettime call per reading; the units are conversions of it.
 */
#include "common/clock.h"

#include <time.h>

uint64_t common_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double common_now_s(void)
{
    return (double)common_now_ns() * 1e-9;
}

int64_t common_now_ms(void)
{
    return (int64_t)(common_now_ns() / 1000000u);
}

int64_t common_now_us(void)
{
    return (int64_t)(common_now_ns() / 1000u);
}

double common_now_coarse_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
