/* Intercommunicators: MPI_Intercomm_create (leaders other than rank 0 too),
 * MPI_Intercomm_create_from_groups, point to point across, queries (test_inter,
 * remote size and group, compare), dup, split and create on an
 * intercommunicator, and MPI_Intercomm_merge with both orders of `high`.
 * Needs at least 2 processes. Point to point only. */
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

/* Every process sends its world rank to remote rank (local rank % remote
 * size) and receives from every remote rank that maps to it. */
static void across(MPI_Comm inter, int tag, const char *what)
{
    int lr, ls, rs, n = 0, got;
    MPI_Request req;
    MPI_Status st;
    MPI_Group rg, w;

    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &ls);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Isend(&rank, 1, MPI_INT, lr % rs, tag, inter, &req);
    for (int i = 0; i < rs; i++)
        if (i % ls == lr)
            n++;
    for (int i = 0; i < n; i++) {
        int wr;
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st);
        MPI_Group_translate_ranks(rg, 1, &st.MPI_SOURCE, w, &wr);
        CHECK(wr == got, "%s: message from remote rank %d (world %d) says %d", what, st.MPI_SOURCE,
              wr, got);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Group_free(&rg);
    MPI_Group_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter, dup, c, merged;
    MPI_Group world, evens, odds, g;
    int color, flag, ls, rs, r, s, res;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf(" No Errors\n");
        MPI_Finalize();
        return 0;
    }
    color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Comm_size(local, &ls);
    /* world rank 0 leads the evens, world rank 1 the odds */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    MPI_Comm_size(inter, &s);
    MPI_Comm_remote_size(inter, &rs);
    CHECK(s == ls && rs == (color ? (size + 1) / 2 : size / 2), "sizes %d %d", s, rs);
    MPI_Comm_rank(inter, &r);
    CHECK(r == rank / 2, "rank %d", r);
    across(inter, 1, "intercomm");

    /* queries */
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    {
        int rr[1][3] = {{0, size - 1 - (size - 1) % 2, 2}};
        MPI_Group_range_incl(world, 1, rr, &evens);
        MPI_Group_difference(world, evens, &odds);
    }
    MPI_Comm_remote_group(inter, &g);
    MPI_Group_compare(g, color ? evens : odds, &res);
    CHECK(res == MPI_IDENT, "remote group: %d", res);
    MPI_Group_free(&g);

    /* dup */
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_compare(inter, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare with dup: %d", res);
    MPI_Comm_test_inter(dup, &flag);
    CHECK(flag, "dup of an intercommunicator is not one");
    across(dup, 2, "dup");
    MPI_Comm_compare(inter, local, &res);
    CHECK(res == MPI_UNEQUAL, "inter vs intra: %d", res);

    /* split: colour by local rank parity; a colour missing on one side
     * gives MPI_COMM_NULL */
    MPI_Comm_split(inter, r % 2, -r, &c);
    {
        int rsize = color ? (size + 1) / 2 : size / 2, mine = 0;
        for (int i = r % 2; i < rsize; i += 2)
            mine++;
        if (mine == 0) {
            CHECK(c == MPI_COMM_NULL, "split: no remote partner but got a communicator");
        } else {
            MPI_Comm_remote_size(c, &rs);
            CHECK(rs == mine, "split: remote size %d expected %d", rs, mine);
            across(c, 3, "split");
            MPI_Comm_free(&c);
        }
    }
    /* MPI_UNDEFINED on one side only for rank 0 */
    MPI_Comm_split(inter, r == 0 ? MPI_UNDEFINED : 0, 0, &c);
    if (r == 0)
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    else if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);

    /* create: each side keeps its local group's first rank only */
    {
        MPI_Group lg, first;
        int zero = 0;
        MPI_Comm_group(inter, &lg);
        MPI_Group_incl(lg, 1, &zero, &first);
        MPI_Comm_create(inter, first, &c);
        if (r == 0) {
            MPI_Comm_remote_size(c, &rs);
            CHECK(rs == 1, "create: remote size %d", rs);
            across(c, 4, "create");
            MPI_Comm_free(&c);
        } else {
            CHECK(c == MPI_COMM_NULL, "create: non-member got a communicator");
        }
        MPI_Group_free(&first);
        MPI_Group_free(&lg);
    }

    /* merge: odds (high) after evens */
    MPI_Intercomm_merge(inter, color, &merged);
    MPI_Comm_rank(merged, &r);
    MPI_Comm_size(merged, &s);
    CHECK(s == size, "merged size %d", s);
    CHECK(r == (color ? (size + 1) / 2 + rank / 2 : rank / 2), "merged rank %d", r);
    MPI_Comm_test_inter(merged, &flag);
    CHECK(!flag, "merged is an intercommunicator");
    ring(merged, 5, "merge");
    MPI_Comm_free(&merged);
    /* reverse */
    MPI_Intercomm_merge(inter, !color, &merged);
    MPI_Comm_rank(merged, &r);
    CHECK(r == (color ? rank / 2 : size / 2 + rank / 2), "merged (reversed) rank %d", r);
    ring(merged, 6, "merge reversed");
    MPI_Comm_free(&merged);
    /* same `high` on both sides: some order, the same everywhere */
    MPI_Intercomm_merge(inter, 1, &merged);
    ring(merged, 7, "merge same high");
    MPI_Comm_free(&merged);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);

    /* leaders other than rank 0, through a dup of world as the peer */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    {
        int last_even = size - 1 - (size - 1) % 2, last_odd = size - 1 - size % 2;
        MPI_Intercomm_create(local, ls - 1, dup, color ? last_even : last_odd, 9, &inter);
        across(inter, 8, "last leaders");
        MPI_Intercomm_merge(inter, 0, &merged);
        ring(merged, 9, "merge last leaders");
        MPI_Comm_free(&merged);
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&dup);

    /* from groups */
    MPI_Intercomm_create_from_groups(color ? odds : evens, 0, color ? evens : odds, 0,
                                     "org.canal.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                     &inter);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "from_groups: not an intercommunicator");
    across(inter, 10, "from groups");
    MPI_Comm_free(&inter);

    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
    MPI_Comm_free(&local);
    return mtest_finish();
}
