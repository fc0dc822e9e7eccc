/*
 * Canal's mpiexec: main() and the event loop of the launcher. One process,
 * one epoll set: the PMI sockets of all ranks (served by mpiexec/server.c),
 * their stdout/stderr pipes (forwarded line by line, optionally labelled),
 * stdin for rank 0, and a signalfd for SIGCHLD and the signals we forward.
 * Decides the exit code: 0 if every rank exits 0, else the first failure (exit
 * code, 128+signal, MPI_Abort code, 255 on MPIEXEC_TIMEOUT); a failure tears
 * the rest of the job down (SIGTERM, then SIGKILL) within seconds.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "mpiexec/mpiexec.h"
#include "common/clock.h"

enum {
    KILL_GRACE_MS = 3000,  /* SIGTERM, then SIGKILL after this */
    DRAIN_GRACE_MS = 2000, /* after the last rank exits, wait this long for output pipes */
    LINE_MAX_BYTES = 1 << 20,
};

/* epoll tokens: rank << 2 | kind, or one of the specials */
enum { TOK_PMI = 0, TOK_OUT = 1, TOK_ERR = 2 };
static const uint64_t TOK_SIGNAL = UINT64_MAX, TOK_STDIN = UINT64_MAX - 1,
                      TOK_STDIN_PIPE = UINT64_MAX - 2;

static int loop_epfd = -1;
static long long kill_deadline = -1, timeout_deadline = -1, drain_deadline = -1;
static int stdout_broken, stderr_broken;

/* stdin forwarding (only when stdin is our terminal) */
static int stdin_fwd_w = -1;
static char stdin_buf[65536];
static size_t stdin_len, stdin_off;
static int stdin_eof;

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void loop_add(int fd, uint32_t events, uint64_t tok)
{
    struct epoll_event ev = {.events = events, .data.u64 = tok};
    if (epoll_ctl(loop_epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        fprintf(stderr, "mpiexec: epoll_ctl(add fd %d): %s\n", fd, strerror(errno));
}

void mpx_loop_want_write(mpx_job_t *job, mpx_rank_t *r, int want)
{
    struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0),
                             .data.u64 = (uint64_t)r->idx << 2 | TOK_PMI};
    if (r->pmi_fd < 0 || r->pmi_wantw == want)
        return;
    r->pmi_wantw = want;
    epoll_ctl(loop_epfd, EPOLL_CTL_MOD, r->pmi_fd, &ev);
}

void mpx_loop_add_rank(mpx_job_t *job, mpx_rank_t *r)
{
    uint64_t tok = (uint64_t)r->idx << 2;
    if (r->pmi_fd >= 0) {
        set_nonblock(r->pmi_fd);
        loop_add(r->pmi_fd, EPOLLIN, tok | TOK_PMI);
    }
    if (r->out.fd >= 0) {
        set_nonblock(r->out.fd);
        loop_add(r->out.fd, EPOLLIN, tok | TOK_OUT);
    }
    if (r->err.fd >= 0) {
        set_nonblock(r->err.fd);
        loop_add(r->err.fd, EPOLLIN, tok | TOK_ERR);
    }
}

const char *mpx_rank_name(const mpx_job_t *job, const mpx_rank_t *r)
{
    static char name[64];
    if (r->pj == 0 && job->opts->singleton_fd >= 0)
        snprintf(name, sizeof name, "the singleton (rank 0 of job 0)");
    else if (r->pj == 0)
        snprintf(name, sizeof name, "rank %d", r->rank);
    else
        snprintf(name, sizeof name, "rank %d of spawned job %d", r->rank, r->pj);
    return name;
}

/* ------------------------------------------------------------ failure and teardown */

static void signal_all(mpx_job_t *job, int sig)
{
    for (int i = 0; i < job->nranks; i++)
        if (job->ranks[i]->pid > 0 && !job->ranks[i]->exited)
            kill(-job->ranks[i]->pid, sig);
}

