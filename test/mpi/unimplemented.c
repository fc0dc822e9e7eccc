/* A function Canal does not implement yet raises MPI_ERR_UNSUPPORTED_OPERATION
 * through the error handler with a message that says so. Every MPI 4.0
 * function is implemented now; MPICH's QMPI tool interface
 * (QMPI_Register_tool_name) is the example. */
#include "mtest.h"

static void tool_init(int tool_id) { (void)tool_id; }

int main(int argc, char **argv)
{
    int err, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = QMPI_Register_tool_name("canal-test", tool_init);
    CHECK(mtest_error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "class %d",
          mtest_error_class(err));
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "not implemented in Canal yet") != NULL, "message \"%s\"", msg);
    return mtest_finish();
}
