import canal.mpi.*;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Exchanges primitive arrays and direct ByteBuffers around a ring (blocking
 * and nonblocking, eager and rendezvous sizes), with allreduce and barrier,
 * while another thread forces garbage collections in a loop and allocates
 * garbage. Checks every element; prints " No Errors" on rank 0.
 * Usage: GcStress [iterations]
 */
public class GcStress {
    static volatile boolean stop;
    static long gcs;

    static long value(int it, int from, int i) {
        long x = (long) it * 1000003L + (long) from * 7919L + i;
        return x * 0x9E3779B97F4A7C15L >>> 7;
    }

    public static void main(String[] args) throws Exception {
        MPI.init(args);
        Comm w = MPI.COMM_WORLD;
        int rank = w.rank(), size = w.size();
        int iters = args.length > 0 ? Integer.parseInt(args[0]) : 120;
        long errors = 0;
        Thread collector = new Thread(() -> {
            byte[][] keep = new byte[8][];
            int k = 0;
            while (!stop) {
                System.gc();
                gcs++;
                for (int j = 0; j < 20; j++)
                    keep[k++ & 7] = new byte[64 << 10];
            }
        });
        collector.setDaemon(true);
        collector.start();

        int[] counts = {0, 1, 100, 2048, 2049, 20000, 150000};
        ByteBuffer dsend = ByteBuffer.allocateDirect(8 * 150000 + 64).order(ByteOrder.nativeOrder());
        ByteBuffer drecv = ByteBuffer.allocateDirect(8 * 150000 + 64).order(ByteOrder.nativeOrder());
        for (int it = 0; it < iters && size > 1; it++) {
            int k = 1 + it % (size - 1), dest = (rank + k) % size, src = (rank - k + size) % size;
            int n = counts[(it / 6) % counts.length];
            int variant = it % 6;
            if (it % 10 == 9) { /* fresh direct buffers: the old ones get released */
                dsend = ByteBuffer.allocateDirect(8 * 150000 + 64).order(ByteOrder.nativeOrder());
                drecv = ByteBuffer.allocateDirect(8 * 150000 + 64).order(ByteOrder.nativeOrder());
            }
            switch (variant) {
            case 0: { /* long[]: nonblocking receive, blocking send */
                long[] s = new long[n], r = new long[n];
                for (int i = 0; i < n; i++) s[i] = value(it, rank, i);
                Request rq = w.irecv(r, 0, n, src, it);
                w.send(s, 0, n, dest, it);
                Status st = rq.waitFor();
                if (st.source != src || st.bytes != 8L * n) errors++;
                for (int i = 0; i < n; i++) if (r[i] != value(it, src, i)) { errors++; break; }
                break;
            }
            case 1: { /* double[]: nonblocking send, blocking receive */
                double[] s = new double[n], r = new double[n + 3];
                for (int i = 0; i < n; i++) s[i] = (double) value(it, rank, i);
                Request rq = w.isend(s, 0, n, dest, it);
                Status st = w.recv(r, 3, n, src, it);
                rq.waitFor();
                if (st.count(8) != n) errors++;
                for (int i = 0; i < n; i++) if (r[3 + i] != (double) value(it, src, i)) { errors++; break; }
                break;
            }
            case 2: { /* direct buffers: nonblocking receive, blocking send */
                for (int i = 0; i < n; i++) dsend.putLong(8 + 8 * i, value(it, rank, i));
                Request rq = w.irecv(drecv, 16, 8 * n, src, it);
                w.send(dsend, 8, 8 * n, dest, it);
                rq.waitFor();
                for (int i = 0; i < n; i++) if (drecv.getLong(16 + 8 * i) != value(it, src, i)) { errors++; break; }
                break;
            }
            case 3: { /* direct buffers: nonblocking send, blocking receive */
                for (int i = 0; i < n; i++) dsend.putLong(8 * i, value(it, rank, i));
                Request rq = w.isend(dsend, 0, 8 * n, dest, it);
                Status st = w.recv(drecv, 0, 8 * n, src, it);
                rq.waitFor();
                if (st.bytes != 8L * n) errors++;
                for (int i = 0; i < n; i++) if (drecv.getLong(8 * i) != value(it, src, i)) { errors++; break; }
                break;
            }
            case 4: { /* int[] and byte[] with offsets, blocking both ways (ordered by a posted receive) */
                int[] s = new int[n + 5], r = new int[n + 2];
                byte[] bs = new byte[n], br = new byte[n];
                for (int i = 0; i < n; i++) { s[5 + i] = (int) value(it, rank, i); bs[i] = (byte) value(it, rank, i); }
                Request rq = w.irecv(r, 2, n, src, it);
                w.send(s, 5, n, dest, it);
                rq.waitFor();
                for (int i = 0; i < n; i++) if (r[2 + i] != (int) value(it, src, i)) { errors++; break; }
                Request rb = w.isend(bs, 0, n, dest, it + 100000);
                w.recv(br, 0, n, src, it + 100000);
                rb.waitFor();
                for (int i = 0; i < n; i++) if (br[i] != (byte) value(it, src, i)) { errors++; break; }
                break;
            }
            default: { /* collectives */
                long[] in = {rank, 1, value(it, rank, 0) & 0xffff}, out = new long[3];
                w.allreduce(in, out, 3, Op.SUM);
                long want = 0;
                for (int q = 0; q < size; q++) want += value(it, q, 0) & 0xffff;
                if (out[0] != (long) size * (size - 1) / 2 || out[1] != size || out[2] != want) errors++;
                double[] d = {rank}, dm = new double[1];
                w.allreduce(d, dm, 1, Op.MAX);
                if (dm[0] != size - 1) errors++;
                w.barrier();
            }
            }
            if (errors > 0 && it % 10 == 0)
                System.err.println("rank " + rank + ": errors by iteration " + it + ": " + errors);
        }
        stop = true;
        collector.join();
        long[] e = {errors}, tot = new long[1];
        w.allreduce(e, tot, 1, Op.SUM);
        if (System.getenv("CANAL_JAVA_VERBOSE") != null) {
            long[] s = MPI.stats();
            System.err.printf("rank %d: %d GCs forced; sends pinned briefly %d, copied %d; receives within the pin %d, after waiting unpinned %d; direct buffers registered %d%n",
                    rank, gcs, s[0], s[1], s[2], s[3], s[4]);
        }
        if (rank == 0)
            System.out.println(tot[0] == 0 ? " No Errors" : " Found " + tot[0] + " errors");
        MPI.finish();
        System.exit(tot[0] == 0 ? 0 : 1);
    }
}
