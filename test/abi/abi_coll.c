/*
 * Collectives through the standard ABI: a user operation on a derived
 * datatype (the function must receive the standard handle of that type),
 * a large-count user operation, MPI_MAXLOC on the pair types, MPI_IN_PLACE,
 * and MPI_Alltoallw with its arrays of datatypes.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#include "abi_util.h"

typedef struct {
    int a;
    double b;
} pair_t;

static MPI_Datatype pair_type;
static int bad_type_seen;

static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    pair_t *x = in, *y = inout;
    if (*dt != pair_type)
        bad_type_seen++;
    for (int i = 0; i < *len; i++) {
        y[i].a += x[i].a;
        y[i].b += x[i].b;
    }
}

static void int_max_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    int *x = in, *y = inout;
    if (*dt != MPI_INT)
        bad_type_seen++;
    for (MPI_Count i = 0; i < *len; i++)
        if (x[i] > y[i])
            y[i] = x[i];
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Op op, op_c;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    {
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {offsetof(pair_t, a), offsetof(pair_t, b)};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, tmp;
        MPI_Type_create_struct(2, bl, disp, types, &tmp);
        MPI_Type_create_resized(tmp, 0, sizeof(pair_t), &pair_type);
        MPI_Type_free(&tmp);
        CHECK(tmp == MPI_DATATYPE_NULL);
        MPI_Type_commit(&pair_type);
    }
    MPI_Op_create(pair_sum, 1, &op);
    {
        pair_t in[3], out[3];
        for (int i = 0; i < 3; i++) {
            in[i].a = rank + i;
            in[i].b = 0.5 * rank;
        }
        MPI_Allreduce(in, out, 3, pair_type, op, MPI_COMM_WORLD);
        for (int i = 0; i < 3; i++) {
            CHECK(out[i].a == size * (size - 1) / 2 + size * i);
            CHECK(out[i].b == 0.25 * size * (size - 1));
        }
        CHECK(bad_type_seen == 0);
    }
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL);

    MPI_Op_create_c(int_max_c, 1, &op_c);
    {
        int v = rank * 3, m = -1;
        MPI_Reduce(&v, &m, 1, MPI_INT, op_c, 0, MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(m == (size - 1) * 3);
        CHECK(bad_type_seen == 0);
    }
    MPI_Op_free(&op_c);

    /* MPI_MAXLOC on MPI_2INT and MPI_DOUBLE_INT; MPI_IN_PLACE */
    {
        struct { int v, r; } a = {rank % 2 ? 10 : rank, rank}, b;
        struct { double v; int r; } c = {-rank, rank}, d;
        MPI_Allreduce(&a, &b, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
        CHECK(b.v == (size > 1 ? 10 : 0));
        CHECK(b.r == (size > 1 ? 1 : 0));
        MPI_Allreduce(&c, &d, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
        CHECK(d.v == -(size - 1) && d.r == size - 1);
        int s = rank + 1;
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(s == size * (size + 1) / 2);
    }

    /* a vector type in a broadcast */
    {
        double m[4][4];
        MPI_Datatype col;
        MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col);
        MPI_Type_commit(&col);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                m[i][j] = rank == 0 ? i * 4 + j : -1;
        MPI_Bcast(&m[0][1], 1, col, 0, MPI_COMM_WORLD);
        for (int i = 0; i < 4; i++)
            CHECK(m[i][1] == i * 4 + 1);
        MPI_Type_free(&col);
    }

    /* MPI_Alltoallw: one int to each rank, each with its own datatype handle */
    {
        int *sb = malloc(sizeof(int) * size), *rb = malloc(sizeof(int) * size);
        int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size);
        MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * size);
        for (int i = 0; i < size; i++) {
            sb[i] = rank * 100 + i;
            rb[i] = -1;
            cnt[i] = 1;
            dsp[i] = i * (int)sizeof(int);
            ty[i] = MPI_INT;
        }
        MPI_Alltoallw(sb, cnt, dsp, ty, rb, cnt, dsp, ty, MPI_COMM_WORLD);
        for (int i = 0; i < size; i++)
            CHECK(rb[i] == i * 100 + rank);
        free(sb), free(rb), free(cnt), free(dsp), free(ty);
    }

    /* the envelope of a predefined and of a derived type */
    {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_NAMED);
        MPI_Type_get_envelope(pair_type, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_RESIZED);
        CHECK(nd == 1);
        MPI_Datatype inner;
        MPI_Aint ab[2];
        int ib[1];
        MPI_Type_get_contents(pair_type, 0, 2, 1, ib, ab, &inner);
        MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_STRUCT);
        MPI_Type_free(&inner);
    }
    MPI_Type_free(&pair_type);
    return abi_finish();
}
