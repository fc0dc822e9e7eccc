/* The error a program sees names the call it made (issue 19). MPI_File_sync,
 * MPI_File_close, MPI_Comm_disconnect and MPI_File_open run collectives of
 * their own inside the library (a barrier, an allreduce, a duplication of
 * the communicator); when a rank has died those fail, and the
 * code returned -- or the message given to the error handler (the file's
 * for MPI_File_sync and MPI_File_close, MPI_FILE_NULL's for MPI_File_open,
 * never the communicator's: MPI 4.0 section 14.7, as MPICH 4.0.2 raises
 * every error of MPI_File_open) -- must name the program's call, not an
 * MPI_Barrier or MPI_Allreduce it never made. Run under mpiexec -disable-auto-cleanup: the last rank kills
 * itself (SIGKILL) once everything is set up; the survivors check each
 * call's error (class MPIX_ERR_PROC_FAILED where the code comes from the
 * failed collective) and rank 0 prints "No Errors". A survivor that fails a
 * check aborts with 2; the job's exit code is otherwise the victim's 137.
 * (No window here: a window's RMA agent does not survive the death of a
 * rank of its group yet: the agent spins.) */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static char seen[MPI_MAX_ERROR_STRING]; /* the first message the handler got */
static int comm_calls;                  /* times the communicator's handler ran */

static void fail(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "rank %d: %s (%s)\n", rank, what, msg);
    MPI_Abort(MPI_COMM_SELF, 2);
    exit(2);
}

/* the error handler of the file's communicator: records, returns */
static void record(MPI_Comm *comm, int *code, ...)
{
    int len = 0;
    (void)comm;
    comm_calls++;
    if (seen[0] == '\0')
        MPI_Error_string(*code, seen, &len);
}

/* the file's own error handler (MPI_File_sync and MPI_File_close raise
 * their errors on the file, not on the communicator it was opened on), and
 * MPI_FILE_NULL's (MPI_File_open's) */
static void record_file(MPI_File *fh, int *code, ...)
{
    int len = 0;
    (void)fh;
    if (seen[0] == '\0')
        MPI_Error_string(*code, seen, &len);
}

/* rc failed, its message starts with "call:" (and its class is
 * MPIX_ERR_PROC_FAILED when proc_failed) */
static void expect_error(const char *call, int rc, int proc_failed)
{
    char msg[MPI_MAX_ERROR_STRING] = "", what[300];
    int len = 0, cls = MPI_SUCCESS;
    size_t n = strlen(call);

    if (rc == MPI_SUCCESS) {
        snprintf(what, sizeof what, "%s succeeded although a rank it needs died", call);
        fail(what, rc);
    }
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (proc_failed && cls != MPIX_ERR_PROC_FAILED) {
        snprintf(what, sizeof what, "%s failed with class %d, not MPIX_ERR_PROC_FAILED", call, cls);
        fail(what, rc);
    }
    if (strncmp(msg, call, n) != 0 || msg[n] != ':') {
        snprintf(what, sizeof what, "the error of %s names another call", call);
        fail(what, rc);
    }
    printf("rank %d: %s: %s\n", rank, call, msg);
}

/* the handler was called with a message that starts with "call:" */
static void expect_seen(const char *call)
{
    char what[MPI_MAX_ERROR_STRING + 100];
    size_t n = strlen(call);

    if (strncmp(seen, call, n) != 0 || seen[n] != ':') {
        snprintf(what, sizeof what, "the handler got \"%s\" during %s",
                 seen[0] ? seen : "(nothing)", call);
        fail(what, MPI_SUCCESS);
    }
    printf("rank %d: handler during %s: %s\n", rank, call, seen);
    seen[0] = '\0';
}

int main(int argc, char **argv)
{
    MPI_Comm dcomm, fcomm;
    MPI_Errhandler eh, feh;
    MPI_File fh, fh2;
    char name[128];
    int rc, x = 1, victim;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3)
        fail("needs 3 ranks or more", MPI_SUCCESS);
    victim = size - 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm_dup(MPI_COMM_WORLD, &dcomm);
    MPI_Comm_dup(MPI_COMM_WORLD, &fcomm);
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(fcomm, eh);
    snprintf(name, sizeof name, "%s/canal-errname-%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    rc = MPI_File_open(fcomm, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS)
        fail("MPI_File_open before the failure", rc);
    MPI_File_create_errhandler(record_file, &feh);
    MPI_File_set_errhandler(fh, feh);
    MPI_Barrier(MPI_COMM_WORLD);

    /* The victim dies once every rank is past the setup: the others tell
     * rank 0, which tells the victim. */
    if (rank == victim) {
        MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        raise(SIGKILL);
        pause();
    }
    if (rank == 0) {
        for (int i = 0; i < size - 2; i++)
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, victim, 5, MPI_COMM_WORLD);
    } else {
        MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }

    /* the file's allreduce and barrier, through the file's handler */
    seen[0] = '\0';
    rc = MPI_File_sync(fh);
    if (rc == MPI_SUCCESS)
        fail("MPI_File_sync succeeded although a rank it needs died", rc);
    expect_seen("MPI_File_sync");
    MPI_File_close(&fh);
    expect_seen("MPI_File_close");
    /* the disconnect's barrier */
    expect_error("MPI_Comm_disconnect", MPI_Comm_disconnect(&dcomm), 1);
    /* the duplication of the communicator for the file: MPI_FILE_NULL's
     * handler, not fcomm's */
    MPI_File_set_errhandler(MPI_FILE_NULL, feh);
    comm_calls = 0;
    rc = MPI_File_open(fcomm, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fh2);
    expect_error("MPI_File_open", rc, 1);
    expect_seen("MPI_File_open");
    if (comm_calls != 0)
        fail("MPI_File_open raised its error on the communicator's handler", MPI_SUCCESS);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    fflush(stdout);
    if (rank == 0) {
        unlink(name);
        printf("No Errors\n");
    }
    MPI_Errhandler_free(&eh);
    MPI_Errhandler_free(&feh);
    MPI_Finalize();
    return 0;
}
