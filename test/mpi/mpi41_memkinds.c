/* What a program asked for at launch (MPI 4.1 sections 11.4.3 and 11.8):
 * memory allocation kinds (mpiexec -memory-alloc-kinds, the spawn info key
 * mpi_memory_alloc_kinds, MPI_Session_init's info) and the initial error
 * handler (mpiexec -initial-errhandler, the spawn key
 * mpi_initial_errhandler).
 *   argv[1]  the value MPI_COMM_WORLD's info must report
 *   argv[2]  MPI_INFO_ENV's value, or "-" when the key must be absent
 *   argv[3]  MPI_COMM_WORLD's handler at MPI_Init: "fatal" or "return"
 *   argv[4]  "spawn": also spawn 2 children with both keys and check what
 *            they see (and that a bad mpi_initial_errhandler is refused)
 * Every object derived from MPI_COMM_WORLD reports its kinds; creation
 * info narrows them to what Canal supports (system, mpi:alloc_mem,
 * mpi:win_allocate, mpi:win_allocate_shared), a session reports its own. */
#include "mtest.h"

#include <unistd.h>

static const char key[] = "mpi_memory_alloc_kinds";

static void expect_kinds(MPI_Info info, const char *expect, const char *what)
{
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
    if (expect == NULL)
        CHECK(!flag, "%s: key present (\"%s\") but nothing was requested", what, v);
    else
        CHECK(flag && strcmp(v, expect) == 0, "%s: \"%s\" (flag %d), expected \"%s\"", what, v,
              flag, expect);
}

static void comm_kinds(MPI_Comm c, const char *expect, const char *what)
{
    MPI_Info info;
    OK(MPI_Comm_get_info(c, &info));
    expect_kinds(info, expect, what);
    MPI_Info_free(&info);
}

