/*
 * A nonblocking operation. The handle points to the native request; the
 * Java object keeps the operation's buffers (direct, so they do not move)
 * reachable until it completes.
 */
package mpi;

public class Request implements Freeable {
    long handle;
    Object keep; /* buffers and arrays the operation uses */

    Request(long handle, Object keep) {
        this.handle = handle;
        this.keep = keep;
    }

    private void done() {
        if (handle == 0)
            keep = null;
    }

    @Override public void free() throws MPIException {
        MPI.check();
        handle = Jni.requestFree(handle);
        /* a freed active operation may still use its buffers: keep them */
    }

    public final void cancel() throws MPIException { MPI.check(); Jni.cancel(handle); }

    public final boolean isNull() { return handle == 0; }

    public final Status waitStatus() throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        handle = Jni.wait(handle, false, s);
        done();
        s[5] = 0;
        return new Status(s);
    }

    public final void waitFor() throws MPIException {
        MPI.check();
        handle = Jni.wait(handle, false, null);
        done();
    }

    public final Status testStatus() throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        handle = Jni.wait(handle, true, s);
        if (s[5] == 0 && handle != 0)
            return null;
        done();
        s[5] = 0;
        return new Status(s);
    }

    public final boolean test() throws MPIException { return testStatus() != null; }

    public final Status getStatus() throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        return Jni.getStatus(handle, s) ? new Status(s) : null;
    }

    static long[] handles(Request[] r) {
        long[] h = new long[r.length];
        for (int i = 0; i < r.length; i++)
            h[i] = r[i] == null ? 0 : r[i].handle;
        return h;
    }

    static void update(Request[] r, long[] h) {
        for (int i = 0; i < r.length; i++)
            if (r[i] != null) {
                r[i].handle = h[i];
                r[i].done();
            }
    }

    private static Status[] statuses(long[] s, int n) {
        Status[] out = new Status[n];
        for (int i = 0; i < n; i++) {
            long[] d = new long[6];
            System.arraycopy(s, 6 * i, d, 0, 6);
            out[i] = new Status(d);
        }
        return out;
    }

    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), s = Status.newData();
        int idx = Jni.waitMany(2, h, s);
        update(requests, h);
        s[5] = idx;
        return new Status(s);
    }

    public static int waitAny(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests);
        int idx = Jni.waitMany(2, h, null);
        update(requests, h);
        return idx;
    }

    public static Status testAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), s = Status.newData();
        int idx = Jni.waitMany(3, h, s);
        update(requests, h);
        if (idx == -2)
            return null;
        s[5] = idx;
        return new Status(s);
    }

    public static int testAny(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests);
        int idx = Jni.waitMany(3, h, null);
        update(requests, h);
        return idx == -2 ? MPI.UNDEFINED : idx;
    }

    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), s = new long[6 * requests.length];
        Jni.waitMany(0, h, s);
        update(requests, h);
        return statuses(s, requests.length);
    }

    public static void waitAll(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests);
        Jni.waitMany(0, h, null);
        update(requests, h);
    }

    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests), s = new long[6 * requests.length];
        int flag = Jni.waitMany(1, h, s);
        update(requests, h);
        return flag != 0 ? statuses(s, requests.length) : null;
    }

    public static boolean testAll(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handles(requests);
        int flag = Jni.waitMany(1, h, null);
        update(requests, h);
        return flag != 0;
    }

    private static Status[] some(Request[] requests, int what) throws MPIException {
        MPI.check();
        long[] h = handles(requests), s = new long[6 * Math.max(1, requests.length)];
        int n = Jni.waitMany(what, h, s);
        update(requests, h);
        return n == MPI.UNDEFINED ? null : statuses(s, n);
    }

    public static Status[] waitSomeStatus(Request[] requests) throws MPIException { return some(requests, 4); }

    public static int[] waitSome(Request[] requests) throws MPIException { return indexes(some(requests, 4)); }

    public static Status[] testSomeStatus(Request[] requests) throws MPIException { return some(requests, 5); }

    public static int[] testSome(Request[] requests) throws MPIException { return indexes(some(requests, 5)); }

    private static int[] indexes(Status[] s) {
        if (s == null)
            return null;
        int[] r = new int[s.length];
        for (int i = 0; i < s.length; i++)
            r[i] = s[i].getIndex();
        return r;
    }
}
