/*
 * Canal's additions to the mpi package (not part of Open MPI's API): counters
 * of how the binding moved Java memory, for tests and tuning.
 */
package mpi;

public final class CanalExt {
    private CanalExt() {}

    /** {blocking array sends run pinned (eager), blocking array sends copied into
     *  the bounce buffer, array receives completed pinned within the spin, array
     *  receives taken pinned after a probe, span copies (collectives etc.),
     *  direct buffers registered with MPIX_Buffer_register, user operations
     *  that ran while their thread held an array pinned (a bug if nonzero)} */
    public static long[] stats() {
        long[] s = new long[7];
        Jni.stats(s);
        return s;
    }
}
