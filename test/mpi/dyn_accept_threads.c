/*
 * A threaded server accepts two client jobs at once: one thread per port,
 * each MPI_Comm_accept on its own duplicate of MPI_COMM_SELF, while two
 * separately started clients (second mpiexec jobs, one process each)
 * connect at the same moment. The roots of each introduction agree on the
 * intercommunicator's context id over the new connection; the two
 * agreements overlap in the server, so each one's messages must be told
 * from the other's by who sent them, not only by tag. The clients' free
 * context ids differ on purpose (one has made thousands of communicators
 * before it connects), so a message taken by the wrong agreement gives the
 * two sides different context ids and the traffic that follows (both ways
 * at once, a barrier) hangs, or the agreement fails; the runner's timeout
 * turns a hang into a failure. Repeated a few times. Run with 1 process;
 * needs MPI_THREAD_MULTIPLE.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dyn_util.h"
#include "mtest.h"

enum { ITER = 4, NCLIENT = 2, MANY = 3400 };

static char ports[NCLIENT][MPI_MAX_PORT_NAME];
static MPI_Comm selves[NCLIENT]; /* one communicator per thread (collectives) */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int thread_errors;

/* One side of the traffic over an intercommunicator of 1 + 1 processes. */
static int talk(MPI_Comm inter, int me, int other)
{
    int in = -1, bad = 0;
    MPI_Request rq[2];

    MPI_Irecv(&in, 1, MPI_INT, 0, 5, inter, &rq[0]);
    MPI_Isend(&me, 1, MPI_INT, 0, 5, inter, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad += in != other;
    MPI_Barrier(inter);
    return bad;
}

static void *serve(void *arg)
{
    int k = (int)(long)arg, bad;
    MPI_Comm inter;
    int err = MPI_Comm_accept(ports[k], MPI_INFO_NULL, 0, selves[k], &inter);

    if (err != MPI_SUCCESS) {
        pthread_mutex_lock(&err_lock);
        thread_errors++;
        pthread_mutex_unlock(&err_lock);
        fprintf(stderr, "server thread %d: accept err %d\n", k, err);
        return NULL;
    }
    bad = talk(inter, 100 + k, 200 + k);
    MPI_Comm_disconnect(&inter);
    if (bad) {
        pthread_mutex_lock(&err_lock);
        thread_errors++;
        pthread_mutex_unlock(&err_lock);
        fprintf(stderr, "server thread %d: wrong message from client %d\n", k, k);
    }
    return NULL;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f != NULL)
        fclose(f);
}

static int server(const char *self)
{
    char dir[] = "/tmp/canal-dyn-accept-threads-XXXXXX", path[PATH_MAX], mpiexec[PATH_MAX];
    pid_t pids[NCLIENT];
    int provided = -1;

    MPI_Query_thread(&provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
    if (mkdtemp(dir) == NULL) {
        CHECK(0, "mkdtemp failed");
        return mtest_finish();
    }
    find_mpiexec(mpiexec, sizeof mpiexec);
    for (int k = 0; k < NCLIENT; k++) {
        FILE *f;
        MPI_Comm_dup(MPI_COMM_SELF, &selves[k]);
        MPI_Open_port(MPI_INFO_NULL, ports[k]);
        snprintf(path, sizeof path, "%s/port%d", dir, k);
        f = fopen(path, "w");
        fprintf(f, "%s\n", ports[k]);
        fclose(f);
    }
    for (int k = 0; k < NCLIENT; k++) {
        char kbuf[8];
        snprintf(kbuf, sizeof kbuf, "%d", k);
        if ((pids[k] = fork()) == 0) {
            unsetenv("PMI_FD");
            unsetenv("PMI_RANK");
            unsetenv("PMI_SIZE");
            unsetenv("PMI_JOBID");
            execl(mpiexec, mpiexec, "-n", "1", self, "client", kbuf, dir, (char *)NULL);
            _exit(127);
        }
    }
    for (int it = 0; it < ITER; it++) {
        pthread_t th[NCLIENT];
        for (int k = 0; k < NCLIENT; k++)
            pthread_create(&th[k], NULL, serve, (void *)(long)k);
        /* both clients ready: let them connect together */
        for (int k = 0; k < NCLIENT; k++) {
            snprintf(path, sizeof path, "%s/ready%d-%d", dir, k, it);
            while (!exists(path))
                usleep(1000);
        }
        snprintf(path, sizeof path, "%s/go%d", dir, it);
        touch(path);
        for (int k = 0; k < NCLIENT; k++)
            pthread_join(th[k], NULL);
    }
    for (int k = 0; k < NCLIENT; k++) {
        int status = -1;
        waitpid(pids[k], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client %d's mpiexec: status %#x", k,
              status);
        MPI_Close_port(ports[k]);
        MPI_Comm_free(&selves[k]);
    }
    CHECK(thread_errors == 0, "%d errors in the server's threads", thread_errors);
    /* the temporary files */
    for (int it = 0; it < ITER; it++) {
        for (int k = 0; k < NCLIENT; k++) {
            snprintf(path, sizeof path, "%s/ready%d-%d", dir, k, it);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/go%d", dir, it);
        unlink(path);
    }
    for (int k = 0; k < NCLIENT; k++) {
        snprintf(path, sizeof path, "%s/port%d", dir, k);
        unlink(path);
    }
    rmdir(dir);
    return mtest_finish();
}

static int client(int k, const char *dir)
{
    char path[PATH_MAX], port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm *many = NULL;
    int nmany = k == 1 ? MANY : 0;
    FILE *f;

    snprintf(path, sizeof path, "%s/port%d", dir, k);
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(port, sizeof port, f) != NULL, "cannot read %s", path);
    if (f != NULL)
        fclose(f);
    port[strcspn(port, "\n")] = '\0';
    /* free context ids unlike the other client's */
    many = malloc(sizeof *many * (size_t)(nmany > 0 ? nmany : 1));
    for (int i = 0; i < nmany; i++)
        MPI_Comm_dup(MPI_COMM_SELF, &many[i]);
    for (int it = 0; it < ITER; it++) {
        MPI_Comm inter;
        int err;
        snprintf(path, sizeof path, "%s/ready%d-%d", dir, k, it);
        touch(path);
        snprintf(path, sizeof path, "%s/go%d", dir, it);
        while (!exists(path))
            usleep(200);
        err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        CHECK(err == MPI_SUCCESS, "client %d: connect err %d", k, err);
        if (err != MPI_SUCCESS)
            break;
        CHECK(talk(inter, 200 + k, 100 + k) == 0, "client %d: wrong message from the server", k);
        MPI_Comm_disconnect(&inter);
    }
    for (int i = 0; i < nmany; i++)
        MPI_Comm_free(&many[i]);
    free(many);
    return mtest_finish();
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    int provided;

    if (argc == 4 && strcmp(argv[1], "client") == 0) {
        MPI_Init(&argc, &argv);
        return client(atoi(argv[2]), argv[3]);
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    return server(self);
}
