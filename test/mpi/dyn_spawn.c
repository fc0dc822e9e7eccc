/*
 * MPI_Comm_spawn: the parent job (any size) spawns N copies of this
 * program (N = argv[1], default 2) with arguments and the info key "wdir".
 * The children check their arguments and working directory, find the
 * parent with MPI_Comm_get_parent, and both sides exercise the
 * intercommunicator: point to point both ways, a rooted bcast, an
 * allreduce, MPI_Intercomm_merge (parents first), and MPI_Comm_disconnect.
 * The children's error count travels to the parent, so a child's failure
 * fails the test. Also: MPI_APPNUM and MPI_UNIVERSE_SIZE are set, and
 * MPI_COMM_WORLD's group does not contain the remote processes, and the
 * parent intercommunicator is named MPI_COMM_PARENT.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"

static void exercise(MPI_Comm inter, int is_child, int nparent, int nchild)
{
    int lsize, rsize, rank, v = 0, sum = 0, flag = 0, mrank, msize;
    MPI_Comm merged;
    MPI_Group wg, rg;
    int r0 = 0, t = -5;

    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);
    CHECK(lsize == (is_child ? nchild : nparent), "local size %d", lsize);
    CHECK(rsize == (is_child ? nparent : nchild), "remote size %d", rsize);

    /* point to point: parent 0 <-> every child, both ways */
    if (!is_child && rank == 0) {
        for (int c = 0; c < nchild; c++) {
            int x = 100 + c;
            MPI_Send(&x, 1, MPI_INT, c, 1, inter);
        }
        for (int c = 0; c < nchild; c++) {
            MPI_Recv(&v, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE);
            CHECK(v == 2 * (100 + c), "child %d answered %d", c, v);
        }
    } else if (is_child) {
        MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
        CHECK(v == 100 + rank, "child got %d", v);
        v *= 2;
        MPI_Send(&v, 1, MPI_INT, 0, 2, inter);
    }
    /* a large message both ways (rendezvous across jobs) */
    {
        enum { N = 1 << 18 };
        int *big = malloc(N * sizeof *big), bad = 0;
        if (!is_child && rank == 0) {
            for (int i = 0; i < N; i++)
                big[i] = i ^ 0x5a5a;
            MPI_Send(big, N, MPI_INT, nchild - 1, 3, inter);
            MPI_Recv(big, N, MPI_INT, nchild - 1, 4, inter, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                bad += big[i] != i + 1;
            CHECK(bad == 0, "%d wrong ints in the big answer", bad);
        } else if (is_child && rank == nchild - 1) {
            MPI_Recv(big, N, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                bad += big[i] != (i ^ 0x5a5a);
            CHECK(bad == 0, "%d wrong ints in the big message", bad);
            for (int i = 0; i < N; i++)
                big[i] = i + 1;
            MPI_Send(big, N, MPI_INT, 0, 4, inter);
        }
        free(big);
    }
    /* bcast from parent 0 to the children */
    v = is_child ? 0 : 4242;
    if (is_child)
        MPI_Bcast(&v, 1, MPI_INT, 0, inter);
    else
        MPI_Bcast(&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (is_child)
        CHECK(v == 4242, "bcast gave %d", v);
    /* allreduce: each side gets the other's sum */
    v = is_child ? 1000 + rank : rank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    if (is_child)
        CHECK(sum == nparent * (nparent + 1) / 2, "child allreduce %d", sum);
    else
        CHECK(sum == 1000 * nchild + nchild * (nchild - 1) / 2, "parent allreduce %d", sum);
    /* the remote processes are not in MPI_COMM_WORLD */
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_remote_group(inter, &rg);
    MPI_Group_translate_ranks(rg, 1, &r0, wg, &t);
    CHECK(t == MPI_UNDEFINED, "remote rank 0 translates to world rank %d", t);
    MPI_Group_free(&wg);
    MPI_Group_free(&rg);
    /* merge: parents first */
    MPI_Intercomm_merge(inter, is_child, &merged);
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK(msize == nparent + nchild, "merged size %d", msize);
    CHECK(mrank == (is_child ? nparent + rank : rank), "merged rank %d", mrank);
    v = mrank;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "merged allreduce %d", sum);
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, size, *flag, univ_flag, errs;
    int *appnum, *universe;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &univ_flag);
    CHECK(univ_flag && *appnum == 0, "MPI_APPNUM flag %d", univ_flag);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &univ_flag);
    /* the launcher's number: at least the first job (children may exceed it) */
    CHECK(univ_flag && (parent != MPI_COMM_NULL || *universe >= size),
          "MPI_UNIVERSE_SIZE flag %d value %d", univ_flag, univ_flag ? *universe : -1);
    (void)flag;
    if (parent == MPI_COMM_NULL) {
        int nkids = argc > 1 ? atoi(argv[1]) : 2, cerrs = 0;
        char *cargv[] = {"child", "two words", NULL};
        int *codes = malloc(sizeof *codes * (size_t)nkids);
        MPI_Info info;

        MPI_Info_create(&info);
        MPI_Info_set(info, "wdir", "/tmp");
        for (int i = 0; i < nkids; i++)
            codes[i] = -1;
        char self[PATH_MAX];
        /* wdir changes where a relative command is looked for */
        if (realpath(argv[0], self) == NULL)
            snprintf(self, sizeof self, "%s", argv[0]);
        MPI_Comm_spawn(self, cargv, nkids, info, 0, MPI_COMM_WORLD, &inter, codes);
        MPI_Info_free(&info);
        for (int i = 0; i < nkids; i++)
            CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
        free(codes);
        exercise(inter, 0, size, nkids);
        /* the children's error total */
        if (rank == 0)
            MPI_Recv(&cerrs, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE);
        CHECK(cerrs == 0, "the children found %d errors", cerrs);
        MPI_Comm_disconnect(&inter);
        CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
    } else {
        char cwd[4096] = "";
        int nparent;
        MPI_Comm_remote_size(parent, &nparent);
        CHECK(argc == 3, "argc %d", argc);
        if (argc == 3) {
            CHECK(strcmp(argv[1], "child") == 0, "argv[1] '%s'", argv[1]);
            CHECK(strcmp(argv[2], "two words") == 0, "argv[2] '%s'", argv[2]);
        }
        CHECK(getcwd(cwd, sizeof cwd) != NULL && strcmp(cwd, "/tmp") == 0, "cwd '%s'", cwd);
        {
            /* MPI 4.0 11.8.2: the parent intercommunicator is named MPI_COMM_PARENT */
            char cname[MPI_MAX_OBJECT_NAME] = "";
            int clen = -1;
            MPI_Comm_get_name(parent, cname, &clen);
            CHECK(strcmp(cname, "MPI_COMM_PARENT") == 0 && clen == 15,
                  "the parent communicator is named '%s' (length %d)", cname, clen);
        }
        exercise(parent, 1, nparent, size);
        errs = mtest_errors;
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &errs, &errs, 1, MPI_INT, MPI_SUM, 0,
                   MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Send(&errs, 1, MPI_INT, 0, 9, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Comm_get_parent(&parent);
        CHECK(parent == MPI_COMM_NULL, "get_parent after disconnect");
    }
    return mtest_finish();
}
