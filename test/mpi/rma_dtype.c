/*
 * Derived datatypes on origin and target: put into a strided target, get
 * through an indexed target into a strided origin, a large strided put
 * (data in its own message, received through the target layout),
 * accumulate into a vector target, MPI_MAXLOC on MPI_DOUBLE_INT pairs
 * (elements with holes), get_accumulate with a derived result type, and a
 * resized struct type; on both window kinds.
 */
#include "rma_util.h"

enum { N = 64, BIG = 20000 };

typedef struct {
    double v;
    int i;
} dint_t;

static void run(int flavor, int rank, int size)
{
    double *mem;
    MPI_Win win;
    MPI_Datatype vec2, idx, bigvec, pairvec, rs;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const int n = 2 * BIG + 4 * N; /* doubles */

    mem = rma_win_make(flavor, n, sizeof(double), &win);
    for (int i = 0; i < n; i++)
        mem[i] = -1;
    MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &vec2); /* every other double */
    MPI_Type_commit(&vec2);
    {
        int bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
        MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &idx); /* 6 doubles in 12 */
        MPI_Type_commit(&idx);
    }
    MPI_Type_vector(BIG, 1, 2, MPI_DOUBLE, &bigvec);
    MPI_Type_commit(&bigvec);
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE_INT, &pairvec);
    MPI_Type_commit(&pairvec);
    {
        /* struct { int a; int pad; int b; } keeping a and b, extent 4 ints */
        int bl[2] = {1, 1};
        MPI_Aint dp[2] = {0, 2 * sizeof(int)};
        MPI_Datatype tt[2] = {MPI_INT, MPI_INT}, st;
        MPI_Type_create_struct(2, bl, dp, tt, &st);
        MPI_Type_create_resized(st, 0, 4 * sizeof(int), &rs);
        MPI_Type_commit(&rs);
        MPI_Type_free(&st);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. contiguous origin -> strided target (slots 0, 2, 4 ...) */
    double src[N];
    for (int i = 0; i < N; i++)
        src[i] = rank * 1000 + i;
    MPI_Win_fence(0, win);
    MPI_Put(src, N / 2, MPI_DOUBLE, right, 0, 1, vec2, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++) {
        double e = i % 2 == 0 ? left * 1000 + i / 2 : -1;
        CHECK(mem[i] == e, "flavor %d: strided put [%d] = %g, expected %g", flavor, i, mem[i], e);
    }

    /* 2. indexed target -> strided origin */
    for (int i = 0; i < N; i++)
        mem[N + i] = rank * 100 + i;
    MPI_Win_fence(0, win);
    double dst[N];
    for (int i = 0; i < N; i++)
        dst[i] = -2;
    MPI_Datatype vec6;
    MPI_Type_vector(6, 1, 2, MPI_DOUBLE, &vec6);
    MPI_Type_commit(&vec6);
    MPI_Get(dst, 1, vec6, left, N, 1, idx, win);
    MPI_Win_fence(0, win);
    {
        int pos[6] = {0, 1, 5, 9, 10, 11};
        for (int k = 0; k < 6; k++) {
            CHECK(dst[2 * k] == left * 100 + pos[k],
                  "flavor %d: indexed get [%d] = %g, expected %d", flavor, 2 * k, dst[2 * k],
                  left * 100 + pos[k]);
            CHECK(dst[2 * k + 1] == -2, "flavor %d: hole [%d] written", flavor, 2 * k + 1);
        }
    }
    MPI_Type_free(&vec6);

    /* 3. large strided put */
    double *big = malloc(sizeof(double) * BIG);
    for (int i = 0; i < BIG; i++)
        big[i] = rank + i * 0.5;
    for (int i = 0; i < 2 * BIG; i++)
        mem[2 * N + i] = -1;
    MPI_Win_fence(0, win);
    MPI_Put(big, BIG, MPI_DOUBLE, right, 2 * N + 1, 1, bigvec, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 2 * BIG; i++) {
        double e = i % 2 ? left + (i / 2) * 0.5 : -1;
        if (mem[2 * N + i] != e) {
            CHECK(0, "flavor %d: big strided put [%d] = %g, expected %g", flavor, i, mem[2 * N + i],
                  e);
            break;
        }
    }
    /* and get it back through the same type */
    for (int i = 0; i < BIG; i++)
        big[i] = 0;
    MPI_Get(big, BIG, MPI_DOUBLE, left, 2 * N + 1, 1, bigvec, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < BIG; i++)
        if (big[i] != ((left + size - 1) % size) + i * 0.5) {
            CHECK(0, "flavor %d: big strided get [%d] = %g", flavor, i, big[i]);
            break;
        }
    free(big);

    /* 4. accumulate into a vector target: all ranks add to rank 0 */
    for (int i = 0; i < N; i++)
        mem[i] = 1;
    MPI_Win_fence(0, win);
    MPI_Accumulate(src, N / 2, MPI_DOUBLE, 0, 0, 1, vec2, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        for (int i = 0; i < N; i++) {
            double e = i % 2 ? 1 : 1 + 1000.0 * size * (size - 1) / 2 + size * (i / 2);
            CHECK(mem[i] == e, "flavor %d: vector accumulate [%d] = %g, expected %g", flavor, i,
                  mem[i], e);
        }

    /* 5. MAXLOC on DOUBLE_INT pairs through a strided pair type */
    {
        dint_t *pm = (dint_t *)mem; /* 12 pairs fit in N doubles */
        dint_t mine[4];
        for (int i = 0; i < 12; i++) {
            pm[i].v = -1;
            pm[i].i = -1;
        }
        for (int k = 0; k < 4; k++) {
            mine[k].v = (rank * 7 + k * 3) % 5;
            mine[k].i = rank;
        }
        MPI_Win_fence(0, win);
        MPI_Accumulate(mine, 4, MPI_DOUBLE_INT, 0, 0, 1, pairvec, MPI_MAXLOC, win);
        MPI_Win_fence(0, win);
        if (rank == 0)
            for (int k = 0; k < 4; k++) {
                double best = -1;
                int who = -1;
                for (int r = 0; r < size; r++) {
                    double v = (r * 7 + k * 3) % 5;
                    if (v > best) {
                        best = v;
                        who = r;
                    }
                }
                CHECK(pm[3 * k].v == best && pm[3 * k].i == who,
                      "flavor %d: maxloc [%d] = (%g, %d), expected (%g, %d)", flavor, k,
                      pm[3 * k].v, pm[3 * k].i, best, who);
                CHECK(pm[3 * k + 1].v == -1 && pm[3 * k + 2].i == -1,
                      "flavor %d: maxloc wrote between the pairs", flavor);
            }
    }

    /* 6. get_accumulate: target vector, result strided */
    for (int i = 0; i < N; i++)
        mem[i] = i;
    MPI_Win_fence(0, win);
    {
        double res[N], add[N / 2];
        for (int i = 0; i < N; i++)
            res[i] = -3;
        for (int i = 0; i < N / 2; i++)
            add[i] = 0.25;
        MPI_Get_accumulate(add, N / 2, MPI_DOUBLE, res, 1, vec2, right, 0, 1, vec2, MPI_SUM, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++) {
            double e = i % 2 ? -3 : i;
            CHECK(res[i] == e, "flavor %d: get_accumulate result [%d] = %g, expected %g", flavor, i,
                  res[i], e);
            e = i % 2 ? i : i + 0.25;
            CHECK(mem[i] == e, "flavor %d: get_accumulate target [%d] = %g, expected %g", flavor, i,
                  mem[i], e);
        }
    }

    /* 7. resized struct type on both sides (ints) */
    {
        int *im = (int *)mem, out[16];
        for (int i = 0; i < 16; i++) {
            im[i] = -1;
            out[i] = rank * 10 + i;
        }
        MPI_Win_fence(0, win);
        MPI_Put(out, 4, rs, right, 0, 4, rs, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < 16; i++) {
            int e = i % 4 == 0 || i % 4 == 2 ? left * 10 + i : -1;
            CHECK(im[i] == e, "flavor %d: struct put [%d] = %d, expected %d", flavor, i, im[i], e);
        }
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    MPI_Type_free(&vec2);
    MPI_Type_free(&idx);
    MPI_Type_free(&bigvec);
    MPI_Type_free(&pairvec);
    MPI_Type_free(&rs);
    rma_win_free(flavor, mem, &win);
}

int main(int argc, char **argv)
{
    return rma_run_flavors(&argc, &argv, run);
}
