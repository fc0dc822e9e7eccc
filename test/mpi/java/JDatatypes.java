/* Derived datatypes over arrays and direct buffers: contiguous, vector,
 * indexed, struct, resized; extents in base-type units as in Open MPI. */
import java.nio.*;
import mpi.*;

public class JDatatypes {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank(), size = w.getSize();
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        /* a column of a 4x5 row-major int matrix */
        Datatype col = Datatype.createVector(4, 1, 5, MPI.INT);
        col.commit();
        check(col.getSize() == 4 && col.getExtent() == 16, "vector size/extent " + col.getSize() + " " + col.getExtent());
        int[] m = new int[20], r = new int[20];
        for (int i = 0; i < 20; i++) m[i] = rank * 100 + i;
        w.sendRecv(MPI.slice(m, 2), 1, col, next, 0, r, 4, MPI.INT, prev, 0);
        for (int i = 0; i < 4; i++) check(r[i] == prev * 100 + 2 + 5 * i, "column " + i);
        /* indexed */
        Datatype idx = Datatype.createIndexed(new int[] { 2, 1 }, new int[] { 0, 5 }, MPI.DOUBLE);
        idx.commit();
        double[] ds = { 1, 2, 3, 4, 5, 6 }, dr = new double[6];
        w.sendRecv(ds, 1, idx, next, 1, dr, 1, idx, prev, 1);
        check(dr[0] == 1 && dr[1] == 2 && dr[5] == 6 && dr[2] == 0, "indexed");
        Status st = w.sendRecv(ds, 1, idx, next, 2, dr, 3, MPI.DOUBLE, prev, 2);
        check(st.getCount(MPI.DOUBLE) == 3 && st.getElements(MPI.DOUBLE) == 3, "indexed count");
        /* contiguous of contiguous, count in units of the new type */
        Datatype pair = Datatype.createContiguous(2, MPI.LONG);
        pair.commit();
        long[] ls = { rank, -rank, 7, 8 }, lr = new long[4];
        w.sendRecv(ls, 2, pair, next, 3, lr, 2, pair, prev, 3);
        check(lr[0] == prev && lr[1] == -prev && lr[3] == 8, "contiguous");
        /* struct {int; double} in a direct ByteBuffer */
        Datatype s = Datatype.createStruct(new int[] { 1, 1 }, new int[] { 0, 8 }, new Datatype[] { MPI.INT, MPI.DOUBLE });
        s.commit();
        check(s.getSize() == 12 && s.getExtent() == 16, "struct size " + s.getSize() + " extent " + s.getExtent());
        ByteBuffer bs = MPI.newByteBuffer(32), br = MPI.newByteBuffer(32);
        for (int i = 0; i < 2; i++) { bs.putInt(16 * i, rank + i); bs.putDouble(16 * i + 8, rank * 0.5 + i); }
        w.sendRecv(bs, 2, s, next, 4, br, 2, s, prev, 4);
        for (int i = 0; i < 2; i++)
            check(br.getInt(16 * i) == prev + i && br.getDouble(16 * i + 8) == prev * 0.5 + i, "struct " + i);
        /* resized: every third float, one per element */
        Datatype every3 = Datatype.createResized(MPI.FLOAT, 0, 3);
        every3.commit();
        check(every3.getExtent() == 3 && every3.getLb() == 0, "resized");
        float[] fs = new float[9], fr = new float[3];
        for (int i = 0; i < 9; i++) fs[i] = i;
        w.sendRecv(fs, 3, every3, next, 5, fr, 3, MPI.FLOAT, prev, 5);
        check(fr[0] == 0 && fr[1] == 3 && fr[2] == 6, "resized data");
        /* hvector (byte stride), dup, names */
        Datatype hv = Datatype.createHVector(2, 1, 8, MPI.INT);
        Datatype dupd = hv.dup();
        dupd.setName("hv-dup");
        check("hv-dup".equals(dupd.getName()), "type name");
        /* pack / unpack */
        byte[] packed = new byte[w.packSize(1, col)];
        int pos = w.pack(m, 1, col, packed, 0);
        check(pos == 16, "pack position " + pos);
        int[] un = new int[20];
        w.unpack(packed, 0, un, 1, col);
        check(un[5] == m[5] && un[1] == 0, "unpack");
        for (Datatype t : new Datatype[] { col, idx, pair, s, every3, hv, dupd }) t.free();
        boolean refused = false;
        try { MPI.INT.free(); } catch (MPIException e) { refused = e.getErrorClass() == MPI.ERR_TYPE; }
        check(refused, "freeing a predefined type");
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
    }
}
