/* The MPI standard version the library implements. */
package mpi;

public final class Version {
    private final int version, subversion;

    Version(int version, int subversion) { this.version = version; this.subversion = subversion; }

    public int getVersion() { return version; }

    public int getSubversion() { return subversion; }
}
