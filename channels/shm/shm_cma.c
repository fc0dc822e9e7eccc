/*
 * Single-copy reads between local ranks with process_vm_readv (Cross Memory
 * Attach), and writes with process_vm_writev. The device's rendezvous calls
 * mem_register() on the sender and rdma_read() on the receiver (and, for a
 * large message, rdma_write() on the sender for the part the receiver asks
 * it to push: both copy at once); the "key" means nothing here (the address and
 * the owner's pid, published in the segment, are enough). CMA can be denied
 * (Yama ptrace_scope, seccomp in containers, different credentials): it is
 * probed on ourselves at init, on a peer after post_fence, and judged again
 * at first use; once denied (with CANAL_SHM_CMA=auto) both calls return
 * CANAL_ERR_UNSUPPORTED so the device uses its pipelined protocol instead.
 * With CANAL_SHM_CMA=yes a failed probe refuses init, and a copy that fails
 * later goes through the ring too but warns once (cma_yes_warn).
 * The eager limit this channel suggests (eager_hint) follows: smaller while
 * a rendezvous is one copy, the device's own once CMA is refused (then a
 * denial at run time tells the device, up.on_eager_hint, for every peer).
 */
#include "channels/shm/shm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/log.h"
#include "common/proc.h"

static volatile uint64_t cma_probe_word = SHM_CMA_PROBE;

uint64_t ch_shm_cma_probe_addr(void)
{
    return (uint64_t)(uintptr_t)&cma_probe_word;
}

canal_status_t ch_shm_cma_parse_mode(const char *text, int *mode_out)
{
    int b;

    if (text == NULL || strcmp(text, "auto") == 0) {
        *mode_out = SHM_CMA_AUTO;
        return CANAL_OK;
    }
    if (common_parse_bool(text, &b) == 0) {
        *mode_out = b ? SHM_CMA_YES : SHM_CMA_NO;
        return CANAL_OK;
    }
    return common_err_set(CANAL_ERR_ARG, "CANAL_SHM_CMA=%s: expected auto, yes or no", text);
}

/* CANAL_SHM_CMA_WRITE_FAIL, a test knob: "no" (or empty), "efault" or
 * "eperm": every rdma_write fails as process_vm_writev would with that errno
 * (a receive buffer the sender cannot write; writes denied, which with
 * CANAL_SHM_CMA=auto turns CMA off in this process as a real EPERM does), so
 * that tests reach the rendezvous' fallback where the receiver reads the
 * sender's part itself (adi/pt2pt.c, rndv_pushed). */
canal_status_t ch_shm_cma_parse_write_fail(const char *text, int *errno_out)
{
    int b;

    *errno_out = 0;
    if (text == NULL || text[0] == '\0' || (common_parse_bool(text, &b) == 0 && !b))
        return CANAL_OK;
    if (strcmp(text, "efault") == 0)
        *errno_out = EFAULT;
    else if (strcmp(text, "eperm") == 0)
        *errno_out = EPERM;
    else
        return common_err_set(CANAL_ERR_ARG,
                              "CANAL_SHM_CMA_WRITE_FAIL=%s: expected no, efault or eperm", text);
    return CANAL_OK;
}

/* CANAL_SHM_CMA_FAIL_AFTER, a test knob: "no" (or empty), or
 * "N[,efault|,eperm][,partial][,first|,last][,probe]": this process's single-copy reads
 * (rdma_read, rdma_readv, and each message of an rdma_read_batch: one read
 * each) succeed N times, then read N+1 fails as process_vm_readv would with
 * EPERM (the default: CMA denied at run time, off in the process from then
 * on, as a real EPERM turns it; with CANAL_SHM_CMA=yes, which never turns it
 * off, that read only) or EFAULT (that read only); with partial,
 * after copying the first half of its bytes, as a short count followed by
 * the error would (in a batch, the batch's one system call stops there);
 * with first or last, when read N+1 is one of a batch's, that batch's first
 * or last read fails instead. So tests reach a denial in the middle of a
 * batch, at its first message or its last (test/mpi/pt2pt_rndv_denied.c).
 * With probe, the init probes (ch_shm_cma_probe_self, _peer) fail with that
 * errno too, as where CMA cannot work at all: CMA off from the start under
 * auto, MPI_Init refused under yes (pt2pt_cma_yes). */
