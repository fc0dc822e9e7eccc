/* MPI_Comm_split (colours, keys, MPI_UNDEFINED, equal keys), split of a
 * split, MPI_Comm_split_type (shared memory, hardware levels, unknown
 * types), and communication inside the pieces. Point to point only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mtest.h"

#include <sched.h>

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

/* The world ranks of comm's members, through group translation. */
static void world_ranks(MPI_Comm comm, int *out)
{
    MPI_Group g, w;
    int n, *in;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(g, &n);
    in = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, w, out);
    free(in);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Comm c, c2;
    MPI_Info info;
    int r, s, res, wr[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* colour rank % 3, key decreasing: ranks come out reversed */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &c);
    MPI_Comm_size(c, &s);
    MPI_Comm_rank(c, &r);
    {
        int expect = 0, myrank = 0;
        for (int i = rank % 3; i < size; i += 3)
            expect++;
        for (int i = rank + 3; i < size; i += 3)
            myrank++;
        CHECK(s == expect && r == myrank, "split size %d rank %d, expected %d %d", s, r, expect,
              myrank);
        world_ranks(c, wr);
        for (int i = 0; i < s; i++)
            CHECK(wr[i] % 3 == rank % 3 && (i == 0 || wr[i] < wr[i - 1]),
                  "member %d is world rank %d", i, wr[i]);
    }
    ring(c, 1, "split");
    MPI_Comm_compare(c, MPI_COMM_WORLD, &res);
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare %d", res);

    /* split of a split: equal keys keep the parent's order */
    MPI_Comm_split(c, 0, 7, &c2);
    MPI_Comm_compare(c, c2, &res);
    CHECK(res == MPI_CONGRUENT, "same-key split of everything: %d", res);
    MPI_Comm_free(&c2);
    MPI_Comm_split(c, 0, r % 2, &c2); /* evens first, then odds: similar */
    MPI_Comm_compare(c, c2, &res);
    CHECK(res == (s > 2 ? MPI_SIMILAR : MPI_CONGRUENT), "reordering split: %d (size %d)", res, s);
    ring(c2, 2, "split of split");
    MPI_Comm_free(&c2);
    MPI_Comm_free(&c);

    /* MPI_UNDEFINED: no communicator */
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &c);
    if (rank == 0) {
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    } else {
        MPI_Comm_size(c, &s);
        CHECK(s == size - 1, "size %d", s);
        ring(c, 3, "without rank 0");
        MPI_Comm_free(&c);
    }
    /* everyone undefined */
    MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c);
    CHECK(c == MPI_COMM_NULL, "all MPI_UNDEFINED gave a communicator");
    /* one process each */
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &c);
    MPI_Comm_size(c, &s);
    CHECK(s == 1, "singleton split size %d", s);
    MPI_Comm_compare(c, MPI_COMM_SELF, &res);
    CHECK(res == MPI_CONGRUENT, "singleton vs self %d", res);
    MPI_Comm_free(&c);
    /* split of MPI_COMM_SELF */
    MPI_Comm_split(MPI_COMM_SELF, 5, 0, &c);
    ring(c, 4, "split of self");
    MPI_Comm_free(&c);

    /* split_type: all ranks of this test run on one node */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &c);
    MPI_Comm_size(c, &s);
    CHECK(s == size, "shared: size %d of %d", s, size);
    ring(c, 5, "shared");
    MPI_Comm_free(&c);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, rank, MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL, "split_type MPI_UNDEFINED gave a communicator");
    MPI_Comm_split_type(MPI_COMM_WORLD, 12345, rank, MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL, "unknown split_type gave a communicator");
    /* MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD: who shares a directory (all, here);
     * no hint or mismatched hints give MPI_COMM_NULL everywhere */
    MPI_Info_create(&info);
    MPI_Info_set(info, "nbhd_common_dirname", "/tmp");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, rank, info, &c);
    CHECK(c != MPI_COMM_NULL, "neighborhood of /tmp gave MPI_COMM_NULL");
    if (c != MPI_COMM_NULL) {
        MPI_Comm_size(c, &s);
        CHECK(s == size, "neighborhood of /tmp: size %d of %d", s, size);
        ring(c, 6, "neighborhood");
        MPI_Comm_free(&c);
    }
    MPI_Info_set(info, "nbhd_common_dirname", rank == 0 ? "/tmp" : "/");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, rank, info, &c);
    CHECK(size == 1 || c == MPI_COMM_NULL, "mismatched neighborhood hints gave a communicator");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    MPI_Info_free(&info);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, rank, MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL, "neighborhood without a hint gave a communicator");
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c);
    CHECK(c != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
    if (c != MPI_COMM_NULL) {
        MPI_Info used;
        char v[MPI_MAX_INFO_VAL];
        int flag;
        MPI_Comm_get_info(c, &used);
        MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK(flag && strcmp(v, "mpi_shared_memory") == 0, "resource type not recorded");
        MPI_Info_free(&used);
        ring(c, 6, "hw guided");
        MPI_Comm_free(&c);
    }
    MPI_Info_set(info, "mpi_hw_resource_type", "no-such-level");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c);
    CHECK(c == MPI_COMM_NULL, "unknown hardware level gave a communicator");
    MPI_Info_free(&info);
    /* one node: no level strictly below the parent is known -> MPI_COMM_NULL */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &c);
    /* unbound processes on one node: nothing smaller than the node holds them */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "PU");
    {
        cpu_set_t all, one;
        int cpus[CPU_SETSIZE], ncpu = 0;
        sched_getaffinity(0, sizeof all, &all);
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &all))
                cpus[ncpu++] = i;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c);
        CHECK(ncpu == 1 ? c != MPI_COMM_NULL : c == MPI_COMM_NULL,
              "PU level while bound to %d CPUs: got %s", ncpu,
              c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
        if (c != MPI_COMM_NULL)
            MPI_Comm_free(&c);
        /* bound: rank r runs on the (r mod ncpu)-th CPU */
        CPU_ZERO(&one);
        CPU_SET(cpus[rank % ncpu], &one);
        if (sched_setaffinity(0, sizeof one, &one) == 0) {
            int expect = 0;
            for (int i = rank % ncpu; i < size; i += ncpu)
                expect++;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c);
            CHECK(c != MPI_COMM_NULL, "PU level when bound gave MPI_COMM_NULL");
            if (c != MPI_COMM_NULL) {
                MPI_Comm_size(c, &s);
                CHECK(s == expect, "PU split: size %d, expected %d", s, expect);
                ring(c, 7, "pu");
                MPI_Comm_free(&c);
            }
            /* unguided: some level below the node splits bound processes
             * when they run on different CPUs */
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &c);
            if (ncpu > 1 && size > 1) {
                CHECK(c != MPI_COMM_NULL, "HW_UNGUIDED with bound processes gave MPI_COMM_NULL");
                if (c != MPI_COMM_NULL) {
                    MPI_Comm_size(c, &s);
                    CHECK(s < size && s >= expect, "unguided: size %d of %d", s, size);
                    ring(c, 8, "unguided");
                    MPI_Comm_free(&c);
                }
            } else if (c != MPI_COMM_NULL) {
                MPI_Comm_free(&c);
            }
            sched_setaffinity(0, sizeof all, &all);
        }
    }
    MPI_Info_free(&info);

    return mtest_finish();
}
