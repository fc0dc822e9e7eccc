/*
 * A communicator: point-to-point, collectives (blocking ones take arrays or
 * buffers; the nonblocking ones direct buffers, as in Open MPI), attributes,
 * error handlers. Collectives go through one native entry (Jni.coll).
 */
package mpi;

import java.nio.Buffer;
import java.util.HashMap;

public class Comm implements Freeable, Cloneable {
    public static final int TYPE_SHARED = 0;
    long handle;
    private final HashMap<Integer, Object> attrs = new HashMap<>();

    Comm(long handle) { this.handle = handle; }

    /* ------------------------------------------------------------ management */
    @Override public Comm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    public Comm dup() throws MPIException { MPI.check(); return new Comm(Jni.commDup(handle, 0)); }

    public Comm iDup() throws MPIException { throw MPIException.unsupported("Comm.iDup"); }

    public Comm dupWithInfo(Info info) throws MPIException { MPI.check(); return new Comm(Jni.commDup(handle, Info.h(info))); }

    public final int getSize() throws MPIException { MPI.check(); return Jni.commInt(1, handle); }

    public final int getRank() throws MPIException { MPI.check(); return Jni.commInt(0, handle); }

    public static int compare(Comm comm1, Comm comm2) throws MPIException {
        MPI.check();
        return Jni.commCompare(comm1.handle, comm2.handle);
    }

    @Override public void free() throws MPIException { MPI.check(); handle = Jni.commFree(handle); }

    public final boolean isNull() { return handle == MPI.COMM_NULL_HANDLE; }

    public final void setInfo(Info info) throws MPIException { throw MPIException.unsupported("Comm.setInfo"); }

    public final Info getInfo() throws MPIException { throw MPIException.unsupported("Comm.getInfo"); }

    public final void disconnect() throws MPIException { throw MPIException.unsupported("Comm.disconnect"); }

    public final Group getGroup() throws MPIException { MPI.check(); return new Group(Jni.commGroup(handle, false)); }

    public final boolean isInter() throws MPIException { MPI.check(); return Jni.commInt(2, handle) != 0; }

    public final Intercomm createIntercomm(Comm localComm, int localLeader, int remoteLeader, int tag)
            throws MPIException {
        MPI.check();
        return new Intercomm(Jni.intercommCreate(localComm.handle, localLeader, handle, remoteLeader, tag));
    }

    public final int getTopology() throws MPIException { MPI.check(); return Jni.commInt(4, handle); }

    public final void abort(int errorcode) throws MPIException { MPI.check(); Jni.abort(handle, errorcode); }

