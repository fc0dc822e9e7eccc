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
 *
 * The bias: even uncontended, a locked compare-and-swap and exchange cost
 * tens of cycles each (a full barrier on x86), and with one thread in the
 * library a message paid 2 (a send) to 6 (a receive) of them. So the thread
 * that initialized MPI_THREAD_MULTIPLE owns the bias (adi_bias_owner):
 * it takes the device and context locks without any atomic read-modify-
 * write, only counting what it holds (adi_bias_held, a plain store, then a
 * compiler barrier and a look at adi_bias_revoking), and leaves the mutex
 * word 0, which is how its release knows the hold was biased. The first
 * other thread that takes one of these locks revokes the bias for good
 * (adi_bias_revoke, device.c): it sets adi_bias_revoking, issues
 * membarrier(PRIVATE_EXPEDITED) -- the owner's compiler barrier and that
 * system call make the pair of Dekker's (shm_ring.c uses the same pair) --
 * and waits until the owner holds nothing biased; from then on every
 * thread, the owner too, takes the mutex itself. Without membarrier, or
 * with CANAL_THREAD_BIAS=0, there is no bias.
 */
#ifndef CANAL_ADI_LOCK_H
#define CANAL_ADI_LOCK_H

#include <stdint.h>
#include <stdatomic.h>

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

/* The calling thread's id: the thread pointer where the compiler reads it
 * inline (x86-64 and AArch64: one instruction, unique per live thread, as
 * the TLS ABI makes it), else pthread_self() (a call into libc per
 * acquisition: a sixth of the lock's instructions at one thread). */
#if defined(__x86_64__) || defined(__aarch64__)
static inline uintptr_t adi_thread_self(void) { return (uintptr_t)__builtin_thread_pointer(); }
#else
#include <pthread.h>
static inline uintptr_t adi_thread_self(void) { return (uintptr_t)pthread_self(); }
#endif

/* The bias (above; device.c). */
extern uintptr_t adi_bias_owner; /* the biased thread, 0 when none */
extern unsigned adi_bias_held;   /* locks it holds biased (written by it alone) */
extern int adi_bias_revoking;    /* set once by the revoker, never cleared until adi_init */
void adi_bias_revoke(void);      /* end the bias; returns when no biased hold is left */

/* Take m for the bias owner without an atomic read-modify-write: 1, or 0
 * when there is no bias for the calling thread (another thread calling it
 * revokes the bias first). Inline, the common case of every lock below. */
static inline int adi_bias_take(void)
{
    uintptr_t owner = __atomic_load_n(&adi_bias_owner, __ATOMIC_RELAXED);
    unsigned held;

    if (__builtin_expect(owner == 0, 0))
        return 0;
    if (__builtin_expect(owner != adi_thread_self(), 0)) {
        adi_bias_revoke();
        return 0;
    }
    held = __atomic_load_n(&adi_bias_held, __ATOMIC_RELAXED);
    __atomic_store_n(&adi_bias_held, held + 1, __ATOMIC_RELAXED);
    atomic_signal_fence(memory_order_seq_cst); /* (the revoker's membarrier is the other half) */
    if (__builtin_expect(!__atomic_load_n(&adi_bias_revoking, __ATOMIC_RELAXED), 1))
        return 1;
    /* revoked meanwhile: the revoker waits for this count to fall */
    __atomic_store_n(&adi_bias_held, held, __ATOMIC_RELEASE);
    return 0;
}

/* adi_mutex_try / _take / _drop with the bias. A held mutex whose word is
 * 0 was taken biased (a mutex taken for real is 1 or 2 while held). */
static inline int adi_bmutex_try(adi_mutex_t *m)
{
    return adi_bias_take() || adi_mutex_try(m);
}

static inline void adi_bmutex_take(adi_mutex_t *m)
{
    if (!adi_bias_take())
        adi_mutex_take(m);
}

static inline void adi_bmutex_drop(adi_mutex_t *m)
{
    if (__atomic_load_n(&m->state, __ATOMIC_RELAXED) == 0) {
        __atomic_store_n(&adi_bias_held, __atomic_load_n(&adi_bias_held, __ATOMIC_RELAXED) - 1,
                         __ATOMIC_RELEASE);
        return;
    }
    adi_mutex_drop(m);
}

#endif
