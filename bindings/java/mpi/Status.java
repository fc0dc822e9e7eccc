/* The status of a completed receive (or other operation): source, tag, error, size. */
package mpi;

public final class Status {
    final long[] data;

    Status(long[] data) { this.data = data; }

    static long[] newData() { return new long[6]; }

    public int getCount(Datatype datatype) throws MPIException {
        MPI.check();
        return Jni.statusCount(data[4], datatype.handle, false);
    }

    public int getElements(Datatype datatype) throws MPIException {
        MPI.check();
        return Jni.statusCount(data[4], datatype.handle, true);
    }

    public boolean isCancelled() throws MPIException { return data[3] != 0; }

    public int getSource() { return (int) data[0]; }

    public int getTag() { return (int) data[1]; }

    public int getError() { return (int) data[2]; }

    public int getIndex() { return (int) data[5]; }
}
