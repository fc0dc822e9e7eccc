/*
 * toyrt.h: a toy managed runtime for testing Canal's MPIX extension for
 * garbage-collected runtimes (mpi_ext.h). Header-only; one runtime per
 * process, single-threaded (the thread that calls MPI is the mutator).
 *
 * Objects live in a semispace heap: a ring of TOY_NSPACES spaces, one of
 * them current (allocation bumps a pointer in it). A collection copies every
 * live object that is not pinned into a fresh space, overwrites the old copy
 * with a poison pattern and takes the old pages away (PROT_NONE) once
 * nothing live remains on them, so a stale address used by Canal faults at
 * once (reported by a SIGSEGV handler) instead of silently reading garbage.
 * Evacuated spaces stay in quarantine for a few collections before reuse.
 * Collections are triggered by allocation pressure, by the safepoint hook
 * Canal calls while a thread waits inside MPI, and explicitly (toy_collect).
 *
 * Old objects (TOY_OLD, or allocations made where no collection may run)
 * live outside the semispaces and never move: can_move says so, and Canal
 * must not pin them.
 *
 * Checks made by the runtime itself (counted in toy.errors):
 *  - at every collection, every reference Canal reports with its address
 *    held (MPIX_Managed_inflight) must be pinned or immovable; otherwise
 *    the collector would move an object while Canal reads or writes it;
 *  - a pinned object is never moved; an unpin must match an earlier pin;
 *  - toy_finish_checks(): every pin was matched by an unpin, and Canal
 *    reports no operation in flight.
 * In MPIX_MANAGED_RUNTIME_UNPINS mode the collector reconciles the pins
 * Canal made with what MPIX_Managed_inflight still lists (Motor's
 * protocol) instead of receiving unpins.
 */
#ifndef CANAL_TEST_TOYRT_H
#define CANAL_TEST_TOYRT_H

#include <mpi.h>
#include <mpi_ext.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TOY_MAX_OBJS 8192
#define TOY_NSPACES 16
#define TOY_QUARANTINE 2
#define TOY_POISON 0xDB

enum { TOY_OLD = 1, TOY_NOGC = 2 };
enum { SPACE_FREE = 0, SPACE_CUR, SPACE_RETAINED, SPACE_QUARANTINE };

typedef struct toy_obj {
    char *addr; /* current address, NULL when dead */
    size_t size;
    int space;      /* semispace index, -1 for old (non-moving) objects */
    int pins;       /* outstanding pins (Canal's and the test's) */
    int canal_pins; /* RUNTIME_UNPINS mode: pins Canal made and not yet reconciled */
    long moves;     /* times the collector moved the object */
} toy_obj_t;

typedef struct {
    char *base;
    size_t size, top;
    int state;
    long evacuated_at; /* collection number, for the quarantine */
} toy_space_t;

static struct {
    int rank;
    size_t space_size;
    size_t pagesize;
    toy_space_t spaces[TOY_NSPACES];
    int cur;
    toy_obj_t objs[TOY_MAX_OBJS];
    int free_hint;
    int runtime_unpins; /* MPIX_MANAGED_RUNTIME_UNPINS mode */
    int collect_every;  /* a safepoint collects every Nth time (0: never) */
    int refuse_pins;    /* pin hook refuses every Nth pin (0: never) */
    int in_collect;
    void (*collect_fn)(void); /* what allocation pressure calls (default toy_collect) */
    long collections, collections_skipped, moved, pins, unpins, refused, safepoints;
    long errors;
    long pin_calls;
} toy;

#define TOY_ERR(...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "[rank %d] toyrt: ", toy.rank);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        toy.errors++;                                                                              \
    } while (0)

/* ---------------------------------------------------------------- faults */
static void toy_segv(int sig, siginfo_t *si, void *uctx)
{
    char msg[200];
    uintptr_t a = (uintptr_t)si->si_addr;
    int n, which = -1;
    (void)uctx;
    for (int i = 0; i < TOY_NSPACES; i++)
        if (a >= (uintptr_t)toy.spaces[i].base &&
            a < (uintptr_t)toy.spaces[i].base + toy.space_size)
            which = i;
    n = snprintf(msg, sizeof msg,
                 "[rank %d] toyrt: FATAL: signal %d at %p%s (space %d): a stale address of a "
                 "moved object was used\n",
                 toy.rank, sig, si->si_addr, which >= 0 ? " in the managed heap" : "", which);
    if (n > 0)
        (void)!write(2, msg, (size_t)n);
    _exit(99);
}

/* ---------------------------------------------------------------- hooks */
static void *toy_resolve(MPIX_Ref ref, void *rt)
{
    toy_obj_t *o = ref;
    (void)rt;
    if (o < toy.objs || o >= toy.objs + TOY_MAX_OBJS)
        return NULL;
    return o->addr;
}

