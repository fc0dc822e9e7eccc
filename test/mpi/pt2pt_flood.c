/* Many unexpected messages: every rank floods rank 0 with small nonblocking
 * sends before rank 0 posts a single receive. With a small
 * CANAL_UNEXPECTED_LIMIT the senders run out of eager credit and switch to
 * rendezvous; every message must still arrive, in order, intact. */
#include "mtest.h"

enum { N = 3000 };

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0) {
        int *vals = malloc(sizeof(int) * N * 4);
        MPI_Request *rq = malloc(sizeof(MPI_Request) * N);
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < 4; k++)
                vals[4 * i + k] = rank * 100000 + i;
            MPI_Isend(&vals[4 * i], 4, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[i]);
        }
        /* tell rank 0 we are done sending (it has not received anything yet) */
        MPI_Send(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
        free(vals);
        free(rq);
    } else {
        int *next = calloc((size_t)size, sizeof(int)), buf[4];
        MPI_Status st;
        for (int r = 1; r < size; r++)
            MPI_Recv(&token, 1, MPI_INT, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N * (size - 1); i++) {
            MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE;
            CHECK(buf[0] == src * 100000 + next[src] && buf[3] == buf[0],
                  "from %d got %d expected %d", src, buf[0], src * 100000 + next[src]);
            next[src]++;
        }
        free(next);
    }
    return mtest_finish();
}
