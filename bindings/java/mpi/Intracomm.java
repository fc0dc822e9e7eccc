/* An intra-communicator: splitting, creation, topologies, scans. */
package mpi;

import java.nio.Buffer;

public class Intracomm extends Comm {
    Intracomm(long handle) { super(handle); }

    @Override public Intracomm clone() { return (Intracomm) super.clone(); }

    @Override public Intracomm dup() throws MPIException { MPI.check(); return new Intracomm(Jni.commDup(handle, 0)); }

    @Override public Intracomm iDup() throws MPIException { throw MPIException.unsupported("Intracomm.iDup"); }

    @Override public Intracomm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new Intracomm(Jni.commDup(handle, Info.h(info)));
    }

    public final Intracomm split(int colour, int key) throws MPIException {
        MPI.check();
        return new Intracomm(Jni.commSplit(handle, colour, key, -1, 0));
    }

    public final Intracomm splitType(int splitType, int key, Info info) throws MPIException {
        MPI.check();
        return new Intracomm(Jni.commSplit(handle, 0, key, splitType, Info.h(info)));
    }

    public final Intracomm create(Group group) throws MPIException {
        MPI.check();
        return new Intracomm(Jni.commCreate(handle, group.handle, 0, false));
    }

    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        MPI.check();
        return new Intracomm(Jni.commCreate(handle, group.handle, tag, true));
    }

    public final CartComm createCart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(dims, "createCart: dims");
        java.util.Objects.requireNonNull(periods, "createCart: periods");
        return new CartComm(Jni.cartCreate(handle, dims, periods, reorder));
    }

    public final GraphComm createGraph(int[] index, int[] edges, boolean reorder) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(index, "createGraph: index");
        java.util.Objects.requireNonNull(edges, "createGraph: edges");
        return new GraphComm(Jni.graphCreate(handle, index, edges, reorder));
    }

    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights,
            Info info, boolean reorder) throws MPIException {
        throw MPIException.unsupported("Intracomm.createDistGraph");
    }

    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, Info info,
            boolean reorder) throws MPIException {
        throw MPIException.unsupported("Intracomm.createDistGraph");
    }

    public final GraphComm createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
            int[] destWeights, Info info, boolean reorder) throws MPIException {
        throw MPIException.unsupported("Intracomm.createDistGraphAdjacent");
    }

    public final GraphComm createDistGraphAdjacent(int[] sources, int[] destinations, Info info, boolean reorder)
            throws MPIException {
        throw MPIException.unsupported("Intracomm.createDistGraphAdjacent");
    }

    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        coll(SCAN, false, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        coll(SCAN, false, true, null, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        return coll(SCAN, true, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return coll(SCAN, true, true, null, count, null, null, type, buf, count, null, null, type, op, 0);
    }

    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        coll(EXSCAN, false, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        coll(EXSCAN, false, true, null, count, null, null, type, buf, count, null, null, type, op, 0);
    }

    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        return coll(EXSCAN, true, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final Request iExScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return coll(EXSCAN, true, true, null, count, null, null, type, buf, count, null, null, type, op, 0);
    }

    public static String openPort() throws MPIException { throw MPIException.unsupported("Intracomm.openPort"); }

    public static String openPort(Info info) throws MPIException { throw MPIException.unsupported("Intracomm.openPort"); }

    public static void closePort(String name) throws MPIException { throw MPIException.unsupported("Intracomm.closePort"); }

    public final Intercomm accept(String port, int root) throws MPIException { throw MPIException.unsupported("Intracomm.accept"); }

    public final Intercomm accept(String port, Info info, int root) throws MPIException { throw MPIException.unsupported("Intracomm.accept"); }

    public final Intercomm connect(String port, int root) throws MPIException { throw MPIException.unsupported("Intracomm.connect"); }

    public final Intercomm connect(String port, Info info, int root) throws MPIException { throw MPIException.unsupported("Intracomm.connect"); }

    public static void publishName(String service, String port) throws MPIException { throw MPIException.unsupported("Intracomm.publishName"); }

    public static void publishName(String service, Info info, String port) throws MPIException { throw MPIException.unsupported("Intracomm.publishName"); }

    public static void unpublishName(String service, String port) throws MPIException { throw MPIException.unsupported("Intracomm.unpublishName"); }

    public static void unpublishName(String service, Info info, String port) throws MPIException { throw MPIException.unsupported("Intracomm.unpublishName"); }

    public static String lookupName(String service) throws MPIException { throw MPIException.unsupported("Intracomm.lookupName"); }

    public static String lookupName(String service, Info info) throws MPIException { throw MPIException.unsupported("Intracomm.lookupName"); }

    public final Intercomm spawn(String command, String[] argv, int maxprocs, Info info, int root, int[] errcodes)
            throws MPIException {
        throw MPIException.unsupported("Intracomm.spawn");
    }

    public final Intercomm spawnMultiple(String[] commands, String[][] argv, int[] maxprocs, Info[] info, int root,
            int[] errcodes) throws MPIException {
        throw MPIException.unsupported("Intracomm.spawnMultiple");
    }
}
