/* An info object: (key, value) hints. */
package mpi;

public final class Info implements Freeable, Cloneable {
    long handle;

    Info(long handle) { this.handle = handle; }

    public Info() throws MPIException { MPI.check(); handle = Jni.infoCreate(0); }

    public void set(String key, String value) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(key, "Info.set: key"); java.util.Objects.requireNonNull(value, "Info.set: value"); Jni.infoKey(0, handle, key, value); }

    public String get(String key) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(key, "Info.get: key"); return Jni.infoKey(1, handle, key, null); }

    public void delete(String key) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(key, "Info.delete: key"); Jni.infoKey(2, handle, key, null); }

    public int size() throws MPIException { MPI.check(); return Integer.parseInt(Jni.infoNth(handle, -1)); }

    public String getKey(int i) throws MPIException { MPI.check(); return Jni.infoNth(handle, i); }

    @Override public Info clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new RuntimeException(e.getMessage(), e);
        }
    }

    public Info dup() throws MPIException { MPI.check(); return new Info(Jni.infoCreate(handle)); }

    @Override public void free() throws MPIException { MPI.check(); handle = Jni.infoFree(handle); }

    public boolean isNull() { return handle == MPI.INFO_NULL_HANDLE; }

    static long h(Info i) { return i == null ? MPI.INFO_NULL_HANDLE : i.handle; }
}
