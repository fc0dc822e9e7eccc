/* MPI_Comm_dup, dup_with_info, idup, compare, names, hints, free: the new
 * communicator works for point to point and does not see the parent's
 * messages; many communicators created and freed in a loop reuse their
 * context ids. Uses point to point only. */
#include "mtest.h"

static int rank, size;

/* Each rank sends its rank to the next on comm; checks what arrives. */
static void ring(MPI_Comm comm, int tag, const char *what)
{
    int r, s, got = -1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &s);
    MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % s, tag, &got, 1, MPI_INT, (r + s - 1) % s, tag, comm,
                 MPI_STATUS_IGNORE);
    CHECK(got == (r + s - 1) % s, "%s: ring got %d from %d", what, got, (r + s - 1) % s);
}

int main(int argc, char **argv)
{
    MPI_Comm dup, dup2, c;
    MPI_Request req;
    MPI_Info info, used;
    char name[MPI_MAX_OBJECT_NAME], val[MPI_MAX_INFO_VAL];
    int res, len, flag, r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(dup, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_CONGRUENT, "dup vs world: %d", res);
    MPI_Comm_compare(dup, dup, &res);
    CHECK(res == MPI_IDENT, "dup vs dup: %d", res);
    MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res);
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "self vs world: %d", res);
    MPI_Comm_rank(dup, &r);
    CHECK(r == rank, "rank in dup %d", r);
    MPI_Comm_test_inter(dup, &flag);
    CHECK(!flag, "dup is an intercommunicator");

    /* a message on world is not received on dup, whatever the order */
    if (size > 1) {
        int a = 1, b = 2, x = 0, y = 0;
        if (rank == 0) {
            MPI_Send(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Send(&b, 1, MPI_INT, 1, 5, dup);
        } else if (rank == 1) {
            MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(x == 1 && y == 2, "isolation: world got %d, dup got %d", x, y);
        }
    }
    ring(dup, 1, "dup");

    /* names */
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name \"%s\"", name);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name \"%s\"", name);
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len == 0 && name[0] == '\0', "a new communicator has no name, got \"%s\"", name);
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "name \"%s\"", name);

    /* hints: a known one is kept, an unknown one ignored (MPI 4.0) */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(info, "canal_no_such_hint", "42");
    MPI_Comm_dup_with_info(dup, info, &dup2);
    MPI_Comm_get_info(dup2, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag && strcmp(val, "true") == 0, "mpi_assert_no_any_tag: flag %d \"%s\"", flag,
          flag ? val : "");
    MPI_Info_get(used, "canal_no_such_hint", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(!flag, "an unknown hint came back");
    MPI_Info_get(used, "mpi_assert_exact_length", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag && strcmp(val, "false") == 0, "default of mpi_assert_exact_length");
    MPI_Info_free(&used);
    ring(dup2, 2, "dup_with_info");
    /* plain dup does not pass the assertions on (MPI 4.0; as MPICH 4.0.2,
     * whose impls/mpich/comm/comm_dup checks it): the copy may go to code
     * that uses MPI_ANY_TAG */
    MPI_Comm_dup(dup2, &c);
    MPI_Comm_get_info(c, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(!flag || strcmp(val, "true") != 0, "dup copied mpi_assert_no_any_tag=true");
    MPI_Info_free(&used);
    MPI_Comm_free(&c);
    /* set_info */
    MPI_Info_set(info, "mpi_assert_no_any_tag", "false");
    MPI_Comm_set_info(dup2, info);
    MPI_Comm_get_info(dup2, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag && strcmp(val, "false") == 0, "set_info did not change the hint");
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    MPI_Comm_free(&dup2);
    CHECK(dup2 == MPI_COMM_NULL, "free did not null the handle");

    /* idup: a valid request */
    MPI_Comm_idup(dup, &c, &req);
    CHECK(req != MPI_REQUEST_NULL, "idup gave MPI_REQUEST_NULL");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL, "wait did not free the idup request");
    ring(c, 3, "idup");
    MPI_Comm_free(&c);
    MPI_Comm_idup_with_info(MPI_COMM_SELF, MPI_INFO_NULL, &c, &req);
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "idup request not complete");
    MPI_Comm_size(c, &r);
    CHECK(r == 1, "idup of self has size %d", r);
    MPI_Comm_free(&c);

    /* idup makes progress without its caller: rank 0 waits in receives of
     * synchronous sends that the others start only after their idup, then
     * idups itself (MPICH's comm/comm_idup pattern; a blocking agreement
     * inside MPI_Comm_idup deadlocks here) */
    {
        MPI_Comm nc;
        int v = rank, sum = 0;
        if (rank == 0) {
            for (int i = 1; i < size; i++)
                MPI_Recv(&r, 1, MPI_INT, i, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Comm_idup(MPI_COMM_WORLD, &nc, &req);
        } else {
            MPI_Comm_idup(MPI_COMM_WORLD, &nc, &req);
            MPI_Ssend(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, nc);
        CHECK(sum == size * (size - 1) / 2, "allreduce over the idup'd communicator: %d", sum);
        MPI_Comm_free(&nc);
    }
    /* several idups in flight at once, the parent freed before they complete */
    {
        MPI_Comm par, nc[3];
        MPI_Request rq[3];
        MPI_Comm_dup(MPI_COMM_WORLD, &par);
        for (int i = 0; i < 3; i++)
            MPI_Comm_idup(par, &nc[i], &rq[i]);
        MPI_Comm_free(&par);
        MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 3; i++) {
            MPI_Comm_compare(nc[i], MPI_COMM_WORLD, &r);
            CHECK(r == MPI_CONGRUENT, "idup %d compares %d to the world", i, r);
            ring(nc[i], 5 + i, "overlapping idup");
        }
        for (int i = 0; i < 3; i++)
            MPI_Comm_free(&nc[i]);
    }
    /* blocking dups while an idup is pending on some ranks only: even ranks
     * start the idup first, odd ranks after their dups, so the members of
     * each blocking agreement differ in whether a progress hook may take
     * context ids meanwhile (they must still run the same rounds) */
    {
        MPI_Comm par, nc, d[4];
        MPI_Request rq;
        MPI_Comm_dup(MPI_COMM_WORLD, &par);
        if (rank % 2 == 0)
            MPI_Comm_idup(par, &nc, &rq);
        for (int i = 0; i < 4; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &d[i]);
        if (rank % 2 == 1)
            MPI_Comm_idup(par, &nc, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        ring(nc, 9, "idup beside dups");
        for (int i = 0; i < 4; i++) {
            ring(d[i], 10 + i, "dup beside an idup");
            MPI_Comm_free(&d[i]);
        }
        MPI_Comm_free(&nc);
        MPI_Comm_free(&par);
    }

    /* a communicator freed with a receive still posted: a new communicator
     * must not share its context ids while that receive waits (it would take
     * the new communicator's message) */
    if (size > 1) {
        MPI_Comm a, b;
        MPI_Request old = MPI_REQUEST_NULL;
        int got = -1, v = 111, flag = 1;
        MPI_Comm_dup(MPI_COMM_WORLD, &a);
        if (rank == 0)
            MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, a, &old);
        MPI_Comm_free(&a);
        MPI_Comm_dup(MPI_COMM_WORLD, &b);
        if (rank == 1)
            MPI_Send(&v, 1, MPI_INT, 0, 5, b);
        if (rank == 0) {
            int in = -1;
            MPI_Recv(&in, 1, MPI_INT, 1, 5, b, MPI_STATUS_IGNORE);
            CHECK(in == 111, "message on the new communicator: %d", in);
            MPI_Test(&old, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag && got == -1, "the freed communicator's receive took a message (%d)", got);
            MPI_Cancel(&old);
            MPI_Wait(&old, MPI_STATUS_IGNORE);
        }
        MPI_Comm_free(&b);
    }

    /* many communicators, created and freed: context ids are reused */
    for (int i = 0; i < 3000; i++) {
        MPI_Comm_dup(i % 2 ? dup : MPI_COMM_WORLD, &c);
        if (i % 500 == 0)
            ring(c, 4, "loop dup");
        MPI_Comm_free(&c);
    }
    /* nested dups, freed in the other order */
    {
        MPI_Comm chain[20];
        chain[0] = dup;
        for (int i = 1; i < 20; i++)
            MPI_Comm_dup(chain[i - 1], &chain[i]);
        ring(chain[19], 6, "chain");
        for (int i = 1; i < 20; i++)
            MPI_Comm_free(&chain[i]);
    }
    MPI_Comm_free(&dup);
    return mtest_finish();
}
