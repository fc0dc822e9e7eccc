/*
 * A job across hosts: mpiexec places the ranks on the hosts (mpiexec/hosts.c),
 * starts one proxy per host that got ranks ("mpiexec -proxy HOST", same path
 * as this mpiexec) through the launcher -- ssh (or -launcher-exec) for other
 * hosts, fork for this one -- and sends each proxy the job over the proxy's
 * stdin (mpiexec/pxlink.c). Then it only relays: output lines (labelled with
 * -l), fences (one message per host each way, carrying the puts of all
 * hosts), aborts, exits, and signals. The first failure -- a rank that exits
 * with an error, is killed, aborts, or a proxy (or its ssh) that goes away --
 * is reported naming the rank and host, and every proxy is told to end its
 * ranks (SIGTERM, then SIGKILL); proxies that do not finish are killed.
 * Called by main() in mpiexec/mpiexec.c when mpx_hosts_remote() says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"
#include "mpiexec/pxlink.h"
#include "common/clock.h"

enum { RM_KILL_GRACE_MS = 3000, RM_PROXY_GRACE_MS = 4000, RM_LINE_MAX = 1 << 20 };

typedef struct {
    char *buf;
    size_t len, cap;
} rm_buf_t;

typedef struct {
    int host; /* index in opts->hostv */
    int seg, appnum;
    pid_t pid;
    int exited, status, finalized;
    rm_buf_t out[2];
} rm_rank_t;

typedef struct {
    int host;
    pid_t pid; /* the launcher (ssh, or the forked proxy) */
    int reaped, status;
    mpx_link_t link;
    int closed; /* its stdout reached end of file */
    int fenced;
    int nranks;
} rm_proxy_t;

static struct {
    mpx_opts_t *o;
    int size, nproxies, nexited;
    rm_rank_t *ranks;
    rm_proxy_t *proxies;
    int failed, exit_code, tearing_down, timed_out;
    long long kill_deadline;
    mpx_frame_t batch; /* the puts of the current fence */
    int nbatch, nfenced;
} rm;

static const char *rm_host(int h)
{
    return rm.o->hostv[h].name;
}

static void rm_send_all(mpx_frame_t *f)
{
    for (int p = 0; p < rm.nproxies; p++)
        if (!rm.proxies[p].closed)
            mpx_link_send(&rm.proxies[p].link, f);
}

static void rm_teardown(void)
{
    mpx_frame_t f = {0};
    if (rm.tearing_down)
        return;
    rm.tearing_down = 1;
    mpx_frame_begin(&f, MPX_F_KILL);
    rm_send_all(&f);
    mpx_frame_free(&f);
    rm.kill_deadline = common_now_ms() + RM_KILL_GRACE_MS + RM_PROXY_GRACE_MS;
}

static void rm_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rm_fail(int code, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    if (rm.failed)
        return;
    rm.failed = 1;
    rm.exit_code = code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpiexec: %s\n", msg);
    rm_teardown();
}

/* ------------------------------------------------------------ output */

static void rm_write(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* our output is gone: drop the ranks' output */
        buf += n;
        len -= (size_t)n;
    }
}

/* Write the complete lines of rank r's stream (all of it when final). */
static void rm_emit(int r, int stream, int final)
{
    rm_buf_t *b = &rm.ranks[r].out[stream - 1];
    size_t end = b->len, i = 0;
    char label[32];
    int llen = snprintf(label, sizeof label, "[%d] ", r);

    if (!final) {
        while (end > 0 && b->buf[end - 1] != '\n')
            end--;
        if (end == 0 && b->len >= RM_LINE_MAX)
            end = b->len;
    }
    if (end == 0)
        return;
    if (!rm.o->label) {
        rm_write(stream, b->buf, end);
    } else {
        while (i < end) {
            size_t j = i;
            while (j < end && b->buf[j] != '\n')
                j++;
            rm_write(stream, label, (size_t)llen);
            rm_write(stream, b->buf + i, j - i);
            rm_write(stream, "\n", 1);
            i = j + 1;
        }
    }
    memmove(b->buf, b->buf + end, b->len - end);
    b->len -= end;
}

