/* A local stranger holds 1,000 idle connections open to every rank's sock
 * port while the job starts and runs (run with CANAL_CHANNEL=sock): the job
 * must not notice beyond log lines. Each rank finds the port the way a
 * stranger on the machine would, by its listening TCP socket (here: among
 * its own descriptors), and forks a child that connects 1,000 times and
 * says nothing; the ranks wait until every child holds its connections
 * (through files, since the ranks have not talked yet) and only then talk:
 * point to point in a ring (eager and rendezvous), then collectives. Before
 * the listener evicted strangers, a full table closed the ranks' own
 * connections at accept, and rank 0 gave up on rank 1. argv[1]: the number
 * of connections (default 1000). */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int find_listener(struct sockaddr_storage *ss, socklen_t *len)
{
    int found = -1;
    for (int fd = 3; fd < 4096; fd++) {
        int on = 0;
        socklen_t l = sizeof on;
        struct sockaddr_storage a;
        socklen_t al = sizeof a;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) != 0 || !on)
            continue;
        if (getsockname(fd, (struct sockaddr *)&a, &al) != 0 ||
            (a.ss_family != AF_INET && a.ss_family != AF_INET6))
            continue;
        if (found >= 0)
            return -2; /* more than one: which is the channel's? */
        found = fd;
        *ss = a;
        *len = al;
    }
    return found;
}

/* The stranger: n connections that never send a byte, held until the
 * parent closes `hold`. Reports on `ready` how many it holds. */
static void stranger(const struct sockaddr_storage *ss, socklen_t len, int n, int ready, int hold)
{
    int *fds = malloc((size_t)n * sizeof *fds), held = 0;
    char c;
    struct rlimit rl;

    /* n descriptors and a few more: raise the soft limit if it is lower. */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    for (int k = 0; fds != NULL && k < n; k++) {
        fds[k] = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (fds[k] < 0)
            break;
        if (connect(fds[k], (const struct sockaddr *)ss, len) != 0 && errno != EINPROGRESS) {
            close(fds[k]);
            break;
        }
        held++;
    }
    /* Wait until the kernel completed them (the listener's backlog takes them
     * whether or not the rank accepts). */
    for (int k = 0; k < held; k++) {
        struct pollfd p = {fds[k], POLLOUT, 0};
        poll(&p, 1, 2000);
    }
    if (write(ready, &held, sizeof held) != sizeof held)
        _exit(1);
    while (read(hold, &c, 1) < 0 && errno == EINTR)
        ;
    for (int k = 0; k < held; k++)
        close(fds[k]);
    free(fds);
    _exit(0);
}

/* The launcher (the ranks' common parent): its pid and start time, so that
 * files left by an earlier job whose launcher had the same pid do not count. */
static const char *job_key(void)
{
    static char key[64];
    char path[64], buf[1024], *p;
    unsigned long long start = 0;
    FILE *f;

    if (key[0] != '\0')
        return key;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)getppid());
    if ((f = fopen(path, "r")) != NULL) {
        /* after the command's ")": state is field 3, the start time field 22 */
        if (fgets(buf, sizeof buf, f) != NULL && (p = strrchr(buf, ')')) != NULL)
            sscanf(p + 2,
                   "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                   "%*s %*s %llu",
                   &start);
        fclose(f);
    }
    snprintf(key, sizeof key, "%d-%llu", (int)getppid(), start);
    return key;
}

/* All ranks reached `step`: files in /tmp named after the launcher -- nothing
 * may go through the channel before. */
static void file_barrier(int rank, int size, const char *step)
{
    char path[256];
    int fd;
    snprintf(path, sizeof path, "/tmp/canal-sock-flood-%s-%s-%d", job_key(), step, rank);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0)
        close(fd);
    for (int r = 0; r < size; r++) {
        struct stat sb;
        snprintf(path, sizeof path, "/tmp/canal-sock-flood-%s-%s-%d", job_key(), step, r);
        while (stat(path, &sb) != 0)
            usleep(10000);
    }
}

static void file_unlink(int size, const char *step)
{
    char path[256];
    for (int r = 0; r < size; r++) {
        snprintf(path, sizeof path, "/tmp/canal-sock-flood-%s-%s-%d", job_key(), step, r);
        unlink(path);
    }
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0, n = argc > 1 ? atoi(argv[1]) : 1000, held = 0;
    int ready[2], hold[2];
    struct sockaddr_storage ss;
    socklen_t len = 0;
    pid_t child;
    int lfd;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    lfd = find_listener(&ss, &len);
    if (lfd < 0) {
        printf("rank %d: %s\n", rank,
               lfd == -1 ? "no listening TCP socket (run with CANAL_CHANNEL=sock)"
                         : "more than one listening TCP socket");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (pipe(ready) != 0 || pipe(hold) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    child = fork();
    if (child == 0) {
        close(ready[0]);
        close(hold[1]);
        stranger(&ss, len, n, ready[1], hold[0]);
    }
    close(ready[1]);
    close(hold[0]);
    if (child < 0 || read(ready[0], &held, sizeof held) != sizeof held) {
        printf("rank %d: the stranger did not start\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (held < n) {
        printf("rank %d: the stranger holds only %d of %d connections\n", rank, held, n);
        errs++;
    }
    file_barrier(rank, size, "held");

    /* Point to point: a ring, eager then rendezvous, both directions. */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        static int big_out[1 << 18], big_in[1 << 18];
        int x = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &x, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (x != left) {
            printf("rank %d: got %d from the left, expected %d\n", rank, x, left);
            errs++;
        }
        for (int i = 0; i < (1 << 18); i++)
            big_out[i] = rank * 7 + i;
        MPI_Sendrecv(big_out, 1 << 18, MPI_INT, left, 2, big_in, 1 << 18, MPI_INT, right, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < (1 << 18); i++)
            if (big_in[i] != right * 7 + i) {
                printf("rank %d: big message from %d wrong at %d\n", rank, right, i);
                errs++;
                break;
            }
    }
    /* Collectives. */
    {
        int sum = 0, all[64], root_val = rank == 0 ? 4242 : 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2) {
            printf("rank %d: allreduce gave %d\n", rank, sum);
            errs++;
        }
        MPI_Bcast(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (root_val != 4242) {
            printf("rank %d: bcast gave %d\n", rank, root_val);
            errs++;
        }
        if (size <= 64) {
            MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
            for (int r = 0; r < size; r++)
                if (all[r] != r) {
                    printf("rank %d: allgather[%d] = %d\n", rank, r, all[r]);
                    errs++;
                }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        file_unlink(size, "held");
        if (errs == 0)
            printf(" No Errors\n");
    }
    close(hold[1]); /* the stranger lets go */
    waitpid(child, NULL, 0);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
