/*
 * Two-way, concurrent traffic between two jobs whose ranks share job rank
 * numbers (rank 0 of one job talks to rank 0 of the other, and so on): what
 * a program that spawns or connects does first. Every process of each side
 * posts, at once, a receive and a send of a small and of a large message
 * (the large one takes the rendezvous path) to and from every process of
 * the other side, then waits for all of them; then an intercommunicator
 * barrier, an allreduce over the intercommunicator, and a merged
 * intracommunicator's allreduce and allgather; then disconnect.
 *
 *   dyn_exchange spawn C1,C2,.. [P C]    the job spawns C1 copies of this
 *                       program from a duplicate of MPI_COMM_WORLD,
 *                       exchanges with them, disconnects, then C2 copies,
 *                       and so on (default 1,2,3,4)
 *   dyn_exchange connect C1,.. [P C]     rank 0 opens a port, writes its
 *                       name to a file and starts a second mpiexec (the one
 *                       installed with the library) running this program
 *                       with C1 processes, which connect from their
 *                       MPI_COMM_WORLD to the first job's accept on a
 *                       duplicate of its MPI_COMM_WORLD; then C2, ... (two
 *                       separately started jobs)
 *
 * P and C are the thread levels of this job and of the other: s (MPI_Init)
 * or m (MPI_Init_thread with MPI_THREAD_MULTIPLE; default s s). The two
 * groups' local communicators have different context ids, and their thread
 * levels may differ, as in mpi4py (threaded, spawning from MPI_COMM_SELF):
 * the intercommunicator's context id must still be the same on both sides
 * (it once was not, and every message between the jobs went unmatched).
 *
 * The other side's error count travels back over the intercommunicator, and
 * the parent checks each second mpiexec's exit status, so any failure fails
 * the test; a lost message hangs, which the runner's timeout turns into a
 * failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dyn_util.h"
#include "mtest.h"

enum { BIG = 1 << 16 }; /* ints: 256 KiB, above every channel's eager limit */

static int value(int side, int from, int to, int k)
{
    return side * 1000000 + from * 10000 + to * 100 + k;
}