canal_status_t ch_shm_cma_parse_fail_after(ch_shm_state_t *st, const char *text)
{
    char word[16];
    const char *at;
    unsigned long long n;
    char *end;
    int b;

    st->cma_fail_at = 0;
    st->cma_fail_errno = EPERM;
    st->cma_fail_partial = 0;
    st->cma_fail_where = 0;
    st->cma_fail_probe = 0;
    if (text == NULL || text[0] == '\0')
        return CANAL_OK;
    errno = 0;
    n = strtoull(text, &end, 10);
    if (end == text && common_parse_bool(text, &b) == 0 && !b)
        return CANAL_OK; /* (no, off, false: "0" is a count) */
    if (end == text || errno != 0 || text[0] == '-' || n >= UINT64_MAX - 1)
        goto bad;
    st->cma_fail_at = (uint64_t)n + 1;
    for (at = end; *at == ',';) {
        size_t len = strcspn(at + 1, ",");
        if (len >= sizeof word)
            goto bad;
        memcpy(word, at + 1, len);
        word[len] = '\0';
        if (strcmp(word, "efault") == 0)
            st->cma_fail_errno = EFAULT;
        else if (strcmp(word, "eperm") == 0)
            st->cma_fail_errno = EPERM;
        else if (strcmp(word, "partial") == 0)
            st->cma_fail_partial = 1;
        else if (strcmp(word, "first") == 0)
            st->cma_fail_where = -1;
        else if (strcmp(word, "last") == 0)
            st->cma_fail_where = 1;
        else if (strcmp(word, "probe") == 0)
            st->cma_fail_probe = 1;
        else
            goto bad;
        at += 1 + len;
    }
    if (*at == '\0')
        return CANAL_OK;
bad:
    st->cma_fail_at = 0;
    return common_err_set(CANAL_ERR_ARG,
                          "CANAL_SHM_CMA_FAIL_AFTER=%s: expected no, or a count of reads "
                          "followed by ,efault or ,eperm, ,partial, ,first or ,last and ,probe",
                          text);
}

/* Local pieces per process_vm_readv (the kernel's UIO_MAXIOV is 1024) and
 * bytes per call (the kernel moves at most about 2 GiB per call). */
enum { CMA_IOV = 256 };
#define CMA_CALL_MAX ((size_t)1 << 30)

/* Read the remote bytes at raddr in pid into the n local pieces dst, in
 * order (as many bytes as the pieces hold), or (write) write the pieces
 * there; 0 or an errno value. */
