/*
 * MPI_Comm_join. Run as a singleton (launcher=none): the process makes a
 * socketpair and forks before MPI_Init, so two singleton jobs join over it.
 * Run with 2 processes: ranks 0 and 1 of one job join over a TCP
 * connection on loopback (the port travels by message). Either way the two
 * get a 1+1 intercommunicator: point to point both ways, an allreduce, a
 * merge, and disconnect. Bad input: a negative fd is MPI_ERR_ARG.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mtest.h"

static void exercise(MPI_Comm inter, int side)
{
    int rsize = 0, v, sum = 0, mrank;
    MPI_Comm merged;

    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1, "remote size %d", rsize);
    v = 10 + side;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, 0, 3, 0, 3, inter, MPI_STATUS_IGNORE);
    CHECK(v == 10 + !side, "got %d", v);
    v = side + 5;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == !side + 5, "allreduce %d", sum);
    MPI_Intercomm_merge(inter, side, &merged);
    MPI_Comm_rank(merged, &mrank);
    CHECK(mrank == side, "merged rank %d", mrank);
    MPI_Comm_free(&merged);
    /* the same high on both sides: any order, but one both agree on */
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Comm_rank(merged, &mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == 1, "merge with equal high: ranks add up to %d", sum);
    MPI_Comm_free(&merged);
}

static void bad_input(void)
{
    MPI_Comm c;
    int err;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Comm_join(-1, &c);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "fd -1: class %d", mtest_error_class(err));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Comm inter;
    int size, rank, err, fd = -1, side;
    int sv[2];
    pid_t pid = -1;

    if (getenv("PMI_FD") == NULL && getenv("PMI_RANK") == NULL && getenv("PMIX_RANK") == NULL) {
        /* two singletons */
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
            perror("socketpair");
            return 1;
        }
        pid = fork();
        side = pid == 0;
        fd = side ? sv[1] : sv[0];
        close(side ? sv[0] : sv[1]);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bad_input();
    if (fd < 0) {
        /* two ranks of one job over TCP */
        int lfd = -1, port = 0;
        struct sockaddr_in a;
        socklen_t al = sizeof a;
        side = rank;
        if (size != 2) {
            printf("needs 1 (singletons) or 2 processes\n");
            MPI_Finalize();
            return 1;
        }
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (rank == 0) {
            lfd = socket(AF_INET, SOCK_STREAM, 0);
            bind(lfd, (struct sockaddr *)&a, sizeof a);
            listen(lfd, 1);
            getsockname(lfd, (struct sockaddr *)&a, &al);
            port = ntohs(a.sin_port);
        }
        MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            fd = accept(lfd, NULL, NULL);
            close(lfd);
        } else {
            a.sin_port = htons((unsigned short)port);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to rank 0");
        }
    }
    err = MPI_Comm_join(fd, &inter);
    CHECK(err == MPI_SUCCESS, "join err %d", err);
    if (err == MPI_SUCCESS) {
        exercise(inter, side);
        MPI_Comm_disconnect(&inter);
    }
    close(fd);
    if (pid > 0) {
        /* the child's verdict: its exit status */
        int status = -1;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other singleton: %#x", status);
    }
    if (pid == 0) {
        int e = mtest_errors;
        MPI_Finalize();
        return e != 0;
    }
    return mtest_finish();
}
