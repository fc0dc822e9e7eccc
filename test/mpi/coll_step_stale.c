/* A communicator left out of step, freed, and the next one on the same
 * context ids: its first collectives must work. Each round dups
 * MPI_COMM_WORLD, makes the node's shared block (barriers), then a bcast
 * whose root's size goes through the block and the receivers' by messages
 * (or the other way round): the ranks fail it (MPI_ERR_OTHER or
 * MPI_ERR_TRUNCATE, the communicator out of step; a rank whose call on the
 * block meets the other call sends the others a note saying so), then a
 * barrier that may fail too, and the free. The next round's dup reuses the
 * ids: a note of the old communicator taken there marked the new one out
 * of step on that rank alone, whose barrier then failed at once while the
 * others waited in it for ever (coll_shm_bcast's "cross", 3 ranks, hung in
 * about 1 run of 10). Arguments: rounds (default 40). */
#include "mtest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int rounds;
    char *buf;
    mtest_init(&argc, &argv);
    rounds = argc > 1 ? atoi(argv[1]) : 40;
    buf = calloc(1, 100000);
    for (int r = 0; r < rounds; r++) {
        MPI_Comm c;
        int big = r % 2 == 0, rc, cls = MPI_SUCCESS;
        int mine = (mtest_rank == 0) == big ? 100000 : 1000;
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        for (int i = 0; i < 3; i++)
            CHECK(MPI_Barrier(c) == MPI_SUCCESS, "round %d: barrier %d on a fresh communicator "
                  "failed", r, i);
        rc = MPI_Bcast(buf, mine, MPI_BYTE, 0, c);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE,
              "round %d: the crossed bcast: class %d", r, cls);
        MPI_Barrier(c); /* (may fail: out of step) */
        MPI_Comm_free(&c);
    }
    free(buf);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
