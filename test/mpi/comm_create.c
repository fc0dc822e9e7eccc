/* MPI_Comm_create (one group, disjoint groups, the empty group),
 * MPI_Comm_create_group (only the members call it; two groups at once with
 * different tags), MPI_Comm_create_from_group, and MPI_Comm_group of the
 * results. Point to point only. */
#include "mtest.h"

static int rank, size;

static void ring(MPI_Comm comm, int tag, const char *what)
{
    int r, s, got = -1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &s);
    MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % s, tag, &got, 1, MPI_INT, (r + s - 1) % s, tag, comm,
                 MPI_STATUS_IGNORE);
    CHECK(got == (r + s - 1) % s, "%s: ring got %d", what, got);
}

int main(int argc, char **argv)
{
    MPI_Group world, evens, odds, g;
    MPI_Comm c;
    int range[1][3], r, s, res;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    range[0][0] = 0;
    range[0][1] = size - 1 - (size - 1) % 2;
    range[0][2] = 2;
    MPI_Group_range_incl(world, 1, range, &evens);
    MPI_Group_difference(world, evens, &odds);

    /* one group for all */
    MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
    if (rank % 2 == 0) {
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &s);
        CHECK(r == rank / 2 && s == (size + 1) / 2, "evens: rank %d size %d", r, s);
        MPI_Comm_group(c, &g);
        MPI_Group_compare(g, evens, &res);
        CHECK(res == MPI_IDENT, "group of the new communicator: %d", res);
        MPI_Group_free(&g);
        ring(c, 1, "evens");
        MPI_Comm_free(&c);
    } else {
        CHECK(c == MPI_COMM_NULL, "odd rank got a communicator");
    }

    /* disjoint groups, one per process set (MPI 2.2) */
    MPI_Comm_create(MPI_COMM_WORLD, rank % 2 ? odds : evens, &c);
    MPI_Comm_size(c, &s);
    CHECK(s == (rank % 2 ? size / 2 : (size + 1) / 2), "disjoint: size %d", s);
    ring(c, 2, "disjoint");
    MPI_Comm_free(&c);

    /* the empty group */
    MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c);
    CHECK(c == MPI_COMM_NULL, "empty group gave a communicator");

    /* create_group: only members call; evens and odds at the same time */
    MPI_Comm_create_group(MPI_COMM_WORLD, rank % 2 ? odds : evens, rank % 2 ? 11 : 10, &c);
    MPI_Comm_size(c, &s);
    CHECK(s == (rank % 2 ? size / 2 : (size + 1) / 2), "create_group: size %d", s);
    ring(c, 3, "create_group");
    /* nested: a create_group over the new communicator, ranks reversed */
    {
        MPI_Group cg, rev;
        MPI_Comm c2;
        int rr[1][3];
        MPI_Comm_group(c, &cg);
        rr[0][0] = s - 1;
        rr[0][1] = 0;
        rr[0][2] = -1;
        MPI_Group_range_incl(cg, 1, rr, &rev);
        MPI_Comm_create_group(c, rev, 0, &c2);
        MPI_Comm_rank(c2, &r);
        MPI_Comm_rank(c, &s);
        MPI_Comm_size(c2, &res);
        CHECK(r == res - 1 - s, "reversed create_group: rank %d", r);
        ring(c2, 4, "reversed");
        MPI_Comm_free(&c2);
        MPI_Group_free(&rev);
        MPI_Group_free(&cg);
    }
    MPI_Comm_free(&c);
    /* a process outside the group gets MPI_COMM_NULL */
    MPI_Comm_create_group(MPI_COMM_SELF, MPI_GROUP_EMPTY, 0, &c);
    CHECK(c == MPI_COMM_NULL, "create_group with the empty group");

    /* back-to-back create_group calls with one tag over different random
     * subsets, no synchronisation between them: a member still in call j
     * must not take a message of call j+1 (MPICH's comm/comm_group_rand) */
    for (int j = 0; j < 50; j++) {
        int ranks[64], n = 0, in = 0;
        MPI_Group sub;
        unsigned x = 2654435761u * (unsigned)(j + 1);
        for (int i = 0; i < size && i < 64; i++) {
            x = x * 1103515245u + 12345u;
            if ((x >> 16) & 1) {
                ranks[n++] = i;
                in |= i == rank;
            }
        }
        MPI_Group_incl(world, n, ranks, &sub);
        if (in) {
            MPI_Comm_create_group(MPI_COMM_WORLD, sub, 0, &c);
            CHECK(c != MPI_COMM_NULL, "random create_group %d gave MPI_COMM_NULL", j);
            MPI_Barrier(c);
            MPI_Comm_free(&c);
        }
        MPI_Group_free(&sub);
    }

    /* sessions-style constructor, from a group of the world model */
    MPI_Comm_create_from_group(world, "org.canal.test.world", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Comm_compare(c, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_CONGRUENT, "create_from_group(world): %d", res);
    {
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(c, &eh);
        CHECK(eh == MPI_ERRORS_RETURN, "errhandler not attached");
        MPI_Errhandler_free(&eh);
    }
    ring(c, 5, "from group");
    MPI_Comm_free(&c);

    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
    return mtest_finish();
}
