/* Every blocking collective on arrays, and the nonblocking ones on direct buffers. */
import java.nio.*;
import mpi.*;

public class JCollectives {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank(), size = w.getSize(), root = size - 1;
        int[] b = { rank == root ? 77 : 0 };
        w.bcast(b, 1, MPI.INT, root);
        check(b[0] == 77, "bcast");
        int[] all = new int[size];
        w.gather(new int[] { rank * 2 }, 1, MPI.INT, all, 1, MPI.INT, root);
        if (rank == root) for (int i = 0; i < size; i++) check(all[i] == 2 * i, "gather");
        int[] counts = new int[size], displs = new int[size];
        int tot = 0;
        for (int i = 0; i < size; i++) { counts[i] = i + 1; displs[i] = tot; tot += i + 1; }
        int[] mine = new int[rank + 1];
        java.util.Arrays.fill(mine, rank);
        int[] gv = new int[tot];
        w.gatherv(mine, rank + 1, MPI.INT, gv, counts, displs, MPI.INT, 0);
        if (rank == 0) for (int i = 0; i < size; i++) for (int j = 0; j < counts[i]; j++) check(gv[displs[i] + j] == i, "gatherv");
        int[] sc = new int[size], one = new int[1];
        for (int i = 0; i < size; i++) sc[i] = 10 * i;
        w.scatter(sc, 1, MPI.INT, one, 1, MPI.INT, 0);
        check(one[0] == 10 * rank, "scatter");
        int[] sv = new int[rank + 1];
        w.scatterv(gv, counts, displs, MPI.INT, sv, rank + 1, MPI.INT, 0);
        for (int v : sv) check(v == rank, "scatterv");
        float[] ag = new float[size];
        w.allGather(new float[] { rank + 0.5f }, 1, MPI.FLOAT, ag, 1, MPI.FLOAT);
        for (int i = 0; i < size; i++) check(ag[i] == i + 0.5f, "allGather");
        int[] agv = new int[tot];
        w.allGatherv(mine, rank + 1, MPI.INT, agv, counts, displs, MPI.INT);
        for (int i = 0; i < size; i++) check(agv[displs[i]] == i, "allGatherv");
        long[] a2a = new long[size], a2r = new long[size];
        for (int i = 0; i < size; i++) a2a[i] = rank * 100 + i;
        w.allToAll(a2a, 1, MPI.LONG, a2r, 1, MPI.LONG);
        for (int i = 0; i < size; i++) check(a2r[i] == i * 100 + rank, "allToAll");
        int[] ones = new int[size], d = new int[size];
        for (int i = 0; i < size; i++) { ones[i] = 1; d[i] = i; }
        long[] a2v = new long[size];
        w.allToAllv(a2a, ones, d, MPI.LONG, a2v, ones, d, MPI.LONG);
        for (int i = 0; i < size; i++) check(a2v[i] == i * 100 + rank, "allToAllv");
        int[] rs = new int[1], src = new int[size];
        for (int i = 0; i < size; i++) src[i] = i;
        w.reduceScatterBlock(src, rs, 1, MPI.INT, MPI.SUM);
        check(rs[0] == rank * size, "reduceScatterBlock");
        w.reduceScatter(src, rs, ones, MPI.INT, MPI.SUM);
        check(rs[0] == rank * size, "reduceScatter");
        short[] red = new short[1];
        w.reduce(new short[] { (short) rank }, red, 1, MPI.SHORT, MPI.MAX, 0);
        if (rank == 0) check(red[0] == size - 1, "reduce short");
        boolean[] land = { true }, lr = new boolean[1];
        w.allReduce(land, lr, 1, MPI.BOOLEAN, MPI.LAND);
        check(lr[0], "LAND boolean");
        int[] ex = new int[1];
        w.exScan(new int[] { 1 }, ex, 1, MPI.INT, MPI.SUM);
        if (rank > 0) check(ex[0] == rank, "exScan");
        /* the "in place" forms of the rooted collectives: the root's buffer
         * holds its own part; the others pass their part in the same argument */
        int[] ga = new int[size];
        if (rank == root) ga[root] = 1000 + root; else ga[0] = 1000 + rank;
        w.gather(ga, 1, MPI.INT, root);
        if (rank == root) for (int i = 0; i < size; i++) check(ga[i] == 1000 + i, "gather in place " + i);
        int[] rd = { rank + 1 };
        w.reduce(rd, 1, MPI.INT, MPI.SUM, root);
        if (rank == root) check(rd[0] == size * (size + 1) / 2, "reduce in place " + rd[0]);
        int[] sa = new int[size];
        if (rank == root) for (int i = 0; i < size; i++) sa[i] = 500 + i;
        w.scatter(sa, 1, MPI.INT, root);
        check(sa[rank == root ? root : 0] == 500 + rank, "scatter in place");
        int[] gvi = new int[tot];
        if (rank == 0) java.util.Arrays.fill(gvi, 0, 1, 0); /* rank 0's block: one 0 at 0 */
        if (rank == 0) w.gatherv(gvi, counts, displs, MPI.INT, 0);
        else w.gatherv(mine, rank + 1, MPI.INT, 0);
        if (rank == 0) for (int i = 0; i < size; i++) for (int j = 0; j < counts[i]; j++) check(gvi[displs[i] + j] == i, "gatherv in place");
        w.barrier();
        /* nonblocking on direct buffers */
        IntBuffer ib = MPI.newIntBuffer(2), ir = MPI.newIntBuffer(2);
        ib.put(0, rank).put(1, 1);
        Request r1 = w.iAllReduce(ib, ir, 2, MPI.INT, MPI.SUM);
        IntBuffer bb = MPI.newIntBuffer(1);
        if (rank == 0) bb.put(0, 5);
        Request r2 = w.iBcast(bb, 1, MPI.INT, 0);
        Request r3 = w.iBarrier();
        IntBuffer gb = MPI.newIntBuffer(size);
        Request r4 = w.iAllGather(MPI.slice(ib, 0), 1, MPI.INT, gb, 1, MPI.INT);
        Request.waitAll(new Request[] { r1, r2, r3, r4 });
        check(ir.get(0) == size * (size - 1) / 2 && ir.get(1) == size, "iAllReduce");
        check(bb.get(0) == 5, "iBcast");
        for (int i = 0; i < size; i++) check(gb.get(i) == i, "iAllGather");
        DoubleBuffer sb = MPI.newDoubleBuffer(1), sr = MPI.newDoubleBuffer(1);
        sb.put(0, 1.5);
        w.iScan(sb, sr, 1, MPI.DOUBLE, MPI.SUM).waitFor();
        check(sr.get(0) == 1.5 * (rank + 1), "iScan");
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
