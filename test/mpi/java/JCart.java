/* Cartesian topology: createDims, createCart, getTopo, shift, getCoords, sub. */
import mpi.*;

public class JCart {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        int[] dims = new int[2];
        CartComm.createDims(size, dims);
        check(dims[0] * dims[1] == size, "createDims");
        CartComm cart = MPI.COMM_WORLD.createCart(dims, new boolean[] { true, false }, false);
        check(cart.getTopology() == MPI.CART, "topology");
        CartParms t = cart.getTopo();
        check(t.getDimCount() == 2 && t.getDim(0) == dims[0] && t.getPeriod(0) && !t.getPeriod(1), "getTopo");
        int me = cart.getRank();
        int[] c = cart.getCoords(me);
        check(c[0] == t.getCoord(0) && c[1] == t.getCoord(1) && cart.getRank(c) == me, "coords");
        ShiftParms sp = cart.shift(0, 1);
        int[] cd = { (c[0] + 1) % dims[0], c[1] }, cs = { (c[0] + dims[0] - 1) % dims[0], c[1] };
        check(sp.getRankDest() == cart.getRank(cd) && sp.getRankSource() == cart.getRank(cs), "shift periodic");
        /* pass coordinates around dimension 0 */
        int[] mine = { me }, got = new int[1];
        cart.sendRecv(mine, 1, MPI.INT, sp.getRankDest(), 0, got, 1, MPI.INT, sp.getRankSource(), 0);
        check(got[0] == sp.getRankSource(), "shift exchange");
        ShiftParms np = cart.shift(1, 1);
        if (c[1] == dims[1] - 1) check(np.getRankDest() == MPI.PROC_NULL, "non-periodic edge");
        CartComm row = cart.sub(new boolean[] { false, true });
        check(row.getSize() == dims[1], "sub size");
        int[] s = new int[1];
        row.allReduce(new int[] { 1 }, s, 1, MPI.INT, MPI.SUM);
        check(s[0] == dims[1], "sub allReduce");
        row.free();
        cart.free();
        check(cart.isNull(), "freed");
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