static void rm_output(int r, int stream, const char *data, size_t n)
{
    rm_buf_t *b = &rm.ranks[r].out[stream - 1];
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        char *p;
        while (cap < b->len + n)
            cap *= 2;
        if ((p = realloc(b->buf, cap)) == NULL)
            return;
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, data, n);
    b->len += n;
    rm_emit(r, stream, 0);
}

/* ------------------------------------------------------------ events from proxies */

static const char *rm_sig_name(int sig)
{
    const char *d = strsignal(sig);
    return d != NULL ? d : "unknown signal";
}

static void rm_rank_exit(rm_proxy_t *px, int r, int status, int initialized, int finalized)
{
    rm_rank_t *k = &rm.ranks[r];
    const char *prog = rm.o->segs[k->seg].argv[0];
    if (k->exited || k->host != px->host)
        return;
    k->exited = 1;
    k->status = status;
    k->finalized = finalized;
    rm.nexited++;
    if (rm.tearing_down)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        rm_fail(128 + sig, "rank %d (pid %ld, %s) on host %s was killed by signal %d (%s)", r,
                (long)k->pid, prog, rm_host(k->host), sig, rm_sig_name(sig));
    } else if (WEXITSTATUS(status) != 0) {
        rm_fail(WEXITSTATUS(status), "rank %d (pid %ld, %s) on host %s exited with code %d%s", r,
                (long)k->pid, prog, rm_host(k->host), WEXITSTATUS(status),
                initialized && !finalized ? " before MPI_Finalize" : "");
    } else if (initialized && !finalized && rm.nexited < rm.size) {
        rm_fail(1,
                "rank %d (pid %ld, %s) on host %s exited without calling MPI_Finalize while "
                "other ranks still run",
                r, (long)k->pid, prog, rm_host(k->host));
    } else if (!finalized && rm.nfenced > 0 && rm.nexited < rm.size) {
        rm_fail(1,
                "rank %d (pid %ld, %s) on host %s has exited, so the PMI barrier (MPI_Init, "
                "fence) other ranks wait in can never complete",
                r, (long)k->pid, prog, rm_host(k->host));
    }
}

static void rm_fence(rm_proxy_t *px, const char **fl, int nf, const char *body, size_t len,
                     size_t pairs_off)
{
    int bad = 0;
    long long n = nf >= 1 ? mpx_field_int(fl[0], 0, 100000000, &bad) : -1;
    if (bad || nf != 1 + 2 * n || px->fenced) {
        rm_fail(255, "the proxy on host %s sent a malformed fence", rm_host(px->host));
        return;
    }
    px->fenced = 1;
    rm.nfenced++;
    mpx_frame_raw(&rm.batch, body + pairs_off, len - pairs_off);
    rm.nbatch += (int)n;
    if (rm.nfenced < rm.nproxies && !rm.tearing_down) {
        /* a rank that left without finalizing can never join this fence */
        for (int r = 0; r < rm.size; r++)
            if (rm.ranks[r].exited && !rm.ranks[r].finalized) {
                rm_fail(1,
                        "rank %d on host %s has exited, so the PMI barrier (MPI_Init, fence) "
                        "other ranks wait in can never complete",
                        r, rm_host(rm.ranks[r].host));
                return;
            }
    }
    if (rm.nfenced == rm.nproxies) {
        mpx_frame_t f = {0};
        mpx_frame_begin(&f, MPX_F_FENCE);
        mpx_frame_int(&f, rm.nbatch);
        mpx_frame_raw(&f, rm.batch.buf, rm.batch.len);
        rm_send_all(&f);
        mpx_frame_free(&f);
        rm.batch.len = 0;
        rm.nbatch = 0;
        rm.nfenced = 0;
        for (int p = 0; p < rm.nproxies; p++)
            rm.proxies[p].fenced = 0;
    }
}