static void teardown_with(mpx_job_t *job, int sig)
{
    int alive = job->nranks - job->nexited;
    if (job->tearing_down)
        return;
    job->tearing_down = 1;
    if (alive > 0 && job->opts->verbose)
        fprintf(stderr, "mpiexec: terminating the %d remaining rank%s\n", alive,
                alive == 1 ? "" : "s");
    signal_all(job, sig);
    /* The singleton is not ours to signal: closing its PMI connection tells
     * it that the job is over (its PMI watch ends it, an abort returns). */
    if (job->opts->singleton_fd >= 0 && job->nranks > 0 && !job->ranks[0]->exited)
        mpx_server_close(job, job->ranks[0]);
    kill_deadline = common_now_ms() + KILL_GRACE_MS;
    if (stdin_fwd_w >= 0) {
        close(stdin_fwd_w);
        stdin_fwd_w = -1;
    }
}

void mpx_job_teardown(mpx_job_t *job)
{
    teardown_with(job, SIGTERM);
}

void mpx_job_fail(mpx_job_t *job, int rank, int code, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    if (job->failed)
        return;
    job->failed = 1;
    job->exit_code = code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpiexec: %s\n", msg);
    mpx_job_teardown(job);
}

static const char *sig_name(int sig)
{
    const char *d = strsignal(sig);
    return d != NULL ? d : "unknown signal";
}

/* A rank failed (killed, nonzero exit, exit without MPI_Finalize). By
 * default the job ends; under -disable-auto-cleanup the others keep
 * running (they learn of the loss through their channels: shm sees the pid
 * gone, sock the connection reset) and the failure only decides the exit
 * code; a PMI barrier then completes without the ranks that exited
 * (mpx_server_check_barriers; by default such a barrier ends the job). */
static void rank_fail(mpx_job_t *job, mpx_rank_t *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void rank_fail(mpx_job_t *job, mpx_rank_t *r, int code, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!job->opts->disable_auto_cleanup || job->nexited == job->nranks) {
        if (job->nkept_failures == 0 || job->failed)
            mpx_job_fail(job, r->rank, code, "%s", msg);
        else
            fprintf(stderr, "mpiexec: %s\n", msg);
        return;
    }
    if (job->nkept_failures++ == 0)
        job->kept_exit_code = code;
    fprintf(stderr, "mpiexec: %s; the other ranks go on (-disable-auto-cleanup)\n", msg);
    mpx_server_notify_failed(job, r);
}

static void rank_exited(mpx_job_t *job, mpx_rank_t *r, int status)
{
    r->exited = 1;
    r->status = status;
    job->nexited++;
    mpx_server_rank_exited(job, r); /* may record an abort it sent last */
    if (job->tearing_down)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        rank_fail(job, r, 128 + sig, "%s (pid %ld, %s) was killed by signal %d (%s)",
                  mpx_rank_name(job, r), (long)r->pid, job->opts->segs[r->seg].argv[0], sig,
                  sig_name(sig));
    } else if (WEXITSTATUS(status) != 0) {
        rank_fail(job, r, WEXITSTATUS(status), "%s (pid %ld, %s) exited with code %d%s",
                  mpx_rank_name(job, r), (long)r->pid, job->opts->segs[r->seg].argv[0],
                  WEXITSTATUS(status),
                  r->initialized && !r->finalized ? " before MPI_Finalize" : "");
    } else if (r->initialized && !r->finalized && job->nexited < job->nranks) {
        rank_fail(job, r, 1,
                  "%s (pid %ld, %s) exited without calling MPI_Finalize while other ranks "
                  "still run",
                  mpx_rank_name(job, r), (long)r->pid, job->opts->segs[r->seg].argv[0]);
    }
    /* Judged by its exit status first: a rank killed by a signal reports the
     * signal even when others wait for it in a PMI barrier. */
    mpx_server_check_barriers(job, r);
    if (job->nexited == job->nranks)
        drain_deadline = common_now_ms() + DRAIN_GRACE_MS;
}