static int cma_xferv(pid_t pid, const struct iovec *dst, int n, uint64_t raddr, int write)
{
    struct iovec l[CMA_IOV];
    uint64_t at = raddr;
    size_t skip = 0; /* bytes of dst[i] already read */
    int i = 0;

    for (;;) {
        size_t want = 0;
        int m = 0;

        while (i < n && dst[i].iov_len == skip) /* (empty or finished pieces) */
            i++, skip = 0;
        if (i == n)
            return 0;
        for (int k = i; k < n && m < CMA_IOV && want < CMA_CALL_MAX; k++) {
            size_t off = k == i ? skip : 0;
            size_t len = dst[k].iov_len - off;
            if (len > CMA_CALL_MAX - want)
                len = CMA_CALL_MAX - want;
            l[m].iov_base = (unsigned char *)dst[k].iov_base + off;
            l[m].iov_len = len;
            m++;
            want += len;
        }
        struct iovec r = {(void *)(uintptr_t)at, want};
        ssize_t got = write ? process_vm_writev(pid, l, (unsigned long)m, &r, 1, 0)
                            : process_vm_readv(pid, l, (unsigned long)m, &r, 1, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (got == 0)
            return EFAULT;
        at += (uint64_t)got;
        for (size_t g = (size_t)got; g > 0;) { /* advance over what was read */
            size_t left = dst[i].iov_len - skip;
            if (g < left) {
                skip += g;
                break;
            }
            g -= left;
            i++;
            skip = 0;
        }
    }
}

static int cma_copy(pid_t pid, void *dst, uint64_t raddr, size_t len)
{
    struct iovec one = {dst, len};
    return cma_xferv(pid, &one, 1, raddr, 0);
}

/* A read under CANAL_SHM_CMA_FAIL_AFTER: counted, and made unless it is
 * the one to fail (then its first half, with partial). */
static int cma_read_counted(ch_shm_state_t *st, pid_t pid, const struct iovec *dst, int n,
                            uint64_t raddr)
{
    uint64_t k = __atomic_add_fetch(&st->cma_reads, 1, __ATOMIC_RELAXED);

    if (k != st->cma_fail_at)
        return cma_xferv(pid, dst, n, raddr, 0);
    if (st->cma_fail_partial && n > 0) {
        struct iovec half = {dst[0].iov_base, dst[0].iov_len / 2};
        (void)cma_xferv(pid, &half, 1, raddr, 0);
    }
    return st->cma_fail_errno;
}

static int denied_errno(int e)
{
    return e == EPERM || e == EACCES || e == ENOSYS;
}

static void cma_deny(ch_shm_state_t *st, const char *what, int e)
{
    st->cma_state = SHM_CMA_DENIED;
    if (e == 0) /* what says it all */
        snprintf(st->cma_why, sizeof st->cma_why, "%s", what);
    else
        snprintf(st->cma_why, sizeof st->cma_why, "%s: %s", what, strerror(e));
}

/* A probe found CMA unusable: fall back to copies through the rings, unless
 * the user demanded CMA (CANAL_SHM_CMA=yes). */
static canal_status_t cma_probe_failed(ch_shm_state_t *st, const char *what, int e)
{
    cma_deny(st, what, e);
    if (st->cma_mode == SHM_CMA_YES)
        return common_err_set(CANAL_ERR_UNSUPPORTED,
                              "shm: CANAL_SHM_CMA=yes but CMA does not work here (%s)",
                              st->cma_why);
    return CANAL_OK;
}

canal_status_t ch_shm_cma_probe_self(ch_shm_state_t *st)
{
    uint64_t v = 0;
    int e;

    if (st->cma_mode == SHM_CMA_NO) {
        st->cma_state = SHM_CMA_DENIED;
        snprintf(st->cma_why, sizeof st->cma_why, "disabled by CANAL_SHM_CMA=no");
        return CANAL_OK;
    }
    /* Under Yama ptrace_scope=1 only ancestors may read us; allow our
     * siblings (other ranks of this job, same user) to. Fails harmlessly
     * without Yama. */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    e = st->cma_fail_probe ? st->cma_fail_errno
                           : cma_copy(getpid(), &v, ch_shm_cma_probe_addr(), sizeof v);
    if (e == 0 && v == SHM_CMA_PROBE)
        return CANAL_OK; /* still unknown for peers */
    if (e == 0)
        e = EIO;
    return cma_probe_failed(st, "process_vm_readv on self", e);
}

/* After the second fence: read the next local rank's probe word. First,
 * every local rank must share our pid namespace, else a peer's pid names
 * another process here (or none), and a read by pid could return another
 * process's bytes; every rank sees the same slots, so all decide alike. */
canal_status_t ch_shm_cma_probe_peer(ch_shm_state_t *st)
{
    int li = (st->local_rank + 1) % st->local_size;
    ch_shm_slot_t *s = &st->slots[li];
    uint64_t v = 0;
    char what[96];
    int e;

    if (st->cma_state == SHM_CMA_DENIED)
        return CANAL_OK;
    for (int k = 0; k < st->local_size; k++) {
        if (st->slots[k].pidns == st->slots[st->local_rank].pidns)
            continue;
        snprintf(what, sizeof what, "rank %d is in another pid namespace", st->peers[k].world);
        return cma_probe_failed(st, what, 0);
    }
    e = st->cma_fail_probe ? st->cma_fail_errno
                           : cma_copy((pid_t)s->pid, &v, s->probe_addr, sizeof v);
    if (e == 0 && v == SHM_CMA_PROBE) {
        st->cma_state = SHM_CMA_WORKS;
        snprintf(st->cma_why, sizeof st->cma_why, "probed on rank %d", st->peers[li].world);
        return CANAL_OK;
    }
    if (e == 0)
        e = EIO;
    snprintf(what, sizeof what, "process_vm_readv on rank %d (pid %d)", st->peers[li].world,
             (int)s->pid);
    return cma_probe_failed(st, what, e);
}

/* CMA's state is this process's, so every local peer's hint is the same:
 * CANAL_SHM_EAGER_LIMIT until CMA is known refused, then none. */
size_t ch_shm_eager_hint(ch_endpoint_t *ep, int peer)
{
    ch_shm_state_t *st = ep->state;

    (void)peer;
    return st->initialized && st->cma_state != SHM_CMA_DENIED ? st->eager_limit : 0;
}

/* CMA was just denied at run time: the eager limit to every local peer may
 * rise (new sends only: the device decides a message's protocol once). */
static void cma_tell_denied(ch_shm_state_t *st)
{
    if (st->up.on_eager_hint == NULL)
        return;
    for (int li = 0; li < st->local_size; li++)
        if (li != st->local_rank)
            st->up.on_eager_hint(st->peers[li].world);
}

canal_status_t ch_shm_mem_register(ch_endpoint_t *ep, const void *buf, size_t len,
                                   uint64_t *key_out)
{
    ch_shm_state_t *st = ep->state;

    if (key_out == NULL)
        return common_err_set(CANAL_ERR_ARG, "shm mem_register: key_out is NULL");
    if (buf == NULL && len > 0)
        return common_err_set(CANAL_ERR_ARG, "shm mem_register: buf is NULL with length %zu", len);
    if (!st->initialized)
        return common_err_set(CANAL_ERR_INTERN, "shm mem_register: channel not initialized");
    if (st->cma_state == SHM_CMA_DENIED)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "shm: no single-copy reads (%s)", st->cma_why);
    *key_out = 0;
    return CANAL_OK;
}

