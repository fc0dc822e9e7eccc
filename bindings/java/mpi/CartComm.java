/* A communicator with a Cartesian topology. */
package mpi;

public final class CartComm extends Intracomm {
    CartComm(long handle) { super(handle); }

    @Override public CartComm clone() { return (CartComm) super.clone(); }

    @Override public CartComm dup() throws MPIException { MPI.check(); return new CartComm(Jni.commDup(handle, 0)); }

    @Override public CartComm iDup() throws MPIException { throw MPIException.unsupported("CartComm.iDup"); }

    @Override public CartComm dupWithInfo(Info info) throws MPIException {
        MPI.check();
        return new CartComm(Jni.commDup(handle, Info.h(info)));
    }

    public CartParms getTopo() throws MPIException {
        MPI.check();
        int[] v = Jni.cartGet(handle);
        int n = v.length / 3;
        int[] dims = new int[n], coords = new int[n];
        boolean[] periods = new boolean[n];
        for (int i = 0; i < n; i++) {
            dims[i] = v[i];
            periods[i] = v[n + i] != 0;
            coords[i] = v[2 * n + i];
        }
        return new CartParms(dims, periods, coords);
    }

    public int getRank(int[] coords) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(coords, "getRank: coords"); return Jni.cartRank(handle, coords); }

    public int[] getCoords(int rank) throws MPIException { MPI.check(); return Jni.cartCoords(handle, rank); }

    public ShiftParms shift(int direction, int disp) throws MPIException {
        MPI.check();
        long v = Jni.cartShift(handle, direction, disp);
        return new ShiftParms((int) (v >> 32), (int) v);
    }

    public CartComm sub(boolean[] remainDims) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(remainDims, "sub: remainDims"); return new CartComm(Jni.cartSub(handle, remainDims)); }

    public int map(int[] dims, boolean[] periods) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(dims, "map: dims"); java.util.Objects.requireNonNull(periods, "map: periods"); return Jni.cartMap(handle, dims, periods); }

    public static void createDims(int nnodes, int[] dims) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(dims, "createDims: dims"); Jni.dimsCreate(nnodes, dims); }
}
