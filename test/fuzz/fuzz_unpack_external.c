/*
 * libFuzzer target: MPI_Unpack_external_c -- external32 bytes from a file or
 * another machine, unpacked into builtin and derived datatypes through the
 * public call, with arbitrary position, insize and outcount. The output buffer
 * is a heap block of exactly the datatype's true span for outcount elements,
 * placed so that a negative true lower bound is inside it: ASan sees any
 * write outside what the datatype may touch. Whatever unpacks must pack back
 * (MPI_Pack_external_c) to the same number of bytes. Input: [type][outcount]
 * [position mode][insize cut] then the external32 bytes.
 * LLVMFuzzerInitialize starts a singleton MPI with MPI_ERRORS_RETURN.
 * Built and run by test/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "fuzz.h"

enum { NTYPES_MAX = 40 };
static MPI_Datatype types[NTYPES_MAX];
static int ntypes;

static void add(MPI_Datatype t)
{
    if (MPI_Type_commit(&t) != MPI_SUCCESS)
        abort();
    types[ntypes++] = t;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const MPI_Datatype builtin[] = {
        MPI_BYTE, MPI_CHAR, MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_WCHAR,
        MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_2INT, MPI_DOUBLE_INT,
        MPI_LONG_DOUBLE_INT, MPI_SHORT_INT, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INT8_T,
        MPI_UINT64_T, MPI_PACKED};
    MPI_Datatype t, u;
    int bl[3] = {1, 2, 1};
    MPI_Aint disp[3] = {0, 8, 32};
    MPI_Datatype st[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    int idx_bl[3] = {2, 1, 3}, idx_disp[3] = {4, -2, 9};
    int sizes[2] = {5, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};

    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        types[ntypes++] = builtin[i];
    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
    add(t);
    MPI_Type_create_struct(3, bl, disp, st, &t);
    add(t);
    MPI_Type_create_struct(3, bl, disp, st, &u);
    MPI_Type_create_resized(u, -8, 56, &t); /* negative lower bound */
    MPI_Type_free(&u);
    add(t);
    MPI_Type_indexed(3, idx_bl, idx_disp, MPI_SHORT, &t); /* a negative displacement */
    add(t);
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_LONG_DOUBLE, &t);
    add(t);
    MPI_Type_contiguous(0, MPI_INT, &t); /* size 0 */
    add(t);
    MPI_Type_contiguous(2, MPI_2INT, &t);
    add(t);
    MPI_Type_create_hvector(2, 1, -24, MPI_C_DOUBLE_COMPLEX, &t); /* negative stride */
    add(t);
    MPI_Type_dup(MPI_DOUBLE_INT, &t);
    add(t);
    MPI_Type_vector(2, 1, 3, types[ntypes - 8], &t); /* vector of the struct */
    add(t);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    MPI_Datatype t;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Count outcount, insize, pos, pos0, span, packed = 0;
    unsigned char *block = NULL, *in, *again;
    int err;

    if (n < 4)
        return 0;
    t = types[d[0] % ntypes];
    outcount = d[1] % 64;
    insize = (MPI_Count)(n - 4);
    if (d[3] & 0x80)
        insize -= d[3] & 0x7f; /* claim less than is there */
    if (insize < 0)
        insize = 0;
    switch (d[2] % 4) {
    case 0: pos0 = 0; break;
    case 1: pos0 = d[2] / 4 % (insize + 1); break;
    case 2: pos0 = -(MPI_Count)(d[2] / 4) - 1; break; /* bad: negative */
    default: pos0 = insize + 1 + d[2] / 4; break;      /* bad: past insize */
    }
    in = malloc(n - 4 ? n - 4 : 1); /* exactly the bytes, so reads past insize are caught */
    memcpy(in, d + 4, n - 4);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    /* the bytes outcount elements may touch: [min, max) relative to outbuf */
    {
        MPI_Aint lo = tlb, hi = tlb + textent;
        if (outcount > 0) {
            MPI_Aint last = (MPI_Aint)(outcount - 1) * extent;
            if (last < 0)
                lo += last;
            else
                hi += last;
        }
        span = outcount > 0 ? hi - lo : 0;
        block = malloc(span > 0 ? (size_t)span : 1);
        pos = pos0;
        err = MPI_Unpack_external_c("external32", in, insize, &pos, block - (outcount > 0 ? lo : 0),
                                    outcount, t);
        if (err == MPI_SUCCESS) {
            MPI_Count want = 0;
            if (pos < pos0 || pos > insize)
                abort();
            if (MPI_Pack_external_size_c("external32", outcount, t, &want) != MPI_SUCCESS ||
                want != pos - pos0)
                abort(); /* consumed exactly what the datatype holds in external32 */
            again = malloc(want > 0 ? (size_t)want : 1);
            if (MPI_Pack_external_c("external32", block - (outcount > 0 ? lo : 0), outcount, t,
                                    again, want, &packed) != MPI_SUCCESS || packed != want)
                abort();
            free(again);
        } else if (pos != pos0) {
            abort(); /* a failed call must not move position */
        }
    }
    free(block);
    free(in);
    return 0;
}
