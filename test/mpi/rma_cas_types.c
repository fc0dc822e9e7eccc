/*
 * rma_cas_types: which datatypes MPI_Compare_and_swap takes. Integer,
 * logical, byte and multi-language types (and MPI_CHAR, as MPICH) swap
 * atomically and return the old value; a floating type, a complex type or a
 * derived type is refused with MPI_ERR_TYPE before anything reaches the
 * target, and the window stays usable (MPICH's errors/rma/cas_type_check).
 */
#include <stdbool.h>
#include <stdint.h>

#include "mtest.h"

/* One compare-and-swap of `type` at rank 0's window, which holds zeros. */
static int try_cas(MPI_Win win, MPI_Datatype type)
{
    unsigned char origin[16], compare[16] = {0}, result[16];
    memset(origin, 1, sizeof origin);
    memset(result, 0xee, sizeof result);
    return MPI_Compare_and_swap(origin, compare, result, type, 0, 0, win);
}

int main(int argc, char **argv)
{
    int rank, size;
    unsigned char winbuf[16] = {0};
    MPI_Win win;
    MPI_Datatype contig, dup_int;
    struct {
        MPI_Datatype type;
        size_t size;
        const char *name;
    } good[] = {{MPI_CHAR, 1, "MPI_CHAR"},
                {MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR"},
                {MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR"},
                {MPI_BYTE, 1, "MPI_BYTE"},
                {MPI_C_BOOL, sizeof(bool), "MPI_C_BOOL"},
                {MPI_SHORT, sizeof(short), "MPI_SHORT"},
                {MPI_INT, sizeof(int), "MPI_INT"},
                {MPI_UNSIGNED, sizeof(unsigned), "MPI_UNSIGNED"},
                {MPI_LONG, sizeof(long), "MPI_LONG"},
                {MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long), "MPI_UNSIGNED_LONG_LONG"},
                {MPI_INT64_T, sizeof(int64_t), "MPI_INT64_T"},
                {MPI_AINT, sizeof(MPI_Aint), "MPI_AINT"},
                {MPI_OFFSET, sizeof(MPI_Offset), "MPI_OFFSET"},
                {MPI_COUNT, sizeof(MPI_Count), "MPI_COUNT"}};
    struct {
        MPI_Datatype type;
        const char *name;
    } bad[] = {{MPI_FLOAT, "MPI_FLOAT"},
               {MPI_DOUBLE, "MPI_DOUBLE"},
               {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
               {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
               {MPI_2INT, "MPI_2INT"},
               {MPI_DATATYPE_NULL, "contiguous"},
               {MPI_DATATYPE_NULL, "dup of MPI_INT"}};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(sizeof(int), MPI_BYTE, &contig);
    MPI_Type_commit(&contig);
    MPI_Type_dup(MPI_INT, &dup_int);
    bad[5].type = contig;
    bad[6].type = dup_int;

    MPI_Win_create(winbuf, sizeof winbuf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        MPI_Win_fence(0, win);
        int err = try_cas(win, bad[i].type);
        CHECK(mtest_error_class(err) == MPI_ERR_TYPE,
              "MPI_Compare_and_swap on %s returned class %d, expected MPI_ERR_TYPE", bad[i].name,
              mtest_error_class(err));
        if (err != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(err, msg, &len);
            CHECK(strstr(msg, "MPI_Compare_and_swap") != NULL, "message names no call: %s", msg);
        }
        MPI_Win_fence(0, win);
        /* nothing reached the target */
        for (int b = 0; b < 16 && rank == 0; b++)
            CHECK(winbuf[b] == 0, "a refused %s changed byte %d of the window to %d", bad[i].name,
                  b, winbuf[b]);
    }

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        unsigned char origin[16], compare[16] = {0}, result[16];
        int won = 0, winners;
        memset(origin, rank + 1, sizeof origin);
        memset(result, 0xee, sizeof result);
        memset(winbuf, 0, sizeof winbuf);
        MPI_Win_fence(0, win);
        int err = MPI_Compare_and_swap(origin, compare, result, good[i].type, 0, 0, win);
        CHECK(err == MPI_SUCCESS, "MPI_Compare_and_swap on %s failed (class %d)", good[i].name,
              mtest_error_class(err));
        MPI_Win_fence(0, win);
        if (err == MPI_SUCCESS) {
            int zero = 1;
            for (size_t b = 0; b < good[i].size; b++)
                zero &= result[b] == 0;
            won = zero;
            if (!zero) /* the loser saw the winner's value: all bytes one rank's */
                for (size_t b = 1; b < good[i].size; b++)
                    CHECK(result[b] == result[0] && result[0] >= 1 && result[0] <= size,
                          "%s: result byte %zu is %d", good[i].name, b, result[b]);
        }
        MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(winners == 1, "%s: %d ranks saw the initial value, expected exactly 1", good[i].name,
              winners);
    }

    MPI_Win_free(&win);
    MPI_Type_free(&contig);
    MPI_Type_free(&dup_int);
    return mtest_finish();
}
