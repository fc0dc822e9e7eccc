package canal.mpi;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;

/**
 * Canal's Java binding: a small MPI for the JVM on top of Canal's MPIX
 * extension for managed runtimes (mpi_ext.h, doc/managed.md).
 *
 * How Java memory travels:
 *  - primitive arrays move in the garbage-collected heap. A blocking send up
 *    to CANAL_JAVA_ZEROCOPY_MAX bytes (default 16 KiB, Canal's eager limit)
 *    and every blocking receive whose message arrives within
 *    CANAL_JAVA_SPIN_US microseconds travel zero-copy: the array is pinned
 *    briefly (a JNI critical region) and released at once. Otherwise the
 *    data is copied through native memory and the thread waits outside any
 *    critical region, so the collector and the other Java threads keep
 *    running while it is blocked (Motor's deferred pinning, JVM style);
 *  - direct ByteBuffers do not move: each is registered once with Canal
 *    (MPIX_Buffer_register: NIC registration where the network has it) and
 *    released (MPIX_Buffer_release) after the buffer becomes unreachable and
 *    the last operation using it has completed.
 */
public final class MPI {
    public static final int ANY_SOURCE;
    public static final int ANY_TAG;
    public static final int PROC_NULL;
    public static final int THREAD_SINGLE = 0, THREAD_FUNNELED = 1, THREAD_SERIALIZED = 2,
            THREAD_MULTIPLE = 3;

    /** MPI_COMM_WORLD. */
    public static final Comm COMM_WORLD;

    private static final Cleaner CLEANER = Cleaner.create();

    static {
        System.loadLibrary("canaljava");
        int[] c = new int[4];
        nConstants(c);
        ANY_SOURCE = c[0];
        ANY_TAG = c[1];
        PROC_NULL = c[2];
        COMM_WORLD = new Comm(c[3]);
    }

    private MPI() {}

    /** MPI_Init_thread with MPI_THREAD_FUNNELED. */
    public static void init(String[] args) {
        initThread(args, THREAD_FUNNELED);
    }

    /** MPI_Init_thread; returns the level provided. */
    public static int initThread(String[] args, int required) {
        return nInit(required);
    }

    public static void finish() {
        nFinalize();
    }

    public static double wtime() {
        return nWtime();
    }

    /** Poll the network once (runs due completions). */
    public static boolean progress() {
        return nProgress() != 0;
    }

    /** Counters of this process, for tests and tuning: {array sends made inside a
     * brief pin (zero-copy), array sends copied through native memory, array
     * receives completed inside the brief pin, array receives that waited
     * unpinned first (still landing directly in the array, unless nonblocking),
     * direct buffers registered}. */
    public static long[] stats() {
        long[] s = new long[5];
        nStats(s);
        return s;
    }

    static void check(int rc) {
        /* natives throw MPIException themselves; rc is kept for symmetry */
    }

    /** Register a direct buffer with Canal the first time it is used. */
    static void ensureRegistered(ByteBuffer b) {
        if (!b.isDirect())
            throw new IllegalArgumentException("only direct ByteBuffers can be registered");
        long key = nRegister(b);
        if (key != 0) {
            final long addr = key;
            final long cap = b.capacity();
            CLEANER.register(b, () -> nEnqueueRelease(addr, cap));
        }
    }

    /* natives (bindings/java/native/canal_jni.c) */
    static native void nConstants(int[] out);
    static native int nInit(int required);
    static native void nFinalize();
    static native double nWtime();
    static native int nProgress();
    static native void nStats(long[] out);
    static native long nRegister(ByteBuffer b);
    static native void nEnqueueRelease(long addr, long capacity);
    static native int nRank(int comm);
    static native int nSize(int comm);
    static native void nSendArray(Object a, int kind, int off, int count, int dest, int tag, int comm);
    static native void nRecvArray(Object a, int kind, int off, int count, int source, int tag, int comm,
            int[] status);
    static native long nIsendArray(Object a, int kind, int off, int count, int dest, int tag, int comm);
    static native long nIrecvArray(Object a, int kind, int off, int count, int source, int tag, int comm);
    static native void nSendBuffer(ByteBuffer b, int off, int bytes, int dest, int tag, int comm);
    static native void nRecvBuffer(ByteBuffer b, int off, int bytes, int source, int tag, int comm,
            int[] status);
    static native long nIsendBuffer(ByteBuffer b, int off, int bytes, int dest, int tag, int comm);
    static native long nIrecvBuffer(ByteBuffer b, int off, int bytes, int source, int tag, int comm);
    static native int nWait(long req, Object target, int[] status);
    static native int nTest(long req, Object target, int[] status);
    static native void nBarrier(int comm);
    static native void nAllreduce(Object in, Object out, int kind, int count, int op, int comm);
}
