/*
 * MPI-IO. Blocking reads and writes take arrays or buffers; the nonblocking
 * and split-collective forms are not implemented (they throw MPIException).
 */
package mpi;

import java.nio.Buffer;

public final class File {
    private long handle;

    public File(Comm comm, String filename, int amode) throws MPIException { this(comm, filename, amode, null); }

    public File(Comm comm, String filename, int amode, Info info) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(filename, "File: filename");
        handle = Jni.fileOpen(comm.handle, filename, amode, Info.h(info));
    }

    public void close() throws MPIException { MPI.check(); handle = Jni.fileCtl(0, handle, 0, 0); }

    public static void delete(String filename) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(filename, "File.delete: filename"); Jni.fileDelete(filename, MPI.INFO_NULL_HANDLE); }

    public static void delete(String filename, Info info) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(filename, "File.delete: filename"); Jni.fileDelete(filename, Info.h(info)); }

    public void setSize(long size) throws MPIException { MPI.check(); Jni.fileCtl(1, handle, size, 0); }

    public void preallocate(long size) throws MPIException { MPI.check(); Jni.fileCtl(2, handle, size, 0); }

    public long getSize() throws MPIException { MPI.check(); return Jni.fileCtl(3, handle, 0, 0); }

    public Group getGroup() throws MPIException { MPI.check(); return new Group(Jni.fileCtl(13, handle, 0, 0)); }

    public int getAMode() throws MPIException { MPI.check(); return (int) Jni.fileCtl(7, handle, 0, 0); }

    public void setInfo(Info info) throws MPIException { throw MPIException.unsupported("File.setInfo"); }

    public Info getInfo() throws MPIException { throw MPIException.unsupported("File.getInfo"); }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep) throws MPIException {
        setView(disp, etype, filetype, datarep, null);
    }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep, Info info) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(datarep, "setView: datarep");
        Jni.fileSetView(handle, disp, etype.handle, filetype.handle, datarep, Info.h(info));
    }

    private Status io(int what, long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        long[] s = Status.newData();
        Jni.fileIO(what, handle, offset, MPI.obj(buf), MPI.off(buf), MPI.cap(buf), count, type.handle, s);
        return new Status(s);
    }

    public Status readAt(long offset, Object buf, int count, Datatype type) throws MPIException { return io(2, offset, buf, count, type); }

    public Status readAtAll(long offset, Object buf, int count, Datatype type) throws MPIException { return io(6, offset, buf, count, type); }

    public Status writeAt(long offset, Object buf, int count, Datatype type) throws MPIException { return io(3, offset, buf, count, type); }

    public Status writeAtAll(long offset, Object buf, int count, Datatype type) throws MPIException { return io(7, offset, buf, count, type); }

    public Status read(Object buf, int count, Datatype type) throws MPIException { return io(0, 0, buf, count, type); }

    public Status readAll(Object buf, int count, Datatype type) throws MPIException { return io(4, 0, buf, count, type); }

    public Status write(Object buf, int count, Datatype type) throws MPIException { return io(1, 0, buf, count, type); }

    public Status writeAll(Object buf, int count, Datatype type) throws MPIException { return io(5, 0, buf, count, type); }

    public Status readShared(Object buf, int count, Datatype type) throws MPIException { return io(8, 0, buf, count, type); }

    public Status writeShared(Object buf, int count, Datatype type) throws MPIException { return io(9, 0, buf, count, type); }

    public Status readOrdered(Object buf, int count, Datatype type) throws MPIException { return io(16, 0, buf, count, type); }

    public Status writeOrdered(Object buf, int count, Datatype type) throws MPIException { return io(17, 0, buf, count, type); }

    public Request iReadAt(long offset, Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iReadAt"); }

    public Request iReadAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iReadAtAll"); }

    public Request iWriteAt(long offset, Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iWriteAt"); }

    public Request iWriteAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iWriteAtAll"); }

    public Request iRead(Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iRead"); }

    public Request iReadAll(Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iReadAll"); }

    public Request iWrite(Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iWrite"); }

    public Request iWriteAll(Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iWriteAll"); }

    public Request iReadShared(Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iReadShared"); }

    public Request iWriteShared(Buffer buf, int count, Datatype type) throws MPIException { throw MPIException.unsupported("File.iWriteShared"); }

    public void seek(long offset, int whence) throws MPIException { MPI.check(); Jni.fileCtl(4, handle, offset, whence); }

    public long getPosition() throws MPIException { MPI.check(); return Jni.fileCtl(5, handle, 0, 0); }

    public long getByteOffset(long offset) throws MPIException { MPI.check(); return Jni.fileCtl(10, handle, offset, 0); }

    public void seekShared(long offset, int whence) throws MPIException { MPI.check(); Jni.fileCtl(11, handle, offset, whence); }

    public long getPositionShared() throws MPIException { MPI.check(); return Jni.fileCtl(12, handle, 0, 0); }

    public void setAtomicity(boolean atomicity) throws MPIException { MPI.check(); Jni.fileCtl(8, handle, 0, atomicity ? 1 : 0); }

    public boolean getAtomicity() throws MPIException { MPI.check(); return Jni.fileCtl(9, handle, 0, 0) != 0; }

    public void sync() throws MPIException { MPI.check(); Jni.fileCtl(6, handle, 0, 0); }

    public int getTypeExtent(Datatype type) throws MPIException { throw MPIException.unsupported("File.getTypeExtent"); }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        Jni.commSetErrhandler(2, handle, errhandler.handle);
    }

    public Errhandler getErrhandler() throws MPIException { MPI.check(); return new Errhandler(Jni.commGetErrhandler(2, handle)); }

    public void callErrhandler(int errorCode) throws MPIException { MPI.check(); Jni.callErrhandler(2, handle, errorCode); }
}
