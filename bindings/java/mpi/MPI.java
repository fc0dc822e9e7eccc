/*
 * The entry point of the binding (Open MPI's mpi.MPI): initialisation, the
 * predefined objects and constants (read from Canal's mpi.h through
 * Jni.constant, so they always match the library), direct buffers and
 * slices, and the buffer plumbing every call uses: a buffer argument is a
 * primitive array, a direct buffer, or a heap buffer (a slice of an array).
 */
package mpi;

import java.lang.ref.Cleaner;
import java.lang.reflect.Array;
import java.nio.*;

public final class MPI {
    private MPI() {}

    private static long k(String name) { return Jni.constant("MPI_" + name); }
    private static int ki(String name) { return (int) k(name); }

    static final int ERR_UNKNOWN_VALUE = ki("ERR_UNKNOWN");

    public static final int THREAD_SINGLE = ki("THREAD_SINGLE"), THREAD_FUNNELED = ki("THREAD_FUNNELED"),
            THREAD_SERIALIZED = ki("THREAD_SERIALIZED"), THREAD_MULTIPLE = ki("THREAD_MULTIPLE");
    public static final int GRAPH = ki("GRAPH"), DIST_GRAPH = ki("DIST_GRAPH"), CART = ki("CART");
    public static final int ANY_SOURCE = ki("ANY_SOURCE"), ANY_TAG = ki("ANY_TAG");
    public static final int PROC_NULL = ki("PROC_NULL"), UNDEFINED = ki("UNDEFINED");
    public static final int IDENT = ki("IDENT"), CONGRUENT = ki("CONGRUENT"), SIMILAR = ki("SIMILAR"),
            UNEQUAL = ki("UNEQUAL");
    public static final int TAG_UB = ki("TAG_UB"), HOST = ki("HOST"), IO = ki("IO"),
            WTIME_IS_GLOBAL = ki("WTIME_IS_GLOBAL"), APPNUM = ki("APPNUM"),
            LASTUSEDCODE = ki("LASTUSEDCODE"), UNIVERSE_SIZE = ki("UNIVERSE_SIZE"),
            WIN_BASE = ki("WIN_BASE"), WIN_SIZE = ki("WIN_SIZE"), WIN_DISP_UNIT = ki("WIN_DISP_UNIT");
    public static final int VERSION = ki("VERSION"), SUBVERSION = ki("SUBVERSION");
    public static final int ROOT = ki("ROOT"), KEYVAL_INVALID = ki("KEYVAL_INVALID"),
            BSEND_OVERHEAD = ki("BSEND_OVERHEAD");
    public static final int MAX_OBJECT_NAME = ki("MAX_OBJECT_NAME"), MAX_PORT_NAME = ki("MAX_PORT_NAME"),
            MAX_DATAREP_STRING = ki("MAX_DATAREP_STRING"), MAX_INFO_KEY = ki("MAX_INFO_KEY"),
            MAX_INFO_VAL = ki("MAX_INFO_VAL"), MAX_PROCESSOR_NAME = ki("MAX_PROCESSOR_NAME"),
            MAX_ERROR_STRING = ki("MAX_ERROR_STRING");
    public static final int ORDER_C = ki("ORDER_C"), ORDER_FORTRAN = ki("ORDER_FORTRAN");
    public static final int DISTRIBUTE_BLOCK = ki("DISTRIBUTE_BLOCK"), DISTRIBUTE_CYCLIC = ki("DISTRIBUTE_CYCLIC"),
            DISTRIBUTE_NONE = ki("DISTRIBUTE_NONE"), DISTRIBUTE_DFLT_DARG = ki("DISTRIBUTE_DFLT_DARG");
    public static final int MODE_CREATE = ki("MODE_CREATE"), MODE_RDONLY = ki("MODE_RDONLY"),
            MODE_WRONLY = ki("MODE_WRONLY"), MODE_RDWR = ki("MODE_RDWR"),
            MODE_DELETE_ON_CLOSE = ki("MODE_DELETE_ON_CLOSE"), MODE_UNIQUE_OPEN = ki("MODE_UNIQUE_OPEN"),
            MODE_EXCL = ki("MODE_EXCL"), MODE_APPEND = ki("MODE_APPEND"), MODE_SEQUENTIAL = ki("MODE_SEQUENTIAL");
    public static final int DISPLACEMENT_CURRENT = ki("DISPLACEMENT_CURRENT");
    public static final int SEEK_SET = ki("SEEK_SET"), SEEK_CUR = ki("SEEK_CUR"), SEEK_END = ki("SEEK_END");
    public static final int MODE_NOCHECK = ki("MODE_NOCHECK"), MODE_NOPRECEDE = ki("MODE_NOPRECEDE"),
            MODE_NOPUT = ki("MODE_NOPUT"), MODE_NOSTORE = ki("MODE_NOSTORE"), MODE_NOSUCCEED = ki("MODE_NOSUCCEED");
    public static final int LOCK_EXCLUSIVE = ki("LOCK_EXCLUSIVE"), LOCK_SHARED = ki("LOCK_SHARED");
    public static final int COMM_TYPE_SHARED = ki("COMM_TYPE_SHARED");

