/* Ring with Open MPI's Java API: blocking send/recv of arrays and slices,
 * sendRecv, probe/iProbe, Status counts. */
import mpi.*;

public class JRing {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        int[] token = new int[1];
        if (rank == 0) {
            token[0] = 100;
            MPI.COMM_WORLD.send(token, 1, MPI.INT, next, 7);
            Status s = MPI.COMM_WORLD.recv(token, 1, MPI.INT, prev, 7);
            check(token[0] == 100 + size - 1, "token " + token[0]);
            check(s.getSource() == prev && s.getTag() == 7 && s.getCount(MPI.INT) == 1, "status");
        } else {
            MPI.COMM_WORLD.recv(token, 1, MPI.INT, prev, 7);
            token[0]++;
            MPI.COMM_WORLD.send(token, 1, MPI.INT, next, 7);
        }
        /* slices: send elements 3..7 of a double array into offset 10 */
        double[] out = new double[8], in = new double[20];
        for (int i = 0; i < 8; i++) out[i] = rank * 100 + i;
        Status s = MPI.COMM_WORLD.sendRecv(MPI.slice(out, 3), 5, MPI.DOUBLE, next, 1,
                MPI.slice(in, 10), 6, MPI.DOUBLE, prev, 1);
        check(s.getCount(MPI.DOUBLE) == 5, "sendRecv count " + s.getCount(MPI.DOUBLE));
        for (int i = 0; i < 5; i++) check(in[10 + i] == prev * 100 + 3 + i, "slice " + i);
        check(in[9] == 0 && in[15] == 0, "slice bounds");
        /* probe then receive the announced size */
        long[] l = new long[rank + 1];
        java.util.Arrays.fill(l, rank);
        MPI.COMM_WORLD.send(l, l.length, MPI.LONG, next, 2);
        Status p = MPI.COMM_WORLD.probe(MPI.ANY_SOURCE, 2);
        int n = p.getCount(MPI.LONG);
        check(n == prev + 1 && p.getSource() == prev, "probe count " + n);
        long[] got = new long[n];
        MPI.COMM_WORLD.recv(got, n, MPI.LONG, p.getSource(), 2);
        for (long v : got) check(v == prev, "probe data");
        check(MPI.COMM_WORLD.iProbe(MPI.ANY_SOURCE, 99) == null, "iProbe found nothing");
        /* sendRecvReplace with chars, and a direct buffer */
        char[] c = { (char) ('a' + rank), 'x' };
        MPI.COMM_WORLD.sendRecvReplace(c, 1, MPI.CHAR, next, 3, prev, 3);
        check(c[0] == 'a' + prev && c[1] == 'x', "sendRecvReplace");
        java.nio.IntBuffer ib = MPI.newIntBuffer(4);
        ib.put(0, rank);
        MPI.COMM_WORLD.sendRecvReplace(ib, 1, MPI.INT, next, 4, prev, 4);
        check(ib.get(0) == prev, "direct sendRecvReplace");
        MPI.COMM_WORLD.barrier();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
