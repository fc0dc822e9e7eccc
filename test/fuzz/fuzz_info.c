/*
 * libFuzzer target: MPI_Info strings and every place Canal reads an info
 * value. The input is a little program over one info object: set, get (with
 * arbitrary valuelen), get_string (arbitrary buflen), get_valuelen, delete,
 * dup, get_nthkey, and "apply", which hands the info to the calls that parse
 * hints: MPI_Comm_dup_with_info / MPI_Comm_set_info / MPI_Comm_get_info (the
 * comm hints), MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED) (the
 * mpi_hw_resource_type value), MPI_Session_init (thread_level),
 * MPI_File_open / MPI_File_set_info (cb_nodes, cb_buffer_size, file_perm ...)
 * and MPI_Win_create / MPI_Win_allocate_shared (accumulate_ops,
 * alloc_shared_noncontig ...). Keys and values are arbitrary non-NUL bytes of
 * arbitrary length (up to beyond MPI_MAX_INFO_KEY/VAL), each in a heap block
 * of exactly its size; output buffers are exactly as long as the length
 * passed. What was set must read back. Singleton MPI with MPI_ERRORS_RETURN.
 * Built and run by test/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "fuzz.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    snprintf(path, sizeof path, "/tmp/canal-fuzz-info-%d", (int)getpid());
    return 0;
}

typedef struct {
    const uint8_t *d;
    size_t n, pos;
} rd_t;

static int byte(rd_t *r)
{
    return r->pos < r->n ? r->d[r->pos++] : 0;
}

/* A string: one length byte; 0xff..0xfc mean long strings (up to 1100). */
static char *str(rd_t *r)
{
    size_t len = (size_t)byte(r), k = 0;
    char *s;
    if (len >= 0xfc)
        len = (len - 0xfc) * 300 + 200;
    s = malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        int c = r->pos < r->n ? r->d[r->pos++] : 'x';
        s[k++] = (char)(c == 0 ? 'z' : c);
    }
    s[k] = '\0';
    return s;
}

static void apply(MPI_Info info, int which)
{
    MPI_Comm c = MPI_COMM_NULL, s = MPI_COMM_NULL;
    MPI_Info got = MPI_INFO_NULL;
    MPI_Session ses;
    MPI_File f;
    MPI_Win w;
    void *base;
    int buf[4];

    switch (which % 5) {
    case 0:
        if (MPI_Comm_dup_with_info(MPI_COMM_SELF, info, &c) == MPI_SUCCESS) {
            MPI_Comm_set_info(c, info);
            if (MPI_Comm_get_info(c, &got) == MPI_SUCCESS)
                MPI_Info_free(&got);
            MPI_Comm_free(&c);
        }
        break;
    case 1:
        if (MPI_Comm_split_type(MPI_COMM_SELF, MPI_COMM_TYPE_HW_GUIDED, 0, info, &s) ==
                MPI_SUCCESS &&
            s != MPI_COMM_NULL)
            MPI_Comm_free(&s);
        break;
    case 2:
        if (MPI_Session_init(info, MPI_ERRORS_RETURN, &ses) == MPI_SUCCESS)
            MPI_Session_finalize(&ses);
        break;
    case 3:
        if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &f) ==
            MPI_SUCCESS) {
            MPI_File_set_info(f, info);
            if (MPI_File_get_info(f, &got) == MPI_SUCCESS)
                MPI_Info_free(&got);
            MPI_File_close(&f);
            unlink(path);
        }
        break;
    case 4:
        if (which & 8) {
            if (MPI_Win_allocate_shared(16, 4, info, MPI_COMM_SELF, &base, &w) == MPI_SUCCESS) {
                MPI_Win_set_info(w, info);
                if (MPI_Win_get_info(w, &got) == MPI_SUCCESS)
                    MPI_Info_free(&got);
                MPI_Win_free(&w);
            }
        } else if (MPI_Win_create(buf, sizeof buf, 4, info, MPI_COMM_SELF, &w) == MPI_SUCCESS) {
            MPI_Win_set_info(w, info);
            if (MPI_Win_get_info(w, &got) == MPI_SUCCESS)
                MPI_Info_free(&got);
            MPI_Win_free(&w);
        }
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    rd_t r = {d, n, 0};
    MPI_Info info;
    int steps = 0;

    if (MPI_Info_create(&info) != MPI_SUCCESS)
        abort();
    while (r.pos < r.n && steps++ < 64) {
        int op = byte(&r), flag = -1, len;
        char *k = NULL, *v = NULL, *out = NULL;
        MPI_Info dup;

        switch (op % 8) {
        case 0: /* set, then it must read back */
            k = str(&r);
            v = str(&r);
            if (MPI_Info_set(info, k, v) == MPI_SUCCESS) {
                if (MPI_Info_get_valuelen(info, k, &len, &flag) != MPI_SUCCESS || !flag ||
                    (size_t)len != strlen(v))
                    abort();
                out = malloc((size_t)len + 1);
                if (MPI_Info_get(info, k, len, out, &flag) != MPI_SUCCESS || !flag ||
                    strcmp(out, v) != 0)
                    abort();
            } else if (strlen(k) > 0 && strlen(k) < MPI_MAX_INFO_KEY &&
                       strlen(v) > 0 && strlen(v) < MPI_MAX_INFO_VAL) {
                abort(); /* a key and value within the limits must be accepted */
            }
            break;
        case 1: { /* get with any valuelen, into exactly valuelen + 1 bytes */
            int vl = byte(&r) * 5 - 10;
            k = str(&r);
            out = malloc(vl >= 0 ? (size_t)vl + 1 : 1);
            if (MPI_Info_get(info, k, vl, out, &flag) == MPI_SUCCESS && flag &&
                strlen(out) > (size_t)vl)
                abort();
            break;
        }
        case 2: { /* get_string: buflen in, the length needed out */
            int bl = byte(&r) * 5 - 10, want = bl;
            k = str(&r);
            out = malloc(bl > 0 ? (size_t)bl : 1);
            if (MPI_Info_get_string(info, k, &want, bl > 0 ? out : NULL, &flag) == MPI_SUCCESS &&
                flag && bl > 0 && strnlen(out, (size_t)bl) >= (size_t)bl)
                abort(); /* always terminated inside the buffer */
            break;
        }
        case 3:
            k = str(&r);
            MPI_Info_get_valuelen(info, k, &len, &flag);
            break;
        case 4:
            k = str(&r);
            MPI_Info_delete(info, k);
            if (MPI_Info_get_valuelen(info, k, &len, &flag) == MPI_SUCCESS && flag)
                abort();
            break;
        case 5:
            if (MPI_Info_dup(info, &dup) == MPI_SUCCESS) {
                int a, b;
                MPI_Info_get_nkeys(info, &a);
                MPI_Info_get_nkeys(dup, &b);
                if (a != b)
                    abort();
                MPI_Info_free(&info);
                info = dup;
            }
            break;
        case 6: {
            int nk = 0, i = byte(&r) - 2;
            char key[MPI_MAX_INFO_KEY + 1];
            MPI_Info_get_nkeys(info, &nk);
            if (MPI_Info_get_nthkey(info, i, key) == MPI_SUCCESS &&
                (i < 0 || i >= nk || strlen(key) > MPI_MAX_INFO_KEY))
                abort();
            break;
        }
        case 7:
            apply(info, byte(&r));
            break;
        }
        free(k);
        free(v);
        free(out);
    }
    MPI_Info_free(&info);
    return 0;
}
