/*
 * An MPI error: the error code and class of the failed call, and a message
 * that names the call. Thrown when the communicator's (window's, file's)
 * error handler is MPI.ERRORS_RETURN, and for bad arguments the binding
 * itself detects; also for parts of the API Canal does not implement.
 */
package mpi;

public final class MPIException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int errorCode, errorClass;

    public MPIException(String message) {
        super(message);
        errorCode = errorClass = MPI.ERR_UNKNOWN_VALUE;
    }

    public MPIException(Throwable cause) {
        super(cause);
        errorCode = errorClass = MPI.ERR_UNKNOWN_VALUE;
    }

    MPIException(int code, int cls, String message) {
        super(message);
        errorCode = code;
        errorClass = cls;
    }

    static MPIException unsupported(String what) {
        return new MPIException(MPI.ERR_UNSUPPORTED_OPERATION, MPI.ERR_UNSUPPORTED_OPERATION,
                what + " is not implemented by Canal's Java binding");
    }

    public int getErrorCode() { return errorCode; }

    public int getErrorClass() { return errorClass; }
}
