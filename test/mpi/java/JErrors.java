/* The error path: with MPI.ERRORS_RETURN a failing call throws MPIException
 * carrying the MPI error class; bad buffers and unimplemented methods too. */
import mpi.*;

public class JErrors {
    static void check(boolean ok, String what) {
        if (!ok) { System.out.println("FAIL: " + what); System.exit(1); }
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank(), size = MPI.COMM_WORLD.getSize();
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        int[] buf = new int[4];
        try {
            MPI.COMM_WORLD.send(buf, 1, MPI.INT, size + 5, 0);
            check(false, "send to a bad rank succeeded");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_RANK, "class " + e.getErrorClass() + ": " + e.getMessage());
            check(e.getMessage().contains("MPI_Send"), "message names the call: " + e.getMessage());
        }
        try {
            MPI.COMM_WORLD.send(buf, 1, MPI.INT, 0, -3);
            check(false, "negative tag accepted");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_TAG, "tag class " + e.getErrorClass());
        }
        try {
            MPI.COMM_WORLD.send(buf, 5, MPI.INT, 0, 0); /* the array holds 4 */
            check(false, "overlong count accepted");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_BUFFER, "buffer class " + e.getErrorClass() + ": " + e.getMessage());
        }
        try {
            MPI.COMM_WORLD.bcast(MPI.slice(buf, 2), 3, MPI.INT, 0);
            check(false, "overlong slice accepted");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_BUFFER, "slice class " + e.getErrorClass());
        }
        try {
            MPI.COMM_WORLD.spawn("x", null, 1, MPI.INFO_NULL, 0, null);
            check(false, "spawn pretended to work");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_UNSUPPORTED_OPERATION && e.getMessage().contains("not implemented"),
                    "unsupported: " + e.getMessage());
        }
        /* null arrays and strings are Java errors, never a crash of the JVM */
        int npe = 0;
        try { MPI.COMM_WORLD.createCart(new int[] { size }, null, false); } catch (NullPointerException e) { npe++; }
        try { new Info().set("k", null); } catch (NullPointerException e) { npe++; }
        try { MPI.COMM_WORLD.pack(buf, 1, MPI.INT, null, 0); } catch (NullPointerException e) { npe++; }
        try { Datatype.createStruct(new int[] { 1 }, null, new Datatype[] { MPI.INT }); } catch (NullPointerException e) { npe++; }
        try { MPI.COMM_WORLD.getGroup().incl(null); } catch (NullPointerException e) { npe++; }
        check(npe == 5, "null arguments: " + npe + " of 5 raised NullPointerException");
        /* a null buffer with a nonzero count is ERR_BUFFER */
        try {
            MPI.COMM_WORLD.send(null, 1, MPI.INT, 0, 0);
            check(false, "null buffer accepted");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_BUFFER, "null buffer class " + e.getErrorClass());
        }
        /* truncation is reported with ERR_TRUNCATE */
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        MPI.COMM_WORLD.send(new int[3], 3, MPI.INT, next, 1);
        try {
            MPI.COMM_WORLD.recv(buf, 2, MPI.INT, prev, 1);
            check(false, "truncation not reported");
        } catch (MPIException e) {
            check(e.getErrorClass() == MPI.ERR_TRUNCATE, "truncate class " + e.getErrorClass());
        }
        /* the communicator still works */
        int[] s = new int[1];
        MPI.COMM_WORLD.allReduce(new int[] { 1 }, s, 1, MPI.INT, MPI.SUM);
        check(s[0] == size, "allReduce after errors");
        check(MPI.COMM_WORLD.getErrhandler() != null, "getErrhandler");
        Object ub = MPI.COMM_WORLD.getAttr(MPI.TAG_UB);
        check(ub instanceof Integer && (Integer) ub >= 32767, "TAG_UB " + ub);
        if (rank == 0) System.out.println("No Errors");
        MPI.Finalize();
        try {
            MPI.COMM_WORLD.getRank();
            check(false, "call after Finalize");
        } catch (MPIException e) {
            check(e.getMessage().contains("finalized"), "after finalize: " + e.getMessage());
        }
    }
}
