/*
 * The monotonic clock (CLOCK_MONOTONIC: never jumps with the wall clock),
 * in the units its users count in: deadlines and timeouts in seconds or
 * milliseconds, spin policies in microseconds, MPI_T timers in nanoseconds.
 */
#ifndef CANAL_COMMON_CLOCK_H
#define CANAL_COMMON_CLOCK_H

#include <stdint.h>

double common_now_s(void);
int64_t common_now_ms(void);
int64_t common_now_us(void);
uint64_t common_now_ns(void);
/* CLOCK_MONOTONIC_COARSE in seconds: cheaper, a few ms coarse; for timers
 * looked at on every progress call. */
double common_now_coarse_s(void);

#endif
