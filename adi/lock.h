/*
 * The device's mutex in locked mode (MPI_THREAD_MULTIPLE): one 32-bit word,
 * 0 free, 1 held, 2 held with maybe a thread asleep on it (a futex, as in
 * Drepper's "Futexes Are Tricky", mutex 2). Taking a free lock is one
 * compare-and-swap and releasing it one exchange, inline, where glibc's
 * pthread_mutex_lock/unlock are calls of 30-40 instructions that check the
 * mutex's type, record the owner and count users; with one thread in the
 * library (mpi4py initializes with MPI_THREAD_MULTIPLE) those were a fifth
 * of a message's instructions. A contended lock sleeps at once, like
 * glibc's default mutex: no spinning against the holder for a CPU.
 * The device lock is recursive on top of it (device.c).
 */
#ifndef CANAL_ADI_LOCK_H
#define CANAL_ADI_LOCK_H

#include <stdint.h>

typedef struct {
    uint32_t state;
} adi_mutex_t;

/* Zeroed memory is a free mutex too. */
#define ADI_MUTEX_INIT {0}

/* device.c: the slow paths (a futex wait until taken; waking one sleeper). */
void adi_mutex_wait(adi_mutex_t *m);
void adi_mutex_wake(adi_mutex_t *m);

static inline void adi_mutex_init(adi_mutex_t *m)
{
    __atomic_store_n(&m->state, 0, __ATOMIC_RELAXED);
}

/* 1 when taken. */
static inline int adi_mutex_try(adi_mutex_t *m)
{
    uint32_t free_state = 0;
    return __atomic_compare_exchange_n(&m->state, &free_state, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

static inline void adi_mutex_take(adi_mutex_t *m)
{
    if (!adi_mutex_try(m))
        adi_mutex_wait(m);
}

static inline void adi_mutex_drop(adi_mutex_t *m)
{
    if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) == 2)
        adi_mutex_wake(m);
}

#endif
