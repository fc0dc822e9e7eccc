/* A matched message (mProbe/imProbe), received with mRecv/imRecv. */
package mpi;

import java.nio.Buffer;

public final class Message {
    private long handle = MPI.MESSAGE_NULL;

    public Message() {}

    public boolean isNull() { return handle == MPI.MESSAGE_NULL; }

    public boolean isNoProc() { return handle == MPI.MESSAGE_NO_PROC; }

    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        handle = Jni.mprobe(true, source, tag, comm.handle, s);
        s[5] = 0;
        return new Status(s);
    }

    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        long h = Jni.mprobe(false, source, tag, comm.handle, s);
        if (s[5] == 0)
            return null;
        handle = h;
        s[5] = 0;
        return new Status(s);
    }

    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        handle = Jni.mrecv(handle, MPI.obj(buf), MPI.off(buf), MPI.cap(buf), count, type.handle, true, s);
        return new Status(s);
    }

    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        MPI.direct(buf, "imRecv");
        long[] r = new long[6];
        handle = Jni.mrecv(handle, buf, 0, MPI.cap(buf), count, type.handle, false, r);
        return new Request(r[0], buf);
    }
}
