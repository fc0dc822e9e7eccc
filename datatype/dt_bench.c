/*
 * Micro benchmark of the datatype engine alone (no MPI): pack throughput of
 * common shapes, whole and through the cursor in 64 KiB chunks as the
 * device does, against memcpy of the same number of bytes. A development
 * tool, not a test: `dt_bench [megabytes]` prints one line per shape.
 * The comparison with MPICH and Open MPI through MPI_Pack lives in bench/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datatype/dt.h"
#include "common/clock.h"

/* Best of a few runs, in GB/s of packed data. */
static double run(const char *how, dt_type_t *t, size_t count, const char *src, char *dst,
                  size_t bytes)
{
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = common_now_s(), dt;
        size_t done = 0;
        if (strcmp(how, "memcpy") == 0) {
            memcpy(dst, src, bytes);
            done = bytes;
        } else if (strcmp(how, "pack") == 0) {
            dt_pack(src, count, t, dst, bytes, &done);
        } else {
            dt_cursor_t c;
            size_t n;
            dt_cursor_init(&c, t, count);
            while ((n = dt_pack_next(&c, src, dst + done, 65536)) > 0)
                done += n;
            dt_cursor_fini(&c);
        }
        dt = common_now_s() - t0;
        if (done != bytes) {
            fprintf(stderr, "dt_bench: %s packed %zu of %zu bytes\n", how, done, bytes);
            exit(1);
        }
        if (bytes / dt / 1e9 > best)
            best = bytes / dt / 1e9;
    }
    return best;
}

static void shape(const char *name, dt_type_t *t, size_t count)
{
    size_t bytes = dt_size(t) * count;
    ptrdiff_t span = dt_true_lb(t) + dt_extent(t) * (ptrdiff_t)(count - 1) + dt_true_extent(t);
    char *src = malloc((size_t)span), *dst = malloc(bytes);
    double m, p, c;

    memset(src, 1, (size_t)span);
    memset(dst, 0, bytes);
    dt_commit(t);
    m = run("memcpy", t, count, src, dst, bytes);
    p = run("pack", t, count, src, dst, bytes);
    c = run("cursor", t, count, src, dst, bytes);
    printf("%-36s %8.1f MB  memcpy %6.2f GB/s  pack %6.2f GB/s (%4.0f%%)  64K chunks %6.2f GB/s "
           "(%4.0f%%)  blocks/elem %zu\n",
           name, bytes / 1e6, m, p, 100 * p / m, c, 100 * c / m, dt_block_count(t));
    free(src);
    free(dst);
    dt_release(t);
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 64, n = mb << 20;
    dt_type_t *t, *d = dt_builtin(DT_DOUBLE);

    /* strided vectors of doubles with 8, 64, 256, 4096-byte blocks */
    static const size_t blocks[] = {1, 8, 32, 512};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        char name[64];
        size_t bl = blocks[i];
        dt_create_vector(n / 8 / bl, bl, (ptrdiff_t)(2 * bl), d, &t);
        snprintf(name, sizeof name, "vector %zu B blocks, stride 2x", bl * 8);
        shape(name, t, 1);
    }
    /* the same as count of a small vector type: the cursor loops the type */
    dt_create_vector(4, 1, 2, d, &t);
    shape("count x vector(4, 1, 2) of double", t, n / 32);
    /* indexed: irregular 64..512 byte blocks */
    {
        size_t nb = n / 8 / 36, *bl = malloc(nb * sizeof *bl);
        ptrdiff_t *ds = malloc(nb * sizeof *ds), pos = 0;
        for (size_t i = 0; i < nb; i++) {
            bl[i] = 8 + (i * 7) % 57;
            ds[i] = pos;
            pos += (ptrdiff_t)bl[i] + 3;
        }
        dt_create_indexed(nb, bl, ds, d, &t);
        shape("indexed 64..512 B blocks", t, 1);
        free(bl);
        free(ds);
    }
    /* 3-D subarray faces of a 320^3 cube of doubles (262 MB) */
    {
        size_t e = 320, sz[3] = {e, e, e}, st[3] = {0, 0, 0};
        size_t fx[3] = {1, e, e}, fy[3] = {e, 1, e}, fz[3] = {e, e, 1};
        dt_create_subarray(3, sz, fx, st, DT_ORDER_C, d, &t);
        shape("3-D subarray x face (contiguous)", t, 1);
        dt_create_subarray(3, sz, fy, st, DT_ORDER_C, d, &t);
        shape("3-D subarray y face (rows)", t, 1);
        dt_create_subarray(3, sz, fz, st, DT_ORDER_C, d, &t);
        shape("3-D subarray z face (8 B elements)", t, 1);
    }
    /* struct of a few fields */
    {
        size_t bl[3] = {1, 3, 2};
        ptrdiff_t ds[3] = {0, 8, 32};
        dt_type_t *ty[3] = {dt_builtin(DT_INT), d, dt_builtin(DT_FLOAT)};
        dt_create_struct(3, bl, ds, ty, &t);
        shape("struct {int; double[3]; float[2]}", t, n / 36);
    }
    return 0;
}