static void child(MPI_Comm parent)
{
    char v[MPI_MAX_INFO_VAL + 1] = "";
    MPI_Errhandler eh;
    MPI_Info info;
    int flag = 0, ok;

    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    OK(MPI_Comm_get_info(MPI_COMM_WORLD, &info));
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    MPI_Info_free(&info);
    ok = eh == MPI_ERRORS_RETURN && flag && strcmp(v, "mpi,system,mpi:alloc_mem") == 0;
    if (!ok)
        fprintf(stderr, "child: handler %s, kinds \"%s\"\n",
                eh == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "not MPI_ERRORS_RETURN", v);
    MPI_Send(&ok, 1, MPI_INT, 0, 9, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
}

static void spawn_check(const char *prog)
{
    MPI_Info info;
    MPI_Comm inter;
    int errs[2], ok, rc;

    MPI_Info_create(&info);
    MPI_Info_set(info, key, "mpi:alloc_mem,level_zero:device");
    MPI_Info_set(info, "mpi_initial_errhandler", "mpi_errors_return");
    OK(MPI_Comm_spawn(prog, MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &inter, errs));
    for (int r = 0; r < 2; r++) {
        OK(MPI_Recv(&ok, 1, MPI_INT, r, 9, inter, MPI_STATUS_IGNORE));
        CHECK(ok, "child %d did not get the spawn info keys", r);
    }
    OK(MPI_Comm_disconnect(&inter));
    /* A handler name the standard does not know is an error of the spawn. */
    MPI_Info_set(info, "mpi_initial_errhandler", "mpi_errors_whatever");
    rc = MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, errs);
    EXPECT_CLASS(rc, MPI_ERR_INFO_VALUE, "MPI_Comm_spawn with a bad mpi_initial_errhandler");
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    const char *world = argc > 1 ? argv[1] : "mpi,system";
    const char *env = argc > 2 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
    int want_return = argc > 3 && strcmp(argv[3], "return") == 0;
    MPI_Errhandler eh;
    MPI_Comm parent, dup, dupi, split, scomm;
    MPI_Info in, sinfo;
    MPI_Session session;
    MPI_Group sgroup;
    MPI_Win win;
    MPI_File fh;
    char fname[64];
    int *mem, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent);
        return 0;
    }
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == (want_return ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL),
          "MPI_COMM_WORLD's initial handler is %#x", (unsigned)eh);
    if (want_return) { /* it returns: an error here must not end the job */
        int x = 0;
        rc = MPI_Send(&x, 1, MPI_INT, 1 << 20, 0, MPI_COMM_WORLD);
        EXPECT_CLASS(rc, MPI_ERR_RANK, "MPI_Send to a bad rank under the initial handler");
        MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
        CHECK(eh == MPI_ERRORS_RETURN, "MPI_COMM_SELF's initial handler is %#x", (unsigned)eh);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    expect_kinds(MPI_INFO_ENV, env, "MPI_INFO_ENV");
    comm_kinds(MPI_COMM_WORLD, world, "MPI_COMM_WORLD");
    comm_kinds(MPI_COMM_SELF, world, "MPI_COMM_SELF");
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    comm_kinds(dup, world, "MPI_Comm_dup");
    OK(MPI_Comm_split(dup, mtest_rank % 2, 0, &split));
    comm_kinds(split, world, "MPI_Comm_split of the dup");

    /* Creation info narrows; unsupported kinds and restrictors are dropped. */
    MPI_Info_create(&in);
    MPI_Info_set(in, key, "mpi:win_allocate,cuda:device,system,mpi:bogus,mpi:win_allocate");
    OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &dupi));
    comm_kinds(dupi, "mpi,system,mpi:win_allocate", "MPI_Comm_dup_with_info");
    /* MPI_Comm_set_info cannot change them */
    OK(MPI_Comm_set_info(dup, in));
    comm_kinds(dup, world, "MPI_Comm_set_info");

    OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, dupi, &mem, &win));
    OK(MPI_Win_get_info(win, &sinfo));
    expect_kinds(sinfo, "mpi,system,mpi:win_allocate", "window of the dup_with_info");
    MPI_Info_free(&sinfo);
    OK(MPI_Win_free(&win));
    MPI_Info_set(in, key, "mpi:win_allocate_shared");
    OK(MPI_Win_allocate(sizeof(int), sizeof(int), in, MPI_COMM_WORLD, &mem, &win));
    OK(MPI_Win_get_info(win, &sinfo));
    expect_kinds(sinfo, "mpi,system,mpi:win_allocate_shared", "window with info");
    MPI_Info_free(&sinfo);
    OK(MPI_Win_free(&win));

    snprintf(fname, sizeof fname, "/tmp/canal_memkinds_%d", (int)getpid());
    OK(MPI_Bcast(fname, sizeof fname, MPI_CHAR, 0, MPI_COMM_WORLD));
    OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_get_info(fh, &sinfo));
    expect_kinds(sinfo, world, "file of MPI_COMM_WORLD");
    MPI_Info_free(&sinfo);
    OK(MPI_File_close(&fh));

    /* Sessions: the world's without info, their own with it, and their
     * communicators report the session's. */
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    OK(MPI_Session_get_info(session, &sinfo));
    expect_kinds(sinfo, world, "MPI_Session_get_info without info");
    MPI_Info_free(&sinfo);
    OK(MPI_Session_finalize(&session));
    MPI_Info_set(in, key, "mpi:win_allocate:alloc_mem");
    OK(MPI_Session_init(in, MPI_ERRORS_RETURN, &session));
    OK(MPI_Session_get_info(session, &sinfo));
    expect_kinds(sinfo, "mpi,system,mpi:win_allocate:alloc_mem", "MPI_Session_get_info with info");
    MPI_Info_free(&sinfo);
    OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &sgroup));
    OK(MPI_Comm_create_from_group(sgroup, "org.canal.memkinds", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                  &scomm));
    comm_kinds(scomm, "mpi,system,mpi:win_allocate:alloc_mem", "communicator of the session");
    OK(MPI_Comm_free(&scomm));
    OK(MPI_Group_free(&sgroup));
    OK(MPI_Session_finalize(&session));
    MPI_Info_free(&in);

    if (argc > 4 && strcmp(argv[4], "spawn") == 0)
        spawn_check(argv[0]);

    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&dupi));
    OK(MPI_Comm_free(&split));
    return mtest_finish();
}
