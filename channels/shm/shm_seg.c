/*
 * The shm channel's segment: its layout, its name, creating it (lowest local
 * rank, from init), attaching to it (the others, from post_fence), and
 * removing the name as soon as everyone is attached. Between create and
 * unlink the creator keeps the path armed in signal handlers and an atexit
 * hook, so a crash in that window still leaves nothing in /dev/shm. Each
 * endpoint has its own name (the instance is part of it) and its own armed
 * slot, so two shm endpoints can live in one process.
 * Called only by channels/shm/shm.c.
 */
#include "channels/shm/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/log.h"

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Try the requested geometry; while the segment is over max_bytes, shrink
 * first the number of cells (down to 4, keeping max_payload), then the cell
 * size (down to 4 KiB), then cells to 2, then cell size to 1 KiB. */
canal_status_t ch_shm_layout_compute(int local_size, size_t payload_cap, size_t ncells,
                                     size_t max_bytes, ch_shm_layout_t *out)
{
    size_t pg = page_size();
    size_t L;

    if (out == NULL)
        return common_err_set(CANAL_ERR_ARG, "shm layout: out is NULL");
    if (local_size < 1 || local_size > 1 << 16)
        return common_err_set(CANAL_ERR_ARG, "shm layout: local_size %d outside 1..65536",
                              local_size);
    L = (size_t)local_size;
    if (payload_cap < 1024)
        payload_cap = 1024;
    if (payload_cap > (1u << 20))
        payload_cap = 1u << 20;
    payload_cap = round_up(payload_cap, 64);
    if (ncells < 2)
        ncells = 2;
    if (ncells > 1024)
        ncells = 1024;
    while (ncells & (ncells - 1)) /* a power of two: positions wrap cleanly */
        ncells &= ncells - 1;

    memset(out, 0, sizeof *out);
    for (;;) {
        size_t cell = round_up(SHM_CELL_HEAD + CH_HDR_MAX + payload_cap, SHM_LINE);
        size_t ring = sizeof(ch_shm_ring_ctl_t) + ncells * cell;
        size_t block = round_up(L * ring, pg);
        size_t slots_off = round_up(sizeof(ch_shm_seg_head_t), SHM_LINE);
        size_t rings_off = round_up(slots_off + L * sizeof(ch_shm_slot_t), pg);
        size_t total;

        if (__builtin_mul_overflow(L, block, &total) || total > SIZE_MAX - rings_off)
            return common_err_set(CANAL_ERR_LIMIT, "shm layout: segment for %d ranks overflows",
                                  local_size);
        total += rings_off;
        out->local_size = local_size;
        out->payload_cap = payload_cap;
        out->ncells = ncells;
        out->cell_stride = cell;
        out->ring_bytes = ncells * cell;
        out->ring_stride = ring;
        out->block_stride = block;
        out->slots_off = slots_off;
        out->rings_off = rings_off;
        out->seg_size = total;
        if (total <= max_bytes)
            return CANAL_OK;
        if (ncells > 4)
            ncells = ncells / 2 < 4 ? 4 : ncells / 2;
        else if (payload_cap > 4096)
            payload_cap = payload_cap / 2 < 4096 ? 4096 : round_up(payload_cap / 2, 64);
        else if (ncells > 2)
            ncells = 2;
        else if (payload_cap > 1024)
            payload_cap = payload_cap / 2 < 1024 ? 1024 : round_up(payload_cap / 2, 64);
        else {
            out->over_budget = 1;
            return CANAL_OK;
        }
    }
}

/* FNV-1a: the job id may be long and contain any bytes; the name must be
 * short and made of safe characters. */
static unsigned long long hash_str(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

void ch_shm_seg_name(const char *jobid, int node, long pid, const char *instance, char *out,
                     size_t len)
{
    /* An endpoint's instance name (letters, digits, '_') keeps a second
     * endpoint of the same process on its own segment. */
    snprintf(out, len, "/canal-%016llx-n%d-p%ld%s%s", hash_str(jobid != NULL ? jobid : ""), node,
             pid, instance != NULL && instance[0] != '\0' ? "-" : "",
             instance != NULL ? instance : "");
}

/* ---- crash cleanup between create and unlink ---------------------------- */

/* One slot per endpoint whose segment is created but not yet unlinked, so two
 * shm endpoints of one process each get their own path cleaned up. The
 * handlers are installed while at least one slot is armed. A slot's path is
 * written before its flag is set, so the handler never reads half a path. */
enum { SHM_ARMED_MAX = 8 };
static struct {
    char path[160];
    volatile sig_atomic_t armed;
} armed_slots[SHM_ARMED_MAX];
static int narmed;
static int atexit_done;
static const int cleanup_sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT,
                                   SIGBUS, SIGFPE, SIGSEGV, SIGTERM};
