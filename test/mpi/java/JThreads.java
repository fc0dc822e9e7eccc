/* MPI.THREAD_MULTIPLE: several Java threads exchange arrays (small and large,
 * so some go through each thread's own bounce buffer) and direct buffers on
 * their own duplicated communicators at once, while the collector runs. */
import java.nio.IntBuffer;
import mpi.*;

public class JThreads {
    static volatile String failure;

    public static void main(String[] args) throws Exception {
        int provided = MPI.InitThread(args, MPI.THREAD_MULTIPLE);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        if (provided < MPI.THREAD_MULTIPLE) {
            if (rank == 0) System.out.println("skipped: THREAD_MULTIPLE not provided\nNo Errors");
            MPI.Finalize();
            return;
        }
        int nthreads = 3, peer = rank ^ 1;
        Intracomm[] comms = new Intracomm[nthreads];
        for (int t = 0; t < nthreads; t++) comms[t] = MPI.COMM_WORLD.dup();
        Thread[] th = new Thread[nthreads];
        for (int t = 0; t < nthreads; t++) {
            final int id = t;
            th[t] = new Thread(() -> {
                try {
                    Intracomm c = comms[id];
                    for (int r = 0; r < 30 && peer < size; r++) {
                        int n = (r % 3 == 0) ? 200000 : 10 + r;
                        int[] out = new int[n], in = new int[n];
                        for (int i = 0; i < n; i++) out[i] = id * 1000000 + r * 1000 + i;
                        Status s = c.sendRecv(out, n, MPI.INT, peer, r, in, n, MPI.INT, peer, r);
                        if (rank < peer) { c.send(out, n, MPI.INT, peer, 100 + r); c.recv(in, n, MPI.INT, peer, 100 + r); }
                        else { c.recv(in, n, MPI.INT, peer, 100 + r); c.send(out, n, MPI.INT, peer, 100 + r); }
                        for (int i = 0; i < n; i += 17)
                            if (in[i] != id * 1000000 + r * 1000 + i) { failure = "thread " + id + " round " + r; return; }
                        IntBuffer db = MPI.newIntBuffer(64), dr = MPI.newIntBuffer(64);
                        db.put(0, id + r);
                        Request q = c.iRecv(dr, 64, MPI.INT, peer, 200 + r);
                        c.send(db, 64, MPI.INT, peer, 200 + r);
                        q.waitFor();
                        if (dr.get(0) != id + r) { failure = "direct thread " + id + " round " + r; return; }
                        if (r % 10 == 0) System.gc();
                    }
                } catch (MPIException e) {
                    failure = e.getMessage();
                }
            });
            th[t].start();
        }
        for (Thread t : th) t.join();
        if (failure != null) { System.out.println("FAIL: " + failure); System.exit(1); }
        for (Intracomm c : comms) c.free();
        MPI.COMM_WORLD.barrier();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
