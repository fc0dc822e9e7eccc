/* Large blocking messages from and into Java arrays: the data arrives intact
 * and the receive lands in the array itself (the binding's counters show no
 * copy: it was taken pinned, after the spin or after a probe). */
import mpi.*;

public class JLargeArray {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        int n = 1 << 20; /* 4 MiB of ints */
        int rounds = 4;
        if (size >= 2 && rank < 2) {
            int[] a = new int[n];
            for (int r = 0; r < rounds; r++) {
                if (rank == 0) {
                    for (int i = 0; i < n; i++) a[i] = i ^ r;
                    long[] before = CanalExt.stats();
                    MPI.COMM_WORLD.send(a, n, MPI.INT, 1, r);
                    long[] after = CanalExt.stats();
                    /* one copy into the registered bounce buffer, nothing else
                     * allocated for the span (it used to leak one) */
                    check(after[1] == before[1] + 1 && after[4] == before[4], "large send: one bounce copy only");
                } else {
                    long[] before = CanalExt.stats();
                    Status s = MPI.COMM_WORLD.recv(a, n, MPI.INT, 0, r);
                    long[] after = CanalExt.stats();
                    check(s.getCount(MPI.INT) == n, "count");
                    for (int i = 0; i < n; i++)
                        if (a[i] != (i ^ r)) check(false, "data at " + i + " round " + r);
                    check(after[2] + after[3] == before[2] + before[3] + 1, "received pinned (no copy)");
                    check(after[4] == before[4], "no span copy for a receive");
                }
            }
            /* a strided (vector) large message into an array */
            Datatype every2 = Datatype.createVector(n / 2, 1, 2, MPI.DOUBLE);
            every2.commit();
            double[] d = new double[n];
            if (rank == 0) {
                for (int i = 0; i < n; i++) d[i] = i;
                MPI.COMM_WORLD.send(d, 1, every2, 1, 99);
            } else {
                MPI.COMM_WORLD.recv(d, 1, every2, 0, 99);
                for (int i = 0; i < n; i++)
                    if (d[i] != (i % 2 == 0 ? i : 0)) check(false, "vector at " + i);
            }
            every2.free();
        }
        MPI.COMM_WORLD.barrier();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