canal_status_t ch_shm_mem_deregister(ch_endpoint_t *ep, uint64_t key)
{
    return CANAL_OK;
}

/* A single copy with peer failed with errno e at run time although the
 * user demanded CMA (CANAL_SHM_CMA=yes, whose init probe worked): the
 * device still moves that message through the ring (as under auto, so no
 * data is lost), but a silent second copy would hide the misconfiguration
 * (a ptrace scope or seccomp policy changed, a buffer the peer cannot
 * read): say so on stderr, once per process, naming this rank, the peer
 * and the errno. Nothing under auto, where falling back is the contract. */
static void cma_yes_warn(ch_shm_state_t *st, const char *sys, int write, int peer, pid_t pid,
                         int e)
{
    if (st->cma_mode != SHM_CMA_YES ||
        __atomic_exchange_n(&st->cma_yes_warned, 1, __ATOMIC_RELAXED))
        return;
    LOG_WARN("shm: CANAL_SHM_CMA=yes, but %s %s rank %d (pid %d) failed on rank %d: %s (errno "
             "%d); that message, and any later one whose single copy fails, goes through the "
             "shared-memory ring instead (two copies); this is reported once",
             sys, write ? "to" : "from", peer, (int)pid, st->world_rank, strerror(e), e);
}

/* Read what the n pieces dst hold (len bytes in all) from raddr in peer,
 * or (write) write them there: the single copy of rdma_read (one piece),
 * rdma_readv and rdma_write. */
