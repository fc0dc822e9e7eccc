import canal.mpi.*;
import java.nio.ByteBuffer;

/**
 * Ping-pong between ranks 0 and 1 the way the Motor paper measured: for each
 * size, 200 round trips of which the last 100 are timed, 5 repetitions
 * (the mean is reported). Prints "size latency_us bandwidth_MBps" lines for
 * byte[] arrays ("array") and direct ByteBuffers ("direct"), optionally while
 * a thread forces garbage collections (argument "gc").
 * Usage: PingPong [maxbytes] [gc]
 */
public class PingPong {
    static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        MPI.init(args);
        Comm w = MPI.COMM_WORLD;
        int rank = w.rank();
        int max = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 22;
        boolean gc = args.length > 1 && args[1].equals("gc");
        if (gc) {
            Thread t = new Thread(() -> { while (!stop) { System.gc(); try { Thread.sleep(1); } catch (InterruptedException e) { } } });
            t.setDaemon(true);
            t.start();
        }
        ByteBuffer db = ByteBuffer.allocateDirect(Math.max(max, 1));
        for (String kind : new String[] {"array", "direct"}) {
            for (int n = 1; n <= max; n *= 4) {
                byte[] a = new byte[n];
                double total = 0;
                for (int rep = 0; rep < 5; rep++) {
                    double t0 = 0;
                    w.barrier();
                    for (int i = 0; i < 200; i++) {
                        if (i == 100) t0 = MPI.wtime();
                        if (rank == 0) {
                            if (kind.equals("array")) { w.send(a, 0, n, 1, 1); w.recv(a, 0, n, 1, 1); }
                            else { w.send(db, 0, n, 1, 1); w.recv(db, 0, n, 1, 1); }
                        } else if (rank == 1) {
                            if (kind.equals("array")) { w.recv(a, 0, n, 0, 1); w.send(a, 0, n, 0, 1); }
                            else { w.recv(db, 0, n, 0, 1); w.send(db, 0, n, 0, 1); }
                        }
                    }
                    total += (MPI.wtime() - t0) / 100 / 2;
                }
                double lat = total / 5;
                if (rank == 0)
                    System.out.printf("java-%s %d %.3f %.1f%n", kind, n, lat * 1e6, n / lat / 1e6);
            }
        }
        stop = true;
        MPI.finish();
    }
}
