/* MPI_Init and the environment queries: version strings, thread level,
 * processor name, clocks, rank and size. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, rank, size, len, v, sv, main_thread;
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    double t0, t1;

    MPI_Initialized(&flag);
    if (flag != 0) {
        fprintf(stderr, "MPI_Initialized before MPI_Init gave %d\n", flag);
        return 1;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Initialized(&flag);
    CHECK(flag == 1, "initialized=%d", flag);
    CHECK(provided >= MPI_THREAD_FUNNELED, "provided=%d", provided);
    MPI_Query_thread(&v);
    CHECK(v == provided, "query_thread=%d provided=%d", v, provided);
    MPI_Is_thread_main(&main_thread);
    CHECK(main_thread == 1, "is_thread_main=%d", main_thread);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank >= 0 && rank < size, "rank %d size %d", rank, size);
    MPI_Comm_rank(MPI_COMM_SELF, &v);
    CHECK(v == 0, "self rank %d", v);
    MPI_Comm_size(MPI_COMM_SELF, &v);
    CHECK(v == 1, "self size %d", v);
    MPI_Get_version(&v, &sv);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);
    MPI_Get_library_version(lib, &len);
    CHECK(strncmp(lib, "MPICH Version:", 14) == 0, "library version starts \"%.20s\"", lib);
    CHECK(strstr(lib, "Canal") != NULL, "library version does not name Canal");
    CHECK((int)strlen(lib) == len, "len %d", len);
    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && (int)strlen(name) == len, "processor name \"%s\" len %d", name, len);
    t0 = MPI_Wtime();
    t1 = MPI_Wtime();
    CHECK(t1 >= t0, "Wtime went back");
    CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 1, "Wtick %g", MPI_Wtick());
    MPI_Finalized(&flag);
    CHECK(flag == 0, "finalized before finalize");
    v = mtest_finish();
    MPI_Finalized(&flag);
    if (!flag)
        return 1;
    return v;
}
