/* One-sided (put, get, accumulate with fence; lock/unlock) on direct buffers,
 * and MPI-IO writeAt/readAt. */
import java.nio.*;
import mpi.*;

public class JWinFile {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank(), size = w.getSize();
        int next = (rank + 1) % size;
        try {
            new Win(MPI.newIntBuffer(2), 3, 1, MPI.INFO_NULL, w); /* larger than its buffer */
            check(false, "a window larger than its buffer was created");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_SIZE, "window size class " + e.getErrorClass());
        }
        IntBuffer mem = MPI.newIntBuffer(size + 2);
        Win win = new Win(mem, size + 2, 1, MPI.INFO_NULL, w);
        IntBuffer o = MPI.newIntBuffer(1);
        o.put(0, rank + 1);
        win.fence(0);
        win.put(o, 1, MPI.INT, next, rank, 1, MPI.INT);
        win.fence(0);
        int prev = (rank + size - 1) % size;
        check(mem.get(prev) == prev + 1, "put");
        win.accumulate(o, 1, MPI.INT, 0, size, 1, MPI.INT, MPI.SUM);
        win.fence(0);
        if (rank == 0) check(mem.get(size) == size * (size + 1) / 2, "accumulate " + mem.get(size));
        IntBuffer got = MPI.newIntBuffer(1);
        win.lock(MPI.LOCK_SHARED, next, 0);
        win.get(got, 1, MPI.INT, next, rank, 1, MPI.INT);
        win.unlock(next);
        check(got.get(0) == rank + 1, "get under lock");
        win.fence(0);
        /* atomics under an exclusive lock on rank 0 */
        IntBuffer one = MPI.newIntBuffer(1), res = MPI.newIntBuffer(1), cmp = MPI.newIntBuffer(1);
        one.put(0, 1);
        win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
        win.fetchAndOp(one, res, MPI.INT, 0, size + 1, MPI.SUM);
        win.unlock(0);
        check(res.get(0) >= 0 && res.get(0) < size, "fetchAndOp " + res.get(0));
        w.barrier();
        if (rank == 0) check(mem.get(size + 1) == size, "fetchAndOp total");
        w.barrier();
        cmp.put(0, size);
        IntBuffer nv = MPI.newIntBuffer(1);
        nv.put(0, -1);
        win.lockAll(0);
        win.compareAndSwap(nv, cmp, res, MPI.INT, 0, size + 1);
        win.flush(0);
        win.unlockAll();
        w.barrier();
        if (rank == 0) check(mem.get(size + 1) == -1, "compareAndSwap");
        win.free();
        /* file */
        String name = System.getProperty("java.io.tmpdir") + "/canal-jwinfile-" + ProcessHandle.current().parent().map(p -> p.pid()).orElse(0L);
        w.bcast(new int[1], 1, MPI.INT, 0);
        File f = new File(w, name + ".dat", MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        double[] dw = { rank, rank + 0.25 };
        Status s = f.writeAt(16L * rank, dw, 2, MPI.DOUBLE);
        check(s.getCount(MPI.DOUBLE) == 2, "writeAt count");
        f.sync();
        w.barrier();
        f.sync();
        double[] dr = new double[2];
        f.readAt(16L * next, dr, 2, MPI.DOUBLE);
        check(dr[0] == next && dr[1] == next + 0.25, "readAt");
        check(f.getSize() == 16L * size, "file size");
        /* a view: each rank sees its own two doubles, then the individual pointer */
        w.barrier();
        f.setView(16L * rank, MPI.DOUBLE, MPI.DOUBLE, "native");
        double[] mineBack = new double[2];
        f.read(mineBack, 2, MPI.DOUBLE);
        check(mineBack[0] == rank && mineBack[1] == rank + 0.25, "read through a view");
        check(f.getPosition() == 2, "position in etypes");
        f.seek(0, MPI.SEEK_SET);
        f.readAll(mineBack, 1, MPI.DOUBLE);
        check(mineBack[0] == rank, "readAll after seek");
        f.close();
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