/* side: 0 for the parent (accepting) job, 1 for the child (connecting) one. */
static void exchange(MPI_Comm inter, int side)
{
    int lsize, rsize, rank, sum = -1, expect, msize, mrank;
    MPI_Comm merged;

    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);

    {
        /* per remote rank: two small messages (order kept) and a big one, each way */
        int *small_in = malloc(sizeof(int) * 2 * (size_t)rsize);
        int *small_out = malloc(sizeof(int) * 2 * (size_t)rsize);
        int *big_in = malloc(sizeof(int) * BIG * (size_t)rsize);
        int *big_out = malloc(sizeof(int) * BIG * (size_t)rsize);
        MPI_Request *rq = malloc(sizeof(MPI_Request) * 6 * (size_t)rsize);
        int n = 0, bad = 0;

        for (int r = 0; r < rsize; r++) {
            int *bi = big_in + (size_t)r * BIG, *bo = big_out + (size_t)r * BIG;
            small_in[2 * r] = small_in[2 * r + 1] = -1;
            small_out[2 * r] = value(side, rank, r, 1);
            small_out[2 * r + 1] = value(side, rank, r, 2);
            for (int i = 0; i < BIG; i++) {
                bo[i] = value(side, rank, r, 3) ^ i;
                bi[i] = -1;
            }
            MPI_Irecv(&small_in[2 * r], 1, MPI_INT, r, 1, inter, &rq[n++]);
            MPI_Irecv(&small_in[2 * r + 1], 1, MPI_INT, r, 1, inter, &rq[n++]);
            MPI_Irecv(bi, BIG, MPI_INT, r, 2, inter, &rq[n++]);
        }
        for (int r = 0; r < rsize; r++) {
            MPI_Isend(&small_out[2 * r], 1, MPI_INT, r, 1, inter, &rq[n++]);
            MPI_Isend(big_out + (size_t)r * BIG, BIG, MPI_INT, r, 2, inter, &rq[n++]);
            MPI_Isend(&small_out[2 * r + 1], 1, MPI_INT, r, 1, inter, &rq[n++]);
        }
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
        for (int r = 0; r < rsize; r++) {
            const int *bi = big_in + (size_t)r * BIG;
            CHECK(small_in[2 * r] == value(!side, r, rank, 1) &&
                      small_in[2 * r + 1] == value(!side, r, rank, 2),
                  "side %d rank %d: from remote %d got %d, %d", side, rank, r, small_in[2 * r],
                  small_in[2 * r + 1]);
            for (int i = 0; i < BIG; i++)
                bad += bi[i] != (value(!side, r, rank, 3) ^ i);
        }
        CHECK(bad == 0, "side %d rank %d: %d wrong ints in the large messages", side, rank, bad);
        free(small_in);
        free(small_out);
        free(big_in);
        free(big_out);
        free(rq);
    }

    MPI_Barrier(inter);

    /* each side gets the sum over the other: its ranks + 1, times 10 for the child side */
    {
        int v = (rank + 1) * (side ? 10 : 1);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
        expect = rsize * (rsize + 1) / 2 * (side ? 1 : 10);
        CHECK(sum == expect, "side %d rank %d: intercomm allreduce %d, expected %d", side, rank,
              sum, expect);
    }

    /* parents first */
    MPI_Intercomm_merge(inter, side, &merged);
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (side ? rsize + rank : rank), "side %d rank %d: merged rank %d", side, rank,
          mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "merged allreduce %d", sum);
    {
        int *all = malloc(sizeof(int) * (size_t)msize), bad = 0;
        int mine = 7 * mrank + 3;
        MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, merged);
        for (int i = 0; i < msize; i++)
            bad += all[i] != 7 * i + 3;
        CHECK(bad == 0, "merged allgather: %d wrong", bad);
        free(all);
    }
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
}

/* The child side: exchange, then its error total to the parent's rank 0. */
static int run_child(MPI_Comm inter)
{
    int rank, errs;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exchange(inter, 1);
    errs = mtest_errors;
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &errs, &errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Send(&errs, 1, MPI_INT, 0, 9, inter);
    MPI_Comm_disconnect(&inter);
    return mtest_finish();
}

/* The parent side, after its exchange: the children's error total. */
static void parent_collect(MPI_Comm *inter, int nchild)
{
    int rank, cerrs = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&cerrs, 1, MPI_INT, 0, 9, *inter, MPI_STATUS_IGNORE);
    CHECK(cerrs == 0, "the %d-process other job found %d errors", nchild, cerrs);
    MPI_Comm_disconnect(inter);
}

static int parse_counts(const char *s, int *out, int max)
{
    int n = 0;
    while (s != NULL && *s != '\0' && n < max) {
        char *e;
        long v = strtol(s, &e, 10);
        if (e == s || v < 1 || v > 16)
            break;
        out[n++] = (int)v;
        s = *e == ',' ? e + 1 : e;
    }
    return n;
}

static void run_spawn(const char *self, const int *counts, int ncounts, const char *clevel)
{
    char *cargv[] = {"child", (char *)clevel, NULL};
    MPI_Comm dup;

    /* a local communicator whose context differs from the children's world */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int k = 0; k < ncounts; k++) {
        MPI_Comm inter;
        int err = MPI_Comm_spawn(self, cargv, counts[k], MPI_INFO_NULL, 0, dup, &inter,
                                 MPI_ERRCODES_IGNORE);
        CHECK(err == MPI_SUCCESS, "spawn of %d: err %d", counts[k], err);
        if (err != MPI_SUCCESS)
            break;
        exchange(inter, 0);
        parent_collect(&inter, counts[k]);
    }
    MPI_Comm_free(&dup);
}

