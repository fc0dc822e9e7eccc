/*
 * Two QMPI tools stacked as MPICH's QMPI documents it: each registers its
 * name before MPI_Init, the tool list (CANAL_QMPI_TOOL_LIST, set by the
 * testlist) starts them in order, and each intercepts some functions and
 * passes the calls on with QMPI_Get_function. Checks: the order of the
 * chain (tool 1, then tool 2, then the library), that a function only tool
 * 2 intercepts skips tool 1, that PMPI_ calls skip the tools, per-tool
 * storage, the calling address, argument errors, and that the results of
 * intercepted calls are those of the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int errs;
#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            errs++;                                                                             \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
        }                                                                                       \
    } while (0)

typedef int(send_fn_t)(QMPI_Context, int, const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int(barrier_fn_t)(QMPI_Context, int, MPI_Comm);

static char trace[64]; /* which tool saw the last MPI_Send, in order */
static int ids[3], nbarrier;
static void *last_caller;

static int pass_send(QMPI_Context c, int me, const void *b, int n, MPI_Datatype t, int d, int tag,
                     MPI_Comm comm)
{
    void (*next)(void) = NULL;
    int next_id = -1;
    QMPI_Get_function(me, MPI_SEND_T, &next, &next_id);
    return ((send_fn_t *)next)(c, next_id, b, n, t, d, tag, comm);
}

static int send1(QMPI_Context c, int me, const void *b, int n, MPI_Datatype t, int d, int tag,
                 MPI_Comm comm)
{
    void *st = NULL;
    QMPI_Get_tool_storage(c, me, &st);
    CHECK(st == &ids[1], "tool 1 storage %p, expected %p", st, (void *)&ids[1]);
    QMPI_Get_calling_address(c, &last_caller);
    strcat(trace, "1");
    return pass_send(c, me, b, n, t, d, tag, comm);
}

static int send2(QMPI_Context c, int me, const void *b, int n, MPI_Datatype t, int d, int tag,
                 MPI_Comm comm)
{
    strcat(trace, "2");
    return pass_send(c, me, b, n, t, d, tag, comm);
}

static int barrier2(QMPI_Context c, int me, MPI_Comm comm)
{
    void (*next)(void) = NULL;
    int next_id = -1;
    nbarrier++;
    QMPI_Get_function(me, MPI_BARRIER_T, &next, &next_id);
    return ((barrier_fn_t *)next)(c, next_id, comm);
}

static void init1(int id)
{
    ids[1] = id;
    QMPI_Register_tool_storage(id, &ids[1]);
    QMPI_Register_function(id, MPI_SEND_T, (void (*)(void))send1);
}

static void init2(int id)
{
    ids[2] = id;
    QMPI_Register_function(id, MPI_SEND_T, (void (*)(void))send2);
    QMPI_Register_function(id, MPI_BARRIER_T, (void (*)(void))barrier2);
}

int main(int argc, char **argv)
{
    int rank, size, v = 0, got = -1;
    void (*fp)(void) = NULL;
    int next = 0;

    QMPI_Register_tool_name("counter", init1);
    QMPI_Register_tool_name("tracer", init2);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(ids[1] == 1 && ids[2] == 2, "tool ids %d %d (expected 1 2: CANAL_QMPI_TOOL_LIST order)",
          ids[1], ids[2]);

    if (size > 1) {
        if (rank == 0) {
            v = 42;
            MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            CHECK(strcmp(trace, "12") == 0, "MPI_Send went through '%s', expected '12'", trace);
            CHECK(last_caller != NULL, "QMPI_Get_calling_address gave NULL");
            trace[0] = '\0';
            PMPI_Send(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
            CHECK(trace[0] == '\0', "PMPI_Send went through the tools ('%s')", trace);
        } else if (rank == 1) {
            MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(got == 42, "received %d through the tools, expected 42", got);
            MPI_Recv(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(nbarrier == 1, "tool 2 saw %d barriers, expected 1", nbarrier);
    /* A send with a bad rank reaches the library through the tools and fails there. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Send(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD) != MPI_SUCCESS,
          "a send to rank %d through the tools succeeded", size + 3);
    /* Bad QMPI arguments are errors, not crashes. */
    CHECK(QMPI_Register_function(99, MPI_SEND_T, (void (*)(void))send1) != MPI_SUCCESS,
          "QMPI_Register_function accepted tool id 99");
    CHECK(QMPI_Get_function(0, (enum QMPI_Functions_enum) - 1, &fp, &next) != MPI_SUCCESS,
          "QMPI_Get_function accepted function id -1");
    CHECK(QMPI_Get_function(2, MPI_ALLREDUCE_T, &fp, &next) == MPI_SUCCESS && fp != NULL,
          "QMPI_Get_function gave no library function for MPI_Allreduce");
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
