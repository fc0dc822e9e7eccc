/* allReduce / reduce / scan with predefined and user operations written
 * against Open MPI's UserFunction (array and ByteBuffer forms). */
import java.nio.ByteBuffer;
import mpi.*;

public class JUserOp {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    /* element-wise max of absolute values, on int arrays */
    static class AbsMax extends UserFunction {
        @Override public void call(Object in, Object inOut, int count, Datatype type) {
            int[] a = (int[]) in, b = (int[]) inOut;
            for (int i = 0; i < count; i++) b[i] = Math.max(Math.abs(a[i]), Math.abs(b[i]));
        }
    }

    /* composition of affine maps x -> a x + b, a pair of doubles each, on the
     * native memory: associative (as MPI requires of every op) but not
     * commutative, so the result shows the rank order. in holds the lower
     * ranks' map f, inOut the higher ranks' g; the result is g after f. */
    static class AffineCompose extends UserFunction {
        @Override public void call(ByteBuffer in, ByteBuffer inOut, int count, Datatype type) {
            for (int i = 0; i < count; i++) {
                double a1 = in.getDouble(16 * i), b1 = in.getDouble(16 * i + 8);
                double a2 = inOut.getDouble(16 * i), b2 = inOut.getDouble(16 * i + 8);
                inOut.putDouble(16 * i, a2 * a1);
                inOut.putDouble(16 * i + 8, a2 * b1 + b2);
            }
        }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        int[] v = { rank + 1, -(rank + 1), 7 }, r = new int[3];
        MPI.COMM_WORLD.allReduce(v, r, 3, MPI.INT, MPI.SUM);
        check(r[0] == size * (size + 1) / 2 && r[1] == -r[0] && r[2] == 7 * size, "SUM");
        Op absmax = new Op(new AbsMax(), true);
        check(absmax.isCommutative(), "commutative");
        MPI.COMM_WORLD.allReduce(v, r, 3, MPI.INT, absmax);
        check(r[0] == size && r[1] == size && r[2] == 7, "user op on int[] " + r[0] + " " + r[1]);
        /* in place */
        int[] w = { rank };
        MPI.COMM_WORLD.allReduce(w, 1, MPI.INT, MPI.MAX);
        check(w[0] == size - 1, "in-place MAX");
        /* a derived type with a ByteBuffer user op */
        Datatype pair = Datatype.createContiguous(2, MPI.DOUBLE);
        pair.commit();
        Op ps = new Op(new AffineCompose(), false);
        double[] d = { rank + 2, rank }, dr = new double[2];
        MPI.COMM_WORLD.reduce(d, dr, 1, pair, ps, 0);
        if (rank == 0) {
            /* in rank order: f_(size-1) after ... after f_0 (any grouping) */
            double e0 = 2, e1 = 0;
            for (int i = 1; i < size; i++) { e0 = (i + 2) * e0; e1 = (i + 2) * e1 + i; }
            check(dr[0] == e0 && dr[1] == e1, "pair op " + dr[0] + "," + dr[1]);
        }
        /* scan and exScan */
        int[] sc = new int[1];
        MPI.COMM_WORLD.scan(new int[] { rank }, sc, 1, MPI.INT, MPI.SUM);
        check(sc[0] == rank * (rank + 1) / 2, "scan");
        /* MAXLOC on INT2 pairs */
        int[] loc = { rank % 2 == 0 ? rank : -1, rank }, lr = new int[2];
        MPI.COMM_WORLD.allReduce(loc, lr, 1, MPI.INT2, MPI.MAXLOC);
        int best = (size - 1) % 2 == 0 ? size - 1 : size - 2;
        check(lr[0] == best && lr[1] == best, "MAXLOC");
        /* reduceLocal */
        int[] a = { 1, 2 }, b = { 10, 20 };
        Comm.reduceLocal(a, b, 2, MPI.INT, MPI.SUM);
        check(b[0] == 11 && b[1] == 22, "reduceLocal");
        /* an exception in a user function surfaces as that exception */
        Op bad = new Op(new UserFunction() {
            @Override public void call(Object in, Object io, int n, Datatype t) {
                throw new IllegalStateException("user op failed on purpose");
            }
        }, true);
        boolean threw = false;
        try {
            Comm.reduceLocal(a, b, 2, MPI.INT, bad);
        } catch (IllegalStateException e) {
            threw = true;
        }
        check(threw, "exception from a user op");
        bad.free();
        /* a nonblocking reduction with a user op in flight while this rank
         * moves arrays with blocking calls: the op may run inside those calls'
         * progress, where the binding must not hold an array pinned */
        for (int round = 0; round < 20; round++) {
            java.nio.IntBuffer ib = MPI.newIntBuffer(64), ob = MPI.newIntBuffer(64);
            for (int i = 0; i < 64; i++) ib.put(i, rank * i - 3);
            Request ar = MPI.COMM_WORLD.iAllReduce(ib, ob, 64, MPI.INT, absmax);
            int[] x = new int[4], y = new int[4];
            int next = (rank + 1) % size, prev = (rank + size - 1) % size;
            for (int k = 0; k < 8; k++) {
                x[0] = rank + k;
                if (rank % 2 == 0) { MPI.COMM_WORLD.send(x, 4, MPI.INT, next, 50 + k); MPI.COMM_WORLD.recv(y, 4, MPI.INT, prev, 50 + k); }
                else { MPI.COMM_WORLD.recv(y, 4, MPI.INT, prev, 50 + k); MPI.COMM_WORLD.send(x, 4, MPI.INT, next, 50 + k); }
                check(y[0] == prev + k, "exchange beside a nonblocking user reduction");
            }
            ar.waitFor();
            check(CanalExt.stats()[6] == 0, "a user op ran while its thread held an array pinned");
            for (int i = 0; i < 64; i++) {
                int e = 0;
                for (int p = 0; p < size; p++) e = Math.max(e, Math.abs(p * i - 3));
                check(ob.get(i) == e, "iAllReduce with a user op at " + i);
            }
        }
        absmax.free();
        ps.free();
        pair.free();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
