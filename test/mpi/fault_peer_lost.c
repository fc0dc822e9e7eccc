/* Rank 0 waits on rank 1 (argv[2]: "recv", a receive of 8 bytes; "rndv",
 * a send of 1 MiB, beyond the eager limit; "eager", an 8-byte send, then a
 * receive; "rrndv", a receive of 16 MiB whose rendezvous rank 1 started;
 * "any", a receive from MPI_ANY_SOURCE; "coll", an MPI_Allreduce; "gatherv", the
 * root's MPI_Gatherv of an int from each; "scatter", MPI_Scatter from root 1;
 * "bcast", the root's MPI_Bcast of 16 MiB through the node's ring (it waits
 * for room that rank 1 never makes); "rbcast", a receiver's MPI_Bcast of
 * 16 MiB from root 1 (which never writes it); "flood",
 * eager sends until the channel is full and they queue; "mix", a 1 MiB send
 * and a stream of 8-byte sends, rank 1 dying right after it took 100 of the
 * small ones and started to pull the 1 MiB) when rank 1 is lost
 * (argv[1]):
 *   "cut"  rank 1 shuts its TCP connections down (a network failure: both
 *          processes live on; CANAL_CHANNEL=sock);
 *   "kill" rank 1 is killed with SIGKILL, "exit" it calls _exit(3), under a
 *          launcher that does not end the job for it: rank 1 runs in a child
 *          of the process the launcher started, which stays until rank 0 has
 *          ended and then exits with the child's status (as Hydra's
 *          -disable-auto-cleanup or a batch system keeping survivors would).
 * argv[3] "fatal" (MPI_ERRORS_ARE_FATAL): rank 0's wait ends the job with a
 * message naming rank 1. "return" (MPI_ERRORS_RETURN): every operation of
 * rank 0 involving rank 1 returns an error -- the wait, a send and a receive
 * started afterwards -- and rank 0 finishes; under "cut" rank 1's receive
 * from rank 0 fails too. Before Canal failed these requests, rank 0 waited
 * for ever. argv[4] "mt": MPI_THREAD_MULTIPLE (the device's locked mode,
 * whose waits never sleep in a channel). */
#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *how, *where, *handler;

/* The process the launcher started, when rank 1 runs in its child: wait for
 * the child, then for the other ranks (the launcher's other children) to
 * end, and exit as the child did. */
static void stay_for_the_others(pid_t child)
{
    int status, code;
    pid_t launcher = getppid();

    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    for (;;) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        int others = 0;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[300], buf[512], state;
            int ppid;
            FILE *f;
            char *p;
            if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
                continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            if ((f = fopen(path, "r")) == NULL)
                continue;
            p = fgets(buf, sizeof buf, f) != NULL ? strrchr(buf, ')') : NULL;
            fclose(f);
            if (p != NULL && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == launcher &&
                state != 'Z')
                others++;
        }
        if (d != NULL)
            closedir(d);
        if (others == 0)
            break;
        usleep(50000);
    }
    _exit(code);
}

/* A network failure on rank 1's side: every TCP connection of this process
 * (the sock channel's; the launcher's PMI link is a Unix socket) is shut. */
static void cut_connections(void)
{
    for (int fd = 3; fd < 1024; fd++) {
        struct sockaddr_storage ss;
        socklen_t l = sizeof ss;
        int listening = 0;
        socklen_t ll = sizeof listening;
        if (getsockname(fd, (struct sockaddr *)&ss, &l) != 0)
            continue;
        if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
            continue;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) == 0 && listening)
            continue;
        shutdown(fd, SHUT_RDWR);
    }
}

