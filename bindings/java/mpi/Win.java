/* An RMA window over a direct buffer (as in Open MPI: origins are direct buffers too). */
package mpi;

import java.nio.Buffer;

public final class Win implements Freeable {
    public static final int WIN_NULL = 0, FLAVOR_PRIVATE = 0, FLAVOR_SHARED = 1;
    private long handle;
    private Buffer base; /* kept reachable while the window exists */
    /* origin and result buffers of operations not yet completed by a
     * synchronisation: kept reachable so their memory is not freed under them */
    private final java.util.HashMap<Integer, java.util.ArrayList<Buffer>> inFlight = new java.util.HashMap<>();

    public Win(Buffer base, int size, int dispUnit, Info info, Comm comm) throws MPIException {
        MPI.check();
        MPI.direct(base, "Win");
        java.util.Objects.requireNonNull(base, "Win: base");
        if (size < 0 || (long) size * MPI.elemSize(base) > MPI.cap(base))
            throw new MPIException(MPI.ERR_SIZE, MPI.ERR_SIZE, "MPI_Win_create: size " + size
                    + " exceeds the buffer's capacity of " + MPI.cap(base) / MPI.elemSize(base) + " elements");
        this.base = base;
        handle = Jni.winCreate(base, size * MPI.elemSize(base), dispUnit * MPI.elemSize(base), Info.h(info), comm.handle);
    }

    public Win(int size, int dispUnit, Info info, Comm comm, Buffer base, int flavor) throws MPIException {
        throw MPIException.unsupported("Win (allocate)");
    }

    public Win(Info info, Comm comm) throws MPIException { throw MPIException.unsupported("Win (dynamic)"); }

    public void attach(Buffer base, int size) throws MPIException { throw MPIException.unsupported("Win.attach"); }

    public void detach(Buffer base) throws MPIException { throw MPIException.unsupported("Win.detach"); }

    public Group getGroup() throws MPIException { MPI.check(); return new Group(Jni.winSync(16, handle, 0, 0, 0, 0)); }

    private void rma(int what, Buffer origin, int orgCount, Datatype orgType, Buffer result, int resCount,
            Datatype resType, Buffer compare, int targetRank, int targetDisp, int targetCount, Datatype targetType,
            Op op) throws MPIException {
        MPI.check();
        MPI.direct(origin, "Win");
        MPI.direct(result, "Win");
        MPI.direct(compare, "Win");
        Jni.rma(what, handle, origin, 0, MPI.cap(origin), orgCount, Datatype.h(orgType), result, 0, MPI.cap(result),
                resCount, Datatype.h(resType), compare, MPI.cap(compare), targetRank, targetDisp, targetCount,
                Datatype.h(targetType), op == null ? MPI.OP_NULL : op.handle);
        synchronized (inFlight) {
            java.util.ArrayList<Buffer> l = inFlight.computeIfAbsent(targetRank, k -> new java.util.ArrayList<>());
            if (origin != null) l.add(origin);
            if (result != null) l.add(result);
            if (compare != null) l.add(compare);
        }
    }

    public void put(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
            Datatype targetType) throws MPIException {
        rma(0, origin, orgCount, orgType, null, 0, null, null, targetRank, targetDisp, targetCount, targetType, null);
    }

    public void get(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp, int targetCount,
            Datatype targetType) throws MPIException {
        rma(1, origin, orgCount, orgType, null, 0, null, null, targetRank, targetDisp, targetCount, targetType, null);
    }

