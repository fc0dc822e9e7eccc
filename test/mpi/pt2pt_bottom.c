/*
 * Sends and receives from MPI_BOTTOM (absolute addresses in the datatype,
 * MPI 4.0 section 5.1.12) at eager and rendezvous sizes: one block
 * (MPI_Type_create_hindexed of one absolute address: contiguous, pulled by
 * CMA on shm) and two blocks (packed). On 9572f8b a rendezvous send from
 * MPI_BOTTOM was taken for a send dropped by an abandoned collective (its
 * buffer pointer, MPI_BOTTOM, is NULL): the receive failed with "rank N
 * dropped the message it had announced". Both directions: rank 0 sends from
 * MPI_BOTTOM to a plain receive, rank 1 sends plainly to a receive into
 * MPI_BOTTOM. 2 ranks or more (the others idle).
 */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static MPI_Datatype absolute(char *a, int na, char *b, int nb)
{
    MPI_Datatype t;
    MPI_Aint disp[2];
    int len[2] = {na, nb};
    MPI_Get_address(a, &disp[0]);
    MPI_Get_address(b, &disp[1]);
    MPI_Type_create_hindexed(b != NULL ? 2 : 1, len, disp, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 4096, 16384, 16385, 65536, 300000, 1 << 20};
    mtest_init(&argc, &argv);
    if (mtest_size < 2) {
        mtest_skipped("needs 2 ranks");
        return mtest_finish();
    }
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        for (int pieces = 1; pieces <= 2; pieces++) {
            char *x = malloc((size_t)n), *y = malloc((size_t)n);
            int na = pieces == 1 ? n : n / 3, nb = n - na;
            MPI_Datatype t = absolute(x, na, pieces == 1 ? NULL : y, nb);
            char *flat = malloc((size_t)n);
            if (mtest_rank == 0) {
                for (int i = 0; i < na; i++)
                    x[i] = (char)(i * 7 + n);
                for (int i = 0; i < nb && pieces == 2; i++)
                    y[i] = (char)(i * 5 + 3);
                OK(MPI_Send(MPI_BOTTOM, 1, t, 1, k, MPI_COMM_WORLD));
                /* and back, into MPI_BOTTOM: bytes 0..na-1 land in x, the
                 * rest (two pieces) in y */
                memset(x, 0, (size_t)na);
                if (pieces == 2)
                    memset(y, 0, (size_t)nb);
                OK(MPI_Recv(MPI_BOTTOM, 1, t, 1, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int i = 0; i < n; i++) {
                    char got = i < na ? x[i] : y[i - na];
                    if (got != (char)(i + 1)) {
                        CHECK(0, "%d bytes in %d pieces into MPI_BOTTOM: byte %d is %d, want %d",
                              n, pieces, i, got, (char)(i + 1));
                        break;
                    }
                }
            } else if (mtest_rank == 1) {
                OK(MPI_Recv(flat, n, MPI_BYTE, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int i = 0; i < n; i++) {
                    char want = i < na ? (char)(i * 7 + n) : (char)((i - na) * 5 + 3);
                    if (flat[i] != want) {
                        CHECK(0, "%d bytes in %d pieces from MPI_BOTTOM: byte %d is %d, want %d",
                              n, pieces, i, flat[i], want);
                        break;
                    }
                }
                for (int i = 0; i < n; i++)
                    flat[i] = (char)(i + 1);
                OK(MPI_Send(flat, n, MPI_BYTE, 0, k, MPI_COMM_WORLD));
            }
            MPI_Type_free(&t);
            free(x);
            free(y);
            free(flat);
        }
    }
    return mtest_finish();
}
