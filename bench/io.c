/* IOR-like MPI-IO benchmark: each rank owns one block of a 3-D global
 * array of doubles, decomposed over a 3-D grid of ranks (MPI_Dims_create),
 * and sets an MPI_Type_create_subarray file view, so each rank's data is
 * strided in the file. All ranks write the array with MPI_File_write_all,
 * then read it back with MPI_File_read_all and check every element.
 * Run by bench/compare_rma_io.sh against Canal, MPICH and Open MPI.
 * Usage: io DIR [-n EDGE] [-r REPS]
 *   DIR   directory of the file (e.g. /tmp or /dev/shm)
 *   EDGE  local block edge in elements (default 80: 80^3 doubles = 3.9 MiB
 *         per rank)
 * Prints the median over REPS (default 5) of "write MiB/s" and
 * "read MiB/s" (aggregate: total bytes / slowest rank's time, including
 * open+sync+close for write and open+close for read), one line each:
 *   write NP MIB_PER_RANK MiB/s
 *   read  NP MIB_PER_RANK MiB/s */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int rank, np, edge = 80, reps = 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: io DIR [-n EDGE] [-r REPS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            edge = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
    }
    if (edge < 1 || edge > 512 || reps < 1 || reps > 100) {
        if (rank == 0)
            fprintf(stderr, "io: bad -n %d or -r %d\n", edge, reps);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Rank 0 names the file; all ranks must use the same name. */
    char path[4096];
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/mpiio_bench.%d", argv[1], pid);

    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
    MPI_Dims_create(np, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    int gsizes[3], lsizes[3], starts[3];
    for (int d = 0; d < 3; d++) {
        gsizes[d] = dims[d] * edge;
        lsizes[d] = edge;
        starts[d] = coords[d] * edge;
    }
    MPI_Datatype filetype;
    MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Type_commit(&filetype);

    size_t n = (size_t)edge * edge * edge;
    double *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* Each element holds its global linear index, so a misplaced block
     * or a transposed stride shows up in the check. */
    size_t k = 0;
    for (int i = 0; i < edge; i++)
        for (int j = 0; j < edge; j++)
            for (int l = 0; l < edge; l++)
                out[k++] = (double)(((size_t)(starts[0] + i) * gsizes[1] + starts[1] + j) * gsizes[2] +
                                    starts[2] + l);
    double mib_rank = (double)n * sizeof(double) / (1 << 20);
    double total_mib = mib_rank * np;
    double wv[100], rv[100];
    int bad = 0;

    for (int r = 0; r < reps; r++) {
        MPI_File fh;
        MPI_Status st;
        int err;
        memset(in, 0, n * sizeof *in);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        if (err != MPI_SUCCESS) {
            fprintf(stderr, "io: rank %d cannot open %s for writing\n", rank, path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL);
        err = MPI_File_write_all(fh, out, (int)n, MPI_DOUBLE, &st);
        if (err != MPI_SUCCESS) {
            fprintf(stderr, "io: rank %d write_all failed\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_sync(fh);
        MPI_File_close(&fh);
        double tw = MPI_Wtime() - t0, twmax;
        MPI_Allreduce(&tw, &twmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        if (err != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(err, msg, &len);
            fprintf(stderr, "io: rank %d cannot open %s for reading: %s\n", rank, path, msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL);
        err = MPI_File_read_all(fh, in, (int)n, MPI_DOUBLE, &st);
        if (err != MPI_SUCCESS) {
            fprintf(stderr, "io: rank %d read_all failed\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_File_close(&fh);
        double tr = MPI_Wtime() - t0, trmax;
        MPI_Allreduce(&tr, &trmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

        if (memcmp(in, out, n * sizeof *in) != 0) {
            size_t e = 0;
            while (e < n && in[e] == out[e])
                e++;
            fprintf(stderr, "io: rank %d rep %d: data mismatch at element %zu: %.0f, want %.0f\n", rank, r, e,
                    in[e], out[e]);
            bad = 1;
        }
        wv[r] = total_mib / twmax;
        rv[r] = total_mib / trmax;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_File_delete(path, MPI_INFO_NULL);
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("write %d %.2f %.1f\n", np, mib_rank, median(wv, reps));
        printf("read  %d %.2f %.1f\n", np, mib_rank, median(rv, reps));
        if (anybad)
            printf("# VERIFY FAILED\n");
    }
    MPI_Type_free(&filetype);
    MPI_Comm_free(&cart);
    free(out);
    free(in);
    MPI_Finalize();
    return anybad ? 3 : 0;
}