    public void accumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType, Op op) throws MPIException {
        rma(2, origin, orgCount, orgType, null, 0, null, null, targetRank, targetDisp, targetCount, targetType, op);
    }

    public void getAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
            Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op)
            throws MPIException {
        rma(3, origin, orgCount, orgType, resultAddr, resultCount, resultType, null, targetRank, targetDisp,
                targetCount, targetType, op);
    }

    public void fetchAndOp(Buffer origin, Buffer resultAddr, Datatype dataType, int targetRank, int targetDisp, Op op)
            throws MPIException {
        rma(4, origin, 1, dataType, resultAddr, 1, dataType, null, targetRank, targetDisp, 1, dataType, op);
    }

    public void compareAndSwap(Buffer origin, Buffer compareAddr, Buffer resultAddr, Datatype targetType,
            int targetRank, int targetDisp) throws MPIException {
        rma(5, origin, 1, targetType, resultAddr, 1, targetType, compareAddr, targetRank, targetDisp, 1, targetType,
                null);
    }

    public final Request rPut(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType) throws MPIException {
        throw MPIException.unsupported("Win.rPut");
    }

    public final Request rGet(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType) throws MPIException {
        throw MPIException.unsupported("Win.rGet");
    }

    public Request rAccumulate(Buffer origin, int orgCount, Datatype orgType, int targetRank, int targetDisp,
            int targetCount, Datatype targetType, Op op) throws MPIException {
        throw MPIException.unsupported("Win.rAccumulate");
    }

    public Request rGetAccumulate(Buffer origin, int orgCount, Datatype orgType, Buffer resultAddr, int resultCount,
            Datatype resultType, int targetRank, int targetDisp, int targetCount, Datatype targetType, Op op)
            throws MPIException {
        throw MPIException.unsupported("Win.rGetAccumulate");
    }

    private long sync(int what, int a, int b, int c, Group g) throws MPIException {
        MPI.check();
        long r = Jni.winSync(what, handle, a, b, c, g == null ? 0 : g.handle);
        /* unlock and flush of one target end its operations; fence, unlock
         * all, flush all, complete and free end every one */
        synchronized (inFlight) {
            if (what == 2 || what == 5)
                inFlight.remove(b);
            else if (what == 0 || what == 4 || what == 6 || what == 10 || what == 12)
                inFlight.clear();
        }
        return r;
    }

    public void fence(int assertion) throws MPIException { sync(0, assertion, 0, 0, null); }

    public void lock(int lockType, int rank, int assertion) throws MPIException { sync(1, lockType, rank, assertion, null); }

    public void unlock(int rank) throws MPIException { sync(2, 0, rank, 0, null); }

    public void lockAll(int assertion) throws MPIException { sync(3, assertion, 0, 0, null); }

    public void unlockAll() throws MPIException { sync(4, 0, 0, 0, null); }

    public void flush(int targetRank) throws MPIException { sync(5, 0, targetRank, 0, null); }

    public void flushAll() throws MPIException { sync(6, 0, 0, 0, null); }

    public void flushLocal(int targetRank) throws MPIException { sync(7, 0, targetRank, 0, null); }

    public void flushLocalAll() throws MPIException { sync(8, 0, 0, 0, null); }

    public void sync() throws MPIException { sync(9, 0, 0, 0, null); }

    @Override public void free() throws MPIException {
        handle = sync(10, 0, 0, 0, null);
        base = null;
    }

    public void start(Group group, int assertion) throws MPIException { sync(11, assertion, 0, 0, group); }

    public void complete() throws MPIException { sync(12, 0, 0, 0, null); }

    public void post(Group group, int assertion) throws MPIException { sync(13, assertion, 0, 0, group); }

    public void waitFor() throws MPIException { sync(14, 0, 0, 0, null); }

    public boolean test() throws MPIException { return sync(15, 0, 0, 0, null) != 0; }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        Jni.commSetErrhandler(1, handle, errhandler.handle);
    }

    public Errhandler getErrhandler() throws MPIException { MPI.check(); return new Errhandler(Jni.commGetErrhandler(1, handle)); }

    public void callErrhandler(int errorCode) throws MPIException { MPI.check(); Jni.callErrhandler(1, handle, errorCode); }

    public static int createKeyval() throws MPIException { MPI.check(); return Jni.keyval(1, MPI.KEYVAL_INVALID); }

    public static void freeKeyval(int keyval) throws MPIException { MPI.check(); Jni.keyval(1, keyval); }

    private final java.util.HashMap<Integer, Object> attrs = new java.util.HashMap<>();

    public void setAttr(int keyval, Object value) throws MPIException { MPI.check(); attrs.put(keyval, value); }

    public Object getAttr(int keyval) throws MPIException { MPI.check(); return attrs.get(keyval); }

    public void deleteAttr(int keyval) throws MPIException { MPI.check(); attrs.remove(keyval); }

    public Info getInfo() throws MPIException { throw MPIException.unsupported("Win.getInfo"); }

    public void setInfo(Info info) throws MPIException { throw MPIException.unsupported("Win.setInfo"); }

    public String getName() throws MPIException { MPI.check(); return Jni.getName(1, handle); }

    public void setName(String name) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(name, "setName: name"); Jni.setName(1, handle, name); }
}