enum { NSIGS = sizeof cleanup_sigs / sizeof cleanup_sigs[0] };
static struct sigaction old_acts[NSIGS];
static int installed[NSIGS];

static void armed_unlink_all(void)
{
    for (int i = 0; i < SHM_ARMED_MAX; i++)
        if (armed_slots[i].armed) {
            armed_slots[i].armed = 0;
            unlink(armed_slots[i].path);
        }
}

/* Async-signal-safe: unlink() of precomputed paths, sigaction(), raise().
 * The old disposition is restored and the signal raised again; it is
 * delivered when this handler returns (a fault re-executes and faults). */
static void armed_signal(int sig)
{
    int saved = errno;
    armed_unlink_all();
    for (int i = 0; i < NSIGS; i++)
        if (cleanup_sigs[i] == sig && installed[i]) {
            sigaction(sig, &old_acts[i], NULL);
            installed[i] = 0;
        }
    raise(sig);
    errno = saved;
}

static void armed_atexit(void)
{
    armed_unlink_all();
}

static void handlers_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = armed_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIGS; i++) {
        struct sigaction cur;
        installed[i] = 0;
        /* Leave ignored signals ignored; chain to anything else. */
        if (sigaction(cleanup_sigs[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
            continue;
        if (sigaction(cleanup_sigs[i], &sa, &old_acts[i]) == 0)
            installed[i] = 1;
    }
}

static void handlers_remove(void)
{
    for (int i = 0; i < NSIGS; i++) {
        struct sigaction cur;
        if (!installed[i])
            continue;
        /* Someone may have installed their own handler since: keep it. */
        if (sigaction(cleanup_sigs[i], NULL, &cur) == 0 && cur.sa_handler == armed_signal)
            sigaction(cleanup_sigs[i], &old_acts[i], NULL);
        installed[i] = 0;
    }
}

/* Arm st's segment path; st->armed_slot remembers the slot (-1: none). */
static canal_status_t cleanup_arm(ch_shm_state_t *st)
{
    int slot = -1;

    for (int i = 0; i < SHM_ARMED_MAX && slot < 0; i++)
        if (!armed_slots[i].armed)
            slot = i;
    if (slot < 0)
        return common_err_set(CANAL_ERR_NOMEM,
                              "shm: %d segments of this process are between create and unlink; "
                              "cannot arm the clean-up of %s",
                              SHM_ARMED_MAX, st->name);
    snprintf(armed_slots[slot].path, sizeof armed_slots[slot].path, "/dev/shm%s", st->name);
    armed_slots[slot].armed = 1;
    st->armed_slot = slot;
    if (!atexit_done && atexit(armed_atexit) == 0)
        atexit_done = 1;
    if (narmed++ == 0)
        handlers_install();
    return CANAL_OK;
}

static void cleanup_disarm(ch_shm_state_t *st)
{
    if (st->armed_slot < 0)
        return;
    armed_slots[st->armed_slot].armed = 0;
    st->armed_slot = -1;
    if (--narmed == 0)
        handlers_remove();
}

/* ---- create / attach / unlink ------------------------------------------ */

static void head_fill(ch_shm_state_t *st)
{
    ch_shm_seg_head_t *h = (ch_shm_seg_head_t *)(void *)st->base;
    h->version = SHM_VERSION;
    h->local_size = (uint32_t)st->lay.local_size;
    h->payload_cap = st->lay.payload_cap;
    h->ncells = st->lay.ncells;
    h->cell_stride = st->lay.cell_stride;
    h->block_stride = st->lay.block_stride;
    h->seg_size = st->lay.seg_size;
    atomic_thread_fence(memory_order_release);
    h->magic = SHM_MAGIC;
}

canal_status_t ch_shm_seg_create(ch_shm_state_t *st)
{
    size_t size = st->lay.seg_size;
    int fd = -1;
    void *p;

    if (st->anon) {
        /* One rank on the node: no name, nothing to clean up. */
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return common_err_set(CANAL_ERR_NOMEM, "shm: mmap of %zu anonymous bytes: %s", size,
                                  strerror(errno));
        st->base = p;
        head_fill(st);
        return CANAL_OK;
    }

    for (int attempt = 0; attempt < 2 && fd < 0; attempt++) {
        fd = shm_open(st->name, O_RDWR | O_CREAT | O_EXCL, 0600);
        /* The pid in the name is ours and alive, so an existing segment is
         * the leftover of a dead process that had our pid: remove it. */
        if (fd < 0 && errno == EEXIST && attempt == 0)
            shm_unlink(st->name);
        else if (fd < 0)
            return common_err_set(CANAL_ERR_IO, "shm: shm_open(%s) to create the segment: %s",
                                  st->name, strerror(errno));
    }
    if (fd < 0)
        return common_err_set(CANAL_ERR_IO, "shm: cannot create %s", st->name);
    {
        canal_status_t arm_err = cleanup_arm(st);
        if (arm_err != CANAL_OK) {
            close(fd);
            shm_unlink(st->name);
            return arm_err;
        }
    }

    /* tmpfs hands out pages lazily; a full /dev/shm would turn into SIGBUS
     * on first touch, so check the space now (best effort: racy). Pages are
     * not preallocated so that each receiver's first touch places its rings. */
    struct statvfs vfs;
    if (statvfs("/dev/shm", &vfs) == 0 && vfs.f_bavail > 0 &&
        (unsigned long long)vfs.f_bavail * vfs.f_frsize < size) {
        canal_status_t st_err = common_err_set(
            CANAL_ERR_NOMEM,
            "shm: /dev/shm has %llu bytes free but the segment for %d ranks needs %zu; "
            "enlarge /dev/shm or lower CANAL_SHM_SEGMENT_MAX",
            (unsigned long long)vfs.f_bavail * vfs.f_frsize, st->lay.local_size, size);
        close(fd);
        shm_unlink(st->name);
        cleanup_disarm(st);
        return st_err;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        canal_status_t st_err = common_err_set(CANAL_ERR_IO, "shm: ftruncate(%s, %zu): %s",
                                               st->name, size, strerror(errno));
        close(fd);
        shm_unlink(st->name);
        cleanup_disarm(st);
        return st_err;
    }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        canal_status_t st_err = common_err_set(CANAL_ERR_NOMEM, "shm: mmap(%s, %zu): %s", st->name,
                                               size, strerror(errno));
        close(fd);
        shm_unlink(st->name);
        cleanup_disarm(st);
        return st_err;
    }
    close(fd);
    st->base = p;
    head_fill(st);
    return CANAL_OK;
}

canal_status_t ch_shm_seg_attach(ch_shm_state_t *st, const char *name)
{
    struct stat sb;
    const ch_shm_seg_head_t *h;
    canal_status_t err;
    void *p;
    int fd;

    snprintf(st->name, sizeof st->name, "%s", name);
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return common_err_set(CANAL_ERR_IO, "shm: shm_open(%s) to attach: %s", name,
                              strerror(errno));
    if (fstat(fd, &sb) != 0) {
        err = common_err_set(CANAL_ERR_IO, "shm: fstat(%s): %s", name, strerror(errno));
        close(fd);
        return err;
    }
    if ((size_t)sb.st_size != st->lay.seg_size) {
        err = common_err_set(CANAL_ERR_PROTO,
                             "shm: segment %s has %lld bytes, this rank expects %zu "
                             "(different CANAL_SHM_* settings across ranks?)",
                             name, (long long)sb.st_size, st->lay.seg_size);
        close(fd);
        return err;
    }
    p = mmap(NULL, st->lay.seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return common_err_set(CANAL_ERR_NOMEM, "shm: mmap(%s, %zu): %s", name, st->lay.seg_size,
                              strerror(errno));
    h = p;
    if (h->magic != SHM_MAGIC || h->version != SHM_VERSION ||
        h->local_size != (uint32_t)st->lay.local_size || h->payload_cap != st->lay.payload_cap ||
        h->ncells != st->lay.ncells || h->cell_stride != st->lay.cell_stride ||
        h->block_stride != st->lay.block_stride) {
        err = common_err_set(CANAL_ERR_PROTO,
                             "shm: segment %s was laid out for %u ranks, %llu cells of %llu B "
                             "(magic %#x version %u); this rank computed %d ranks, %zu cells of "
                             "%zu B: set the same CANAL_SHM_* variables on every rank",
                             name, h->local_size, (unsigned long long)h->ncells,
                             (unsigned long long)h->payload_cap, h->magic, h->version,
                             st->lay.local_size, st->lay.ncells, st->lay.payload_cap);
        munmap(p, st->lay.seg_size);
        return err;
    }
    atomic_thread_fence(memory_order_acquire);
    st->base = p;
    return CANAL_OK;
}

canal_status_t ch_shm_seg_unlink(ch_shm_state_t *st)
{
    if (st->anon || st->unlinked || !st->creator || st->name[0] == '\0')
        return CANAL_OK;
    st->unlinked = 1;
    if (shm_unlink(st->name) != 0 && errno != ENOENT) {
        int e = errno;
        cleanup_disarm(st);
        return common_err_set(CANAL_ERR_IO, "shm: shm_unlink(%s): %s", st->name, strerror(e));
    }
    cleanup_disarm(st);
    return CANAL_OK;
}

void ch_shm_seg_detach(ch_shm_state_t *st)
{
    if (st->creator && !st->anon && !st->unlinked && st->name[0] != '\0')
        ch_shm_seg_unlink(st);
    if (st->base != NULL)
        munmap(st->base, st->lay.seg_size);
    st->base = NULL;
}
