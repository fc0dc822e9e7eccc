package canal.mpi;

import java.nio.ByteBuffer;

/**
 * A communicator. Point-to-point calls take primitive arrays (offset and
 * count in elements) or direct ByteBuffers (offset and length in bytes; the
 * buffer's position and limit are ignored). Messages are untyped bytes on
 * the wire: receive with an array of the element type the sender used.
 */
public final class Comm {
    final int handle;

    Comm(int handle) {
        this.handle = handle;
    }

    public int rank() {
        return MPI.nRank(handle);
    }

    public int size() {
        return MPI.nSize(handle);
    }

    public void barrier() {
        MPI.nBarrier(handle);
    }

    /* element kinds, as canal_jni.c numbers them */
    static final int BYTE = 0, CHAR = 1, SHORT = 2, INT = 3, LONG = 4, FLOAT = 5, DOUBLE = 6;

    /* ---- blocking sends */
    public void send(byte[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, BYTE, off, count, dest, tag, handle); }
    public void send(char[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, CHAR, off, count, dest, tag, handle); }
    public void send(short[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, SHORT, off, count, dest, tag, handle); }
    public void send(int[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, INT, off, count, dest, tag, handle); }
    public void send(long[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, LONG, off, count, dest, tag, handle); }
    public void send(float[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, FLOAT, off, count, dest, tag, handle); }
    public void send(double[] a, int off, int count, int dest, int tag) { MPI.nSendArray(a, DOUBLE, off, count, dest, tag, handle); }

    /* ---- blocking receives */
    private static Status st(int[] s) {
        return new Status(s[0], s[1], ((long) s[3] << 32) | (s[2] & 0xffffffffL));
    }
    public Status recv(byte[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, BYTE, off, count, src, tag, handle, s); return st(s); }
    public Status recv(char[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, CHAR, off, count, src, tag, handle, s); return st(s); }
    public Status recv(short[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, SHORT, off, count, src, tag, handle, s); return st(s); }
    public Status recv(int[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, INT, off, count, src, tag, handle, s); return st(s); }
    public Status recv(long[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, LONG, off, count, src, tag, handle, s); return st(s); }
    public Status recv(float[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, FLOAT, off, count, src, tag, handle, s); return st(s); }
    public Status recv(double[] a, int off, int count, int src, int tag) { int[] s = new int[4]; MPI.nRecvArray(a, DOUBLE, off, count, src, tag, handle, s); return st(s); }

    /* ---- nonblocking (arrays travel through native copies) */
    public Request isend(byte[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, BYTE, off, count, dest, tag, handle), a); }
    public Request isend(int[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, INT, off, count, dest, tag, handle), a); }
    public Request isend(long[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, LONG, off, count, dest, tag, handle), a); }
    public Request isend(double[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, DOUBLE, off, count, dest, tag, handle), a); }
    public Request isend(float[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, FLOAT, off, count, dest, tag, handle), a); }
    public Request isend(short[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, SHORT, off, count, dest, tag, handle), a); }
    public Request isend(char[] a, int off, int count, int dest, int tag) { return new Request(MPI.nIsendArray(a, CHAR, off, count, dest, tag, handle), a); }
    public Request irecv(byte[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, BYTE, off, count, src, tag, handle), a); }
    public Request irecv(int[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, INT, off, count, src, tag, handle), a); }
    public Request irecv(long[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, LONG, off, count, src, tag, handle), a); }
    public Request irecv(double[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, DOUBLE, off, count, src, tag, handle), a); }
    public Request irecv(float[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, FLOAT, off, count, src, tag, handle), a); }
    public Request irecv(short[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, SHORT, off, count, src, tag, handle), a); }
    public Request irecv(char[] a, int off, int count, int src, int tag) { return new Request(MPI.nIrecvArray(a, CHAR, off, count, src, tag, handle), a); }

    /* ---- direct ByteBuffers: registered once, zero-copy */
    public void send(ByteBuffer b, int off, int bytes, int dest, int tag) {
        MPI.ensureRegistered(b);
        MPI.nSendBuffer(b, off, bytes, dest, tag, handle);
    }

    public Status recv(ByteBuffer b, int off, int bytes, int src, int tag) {
        int[] s = new int[4];
        MPI.ensureRegistered(b);
        MPI.nRecvBuffer(b, off, bytes, src, tag, handle, s);
        return st(s);
    }

    public Request isend(ByteBuffer b, int off, int bytes, int dest, int tag) {
        MPI.ensureRegistered(b);
        return new Request(MPI.nIsendBuffer(b, off, bytes, dest, tag, handle), b);
    }

    public Request irecv(ByteBuffer b, int off, int bytes, int src, int tag) {
        MPI.ensureRegistered(b);
        return new Request(MPI.nIrecvBuffer(b, off, bytes, src, tag, handle), b);
    }

    /* ---- allreduce on arrays (count elements of in into out) */
    public void allreduce(int[] in, int[] out, int count, Op op) { MPI.nAllreduce(in, out, INT, count, op.code, handle); }
    public void allreduce(long[] in, long[] out, int count, Op op) { MPI.nAllreduce(in, out, LONG, count, op.code, handle); }
    public void allreduce(float[] in, float[] out, int count, Op op) { MPI.nAllreduce(in, out, FLOAT, count, op.code, handle); }
    public void allreduce(double[] in, double[] out, int count, Op op) { MPI.nAllreduce(in, out, DOUBLE, count, op.code, handle); }
}
