package canal.mpi;

/** Reduction operations for Comm.allreduce. */
public enum Op {
    SUM(0), MAX(1), MIN(2), PROD(3);

    final int code;

    Op(int code) {
        this.code = code;
    }
}