/* Is rank r one this proxy runs? */
static int rm_rank_of(rm_proxy_t *px, const char *field, int *bad)
{
    int r = (int)mpx_field_int(field, 0, rm.size - 1, bad);
    if (!*bad && rm.ranks[r].host != px->host)
        *bad = 1;
    return r;
}

static void rm_frame(rm_proxy_t *px, const char *body, size_t len)
{
    const char *fl[8];
    size_t rest = 0;
    int bad = 0, r, nf;

    if (body[0] == MPX_F_FENCE) {
        /* count the fields: the pairs of the whole host */
        int need = 0;
        const char **all;
        for (size_t i = 1; i < len; i++)
            need += body[i] == '\0';
        all = malloc((size_t)(need + 1) * sizeof *all);
        if (all == NULL) {
            rm_fail(255, "no memory for a fence");
            return;
        }
        nf = mpx_frame_fields(body, len, all, need + 1, NULL);
        /* pairs start after the count field */
        rest = nf >= 1 ? (size_t)(all[0] - body) + strlen(all[0]) + 1 : len;
        rm_fence(px, all, nf, body, len, rest);
        free(all);
        return;
    }
    nf = mpx_frame_fields(body, len, fl, body[0] == MPX_F_OUTPUT ? 2 : 8, &rest);
    switch (body[0]) {
    case MPX_F_HELLO:
        if (rm.o->verbose && nf >= 1)
            fprintf(stderr, "mpiexec: proxy on host %s is up (hostname %s)\n", rm_host(px->host),
                    fl[0]);
        return;
    case MPX_F_STARTED:
        r = nf == 2 ? rm_rank_of(px, fl[0], &bad) : (bad = 1);
        if (!bad)
            rm.ranks[r].pid = (pid_t)mpx_field_int(fl[1], 1, INT_MAX, &bad);
        break;
    case MPX_F_OUTPUT: {
        int stream;
        r = nf == 2 ? rm_rank_of(px, fl[0], &bad) : (bad = 1);
        stream = nf == 2 ? (int)mpx_field_int(fl[1], 1, 2, &bad) : 1;
        if (!bad)
            rm_output(r, stream, body + rest, len - rest);
        break;
    }
    case MPX_F_EXIT:
        r = nf == 4 ? rm_rank_of(px, fl[0], &bad) : (bad = 1);
        if (!bad) {
            int status = (int)mpx_field_int(fl[1], 0, INT_MAX, &bad);
            int ini = (int)mpx_field_int(fl[2], 0, 1, &bad);
            int fin = (int)mpx_field_int(fl[3], 0, 1, &bad);
            if (!bad)
                rm_rank_exit(px, r, status, ini, fin);
        }
        break;
    case MPX_F_ABORT:
        r = nf == 3 ? rm_rank_of(px, fl[0], &bad) : (bad = 1);
        if (!bad) {
            int code = (int)mpx_field_int(fl[1], INT_MIN, INT_MAX, &bad);
            rm_fail(code, "rank %d (pid %ld) on host %s called MPI_Abort with exit code %d%s%.200s",
                    r, (long)rm.ranks[r].pid, rm_host(px->host), code, *fl[2] ? ": " : "", fl[2]);
        }
        break;
    case MPX_F_ERROR:
        if (nf >= 1)
            fprintf(stderr, "mpiexec: host %s: %s\n", rm_host(px->host), fl[0]);
        break;
    default:
        bad = 1;
    }
    if (bad)
        rm_fail(255, "the proxy on host %s sent a malformed message ('%c')", rm_host(px->host),
                body[0]);
}

