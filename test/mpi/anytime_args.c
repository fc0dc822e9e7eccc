/* The calls the standard allows before MPI_Init and after MPI_Finalize
 * return an error for a bad argument there, instead of ending the program
 * (no error handler exists yet, or any more); while MPI runs the same
 * errors go through MPI_COMM_WORLD's handler. */
#include <mpi.h>
#include <stdio.h>

static int errs;

static void expect_class(int code, int cls, const char *what)
{
    int c = -1;
    if (code == MPI_SUCCESS) {
        printf("%s: succeeded, expected an error\n", what);
        errs++;
        return;
    }
    MPI_Error_class(code, &c);
    if (c != cls) {
        printf("%s: error class %d, expected %d\n", what, c, cls);
        errs++;
    }
}

/* The same bad calls in every phase; all are ERR_ARG. */
static void bad_calls(const char *phase)
{
    char what[128], text[MPI_MAX_ERROR_STRING];
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Info info;
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    int len, v, sv;

    snprintf(what, sizeof what, "%s: MPI_Info_create(NULL)", phase);
    expect_class(MPI_Info_create(NULL), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "%s: MPI_Errhandler_free(NULL)", phase);
    expect_class(MPI_Errhandler_free(NULL), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "%s: MPI_Errhandler_free(&MPI_ERRHANDLER_NULL)", phase);
    expect_class(MPI_Errhandler_free(&eh), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "%s: MPI_Session_create_errhandler(NULL, ...)", phase);
    expect_class(MPI_Session_create_errhandler(NULL, &eh), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "%s: MPI_Error_string(-5, ...)", phase);
    expect_class(MPI_Error_string(-5, text, &len), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "%s: MPI_Get_version(NULL, ...)", phase);
    expect_class(MPI_Get_version(NULL, &sv), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "%s: MPI_Status_c2f(MPI_STATUS_IGNORE, ...)", phase);
    expect_class(MPI_Status_c2f(MPI_STATUS_IGNORE, fst), MPI_ERR_ARG, what);
    /* and the good ones still work */
    if (MPI_Info_create(&info) != MPI_SUCCESS || MPI_Info_set(info, "k", "v") != MPI_SUCCESS ||
        MPI_Info_free(&info) != MPI_SUCCESS || MPI_Get_version(&v, &sv) != MPI_SUCCESS ||
        v != MPI_VERSION) {
        printf("%s: the info and version calls failed\n", phase);
        errs++;
    }
}

int main(int argc, char **argv)
{
    int rank = 0, flag = 0;

    bad_calls("before MPI_Init");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bad_calls("while MPI runs");
    expect_class(MPI_Initialized(NULL), MPI_ERR_ARG, "MPI_Initialized(NULL)");
    MPI_Finalize();
    bad_calls("after MPI_Finalize");
    if (MPI_Finalized(&flag) != MPI_SUCCESS || !flag) {
        printf("MPI_Finalized does not say finalized\n");
        errs++;
    }
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    return errs != 0;
}
