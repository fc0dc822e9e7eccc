/* GC stress: threads allocate and force collections (objects move) while the
 * main thread moves large and small messages from and into Java arrays
 * (blocking) and direct buffers (nonblocking, in flight while collecting).
 * Every byte is checked. Ranks pair up (0-1, 2-3, ...); args: rounds. */
import java.nio.*;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import mpi.*;

public class JGcStress {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    static int val(int seed, int i) { return seed * 31 + i * 7; }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] churn = new Thread[2];
        for (int t = 0; t < churn.length; t++) {
            final int id = t;
            churn[t] = new Thread(() -> {
                ArrayList<byte[]> live = new ArrayList<>();
                java.util.Random rnd = new java.util.Random(id);
                long n = 0;
                while (!stop.get()) {
                    live.add(new byte[1024 + rnd.nextInt(256 * 1024)]);
                    if (live.size() > 64) live.subList(0, 32).clear();
                    if (++n % (id == 0 ? 200 : 1000) == 0) System.gc();
                }
            });
            churn[t].setDaemon(true);
            churn[t].start();
        }
        int peer = rank ^ 1;
        int[] sizes = { 0, 1, 100, 4096, 16 * 1024, 70 * 1024, 300 * 1024, 1 << 20 };
        for (int r = 0; r < rounds && peer < size; r++) {
            int n = sizes[r % sizes.length];
            /* blocking, arrays: both directions, the lower rank sends first */
            int[] out = new int[n + 3], in = new int[n + 3];
            for (int i = 0; i < n; i++) out[i + 3] = val(rank + r, i);
            for (int k = 0; k < 2; k++) {
                if ((rank < peer) == (k == 0)) MPI.COMM_WORLD.send(MPI.slice(out, 3), n, MPI.INT, peer, r);
                else MPI.COMM_WORLD.recv(MPI.slice(in, 3), n, MPI.INT, peer, r);
            }
            for (int i = 0; i < n; i++)
                if (in[i + 3] != val(peer + r, i)) check(false, "array data round " + r + " at " + i);
            check(in[0] == 0 && in[2] == 0, "array offset untouched");
            /* nonblocking on direct buffers, collections while in flight */
            DoubleBuffer dout = MPI.newDoubleBuffer(n + 1), din = MPI.newDoubleBuffer(n + 1);
            for (int i = 0; i < n; i++) dout.put(i, val(rank, i) + 0.5);
            Request[] q = { MPI.COMM_WORLD.iRecv(din, n, MPI.DOUBLE, peer, 1000 + r),
                            MPI.COMM_WORLD.iSend(dout, n, MPI.DOUBLE, peer, 1000 + r) };
            byte[][] junk = new byte[16][];
            for (int j = 0; j < junk.length; j++) junk[j] = new byte[64 * 1024];
            if (r % 4 == 0) System.gc();
            Request.waitAll(q);
            for (int i = 0; i < n; i++)
                if (din.get(i) != val(peer, i) + 0.5) check(false, "direct data round " + r + " at " + i);
            /* sendRecv and a collective on arrays */
            long[] ls = new long[n / 8 + 1], lr = new long[n / 8 + 1];
            for (int i = 0; i < ls.length; i++) ls[i] = (long) val(rank, i) << 20;
            MPI.COMM_WORLD.sendRecv(ls, ls.length, MPI.LONG, peer, 2000 + r, lr, lr.length, MPI.LONG, peer, 2000 + r);
            for (int i = 0; i < lr.length; i++) check(lr[i] == (long) val(peer, i) << 20, "sendRecv data");
            int[] s = new int[n / 4 + 1], t = new int[n / 4 + 1];
            java.util.Arrays.fill(s, 1);
            MPI.COMM_WORLD.allReduce(s, t, s.length, MPI.INT, MPI.SUM);
            for (int v : t) if (v != size) check(false, "allReduce");
        }
        stop.set(true);
        for (Thread t : churn) t.join();
        MPI.COMM_WORLD.barrier();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
