/* MPI_Comm_split_type(MPI_COMM_TYPE_HW_UNGUIDED) as a program uses it to
 * learn the hardware level it was split by: with a communicator back, the
 * level's name is in the info object the caller passed (key
 * "mpi_hw_resource_type", as MPICH writes it and MPICH's test suite reads it,
 * comm/cmsplit_type) and in the new communicator's info; naming that level to
 * MPI_COMM_TYPE_HW_GUIDED gives the same group. The caller's other keys stay,
 * MPI_INFO_NULL and the read-only MPI_INFO_ENV are accepted, and a split that
 * gives MPI_COMM_NULL writes nothing. Run bound (-bind-to core: each rank on
 * one CPU, so a level below the node splits the job) and unbound. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mtest.h"

#include <sched.h>
#include <string.h>

/* The key's value in info ("" when absent); returns whether it is there. */
static int info_value(MPI_Info info, const char *key, char *v)
{
    int flag = 0;
    v[0] = '\0';
    OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag));
    return flag;
}

int main(int argc, char **argv)
{
    MPI_Comm c = MPI_COMM_NULL, g = MPI_COMM_NULL;
    MPI_Info info, used, ginfo;
    char level[MPI_MAX_INFO_VAL], v[MPI_MAX_INFO_VAL];
    int rank, size, s, res, mine[2], *all, expect_split = 0;
    cpu_set_t set;

    mtest_init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;

    /* bound apart: every rank on one CPU and not all on the same one */
    sched_getaffinity(0, sizeof set, &set);
    mine[0] = CPU_COUNT(&set);
    mine[1] = -1;
    for (int i = 0; i < CPU_SETSIZE && mine[1] < 0; i++)
        if (CPU_ISSET(i, &set))
            mine[1] = i;
    all = malloc(sizeof mine * (size_t)size);
    OK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
    expect_split = size > 1;
    for (int r = 0; r < size; r++)
        expect_split &= all[2 * r] == 1;
    if (expect_split) {
        int differ = 0;
        for (int r = 1; r < size; r++)
            differ |= all[2 * r + 1] != all[1];
        expect_split = differ;
    }
    free(all);

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "user_key", "kept"));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, info, &c));
    CHECK(!expect_split || c != MPI_COMM_NULL,
          "ranks bound to different CPUs: HW_UNGUIDED gave MPI_COMM_NULL");
    CHECK(info_value(info, "user_key", v) && strcmp(v, "kept") == 0,
          "the caller's own key is gone or changed: \"%s\"", v);
    if (c != MPI_COMM_NULL) {
        OK(MPI_Comm_size(c, &s));
        CHECK(s < size, "HW_UNGUIDED: size %d, not a proper part of %d", s, size);
        CHECK(info_value(info, "mpi_hw_resource_type", level) && level[0] != '\0',
              "HW_UNGUIDED gave a communicator but no mpi_hw_resource_type in the caller's info");
        OK(MPI_Comm_get_info(c, &used));
        CHECK(info_value(used, "mpi_hw_resource_type", v) && strcmp(v, level) == 0,
              "the new communicator's info says \"%s\", the caller's \"%s\"", v, level);
        OK(MPI_Info_free(&used));
        if (level[0] != '\0') {
            /* the level named is the one the split used */
            OK(MPI_Info_create(&ginfo));
            OK(MPI_Info_set(ginfo, "mpi_hw_resource_type", level));
            OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, ginfo, &g));
            CHECK(g != MPI_COMM_NULL, "HW_GUIDED at \"%s\" gave MPI_COMM_NULL", level);
            if (g != MPI_COMM_NULL) {
                OK(MPI_Comm_compare(c, g, &res));
                CHECK(res == MPI_CONGRUENT, "HW_GUIDED at \"%s\" gave another group (%d)", level,
                      res);
                OK(MPI_Comm_free(&g));
            }
            OK(MPI_Info_free(&ginfo));
        }
        OK(MPI_Comm_free(&c));
    } else {
        CHECK(!info_value(info, "mpi_hw_resource_type", v),
              "MPI_COMM_NULL, yet the caller's info got mpi_hw_resource_type=\"%s\"", v);
    }
    OK(MPI_Info_free(&info));

    /* no info object to write to: the split alone */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &c));
    CHECK(!expect_split || c != MPI_COMM_NULL, "HW_UNGUIDED with MPI_INFO_NULL gave MPI_COMM_NULL");
    if (c != MPI_COMM_NULL)
        OK(MPI_Comm_free(&c));
    /* MPI_INFO_ENV is read-only: the split succeeds and leaves it as it was */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_ENV, &c));
    CHECK(!expect_split || c != MPI_COMM_NULL, "HW_UNGUIDED with MPI_INFO_ENV gave MPI_COMM_NULL");
    CHECK(!info_value(MPI_INFO_ENV, "mpi_hw_resource_type", v),
          "MPI_INFO_ENV got mpi_hw_resource_type=\"%s\"", v);
    if (c != MPI_COMM_NULL)
        OK(MPI_Comm_free(&c));

    return mtest_finish();
}
