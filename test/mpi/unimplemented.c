/* A function Canal does not implement yet raises MPI_ERR_UNSUPPORTED_OPERATION
 * through the error handler with a message that says so. Every MPI 4.0
 * function is implemented now; an MPICH extension (MPIX_Grequest_class_create,
 * generalized request classes) is the example. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int err, len;
    MPIX_Grequest_class cls;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPIX_Grequest_class_create(NULL, NULL, NULL, NULL, NULL, &cls);
    CHECK(mtest_error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "class %d",
          mtest_error_class(err));
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "not implemented in Canal yet") != NULL, "message \"%s\"", msg);
    return mtest_finish();
}
