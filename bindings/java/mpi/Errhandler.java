/* An MPI error handler: the predefined MPI.ERRORS_ARE_FATAL and MPI.ERRORS_RETURN. */
package mpi;

public final class Errhandler {
    final long handle;

    Errhandler(long handle) { this.handle = handle; }
}
