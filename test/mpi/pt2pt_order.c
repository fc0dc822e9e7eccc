/* Non-overtaking: messages between a pair with the same tag arrive in the
 * order sent, whatever mix of eager and rendezvous sizes, and receives
 * posted with MPI_ANY_SOURCE see each sender's messages in order. */
#include "mtest.h"

int main(int argc, char **argv)
{
    enum { M = 40 };
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int *last = calloc((size_t)size, sizeof(int));
        int *buf = malloc(sizeof(int) * 200000);
        for (int got = 0; got < M * (size - 1); got++) {
            MPI_Status st;
            MPI_Recv(buf, 200000, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            CHECK(buf[0] == last[st.MPI_SOURCE], "from %d got seq %d expected %d", st.MPI_SOURCE,
                  buf[0], last[st.MPI_SOURCE]);
            last[st.MPI_SOURCE] = buf[0] + 1;
        }
        free(last);
        free(buf);
    } else {
        int *buf = calloc(200000, sizeof(int));
        MPI_Request rq[M];
        for (int i = 0; i < M; i++) {
            int n = (i % 3 == 0) ? 150000 : (i % 3 == 1 ? 1 : 3000);
            int *b = malloc(sizeof(int) * (size_t)n);
            b[0] = i;
            MPI_Send(b, n, MPI_INT, 0, 1, MPI_COMM_WORLD);
            free(b);
        }
        (void)rq;
        free(buf);
    }
    return mtest_finish();
}
