/* Context ids run out cleanly: communicators are created until the library
 * says "too many communicators" (MPI_ERR_OTHER, at the same call on every
 * process), nothing breaks on the way, and after freeing them all the same
 * number can be created again. Point to point only in the first part.
 * Second part: dup, split and create in turn until the limit, whose message
 * must name the number of context ids; then free every other one and go on
 * creating -- the freed ids are reused and the new communicators work
 * (an allreduce on each). */
#include "mtest.h"

enum { MAXC = 20000 };

int main(int argc, char **argv)
{
    static MPI_Comm comms[MAXC];
    char msg[MPI_MAX_ERROR_STRING];
    int rank, size, n = 0, n2 = 0, err = MPI_SUCCESS, len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    while (n < MAXC && (err = MPI_Comm_dup(MPI_COMM_WORLD, &comms[n])) == MPI_SUCCESS)
        n++;
    CHECK(n < MAXC, "no limit reached after %d communicators", n);
    CHECK(n >= 1000, "only %d communicators before the limit", n);
    CHECK(mtest_error_class(err) == MPI_ERR_OTHER, "class %d", mtest_error_class(err));
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "too many communicators") != NULL, "message \"%s\"", msg);
    /* every process stopped at the same count */
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            int other;
            MPI_Recv(&other, 1, MPI_INT, i, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(other == n, "rank %d stopped at %d, rank 0 at %d", i, other, n);
        }
    } else {
        MPI_Send(&n, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    /* the last one works */
    if (n > 0) {
        int r, got = -1;
        MPI_Comm_rank(comms[n - 1], &r);
        MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % size, 0, &got, 1, MPI_INT, (r + size - 1) % size, 0,
                     comms[n - 1], MPI_STATUS_IGNORE);
        CHECK(got == (r + size - 1) % size, "last communicator: got %d", got);
    }
    /* a split also needs an id: it fails the same way */
    {
        MPI_Comm c;
        err = MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &c);
        CHECK(mtest_error_class(err) == MPI_ERR_OTHER, "split at the limit: class %d",
              mtest_error_class(err));
    }
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&comms[i]);
    while (n2 < MAXC && MPI_Comm_dup(MPI_COMM_WORLD, &comms[n2]) == MPI_SUCCESS)
        n2++;
    CHECK(n2 == n, "second round: %d communicators, first round %d", n2, n);
    for (int i = 0; i < n2; i++)
        MPI_Comm_free(&comms[i]);

    /* part 2: a mix of constructors */
    {
        MPI_Group wg;
        int m = 0, again = 0, freed = 0;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (err = MPI_SUCCESS; m < MAXC && err == MPI_SUCCESS;) {
            switch (m % 3) {
            case 0: err = MPI_Comm_dup(MPI_COMM_WORLD, &comms[m]); break;
            case 1: err = MPI_Comm_split(MPI_COMM_WORLD, 1, size - rank, &comms[m]); break;
            default: err = MPI_Comm_create(MPI_COMM_WORLD, wg, &comms[m]); break;
            }
            if (err == MPI_SUCCESS)
                m++;
        }
        CHECK(m == n, "mixed constructors: %d communicators, dup alone %d", m, n);
        CHECK(mtest_error_class(err) == MPI_ERR_OTHER, "mixed: class %d", mtest_error_class(err));
        MPI_Error_string(err, msg, &len);
        CHECK(strstr(msg, "context ids") != NULL && strstr(msg, "too many communicators"),
              "message does not name the limit: \"%s\"", msg);
        if (rank == 0)
            printf("at the limit: %s\n", msg);
        for (int i = 0; i < m; i += 2, freed++)
            MPI_Comm_free(&comms[i]);
        /* as many as were freed can be made again, and they work */
        for (int i = 0; i < m; i += 2) {
            int sum = -1, want = size * (size - 1) / 2, r;
            err = i % 4 == 0 ? MPI_Comm_dup(MPI_COMM_WORLD, &comms[i])
                             : MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &comms[i]);
            if (err != MPI_SUCCESS)
                break;
            again++;
            MPI_Comm_rank(comms[i], &r);
            MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, comms[i]);
            if (sum != want) {
                CHECK(sum == want, "allreduce on re-made communicator %d: %d, expected %d", i,
                      sum, want);
                break;
            }
        }
        CHECK(again == freed, "after freeing %d communicators only %d could be made", freed,
              again);
        for (int i = 0; i < m; i++)
            if (comms[i] != MPI_COMM_NULL)
                MPI_Comm_free(&comms[i]);
        MPI_Group_free(&wg);
    }
    return mtest_finish();
}
