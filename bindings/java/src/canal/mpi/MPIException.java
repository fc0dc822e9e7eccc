package canal.mpi;

/** An MPI call failed: the message is MPI_Error_string's text of the error code. */
public class MPIException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errorClass;

    public MPIException(int errorClass, String message) {
        super(message);
        this.errorClass = errorClass;
    }

    /** The MPI error class (MPI_ERR_*). */
    public int getErrorClass() {
        return errorClass;
    }
}