static MPI_Aint toy_size(MPIX_Ref ref, void *rt)
{
    toy_obj_t *o = ref;
    (void)rt;
    return o->addr ? (MPI_Aint)o->size : -1;
}

static int toy_can_move(MPIX_Ref ref, void *rt)
{
    (void)rt;
    return ((toy_obj_t *)ref)->space >= 0;
}

static int toy_pin(MPIX_Ref ref, void *rt)
{
    toy_obj_t *o = ref;
    (void)rt;
    if (toy.in_collect)
        TOY_ERR("pin called while the collector runs");
    toy.pin_calls++;
    if (toy.refuse_pins > 0 && toy.pin_calls % toy.refuse_pins == 0) {
        toy.refused++;
        return 1;
    }
    if (o->addr == NULL)
        TOY_ERR("pin of dead object %ld", (long)(o - toy.objs));
    o->pins++;
    o->canal_pins++;
    toy.pins++;
    return 0;
}

static void toy_unpin(MPIX_Ref ref, void *rt)
{
    toy_obj_t *o = ref;
    (void)rt;
    if (toy.in_collect)
        TOY_ERR("unpin called while the collector runs");
    if (o->pins <= 0 || o->canal_pins <= 0) {
        TOY_ERR("unpin of object %ld that Canal did not pin", (long)(o - toy.objs));
        return;
    }
    o->pins--;
    o->canal_pins--;
    toy.unpins++;
}

static void toy_collect(void);

static void toy_safepoint(void *rt)
{
    (void)rt;
    toy.safepoints++;
    if (toy.collect_every > 0 && toy.safepoints % toy.collect_every == 0)
        toy_collect();
}

/* ---------------------------------------------------------------- heap */
static void toy_protect(char *p, size_t len, int prot)
{
    if (len > 0 && mprotect(p, len, prot) != 0) {
        TOY_ERR("mprotect(%p, %zu) failed", (void *)p, len);
        abort();
    }
    if (len > 0 && prot == PROT_NONE)
        madvise(p, len, MADV_DONTNEED); /* give the memory back; it reads as zeros later */
}

/* Register the runtime's hooks with Canal (MPIX_MANAGED_* flags). */
static int toy_register(int flags)
{
    MPIX_Managed_hooks h;
    toy.runtime_unpins = (flags & MPIX_MANAGED_RUNTIME_UNPINS) != 0;
    memset(&h, 0, sizeof h);
    h.version = MPIX_MANAGED_VERSION;
    h.flags = flags;
    h.resolve = toy_resolve;
    h.size = toy_size;
    h.can_move = toy_can_move;
    h.pin = toy_pin;
    h.unpin = toy.runtime_unpins ? NULL : toy_unpin;
    h.safepoint = toy_safepoint;
    h.rt = &toy;
    h.safepoint_interval = 16;
    return MPIX_Managed_register(&h);
}

/* Set up the heap (space_size bytes per semispace) and register the hooks. */
static int toy_init(size_t space_size, int flags)
{
    struct sigaction sa;

    MPI_Comm_rank(MPI_COMM_WORLD, &toy.rank);
    toy.pagesize = (size_t)sysconf(_SC_PAGESIZE);
    toy.space_size = (space_size + toy.pagesize - 1) / toy.pagesize * toy.pagesize;
    for (int i = 0; i < TOY_NSPACES; i++) {
        void *p = mmap(NULL, toy.space_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("toyrt: mmap");
            exit(2);
        }
        toy.spaces[i].base = p;
        toy.spaces[i].state = SPACE_FREE;
        toy.spaces[i].size = toy.space_size;
    }
    toy.cur = 0;
    toy.spaces[0].state = SPACE_CUR;
    toy_protect(toy.spaces[0].base, toy.space_size, PROT_READ | PROT_WRITE);
    toy.collect_every = 1;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = toy_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);

    return toy_register(flags);
}

static char *toy_bump(size_t size)
{
    toy_space_t *s = &toy.spaces[toy.cur];
    size_t need = (size + 15) & ~(size_t)15;
    char *p;
    if (need == 0)
        need = 16;
    if (s->top + need > s->size)
        return NULL;
    p = s->base + s->top;
    s->top += need;
    return p;
}

static toy_obj_t *toy_slot(void)
{
    for (int k = 0; k < TOY_MAX_OBJS; k++) {
        int i = (toy.free_hint + k) % TOY_MAX_OBJS;
        if (toy.objs[i].addr == NULL) {
            toy.free_hint = i + 1;
            return &toy.objs[i];
        }
    }
    return NULL;
}

