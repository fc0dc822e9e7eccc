/*
 * MPI_Comm_connect/accept between two separately launched jobs. Started as
 * job A (any size): A's rank 0 opens a port, writes its name to a file and
 * starts a second mpiexec (the one installed next to the library) running
 * this program as job B with 3 processes and the file's name. B first
 * connects with a forged secret (refused: MPI_ERR_PORT, the port stays
 * open), then with the real name; both sides exercise the
 * intercommunicator (point to point both ways, allreduce, merge). A closes
 * the port and says so; B disconnects and connects again: MPI_ERR_PORT, no
 * hang. B's error count reaches A, and A checks B's mpiexec exit status.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dyn_util.h"
#include "mtest.h"

static void exercise(MPI_Comm inter, int is_b)
{
    int lsize, rsize, rank, v, sum = 0, msize, mrank;
    MPI_Comm merged;

    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);
    /* every process of one side sends its rank to every one of the other */
    for (int r = 0; r < rsize; r++) {
        int x = (is_b ? 2000 : 1000) + rank;
        MPI_Send(&x, 1, MPI_INT, r, 5, inter);
    }
    for (int r = 0; r < rsize; r++) {
        MPI_Recv(&v, 1, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE);
        CHECK(v == (is_b ? 1000 : 2000) + r, "from remote %d got %d", r, v);
    }
    v = rank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == rsize * (rsize + 1) / 2, "allreduce %d", sum);
    MPI_Intercomm_merge(inter, is_b, &merged);
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (is_b ? rsize + rank : rank), "merged rank %d", mrank);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
    /* the same high on both sides: any order both agree on */
    MPI_Intercomm_merge(inter, 1, &merged);
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "merge with equal high: ranks add up to %d", sum);
    MPI_Comm_free(&merged);
}

static int job_a(const char *self)
{
    char port[MPI_MAX_PORT_NAME] = "", file[256], mpiexec[PATH_MAX];
    MPI_Comm inter;
    int rank, err, berrs = -1, closed = 1;
    pid_t pid = -1;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f;
        MPI_Open_port(MPI_INFO_NULL, port);
        snprintf(file, sizeof file, "/tmp/canal-dyn-twojobs-%ld.port", (long)getpid());
        f = fopen(file, "w");
        fprintf(f, "%s\n", port);
        fclose(f);
        find_mpiexec(mpiexec, sizeof mpiexec);
        pid = fork();
        if (pid == 0) {
            /* a separate job: nothing of ours in its environment */
            unsetenv("PMI_FD");
            unsetenv("PMI_RANK");
            unsetenv("PMI_SIZE");
            unsetenv("PMI_JOBID");
            execl(mpiexec, mpiexec, "-n", "3", self, "b", file, (char *)NULL);
            _exit(127);
        }
    }
    err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    CHECK(err == MPI_SUCCESS, "accept err %d", err);
    exercise(inter, 0);
    if (rank == 0) {
        MPI_Recv(&berrs, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE);
        err = MPI_Close_port(port);
        CHECK(err == MPI_SUCCESS, "close_port err %d", err);
        MPI_Send(&closed, 1, MPI_INT, 0, 10, inter);
    }
    MPI_Comm_disconnect(&inter);
    if (rank == 0) {
        int status = -1;
        CHECK(berrs == 0, "job B found %d errors", berrs);
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "job B's mpiexec status %#x",
              status);
        unlink(file);
    }
    return mtest_finish();
}

static int job_b(const char *file)
{
    char port[MPI_MAX_PORT_NAME] = "", forged[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    int rank, err, errs, closed = 0, cls;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        FILE *f = fopen(file, "r");
        CHECK(f != NULL && fgets(port, sizeof port, f) != NULL, "cannot read %s", file);
        if (f != NULL)
            fclose(f);
        port[strcspn(port, "\n")] = '\0';
        /* flip one hex digit of the secret (just before '@') */
        snprintf(forged, sizeof forged, "%s", port);
        char *at = strrchr(forged, '@');
        if (at != NULL)
            at[-1] = at[-1] == '0' ? '1' : '0';
    }
    err = MPI_Comm_connect(forged, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_PORT, "forged secret: class %d", cls);
    err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    CHECK(err == MPI_SUCCESS, "connect err %d", err);
    if (err != MPI_SUCCESS)
        return mtest_finish();
    exercise(inter, 1);
    errs = mtest_errors;
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &errs, &errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(&errs, 1, MPI_INT, 0, 9, inter);
        MPI_Recv(&closed, 1, MPI_INT, 0, 10, inter, MPI_STATUS_IGNORE);
        CHECK(closed == 1, "closed %d", closed);
    }
    MPI_Comm_disconnect(&inter);
    /* the port is closed now */
    err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    cls = mtest_error_class(err);
    CHECK(cls == MPI_ERR_PORT, "closed port: class %d", cls);
    if (rank == 0 && cls == MPI_ERR_PORT) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        CHECK(strstr(msg, "closed") != NULL, "message '%s'", msg);
    }
    return mtest_finish();
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];

    MPI_Init(&argc, &argv);
    if (argc == 3 && strcmp(argv[1], "b") == 0)
        return job_b(argv[2]);
    if (realpath(argv[0], self) == NULL)
        snprintf(self, sizeof self, "%s", argv[0]);
    return job_a(self);
}
