/* A group of processes. */
package mpi;

public final class Group implements Freeable {
    long handle;

    Group(long handle) { this.handle = handle; }

    public int getSize() throws MPIException { MPI.check(); return Jni.groupInt(0, handle); }

    public int getRank() throws MPIException { MPI.check(); return Jni.groupInt(1, handle); }

    @Override public void free() throws MPIException { MPI.check(); handle = Jni.groupFree(handle); }

    public boolean isNull() { return handle == MPI.GROUP_NULL_HANDLE; }

    public static int[] translateRanks(Group group1, int[] ranks1, Group group2) throws MPIException {
        MPI.check();
        java.util.Objects.requireNonNull(ranks1, "translateRanks: ranks");
        return Jni.groupTranslate(group1.handle, ranks1, group2.handle);
    }

    public static int compare(Group group1, Group group2) throws MPIException {
        MPI.check();
        return (int) Jni.groupPair(3, group1.handle, group2.handle);
    }

    public static Group union(Group a, Group b) throws MPIException { MPI.check(); return new Group(Jni.groupPair(0, a.handle, b.handle)); }

    public static Group intersection(Group a, Group b) throws MPIException { MPI.check(); return new Group(Jni.groupPair(1, a.handle, b.handle)); }

    public static Group difference(Group a, Group b) throws MPIException { MPI.check(); return new Group(Jni.groupPair(2, a.handle, b.handle)); }

    public Group incl(int[] ranks) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(ranks, "incl: ranks"); return new Group(Jni.groupSub(0, handle, ranks)); }

    public Group excl(int[] ranks) throws MPIException { MPI.check(); java.util.Objects.requireNonNull(ranks, "excl: ranks"); return new Group(Jni.groupSub(1, handle, ranks)); }

    private static int[] flat(int[][] ranges) {
        int[] r = new int[ranges.length * 3];
        for (int i = 0; i < ranges.length; i++) {
            if (ranges[i].length != 3)
                throw new IllegalArgumentException("a rank range is {first, last, stride}");
            System.arraycopy(ranges[i], 0, r, 3 * i, 3);
        }
        return r;
    }

    public Group rangeIncl(int[][] ranges) throws MPIException { MPI.check(); return new Group(Jni.groupSub(2, handle, flat(ranges))); }

    public Group rangeExcl(int[][] ranges) throws MPIException { MPI.check(); return new Group(Jni.groupSub(3, handle, flat(ranges))); }
}
