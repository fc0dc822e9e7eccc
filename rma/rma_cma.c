/*
 * Single-copy access to MPI_Win_create memory of processes on this node
 * (Cross Memory Attach: process_vm_readv/process_vm_writev into the
 * target's address space). At window creation every rank publishes its
 * pid, its window base and the address of a probe word; each rank reads
 * every peer's probe word, and only if all of them succeed on every rank
 * (an allreduce) does the window use CMA. The window then works like a
 * direct one (lock words, accumulate locks and the fence's barrier in a
 * small shared segment of slots, rma.c's seg_setup) except that the
 * target's bytes are reached with a system call instead of a load or a
 * store. CMA can be refused (Yama ptrace_scope, seccomp, different
 * credentials, CANAL_SHM_CMA=no, CANAL_RMA_CMA=0): the window then uses
 * active messages, as before. See doc/rma.md.
 */
#include "rma_impl.h"
#include "mpi/api_impl.h"

#include "common/cvar.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define RMA_CMA_PROBE 0x43414e414c524d41ull /* "CANALRMA" */
#define RMA_CMA_BATCH 64                    /* remote iovecs per system call */

static volatile uint64_t rma_cma_probe_word = RMA_CMA_PROBE;

/* Whether the settings allow CMA for windows at all. */
static int rma_cma_allowed(void)
{
    const char *v = common_cvar_find("SHM_CMA") >= 0 ? common_cvar_str("SHM_CMA") : NULL;
    int b = 1;

    if (!rma_cvar_bool("RMA_CMA", 1) || !rma_cvar_bool("RMA_DIRECT", 1))
        return 0;
    if (v != NULL && strcmp(v, "auto") != 0 && common_parse_bool(v, &b) == 0 && !b)
        return 0;
    return 1;
}

/* Move the bytes of n remote pieces to (write) or from the contiguous
 * local buffer; 0 or an errno value. riov is consumed. */
