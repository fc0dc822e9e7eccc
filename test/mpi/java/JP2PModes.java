/* Send modes (buffered with attachBuffer, synchronous, ready), matched
 * probes (Message), waitSome/testSome/testAny, cancel. */
import java.nio.*;
import mpi.*;

public class JP2PModes {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank(), size = w.getSize();
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        /* buffered */
        byte[] attach = new byte[4096 + MPI.BSEND_OVERHEAD * 4];
        MPI.attachBuffer(attach);
        int[] v = { rank, rank * 2 }, r = new int[2];
        w.bSend(v, 2, MPI.INT, next, 1);
        w.recv(r, 2, MPI.INT, prev, 1);
        check(r[0] == prev && r[1] == 2 * prev, "bSend");
        check(MPI.detachBuffer() == attach, "detachBuffer returns the array");
        /* synchronous, large and small */
        double[] big = new double[200000], bigr = new double[200000];
        big[199999] = rank;
        if (rank % 2 == 0) { w.sSend(big, big.length, MPI.DOUBLE, next, 2); w.recv(bigr, bigr.length, MPI.DOUBLE, prev, 2); }
        else { w.recv(bigr, bigr.length, MPI.DOUBLE, prev, 2); w.sSend(big, big.length, MPI.DOUBLE, next, 2); }
        check(bigr[199999] == prev, "sSend");
        /* ready: the receive is posted before the barrier */
        IntBuffer rb = MPI.newIntBuffer(1);
        Request rr = w.iRecv(rb, 1, MPI.INT, prev, 3);
        w.barrier();
        w.rSend(new int[] { 40 + rank }, 1, MPI.INT, next, 3);
        rr.waitFor();
        check(rb.get(0) == 40 + prev, "rSend");
        /* matched probe */
        w.send(new short[] { 1, 2, 3 }, 3, MPI.SHORT, next, 4);
        Message m = new Message();
        check(m.isNull(), "new Message is null");
        Status s = m.mProbe(prev, 4, w);
        check(s.getCount(MPI.SHORT) == 3 && !m.isNull(), "mProbe");
        short[] sh = new short[3];
        m.mRecv(sh, 3, MPI.SHORT);
        check(sh[2] == 3 && m.isNull(), "mRecv");
        w.send(new float[] { 1.5f }, 1, MPI.FLOAT, next, 5);
        Message m2 = new Message();
        while (m2.imProbe(prev, 5, w) == null) { }
        FloatBuffer fb = MPI.newFloatBuffer(1);
        m2.imRecv(fb, 1, MPI.FLOAT).waitFor();
        check(fb.get(0) == 1.5f, "imRecv");
        Message none = new Message();
        none.mProbe(MPI.PROC_NULL, 0, w);
        check(none.isNoProc(), "PROC_NULL message");
        /* waitSome / testAny / testSome */
        IntBuffer[] in = new IntBuffer[3];
        Request[] reqs = new Request[3];
        for (int i = 0; i < 3; i++) { in[i] = MPI.newIntBuffer(1); reqs[i] = w.iRecv(in[i], 1, MPI.INT, prev, 10 + i); }
        int ta = Request.testAny(reqs);
        check(ta == MPI.UNDEFINED, "testAny with nothing arrived: " + ta);
        check(Request.testSome(reqs).length == 0, "testSome with nothing arrived");
        w.barrier(); /* nobody sends before everybody tested */
        for (int i = 0; i < 3; i++) w.send(new int[] { 100 + i }, 1, MPI.INT, next, 10 + i);
        int got = 0;
        while (got < 3) {
            Status[] st = Request.waitSomeStatus(reqs);
            for (Status x : st) { check(in[x.getIndex()].get(0) == 100 + x.getIndex() && x.getTag() == 10 + x.getIndex(), "waitSome"); got++; }
        }
        check(Request.waitSome(reqs) == null, "waitSome on inactive requests");
        /* cancel a receive that never matches */
        IntBuffer cb = MPI.newIntBuffer(1);
        Request c = w.iRecv(cb, 1, MPI.INT, prev, 999);
        c.cancel();
        Status cs = c.waitStatus();
        check(cs.isCancelled(), "cancelled");
        /* PROC_NULL */
        Status ps = w.recv(new int[1], 1, MPI.INT, MPI.PROC_NULL, 0);
        check(ps.getSource() == MPI.PROC_NULL && ps.getCount(MPI.INT) == 0, "PROC_NULL recv");
        w.barrier();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
