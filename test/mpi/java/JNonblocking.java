/* Nonblocking and persistent exchange with direct buffers: iSend/iRecv,
 * waitAll, waitAny, testAll, getStatus, sendInit/recvInit + startAll. */
import java.nio.*;
import mpi.*;

public class JNonblocking {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        int n = 100000; /* rendezvous-sized */
        IntBuffer[] out = new IntBuffer[size], in = new IntBuffer[size];
        Request[] reqs = new Request[2 * size];
        for (int p = 0; p < size; p++) {
            out[p] = MPI.newIntBuffer(n);
            in[p] = MPI.newIntBuffer(n);
            for (int i = 0; i < n; i++) out[p].put(i, rank * 1000 + p + i);
            reqs[p] = MPI.COMM_WORLD.iRecv(in[p], n, MPI.INT, p, 5);
        }
        for (int p = 0; p < size; p++)
            reqs[size + p] = MPI.COMM_WORLD.iSend(out[p], n, MPI.INT, p, 5);
        Status[] st = Request.waitAllStatus(reqs);
        for (int p = 0; p < size; p++) {
            check(st[p].getSource() == p && st[p].getCount(MPI.INT) == n, "status " + p);
            for (int i = 0; i < n; i += 997) check(in[p].get(i) == p * 1000 + rank + i, "data " + p);
        }
        for (Request r : reqs) check(r.isNull(), "requests inactive after waitAll");
        /* waitAny / testAll */
        DoubleBuffer d = MPI.newDoubleBuffer(4), e = MPI.newDoubleBuffer(4);
        d.put(0, rank);
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        Request[] two = { MPI.COMM_WORLD.iRecv(e, 4, MPI.DOUBLE, prev, 6), MPI.COMM_WORLD.iSend(d, 4, MPI.DOUBLE, next, 6) };
        int done = 0;
        while (done < 2) {
            Status s = Request.waitAnyStatus(two);
            check(s.getIndex() == 0 || s.getIndex() == 1, "waitAny index");
            done++;
        }
        check(Request.testAll(two), "testAll on inactive requests");
        check(e.get(0) == prev, "waitAny data");
        /* persistent requests, three rounds */
        LongBuffer ps = MPI.newLongBuffer(8), pr = MPI.newLongBuffer(8);
        Prequest[] p = { MPI.COMM_WORLD.recvInit(pr, 8, MPI.LONG, prev, 8), MPI.COMM_WORLD.sendInit(ps, 8, MPI.LONG, next, 8) };
        for (int round = 0; round < 3; round++) {
            ps.put(7, rank * 10 + round);
            Prequest.startAll(p);
            Request.waitAll(p);
            check(pr.get(7) == prev * 10 + round, "persistent round " + round);
        }
        p[0].free();
        p[1].free();
        /* getStatus does not free; test completes */
        IntBuffer one = MPI.newIntBuffer(1), got = MPI.newIntBuffer(1);
        one.put(0, 42);
        Request rr = MPI.COMM_WORLD.iRecv(got, 1, MPI.INT, prev, 9);
        MPI.COMM_WORLD.send(one, 1, MPI.INT, next, 9);
        while (rr.getStatus() == null) { }
        check(!rr.isNull(), "getStatus leaves the request");
        while (!rr.test()) { }
        check(rr.isNull() && got.get(0) == 42, "test");
        /* a nonblocking call on an array is refused, as in Open MPI */
        boolean refused = false;
        try {
            MPI.COMM_WORLD.iSend(IntBuffer.wrap(new int[1]), 1, MPI.INT, next, 1);
        } catch (IllegalArgumentException ex) {
            refused = true;
        }
        check(refused, "heap buffer refused for iSend");
        MPI.COMM_WORLD.barrier();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