    public static final int SUCCESS = ki("SUCCESS"), ERR_BUFFER = ki("ERR_BUFFER"), ERR_COUNT = ki("ERR_COUNT"),
            ERR_TYPE = ki("ERR_TYPE"), ERR_TAG = ki("ERR_TAG"), ERR_COMM = ki("ERR_COMM"),
            ERR_RANK = ki("ERR_RANK"), ERR_REQUEST = ki("ERR_REQUEST"), ERR_ROOT = ki("ERR_ROOT"),
            ERR_GROUP = ki("ERR_GROUP"), ERR_OP = ki("ERR_OP"), ERR_TOPOLOGY = ki("ERR_TOPOLOGY"),
            ERR_DIMS = ki("ERR_DIMS"), ERR_ARG = ki("ERR_ARG"), ERR_UNKNOWN = ki("ERR_UNKNOWN"),
            ERR_TRUNCATE = ki("ERR_TRUNCATE"), ERR_OTHER = ki("ERR_OTHER"), ERR_INTERN = ki("ERR_INTERN"),
            ERR_IN_STATUS = ki("ERR_IN_STATUS"), ERR_PENDING = ki("ERR_PENDING"), ERR_ACCESS = ki("ERR_ACCESS"),
            ERR_AMODE = ki("ERR_AMODE"), ERR_ASSERT = ki("ERR_ASSERT"), ERR_BAD_FILE = ki("ERR_BAD_FILE"),
            ERR_BASE = ki("ERR_BASE"), ERR_CONVERSION = ki("ERR_CONVERSION"), ERR_DISP = ki("ERR_DISP"),
            ERR_DUP_DATAREP = ki("ERR_DUP_DATAREP"), ERR_FILE_EXISTS = ki("ERR_FILE_EXISTS"),
            ERR_FILE_IN_USE = ki("ERR_FILE_IN_USE"), ERR_FILE = ki("ERR_FILE"), ERR_INFO_KEY = ki("ERR_INFO_KEY"),
            ERR_INFO_NOKEY = ki("ERR_INFO_NOKEY"), ERR_INFO_VALUE = ki("ERR_INFO_VALUE"), ERR_INFO = ki("ERR_INFO"),
            ERR_IO = ki("ERR_IO"), ERR_KEYVAL = ki("ERR_KEYVAL"), ERR_LOCKTYPE = ki("ERR_LOCKTYPE"),
            ERR_NAME = ki("ERR_NAME"), ERR_NO_MEM = ki("ERR_NO_MEM"), ERR_NOT_SAME = ki("ERR_NOT_SAME"),
            ERR_NO_SPACE = ki("ERR_NO_SPACE"), ERR_NO_SUCH_FILE = ki("ERR_NO_SUCH_FILE"), ERR_PORT = ki("ERR_PORT"),
            ERR_QUOTA = ki("ERR_QUOTA"), ERR_READ_ONLY = ki("ERR_READ_ONLY"),
            ERR_RMA_CONFLICT = ki("ERR_RMA_CONFLICT"), ERR_RMA_SYNC = ki("ERR_RMA_SYNC"),
            ERR_SERVICE = ki("ERR_SERVICE"), ERR_SIZE = ki("ERR_SIZE"), ERR_SPAWN = ki("ERR_SPAWN"),
            ERR_UNSUPPORTED_DATAREP = ki("ERR_UNSUPPORTED_DATAREP"),
            ERR_UNSUPPORTED_OPERATION = ki("ERR_UNSUPPORTED_OPERATION"), ERR_WIN = ki("ERR_WIN"),
            ERR_LASTCODE = ki("ERR_LASTCODE"), ERR_SYSRESOURCE = ki("ERR_OTHER");

