/* The result of CartComm.shift: the source and destination ranks. */
package mpi;

public final class ShiftParms {
    private final int source, dest;

    ShiftParms(int source, int dest) { this.source = source; this.dest = dest; }

    public int getRankSource() { return source; }

    public int getRankDest() { return dest; }
}
