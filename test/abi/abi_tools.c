/*
 * abi_tools.c -- the tool interface's value sets through the standard ABI:
 * the verbosity, binding, scope and class of every control and performance
 * variable, the ordering of every time source are the standard header's
 * constants, and a performance variable's class from MPI_T_pvar_get_info
 * finds it again with MPI_T_pvar_get_index.
 */
#include <mpi.h>

#include "abi_util.h"

static int is_verbosity(int v)
{
    return v == MPI_T_VERBOSITY_USER_BASIC || v == MPI_T_VERBOSITY_USER_DETAIL ||
           v == MPI_T_VERBOSITY_USER_ALL || v == MPI_T_VERBOSITY_TUNER_BASIC ||
           v == MPI_T_VERBOSITY_TUNER_DETAIL || v == MPI_T_VERBOSITY_TUNER_ALL ||
           v == MPI_T_VERBOSITY_MPIDEV_BASIC || v == MPI_T_VERBOSITY_MPIDEV_DETAIL ||
           v == MPI_T_VERBOSITY_MPIDEV_ALL;
}

static int is_bind(int b)
{
    return b == MPI_T_BIND_NO_OBJECT || b == MPI_T_BIND_MPI_COMM || b == MPI_T_BIND_MPI_DATATYPE ||
           b == MPI_T_BIND_MPI_ERRHANDLER || b == MPI_T_BIND_MPI_FILE || b == MPI_T_BIND_MPI_GROUP ||
           b == MPI_T_BIND_MPI_OP || b == MPI_T_BIND_MPI_REQUEST || b == MPI_T_BIND_MPI_WIN ||
           b == MPI_T_BIND_MPI_MESSAGE || b == MPI_T_BIND_MPI_INFO || b == MPI_T_BIND_MPI_SESSION;
}

static int is_scope(int s)
{
    return s == MPI_T_SCOPE_CONSTANT || s == MPI_T_SCOPE_READONLY || s == MPI_T_SCOPE_LOCAL ||
           s == MPI_T_SCOPE_GROUP || s == MPI_T_SCOPE_GROUP_EQ || s == MPI_T_SCOPE_ALL ||
           s == MPI_T_SCOPE_ALL_EQ;
}

static int is_class(int c)
{
    return c == MPI_T_PVAR_CLASS_STATE || c == MPI_T_PVAR_CLASS_LEVEL || c == MPI_T_PVAR_CLASS_SIZE ||
           c == MPI_T_PVAR_CLASS_PERCENTAGE || c == MPI_T_PVAR_CLASS_HIGHWATERMARK ||
           c == MPI_T_PVAR_CLASS_LOWWATERMARK || c == MPI_T_PVAR_CLASS_COUNTER ||
           c == MPI_T_PVAR_CLASS_AGGREGATE || c == MPI_T_PVAR_CLASS_TIMER ||
           c == MPI_T_PVAR_CLASS_GENERIC;
}

int main(int argc, char **argv)
{
    int provided, n = 0, verbosity, bind, scope, var_class, readonly, continuous, atomic, idx;
    char name[256], desc[1024];
    int name_len, desc_len;
    MPI_Datatype dt;
    MPI_T_enum et;

    MPI_Init(&argc, &argv);
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);

    CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n > 0);
    for (int i = 0; i < n; i++) {
        name_len = sizeof name, desc_len = sizeof desc;
        CHECK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len, &bind,
                                  &scope) == MPI_SUCCESS);
        CHECK(is_verbosity(verbosity));
        CHECK(is_bind(bind));
        CHECK(is_scope(scope));
    }

    n = 0;
    CHECK(MPI_T_pvar_get_num(&n) == MPI_SUCCESS && n > 0);
    for (int i = 0; i < n; i++) {
        name_len = sizeof name, desc_len = sizeof desc;
        CHECK(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dt, &et, desc,
                                  &desc_len, &bind, &readonly, &continuous, &atomic) == MPI_SUCCESS);
        CHECK(is_verbosity(verbosity));
        CHECK(is_class(var_class));
        CHECK(is_bind(bind));
        CHECK(MPI_T_pvar_get_index(name, var_class, &idx) == MPI_SUCCESS && idx == i);
    }

    n = 0;
    CHECK(MPI_T_source_get_num(&n) == MPI_SUCCESS && n > 0);
    for (int i = 0; i < n; i++) {
        MPI_T_source_order ordering = (MPI_T_source_order)-1;
        MPI_Count ticks, max_ticks;
        MPI_Info info = MPI_INFO_NULL;
        name_len = sizeof name, desc_len = sizeof desc;
        CHECK(MPI_T_source_get_info(i, name, &name_len, desc, &desc_len, &ordering, &ticks,
                                    &max_ticks, &info) == MPI_SUCCESS);
        CHECK(ordering == MPI_T_SOURCE_ORDERED || ordering == MPI_T_SOURCE_UNORDERED);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }

    MPI_T_finalize();
    return abi_finish();
}