/* The proxy's link closed: ranks it did not report are lost. */
static void rm_proxy_closed(rm_proxy_t *px, const char *why)
{
    int lost = 0;
    char names[200] = "";
    if (px->closed)
        return;
    px->closed = 1;
    close(px->link.rfd);
    close(px->link.wfd);
    for (int r = 0; r < rm.size; r++)
        if (rm.ranks[r].host == px->host && !rm.ranks[r].exited) {
            size_t k = strlen(names);
            if (lost < 8)
                snprintf(names + k, sizeof names - k, "%s%d", lost ? ", " : "", r);
            else if (lost == 8)
                snprintf(names + k, sizeof names - k, ", ...");
            lost++;
            rm.ranks[r].exited = 1;
            rm.ranks[r].status = 255 << 8;
            rm.nexited++;
        }
    if (lost > 0 && !rm.tearing_down)
        rm_fail(255,
                "lost the proxy on host %s (%s): rank%s %s ran there; ending the job on all hosts",
                rm_host(px->host), why, lost > 1 ? "s" : "", names);
}

/* ------------------------------------------------------------ start */

/* 'word' for a POSIX shell */
static void rm_quote(char *out, size_t len, const char *word)
{
    size_t k = 0;
    if (k + 1 < len)
        out[k++] = '\'';
    for (const char *p = word; *p != '\0' && k + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *p;
        }
    }
    if (k + 1 < len)
        out[k++] = '\'';
    out[k] = '\0';
}

static int rm_launch(rm_proxy_t *px, const char *self)
{
    const mpx_host_t *h = &rm.o->hostv[px->host];
    int fork_it = (rm.o->launcher != NULL && strcmp(rm.o->launcher, "fork") == 0) ||
                  (h->local && rm.o->launcher_exec == NULL &&
                   (rm.o->launcher == NULL || strcmp(rm.o->launcher, "fork") == 0));
    const char *ssh = rm.o->launcher_exec != NULL ? rm.o->launcher_exec : "ssh";
    int in[2], out[2];
    char cmd[8192], qself[4200], qhost[600];
    pid_t pid;

    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        fprintf(stderr, "mpiexec: pipe: %s\n", strerror(errno));
        return -1;
    }
    rm_quote(qself, sizeof qself, self);
    rm_quote(qhost, sizeof qhost, h->name);
    snprintf(cmd, sizeof cmd, "exec %s -proxy %s", qself, qhost);
    if (rm.o->verbose)
        fprintf(stderr, "mpiexec: starting the proxy on host %s: %s%s%s %s\n", h->name,
                fork_it ? "" : ssh, fork_it ? "" : " -x ", fork_it ? "" : h->name,
                fork_it ? cmd + 5 : cmd);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpiexec: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        setpgid(0, 0);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (fork_it) {
            execl(self, self, "-proxy", h->name, (char *)NULL);
            fprintf(stderr, "mpiexec: cannot run '%s' as the proxy: %s\n", self, strerror(errno));
        } else {
            execlp(ssh, ssh, "-x", h->name, cmd, (char *)NULL);
            fprintf(stderr, "mpiexec: cannot run the launcher '%s' for host %s: %s\n", ssh, h->name,
                    strerror(errno));
        }
        _exit(127);
    }
    setpgid(pid, pid);
    close(in[0]);
    close(out[1]);
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    px->pid = pid;
    mpx_link_init(&px->link, out[0], in[1]);
    return 0;
}

/* The job for proxy px: see proxy.c px_job(). */
static int rm_send_job(rm_proxy_t *px, const char *kvsname, const char *mapping, int usize,
                       mpx_env_t *segenv, const char *cwd)
{
    mpx_frame_t f = {0};
    int rc;
    mpx_frame_begin(&f, MPX_F_JOB);
    mpx_frame_str(&f, kvsname);
    mpx_frame_int(&f, rm.size);
    mpx_frame_int(&f, usize);
    mpx_frame_str(&f, mapping);
    mpx_frame_str(&f, rm.o->iface != NULL ? rm.o->iface : "");
    mpx_frame_int(&f, rm.o->nsegs);
    for (int s = 0; s < rm.o->nsegs; s++) {
        const mpx_segment_t *g = &rm.o->segs[s];
        int argc = 0;
        while (g->argv[argc] != NULL)
            argc++;
        mpx_frame_str(&f, g->wdir != NULL ? g->wdir : cwd);
        mpx_frame_int(&f, argc);
        for (int a = 0; a < argc; a++)
            mpx_frame_str(&f, g->argv[a]);
        mpx_frame_int(&f, segenv[s].n);
        for (int e = 0; e < segenv[s].n; e++)
            mpx_frame_str(&f, segenv[s].kv[e]);
    }
    mpx_frame_int(&f, px->nranks);
    for (int r = 0; r < rm.size; r++)
        if (rm.ranks[r].host == px->host) {
            mpx_frame_int(&f, r);
            mpx_frame_int(&f, rm.ranks[r].seg);
            mpx_frame_int(&f, rm.ranks[r].appnum);
        }
    rc = mpx_link_send(&px->link, &f);
    mpx_frame_free(&f);
    return rc;
}

