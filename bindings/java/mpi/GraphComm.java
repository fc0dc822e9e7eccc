/* A communicator with a graph topology (distributed graphs are not implemented). */
package mpi;

public final class GraphComm extends Intracomm {
    GraphComm(long handle) { super(handle); }

    @Override public GraphComm clone() { return (GraphComm) super.clone(); }

    @Override public GraphComm dup() throws MPIException { MPI.check(); return new GraphComm(Jni.commDup(handle, 0)); }

    @Override public GraphComm iDup() throws MPIException { throw MPIException.unsupported("GraphComm.iDup"); }

    @Override public GraphComm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new GraphComm(Jni.commDup(handle, Info.h(info)));
    }

    public GraphParms getDims() throws MPIException {
        MPI.check();
        int[] v = Jni.graphQuery(0, handle, 0, null, null);
        int nn = v[0];
        int[] index = new int[nn], edges = new int[v.length - 1 - nn];
        System.arraycopy(v, 1, index, 0, nn);
        System.arraycopy(v, 1 + nn, edges, 0, edges.length);
        return new GraphParms(index, edges);
    }

    public int[] getNeighbors(int rank) throws MPIException { MPI.check(); return Jni.graphQuery(1, handle, rank, null, null); }

    public int map(int[] index, int[] edges) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(index, "map: index"); java.util.Objects.requireNonNull(edges, "map: edges"); return Jni.graphQuery(2, handle, 0, index, edges)[0]; }
}
