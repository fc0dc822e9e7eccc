/*
 * The Java half of bench/compare_java.sh: the same ping-pong as
 * java_pingpong.c through the mpi package, from Java arrays ("array") or
 * direct buffers ("direct"); prints "KIND SIZE US MB/s" per size.
 */
import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.*;

public class JavaPingPong {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        boolean direct = args.length > 0 && args[0].equals("direct");
        int rank = MPI.COMM_WORLD.getRank();
        int[] sizes = { 8, 65536, 1 << 20 };
        for (int n : sizes) {
            int iters = n <= 8 ? 20000 : n <= 65536 ? 2000 : 300;
            Object buf;
            if (direct) {
                ByteBuffer b = MPI.newByteBuffer(n);
                for (int i = 0; i < n; i++) b.put(i, (byte) (rank + 1));
                buf = b;
            } else {
                byte[] a = new byte[n];
                Arrays.fill(a, (byte) (rank + 1));
                buf = a;
            }
            double[] t = new double[5];
            for (int b = -1; b < 5; b++) {
                MPI.COMM_WORLD.barrier();
                double t0 = MPI.wtime();
                for (int i = 0; i < iters; i++) {
                    if (rank == 0) {
                        MPI.COMM_WORLD.send(buf, n, MPI.BYTE, 1, 0);
                        MPI.COMM_WORLD.recv(buf, n, MPI.BYTE, 1, 0);
                    } else if (rank == 1) {
                        MPI.COMM_WORLD.recv(buf, n, MPI.BYTE, 0, 0);
                        MPI.COMM_WORLD.send(buf, n, MPI.BYTE, 0, 0);
                    }
                }
                if (b >= 0) t[b] = (MPI.wtime() - t0) / iters / 2 * 1e6;
            }
            byte last = direct ? ((ByteBuffer) buf).get(n - 1) : ((byte[]) buf)[n - 1];
            if (rank < 2 && last != 1) { /* rank 0's bytes went there and back */
                System.err.println("JavaPingPong: wrong data");
                MPI.COMM_WORLD.abort(1);
            }
            Arrays.sort(t);
            if (rank == 0)
                System.out.printf("%s %d %.2f %.1f%n", direct ? "direct" : "array", n, t[2], n / t[2]);
        }
        MPI.Finalize();
    }
}