void mpx_job_settle(mpx_job_t *job)
{
    for (int i = 0; i < job->nranks; i++) {
        mpx_rank_t *r = job->ranks[i];
        int status;
        if (r->pid > 0 && !r->exited && !r->aborted && mpx_reap_if_exiting(r->pid, &status))
            rank_exited(job, r, status);
    }
}

void mpx_singleton_gone(mpx_job_t *job, mpx_rank_t *r)
{
    if (r->exited)
        return;
    r->exited = 1;
    r->status = 0;
    job->nexited++;
    if (!r->finalized && !job->tearing_down)
        mpx_job_fail(job, r->rank, 1,
                     "the singleton (job %s) closed its PMI connection without MPI_Finalize: it "
                     "exited or was killed; ending the processes it spawned",
                     job->pjobs[0].kvsname);
    if (job->nexited == job->nranks)
        drain_deadline = common_now_ms() + DRAIN_GRACE_MS;
}

static void reap(mpx_job_t *job)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int i = 0; i < job->nranks; i++) {
            if (job->ranks[i]->pid == pid && !job->ranks[i]->exited) {
                rank_exited(job, job->ranks[i], status);
                break;
            }
        }
    }
}

/* ------------------------------------------------------------ output */

static void write_all(int fd, const char *buf, size_t len)
{
    int *broken = fd == 1 ? &stdout_broken : &stderr_broken;
    while (len > 0 && !*broken) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, 1000);
            continue;
        }
        if (n <= 0) {
            *broken = 1; /* our output is gone (EPIPE): drop the ranks' output */
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* Write the complete lines of s (all of it when final), labelled if asked. */
static void stream_emit(mpx_job_t *job, mpx_rank_t *r, mpx_stream_t *s, int final)
{
    size_t end = s->len;
    char label[32];
    int llen;

    if (!final) {
        while (end > 0 && s->buf[end - 1] != '\n')
            end--;
        if (end == 0 && s->len >= LINE_MAX_BYTES)
            end = s->len; /* an endless line: pass it on in pieces */
    }
    if (end == 0)
        return;
    if (!job->opts->label) {
        write_all(s->to, s->buf, end);
    } else {
        /* one write per batch of labelled lines */
        size_t lines = 1, cap, k = 0, i = 0;
        char *tmp;
        for (size_t j = 0; j < end; j++)
            lines += s->buf[j] == '\n';
        llen = r->pj == 0 ? snprintf(label, sizeof label, "[%d] ", r->rank)
                          : snprintf(label, sizeof label, "[%d:%d] ", r->pj, r->rank);
        cap = end + lines * (size_t)llen + 2;
        tmp = malloc(cap);
        if (tmp == NULL) {
            write_all(s->to, s->buf, end);
        } else {
            while (i < end) {
                size_t j = i;
                while (j < end && s->buf[j] != '\n')
                    j++;
                if (j < end)
                    j++;
                if (k + (size_t)llen + (j - i) + 1 > cap)
                    break;
                memcpy(tmp + k, label, (size_t)llen);
                k += (size_t)llen;
                memcpy(tmp + k, s->buf + i, j - i);
                k += j - i;
                i = j;
            }
            if (final && k > 0 && tmp[k - 1] != '\n')
                tmp[k++] = '\n';
            write_all(s->to, tmp, k);
            free(tmp);
            end = i;
        }
    }
    memmove(s->buf, s->buf + end, s->len - end);
    s->len -= end;
}

static void stream_close(mpx_job_t *job, mpx_rank_t *r, mpx_stream_t *s)
{
    stream_emit(job, r, s, 1);
    close(s->fd); /* also leaves epoll */
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

static void stream_readable(mpx_job_t *job, mpx_rank_t *r, mpx_stream_t *s)
{
    for (int rounds = 0; rounds < 16 && s->fd >= 0; rounds++) {
        ssize_t n;
        if (s->cap - s->len < 16384) {
            size_t cap = s->cap ? s->cap * 2 : 65536;
            char *b = realloc(s->buf, cap);
            if (b == NULL) {
                stream_emit(job, r, s, 1);
                continue;
            }
            s->buf = b;
            s->cap = cap;
        }
        n = read(s->fd, s->buf + s->len, s->cap - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            stream_close(job, r, s);
            return;
        }
        s->len += (size_t)n;
        stream_emit(job, r, s, 0);
    }
}

static int streams_open(const mpx_job_t *job)
{
    for (int i = 0; i < job->nranks; i++)
        if (job->ranks[i]->out.fd >= 0 || job->ranks[i]->err.fd >= 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ stdin */

/* One read from our stdin when it is readable (it stays blocking: it is the
 * terminal, shared with the shell), then as much as rank 0's pipe takes. */
static void stdin_pump(int can_read)
{
    if (can_read && stdin_off == stdin_len && !stdin_eof) {
        ssize_t n = read(0, stdin_buf, sizeof stdin_buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        if (n <= 0) {
            stdin_eof = 1;
        } else {
            stdin_len = (size_t)n;
            stdin_off = 0;
        }
    }
    while (stdin_fwd_w >= 0 && stdin_off < stdin_len) {
        ssize_t n = write(stdin_fwd_w, stdin_buf + stdin_off, stdin_len - stdin_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            /* rank 0 reads slowly: wait for room, stop reading our stdin meanwhile */
            struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = TOK_STDIN_PIPE};
            epoll_ctl(loop_epfd, EPOLL_CTL_DEL, 0, NULL);
            epoll_ctl(loop_epfd, EPOLL_CTL_ADD, stdin_fwd_w, &ev);
            return;
        }
        if (n <= 0) {
            stdin_eof = 1; /* rank 0 closed its stdin */
            stdin_len = stdin_off = 0;
            break;
        }
        stdin_off += (size_t)n;
    }
    if (stdin_eof || stdin_fwd_w < 0) {
        epoll_ctl(loop_epfd, EPOLL_CTL_DEL, 0, NULL);
        if (stdin_fwd_w >= 0)
            close(stdin_fwd_w);
        stdin_fwd_w = -1;
    }
}

static void stdin_pipe_writable(void)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TOK_STDIN};
    epoll_ctl(loop_epfd, EPOLL_CTL_DEL, stdin_fwd_w, NULL);
    epoll_ctl(loop_epfd, EPOLL_CTL_ADD, 0, &ev);
    stdin_pump(0);
}

/* Rank 0 reads our stdin directly, unless it is the terminal we are in the
 * foreground of: the ranks are in their own process groups, so a terminal read
 * would stop them (SIGTTIN); there we forward through a pipe. */
static void stdin_setup(mpx_job_t *job)
{
    int p[2];
    if (fcntl(0, F_GETFD) < 0) {
        job->stdin_child = -1;
        return;
    }
    if (!isatty(0)) {
        job->stdin_child = 0;
        return;
    }
    if (tcgetpgrp(0) != getpgrp() || pipe2(p, O_CLOEXEC) != 0) {
        job->stdin_child = -1;
        return;
    }
    job->stdin_child = p[0];
    stdin_fwd_w = p[1];
    set_nonblock(p[1]);
}

/* ------------------------------------------------------------ main */

static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
            _exit(1);
}

static void handle_signal(mpx_job_t *job, int sig)
{
    switch (sig) {
    case SIGCHLD:
        reap(job);
        break;
    case SIGUSR1:
    case SIGUSR2:
        signal_all(job, sig);
        break;
    default: /* SIGINT, SIGTERM, SIGHUP, SIGQUIT */
        if (job->tearing_down) {
            /* asked again: no more patience */
            signal_all(job, SIGKILL);
            break;
        }
        if (!job->failed) {
            job->failed = 1;
            job->exit_code = 128 + sig;
            fprintf(stderr, "mpiexec: received signal %d (%s); forwarding it to all ranks\n", sig,
                    sig_name(sig));
        }
        teardown_with(job, sig);
        break;
    }
}

/* -singleton: the singleton is rank 0 of job 0 and already runs; its stdin
 * and output are its own (spawned processes read /dev/null). */
static int singleton_adopt(mpx_job_t *job)
{
    mpx_rank_t *r = job->ranks[0];

    if (fcntl(job->opts->singleton_fd, F_SETFD, FD_CLOEXEC) != 0) {
        fprintf(stderr, "mpiexec: -singleton %d: not an open file descriptor\n",
                job->opts->singleton_fd);
        return -1;
    }
    job->stdin_child = -1;
    r->pmi_fd = job->opts->singleton_fd;
    mpx_loop_add_rank(job, r);
    if (job->opts->verbose)
        fprintf(stderr, "mpiexec: serving the singleton of job %s\n", job->pjobs[0].kvsname);
    return 0;
}

static int parse_timeout(int *secs_out)
{
    const char *v = getenv("MPIEXEC_TIMEOUT");
    char *end;
    long s;
    *secs_out = 0;
    if (v == NULL || *v == '\0')
        return 0;
    s = strtol(v, &end, 10);
    if (*end != '\0' || s < 0 || s > 100000000) {
        fprintf(stderr, "mpiexec: MPIEXEC_TIMEOUT='%s' is not a number of seconds\n", v);
        return 2;
    }
    *secs_out = (int)s;
    return 0;
}

int main(int argc, char **argv)
{
    static mpx_opts_t opts;
    static mpx_job_t job;
    int sigfd, rc, timeout_s;

    ensure_std_fds();
    if (argc >= 2 && strcmp(argv[1], "-proxy") == 0)
        return mpx_proxy_main(argc, argv);
    rc = mpx_options_parse(argc, argv, &opts);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return 2;
    if (parse_timeout(&timeout_s) != 0)
        return 2;
    if (mpx_hosts_remote(&opts))
        return mpx_remote_main(&opts, timeout_s);

    job.opts = &opts;
    job.ops = &mpx_server_local_ops;
    gethostname(job.hostname, sizeof job.hostname - 1);
    {
        int total = 0;
        for (int s = 0; s < opts.nsegs; s++) {
            total += opts.segs[s].nprocs;
            if (total > 1000000) {
                fprintf(stderr, "mpiexec: more than 1000000 processes requested\n");
                return 2;
            }
        }
        if (mpx_job_add(&job, 0, total, NULL) != 0)
            return 1;
        if (opts.singleton_fd >= 0)
            snprintf(job.pjobs[0].kvsname, sizeof job.pjobs[0].kvsname, "%s", opts.singleton_jobid);
    }
    if (mpx_server_init(&job) != 0)
        return 1;

    /* Signals arrive through a signalfd; the children get a clean mask back. */
    sigfd = mpx_signals_open(1);
    loop_epfd = epoll_create1(EPOLL_CLOEXEC);
    if (sigfd < 0 || loop_epfd < 0) {
        fprintf(stderr, "mpiexec: signalfd/epoll: %s\n", strerror(errno));
        return 1;
    }
    loop_add(sigfd, EPOLLIN, TOK_SIGNAL);
    if (opts.singleton_fd >= 0) {
        if (singleton_adopt(&job) != 0)
            return 2;
    } else {
        stdin_setup(&job);
        if (opts.verbose)
            fprintf(stderr, "mpiexec: starting %d rank%s in %d segment%s, job %s\n", job.nranks,
                    job.nranks == 1 ? "" : "s", opts.nsegs, opts.nsegs == 1 ? "" : "s",
                    job.pjobs[0].kvsname);
        if (mpx_launch(&job, 0) != 0) {
            int started = 0;
            for (int i = 0; i < job.nranks; i++)
                started += job.ranks[i]->pid > 0;
            if (started == 0)
                return 1;
            mpx_job_fail(&job, -1, 1, "could not start all ranks");
        }
        if (stdin_fwd_w >= 0)
            loop_add(0, EPOLLIN, TOK_STDIN);
    }
    if (timeout_s > 0)
        timeout_deadline = common_now_ms() + (long long)timeout_s * 1000;

    while (job.nexited < job.nranks || (streams_open(&job) && common_now_ms() < drain_deadline)) {
        struct epoll_event evs[64];
        long long t = common_now_ms(), next = -1;
        int n, wait_ms;

        if (timeout_deadline >= 0 && t >= timeout_deadline && !job.tearing_down) {
            timeout_deadline = -1;
            job.timed_out = 1;
            mpx_job_fail(&job, -1, 255, "MPIEXEC_TIMEOUT=%d s expired; killing all ranks",
                         timeout_s);
        }
        if (kill_deadline >= 0 && t >= kill_deadline) {
            kill_deadline = -1;
            signal_all(&job, SIGKILL);
        }
        if (timeout_deadline >= 0 && !job.tearing_down)
            next = timeout_deadline;
        if (kill_deadline >= 0 && (next < 0 || kill_deadline < next))
            next = kill_deadline;
        if (job.nexited == job.nranks && (next < 0 || drain_deadline < next))
            next = drain_deadline;
        wait_ms = next < 0 ? -1 : (int)(next - t > 0 ? next - t : 0);
        n = epoll_wait(loop_epfd, evs, 64, wait_ms);
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "mpiexec: epoll_wait: %s\n", strerror(errno));
            break;
        }
        for (int e = 0; e < n; e++) {
            uint64_t tok = evs[e].data.u64;
            if (tok == TOK_SIGNAL) {
                struct signalfd_siginfo si;
                while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                    handle_signal(&job, (int)si.ssi_signo);
                reap(&job); /* SIGCHLDs coalesce; reaping is idempotent */
            } else if (tok == TOK_STDIN) {
                stdin_pump(1);
            } else if (tok == TOK_STDIN_PIPE) {
                stdin_pipe_writable();
            } else {
                mpx_rank_t *r = job.ranks[tok >> 2];
                switch (tok & 3) {
                case TOK_PMI:
                    if (r->pmi_fd >= 0 && (evs[e].events & EPOLLOUT))
                        mpx_server_writable(&job, r);
                    if (r->pmi_fd >= 0 && (evs[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                        mpx_server_readable(&job, r);
                    break;
                case TOK_OUT:
                    stream_readable(&job, r, &r->out);
                    break;
                case TOK_ERR:
                    stream_readable(&job, r, &r->err);
                    break;
                }
            }
        }
    }
    /* A process a rank left behind holds its pipes open: what is already
     * written goes out now; after a failure the leftovers are killed too. */
    if (job.tearing_down)
        for (int i = 0; i < job.nranks; i++)
            if (job.ranks[i]->pid > 0) /* never kill(0): a singleton's group is ours */
                kill(-job.ranks[i]->pid, SIGKILL);
    for (int i = 0; i < job.nranks; i++) {
        mpx_rank_t *r = job.ranks[i];
        if (r->out.fd >= 0)
            stream_readable(&job, r, &r->out);
        if (r->out.fd >= 0)
            stream_close(&job, r, &r->out);
        if (r->err.fd >= 0)
            stream_readable(&job, r, &r->err);
        if (r->err.fd >= 0)
            stream_close(&job, r, &r->err);
    }
    if (job.timed_out)
        return 255;
    if (job.failed)
        return job.exit_code > 255 || job.exit_code < 0 ? 255 : job.exit_code;
    if (job.nkept_failures > 0)
        return job.kept_exit_code > 255 || job.kept_exit_code <= 0 ? 255 : job.kept_exit_code;
    return 0;
}
