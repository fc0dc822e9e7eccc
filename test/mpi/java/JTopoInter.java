/* Graph topology, neighbourhood collectives on a ring cart, inter-communicators. */
import mpi.*;

public class JTopoInter {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank(), size = w.getSize();
        /* a ring graph */
        int[] index = new int[size], edges = new int[2 * size];
        for (int i = 0; i < size; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + size - 1) % size;
            edges[2 * i + 1] = (i + 1) % size;
        }
        GraphComm g = w.createGraph(index, edges, false);
        check(g.getTopology() == MPI.GRAPH, "graph topology");
        GraphParms gp = g.getDims();
        check(gp.getIndexCount() == size && gp.getEdgeCount() == 2 * size && gp.getEdge(1) == 1 % size, "getDims");
        int[] nb = g.getNeighbors(rank);
        check(nb.length == 2 && nb[1] == (rank + 1) % size, "getNeighbors");
        int[] nr = new int[2];
        g.neighborAllGather(new int[] { rank }, 1, MPI.INT, nr, 1, MPI.INT);
        check(nr[0] == (rank + size - 1) % size && nr[1] == (rank + 1) % size, "neighborAllGather");
        g.free();
        CartComm ring = w.createCart(new int[] { size }, new boolean[] { true }, false);
        int[] sendv = { rank * 10, rank * 10 + 1 }, recvv = new int[2];
        ring.neighborAllToAll(sendv, 1, MPI.INT, recvv, 1, MPI.INT);
        check(recvv[0] == ((rank + size - 1) % size) * 10 + 1 && recvv[1] == ((rank + 1) % size) * 10, "neighborAllToAll");
        ring.free();
        if (size >= 2) {
            /* two halves, joined by an inter-communicator, merged back */
            int color = rank < size / 2 ? 0 : 1;
            Intracomm half = w.split(color, rank);
            Intercomm ic = w.createIntercomm(half, 0, color == 0 ? size / 2 : 0, 77);
            check(ic.isInter() && ic.getRemoteSize() == (color == 0 ? size - size / 2 : size / 2), "intercomm");
            check(ic.getRemoteGroup().getSize() == ic.getRemoteSize(), "remote group");
            int[] x = { rank }, y = new int[1];
            if (half.getRank() == 0) {
                ic.sendRecv(x, 1, MPI.INT, 0, 1, y, 1, MPI.INT, 0, 1);
                check(y[0] == (color == 0 ? size / 2 : 0), "intercomm exchange");
            }
            Intracomm merged = ic.merge(color == 1);
            check(merged.getSize() == size && merged.getRank() == rank, "merge order");
            merged.free();
            ic.free();
            half.free();
        }
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
