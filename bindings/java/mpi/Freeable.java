/* Objects holding an MPI handle that the program frees explicitly. */
package mpi;

public interface Freeable {
    void free() throws MPIException;
}
