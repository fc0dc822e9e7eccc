/* The profiling interface: this program's MPI_Send wraps PMPI_Send. */
#include "mtest.h"

static int sends;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int main(int argc, char **argv)
{
    int rank, x = 42, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Send(&x, 1, MPI_INT, rank, 0, MPI_COMM_SELF);
    MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    CHECK(y == 42, "y=%d", y);
    CHECK(sends == 1, "wrapper saw %d sends", sends);
    return mtest_finish();
}