    public final void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        Jni.commSetErrhandler(0, handle, errhandler.handle);
    }

    public final Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return new Errhandler(Jni.commGetErrhandler(0, handle));
    }

    public void callErrhandler(int errorCode) throws MPIException { MPI.check(); Jni.callErrhandler(0, handle, errorCode); }

    public static int createKeyval() throws MPIException { MPI.check(); return Jni.keyval(0, MPI.KEYVAL_INVALID); }

    public static void freeKeyval(int keyval) throws MPIException { MPI.check(); Jni.keyval(0, keyval); }

    public final void setAttr(int keyval, Object value) throws MPIException { MPI.check(); attrs.put(keyval, value); }

    public final Object getAttr(int keyval) throws MPIException {
        MPI.check();
        if (keyval == MPI.TAG_UB || keyval == MPI.HOST || keyval == MPI.IO || keyval == MPI.APPNUM
                || keyval == MPI.LASTUSEDCODE || keyval == MPI.UNIVERSE_SIZE)
            return Jni.commGetAttr(handle, keyval);
        if (keyval == MPI.WTIME_IS_GLOBAL) {
            Integer v = (Integer) Jni.commGetAttr(handle, keyval);
            return v == null ? null : v != 0;
        }
        return attrs.get(keyval);
    }

    public final void deleteAttr(int keyval) throws MPIException { MPI.check(); attrs.remove(keyval); }

    public final void setName(String name) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(name, "setName: name"); Jni.setName(0, handle, name); }

    public final String getName() throws MPIException { MPI.check(); return Jni.getName(0, handle); }

    /* ------------------------------------------------------------ point to point */
    private void send(int mode, Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        MPI.check();
        MPI.register(buf);
        Jni.send(mode, MPI.obj(buf), MPI.off(buf), MPI.cap(buf), count, type.handle, dest, tag, handle);
    }

    public final void send(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        send(0, buf, count, type, dest, tag);
    }

    public final void sSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        send(1, buf, count, type, dest, tag);
    }

    public final void bSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        send(2, buf, count, type, dest, tag);
    }

    public final void rSend(Object buf, int count, Datatype type, int dest, int tag) throws MPIException {
        send(3, buf, count, type, dest, tag);
    }

    public final Status recv(Object buf, int count, Datatype type, int source, int tag) throws MPIException {
        MPI.check();
        MPI.register(buf);
        long[] s = Status.newData();
        Jni.recv(MPI.obj(buf), MPI.off(buf), MPI.cap(buf), count, type.handle, source, tag, handle, s);
        return new Status(s);
    }

    public final Status sendRecv(Object sendbuf, int sendcount, Datatype sendtype, int dest, int sendtag,
            Object recvbuf, int recvcount, Datatype recvtype, int source, int recvtag) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        Jni.sendrecv(MPI.obj(sendbuf), MPI.off(sendbuf), MPI.cap(sendbuf), sendcount, sendtype.handle, dest, sendtag,
                MPI.obj(recvbuf), MPI.off(recvbuf), MPI.cap(recvbuf), recvcount, recvtype.handle, source, recvtag,
                handle, false, s);
        return new Status(s);
    }

    public final Status sendRecvReplace(Object buf, int count, Datatype type, int dest, int sendtag, int source,
            int recvtag) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        Jni.sendrecv(null, 0, 0, 0, type.handle, dest, sendtag, MPI.obj(buf), MPI.off(buf), MPI.cap(buf), count,
                type.handle, source, recvtag, handle, true, s);
        return new Status(s);
    }

    private long start(int mode, boolean persistent, Buffer buf, int count, Datatype type, int peer, int tag,
            String call) throws MPIException {
        MPI.check();
        MPI.direct(buf, call);
        MPI.register(buf);
        return Jni.isend(mode, persistent, buf, 0, MPI.cap(buf), count, type.handle, peer, tag, handle);
    }

    public final Request iSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(start(0, false, buf, count, type, dest, tag, "iSend"), buf);
    }

    public final Request isSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(start(1, false, buf, count, type, dest, tag, "isSend"), buf);
    }

    public final Request ibSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(start(2, false, buf, count, type, dest, tag, "ibSend"), buf);
    }

    public final Request irSend(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Request(start(3, false, buf, count, type, dest, tag, "irSend"), buf);
    }

    public final Request iRecv(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        return new Request(start(4, false, buf, count, type, source, tag, "iRecv"), buf);
    }

    public final Prequest sendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Prequest(start(0, true, buf, count, type, dest, tag, "sendInit"), buf);
    }

    public final Prequest sSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Prequest(start(1, true, buf, count, type, dest, tag, "sSendInit"), buf);
    }

    public final Prequest bSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Prequest(start(2, true, buf, count, type, dest, tag, "bSendInit"), buf);
    }

    public final Prequest rSendInit(Buffer buf, int count, Datatype type, int dest, int tag) throws MPIException {
        return new Prequest(start(3, true, buf, count, type, dest, tag, "rSendInit"), buf);
    }

    public final Prequest recvInit(Buffer buf, int count, Datatype type, int source, int tag) throws MPIException {
        return new Prequest(start(4, true, buf, count, type, source, tag, "recvInit"), buf);
    }

    public final Status probe(int source, int tag) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        Jni.probe(true, source, tag, handle, s);
        return new Status(s);
    }

    public final Status iProbe(int source, int tag) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        return Jni.probe(false, source, tag, handle, s) ? new Status(s) : null;
    }

    public final int pack(Object inbuf, int incount, Datatype type, byte[] outbuf, int position) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(outbuf, "pack: outbuf");
        return Jni.pack(false, MPI.obj(inbuf), MPI.off(inbuf), MPI.cap(inbuf), incount, type.handle, outbuf,
                position, handle);
    }

    public final int unpack(byte[] inbuf, int position, Object outbuf, int outcount, Datatype type)
            throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(inbuf, "unpack: inbuf");
        return Jni.pack(true, MPI.obj(outbuf), MPI.off(outbuf), MPI.cap(outbuf), outcount, type.handle, inbuf,
                position, handle);
    }

    public final int packSize(int incount, Datatype type) throws MPIException {
        MPI.check();
        return Jni.packSize(incount, type.handle, handle);
    }

    /* ------------------------------------------------------------ collectives */
    static final int BARRIER = 0, BCAST = 1, GATHER = 2, GATHERV = 3, SCATTER = 4, SCATTERV = 5, ALLGATHER = 6,
            ALLGATHERV = 7, ALLTOALL = 8, ALLTOALLV = 9, REDUCE = 10, ALLREDUCE = 11, REDSCAT = 12,
            REDSCAT_BLOCK = 13, SCAN = 14, EXSCAN = 15, NALLGATHER = 16, NALLGATHERV = 17, NALLTOALL = 18,
            NALLTOALLV = 19, REDUCE_LOCAL = 20;

    /** One collective. nb: nonblocking (direct buffers only; returns a Request). */
    final Request coll(int which, boolean nb, boolean inplace, Object sb, int sc, int[] scs, int[] sds,
            Datatype st, Object rb, int rc, int[] rcs, int[] rds, Datatype rt, Op op, int root)
            throws MPIException {
        MPI.check();
        if (nb) {
            if (sb != null) MPI.direct((Buffer) sb, "nonblocking collective");
            if (rb != null) MPI.direct((Buffer) rb, "nonblocking collective");
        }
        long h = Jni.coll(which, nb, inplace, MPI.obj(sb), MPI.off(sb), MPI.cap(sb), sc, scs, sds, Datatype.h(st),
                MPI.obj(rb), MPI.off(rb), MPI.cap(rb), rc, rcs, rds, Datatype.h(rt),
                op == null ? MPI.OP_NULL : op.handle, root, handle, op != null && op.isUser());
        return nb ? new Request(h, new Object[] { sb, rb }) : null;
    }

    public final void barrier() throws MPIException { coll(BARRIER, false, false, null, 0, null, null, null, null, 0, null, null, null, null, 0); }

    public final Request iBarrier() throws MPIException { return coll(BARRIER, true, false, null, 0, null, null, null, null, 0, null, null, null, null, 0); }

    public final void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        coll(BCAST, false, false, null, 0, null, null, null, buf, count, null, null, type, null, root);
    }

    public final Request iBcast(Buffer buf, int count, Datatype type, int root) throws MPIException {
        return coll(BCAST, true, false, null, 0, null, null, null, buf, count, null, null, type, null, root);
    }

    public final void gather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        coll(GATHER, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final void gather(Object buf, int count, Datatype type, int root) throws MPIException {
        coll(GATHER, false, true, null, 0, null, null, type, buf, count, null, null, type, null, root);
    }

    public final Request iGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        return coll(GATHER, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final Request iGather(Buffer buf, int count, Datatype type, int root) throws MPIException {
        return coll(GATHER, true, true, null, 0, null, null, type, buf, count, null, null, type, null, root);
    }

    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
            int[] displs, Datatype recvtype, int root) throws MPIException {
        coll(GATHERV, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs, recvtype, null, root);
    }

    public final void gatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        coll(GATHERV, false, true, null, 0, null, null, recvtype, recvbuf, 0, recvcount, displs, recvtype, null, root);
    }

    public final void gatherv(Object sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        coll(GATHERV, false, false, sendbuf, sendcount, null, null, sendtype, null, 0, null, null, sendtype, null, root);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int[] recvcount,
            int[] displs, Datatype recvtype, int root) throws MPIException {
        return coll(GATHERV, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs, recvtype, null, root);
    }

    public final Request iGatherv(Buffer recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root)
            throws MPIException {
        return coll(GATHERV, true, true, null, 0, null, null, recvtype, recvbuf, 0, recvcount, displs, recvtype, null, root);
    }

    public final Request iGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, int root) throws MPIException {
        return coll(GATHERV, true, false, sendbuf, sendcount, null, null, sendtype, null, 0, null, null, sendtype, null, root);
    }

    public final void scatter(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        coll(SCATTER, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final void scatter(Object buf, int count, Datatype type, int root) throws MPIException {
        coll(SCATTER, false, true, buf, count, null, null, type, null, count, null, null, type, null, root);
    }

    public final Request iScatter(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
            Datatype recvtype, int root) throws MPIException {
        return coll(SCATTER, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final Request iScatter(Buffer buf, int count, Datatype type, int root) throws MPIException {
        return coll(SCATTER, true, true, buf, count, null, null, type, null, count, null, null, type, null, root);
    }

    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype, int root) throws MPIException {
        coll(SCATTERV, false, false, sendbuf, 0, sendcount, displs, sendtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final void scatterv(Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        coll(SCATTERV, false, true, sendbuf, 0, sendcount, displs, sendtype, null, 0, null, null, sendtype, null, root);
    }

    public final void scatterv(Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        coll(SCATTERV, false, false, null, 0, null, null, recvtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype, int root) throws MPIException {
        return coll(SCATTERV, true, false, sendbuf, 0, sendcount, displs, sendtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final Request iScatterv(Buffer sendbuf, int[] sendcount, int[] displs, Datatype sendtype, int root)
            throws MPIException {
        return coll(SCATTERV, true, true, sendbuf, 0, sendcount, displs, sendtype, null, 0, null, null, sendtype, null, root);
    }

    public final Request iScatterv(Buffer recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        return coll(SCATTERV, true, false, null, 0, null, null, recvtype, recvbuf, recvcount, null, null, recvtype, null, root);
    }

    public final void allGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype) throws MPIException {
        coll(ALLGATHER, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final void allGather(Object buf, int count, Datatype type) throws MPIException {
        coll(ALLGATHER, false, true, null, 0, null, null, type, buf, count, null, null, type, null, 0);
    }

    public final Request iAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
            Datatype recvtype) throws MPIException {
        return coll(ALLGATHER, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final Request iAllGather(Buffer buf, int count, Datatype type) throws MPIException {
        return coll(ALLGATHER, true, true, null, 0, null, null, type, buf, count, null, null, type, null, 0);
    }

    public final void allGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
            int[] displs, Datatype recvtype) throws MPIException {
        coll(ALLGATHERV, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs, recvtype, null, 0);
    }

    public final void allGatherv(Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        coll(ALLGATHERV, false, true, null, 0, null, null, recvtype, recvbuf, 0, recvcount, displs, recvtype, null, 0);
    }

    public final Request iAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int[] recvcount,
            int[] displs, Datatype recvtype) throws MPIException {
        return coll(ALLGATHERV, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs, recvtype, null, 0);
    }

    public final Request iAllGatherv(Buffer buf, int[] count, int[] displs, Datatype type) throws MPIException {
        return coll(ALLGATHERV, true, true, null, 0, null, null, type, buf, 0, count, displs, type, null, 0);
    }

    public final void allToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
            Datatype recvtype) throws MPIException {
        coll(ALLTOALL, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final Request iAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf, int recvcount,
            Datatype recvtype) throws MPIException {
        return coll(ALLTOALL, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final void allToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, Object recvbuf,
            int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        coll(ALLTOALLV, false, false, sendbuf, 0, sendcount, sdispls, sendtype, recvbuf, 0, recvcount, rdispls, recvtype, null, 0);
    }

    public final Request iAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, Buffer recvbuf,
            int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        return coll(ALLTOALLV, true, false, sendbuf, 0, sendcount, sdispls, sendtype, recvbuf, 0, recvcount, rdispls, recvtype, null, 0);
    }

    public final void allToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes, Buffer recvBuf,
            int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        throw MPIException.unsupported("Comm.allToAllw");
    }

    public final Request iAllToAllw(Buffer sendBuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
            Buffer recvBuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        throw MPIException.unsupported("Comm.iAllToAllw");
    }

    public final void neighborAllGather(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        coll(NALLGATHER, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final Request iNeighborAllGather(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        return coll(NALLGATHER, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final void neighborAllGatherv(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        coll(NALLGATHERV, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs, recvtype, null, 0);
    }

    public final Request iNeighborAllGatherv(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        return coll(NALLGATHERV, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, 0, recvcount, displs, recvtype, null, 0);
    }

    public final void neighborAllToAll(Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        coll(NALLTOALL, false, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final Request iNeighborAllToAll(Buffer sendbuf, int sendcount, Datatype sendtype, Buffer recvbuf,
            int recvcount, Datatype recvtype) throws MPIException {
        return coll(NALLTOALL, true, false, sendbuf, sendcount, null, null, sendtype, recvbuf, recvcount, null, null, recvtype, null, 0);
    }

    public final void neighborAllToAllv(Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
            Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        coll(NALLTOALLV, false, false, sendbuf, 0, sendcount, sdispls, sendtype, recvbuf, 0, recvcount, rdispls, recvtype, null, 0);
    }

    public final Request iNeighborAllToAllv(Buffer sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
            Buffer recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        return coll(NALLTOALLV, true, false, sendbuf, 0, sendcount, sdispls, sendtype, recvbuf, 0, recvcount, rdispls, recvtype, null, 0);
    }

    public final void reduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        coll(REDUCE, false, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, root);
    }

    public final void reduce(Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        coll(REDUCE, false, true, null, count, null, null, type, buf, count, null, null, type, op, root);
    }

    public final Request iReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        return coll(REDUCE, true, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, root);
    }

    public final Request iReduce(Buffer buf, int count, Datatype type, Op op, int root) throws MPIException {
        return coll(REDUCE, true, true, null, count, null, null, type, buf, count, null, null, type, op, root);
    }

    public final void allReduce(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        coll(ALLREDUCE, false, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final void allReduce(Object buf, int count, Datatype type, Op op) throws MPIException {
        coll(ALLREDUCE, false, true, null, count, null, null, type, buf, count, null, null, type, op, 0);
    }

    public final Request iAllReduce(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        return coll(ALLREDUCE, true, false, sendbuf, count, null, null, type, recvbuf, count, null, null, type, op, 0);
    }

    public final Request iAllReduce(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return coll(ALLREDUCE, true, true, null, count, null, null, type, buf, count, null, null, type, op, 0);
    }

    public final void reduceScatter(Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        coll(REDSCAT, false, false, sendbuf, 0, null, null, type, recvbuf, 0, recvcounts, null, type, op, 0);
    }

    public final void reduceScatter(Object buf, int[] counts, Datatype type, Op op) throws MPIException {
        coll(REDSCAT, false, true, null, 0, null, null, type, buf, 0, counts, null, type, op, 0);
    }

    public final Request iReduceScatter(Buffer sendbuf, Buffer recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        return coll(REDSCAT, true, false, sendbuf, 0, null, null, type, recvbuf, 0, recvcounts, null, type, op, 0);
    }

    public final Request iReduceScatter(Buffer buf, int[] counts, Datatype type, Op op) throws MPIException {
        return coll(REDSCAT, true, true, null, 0, null, null, type, buf, 0, counts, null, type, op, 0);
    }

    public final void reduceScatterBlock(Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        coll(REDSCAT_BLOCK, false, false, sendbuf, 0, null, null, type, recvbuf, recvcount, null, null, type, op, 0);
    }

    public final void reduceScatterBlock(Object buf, int count, Datatype type, Op op) throws MPIException {
        coll(REDSCAT_BLOCK, false, true, null, 0, null, null, type, buf, count, null, null, type, op, 0);
    }

    public final Request iReduceScatterBlock(Buffer sendbuf, Buffer recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        return coll(REDSCAT_BLOCK, true, false, sendbuf, 0, null, null, type, recvbuf, recvcount, null, null, type, op, 0);
    }

    public final Request iReduceScatterBlock(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return coll(REDSCAT_BLOCK, true, true, null, 0, null, null, type, buf, count, null, null, type, op, 0);
    }

    public static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type, Op op)
            throws MPIException {
        MPI.COMM_SELF.coll(REDUCE_LOCAL, false, false, inBuf, count, null, null, type, inOutBuf, count, null, null,
                type, op, 0);
    }
}
