/* An inter-communicator. */
package mpi;

public final class Intercomm extends Comm {
    Intercomm(long handle) { super(handle); }

    @Override public Intercomm clone() { return (Intercomm) super.clone(); }

    @Override public Intercomm dup() throws MPIException { MPI.check(); return new Intercomm(Jni.commDup(handle, 0)); }

    @Override public Intercomm iDup() throws MPIException { throw MPIException.unsupported("Intercomm.iDup"); }

    @Override public Intercomm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new Intercomm(Jni.commDup(handle, Info.h(info)));
    }

    public int getRemoteSize() throws MPIException { MPI.check(); return Jni.commInt(3, handle); }

    public Group getRemoteGroup() throws MPIException { MPI.check(); return new Group(Jni.commGroup(handle, true)); }

    public Intracomm merge(boolean high) throws MPIException { MPI.check(); return new Intracomm(Jni.intercommMerge(handle, high)); }

    public static Intercomm getParent() throws MPIException { MPI.check(); return new Intercomm(Jni.commParent()); }
}