/* Options that need this host's files or processes are refused across hosts. */
static int rm_check_options(const mpx_opts_t *o)
{
    const char *what = o->outpat != NULL          ? "-outfile-pattern"
                       : o->errpat != NULL        ? "-errfile-pattern"
                       : o->bind != MPX_BIND_NONE ? "-bind-to"
                       : o->singleton_fd >= 0     ? "-singleton"
                                                  : NULL;
    if (what != NULL) {
        fprintf(stderr, "mpiexec: %s is not supported in jobs across hosts (-hosts/-f)\n", what);
        return -1;
    }
    return 0;
}

static void rm_reap(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int p = 0; p < rm.nproxies; p++)
            if (rm.proxies[p].pid == pid) {
                rm.proxies[p].reaped = 1;
                rm.proxies[p].status = status;
            }
    }
}

static void rm_signal(int sig)
{
    mpx_frame_t f = {0};
    if (sig == SIGCHLD) {
        rm_reap();
        return;
    }
    mpx_frame_begin(&f, MPX_F_SIGNAL);
    mpx_frame_int(&f, sig);
    if (sig == SIGUSR1 || sig == SIGUSR2) {
        rm_send_all(&f);
    } else if (rm.tearing_down) {
        for (int p = 0; p < rm.nproxies; p++)
            if (!rm.proxies[p].reaped)
                kill(-rm.proxies[p].pid, SIGKILL);
    } else {
        if (!rm.failed) {
            rm.failed = 1;
            rm.exit_code = 128 + sig;
            fprintf(stderr, "mpiexec: received signal %d (%s); forwarding it to all ranks\n", sig,
                    rm_sig_name(sig));
        }
        rm_send_all(&f);
        rm_teardown();
    }
    mpx_frame_free(&f);
}