/* A new object of `size` bytes (zeroed). May collect (unless TOY_NOGC). */
static toy_obj_t *toy_alloc(size_t size, int flags)
{
    toy_obj_t *o = toy_slot();
    char *p = NULL;
    if (o == NULL) {
        TOY_ERR("out of object slots");
        return NULL;
    }
    if (!(flags & TOY_OLD)) {
        p = toy_bump(size);
        if (p == NULL && !(flags & TOY_NOGC)) {
            if (toy.collect_fn != NULL)
                toy.collect_fn(); /* allocation pressure */
            else
                toy_collect();
            p = toy_bump(size);
        }
    }
    if (p != NULL) {
        o->space = toy.cur;
    } else {
        if (!(flags & (TOY_OLD | TOY_NOGC)))
            TOY_ERR("heap exhausted allocating %zu bytes", size);
        p = malloc(size ? size : 1); /* old generation: never moves */
        o->space = -1;
    }
    memset(p, 0, size);
    o->addr = p;
    o->size = size;
    o->pins = o->canal_pins = 0;
    o->moves = 0;
    return o;
}

static void toy_free(toy_obj_t *o)
{
    if (o == NULL || o->addr == NULL)
        return;
    if (o->pins > 0 && !toy.runtime_unpins)
        TOY_ERR("object %ld freed while pinned %d times", (long)(o - toy.objs), o->pins);
    if (o->space < 0)
        free(o->addr);
    o->addr = NULL;
}

/* Protect the pages of space s that hold no live object. */
static void toy_protect_dead_pages(int si)
{
    toy_space_t *s = &toy.spaces[si];
    size_t npages = toy.space_size / toy.pagesize;
    unsigned char *live = calloc(npages, 1);
    for (int i = 0; i < TOY_MAX_OBJS; i++) {
        toy_obj_t *o = &toy.objs[i];
        size_t a, z;
        if (o->addr == NULL || o->space != si)
            continue;
        a = (size_t)(o->addr - s->base) / toy.pagesize;
        z = ((size_t)(o->addr - s->base) + (o->size ? o->size : 1) - 1) / toy.pagesize;
        for (size_t p = a; p <= z && p < npages; p++)
            live[p] = 1;
    }
    for (size_t p = 0; p < npages;) {
        size_t q = p;
        if (live[p]) {
            p++;
            continue;
        }
        while (q < npages && !live[q])
            q++;
        toy_protect(s->base + p * toy.pagesize, (q - p) * toy.pagesize, PROT_NONE);
        p = q;
    }
    free(live);
}

/* What Canal holds must not move: check with the collector's query, and in
 * RUNTIME_UNPINS mode release the pins Canal no longer needs. */
static void toy_check_inflight(void)
{
    static MPIX_Ref_use uses[4096];
    int n = 0;
    MPIX_Managed_inflight(4096, uses, &n);
    if (n > 4096) {
        TOY_ERR("more than 4096 references in flight");
        n = 4096;
    }
    for (int i = 0; i < n; i++) {
        toy_obj_t *o = uses[i].ref;
        if (o < toy.objs || o >= toy.objs + TOY_MAX_OBJS || o->addr == NULL) {
            TOY_ERR("MPIX_Managed_inflight lists an unknown or dead reference %p", uses[i].ref);
            continue;
        }
        if ((uses[i].flags & MPIX_REF_ADDRESS_HELD) && o->space >= 0 && o->pins == 0)
            TOY_ERR("object %ld (%zu bytes): Canal holds its address but it is not pinned; the "
                    "collector would move it under Canal",
                    (long)(o - toy.objs), o->size);
        if ((uses[i].flags & MPIX_REF_PINNED) && o->pins == 0)
            TOY_ERR("object %ld: Canal says it is pinned but the runtime has no pin",
                    (long)(o - toy.objs));
    }
    if (toy.runtime_unpins) {
        /* Motor's protocol: after marking, keep exactly the pins still listed. */
        static int listed[TOY_MAX_OBJS];
        memset(listed, 0, sizeof listed);
        for (int i = 0; i < n; i++)
            if (uses[i].flags & MPIX_REF_PINNED)
                listed[(toy_obj_t *)uses[i].ref - toy.objs]++;
        for (int i = 0; i < TOY_MAX_OBJS; i++) {
            toy_obj_t *o = &toy.objs[i];
            if (o->canal_pins > listed[i]) {
                int drop = o->canal_pins - listed[i];
                o->canal_pins -= drop;
                o->pins -= drop;
                toy.unpins += drop;
            } else if (o->canal_pins < listed[i]) {
                TOY_ERR("object %d: Canal lists %d pins but made %d", i, listed[i], o->canal_pins);
            }
        }
    }
}