static int check_failed(int rc, const char *what, int rank)
{
    char text[MPI_MAX_ERROR_STRING];
    int cls, len;
    if (rc == MPI_SUCCESS) {
        printf("rank %d: %s succeeded; it must fail\n", rank, what);
        return 1;
    }
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    printf("rank %d: %s failed as it must: %s\n", rank, what, text);
    /* (an MPI_ANY_SOURCE receive: pending until the failure is acknowledged) */
    if (cls != MPIX_ERR_PROC_FAILED &&
        !(cls == MPIX_ERR_PROC_FAILED_PENDING && strstr(what, "ANY_SOURCE") != NULL)) {
        printf("rank %d: %s: error class %d, expected MPIX_ERR_PROC_FAILED%s\n", rank, what, cls,
               strstr(what, "ANY_SOURCE") != NULL ? " or MPIX_ERR_PROC_FAILED_PENDING" : "");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0, x = 0;
    static char big[1 << 20], huge[16 << 20];
    double small = 1.0;
    const char *pmi_rank = getenv("PMI_RANK");

    if (argc < 4) {
        fprintf(stderr, "usage: fault_peer_lost cut|kill|exit "
                        "recv|rndv|rrndv|eager|any|coll|gatherv|scatter|bcast|rbcast|flood|mix "
                        "fatal|return [mt]\n");
        return 2;
    }
    how = argv[1];
    where = argv[2];
    handler = argv[3];
    if (strcmp(how, "cut") != 0 && pmi_rank != NULL && atoi(pmi_rank) == 1) {
        pid_t child = fork();
        if (child < 0)
            return 2;
        if (child > 0)
            stay_for_the_others(child);
    }
    if (argc > 4 && strcmp(argv[4], "mt") == 0) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(handler, "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Connected and talking before the loss. */
    if (strcmp(where, "bcast") == 0 || strcmp(where, "rbcast") == 0) {
        for (int k = 0; k < 3; k++)
            MPI_Barrier(MPI_COMM_WORLD); /* (the node's shared block: its 3rd call) */
        MPI_Bcast(big, sizeof big, MPI_CHAR, 0, MPI_COMM_WORLD); /* (and its ring) */
    }
    if (rank < 2)
        MPI_Sendrecv(&rank, 1, MPI_INT, 1 - rank, 0, &x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    if (rank == 1) {
        if (strcmp(where, "rrndv") == 0) {
            /* The rendezvous starts (the RTS goes out at once); rank 0
             * matches it and asks for the data, which never comes: this
             * rank calls MPI no more. (Over shm rank 0 pulls the data
             * itself: a success there.) */
            MPI_Request req;
            MPI_Isend(huge, sizeof huge, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &req);
        }
        if (strcmp(where, "mix") == 0) {
            /* Mid-transfer: small messages taken, the 1 MiB's pull just
             * started (its RTS came first), more small ones on the way. */
            MPI_Request req;
            for (int k = 0; k < 100; k++)
                MPI_Recv(&small, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Irecv(big, sizeof big, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &req);
        } else {
            usleep(200000); /* (rank 0 is likely waiting by now; either order must work) */
        }
        if (strcmp(how, "kill") == 0)
            raise(SIGKILL);
        if (strcmp(how, "exit") == 0)
            _exit(3);
        cut_connections();
        if (strcmp(handler, "fatal") == 0) {
            /* Rank 0 ends the job; this rank just waits to be ended. */
            for (;;)
                pause();
        }
        errs += check_failed(MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                             "MPI_Recv from rank 0", rank);
    } else if (rank == 0) {
        int rc;
        if (strcmp(where, "rndv") == 0) {
            rc = MPI_Send(big, sizeof big, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            errs += check_failed(rc, "MPI_Send of 1 MiB to rank 1", rank);
        } else if (strcmp(where, "rrndv") == 0) {
            rc = MPI_Recv(huge, sizeof huge, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += check_failed(rc, "MPI_Recv of 16 MiB from rank 1", rank);
        } else if (strcmp(where, "any") == 0) {
            rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += check_failed(rc, "MPI_Recv from MPI_ANY_SOURCE", rank);
        } else if (strcmp(where, "flood") == 0) {
            /* Rank 1 receives nothing: the channel fills (shm's ring, at
             * least; the kernel may take all of it over TCP), sends queue
             * in the device; the loss must fail what is still queued. */
            enum { N = 100000 };
            static MPI_Request reqs[N];
            int nfailed = 0;
            rc = MPI_SUCCESS;
            for (int k = 0; k < N && rc == MPI_SUCCESS; k++)
                rc = MPI_Isend(&small, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &reqs[k]);
            if (rc != MPI_SUCCESS)
                nfailed++; /* the loss was seen while posting */
            for (int k = 0; k < N; k++) {
                if (reqs[k] == MPI_REQUEST_NULL)
                    continue;
                if (MPI_Wait(&reqs[k], MPI_STATUS_IGNORE) != MPI_SUCCESS)
                    nfailed++;
            }
            printf("rank 0: %d of %d eager sends to the lost rank failed\n", nfailed, N);
            rc = MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += check_failed(rc, "MPI_Recv from rank 1 after the sends", rank);
        } else if (strcmp(where, "mix") == 0) {
            /* The 1 MiB first, then more small sends than rank 1 takes: some
             * are still queued here (no credit left) when it dies, so at
             * least those must fail; the 1 MiB may or may not have finished. */
            enum { N = 20000 };
            static MPI_Request reqs[N + 1];
            int nfailed = 0;
            rc = MPI_Isend(big, sizeof big, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &reqs[N]);
            for (int k = 0; k < N && rc == MPI_SUCCESS; k++)
                rc = MPI_Isend(&small, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, &reqs[k]);
            if (rc != MPI_SUCCESS)
                nfailed++; /* the loss was seen while posting */
            for (int k = 0; k <= N; k++) {
                if (reqs[k] == MPI_REQUEST_NULL)
                    continue;
                rc = MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS && nfailed++ == 0)
                    errs += check_failed(rc, k == N ? "MPI_Wait on the 1 MiB send"
                                                    : "MPI_Wait on an 8-byte send", rank);
            }
            printf("rank 0: %d of %d sends to the lost rank failed\n", nfailed, N + 1);
            if (nfailed == 0)
                errs += check_failed(MPI_SUCCESS, "every send to the lost rank", rank);
        } else if (strcmp(where, "coll") == 0) {
            int sum = 0;
            rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            errs += check_failed(rc, "MPI_Allreduce", rank);
        } else if (strcmp(where, "gatherv") == 0) {
            /* the root of a small gatherv (the linear call without a
             * schedule, coll/pair.c) waits for the lost rank's block */
            int out[2] = {-1, -1}, cnt[2] = {1, 1}, dsp[2] = {0, 1};
            rc = MPI_Gatherv(&rank, 1, MPI_INT, out, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
            errs += check_failed(rc, "MPI_Gatherv", rank);
        } else if (strcmp(where, "bcast") == 0 || strcmp(where, "rbcast") == 0) {
            int root = strcmp(where, "bcast") == 0 ? 0 : 1;
            rc = MPI_Bcast(huge, sizeof huge, MPI_CHAR, root, MPI_COMM_WORLD);
            errs += check_failed(rc, root == 0 ? "MPI_Bcast of 16 MiB" : "MPI_Bcast from rank 1",
                                 rank);
        } else if (strcmp(where, "scatter") == 0) {
            /* a leaf of a small scatter waits for the lost root's block */
            int in[2] = {5, 6}, got = -1;
            rc = MPI_Scatter(in, 1, MPI_INT, &got, 1, MPI_INT, 1, MPI_COMM_WORLD);
            errs += check_failed(rc, "MPI_Scatter from rank 1", rank);
        } else {
            if (strcmp(where, "eager") == 0) {
                usleep(400000); /* (after the loss, most likely) */
                rc = MPI_Send(&small, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
                printf("rank 0: the 8-byte send returned %d\n", rc);
            }
            rc = MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += check_failed(rc, "MPI_Recv from rank 1", rank);
        }
        if (strcmp(handler, "fatal") == 0) {
            printf("rank 0: returned from a failed wait under MPI_ERRORS_ARE_FATAL\n");
            return 1;
        }
        /* Later operations on the lost rank fail at once. */
        {
            MPI_Request req;
            errs += check_failed(MPI_Send(&small, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD),
                                 "a later MPI_Send to rank 1", rank);
            rc = MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            errs += check_failed(rc, "a later MPI_Irecv from rank 1", rank);
        }
    }
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    fflush(stdout);
    MPI_Finalize();
    return errs != 0;
}