static int rma_cma_xfer(pid_t pid, int write, char *local, struct iovec *riov, size_t n)
{
    size_t i = 0;

    while (i < n) {
        size_t want = 0;
        for (size_t k = i; k < n; k++)
            want += riov[k].iov_len;
        if (want == 0)
            return 0;
        struct iovec liov = {local, want};
        ssize_t got = write ? process_vm_writev(pid, &liov, 1, riov + i, n - i, 0)
                            : process_vm_readv(pid, &liov, 1, riov + i, n - i, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (got == 0)
            return EFAULT;
        local += got;
        while (i < n && (got > 0 || riov[i].iov_len == 0)) {
            if (riov[i].iov_len <= (size_t)got) {
                got -= (ssize_t)riov[i].iov_len;
                i++;
            } else {
                riov[i].iov_base = (char *)riov[i].iov_base + got;
                riov[i].iov_len -= (size_t)got;
                got = 0;
            }
        }
    }
    return 0;
}

static canal_status_t rma_cma_status(rma_win_t *w, int t, int write, int e, size_t bytes)
{
    const char *call = write ? "process_vm_writev" : "process_vm_readv";
    if (e == ESRCH)
        return common_err_set(CANAL_ERR_PEER, "rma: rank %d of the window (pid %d) is gone", t,
                              w->pids[t]);
    return common_err_set(e == ENOMEM ? CANAL_ERR_NOMEM : CANAL_ERR_IO,
                          "rma: %s of %zu bytes %s rank %d (pid %d) failed: %s", call, bytes,
                          write ? "to" : "from", t, w->pids[t], strerror(e));
}

/* The packed bytes at data/out to or from the layout l at the remote
 * address raddr of rank t. */
static canal_status_t rma_cma_layout(rma_win_t *w, int t, int write, char *raddr,
                                     const rma_layout_t *l, char *local)
{
    struct iovec riov[RMA_CMA_BATCH];
    size_t j = 0;

    while (j < l->n) {
        size_t n = 0, bytes = 0;
        for (; j < l->n && n < RMA_CMA_BATCH; j++) {
            if (l->b[j].len == 0)
                continue;
            riov[n].iov_base = raddr + l->b[j].off;
            riov[n].iov_len = l->b[j].len;
            bytes += l->b[j].len;
            n++;
        }
        int e = rma_cma_xfer((pid_t)w->pids[t], write, local, riov, n);
        if (e != 0)
            return rma_cma_status(w, t, write, e, bytes);
        local += bytes;
    }
    return CANAL_OK;
}

canal_status_t rma_cma_write(rma_win_t *w, int t, char *raddr, const rma_layout_t *l,
                             const void *data)
{
    return rma_cma_layout(w, t, 1, raddr, l, (char *)data);
}

canal_status_t rma_cma_read(rma_win_t *w, int t, char *raddr, const rma_layout_t *l, void *out)
{
    return rma_cma_layout(w, t, 0, raddr, l, out);
}

canal_status_t rma_cma_copy(rma_win_t *w, int t, int write, char *raddr, void *local, size_t len)
{
    struct iovec riov = {raddr, len};
    int e = rma_cma_xfer((pid_t)w->pids[t], write, local, &riov, 1);
    return e == 0 ? CANAL_OK : rma_cma_status(w, t, write, e, len);
}

int rma_cma_enqueue(rma_win_t *w, int t, int write, char *raddr, void *local, size_t len)
{
    rma_cma_pending_t *q;
    int ref = !write || len > RMA_CMA_QUEUE_MAX_BYTES; /* the user's buffer until moved */

    if (len > RMA_CMA_REF_MAX || mpi_thread_level == MPI_THREAD_MULTIPLE)
        return 0;
    if (w->cq == NULL) {
        w->cq = calloc(RMA_CMA_QUEUE, sizeof *w->cq);
        w->cq_stage = malloc(RMA_CMA_STAGE);
        if (w->cq == NULL || w->cq_stage == NULL) {
            free(w->cq);
            free(w->cq_stage);
            w->cq = NULL;
            w->cq_stage = NULL;
            return 0; /* then at once */
        }
    }
    if (w->ncq == RMA_CMA_QUEUE || (!ref && w->cq_staged + len > RMA_CMA_STAGE))
        rma_cma_drain(w);
    q = &w->cq[w->ncq++];
    w->ncq_ref += ref;
    q->remote = raddr;
    if (!ref) {
        memcpy(w->cq_stage + w->cq_staged, local, len);
        local = w->cq_stage + w->cq_staged;
        w->cq_staged += (len + 15) & ~(size_t)15;
    }
    q->local = local;
    q->len = len;
    q->t = t;
    q->kind = write ? RMA_CMA_PUT : RMA_CMA_GET;
    return 1;
}

int rma_cma_enqueue_acc(rma_win_t *w, int t, char *raddr, const void *local, size_t len, dt_op_t op,
                        dt_builtin_t basic)
{
    if (len > RMA_CMA_QUEUE_MAX_BYTES || !rma_cma_enqueue(w, t, 1, raddr, (void *)local, len))
        return 0;
    w->cq[w->ncq - 1].kind = RMA_CMA_ACC;
    w->cq[w->ncq - 1].op = (int)op;
    w->cq[w->ncq - 1].basic = (int)basic;
    w->ncq_ref++; /* MPI_Win_flush_local moves it too (rma_cma_queued_refs) */
    return 1;
}

/* One accumulate, alone: lock, read, apply, write, unlock. */
static canal_status_t rma_cma_acc_one(rma_win_t *w, const rma_cma_pending_t *e)
{
    char buf[RMA_CMA_QUEUE_MAX_BYTES] __attribute__((aligned(64)));
    rma_layout_t l;
    canal_status_t st;

    rma_layout_one(&l, e->len);
    rma_acc_lock(w, e->t);
    st = rma_cma_copy(w, e->t, 0, e->remote, buf, e->len);
    if (st == CANAL_OK)
        st = rma_apply_acc(buf, &l, e->local, (dt_op_t)e->op, (dt_builtin_t)e->basic);
    if (st == CANAL_OK)
        st = rma_cma_copy(w, e->t, 1, e->remote, buf, e->len);
    rma_acc_unlock(w, e->t);
    return st;
}

/* A run of n queued accumulates toward one target (see
 * rma_cma_enqueue_acc); 0 when their span is too wide or cannot be read
 * whole (the caller does them one by one). */
static int rma_cma_acc_run(rma_win_t *w, rma_cma_pending_t *a, int n, canal_status_t *st_out)
{
    char buf[RMA_CMA_ACC_SPAN] __attribute__((aligned(64)));
    struct iovec liov[RMA_CMA_QUEUE], riov[RMA_CMA_QUEUE];
    int idx[RMA_CMA_QUEUE], m = 0;
    char *lo = a[0].remote, *hi = a[0].remote + a[0].len;
    rma_layout_t l;
    canal_status_t st;

    for (int k = 1; k < n; k++) {
        if (a[k].remote < lo)
            lo = a[k].remote;
        if (a[k].remote + a[k].len > hi)
            hi = a[k].remote + a[k].len;
    }
    if ((size_t)(hi - lo) > sizeof buf)
        return 0;
    /* the bytes to write back: the entries' ranges by address, merged */
    for (int k = 0; k < n; k++) {
        int j = k;
        while (j > 0 && a[idx[j - 1]].remote > a[k].remote) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = k;
    }
    for (int k = 0; k < n; k++) {
        char *b = a[idx[k]].remote, *e = b + a[idx[k]].len;
        if (m > 0 && b <= (char *)riov[m - 1].iov_base + riov[m - 1].iov_len) {
            char *end = (char *)riov[m - 1].iov_base + riov[m - 1].iov_len;
            if (e > end)
                riov[m - 1].iov_len += (size_t)(e - end);
            continue;
        }
        riov[m].iov_base = b;
        riov[m].iov_len = (size_t)(e - b);
        m++;
    }
    for (int k = 0; k < m; k++) {
        liov[k].iov_base = buf + ((char *)riov[k].iov_base - lo);
        liov[k].iov_len = riov[k].iov_len;
    }
    rma_acc_lock(w, a[0].t);
    st = rma_cma_copy(w, a[0].t, 0, lo, buf, (size_t)(hi - lo));
    if (st != CANAL_OK) { /* (the covering range may cross a hole between two
                           * regions of a dynamic window: one by one then) */
        rma_acc_unlock(w, a[0].t);
        return 0;
    }
    for (int k = 0; k < n && st == CANAL_OK; k++) {
        rma_layout_one(&l, a[k].len);
        st = rma_apply_acc(buf + (a[k].remote - lo), &l, a[k].local, (dt_op_t)a[k].op,
                           (dt_builtin_t)a[k].basic);
    }
    if (st == CANAL_OK) {
        size_t total = 0, done;
        ssize_t got;
        for (int k = 0; k < m; k++)
            total += riov[k].iov_len;
        got = process_vm_writev((pid_t)w->pids[a[0].t], liov, (unsigned long)m, riov,
                                (unsigned long)m, 0);
        done = got > 0 ? (size_t)got : 0;
        for (int k = 0; k < m && st == CANAL_OK && got != (ssize_t)total; k++) {
            if (done >= riov[k].iov_len) {
                done -= riov[k].iov_len;
                continue;
            }
            st = rma_cma_copy(w, a[0].t, 1, (char *)riov[k].iov_base + done,
                              (char *)liov[k].iov_base + done, riov[k].iov_len - done);
            done = 0;
        }
    }
    rma_acc_unlock(w, a[0].t);
    *st_out = st;
    return 1;
}

static int rma_mbox_try(rma_win_t *w, const rma_cma_pending_t *e, canal_status_t *st_out);
static int rma_mbox_vec(rma_win_t *w, int i, int n, int *end, canal_status_t *st_out);

/* A queued operation toward t failed with st: kept for the window's next
 * synchronization call. A target that is gone (the kernel's ESRCH, or the
 * device knows it failed) is MPIX_ERR_PROC_FAILED, as the synchronization
 * would raise it had the operation been moved at the call (ULFM). */
static void rma_cma_late(rma_win_t *w, int t, canal_status_t st)
{
    int cls = st == CANAL_ERR_PEER || adi_peer_failed(w->job[t]) ? MPIX_ERR_PROC_FAILED
                                                                   : MPI_ERR_OTHER;
    adi_lock();
    if (w->late_err == MPI_SUCCESS) {
        w->late_err = cls;
        snprintf(w->late_msg, sizeof w->late_msg, "a put or get toward rank %d failed: %s", t,
                 common_err_detail());
    }
    adi_unlock();
}

/* rma_cma_drain's record of an operation toward t that ended with st: a
 * failure is kept for the window (rma_cma_late) and the first one for the
 * drain's answer. */
static void rma_cma_note(rma_win_t *w, int t, canal_status_t st, canal_status_t *first)
{
    if (st == CANAL_OK)
        return;
    rma_cma_late(w, t, st);
    if (*first == CANAL_OK)
        *first = st;
}

/* A run of queued gets from one target starting at entry i whose bytes lie
 * within RMA_CMA_ACC_SPAN: one read of the range that covers them (the
 * kernel pins each remote piece separately, so 64 gets of one page cost 64
 * pins; reading extra bytes is harmless) and a copy to each origin buffer --
 * when the run has more gets than the range has pages: two gets of 4 KiB
 * side by side gain nothing from it, and it would cut a run of 64 such
 * gets (OSU's get_bw) into 32 system calls where the caller makes one.
 * Returns 1 and *end if done; 0 leaves the run to the caller. */
static int rma_cma_get_run(rma_win_t *w, int i, int n, int *end)
{
    char buf[RMA_CMA_ACC_SPAN] __attribute__((aligned(64)));
    rma_cma_pending_t *a = &w->cq[i];
    char *lo = a->remote, *hi = a->remote + a->len;
    int j = i + 1;

    int pieces = 1; /* remote pieces once side-by-side gets are joined (rma_cma_drain) */

    for (; j < n && w->cq[j].t == a->t && w->cq[j].kind == RMA_CMA_GET; j++) {
        char *b = w->cq[j].remote < lo ? w->cq[j].remote : lo;
        char *e = w->cq[j].remote + w->cq[j].len > hi ? w->cq[j].remote + w->cq[j].len : hi;
        if ((size_t)(e - b) > sizeof buf)
            break;
        lo = b;
        hi = e;
        pieces += w->cq[j].remote != w->cq[j - 1].remote + w->cq[j - 1].len;
    }
    if (j - i < 2 || (size_t)pieces <= (size_t)(hi - lo) / 4096 + 1 ||
        rma_cma_copy(w, a->t, 0, lo, buf, (size_t)(hi - lo)) != CANAL_OK)
        return 0; /* (one get, or a failure: the caller does it piece by piece) */
    for (int k = i; k < j; k++)
        memcpy(w->cq[k].local, buf + (w->cq[k].remote - lo), w->cq[k].len);
    *end = j;
    return 1;
}

canal_status_t rma_cma_drain(rma_win_t *w)
{
    canal_status_t first = CANAL_OK;
    int i = 0, n = w->ncq;

    w->ncq = 0;
    w->ncq_ref = 0;
    w->cq_staged = 0; /* (read below before anything is staged again) */
    while (i < n) {
        struct iovec liov[RMA_CMA_QUEUE], riov[RMA_CMA_QUEUE];
        rma_cma_pending_t *a = &w->cq[i];
        size_t total = 0, done;
        unsigned long nl = 0, nr = 0;
        ssize_t got;
        int j = i;

        if (a->kind != RMA_CMA_GET) {
            canal_status_t st = CANAL_OK;
            if (rma_mbox_vec(w, i, n, &j, &st)) { /* done by the polling target */
                rma_cma_note(w, a->t, st, &first);
                i = j;
                continue;
            }
            j = i;
        }
        if (a->kind == RMA_CMA_ACC) {
            canal_status_t st = CANAL_OK;
            for (; j < n && w->cq[j].t == a->t && w->cq[j].kind == a->kind; j++)
                ;
            if (!rma_cma_acc_run(w, a, j - i, &st))
                for (int k = i; k < j && st == CANAL_OK; k++)
                    st = rma_cma_acc_one(w, &w->cq[k]);
            rma_cma_note(w, a->t, st, &first);
            i = j;
            continue;
        }
        if (a->kind == RMA_CMA_GET && (i + 1 == n || w->cq[i + 1].t != a->t ||
                                       w->cq[i + 1].kind != RMA_CMA_GET)) {
            canal_status_t st = CANAL_OK;
            if (rma_mbox_try(w, a, &st)) { /* a lone get, done by the polling target */
                i++;
                continue;
            }
        }
        if (a->kind == RMA_CMA_GET && rma_cma_get_run(w, i, n, &j)) {
            i = j;
            continue;
        }
        /* Side-by-side pieces (OSU's windows of operations, staged puts) join
         * into one iovec: the kernel pins each remote iovec's pages on
         * their own, so 64 gets of 2 KiB in a row cost 64 pins, or one
         * pin of 32 pages joined. The two lists need not match piece for
         * piece: each is a stream of the same bytes. */
        for (; j < n && w->cq[j].t == a->t && w->cq[j].kind == a->kind; j++) {
            rma_cma_pending_t *e = &w->cq[j];
            if (nl > 0 && (char *)liov[nl - 1].iov_base + liov[nl - 1].iov_len == e->local) {
                liov[nl - 1].iov_len += e->len;
            } else {
                liov[nl].iov_base = e->local;
                liov[nl++].iov_len = e->len;
            }
            if (nr > 0 && (char *)riov[nr - 1].iov_base + riov[nr - 1].iov_len == e->remote) {
                riov[nr - 1].iov_len += e->len;
            } else {
                riov[nr].iov_base = e->remote;
                riov[nr++].iov_len = e->len;
            }
            total += e->len;
        }
        got = a->kind == RMA_CMA_PUT
                  ? process_vm_writev((pid_t)w->pids[a->t], liov, nl, riov, nr, 0)
                  : process_vm_readv((pid_t)w->pids[a->t], liov, nl, riov, nr, 0);
        if (got != (ssize_t)total) {
            /* the rest piece by piece (EINTR, a partial transfer, an error) */
            done = got > 0 ? (size_t)got : 0;
            for (int k = i; k < j; k++) {
                rma_cma_pending_t *e = &w->cq[k];
                canal_status_t st;
                if (done >= e->len) {
                    done -= e->len;
                    continue;
                }
                st = rma_cma_copy(w, e->t, e->kind == RMA_CMA_PUT, e->remote + done,
                                  (char *)e->local + done, e->len - done);
                done = 0;
                rma_cma_note(w, e->t, st, &first);
            }
        }
        i = j;
    }
    return first;
}

/* Map rank r's MPI_Alloc_mem region (its fd, maplen bytes) here through
 * /proc/<pid>/fd: the address of its first byte, or NULL. */
static char *rma_map_peer(pid_t pid, int fd, size_t maplen)
{
    char path[64];
    void *p;
    int my;

    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    if ((my = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return NULL;
    p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, my, 0);
    close(my);
    return p == MAP_FAILED ? NULL : p;
}

int rma_cma_setup(rma_win_t *w, mpi_comm_t *c, uint64_t **bases_out, int *mapped_out,
                  const char *fn)
{
    uint64_t mine[6], *all = NULL, *bases = NULL;
    int ok[2], all_ok[2] = {0, 0}, err, fd = -1;
    size_t off = 0, maplen = 0;

    *bases_out = NULL;
    *mapped_out = 0;
    ok[0] = rma_cma_allowed();
    /* Under Yama ptrace_scope=1 only ancestors may read us; let our
     * siblings do (harmless elsewhere; the shm channel does the same). */
    if (ok[0])
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    /* MPI_Alloc_mem memory (rma_mem.c) can be mapped by the others */
    ok[1] = ok[0] && w->flavor == MPI_WIN_FLAVOR_CREATE && rma_cvar_bool("RMA_MAP", 1) &&
            rma_mem_lookup(w->base, (size_t)w->bytes, &fd, &off, &maplen);
    mine[0] = (uint64_t)getpid();
    mine[1] = (uint64_t)(uintptr_t)w->base;
    mine[2] = (uint64_t)(uintptr_t)&rma_cma_probe_word;
    mine[3] = ok[1] ? (uint64_t)fd : UINT64_MAX;
    mine[4] = (uint64_t)off;
    mine[5] = (uint64_t)maplen;
    all = malloc(sizeof mine * (size_t)w->size);
    bases = malloc(sizeof *bases * (size_t)w->size);
    w->pids = malloc(sizeof *w->pids * (size_t)w->size);
    w->maps = calloc((size_t)w->size, sizeof *w->maps);
    if (all == NULL || bases == NULL || w->pids == NULL || w->maps == NULL) {
        err = MPI_ERR_NO_MEM; /* the others go on; this process reports (as seg_setup) */
        goto done;
    }
    /* Everyone takes part in both collectives, whatever it found. */
    err = mpi_allgather_impl(mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, w->comm, fn);
    if (err != MPI_SUCCESS)
        goto done;
    for (int r = 0; r < w->size; r++) {
        uint64_t *e = &all[6 * r];
        w->pids[r] = (int)e[0];
        bases[r] = e[1];
        if (e[3] == UINT64_MAX)
            ok[1] = 0;
    }
    for (int r = 0; ok[0] && r < w->size; r++) {
        uint64_t v = 0;
        if (r == w->rank)
            continue;
        if (rma_cma_copy(w, r, 0, (char *)(uintptr_t)all[6 * r + 2], &v, sizeof v) != CANAL_OK ||
            v != RMA_CMA_PROBE) {
            LOG_DEBUG("rma: no single-copy access to rank %d: %s", r, common_err_detail());
            ok[0] = ok[1] = 0;
        }
    }
    for (int r = 0; ok[1] && r < w->size; r++) {
        uint64_t *e = &all[6 * r];
        if (r == w->rank)
            continue;
        w->maps[r] = rma_map_peer((pid_t)e[0], (int)e[3], (size_t)e[5]);
        if (w->maps[r] == NULL) {
            LOG_DEBUG("rma: cannot map rank %d's window memory: %s", r, strerror(errno));
            ok[1] = 0;
        }
    }
    err = mpi_allreduce_impl(ok, all_ok, 2, MPI_INT, MPI_MIN, w->comm, fn);
done:
    if (w->maps != NULL && (err != MPI_SUCCESS || !all_ok[0] || !all_ok[1])) {
        for (int r = 0; r < w->size; r++)
            if (w->maps[r] != NULL)
                munmap(w->maps[r], (size_t)all[6 * r + 5]);
        free(w->maps);
        w->maps = NULL;
    }
    if (w->maps != NULL) { /* mapped: every peer's memory at an address of ours */
        w->map_lens = malloc(sizeof *w->map_lens * (size_t)w->size);
        for (int r = 0; r < w->size; r++) {
            if (w->map_lens != NULL)
                w->map_lens[r] = (size_t)all[6 * r + 5];
            if (r != w->rank)
                bases[r] = (uint64_t)(uintptr_t)(w->maps[r] + all[6 * r + 4]);
        }
        if (w->map_lens == NULL)
            err = MPI_ERR_NO_MEM;
        *mapped_out = 1;
    }
    free(all);
    if (err != MPI_SUCCESS || !all_ok[0]) {
        free(bases);
        free(w->pids);
        w->pids = NULL;
        return err;
    }
    *bases_out = bases;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- mailboxes
 * A process_vm_readv of 8 bytes costs 1.5 us here; a target that is inside
 * MPI polling (in a wait, in MPI_Barrier, in a flush loop) can copy 8 bytes
 * for an origin in a fraction of that. So each created window's segment
 * also holds, per rank, the time its progress hook last ran (mpoll) and a
 * doorbell, and per (target, origin) pair one mailbox. At the drain a lone
 * small get or accumulate whose target polled within RMA_MBOX_FRESH_NS is
 * posted to the mailbox; the target's hook (run by every adi_progress)
 * claims it (POSTED -> TAKEN by compare-and-swap) and only then reads it
 * (an origin that took a request back may have posted its next one in the
 * same mailbox since the target looked), does it on its own memory (an
 * accumulate under its accumulate lock, taken with a trylock so that a
 * target holding that lock itself never spins in its hook: a busy lock
 * puts the request back to POSTED) and sets DONE, or REFUSED for memory
 * that is not its window's (the origin's CMA path then says what is
 * wrong). An origin not answered within CANAL_RMA_MBOX_WAIT_US (4) takes the request
 * back (POSTED -> FREE by compare-and-swap) and uses CMA: exactly one of
 * the two compare-and-swaps succeeds, so an accumulate is applied once,
 * never twice or not at all; if the target won, it is copying now and
 * the origin waits for DONE. A target that computes or sleeps does not
 * poll, its time grows stale, and origins go straight to CMA. */
/* A mailbox carries up to 4 KiB in windows of at most 4 ranks (4128 bytes
 * per pair: 66 KiB at 4), 512 bytes up to 16 ranks (544 per pair: 139 KiB
 * at 16), 112 above (144 per pair: 576 KiB at 64). */
enum { RMA_MBOX_MAX_RANKS = 64, RMA_MBOX_BIG_RANKS = 16, RMA_MBOX_HUGE_RANKS = 4 };
enum {
    RMA_MBOX_HDR = 32,
    RMA_MBOX_DATA_SMALL = 112,
    RMA_MBOX_DATA_BIG = 512,
    RMA_MBOX_DATA_HUGE = RMA_CMA_QUEUE_MAX_BYTES
};
/* REFUSED: the target claimed a request it will not do (not its window
 * memory); the origin frees the mailbox and uses CMA. */
enum { RMA_MBOX_FREE = 0, RMA_MBOX_POSTED, RMA_MBOX_TAKEN, RMA_MBOX_DONE, RMA_MBOX_REFUSED };
/* request kinds besides RMA_CMA_GET and RMA_CMA_ACC; RMA_MBOX_VEC carries
 * a run of queued puts and accumulates toward the target, each piece an
 * rma_mbox_piece_t and its bytes (padded to 16), applied in order. */
enum { RMA_MBOX_FOP = 16, RMA_MBOX_CAS, RMA_MBOX_VEC };

typedef struct rma_mbox_piece {
    uint64_t remote; /* address in the target */
    uint32_t len;
    uint32_t kind;     /* RMA_CMA_PUT or RMA_CMA_ACC */
    int32_t op, basic; /* RMA_CMA_ACC: dt_op_t, dt_builtin_t */
    uint64_t pad;
} rma_mbox_piece_t;

_Static_assert(sizeof(rma_mbox_piece_t) == 32, "piece header keeps the data 16-aligned");

typedef struct rma_mbox_poll {
    volatile int64_t polled_ns; /* CLOCK_MONOTONIC of the hook's last run (every 8th call) */
    volatile uint32_t bell;     /* bumped by an origin after posting */
    char pad[52];
} rma_mbox_poll_t;

typedef struct rma_mbox {
    volatile uint32_t state; /* RMA_MBOX_* */
    uint32_t kind;           /* RMA_CMA_GET, RMA_CMA_ACC, RMA_MBOX_FOP or RMA_MBOX_CAS */
    uint64_t remote;         /* address in the target */
    uint32_t len;
    int32_t op, basic; /* accumulate: dt_op_t, dt_builtin_t */
    int32_t status;    /* DONE: CANAL_OK, or the accumulate failed */
    char data[]; /* rma_mbox_data(size) bytes */
} rma_mbox_t;

_Static_assert(sizeof(rma_mbox_poll_t) == 64, "one cache line per rank");
_Static_assert(sizeof(rma_mbox_t) == RMA_MBOX_HDR, "mailbox layout");

static size_t rma_mbox_data(int size)
{
    if (size <= RMA_MBOX_HUGE_RANKS)
        return RMA_MBOX_DATA_HUGE;
    return size <= RMA_MBOX_BIG_RANKS ? RMA_MBOX_DATA_BIG : RMA_MBOX_DATA_SMALL;
}

/* The mailbox of (target t, origin o). */
static rma_mbox_t *rma_mbox_at(const rma_win_t *w, int t, int o)
{
    size_t stride = RMA_MBOX_HDR + w->mbox_data;
    return (rma_mbox_t *)((char *)w->mbox + ((size_t)t * (size_t)w->size + (size_t)o) * stride);
}

static int64_t rma_mbox_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

size_t rma_mbox_bytes(int size)
{
    /* (not CANAL_RMA_MBOX: every rank must lay the segment out alike) */
    if (size < 2 || size > RMA_MBOX_MAX_RANKS)
        return 0;
    return (size_t)size * sizeof(rma_mbox_poll_t) +
           (size_t)size * (size_t)size * (RMA_MBOX_HDR + rma_mbox_data(size));
}

/* Whether [p, p + len) is this process's window memory (dynamic: in the
 * regions attached now; the device lock, held by the hook, keeps them). */
static int rma_mbox_mine(const rma_win_t *w, const char *p, size_t len)
{
    const char *lo = w->base, *hi = (const char *)w->base + w->bytes;

    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return (uintptr_t)p + len >= (uintptr_t)p &&
               rma_dynamic_contains((rma_win_t *)w, (uintptr_t)p, (uintptr_t)p + len);
    return p >= lo && p <= hi && len <= (size_t)(hi - p);
}

/* The pieces of an RMA_MBOX_VEC request: each checked against our window
 * memory; 1 if all are whole and inside (*locks: one of them accumulates). */
static int rma_mbox_vec_ok(const rma_win_t *w, const rma_mbox_t *m, int *locks)
{
    size_t at = 0;

    *locks = 0;
    while (at < m->len) {
        const rma_mbox_piece_t *pc = (const rma_mbox_piece_t *)(m->data + at);
        if (m->len - at < sizeof *pc || pc->len > m->len - at - sizeof *pc ||
            !rma_mbox_mine(w, (const char *)(uintptr_t)pc->remote, pc->len))
            return 0;
        *locks |= pc->kind == RMA_CMA_ACC;
        at += sizeof *pc + ((pc->len + 15) & ~(size_t)15);
    }
    return 1;
}

/* Do the request in mailbox m on our memory p (claimed: TAKEN; an
 * accumulate's lock held). */
static void rma_mbox_do(rma_mbox_t *m, char *p)
{
    char old[RMA_MBOX_DATA_HUGE];
    rma_layout_t l;

    m->status = CANAL_OK;
    switch (m->kind) {
    case RMA_CMA_GET:
        memcpy(m->data, p, m->len);
        break;
    case RMA_MBOX_VEC: /* puts and accumulates, in issue order */
        for (size_t at = 0; at < m->len;) {
            rma_mbox_piece_t *pc = (rma_mbox_piece_t *)(m->data + at);
            char *q = (char *)(uintptr_t)pc->remote;
            if (pc->kind == RMA_CMA_PUT) {
                memcpy(q, pc + 1, pc->len);
            } else {
                canal_status_t st;
                rma_layout_one(&l, pc->len);
                st = rma_apply_acc(q, &l, pc + 1, (dt_op_t)pc->op, (dt_builtin_t)pc->basic);
                if (st != CANAL_OK)
                    m->status = st;
            }
            at += sizeof *pc + ((pc->len + 15) & ~(size_t)15);
        }
        break;
    case RMA_MBOX_FOP: /* old value back in data, the origin's applied */
        memcpy(old, p, m->len);
        if (m->op != DT_OP_NO_OP) {
            rma_layout_one(&l, m->len);
            m->status = rma_apply_acc(p, &l, m->data, (dt_op_t)m->op, (dt_builtin_t)m->basic);
        }
        memcpy(m->data, old, m->len);
        break;
    case RMA_MBOX_CAS: /* data: origin value, then the compare value */
        memcpy(old, p, m->len);
        if (memcmp(old, m->data + m->len, m->len) == 0)
            memcpy(p, m->data, m->len);
        memcpy(m->data, old, m->len);
        break;
    default: /* RMA_CMA_ACC */
        rma_layout_one(&l, m->len);
        m->status = rma_apply_acc(p, &l, m->data, (dt_op_t)m->op, (dt_builtin_t)m->basic);
        break;
    }
}

/* Serve the mailboxes addressed to this process: by the progress hook
 * (device lock held), and by an origin of this window that waits for its
 * own request (rma_mbox_wait), so that two processes asking each other at
 * once (IMB-RMA's Bidir and Exchange rows) answer each other. Returns
 * whether the doorbell had moved. */
static int rma_mbox_serve_now(rma_win_t *w)
{
    rma_mbox_poll_t *me = &w->mpoll[w->rank];
    uint32_t bell;
    int missed = 0;

    bell = __atomic_load_n(&me->bell, __ATOMIC_ACQUIRE);
    if (bell == w->mbox_bell_seen) {
        if ((w->mbox_tick++ & 7) == 0)
            __atomic_store_n(&me->polled_ns, rma_mbox_now(), __ATOMIC_RELAXED);
        return 0;
    }
    __atomic_store_n(&me->polled_ns, rma_mbox_now(), __ATOMIC_RELAXED);
    for (int o = 0; o < w->size; o++) {
        rma_mbox_t *m = rma_mbox_at(w, w->rank, o);
        uint32_t expect = RMA_MBOX_POSTED;
        char *p;
        int locks = 0;
        if (__atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != RMA_MBOX_POSTED)
            continue;
        /* Claimed before its fields are read: the origin may take a request
         * back and post its next one in the same mailbox between a look and
         * a claim, so fields read before the claim could be the old
         * request's (a get answered with the bytes of the get before it). */
        if (!__atomic_compare_exchange_n(&m->state, &expect, RMA_MBOX_TAKEN, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue; /* taken back by the origin */
        p = (char *)(uintptr_t)m->remote;
        if (m->len > w->mbox_data ||
            !(m->kind == RMA_MBOX_VEC ? rma_mbox_vec_ok(w, m, &locks)
                                      : rma_mbox_mine(w, p, m->len))) {
            /* (the origin checked; its CMA path says what is wrong) */
            __atomic_store_n(&m->state, RMA_MBOX_REFUSED, __ATOMIC_RELEASE);
            continue;
        }
        if (m->kind != RMA_MBOX_VEC)
            locks = m->kind != RMA_CMA_GET;
        if (locks && __atomic_exchange_n(&w->slots[w->rank].acc, 1, __ATOMIC_ACQUIRE) != 0) {
            /* somebody holds the lock: posted again (the origin may take it
             * back), looked at again next time */
            __atomic_store_n(&m->state, RMA_MBOX_POSTED, __ATOMIC_RELEASE);
            missed = 1;
            continue;
        }
        rma_mbox_do(m, p);
        if (locks)
            rma_acc_unlock(w, w->rank);
        __atomic_store_n(&m->state, RMA_MBOX_DONE, __ATOMIC_RELEASE);
    }
    if (!missed)
        w->mbox_bell_seen = bell;
    return 1;
}

/* The progress hook. A doorbell that moved -- a request, or an origin that
 * found us stale and rang to wake us -- is reported as work done
 * (adi_progress_hook_did), so a blocked wait keeps polling while origins
 * keep asking. */
static void rma_mbox_serve(void *arg)
{
    if (rma_mbox_serve_now(arg))
        adi_progress_hook_did(1);
}

void rma_mbox_start(rma_win_t *w, void *area)
{
    w->mpoll = area;
    w->mbox = (rma_mbox_t *)((char *)area + (size_t)w->size * sizeof(rma_mbox_poll_t));
    w->mbox_data = rma_mbox_data(w->size);
    w->mbox_fresh_ns = rma_cvar_int("RMA_MBOX_FRESH_US", 20) * 1000;
    w->mbox_wait_ns = rma_cvar_int("RMA_MBOX_WAIT_US", 4) * 1000;
    w->mbox_rung = rma_cvar_bool("RMA_MBOX", 1) ? calloc((size_t)w->size, sizeof *w->mbox_rung)
                                                 : NULL;
    if (w->mbox_rung == NULL) {
        w->mbox = NULL; /* neither served here (our time stays 0) nor used from here */
        return;
    }
    adi_lock();
    w->mbox_hook = adi_progress_hook_add(rma_mbox_serve, w);
    adi_unlock();
    /* no hook left: our time stays 0 (never fresh), origins use CMA */
}

void rma_mbox_stop(rma_win_t *w)
{
    free(w->mbox_rung);
    w->mbox_rung = NULL;
    if (w->mbox == NULL || w->mbox_hook < 0)
        return;
    adi_lock();
    adi_progress_hook_remove(w->mbox_hook);
    adi_unlock();
    w->mbox_hook = -1;
}

/* Target t did not poll lately: it computes, or it sleeps in a blocked
 * wait. Ring its doorbell (its hook, once it runs, stamps its time and
 * counts that as work, so its wait polls on for a while) and wake it if it
 * sleeps -- at most once per RMA_MBOX_RING_NS per target, so that an
 * origin going through CMA meanwhile does not pay a system call each time
 * -- so that the next requests find it polling. */
enum { RMA_MBOX_RING_NS = 20000 };

static void rma_mbox_ring(rma_win_t *w, int t, int64_t polled, int64_t now)
{
    if (polled == 0 || now - w->mbox_rung[t] < RMA_MBOX_RING_NS)
        return; /* (0: t does not serve mailboxes, CANAL_RMA_MBOX=0) */
    w->mbox_rung[t] = now;
    __atomic_add_fetch(&w->mpoll[t].bell, 1, __ATOMIC_ACQ_REL);
    adi_wake_peer(w->job[t]);
}

/* Target t's mailbox for our next request if t polled lately (the
 * mailbox is then ours to fill), else NULL (after ringing t awake). */
static rma_mbox_t *rma_mbox_open(rma_win_t *w, int t, int64_t *now_out)
{
    rma_mbox_t *m;
    int64_t now, polled;

    if (w->mbox == NULL || t == w->rank)
        return NULL;
    m = rma_mbox_at(w, t, w->rank);
    now = rma_mbox_now();
    polled = __atomic_load_n(&w->mpoll[t].polled_ns, __ATOMIC_RELAXED);
    if (now - polled > w->mbox_fresh_ns) {
        rma_mbox_ring(w, t, polled, now);
        return NULL;
    }
    if (__atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != RMA_MBOX_FREE)
        return NULL; /* (cannot happen: we free it before returning) */
    *now_out = now;
    return m;
}

/* Post the filled mailbox m of target t (opened at t0) and wait for the
 * answer, serving our own mailboxes meanwhile. 1 when the target did it (the mailbox
 * stays DONE: the caller reads the answer and frees it), 0 when taken
 * back unanswered (nothing happened at the target: use CMA). */
static int rma_mbox_wait(rma_win_t *w, int t, rma_mbox_t *m, int64_t t0)
{
    uint32_t expect = RMA_MBOX_POSTED, s;

    __atomic_store_n(&m->state, RMA_MBOX_POSTED, __ATOMIC_RELEASE);
    __atomic_add_fetch(&w->mpoll[t].bell, 1, __ATOMIC_ACQ_REL);
    for (unsigned spins = 0;; spins++) {
        s = __atomic_load_n(&m->state, __ATOMIC_ACQUIRE);
        if (s == RMA_MBOX_DONE)
            return 1;
        if (s == RMA_MBOX_REFUSED) {
            __atomic_store_n(&m->state, RMA_MBOX_FREE, __ATOMIC_RELAXED);
            return 0; /* (nothing happened at the target: CMA) */
        }
        if ((spins & 15) == 15) {
            /* (not at once: a polling target answers within ~100 spins, and
             * serving delays seeing it; we serve: CANAL_RMA_MBOX is not 0) */
            if (spins >= 127 && w->mbox_hook >= 0) {
                adi_lock();
                rma_mbox_serve_now(w);
                adi_unlock();
            }
            if (s == RMA_MBOX_POSTED && rma_mbox_now() - t0 > w->mbox_wait_ns &&
                __atomic_compare_exchange_n(&m->state, &expect, RMA_MBOX_FREE, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return 0; /* taken back before the target saw it: CMA */
            expect = RMA_MBOX_POSTED;
        }
        if ((spins & 255) == 255)
            sched_yield(); /* (the target may wait for this CPU) */
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

/* One request through target t's mailbox: kind (RMA_CMA_GET, RMA_CMA_ACC,
 * RMA_MBOX_FOP, RMA_MBOX_CAS) on len bytes at remote, with the origin's
 * bytes in (and, for CAS, the compare bytes in2 after them) and the
 * fetched bytes to out. 1 if done there (*st_out its result), 0 if the
 * caller must use CMA (nothing happened at the target). */
static int rma_mbox_call(rma_win_t *w, int t, int kind, char *remote, size_t len, int op,
                         int basic, const void *in, const void *in2, void *out,
                         canal_status_t *st_out)
{
    rma_mbox_t *m;
    int64_t t0;

    if (len > (kind == RMA_MBOX_CAS ? w->mbox_data / 2 : w->mbox_data) ||
        (m = rma_mbox_open(w, t, &t0)) == NULL)
        return 0;
    m->kind = (uint32_t)kind;
    m->remote = (uint64_t)(uintptr_t)remote;
    m->len = (uint32_t)len;
    m->op = op;
    m->basic = basic;
    if (kind != RMA_CMA_GET)
        memcpy(m->data, in, len);
    if (kind == RMA_MBOX_CAS)
        memcpy(m->data + len, in2, len);
    if (!rma_mbox_wait(w, t, m, t0))
        return 0;
    if (kind != RMA_CMA_ACC)
        memcpy(out, m->data, len);
    *st_out = (canal_status_t)m->status;
    __atomic_store_n(&m->state, RMA_MBOX_FREE, __ATOMIC_RELEASE);
    return 1;
}

/* The queued puts and accumulates from entry i on (up to n) toward the
 * same target, as many as fit, in one RMA_MBOX_VEC request: the target
 * applies them in order (under its accumulate lock if one accumulates).
 * 1 and *end if done (*st_out the first failure of an accumulate), 0 if
 * the caller must use CMA for them. */
static int rma_mbox_vec(rma_win_t *w, int i, int n, int *end, canal_status_t *st_out)
{
    rma_cma_pending_t *a = &w->cq[i];
    rma_mbox_t *m;
    size_t at = 0;
    int64_t t0;
    int k = i;

    if (w->mbox == NULL || sizeof(rma_mbox_piece_t) + a->len > w->mbox_data)
        return 0;
    /* A run of puts only that needs more than one mailbox goes as one
     * process_vm_writev (the caller): several requests, each waiting for
     * the target's copy, took longer (OSU's put_bibw, 64 puts of 512 B per
     * epoch: 1600 MB/s by CMA against 900 through the mailbox; rma4). */
    size_t need = 0;
    int accs = 0;
    for (; k < n && w->cq[k].t == a->t &&
           (w->cq[k].kind == RMA_CMA_PUT || w->cq[k].kind == RMA_CMA_ACC);
         k++) {
        need += sizeof(rma_mbox_piece_t) + ((w->cq[k].len + 15) & ~(size_t)15);
        accs |= w->cq[k].kind == RMA_CMA_ACC;
    }
    if (!accs && need > w->mbox_data + 15)
        return 0;
    k = i;
    if ((m = rma_mbox_open(w, a->t, &t0)) == NULL)
        return 0;
    for (; k < n && w->cq[k].t == a->t &&
           (w->cq[k].kind == RMA_CMA_PUT || w->cq[k].kind == RMA_CMA_ACC);
         k++) {
        rma_cma_pending_t *e = &w->cq[k];
        rma_mbox_piece_t *pc = (rma_mbox_piece_t *)(m->data + at);
        if (at + sizeof *pc + e->len > w->mbox_data)
            break;
        *pc = (rma_mbox_piece_t){.remote = (uint64_t)(uintptr_t)e->remote,
                                 .len = (uint32_t)e->len,
                                 .kind = (uint32_t)e->kind,
                                 .op = e->op,
                                 .basic = e->basic};
        memcpy(pc + 1, e->local, e->len);
        at += sizeof *pc + ((e->len + 15) & ~(size_t)15);
    }
    if (at > w->mbox_data)
        at = w->mbox_data; /* (the last piece's padding: nothing follows it) */
    m->kind = RMA_MBOX_VEC;
    m->remote = 0;
    m->len = (uint32_t)at;
    if (!rma_mbox_wait(w, a->t, m, t0))
        return 0;
    *st_out = (canal_status_t)m->status;
    __atomic_store_n(&m->state, RMA_MBOX_FREE, __ATOMIC_RELEASE);
    *end = k;
    return 1;
}

/* One queued get or accumulate through target t's mailbox (rma_mbox_call). */
static int rma_mbox_try(rma_win_t *w, const rma_cma_pending_t *e, canal_status_t *st_out)
{
    return rma_mbox_call(w, e->t, e->kind, e->remote, e->len, e->op, e->basic, e->local, NULL,
                         e->local, st_out);
}

int rma_mbox_fetch(rma_win_t *w, int t, char *remote, size_t len, dt_op_t op, dt_builtin_t basic,
                   const void *in, const void *cmp, void *out, canal_status_t *st_out)
{
    if (mpi_thread_level == MPI_THREAD_MULTIPLE)
        return 0; /* (one mailbox per origin process: not shared by its threads) */
    rma_cma_flush_queue(w); /* puts, gets and accumulates issued before, in order */
    return rma_mbox_call(w, t, cmp != NULL ? RMA_MBOX_CAS : RMA_MBOX_FOP, remote, len, (int)op,
                         (int)basic, in, cmp, out, st_out);
}

/* ---------------------------------------------------------------- dynamic windows
 * MPI_Win_create_dynamic on one node is direct through CMA like a created
 * window: a target displacement is an address in the target, so the
 * origin reaches it with process_vm_readv/writev, and the lock words,
 * accumulate locks, fence barrier, PSCW counters and mailboxes are the
 * created window's. What the origin cannot see is which memory the target
 * attached, and an access outside it must be an error, not a write into
 * whatever lives there. So every rank publishes its regions: in the
 * segment a generation word, the count and the address of a sorted array
 * of (base, size) in its own memory, rewritten under the generation as a
 * sequence lock (odd while it changes) at every attach and detach. An
 * origin keeps a copy of each target's table with the generation it was
 * read at; an access compares one word of the segment with it and, if it
 * moved, reads the table again with one process_vm_readv (retrying while
 * the generation moves under it). MPI requires the attach to happen before
 * the origin learns the address (some message or collective between
 * them), so the new generation is visible by then. Detaching memory while
 * an origin accesses it is erroneous; a copy into unmapped memory fails
 * with EFAULT, an error of the operation, and never touches this process. */
typedef struct rma_dyn_pub {
    volatile uint64_t gen; /* even: stable; odd: being rewritten */
    volatile uint64_t n;   /* regions */
    volatile uint64_t tab; /* address of the array in that rank */
    char pad[40];
} rma_dyn_pub_t;

typedef struct rma_dyn_ent {
    uint64_t base, size;
} rma_dyn_ent_t;

typedef struct rma_dyn_cache {
    uint64_t gen; /* of the copy; odd (never published) before the first read */
    size_t n, cap;
    rma_dyn_ent_t *e;
} rma_dyn_cache_t;

_Static_assert(sizeof(rma_dyn_pub_t) == 64, "one cache line per rank");

size_t rma_dyn_bytes(int size)
{
    return (size_t)size * sizeof(rma_dyn_pub_t);
}

int rma_dyn_start(rma_win_t *w, void *area)
{
    w->dyn_pub = area;
    w->dyn_cache = calloc((size_t)w->size, sizeof *w->dyn_cache);
    if (w->dyn_cache == NULL)
        return -1;
    for (int r = 0; r < w->size; r++)
        w->dyn_cache[r].gen = 1;
    return 0;
}

void rma_dyn_stop(rma_win_t *w)
{
    for (int r = 0; w->dyn_cache != NULL && r < w->size; r++)
        free(w->dyn_cache[r].e);
    free(w->dyn_cache);
    free(w->dyn_tab);
    w->dyn_cache = NULL;
    w->dyn_tab = NULL;
    w->dyn_pub = NULL;
}

static int rma_dyn_cmp(const void *a, const void *b)
{
    const rma_dyn_ent_t *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

int rma_dyn_publish(rma_win_t *w)
{
    rma_dyn_pub_t *me;
    rma_dyn_ent_t *tab = w->dyn_tab, *old = NULL;
    size_t n = 0;

    if (w->dyn_pub == NULL)
        return 0;
    me = &w->dyn_pub[w->rank];
    for (rma_region_t *r = w->regions; r != NULL; r = r->next)
        n++;
    if (n > w->dyn_cap) { /* a larger array; the old one stays readable until published */
        size_t cap = n < 8 ? 8 : 2 * n;
        if ((tab = malloc(cap * sizeof *tab)) == NULL)
            return -1;
        old = w->dyn_tab;
        w->dyn_tab = tab;
        w->dyn_cap = cap;
    }
    uint64_t gen = me->gen;
    __atomic_store_n(&me->gen, gen + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    n = 0;
    for (rma_region_t *r = w->regions; r != NULL; r = r->next)
        tab[n++] = (rma_dyn_ent_t){r->base, r->size};
    qsort(tab, n, sizeof *tab, rma_dyn_cmp);
    me->n = n;
    me->tab = (uint64_t)(uintptr_t)tab;
    __atomic_store_n(&me->gen, gen + 2, __ATOMIC_RELEASE);
    free(old);
    return 0;
}

/* Read rank t's table into c; 0, or -1 when it cannot be read. */
static int rma_dyn_refresh(rma_win_t *w, int t, rma_dyn_cache_t *c)
{
    rma_dyn_pub_t *pub = &w->dyn_pub[t];

    for (unsigned spins = 0;; spins++) {
        uint64_t g1 = __atomic_load_n(&pub->gen, __ATOMIC_ACQUIRE), g2;
        size_t n;
        canal_status_t st = CANAL_OK;
        if (g1 & 1) { /* being rewritten (a few stores; a target that died
                       * in the middle leaves it odd: give up then) */
            if (spins > 64)
                sched_yield();
            if (spins > (1u << 20) || adi_peer_failed(w->job[t]))
                return -1;
            continue;
        }
        n = (size_t)pub->n;
        char *tab = (char *)(uintptr_t)pub->tab;
        if (n > c->cap) {
            rma_dyn_ent_t *e = realloc(c->e, n * sizeof *e);
            if (e == NULL)
                return -1;
            c->e = e;
            c->cap = n;
        }
        if (n > 0)
            st = rma_cma_copy(w, t, 0, tab, c->e, n * sizeof *c->e);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        g2 = __atomic_load_n(&pub->gen, __ATOMIC_RELAXED);
        if (g1 != g2)
            continue; /* changed while we read (the array may have moved) */
        if (st != CANAL_OK)
            return -1; /* a target that is gone */
        c->n = n;
        c->gen = g1;
        return 0;
    }
}

int rma_dyn_peer_contains(rma_win_t *w, int t, uintptr_t lo, uintptr_t hi)
{
    rma_dyn_cache_t *c = &w->dyn_cache[t];
    int multi = mpi_thread_level == MPI_THREAD_MULTIPLE, ok = 0;

    if (lo > hi || w->dyn_pub == NULL)
        return 0;
    if (multi)
        for (int spins = 0; __atomic_exchange_n(&w->dyn_lock, 1, __ATOMIC_ACQUIRE) != 0;)
            if (++spins > 64)
                sched_yield();
    if (__atomic_load_n(&w->dyn_pub[t].gen, __ATOMIC_ACQUIRE) != c->gen &&
        rma_dyn_refresh(w, t, c) < 0)
        goto out;
    /* the first region holding lo (the table is sorted), then on through
     * regions attached next to each other (rma_dynamic_contains) */
    size_t a = 0, b = c->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (c->e[m].base + c->e[m].size <= lo)
            a = m + 1;
        else
            b = m;
    }
    for (; a < c->n && c->e[a].base <= lo; a++) {
        uintptr_t end = (uintptr_t)(c->e[a].base + c->e[a].size);
        if (hi <= end) {
            ok = 1;
            break;
        }
        lo = end;
    }
out:
    if (multi)
        __atomic_store_n(&w->dyn_lock, 0, __ATOMIC_RELEASE);
    return ok;
}