    public static final Datatype DATATYPE_NULL = new Datatype(k("DATATYPE_NULL"), Datatype.NULL, 1);
    public static final Datatype BYTE = new Datatype(k("BYTE"), Datatype.BYTE, 1),
            CHAR = new Datatype(k("UNSIGNED_SHORT"), Datatype.CHAR, 2),
            SHORT = new Datatype(k("SHORT"), Datatype.SHORT, 2),
            BOOLEAN = new Datatype(k("C_BOOL"), Datatype.BOOLEAN, 1),
            INT = new Datatype(k("INT32_T"), Datatype.INT, 4),
            LONG = new Datatype(k("INT64_T"), Datatype.LONG, 8),
            FLOAT = new Datatype(k("FLOAT"), Datatype.FLOAT, 4),
            DOUBLE = new Datatype(k("DOUBLE"), Datatype.DOUBLE, 8),
            PACKED = new Datatype(k("PACKED"), Datatype.PACKED, 1),
            FLOAT_COMPLEX = new Datatype(k("C_FLOAT_COMPLEX"), Datatype.FLOAT, 4),
            DOUBLE_COMPLEX = new Datatype(k("C_DOUBLE_COMPLEX"), Datatype.DOUBLE, 8),
            INT2 = new Datatype(k("2INT"), Datatype.INT, 4),
            SHORT_INT = new Datatype(k("SHORT_INT"), Datatype.BYTE, 1),
            LONG_INT = new Datatype(k("LONG_INT"), Datatype.BYTE, 1),
            FLOAT_INT = new Datatype(k("FLOAT_INT"), Datatype.BYTE, 1),
            DOUBLE_INT = new Datatype(k("DOUBLE_INT"), Datatype.BYTE, 1);

    public static final Op MAX = new Op(k("MAX")), MIN = new Op(k("MIN")), SUM = new Op(k("SUM")),
            PROD = new Op(k("PROD")), LAND = new Op(k("LAND")), BAND = new Op(k("BAND")),
            LOR = new Op(k("LOR")), BOR = new Op(k("BOR")), LXOR = new Op(k("LXOR")),
            BXOR = new Op(k("BXOR")), REPLACE = new Op(k("REPLACE")), NO_OP = new Op(k("NO_OP")),
            MINLOC = new Op(k("MINLOC")), MAXLOC = new Op(k("MAXLOC"));

    public static final Intracomm COMM_WORLD = new Intracomm(k("COMM_WORLD"));
    public static final Intracomm COMM_SELF = new Intracomm(k("COMM_SELF"));
    static final long COMM_NULL_HANDLE = k("COMM_NULL");
    public static final Request REQUEST_NULL = new Request(0, null);
    public static final Group GROUP_EMPTY = new Group(k("GROUP_EMPTY"));
    static final long GROUP_NULL_HANDLE = k("GROUP_NULL");
    public static final Info INFO_ENV = new Info(k("INFO_ENV")), INFO_NULL = new Info(k("INFO_NULL"));
    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler(k("ERRORS_ARE_FATAL")),
            ERRORS_RETURN = new Errhandler(k("ERRORS_RETURN"));
    static final long MESSAGE_NULL = k("MESSAGE_NULL"), MESSAGE_NO_PROC = k("MESSAGE_NO_PROC");
    static final long OP_NULL = k("OP_NULL"), INFO_NULL_HANDLE = k("INFO_NULL"), WIN_NULL = k("WIN_NULL");