static canal_status_t shm_xfer_pieces(ch_shm_state_t *st, const char *call, int peer,
                                      const struct iovec *dst, int n, uint64_t raddr, size_t len,
                                      int write)
{
    const char *sys = write ? "process_vm_writev" : "process_vm_readv";

    int li, e;
    pid_t pid;

    if (!st->attached)
        return common_err_set(CANAL_ERR_INTERN, "shm %s: used before post_fence()", call);
    if (peer < 0 || peer >= st->world_size || st->local_of[peer] < 0)
        return common_err_set(CANAL_ERR_ARG, "shm %s: rank %d is not a local peer", call, peer);
    if (len == 0)
        return CANAL_OK;
    if (raddr == 0)
        return common_err_set(CANAL_ERR_ARG, "shm %s: remote address is NULL (len %zu)", call,
                              len);
    if (raddr + len < raddr)
        return common_err_set(CANAL_ERR_ARG, "shm %s: remote range %#llx + %zu wraps", call,
                              (unsigned long long)raddr, len);
    if (st->cma_state == SHM_CMA_DENIED)
        return common_err_set(CANAL_ERR_UNSUPPORTED, "shm: no single-copy reads (%s)", st->cma_why);
    li = st->local_of[peer];
    pid = (pid_t)st->slots[li].pid;
    if (write && st->cma_write_fail != 0) /* (test knobs: one untaken branch each) */
        e = st->cma_write_fail;
    else if (st->cma_fail_at != 0 && !write)
        e = cma_read_counted(st, pid, dst, n, raddr);
    else
        e = cma_xferv(pid, dst, n, raddr, write);
    if (e == 0) {
        if (st->cma_state == SHM_CMA_UNKNOWN) {
            st->cma_state = SHM_CMA_WORKS;
            snprintf(st->cma_why, sizeof st->cma_why, "worked at first use");
        }
        return CANAL_OK;
    }
    if (e != ESRCH)
        cma_yes_warn(st, sys, write, peer, pid, e);
    if (denied_errno(e)) {
        char what[96];
        snprintf(what, sizeof what, "%s %s rank %d (pid %d)", sys, write ? "to" : "from", peer,
                 (int)pid);
        if (st->cma_mode == SHM_CMA_YES)
            return common_err_set(CANAL_ERR_IO, "shm: %s with CANAL_SHM_CMA=yes: %s", what,
                                  strerror(e));
        cma_deny(st, what, e);
        cma_tell_denied(st);
        return common_err_set(CANAL_ERR_UNSUPPORTED, "shm: no single-copy reads (%s)", st->cma_why);
    }
    if (e == ESRCH)
        return common_err_set(CANAL_ERR_PEER, "shm %s: rank %d (pid %d) is gone", call, peer,
                              (int)pid);
    if (e == EFAULT)
        return common_err_set(CANAL_ERR_ARG,
                              "shm %s: %zu bytes at %#llx in rank %d, or the local "
                              "buffer %p (%d pieces), are not accessible",
                              call, len, (unsigned long long)raddr, peer, dst[0].iov_base, n);
    if (e == ENOMEM)
        return common_err_set(CANAL_ERR_NOMEM, "shm %s: %s: %s", call, sys, strerror(e));
    return common_err_set(CANAL_ERR_IO, "shm %s with rank %d: %s: %s", call, peer, sys,
                          strerror(e));
}

canal_status_t ch_shm_rdma_read(ch_endpoint_t *ep, int peer, void *dst, uint64_t raddr,
                                uint64_t rkey, size_t len, void *cookie)
{
    struct iovec one = {dst, len};

    (void)rkey, (void)cookie;
    if (dst == NULL && len > 0)
        return common_err_set(CANAL_ERR_ARG, "shm rdma_read: dst is NULL (len %zu)", len);
    return shm_xfer_pieces(ep->state, "rdma_read", peer, &one, 1, raddr, len, 0);
}

/* Reads of several messages from one peer in one process_vm_readv: each
 * call costs about as much as the copy of 8 KiB (its page walks and the
 * system call), so a receiver that matched a window of mid-size messages
 * reads them for about the price of one (bench.md, stop 36). The kernel
 * copies the pieces in order, so after a short count the reads it covered
 * whole are done and the others are made one by one through rdma_read,
 * which judges a refusal, a lost peer or a bad address as it always does
 * (once CMA is denied, every later one of the batch answers UNSUPPORTED
 * without a system call; a bad address fails that read only). The same one
 * by one until CMA has worked once. Under CANAL_SHM_CMA_FAIL_AFTER the
 * system call stops before the read that is to fail (or within it, with
 * partial), as a short count would, and the reads it covered are counted. */
enum { CMA_BATCH = 64 };