int mpx_remote_main(mpx_opts_t *o, int timeout_s)
{
    static char self[4096], cwd[4096], kvsname[256], mapping[8192];
    int *host_of = NULL, *proxy_of_host = NULL, sigfd, usize;
    long long timeout_deadline = -1;
    mpx_env_t *segenv = NULL;
    struct pollfd *pfd = NULL;
    ssize_t sl;

    rm.o = o;
    if (rm_check_options(o) != 0)
        return 2;
    for (int s = 0; s < o->nsegs; s++)
        rm.size += o->segs[s].nprocs;
    if (rm.size > 1000000) {
        fprintf(stderr, "mpiexec: more than 1000000 processes requested\n");
        return 2;
    }
    sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0 || getcwd(cwd, sizeof cwd) == NULL) {
        fprintf(stderr, "mpiexec: cannot find this program's path or the working directory\n");
        return 1;
    }
    self[sl] = '\0';
    host_of = malloc((size_t)rm.size * sizeof *host_of);
    proxy_of_host = malloc((size_t)o->nhosts * sizeof *proxy_of_host);
    rm.ranks = calloc((size_t)rm.size, sizeof *rm.ranks);
    rm.proxies = calloc((size_t)o->nhosts, sizeof *rm.proxies);
    segenv = calloc((size_t)o->nsegs, sizeof *segenv);
    if (host_of == NULL || proxy_of_host == NULL || rm.ranks == NULL || rm.proxies == NULL ||
        segenv == NULL) {
        fprintf(stderr, "mpiexec: no memory for %d ranks on %d hosts\n", rm.size, o->nhosts);
        return 1;
    }
    mpx_hosts_place(o->hostv, o->nhosts, rm.size, host_of);
    if (mpx_hosts_mapping(host_of, rm.size, mapping, sizeof mapping) != 0) {
        fprintf(stderr,
                "mpiexec: the placement of %d ranks on %d hosts is too irregular for "
                "PMI_process_mapping; give the hosts equal slot counts or use -ppn\n",
                rm.size, o->nhosts);
        return 2;
    }
    for (int h = 0; h < o->nhosts; h++)
        proxy_of_host[h] = -1;
    {
        int seg = 0, left = o->segs[0].nprocs;
        for (int r = 0; r < rm.size; r++) {
            while (left == 0)
                left = o->segs[++seg].nprocs;
            left--;
            rm.ranks[r].host = host_of[r];
            rm.ranks[r].seg = seg;
            rm.ranks[r].appnum = seg;
            if (proxy_of_host[host_of[r]] < 0) {
                proxy_of_host[host_of[r]] = rm.nproxies;
                rm.proxies[rm.nproxies++].host = host_of[r];
            }
            rm.proxies[proxy_of_host[host_of[r]]].nranks++;
        }
    }
    for (int s = 0; s < o->nsegs; s++)
        if (mpx_segment_env(o, &o->segs[s], &segenv[s]) != 0) {
            fprintf(stderr, "mpiexec: no memory for the environment\n");
            return 1;
        }
    {
        char me[200] = "";
        struct timespec ts;
        gethostname(me, sizeof me - 1);
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(kvsname, sizeof kvsname, "canal_%.100s_%ld_%lx", me, (long)getpid(),
                 (unsigned long)(ts.tv_sec * 1000003L + ts.tv_nsec));
    }
    usize = o->usize > 0 ? o->usize : rm.size;

    sigfd = mpx_signals_open(1);
    if (sigfd < 0) {
        fprintf(stderr, "mpiexec: signalfd: %s\n", strerror(errno));
        return 1;
    }
    if (o->verbose)
        fprintf(stderr, "mpiexec: %d ranks on %d hosts, job %s, mapping %s\n", rm.size, rm.nproxies,
                kvsname, mapping);
    for (int p = 0; p < rm.nproxies; p++) {
        /* a launcher that exits at once breaks the pipe: its end of file
         * then reports it with its exit status */
        if (rm_launch(&rm.proxies[p], self) != 0 ||
            (rm_send_job(&rm.proxies[p], kvsname, mapping, usize, segenv, cwd) != 0 &&
             !rm.proxies[p].link.broken)) {
            rm_fail(1, "could not start the proxy on host %s", rm_host(rm.proxies[p].host));
            for (int q = p; q < rm.nproxies; q++)
                if (rm.proxies[q].pid == 0)
                    rm.proxies[q].closed = rm.proxies[q].reaped = 1;
            break;
        }
    }
    for (int s = 0; s < o->nsegs; s++) {
        for (int k = 0; k < segenv[s].n; k++)
            free(segenv[s].kv[k]);
        free(segenv[s].kv);
    }
    free(segenv);
    if (timeout_s > 0)
        timeout_deadline = common_now_ms() + (long long)timeout_s * 1000;
    pfd = calloc((size_t)(1 + 2 * rm.nproxies), sizeof *pfd);
    if (pfd == NULL)
        return 1;

    for (;;) {
        int n = 0, open_links = 0, wait_ms = -1, nfd;
        long long t = common_now_ms(), next = -1;

        for (int p = 0; p < rm.nproxies; p++)
            open_links += !rm.proxies[p].closed;
        if (open_links == 0)
            break;
        if (timeout_deadline >= 0 && t >= timeout_deadline && !rm.tearing_down) {
            timeout_deadline = -1;
            rm.timed_out = 1;
            rm_fail(255, "MPIEXEC_TIMEOUT=%d s expired; killing all ranks on all hosts", timeout_s);
        }
        if (rm.tearing_down && rm.kill_deadline >= 0 && t >= rm.kill_deadline) {
            /* proxies that did not finish: kill the launchers (ssh ends the remote side) */
            rm.kill_deadline = -1;
            for (int p = 0; p < rm.nproxies; p++)
                if (!rm.proxies[p].reaped)
                    kill(-rm.proxies[p].pid, SIGKILL);
            for (int p = 0; p < rm.nproxies; p++)
                rm_proxy_closed(&rm.proxies[p], "killed after the grace period");
            break;
        }
        if (timeout_deadline >= 0 && !rm.tearing_down)
            next = timeout_deadline;
        if (rm.tearing_down && rm.kill_deadline >= 0 && (next < 0 || rm.kill_deadline < next))
            next = rm.kill_deadline;
        wait_ms = next < 0 ? -1 : (int)(next - t > 0 ? next - t : 0);
        pfd[n++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        for (int p = 0; p < rm.nproxies; p++) {
            rm_proxy_t *px = &rm.proxies[p];
            pfd[n++] = (struct pollfd){.fd = px->closed ? -1 : px->link.rfd, .events = POLLIN};
            pfd[n++] = (struct pollfd){
                .fd = !px->closed && px->link.out_len > 0 ? px->link.wfd : -1, .events = POLLOUT};
        }
        nfd = poll(pfd, (nfds_t)n, wait_ms);
        if (nfd < 0 && errno != EINTR) {
            fprintf(stderr, "mpiexec: poll: %s\n", strerror(errno));
            break;
        }
        if (nfd <= 0)
            continue;
        if (pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                rm_signal((int)si.ssi_signo);
            rm_reap();
        }
        for (int p = 0; p < rm.nproxies; p++) {
            rm_proxy_t *px = &rm.proxies[p];
            if (px->closed)
                continue;
            if (pfd[2 + 2 * p].revents)
                mpx_link_flush(&px->link);
            if (pfd[1 + 2 * p].revents) {
                int rc = mpx_link_read(&px->link), tk = 0;
                const char *body;
                size_t len;
                while (!px->closed && (tk = mpx_link_take(&px->link, &body, &len)) == 1)
                    rm_frame(px, body, len);
                if (!px->closed && tk < 0) {
                    rm_fail(255, "the proxy on host %s sent malformed data", rm_host(px->host));
                    rc = 1;
                }
                if (rc != 0 && !px->closed) {
                    char why[128];
                    int st;
                    /* the launcher's status says why (ssh: 255 cannot connect) */
                    if (!px->reaped && waitpid(px->pid, &st, 0) == px->pid) {
                        px->reaped = 1;
                        px->status = st;
                    }
                    if (px->reaped && WIFSIGNALED(px->status))
                        snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(px->status));
                    else if (px->reaped)
                        snprintf(why, sizeof why, "the launcher exited with code %d%s",
                                 WEXITSTATUS(px->status),
                                 WEXITSTATUS(px->status) == 255 && rm.o->launcher_exec == NULL
                                     ? "; can 'ssh HOST true' run without a prompt?"
                                     : "");
                    else
                        snprintf(why, sizeof why, "its connection closed");
                    rm_proxy_closed(px, why);
                }
            }
        }
    }
    /* whatever is left of the ranks' output */
    for (int r = 0; r < rm.size; r++) {
        rm_emit(r, 1, 1);
        rm_emit(r, 2, 1);
    }
    for (int p = 0; p < rm.nproxies; p++)
        if (!rm.proxies[p].reaped && rm.proxies[p].pid > 0) {
            kill(-rm.proxies[p].pid, SIGKILL);
            waitpid(rm.proxies[p].pid, NULL, 0);
        }
    free(pfd);
    free(host_of);
    free(proxy_of_host);
    if (rm.timed_out)
        return 255;
    if (rm.failed)
        return rm.exit_code > 255 || rm.exit_code < 0 ? 255 : rm.exit_code;
    return 0;
}
