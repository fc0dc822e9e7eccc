/*
 * A QMPI tool written against MPICH's mpi.h: it declares its pointers to
 * the next tool's functions with MPICH's function types (QMPI_Send_t,
 * QMPI_Recv_t, QMPI_Finalize_t ..., as MPICH 4.0.2's mpi_t/qmpi_test does)
 * and its own functions must have exactly those types. The tool list of
 * the testlist stacks it twice. As in MPICH, the tools start before
 * MPI_Init_thread and intercept it: that is where each instance looks up
 * the next functions of the chain. Rank 0 sends to rank 1, and each Send
 * and Recv must pass through both instances before reaching the library.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static int errs, ninit, nsend, nrecv, nfinalize;
static QMPI_Send_t *next_send[2];
static QMPI_Recv_t *next_recv[2];
static QMPI_Finalize_t *next_finalize[2];
static int next_send_id[2], next_recv_id[2], next_finalize_id[2];

static void tool_link(int tool_id);

static int tool_init_thread(QMPI_Context context, int tool_id, int *argc, char ***argv,
                            int required, int *provided)
{
    QMPI_Init_thread_t *next;
    int next_id;

    ninit++;
    tool_link(tool_id);
    QMPI_Get_function(tool_id, MPI_INIT_THREAD_T, (void (**)(void))&next, &next_id);
    return next(context, next_id, argc, argv, required, provided);
}

static int tool_send(QMPI_Context context, int tool_id, const void *buf, int count,
                     MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    nsend++;
    return next_send[tool_id - 1](context, next_send_id[tool_id - 1], buf, count, datatype, dest,
                                  tag, comm);
}

static int tool_recv(QMPI_Context context, int tool_id, void *buf, int count,
                     MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    nrecv++;
    return next_recv[tool_id - 1](context, next_recv_id[tool_id - 1], buf, count, datatype,
                                  source, tag, comm, status);
}

static int tool_finalize(QMPI_Context context, int tool_id)
{
    nfinalize++;
    return next_finalize[tool_id - 1](context, next_finalize_id[tool_id - 1]);
}

static double tool_wtime(QMPI_Context context, int tool_id)
{
    (void)context;
    (void)tool_id;
    return 0.0;
}

static MPI_Aint tool_aint_add(QMPI_Context context, int tool_id, MPI_Aint base, MPI_Aint disp)
{
    (void)context;
    (void)tool_id;
    return base + disp;
}

/* the tool's functions have MPICH's types, including the ones that return
 * something else than an error code */
_Static_assert(__builtin_types_compatible_p(QMPI_Init_thread_t, __typeof__(tool_init_thread)),
               "QMPI_Init_thread_t");
_Static_assert(__builtin_types_compatible_p(QMPI_Send_t, __typeof__(tool_send)), "QMPI_Send_t");
_Static_assert(__builtin_types_compatible_p(QMPI_Recv_t, __typeof__(tool_recv)), "QMPI_Recv_t");
_Static_assert(__builtin_types_compatible_p(QMPI_Finalize_t, __typeof__(tool_finalize)),
               "QMPI_Finalize_t");
_Static_assert(__builtin_types_compatible_p(QMPI_Wtime_t, __typeof__(tool_wtime)),
               "QMPI_Wtime_t");
_Static_assert(__builtin_types_compatible_p(QMPI_Aint_add_t, __typeof__(tool_aint_add)),
               "QMPI_Aint_add_t");

static void tool_init(int tool_id)
{
    QMPI_Register_function(tool_id, MPI_INIT_THREAD_T, (void (*)(void))&tool_init_thread);
    QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))&tool_send);
    QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))&tool_recv);
    QMPI_Register_function(tool_id, MPI_FINALIZE_T, (void (*)(void))&tool_finalize);
}

static void tool_link(int tool_id)
{
    QMPI_Get_function(tool_id, MPI_SEND_T, (void (**)(void))&next_send[tool_id - 1],
                      &next_send_id[tool_id - 1]);
    QMPI_Get_function(tool_id, MPI_RECV_T, (void (**)(void))&next_recv[tool_id - 1],
                      &next_recv_id[tool_id - 1]);
    QMPI_Get_function(tool_id, MPI_FINALIZE_T, (void (**)(void))&next_finalize[tool_id - 1],
                      &next_finalize_id[tool_id - 1]);
}

__attribute__((constructor)) static void register_tool(void)
{
    QMPI_Register_tool_name("typed_tool", &tool_init);
}

int main(int argc, char **argv)
{
    int rank, size, provided, v = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    if (ninit != 2) {
        errs++;
        fprintf(stderr, "MPI_Init_thread passed %d tools, expected 2\n", ninit);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("qmpi_types needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        v = 42;
        MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        if (nsend != 2) {
            errs++;
            fprintf(stderr, "MPI_Send passed %d tools, expected 2\n", nsend);
        }
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (nrecv != 2 || v != 42) {
            errs++;
            fprintf(stderr, "MPI_Recv passed %d tools (expected 2), got %d (expected 42)\n", nrecv,
                    v);
        }
    }
    MPI_Finalize();
    if (nfinalize != 2) {
        errs++;
        fprintf(stderr, "MPI_Finalize passed %d tools, expected 2\n", nfinalize);
    }
    if (errs == 0 && rank == 0)
        printf(" No Errors\n");
    return errs != 0;
}
