/* Buffered sends in the sessions model (no MPI_Init): a communicator made
 * from a session's group uses, in this order, its own buffer
 * (MPI_Comm_attach_buffer), its session's (MPI_Session_attach_buffer), the
 * process's (MPI_Buffer_attach); so does a communicator duplicated from it.
 * With no buffer at all the send fails with MPI_ERR_BUFFER. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errs;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            errs++;                                                                                \
        }                                                                                          \
    } while (0)

enum { N = 100, TAG = 5 };

/* Rank 0 bsends, the last rank receives after a barrier (the message sits
 * in whichever buffer was used); rc is the bsend's result, broadcast. */
static int roundtrip(MPI_Comm comm, const char *what)
{
    int rank, size, buf[N], rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        for (int i = 0; i < N; i++)
            buf[i] = i + 1;
        rc = MPI_Bsend(buf, N, MPI_INT, size - 1, TAG, comm);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    if (rc == MPI_SUCCESS && rank == size - 1) {
        MPI_Recv(buf, N, MPI_INT, 0, TAG, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (buf[i] != i + 1) {
                printf("%s: element %d is %d\n", what, i, buf[i]);
                errs++;
                break;
            }
    }
    return rc;
}

static void used(void *mem, int bsize, void *addr, int size, const char *what)
{
    CHECK(addr == mem && size == bsize, "%s: detach gave %p %d, expected %p %d", what, addr, size,
          mem, bsize);
}

int main(void)
{
    MPI_Session session;
    MPI_Group group;
    MPI_Comm comm, dup;
    int bsize = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD + 64, size, rank, cls;
    char *pm = malloc(bsize), *sm = malloc(bsize), *cm = malloc(bsize);
    void *addr;

    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
    MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
    MPI_Comm_create_from_group(group, "canal.mpi41_session_bsend", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                               &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_dup(comm, &dup);

    {
        int rc = roundtrip(comm, "no buffer");
        MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_BUFFER, "no buffer: class %d", cls);
    }
    MPI_Buffer_attach(pm, bsize);
    CHECK(roundtrip(comm, "process buffer") == MPI_SUCCESS, "process buffer: bsend failed");
    MPI_Buffer_detach(&addr, &size);
    used(pm, bsize, addr, size, "MPI_Buffer_detach");
    /* only the session has one now: the duplicate of its communicator uses it */
    MPI_Session_attach_buffer(session, sm, bsize);
    CHECK(roundtrip(dup, "session buffer") == MPI_SUCCESS, "session buffer: bsend failed");
    MPI_Comm_attach_buffer(comm, cm, bsize);
    CHECK(roundtrip(comm, "communicator buffer") == MPI_SUCCESS, "comm buffer: bsend failed");
    /* each buffer was used: fill it and see that the send fails only there */
    if (rank == 0) {
        int big[N], rc;
        /* the session's buffer is free again after its message went: a dup's
         * second message fits; the communicator's buffer is separate */
        MPI_Comm_detach_buffer(comm, &addr, &size);
        used(cm, bsize, addr, size, "MPI_Comm_detach_buffer");
        MPI_Session_detach_buffer(session, &addr, &size);
        used(sm, bsize, addr, size, "MPI_Session_detach_buffer");
        rc = MPI_Bsend(big, N, MPI_INT, 0, TAG + 1, comm);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_BUFFER, "after every detach: class %d", cls);
    } else {
        MPI_Comm_detach_buffer(comm, &addr, &size);
        MPI_Session_detach_buffer(session, &addr, &size);
    }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0 && errs == 0)
        printf("No Errors\n");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Session_finalize(&session);
    free(pm);
    free(sm);
    free(cm);
    return errs != 0;
}
