/*
 * An MPI datatype. Like Open MPI's, each datatype has a base type, the Java
 * element type of the arrays it describes: counts, offsets, lower bounds and
 * extents are in elements of that type (struct types are byte-based). H-vector
 * strides and h-indexed/struct displacements are in bytes, as in C.
 */
package mpi;

import java.util.concurrent.ConcurrentHashMap;

public final class Datatype implements Freeable, Cloneable {
    public static final int NULL = 0, BYTE = 1, CHAR = 2, SHORT = 3, BOOLEAN = 4, INT = 5,
            LONG = 6, FLOAT = 7, DOUBLE = 8, PACKED = 9;

    long handle;
    final int baseType, baseSize;
    private final boolean predefined;
    private static final ConcurrentHashMap<Long, Datatype> byHandle = new ConcurrentHashMap<>();

    Datatype(long handle, int baseType, int baseSize) {
        this.handle = handle;
        this.baseType = baseType;
        this.baseSize = baseSize;
        this.predefined = true;
        byHandle.putIfAbsent(handle, this);
    }

    private Datatype(Datatype base, long handle) {
        this.handle = handle;
        this.baseType = base.baseType;
        this.baseSize = base.baseSize;
        this.predefined = false;
        byHandle.put(handle, this);
    }

    static Datatype lookup(long handle) { return byHandle.get(handle); }

    static long h(Datatype t) { return t == null ? MPI.DATATYPE_NULL.handle : t.handle; }

    private long[] extents() throws MPIException {
        MPI.check();
        long[] v = new long[5];
        Jni.typeExtent(handle, v);
        return v;
    }

    public int getLb() throws MPIException { return (int) (extents()[0] / baseSize); }

    public int getExtent() throws MPIException { return (int) (extents()[1] / baseSize); }

    public int getTrueLb() throws MPIException { return (int) (extents()[2] / baseSize); }

    public int getTrueExtent() throws MPIException { return (int) (extents()[3] / baseSize); }

    public int getSize() throws MPIException { return (int) (extents()[4] / baseSize); }

    public void commit() throws MPIException { MPI.check(); Jni.typeOp(0, handle); }

    @Override public void free() throws MPIException {
        MPI.check();
        if (predefined)
            throw new MPIException(MPI.ERR_TYPE, MPI.ERR_TYPE, "MPI_Type_free: cannot free a predefined datatype");
        byHandle.remove(handle);
        handle = Jni.typeOp(1, handle);
    }

    public boolean isNull() { return handle == MPI.DATATYPE_NULL.handle; }

    @Override public Datatype clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    public Datatype dup() throws MPIException {
        MPI.check();
        return new Datatype(this, Jni.typeCreate(7, 0, 0, 0, null, null, null, handle));
    }

    public static Datatype createContiguous(int count, Datatype oldType) throws MPIException {
        MPI.check();
        return new Datatype(oldType, Jni.typeCreate(0, count, 0, 0, null, null, null, oldType.handle));
    }

    public static Datatype createVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        MPI.check();
        return new Datatype(oldType, Jni.typeCreate(1, count, blockLength, stride, null, null, null, oldType.handle));
    }

    public static Datatype createHVector(int count, int blockLength, int stride, Datatype oldType) throws MPIException {
        MPI.check();
        return new Datatype(oldType, Jni.typeCreate(2, count, blockLength, stride, null, null, null, oldType.handle));
    }

    public static Datatype createIndexed(int[] blockLengths, int[] displacements, Datatype oldType) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(blockLengths, "createIndexed: blockLengths");
        java.util.Objects.requireNonNull(displacements, "createIndexed: displacements");
        return new Datatype(oldType, Jni.typeCreate(3, 0, 0, 0, blockLengths, displacements, null, oldType.handle));
    }

    public static Datatype createHIndexed(int[] blockLengths, int[] displacements, Datatype oldType) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(blockLengths, "createHIndexed: blockLengths");
        java.util.Objects.requireNonNull(displacements, "createHIndexed: displacements");
        return new Datatype(oldType, Jni.typeCreate(4, 0, 0, 0, blockLengths, displacements, null, oldType.handle));
    }

    public static Datatype createIndexedBlock(int blockLength, int[] displacements, Datatype oldType) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(displacements, "createIndexedBlock: displacements");
        return new Datatype(oldType, Jni.typeCreate(8, 0, blockLength, 0, null, displacements, null, oldType.handle));
    }

    public static Datatype createStruct(int[] blockLengths, int[] displacements, Datatype[] types) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(blockLengths, "createStruct: blockLengths");
        java.util.Objects.requireNonNull(displacements, "createStruct: displacements");
        long[] t = new long[types.length];
        for (int i = 0; i < t.length; i++)
            t[i] = types[i].handle;
        return new Datatype(MPI.BYTE, Jni.typeCreate(5, 0, 0, 0, blockLengths, displacements, t, 0));
    }

    public static Datatype createResized(Datatype oldType, int lb, int extent) throws MPIException {
        MPI.check();
        return new Datatype(oldType, Jni.typeCreate(6, 0, lb * oldType.baseSize, extent * oldType.baseSize,
                null, null, null, oldType.handle));
    }

    public static Datatype createSubarray(int[] sizes, int[] subSizes, int[] starts, int order, Datatype oldType)
            throws MPIException {
        throw MPIException.unsupported("Datatype.createSubarray");
    }

    public static Datatype createDArray(int size, int rank, int[] gsizes, int[] distribs, int[] dargs,
            int[] psizes, int order, Datatype oldType) throws MPIException {
        throw MPIException.unsupported("Datatype.createDArray");
    }

    public void setName(String name) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(name, "setName: name"); Jni.setName(2, handle, name); }

    public String getName() throws MPIException { MPI.check(); return Jni.getName(2, handle); }

    public static int createKeyval() throws MPIException { MPI.check(); return Jni.keyval(2, MPI.KEYVAL_INVALID); }

    public static void freeKeyval(int keyval) throws MPIException { MPI.check(); Jni.keyval(2, keyval); }

    private final java.util.HashMap<Integer, Object> attrs = new java.util.HashMap<>();

    public void setAttr(int keyval, Object value) throws MPIException { MPI.check(); attrs.put(keyval, value); }

    public Object getAttr(int keyval) throws MPIException { MPI.check(); return attrs.get(keyval); }

    public void deleteAttr(int keyval) throws MPIException { MPI.check(); attrs.remove(keyval); }
}
