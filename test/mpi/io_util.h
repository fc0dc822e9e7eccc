/*
 * Helpers of the MPI-IO test programs (test/mpi/io_*.c): a scratch
 * directory made by rank 0 (under $TMPDIR or /tmp) and shared with the
 * others, file names inside it, and its removal at the end.
 */
#ifndef CANAL_IO_UTIL_H
#define CANAL_IO_UTIL_H

#include "mtest.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char io_dir[512];

static inline void io_dir_make(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(io_dir, sizeof io_dir, "%s/canal-io-XXXXXX", t && *t ? t : "/tmp");
        if (mkdtemp(io_dir) == NULL) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static inline const char *io_path(const char *name)
{
    static char p[8][600];
    static int next;
    char *s = p[next++ % 8];
    snprintf(s, 600, "%s/%s", io_dir, name);
    return s;
}

/* Remove what is left in the directory and the directory itself. */
static inline void io_dir_remove(void)
{
    int rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        DIR *d = opendir(io_dir);
        struct dirent *e;
        int left = 0;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char p[1200];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            left++;
            snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
            unlink(p);
        }
        if (d != NULL)
            closedir(d);
        rmdir(io_dir);
        CHECK(left == 0, "%d files left in %s", left, io_dir);
    }
}

#endif
