/*
 * abi_finalize.c -- what MPICH main's attr/attrend2 and comm/commname found
 * through the standard ABI (whose header says MPI 5.0, so those tests check
 * the MPI 4.1 rules that they skip under MPICH 4.0.2's mpi.h):
 *  - MPI_Finalize runs the delete callbacks of MPI_COMM_SELF's attributes
 *    first, in LIFO order, and MPI_Finalized is 0 inside them (MPI 4.0
 *    section 11.2.3); after MPI_Finalize it is 1;
 *  - MPI_Comm_get_name(MPI_COMM_NULL) is "MPI_COMM_NULL" (MPI 4.1), and the
 *    names of MPI_COMM_WORLD, MPI_COMM_SELF and a named duplicate are kept.
 * Rank 0 prints "No Errors" after MPI_Finalize, from what every rank saw.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { NKEYS = 5 };

static int called[NKEYS], finalized_inside = 0, order_errs = 0;

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int idx = (int)(long)value, flag = -1;
    (void)comm;
    (void)keyval;
    (void)extra;
    called[idx]++;
    MPI_Finalized(&flag);
    if (flag != 0)
        finalized_inside++;
    for (int i = 0; i < idx; i++) /* LIFO: the ones set earlier come later */
        if (called[i] != 0)
            order_errs++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, len = -1, flag = -1, keys[NKEYS];
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    name[0] = 0;
    if (MPI_Comm_get_name(MPI_COMM_NULL, name, &len) != MPI_SUCCESS ||
        strcmp(name, "MPI_COMM_NULL") != 0 || len != (int)strlen("MPI_COMM_NULL")) {
        errs++;
        fprintf(stderr, "[%d] name of MPI_COMM_NULL is \"%s\" (%d)\n", rank, name, len);
    }
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    if (strcmp(name, "MPI_COMM_WORLD") != 0) {
        errs++;
        fprintf(stderr, "[%d] name of MPI_COMM_WORLD is \"%s\"\n", rank, name);
    }
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    if (strcmp(name, "MPI_COMM_SELF") != 0) {
        errs++;
        fprintf(stderr, "[%d] name of MPI_COMM_SELF is \"%s\"\n", rank, name);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_name(dup, "comm-0");
    MPI_Comm_get_name(dup, name, &len);
    if (strcmp(name, "comm-0") != 0) {
        errs++;
        fprintf(stderr, "[%d] name of a duplicate is \"%s\"\n", rank, name);
    }
    MPI_Comm_free(&dup);

    for (int i = 0; i < NKEYS; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keys[i], NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, keys[i], (void *)(long)i);
    }
    for (int i = 0; i < NKEYS; i++)
        MPI_Comm_free_keyval(&keys[i]);

    MPI_Finalize();

    for (int i = 0; i < NKEYS; i++)
        if (called[i] != 1) {
            errs++;
            fprintf(stderr, "[%d] delete callback %d ran %d times\n", rank, i, called[i]);
        }
    if (finalized_inside) {
        errs++;
        fprintf(stderr, "[%d] MPI_Finalized was 1 in %d delete callbacks\n", rank,
                finalized_inside);
    }
    if (order_errs) {
        errs++;
        fprintf(stderr, "[%d] delete callbacks not in LIFO order (%d)\n", rank, order_errs);
    }
    MPI_Finalized(&flag);
    if (flag != 1) {
        errs++;
        fprintf(stderr, "[%d] MPI_Finalized is %d after MPI_Finalize\n", rank, flag);
    }
    /* no communication is left: every rank reports its own errors, rank 0 the verdict
     * for itself; a failing rank exits non-zero, which fails the run as well */
    if (rank == 0)
        printf(errs == 0 ? " No Errors\n" : " Found %d errors\n", errs);
    return errs != 0;
}