static void toy_collect(void)
{
    int to = -1, old[TOY_NSPACES], nold = 0;

    if (toy.in_collect)
        return;
    toy_check_inflight();
    toy.in_collect = 1;
    for (int k = 1; k <= TOY_NSPACES && to < 0; k++) {
        int i = (toy.cur + k) % TOY_NSPACES;
        toy_space_t *s = &toy.spaces[i];
        if (s->state == SPACE_FREE ||
            (s->state == SPACE_QUARANTINE && toy.collections - s->evacuated_at >= TOY_QUARANTINE))
            to = i;
    }
    if (to < 0) {
        toy.collections_skipped++; /* every space still holds pinned objects */
        toy.in_collect = 0;
        return;
    }
    toy_protect(toy.spaces[to].base, toy.space_size, PROT_READ | PROT_WRITE);
    toy.spaces[to].top = 0;
    for (int i = 0; i < TOY_NSPACES; i++)
        if (toy.spaces[i].state == SPACE_CUR || toy.spaces[i].state == SPACE_RETAINED)
            old[nold++] = i;
    toy.spaces[to].state = SPACE_CUR;
    toy.cur = to;
    for (int i = 0; i < TOY_MAX_OBJS; i++) {
        toy_obj_t *o = &toy.objs[i];
        char *p;
        if (o->addr == NULL || o->space < 0 || o->space == to || o->pins > 0)
            continue;
        p = toy_bump(o->size);
        if (p == NULL)
            continue; /* to-space full: the object stays, its space is retained */
        memcpy(p, o->addr, o->size);
        memset(o->addr, TOY_POISON, o->size);
        o->addr = p;
        o->space = to;
        o->moves++;
        toy.moved++;
    }
    for (int k = 0; k < nold; k++) {
        int si = old[k], left = 0;
        for (int i = 0; i < TOY_MAX_OBJS && !left; i++)
            left = toy.objs[i].addr != NULL && toy.objs[i].space == si;
        if (left) {
            toy.spaces[si].state = SPACE_RETAINED;
            toy_protect_dead_pages(si);
        } else {
            toy.spaces[si].state = SPACE_QUARANTINE;
            toy.spaces[si].evacuated_at = toy.collections;
            toy_protect(toy.spaces[si].base, toy.space_size, PROT_NONE);
        }
    }
    toy.collections++;
    toy.in_collect = 0;
}

/* ---------------------------------------------------------------- data patterns */
static unsigned char toy_pattern(unsigned seed, size_t i)
{
    uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u + (uint32_t)(i >> 8) * 977u;
    return (unsigned char)(x >> 13);
}

static void toy_fill(toy_obj_t *o, size_t off, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        o->addr[off + i] = (char)toy_pattern(seed, i);
}

/* Number of wrong bytes (and reports the first). */
static long toy_verify(toy_obj_t *o, size_t off, size_t len, unsigned seed, const char *what)
{
    long bad = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char want = toy_pattern(seed, i), got = (unsigned char)o->addr[off + i];
        if (got != want) {
            if (bad == 0)
                fprintf(stderr,
                        "[rank %d] toyrt: %s: byte %zu of %zu is %#x, expected %#x (object "
                        "moved %ld times)\n",
                        toy.rank, what, i, len, got, want, o->moves);
            bad++;
        }
    }
    return bad;
}

/* Every pin matched by an unpin, nothing in flight; returns the error count. */
static long toy_finish_checks(void)
{
    MPIX_Managed_stats st;
    int n = -1;
    if (toy.runtime_unpins)
        toy_collect(); /* the reconciliation releases the last pins */
    for (int i = 0; i < TOY_MAX_OBJS; i++)
        if (toy.objs[i].canal_pins != 0)
            TOY_ERR("object %d still has %d pins from Canal", i, toy.objs[i].canal_pins);
    if (toy.pins != toy.unpins)
        TOY_ERR("%ld pins but %ld unpins", toy.pins, toy.unpins);
    MPIX_Managed_inflight(0, NULL, &n);
    if (n != 0)
        TOY_ERR("MPIX_Managed_inflight still lists %d references", n);
    MPIX_Managed_stats_get(&st);
    if (st.inflight != 0)
        TOY_ERR("%lld operations still in flight", st.inflight);
    if (!toy.runtime_unpins && st.pins != st.unpins)
        TOY_ERR("Canal made %lld pins and %lld unpins", st.pins, st.unpins);
    return toy.errors;
}

static void toy_report(const char *name)
{
    MPIX_Managed_stats st;
    if (getenv("TOYRT_VERBOSE") == NULL)
        return;
    MPIX_Managed_stats_get(&st);
    fprintf(stderr,
            "[rank %d] %s: %ld collections (%ld skipped), %ld moves, %ld safepoints; canal: %lld "
            "ops, %lld pins (%lld deferred), %lld avoided, %lld copies, %lld safepoints skipped\n",
            toy.rank, name, toy.collections, toy.collections_skipped, toy.moved, toy.safepoints,
            st.ops, st.pins, st.deferred_pins, st.pins_avoided, st.copies, st.safepoints_skipped);
}

#endif