    private static volatile boolean initialized, finalized;

    public static String[] Init(String[] args) throws MPIException {
        InitThread(args, THREAD_FUNNELED);
        return args;
    }

    public static int InitThread(String[] args, int required) throws MPIException {
        int provided = Jni.init(required);
        initialized = true;
        return provided;
    }

    public static void Finalize() throws MPIException {
        check();
        Jni.finalizeMPI();
        finalized = true;
    }

    public static int queryThread() throws MPIException { check(); return Jni.flags() >> 8; }

    public static boolean isThreadMain() throws MPIException { check(); return (Jni.flags() & 4) != 0; }

    public static boolean isInitialized() throws MPIException { return (Jni.flags() & 1) != 0; }

    public static boolean isFinalized() throws MPIException { return (Jni.flags() & 2) != 0; }

    public static double wtime() throws MPIException { return Jni.wtime(0); }

    public static double wtick() throws MPIException { return Jni.wtime(1); }

    public static String getProcessorName() throws MPIException { check(); return Jni.processorName(); }

    public static String getLibVersion() throws MPIException { return Jni.libVersion(); }

    public static Version getVersion() throws MPIException { return new Version(VERSION, SUBVERSION); }

    private static byte[] attached;

    public static void attachBuffer(byte[] buffer) throws MPIException {
        check();
        Jni.bufferAttach(buffer.length);
        attached = buffer;
    }

    public static byte[] detachBuffer() throws MPIException {
        check();
        Jni.bufferDetach();
        byte[] b = attached;
        attached = null;
        return b;
    }

    public static void pControl(int level, Object obj) {}

    /** MPI must be initialized and not finalized. */
    static void check() throws MPIException {
        if (!initialized || finalized)
            throw new MPIException(ERR_OTHER, ERR_OTHER,
                    finalized ? "MPI has been finalized" : "MPI has not been initialized (call MPI.Init)");
    }