static void run_connect(const char *self, const int *counts, int ncounts, const char *clevel)
{
    char port[MPI_MAX_PORT_NAME] = "", file[256] = "", mpiexec[PATH_MAX], nbuf[16];
    MPI_Comm dup;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    find_mpiexec(mpiexec, sizeof mpiexec);
    if (rank == 0) {
        FILE *f;
        MPI_Open_port(MPI_INFO_NULL, port);
        snprintf(file, sizeof file, "/tmp/canal-dyn-exchange-%ld.port", (long)getpid());
        f = fopen(file, "w");
        CHECK(f != NULL, "cannot write %s", file);
        if (f == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
        fprintf(f, "%s\n", port);
        fclose(f);
    }
    for (int k = 0; k < ncounts; k++) {
        MPI_Comm inter;
        pid_t pid = -1;
        int err;

        if (rank == 0) {
            snprintf(nbuf, sizeof nbuf, "%d", counts[k]);
            pid = fork();
            if (pid == 0) {
                /* a separate job: nothing of ours in its environment */
                unsetenv("PMI_FD");
                unsetenv("PMI_RANK");
                unsetenv("PMI_SIZE");
                unsetenv("PMI_JOBID");
                execl(mpiexec, mpiexec, "-n", nbuf, self, "other", file, clevel, (char *)NULL);
                _exit(127);
            }
        }
        err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, dup, &inter);
        CHECK(err == MPI_SUCCESS, "accept err %d", err);
        if (err != MPI_SUCCESS)
            break;
        exchange(inter, 0);
        parent_collect(&inter, counts[k]);
        if (rank == 0) {
            int status = -1;
            waitpid(pid, &status, 0);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the %d-process job's mpiexec: status %#x", counts[k], status);
        }
    }
    if (rank == 0) {
        MPI_Close_port(port);
        unlink(file);
    }
    MPI_Comm_free(&dup);
}

static int run_other(const char *file)
{
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    int rank, err;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f = fopen(file, "r");
        CHECK(f != NULL && fgets(port, sizeof port, f) != NULL, "cannot read %s", file);
        if (f != NULL)
            fclose(f);
        port[strcspn(port, "\n")] = '\0';
    }
    err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    CHECK(err == MPI_SUCCESS, "connect err %d", err);
    if (err != MPI_SUCCESS)
        return mtest_finish();
    return run_child(inter);
}

/* "m": MPI_THREAD_MULTIPLE, anything else: MPI_Init. */
static void init_at(int *argc, char ***argv, const char *level)
{
    if (level != NULL && strcmp(level, "m") == 0) {
        int provided = -1;
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK(provided == MPI_THREAD_MULTIPLE, "provided thread level %d", provided);
    } else {
        MPI_Init(argc, argv);
    }
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    int counts[16] = {1, 2, 3, 4}, ncounts = 4;
    const char *mode = argc > 1 ? argv[1] : "spawn";
    const char *mylevel = "s", *clevel = "s";
    MPI_Comm parent;

    /* child <level> | other <file> <level> | spawn|connect [counts [P C]] */
    if (strcmp(mode, "child") == 0 && argc > 2)
        mylevel = argv[2];
    else if (strcmp(mode, "other") == 0 && argc > 3)
        mylevel = argv[3];
    else if (argc > 4) {
        mylevel = argv[3];
        clevel = argv[4];
    }
    init_at(&argc, &argv, mylevel);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return run_child(parent);
    if (strcmp(mode, "other") == 0 && argc > 2)
        return run_other(argv[2]);
    if (argc > 2)
        ncounts = parse_counts(argv[2], counts, 16);
    CHECK(ncounts > 0, "bad counts '%s'", argc > 2 ? argv[2] : "");
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    if (strcmp(mode, "connect") == 0)
        run_connect(self, counts, ncounts, clevel);
    else if (strcmp(mode, "spawn") == 0)
        run_spawn(self, counts, ncounts, clevel);
    else
        CHECK(0, "usage: dyn_exchange [spawn|connect] [C1,C2,... [s|m s|m]]");
    return mtest_finish();
}
