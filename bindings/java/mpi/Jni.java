/*
 * The native methods of the binding (native/mpi_jni.c), in one class so the
 * JNI surface is easy to review. Handles are longs (an MPI handle, or for
 * requests a pointer to the native request wrapper); a buffer argument is
 * (Object array-or-direct-buffer, byte offset, byte capacity); statuses are
 * long[6] {source, tag, error, cancelled, bytes, index}.
 */
package mpi;

import java.nio.ByteBuffer;

final class Jni {
    private Jni() {}

    /* libcanal_java.so is installed beside mpi.jar: load it from there, so
     * no -Djava.library.path is needed; else from java.library.path. */
    static {
        java.io.File lib = null;
        try {
            java.io.File jar = new java.io.File(Jni.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            lib = new java.io.File(jar.getParentFile(), "libcanal_java.so");
        } catch (Exception e) {
            lib = null;
        }
        if (lib != null && lib.isFile())
            System.load(lib.getAbsolutePath());
        else
            System.loadLibrary("canal_java");
    }

    static native long constant(String name);
    static native int init(int required) throws MPIException;
    static native void finalizeMPI() throws MPIException;
    static native int flags();
    static native double wtime(int tick);
    static native String processorName() throws MPIException;
    static native String libVersion();
    static native void stats(long[] out);
    static native int errorClass(int code);
    static native void bufferAttach(int bytes) throws MPIException;
    static native void bufferDetach() throws MPIException;
    static native long registerBytes(Object directBuffer, int bytes);
    static native void enqueueRelease(long addr, int bytes);

    static native int commInt(int what, long comm) throws MPIException;
    static native long commDup(long comm, long info) throws MPIException;
    static native long commFree(long comm) throws MPIException;
    static native long commSplit(long comm, int color, int key, int type, long info) throws MPIException;
    static native long commCreate(long comm, long group, int tag, boolean byGroup) throws MPIException;
    static native long commGroup(long comm, boolean remote) throws MPIException;
    static native int commCompare(long a, long b) throws MPIException;
    static native void commSetErrhandler(int kind, long obj, long eh) throws MPIException;
    static native long commGetErrhandler(int kind, long obj) throws MPIException;
    static native void callErrhandler(int kind, long obj, int code) throws MPIException;
    static native void abort(long comm, int code) throws MPIException;
    static native Object commGetAttr(long comm, int key) throws MPIException;
    static native int keyval(int kind, int key) throws MPIException;
    static native void setName(int kind, long obj, String name) throws MPIException;
    static native String getName(int kind, long obj) throws MPIException;
    static native long intercommCreate(long local, int lleader, long peer, int rleader, int tag) throws MPIException;
    static native long intercommMerge(long comm, boolean high) throws MPIException;
    static native long commParent() throws MPIException;

    static native void send(int mode, Object buf, int off, int cap, int count, long type,
                            int dest, int tag, long comm) throws MPIException;
    static native void recv(Object buf, int off, int cap, int count, long type, int source,
                            int tag, long comm, long[] status) throws MPIException;
    static native void sendrecv(Object sbuf, int soff, int scap, int scount, long stype, int dest,
                                int stag, Object rbuf, int roff, int rcap, int rcount, long rtype,
                                int source, int rtag, long comm, boolean replace, long[] status)
            throws MPIException;
    static native long isend(int mode, boolean persistent, Object buf, int off, int cap, int count,
                             long type, int peer, int tag, long comm) throws MPIException;
    static native boolean probe(boolean blocking, int source, int tag, long comm, long[] status)
            throws MPIException;
    static native long mprobe(boolean blocking, int source, int tag, long comm, long[] status)
            throws MPIException;
    static native long mrecv(long msg, Object buf, int off, int cap, int count, long type,
                             boolean blocking, long[] status) throws MPIException;

    static native long wait(long req, boolean test, long[] status) throws MPIException;
    static native boolean getStatus(long req, long[] status) throws MPIException;
    static native int waitMany(int what, long[] reqs, long[] statuses) throws MPIException;
    static native void cancel(long req) throws MPIException;
    static native long requestFree(long req) throws MPIException;
    static native void start(long[] reqs) throws MPIException;

    static native long coll(int which, boolean nb, boolean inplace, Object sbuf, int soff, int scap,
                            int scount, int[] scounts, int[] sdispls, long stype, Object rbuf,
                            int roff, int rcap, int rcount, int[] rcounts, int[] rdispls,
                            long rtype, long op, int root, long comm, boolean userOp) throws MPIException;
    static native int pack(boolean unpack, Object buf, int off, int cap, int count, long type,
                           byte[] packed, int position, long comm) throws MPIException;
    static native int packSize(int count, long type, long comm) throws MPIException;

    static native long typeCreate(int kind, int count, int blen, int stride, int[] blens,
                                  int[] displs, long[] types, long old) throws MPIException;
    static native long typeOp(int what, long type) throws MPIException;
    static native void typeExtent(long type, long[] out) throws MPIException;
    static native int statusCount(long bytes, long type, boolean elements) throws MPIException;

    static native int groupInt(int what, long group) throws MPIException;
    static native long groupFree(long group) throws MPIException;
    static native long groupPair(int what, long a, long b) throws MPIException;
    static native long groupSub(int what, long group, int[] ranks) throws MPIException;
    static native int[] groupTranslate(long a, int[] ranks, long b) throws MPIException;

    static native long cartCreate(long comm, int[] dims, boolean[] periods, boolean reorder) throws MPIException;
    static native int[] cartGet(long comm) throws MPIException;
    static native int cartRank(long comm, int[] coords) throws MPIException;
    static native int[] cartCoords(long comm, int rank) throws MPIException;
    static native long cartShift(long comm, int dir, int disp) throws MPIException;
    static native long cartSub(long comm, boolean[] remain) throws MPIException;
    static native int cartMap(long comm, int[] dims, boolean[] periods) throws MPIException;
    static native void dimsCreate(int nnodes, int[] dims) throws MPIException;
    static native long graphCreate(long comm, int[] index, int[] edges, boolean reorder) throws MPIException;
    static native int[] graphQuery(int what, long comm, int rank, int[] index, int[] edges) throws MPIException;

    static native long opCreate(int slot, boolean commute) throws MPIException;
    static native long opQuery(int what, long op) throws MPIException;

    static native long infoCreate(long dupOf) throws MPIException;
    static native long infoFree(long info) throws MPIException;
    static native String infoKey(int what, long info, String key, String value) throws MPIException;
    static native String infoNth(long info, int n) throws MPIException;

    static native long winCreate(Object base, int bytes, int dispUnit, long info, long comm) throws MPIException;
    static native void rma(int what, long win, Object origin, int ooff, int ocap, int ocount,
                           long otype, Object result, int resoff, int rescap, int rescount,
                           long restype, Object compare, int ccap, int target, long tdisp, int tcount,
                           long ttype, long op) throws MPIException;
    static native long winSync(int what, long win, int a, int b, int c, long group) throws MPIException;

    static native long fileOpen(long comm, String name, int amode, long info) throws MPIException;
    static native void fileDelete(String name, long info) throws MPIException;
    static native long fileCtl(int what, long fh, long v, int a) throws MPIException;
    static native void fileSetView(long fh, long disp, long etype, long ftype, String rep, long info) throws MPIException;
    static native void fileIO(int what, long fh, long offset, Object buf, int off, int cap,
                              int count, long type, long[] status) throws MPIException;
}
