/*
 * MPI_T: init before MPI_Init (reference counted), every registry row as a
 * control variable (read, write before MPI_Init, SET_NEVER after),
 * categories covering every variable, the bool enum, performance-variable
 * sessions and handles with start/stop/read/reset and their error returns,
 * no events, and NOT_INITIALIZED after the last MPI_T_finalize.
 */
#include "mtest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, n, err, idx, count, ncat, total, rank;
    int errs_before = 0;
    MPI_T_cvar_handle ch;
    char name[256], desc[512];
    int name_len, desc_len, verb, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum en;

    /* before MPI_Init; twice (reference counted) */
    err = MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided);
    if (err != MPI_SUCCESS || provided != MPI_THREAD_MULTIPLE) errs_before++;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) errs_before++;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS || n <= 0) errs_before++;
    /* write a cvar before MPI_Init: takes effect at MPI_Init */
    if (MPI_T_cvar_get_index("CANAL_COLL_KNOMIAL_RADIX", &idx) != MPI_SUCCESS) errs_before++;
    else {
        int v = 4, back = 0;
        if (MPI_T_cvar_handle_alloc(idx, NULL, &ch, &count) != MPI_SUCCESS || count != 1) errs_before++;
        if (MPI_T_cvar_write(ch, &v) != MPI_SUCCESS) errs_before++;
        if (MPI_T_cvar_read(ch, &back) != MPI_SUCCESS || back != 4) errs_before++;
        if (getenv("CANAL_COLL_KNOMIAL_RADIX") == NULL) errs_before++;
        MPI_T_cvar_handle_free(&ch);
        if (ch != MPI_T_CVAR_HANDLE_NULL) errs_before++;
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(errs_before == 0, "%d errors before MPI_Init", errs_before);

    /* every cvar has info, a handle, and can be read */
    for (int i = 0; i < n; i++) {
        char buf[256];
        name_len = sizeof name;
        desc_len = sizeof desc;
        err = MPI_T_cvar_get_info(i, name, &name_len, &verb, &dt, &en, desc, &desc_len, &bind,
                                  &scope);
        CHECK(err == MPI_SUCCESS, "cvar_get_info(%d) = %d", i, err);
        CHECK(strncmp(name, "CANAL_", 6) == 0, "cvar %d name %s", i, name);
        CHECK(name_len == (int)strlen(name) + 1, "name_len %d for %s", name_len, name);
        err = MPI_T_cvar_get_index(name, &idx);
        CHECK(err == MPI_SUCCESS && idx == i, "get_index(%s) = %d, %d", name, err, idx);
        err = MPI_T_cvar_handle_alloc(i, NULL, &ch, &count);
        CHECK(err == MPI_SUCCESS, "handle_alloc(%d) = %d", i, err);
        if (dt == MPI_CHAR)
            CHECK(count >= 1 && count <= (int)sizeof buf, "count %d", count);
        err = MPI_T_cvar_read(ch, buf);
        CHECK(err == MPI_SUCCESS, "read %s = %d", name, err);
        /* nothing changes after MPI_Init, and the scope says so */
        CHECK(scope == MPI_T_SCOPE_READONLY, "scope of %s after MPI_Init is %d", name, scope);
        err = MPI_T_cvar_write(ch, buf);
        CHECK(err == MPI_T_ERR_CVAR_SET_NEVER, "write %s after MPI_Init = %d", name, err);
        if (en != MPI_T_ENUM_NULL) {
            int num, val;
            char ename[64];
            int elen = sizeof ename;
            CHECK(MPI_T_enum_get_info(en, &num, ename, &elen) == MPI_SUCCESS && num == 2, "enum");
            elen = sizeof ename;
            CHECK(MPI_T_enum_get_item(en, 1, &val, ename, &elen) == MPI_SUCCESS && val == 1 &&
                      strcmp(ename, "true") == 0, "enum item");
            CHECK(MPI_T_enum_get_item(en, 2, &val, ename, &elen) == MPI_T_ERR_INVALID_ITEM,
                  "enum item 2");
        }
        MPI_T_cvar_handle_free(&ch);
    }
    /* the written value was seen at MPI_Init */
    {
        int v = 0;
        MPI_T_cvar_get_index("COLL_KNOMIAL_RADIX", &idx);
        MPI_T_cvar_handle_alloc(idx, NULL, &ch, &count);
        MPI_T_cvar_read(ch, &v);
        CHECK(v == 4, "COLL_KNOMIAL_RADIX reads %d", v);
        MPI_T_cvar_handle_free(&ch);
    }
    /* short buffer: truncated with the full length reported */
    name_len = 4;
    CHECK(MPI_T_cvar_get_info(0, name, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_SUCCESS && strlen(name) == 3 && name_len > 4, "truncation: %s %d", name, name_len);
    /* errors */
    CHECK(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "cvar index n");
    CHECK(MPI_T_cvar_get_index("NO_SUCH_VARIABLE", &idx) == MPI_T_ERR_INVALID_NAME, "bad name");
    CHECK(MPI_T_cvar_handle_alloc(-1, NULL, &ch, &count) == MPI_T_ERR_INVALID_INDEX, "alloc -1");
    CHECK(MPI_T_cvar_read((MPI_T_cvar_handle)&n, &n) == MPI_T_ERR_INVALID_HANDLE, "bad handle");

    /* categories cover every variable once */
    CHECK(MPI_T_category_get_num(&ncat) == MPI_SUCCESS && ncat > 0, "categories");
    total = 0;
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub, ci, *ind;
        name_len = sizeof name;
        desc_len = sizeof desc;
        err = MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nsub);
        CHECK(err == MPI_SUCCESS, "category_get_info(%d) = %d", c, err);
        CHECK(MPI_T_category_get_index(name, &ci) == MPI_SUCCESS && ci == c, "cat index %s", name);
        total += nc;
        ind = malloc(sizeof(int) * (size_t)(nc + np + nsub + 1));
        CHECK(MPI_T_category_get_cvars(c, nc, ind) == MPI_SUCCESS, "get_cvars");
        for (int k = 0; k < nc; k++)
            CHECK(ind[k] >= 0 && ind[k] < n, "cvar index %d", ind[k]);
        CHECK(MPI_T_category_get_pvars(c, np, ind) == MPI_SUCCESS, "get_pvars");
        CHECK(MPI_T_category_get_categories(c, nsub, ind) == MPI_SUCCESS, "get_categories");
        CHECK(MPI_T_category_get_num_events(c, &nc) == MPI_SUCCESS && nc == 0, "events");
        free(ind);
    }
    CHECK(total == n, "categories hold %d cvars of %d", total, n);
    CHECK(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "cat index");
    CHECK(MPI_T_category_get_index("nope", &idx) == MPI_T_ERR_INVALID_NAME, "cat name");
    CHECK(MPI_T_category_changed(&idx) == MPI_SUCCESS, "changed");

    /* performance variables */
    {
        int np, pi, cls, ro, cont, atomic;
        MPI_T_pvar_session ps;
        MPI_T_pvar_handle h, hl;
        unsigned long long v;
        CHECK(MPI_T_pvar_get_num(&np) == MPI_SUCCESS && np > 0, "pvars %d", np);
        for (int i = 0; i < np; i++) {
            name_len = sizeof name;
            desc_len = sizeof desc;
            err = MPI_T_pvar_get_info(i, name, &name_len, &verb, &cls, &dt, &en, desc, &desc_len,
                                      &bind, &ro, &cont, &atomic);
            CHECK(err == MPI_SUCCESS, "pvar_get_info(%d)", i);
            CHECK(MPI_T_pvar_get_index(name, cls, &pi) == MPI_SUCCESS && pi == i, "pvar index %s",
                  name);
            if (rank == 0 && argc > 1)
                printf("pvar %s: %s\n", name, desc);
        }
        CHECK(MPI_T_pvar_get_index("canal_part_starts", MPI_T_PVAR_CLASS_LEVEL, &pi) ==
                  MPI_T_ERR_INVALID_NAME, "wrong class");
        CHECK(MPI_T_pvar_session_create(&ps) == MPI_SUCCESS, "session");
        MPI_T_pvar_get_index("canal_part_starts", MPI_T_PVAR_CLASS_COUNTER, &pi);
        CHECK(MPI_T_pvar_handle_alloc(ps, pi, NULL, &h, &count) == MPI_SUCCESS && count == 1,
              "handle");
        MPI_T_pvar_get_index("canal_sessions", MPI_T_PVAR_CLASS_LEVEL, &pi);
        CHECK(MPI_T_pvar_handle_alloc(ps, pi, NULL, &hl, &count) == MPI_SUCCESS, "handle level");
        CHECK(MPI_T_pvar_read(ps, h, &v) == MPI_SUCCESS && v == 0, "not started: %llu", v);
        CHECK(MPI_T_pvar_start(ps, h) == MPI_SUCCESS, "start");
        {
            MPI_Request r;
            int buf[4] = {0};
            MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
            MPI_Start(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Start(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Request_free(&r);
        }
        CHECK(MPI_T_pvar_read(ps, h, &v) == MPI_SUCCESS && v == 2, "two starts: %llu", v);
        CHECK(MPI_T_pvar_stop(ps, h) == MPI_SUCCESS, "stop");
        CHECK(MPI_T_pvar_readreset(ps, h, &v) == MPI_SUCCESS && v == 2, "readreset %llu", v);
        CHECK(MPI_T_pvar_read(ps, h, &v) == MPI_SUCCESS && v == 0, "after reset %llu", v);
        v = 7;
        CHECK(MPI_T_pvar_write(ps, h, &v) == MPI_SUCCESS, "write");
        CHECK(MPI_T_pvar_read(ps, h, &v) == MPI_SUCCESS && v == 7, "written %llu", v);
        CHECK(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all");
        CHECK(MPI_T_pvar_stop(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "stop all");
        CHECK(MPI_T_pvar_start(ps, hl) == MPI_T_ERR_PVAR_NO_STARTSTOP, "continuous start");
        CHECK(MPI_T_pvar_reset(ps, hl) == MPI_T_ERR_PVAR_NO_WRITE, "readonly reset");
        CHECK(MPI_T_pvar_write(ps, hl, &v) == MPI_T_ERR_PVAR_NO_WRITE, "readonly write");
        CHECK(MPI_T_pvar_read(ps, hl, &v) == MPI_SUCCESS && v == 0, "sessions %llu", v);
        CHECK(MPI_T_pvar_read(ps, MPI_T_PVAR_ALL_HANDLES, &v) == MPI_T_ERR_INVALID_HANDLE, "all");
        CHECK(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h, &v) == MPI_T_ERR_INVALID_SESSION, "ses");
        CHECK(MPI_T_pvar_handle_alloc(ps, np, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX, "idx");
        CHECK(MPI_T_pvar_handle_free(ps, &h) == MPI_SUCCESS && h == MPI_T_PVAR_HANDLE_NULL, "free");
        CHECK(MPI_T_pvar_session_free(&ps) == MPI_SUCCESS && ps == MPI_T_PVAR_SESSION_NULL, "sfree");
    }

    /* events and sources */
    {
        MPI_Count ts1 = 0, ts2 = 0;
        CHECK(MPI_T_event_get_num(&n) == MPI_SUCCESS && n == 0, "events %d", n);
        CHECK(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                   NULL) == MPI_T_ERR_INVALID_INDEX, "event info");
        CHECK(MPI_T_event_get_index("x", &idx) == MPI_T_ERR_INVALID_NAME, "event name");
        CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
              "event alloc");
        CHECK(MPI_T_source_get_num(&n) == MPI_SUCCESS && n == 1, "sources");
        MPI_T_source_get_timestamp(0, &ts1);
        MPI_T_source_get_timestamp(0, &ts2);
        CHECK(ts2 >= ts1 && ts1 > 0, "timestamps");
    }

    CHECK(MPI_T_finalize() == MPI_SUCCESS, "finalize 1");
    CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS, "still initialized");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "finalize 2");
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "not initialized");
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED, "finalize 3");
    return mtest_finish();
}
