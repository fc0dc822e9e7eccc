/* Groups through the MPI interface: the group of MPI_COMM_WORLD and
 * MPI_COMM_SELF, size/rank, incl/excl/range forms at odd sizes,
 * translate_ranks between communicator groups, set operations including
 * empty results, compare, MPI_GROUP_EMPTY, freeing, and the error classes of
 * bad ranks, duplicates, bad ranges and invalid groups. */
#include "mtest.h"

int main(int argc, char **argv)
{
    MPI_Group world, self, g, h, u;
    int rank, size, r, s, res, err, *ranks, *out;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ranks = malloc(sizeof(int) * (size + 1));
    out = malloc(sizeof(int) * (size + 1));

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(world, &s);
    MPI_Group_rank(world, &r);
    CHECK(s == size && r == rank, "world group %d %d", s, r);
    MPI_Comm_group(MPI_COMM_SELF, &self);
    MPI_Group_size(self, &s);
    MPI_Group_rank(self, &r);
    CHECK(s == 1 && r == 0, "self group %d %d", s, r);
    MPI_Group_translate_ranks(self, 1, &r, world, &s);
    CHECK(s == rank, "self -> world %d", s);

    /* reverse order through incl */
    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    MPI_Group_incl(world, size, ranks, &g);
    MPI_Group_rank(g, &r);
    CHECK(r == size - 1 - rank, "reversed rank %d", r);
    MPI_Group_compare(g, world, &res);
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed vs world %d", res);
    MPI_Group_translate_ranks(world, size, ranks, g, out);
    for (int i = 0; i < size; i++)
        CHECK(out[i] == i, "translate %d -> %d", ranks[i], out[i]);
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL, "free did not reset the handle");

    /* range_incl of the odd ranks, range_excl of the same is the evens */
    {
        int rr[1][3] = {{1, size - 1, 2}};
        if (size > 1) {
            MPI_Group_range_incl(world, 1, rr, &g);
            MPI_Group_range_excl(world, 1, rr, &h);
            MPI_Group_size(g, &s);
            CHECK(s == size / 2, "odds size %d", s);
            MPI_Group_size(h, &s);
            CHECK(s == (size + 1) / 2, "evens size %d", s);
            MPI_Group_rank(rank % 2 ? g : h, &r);
            CHECK(r == rank / 2, "rank in my half %d", r);
            MPI_Group_rank(rank % 2 ? h : g, &r);
            CHECK(r == MPI_UNDEFINED, "rank in the other half %d", r);
            MPI_Group_union(h, g, &u);
            MPI_Group_compare(u, world, &res);
            CHECK(res == (size > 2 ? MPI_SIMILAR : MPI_IDENT), "evens+odds vs world %d", res);
            MPI_Group_free(&u);
            MPI_Group_intersection(h, g, &u);
            CHECK(u == MPI_GROUP_EMPTY, "evens & odds is not empty");
            MPI_Group_free(&u);
            MPI_Group_difference(world, g, &u);
            MPI_Group_compare(u, h, &res);
            CHECK(res == MPI_IDENT, "world - odds vs evens %d", res);
            MPI_Group_free(&u);
            MPI_Group_free(&g);
            MPI_Group_free(&h);
        }
    }
    /* the empty group */
    MPI_Group_size(MPI_GROUP_EMPTY, &s);
    MPI_Group_rank(MPI_GROUP_EMPTY, &r);
    CHECK(s == 0 && r == MPI_UNDEFINED, "empty group %d %d", s, r);
    MPI_Group_excl(world, size, (int *)out /* 0..size-1 from above */, &g);
    CHECK(g == MPI_GROUP_EMPTY, "excluding everyone is not MPI_GROUP_EMPTY");
    MPI_Group_free(&g);
    ranks[0] = 0;
    MPI_Group_translate_ranks(world, 1, ranks, MPI_GROUP_EMPTY, out);
    CHECK(out[0] == MPI_UNDEFINED, "translate into the empty group %d", out[0]);
    /* MPI_PROC_NULL translates to itself */
    ranks[0] = MPI_PROC_NULL;
    MPI_Group_translate_ranks(world, 1, ranks, self, out);
    CHECK(out[0] == MPI_PROC_NULL, "MPI_PROC_NULL -> %d", out[0]);

    /* comm groups are shared: two calls give one handle, two references */
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Group_compare(g, world, &res);
    CHECK(res == MPI_IDENT, "second world group %d", res);
    MPI_Group_free(&g);
    MPI_Group_size(world, &s); /* still valid */

    /* errors */
    ranks[0] = size;
    err = MPI_Group_incl(world, 1, ranks, &g);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "incl rank out of range: class %d",
          mtest_error_class(err));
    ranks[0] = ranks[1] = 0;
    if (size > 1) {
        err = MPI_Group_incl(world, 2, ranks, &g);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK, "incl duplicate: class %d",
              mtest_error_class(err));
    }
    err = MPI_Group_excl(world, -1, ranks, &g);
    CHECK(mtest_error_class(err) == MPI_ERR_ARG, "excl n=-1: class %d", mtest_error_class(err));
    {
        int rr[1][3] = {{0, 0, 0}};
        err = MPI_Group_range_incl(world, 1, rr, &g);
        CHECK(mtest_error_class(err) == MPI_ERR_ARG, "stride 0: class %d", mtest_error_class(err));
        rr[0][1] = size;
        rr[0][2] = 1;
        err = MPI_Group_range_excl(world, 1, rr, &g);
        CHECK(mtest_error_class(err) == MPI_ERR_RANK, "range past the end: class %d",
              mtest_error_class(err));
    }
    ranks[0] = -5;
    err = MPI_Group_translate_ranks(world, 1, ranks, self, out);
    CHECK(mtest_error_class(err) == MPI_ERR_RANK, "translate -5: class %d", mtest_error_class(err));
    err = MPI_Group_size(MPI_GROUP_NULL, &s);
    CHECK(mtest_error_class(err) == MPI_ERR_GROUP, "MPI_GROUP_NULL: class %d",
          mtest_error_class(err));
    h = self;
    MPI_Group_free(&self);
    err = MPI_Group_free(&h);
    CHECK(mtest_error_class(err) == MPI_ERR_GROUP, "double free: class %d", mtest_error_class(err));
    err = MPI_Comm_group(MPI_COMM_NULL, &g);
    CHECK(mtest_error_class(err) == MPI_ERR_COMM, "group of MPI_COMM_NULL: class %d",
          mtest_error_class(err));
    MPI_Group_free(&world);
    free(ranks);
    free(out);
    return mtest_finish();
}
