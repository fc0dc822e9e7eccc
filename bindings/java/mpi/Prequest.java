/* A persistent request (sendInit, recvInit, ...): start it, complete it, start it again. */
package mpi;

public final class Prequest extends Request {
    Prequest(long handle, Object keep) { super(handle, keep); }

    public void start() throws MPIException {
        MPI.check();
        Jni.start(new long[] { handle });
    }

    public static void startAll(Prequest[] requests) throws MPIException {
        MPI.check();
        Jni.start(handles(requests));
    }
}
