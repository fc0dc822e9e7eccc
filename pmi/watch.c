/*
 * The watch on the process manager. A rank whose launcher died (kill -9 of
 * mpiexec, a lost login, a scheduler ending the step) would otherwise wait
 * for ever in a blocked receive: nothing else tells it. A PMI-1/PMI-2 client
 * holds a connection its launcher keeps open for the whole job, and the
 * kernel closes it when the launcher dies. pmi_watch_start (pmi/pmi.c calls
 * it once the connection is up) starts one thread that sleeps in poll() on
 * that connection for its hang-up and for what the launcher sends unasked
 * (a rank failed: pmi_conn_drain hands it to the device), so it costs
 * nothing while the job runs. On a
 * hang-up it does what the launcher would have done: prints why, sends this
 * process SIGTERM (the shm channel's handlers clean up, a program's own
 * handler runs), and ends the process if it is still there after a grace
 * period. pmi_watch_stop is called before the connection is expected to
 * close: pmi_finalize, pmi_abort.
 *
 * Canal's mpiexec also sets PR_SET_PDEATHSIG (SIGTERM) in every rank it
 * forks, for programs that never start the watch (not MPI, or not yet in
 * MPI_Init). Once the watch runs it clears that signal: both would fire at
 * once, and the signal would end the process before the watch says why.
 */
#include "pmi/pmi_impl.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/cvar.h"
#include "common/log.h"

enum { WATCH_GRACE_MS = 3000 }; /* as long as mpiexec waits between SIGTERM and SIGKILL */

static struct {
    int running;
    pthread_t tid;
    int fd;           /* the PMI connection */
    pmi_conn_t *conn; /* its state, to read what the launcher sends unasked */
    int stop_fd; /* eventfd: readable once pmi_watch_stop was called */
    int kick_fd; /* eventfd: a request left bytes in the connection's buffer */
    atomic_int stopping;
    char describe[320];
} watch = {.fd = -1, .stop_fd = -1, .kick_fd = -1};

static void *watch_main(void *arg)
{
    /* POLLIN too: Canal's mpiexec sends "a rank failed" unasked. A reply
     * to the main thread wakes us as well; then its request holds the
     * connection (pmi_conn_drain answers 0) and we look again a little
     * later, after it has read its reply. */
    struct pollfd p[3] = {{.fd = watch.fd, .events = POLLRDHUP | POLLIN},
                          {.fd = watch.stop_fd, .events = POLLIN},
                          {.fd = watch.kick_fd, .events = POLLIN}};
    (void)arg;
    for (;;) {
        int n = poll(p, 3, -1), got;
        uint64_t kicks;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || p[1].revents != 0 || atomic_load(&watch.stopping))
            return NULL;
        if (p[0].revents & POLLNVAL)
            return NULL; /* the connection was closed under us: nothing to watch */
        if (p[2].revents & POLLIN) {
            if (read(watch.kick_fd, &kicks, sizeof kicks) < 0) {
                /* (EAGAIN: another read took it) */
            }
            p[0].revents |= POLLIN;
        }
        if (!(p[0].revents & POLLIN)) {
            if (p[0].revents & (POLLRDHUP | POLLHUP | POLLERR))
                break;
            continue;
        }
        if ((got = pmi_conn_drain(watch.conn)) < 0)
            break; /* it was the hang-up */
        if (got == 0) {
            struct timespec ts = {0, 2000000L};
            nanosleep(&ts, NULL);
        }
    }
    LOG_ERR("the process manager closed its connection (%s) while this process was running: "
            "the launcher died (was mpiexec killed?) or ended the job; ending this process "
            "(pid %ld) as it would have",
            watch.describe, (long)getpid());
    kill(getpid(), SIGTERM);
    {
        struct timespec ts = {.tv_sec = WATCH_GRACE_MS / 1000,
                              .tv_nsec = (WATCH_GRACE_MS % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    LOG_ERR("SIGTERM did not end this process: exiting");
    _exit(1);
}

canal_status_t pmi_watch_start(pmi_conn_t *c, const char *describe)
{
    int fd = c->fd;
    pthread_attr_t attr;
    sigset_t all, old;
    int rc, sig = 0;

    if (watch.running || fd < 0 || !common_cvar_bool("PMI_WATCH"))
        return CANAL_OK;
    watch.fd = fd;
    watch.conn = c;
    snprintf(watch.describe, sizeof watch.describe, "%s", describe);
    atomic_store(&watch.stopping, 0);
    watch.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    watch.kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (watch.stop_fd < 0 || watch.kick_fd < 0) {
        int e = errno;
        if (watch.stop_fd >= 0)
            close(watch.stop_fd);
        if (watch.kick_fd >= 0)
            close(watch.kick_fd);
        watch.stop_fd = watch.kick_fd = -1;
        return common_err_set(CANAL_ERR_IO, "PMI watch: eventfd: %s", strerror(e));
    }
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    /* signals stay with the program's threads */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&watch.tid, &attr, watch_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        close(watch.stop_fd);
        close(watch.kick_fd);
        watch.stop_fd = watch.kick_fd = -1;
        return common_err_set(CANAL_ERR_NOMEM, "PMI watch: cannot start a thread: %s",
                              strerror(rc));
    }
    watch.running = 1;
    if (prctl(PR_GET_PDEATHSIG, &sig) == 0 && sig == SIGTERM)
        prctl(PR_SET_PDEATHSIG, 0);
    return CANAL_OK;
}

void pmi_watch_kick(void)
{
    uint64_t one = 1;
    if (!watch.running || watch.kick_fd < 0)
        return;
    if (write(watch.kick_fd, &one, sizeof one) < 0) {
        /* (cannot fail for an eventfd far from its limit) */
    }
}

void pmi_watch_stop(int join)
{
    uint64_t one = 1;

    if (!watch.running)
        return;
    atomic_store(&watch.stopping, 1);
    if (write(watch.stop_fd, &one, sizeof one) < 0) {
        /* cannot fail for an eventfd far from its limit; the flag suffices */
    }
    if (!join)
        return;
    pthread_join(watch.tid, NULL);
    close(watch.stop_fd);
    close(watch.kick_fd);
    watch.stop_fd = watch.kick_fd = -1;
    watch.running = 0;
}
