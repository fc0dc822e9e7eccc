package canal.mpi;

/**
 * A nonblocking operation. It keeps the Java array or buffer it works on
 * reachable until it completes (the native side holds only copies or
 * registered direct memory, never the address of a movable array).
 * waitFor() blocks outside any JNI critical region, so the garbage collector
 * and other Java threads keep running meanwhile.
 */
public final class Request {
    private long handle;      /* native request context; 0 once complete */
    private final Object target; /* the array or ByteBuffer; kept reachable */
    private Status status;

    Request(long handle, Object target) {
        this.handle = handle;
        this.target = target;
    }

    /** Block until the operation completes; a receive's data is in place afterwards. */
    public synchronized Status waitFor() {
        if (handle != 0) {
            int[] st = new int[4];
            MPI.check(MPI.nWait(handle, target, st));
            handle = 0;
            status = new Status(st[0], st[1], ((long) st[3] << 32) | (st[2] & 0xffffffffL));
        }
        return status;
    }

    /** Poll once; true (and the data in place) when complete. */
    public synchronized boolean test() {
        if (handle == 0)
            return true;
        int[] st = new int[4];
        int rc = MPI.nTest(handle, target, st);
        if (rc == 1) {
            handle = 0;
            status = new Status(st[0], st[1], ((long) st[3] << 32) | (st[2] & 0xffffffffL));
            return true;
        }
        MPI.check(rc);
        return false;
    }

    /** The status of a completed operation, or null. */
    public synchronized Status getStatus() {
        return status;
    }

    public static void waitAll(Request... reqs) {
        for (Request r : reqs)
            if (r != null)
                r.waitFor();
    }
}
