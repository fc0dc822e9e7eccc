/*
 * MPI_Comm_spawn hands argv to the children exactly, as mpi4py's spawn tests
 * rely on: empty strings, blanks (alone, leading, trailing, inside), quotes,
 * '=' and ';', a tab and non-ASCII bytes. The parent job (any size, also a
 * singleton started without mpiexec: MPI_Comm_spawn then starts Canal's
 * mpiexec for it) spawns N copies of this program (N = argv[1], default 2);
 * each child checks its arguments and reports to parent rank 0, which answers
 * every child (one message each way, child first). The children's verdicts
 * reach the parent, so a child's failure fails the test. argv[2] (default 1)
 * is how many times the parent spawns in turn (a singleton's later spawns
 * reuse the mpiexec its first one started). argv[3] "nl" adds an argument
 * with a newline (PMI-2 and PMIx carry it; PMI-1 cannot, and refuses it).
 */
#include <limits.h>
#include <stdlib.h>

#include "mtest.h"

/* the arguments every child gets; slot 12 takes the newline one ("nl") */
static char *kid_args[] = {
    "",  " ",           "two words", "  lead",       "trail  ", "a=b;c", ";",
    "=", "\"dq\" 'sq'", "tab\there", "h\xc3\xa9llo", "",        NULL,    NULL,
};
static const char newline_arg[] = "line\nbreak";

/* One spawn of nkids children, one message each way with each, disconnect.
 * Returns 0, or -1 when the spawn failed (reported). */
static int spawn_round(const char *self, int nkids, int rank)
{
    int *codes = malloc(sizeof *codes * (size_t)nkids), err, bad = 0, nargs = 0;
    MPI_Comm inter;

    for (int i = 0; i < nkids; i++)
        codes[i] = -1;
    err = MPI_Comm_spawn(self, (char **)kid_args, nkids, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                         codes);
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, msg, &len);
        CHECK(0, "MPI_Comm_spawn failed: %s", msg);
        free(codes);
        return -1;
    }
    for (int i = 0; i < nkids; i++)
        CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
    free(codes);
    while (kid_args[nargs] != NULL)
        nargs++;
    if (rank == 0) {
        for (int c = 0; c < nkids; c++) {
            int verdict[3] = {-1, -1, -1}, reply;
            MPI_Status st;
            MPI_Recv(verdict, 3, MPI_INT, MPI_ANY_SOURCE, 1, inter, &st);
            CHECK(verdict[0] == st.MPI_SOURCE, "child %d says it is %d", st.MPI_SOURCE, verdict[0]);
            CHECK(verdict[2] == nargs + 1, "child %d has argc %d, want %d", st.MPI_SOURCE,
                  verdict[2], nargs + 1);
            bad += verdict[1];
            reply = 1000 + st.MPI_SOURCE;
            MPI_Send(&reply, 1, MPI_INT, st.MPI_SOURCE, 2, inter);
        }
        CHECK(bad == 0, "the children found %d wrong arguments", bad);
    }
    MPI_Comm_disconnect(&inter);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        int nkids = argc > 1 ? atoi(argv[1]) : 2, rounds = argc > 2 ? atoi(argv[2]) : 1;
        char self[PATH_MAX];

        if (realpath(argv[0], self) == NULL)
            snprintf(self, sizeof self, "%s", argv[0]);
        if (argc > 3 && strcmp(argv[3], "nl") == 0)
            kid_args[12] = (char *)newline_arg;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        for (int round = 0; round < rounds; round++)
            if (spawn_round(self, nkids, rank) != 0)
                break;
    } else {
        int nargs = 0, verdict[3], reply = -1;
        /* the parent checks argc: whether it passed the newline argument */
        if (argc == 14)
            kid_args[12] = (char *)newline_arg;
        while (kid_args[nargs] != NULL)
            nargs++;
        CHECK(argc == nargs + 1, "argc %d, want %d", argc, nargs + 1);
        for (int a = 0; a < nargs && a + 1 < argc; a++)
            CHECK(strcmp(argv[a + 1], kid_args[a]) == 0, "argv[%d] is [%s], want [%s]", a + 1,
                  argv[a + 1], kid_args[a]);
        verdict[0] = rank;
        verdict[1] = mtest_errors;
        verdict[2] = argc;
        MPI_Send(verdict, 3, MPI_INT, 0, 1, parent);
        MPI_Recv(&reply, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE);
        CHECK(reply == 1000 + rank, "parent answered %d", reply);
        MPI_Comm_disconnect(&parent);
        /* the parent prints the verdict: a child's "No Errors" would be misleading */
        MPI_Finalize();
        return mtest_errors != 0;
    }
    return mtest_finish();
}