    public static ByteBuffer newByteBuffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
    }
    public static CharBuffer newCharBuffer(int capacity) { return newByteBuffer(capacity * 2).asCharBuffer(); }
    public static ShortBuffer newShortBuffer(int capacity) { return newByteBuffer(capacity * 2).asShortBuffer(); }
    public static IntBuffer newIntBuffer(int capacity) { return newByteBuffer(capacity * 4).asIntBuffer(); }
    public static LongBuffer newLongBuffer(int capacity) { return newByteBuffer(capacity * 8).asLongBuffer(); }
    public static FloatBuffer newFloatBuffer(int capacity) { return newByteBuffer(capacity * 4).asFloatBuffer(); }
    public static DoubleBuffer newDoubleBuffer(int capacity) { return newByteBuffer(capacity * 8).asDoubleBuffer(); }

    public static ByteBuffer slice(ByteBuffer buf, int offset) {
        return buf.duplicate().clear().position(offset).slice().order(buf.order());
    }
    public static CharBuffer slice(CharBuffer buf, int offset) { return buf.duplicate().clear().position(offset).slice(); }
    public static ShortBuffer slice(ShortBuffer buf, int offset) { return buf.duplicate().clear().position(offset).slice(); }
    public static IntBuffer slice(IntBuffer buf, int offset) { return buf.duplicate().clear().position(offset).slice(); }
    public static LongBuffer slice(LongBuffer buf, int offset) { return buf.duplicate().clear().position(offset).slice(); }
    public static FloatBuffer slice(FloatBuffer buf, int offset) { return buf.duplicate().clear().position(offset).slice(); }
    public static DoubleBuffer slice(DoubleBuffer buf, int offset) { return buf.duplicate().clear().position(offset).slice(); }
    public static ByteBuffer slice(byte[] buf, int offset) { return ByteBuffer.wrap(buf, offset, buf.length - offset).slice(); }
    public static CharBuffer slice(char[] buf, int offset) { return CharBuffer.wrap(buf, offset, buf.length - offset).slice(); }
    public static ShortBuffer slice(short[] buf, int offset) { return ShortBuffer.wrap(buf, offset, buf.length - offset).slice(); }
    public static IntBuffer slice(int[] buf, int offset) { return IntBuffer.wrap(buf, offset, buf.length - offset).slice(); }
    public static LongBuffer slice(long[] buf, int offset) { return LongBuffer.wrap(buf, offset, buf.length - offset).slice(); }
    public static FloatBuffer slice(float[] buf, int offset) { return FloatBuffer.wrap(buf, offset, buf.length - offset).slice(); }
    public static DoubleBuffer slice(double[] buf, int offset) { return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice(); }

    /* ------------------------------------------------------------ buffer plumbing */
    static int elemSize(Object b) {
        if (b == null || b instanceof byte[] || b instanceof boolean[] || b instanceof ByteBuffer)
            return 1;
        if (b instanceof int[] || b instanceof float[] || b instanceof IntBuffer || b instanceof FloatBuffer)
            return 4;
        if (b instanceof long[] || b instanceof double[] || b instanceof LongBuffer || b instanceof DoubleBuffer)
            return 8;
        if (b instanceof char[] || b instanceof short[] || b instanceof CharBuffer || b instanceof ShortBuffer)
            return 2;
        throw new IllegalArgumentException("an MPI buffer is a primitive array or a java.nio buffer, not "
                + b.getClass().getName());
    }

    /** The object the native side reads: the array or the direct buffer. */
    static Object obj(Object b) {
        if (b == null || b.getClass().isArray()) {
            elemSize(b);
            return b;
        }
        if (!(b instanceof Buffer))
            elemSize(b);
        Buffer buf = (Buffer) b;
        if (buf.isDirect())
            return buf;
        if (!buf.hasArray())
            throw new IllegalArgumentException("a read-only heap buffer cannot be used as an MPI buffer");
        return buf.array();
    }

    /** The byte offset into obj(b) where the buffer starts. */
    static int off(Object b) {
        if (b instanceof Buffer && !((Buffer) b).isDirect())
            return ((Buffer) b).arrayOffset() * elemSize(b);
        return 0;
    }

    /** The byte length of obj(b) (from its start). */
    static int cap(Object b) {
        if (b == null)
            return 0;
        if (b.getClass().isArray())
            return Array.getLength(b) * elemSize(b);
        Buffer buf = (Buffer) b;
        if (buf.isDirect())
            return buf.capacity() * elemSize(b);
        return Array.getLength(buf.array()) * elemSize(b);
    }

    static Buffer direct(Buffer b, String call) {
        if (b != null && !b.isDirect())
            throw new IllegalArgumentException(call + ": the buffer must be direct (MPI.newIntBuffer etc.)");
        return b;
    }

    private static final Cleaner CLEANER = Cleaner.create();

    /** Registers a direct buffer with Canal (MPIX_Buffer_register) the first
     *  time it is used; the registration is released once it is unreachable. */
    private static volatile java.lang.ref.WeakReference<Object> lastRegistered = new java.lang.ref.WeakReference<>(null);

    static void register(Object b) {
        if (!(b instanceof Buffer) || !((Buffer) b).isDirect() || lastRegistered.get() == b)
            return; /* a loop on one buffer asks the native cache only once */
        lastRegistered = new java.lang.ref.WeakReference<>(b);
        int bytes = cap(b);
        long addr = Jni.registerBytes(b, bytes);
        if (addr != 0)
            CLEANER.register(b, () -> Jni.enqueueRelease(addr, bytes));
    }
}