canal_status_t ch_shm_rdma_read_batch(ch_endpoint_t *ep, int peer, const ch_read_t *reads, int n,
                                      canal_status_t *st_out)
{
    ch_shm_state_t *st = ep->state;
    struct iovec l[CMA_BATCH], r[CMA_BATCH];
    canal_status_t all = CANAL_OK;
    size_t done = 0;
    int whole = 0; /* reads the system call covered */
    int batch = n >= 2 && n <= CMA_BATCH && st->attached && st->cma_state == SHM_CMA_WORKS &&
                peer >= 0 && peer < st->world_size && st->local_of[peer] >= 0;

    for (int i = 0; batch && i < n; i++) {
        if (reads[i].dst == NULL || reads[i].raddr == 0 || reads[i].len == 0 ||
            reads[i].len > CMA_CALL_MAX / CMA_BATCH)
            batch = 0;
        l[i].iov_base = reads[i].dst;
        l[i].iov_len = reads[i].len;
        r[i].iov_base = (void *)(uintptr_t)reads[i].raddr;
        r[i].iov_len = reads[i].len;
    }
    if (batch) {
        pid_t pid = (pid_t)st->slots[st->local_of[peer]].pid;
        int m = n;
        ssize_t got = 0;
        if (st->cma_fail_at > st->cma_reads && st->cma_fail_at - st->cma_reads <= (uint64_t)n) {
            /* (a test knob: read number cma_fail_at is in this batch; with
             * first or last, its first or last read fails instead) */
            if (st->cma_fail_where != 0)
                st->cma_fail_at = st->cma_reads + (st->cma_fail_where < 0 ? 1 : (uint64_t)n);
            m = (int)(st->cma_fail_at - st->cma_reads - 1);
            if (st->cma_fail_partial) {
                l[m].iov_len = r[m].iov_len = reads[m].len / 2;
                m++;
            }
        }
        if (m > 0)
            got = process_vm_readv(pid, l, (unsigned long)m, r, (unsigned long)m, 0);
        done = got > 0 ? (size_t)got : 0;
        for (; whole < n && done >= reads[whole].len; whole++)
            done -= reads[whole].len;
        /* (counted without a branch: plain loads and stores, under the
         * device's lock as every read) */
        __atomic_store_n(&st->cma_reads,
                         __atomic_load_n(&st->cma_reads, __ATOMIC_RELAXED) + (uint64_t)whole,
                         __ATOMIC_RELAXED);
    }
    for (int i = 0; i < n; i++) {
        st_out[i] = CANAL_OK;
        if (i >= whole) /* (a short read stops within this one: the rest one by one) */
            st_out[i] = ch_shm_rdma_read(ep, peer, reads[i].dst, reads[i].raddr, reads[i].rkey,
                                         reads[i].len, NULL);
        if (st_out[i] != CANAL_OK)
            all = st_out[i];
    }
    return all;
}

canal_status_t ch_shm_rdma_readv(ch_endpoint_t *ep, int peer, const struct iovec *dst, int n,
                                 uint64_t raddr, uint64_t rkey)
{
    size_t len = 0;

    (void)rkey;
    if (n < 0 || (n > 0 && dst == NULL))
        return common_err_set(CANAL_ERR_ARG, "shm rdma_readv: %d pieces at %p", n, (void *)dst);
    for (int i = 0; i < n; i++) {
        if (dst[i].iov_base == NULL && dst[i].iov_len > 0)
            return common_err_set(CANAL_ERR_ARG, "shm rdma_readv: piece %d is NULL (len %zu)", i,
                                  dst[i].iov_len);
        if (len + dst[i].iov_len < len)
            return common_err_set(CANAL_ERR_ARG, "shm rdma_readv: the pieces' lengths overflow");
        len += dst[i].iov_len;
    }
    return shm_xfer_pieces(ep->state, "rdma_readv", peer, dst, n, raddr, len, 0);
}

canal_status_t ch_shm_rdma_write(ch_endpoint_t *ep, int peer, const void *src, uint64_t raddr,
                                 uint64_t rkey, size_t len)
{
    struct iovec one = {(void *)(uintptr_t)src, len};

    (void)rkey;
    if (src == NULL && len > 0)
        return common_err_set(CANAL_ERR_ARG, "shm rdma_write: src is NULL (len %zu)", len);
    return shm_xfer_pieces(ep->state, "rdma_write", peer, &one, 1, raddr, len, 1);
}
