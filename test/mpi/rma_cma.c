/*
 * One-sided operations on MPI_Win_create memory of processes on one node,
 * which Canal reaches with single-copy system calls (CMA) when it can and
 * with active messages otherwise. argv[1] says which the test expects:
 * "cma" or "am" (the runner sets CANAL_RMA_CMA=0 or CANAL_SHM_CMA=no for
 * the latter), or "seccomp": every rank forbids itself process_vm_readv
 * and process_vm_writev with a seccomp filter (EPERM, as container
 * runtimes do) before MPI_Init, so CMA is refused for real and the window
 * must fall back to active messages. The path shows in the RMA progress
 * thread, which only an active-message window starts (auto mode).
 *
 * Checked: puts and gets in fence, lock/flush/unlock and PSCW epochs, with
 * contiguous and strided (many-block) target types, and hundreds of small
 * ones to every rank in one epoch (queued by Canal until the flush); concurrent
 * MPI_Accumulate (SUM, 8 B to 64 KiB), MPI_Get_accumulate, MPI_Fetch_and_op
 * and MPI_Compare_and_swap from every rank into rank 0 (the target
 * included), whose totals are exact only if each is atomic; 0-byte and
 * MPI_PROC_NULL calls (no effect, and a 0-byte put outside an epoch is
 * still MPI_ERR_RMA_SYNC); an out-of-range put is MPI_ERR_RMA_RANGE; a
 * dynamic window beside it; MPI_Win_shared_query refused.
 */
#include "mtest.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* process_vm_readv/writev fail with EPERM from now on. */
static int forbid_cma(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#define N 8192 /* longs per rank: 64 KiB */
#define ROUNDS 20
#define TIGHT 20000

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "cma";
    int rank, size, t0, t1, want_cma = strcmp(mode, "cma") == 0, err, cls;
    long *mem, *buf, *res;
    MPI_Win win, dwin;
    MPI_Datatype vec;
    MPI_Group world_g;

    if (strcmp(mode, "seccomp") == 0 && forbid_cma() != 0) {
        printf("SKIP rma_cma: cannot install a seccomp filter (%s)\nNo Errors\n", strerror(errno));
        return 0;
    }
    mtest_init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;
    mem = calloc(N, sizeof *mem);
    buf = calloc(N, sizeof *buf);
    res = calloc(N, sizeof *res);

    t0 = mtest_count_threads();
    OK(MPI_Win_create(mem, N * (MPI_Aint)sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD,
                      &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    t1 = mtest_count_threads();
    CHECK(t1 - t0 == (want_cma ? 0 : 1),
          "mode %s: %d RMA progress thread(s) started with the window, want %d (%s)", mode, t1 - t0,
          want_cma ? 0 : 1, want_cma ? "CMA" : "active messages");

    /* fence: rank r puts r+1 into slot r of everybody, strided gets after */
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        mem[i] = 0;
    OK(MPI_Win_fence(0, win));
    buf[0] = rank + 1; /* (origin buffers stay valid until the epoch ends) */
    for (int p = 0; p < size; p++)
        OK(MPI_Put(&buf[0], 1, MPI_LONG, p, rank, 1, MPI_LONG, win));
    OK(MPI_Win_fence(0, win));
    for (int p = 0; p < size; p++)
        CHECK(mem[p] == p + 1, "fence put: slot %d holds %ld, want %d", p, mem[p], p + 1);
    for (int i = 0; i < N; i++)
        mem[i] = rank * 100000L + i;
    OK(MPI_Win_fence(0, win));
    /* 300 blocks of 2 longs, stride 5: more pieces than one system call takes */
    MPI_Type_vector(300, 2, 5, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    {
        int p = (rank + 1) % size;
        memset(buf, 0, N * sizeof *buf);
        OK(MPI_Get(buf, 600, MPI_LONG, p, 3, 1, vec, win));
        OK(MPI_Win_fence(0, win));
        for (int b = 0, k = 0; b < 300; b++)
            for (int j = 0; j < 2; j++, k++)
                CHECK(buf[k] == p * 100000L + 3 + b * 5 + j, "strided get: [%d] = %ld", k, buf[k]);
    }

    /* lock/flush/unlock: put a strided pattern into the next rank, read it back */
    {
        int p = (rank + 1) % size;
        for (int k = 0; k < 600; k++)
            buf[k] = -(rank * 1000L + k);
        OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, p, 0, win));
        OK(MPI_Put(buf, 600, MPI_LONG, p, 7, 1, vec, win));
        OK(MPI_Win_flush(p, win));
        memset(res, 0, N * sizeof *res);
        OK(MPI_Get(res, 600, MPI_LONG, p, 7, 1, vec, win));
        OK(MPI_Win_unlock(p, win));
        for (int k = 0; k < 600; k++)
            CHECK(res[k] == buf[k], "lock put/get: [%d] = %ld, want %ld", k, res[k], buf[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        /* what the previous rank wrote is here */
        int q = (rank + size - 1) % size;
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        for (int b = 0, k = 0; b < 300; b++)
            for (int j = 0; j < 2; j++, k++)
                CHECK(mem[7 + b * 5 + j] == -(q * 1000L + k), "remote put landed: [%d] = %ld",
                      7 + b * 5 + j, mem[7 + b * 5 + j]);
        MPI_Win_unlock(rank, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* many small puts and gets in one passive epoch, to every rank in turn
     * (Canal queues them and moves them at the flush) */
    {
        long *back = calloc(200, sizeof *back), *src = calloc(200, sizeof *src);
        OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < 200; i++) {
            src[i] = rank * 1000L + i;
            OK(MPI_Put(&src[i], 1, MPI_LONG, i % size, 1000 + rank * 200 + i, 1, MPI_LONG, win));
        }
        OK(MPI_Win_flush_all(win));
        for (int i = 0; i < 200; i++)
            OK(MPI_Get(&back[i], 1, MPI_LONG, i % size, 1000 + rank * 200 + i, 1, MPI_LONG, win));
        OK(MPI_Win_flush_local_all(win));
        for (int i = 0; i < 200; i++)
            CHECK(back[i] == src[i], "small put/get %d: %ld, want %ld", i, back[i], src[i]);
        OK(MPI_Win_unlock_all(win));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        for (int o = 0; o < size; o++)
            for (int i = rank; i < 200; i += size)
                CHECK(mem[1000 + o * 200 + i] == o * 1000L + i, "small put from %d landed: %ld", o,
                      mem[1000 + o * 200 + i]);
        MPI_Win_unlock(rank, win);
        MPI_Barrier(MPI_COMM_WORLD);
        /* one put per exclusive epoch: complete at each unlock */
        int p = (rank + 1) % size;
        for (int i = 0; i < 50; i++) {
            long v = 5000 + i, got = -1;
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, p, 0, win));
            OK(MPI_Put(&v, 1, MPI_LONG, p, 2000 + rank, 1, MPI_LONG, win));
            OK(MPI_Win_unlock(p, win));
            OK(MPI_Win_lock(MPI_LOCK_SHARED, p, 0, win));
            OK(MPI_Get(&got, 1, MPI_LONG, p, 2000 + rank, 1, MPI_LONG, win));
            OK(MPI_Win_unlock(p, win));
            CHECK(got == v, "put/unlock/get/unlock %d: %ld", i, got);
        }
        free(back);
        free(src);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* PSCW: everybody exposes to everybody; each origin writes its slot */
    MPI_Comm_group(MPI_COMM_WORLD, &world_g);
    OK(MPI_Win_post(world_g, 0, win));
    OK(MPI_Win_start(world_g, 0, win));
    buf[0] = 7000 + rank;
    for (int p = 0; p < size; p++)
        OK(MPI_Put(&buf[0], 1, MPI_LONG, p, 100 + rank, 1, MPI_LONG, win));
    OK(MPI_Win_complete(win));
    OK(MPI_Win_wait(win));
    for (int p = 0; p < size; p++)
        CHECK(mem[100 + p] == 7000 + p, "PSCW put: slot %d holds %ld", 100 + p, mem[100 + p]);
    MPI_Group_free(&world_g);

    /* concurrent accumulates into rank 0 from every rank (rank 0 too) */
    OK(MPI_Win_fence(0, win));
    if (rank == 0)
        memset(mem, 0, N * sizeof *mem);
    OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        buf[i] = i + 1;
    OK(MPI_Win_lock_all(0, win));
    for (int r = 0; r < ROUNDS; r++) {
        int counts[] = {1, 64, 1024, N - 64};
        static long one = 1, old = 0, cmp, got;
        for (int c = 0; c < 4; c++)
            OK(MPI_Accumulate(buf, counts[c], MPI_LONG, 0, 64, counts[c], MPI_LONG, MPI_SUM, win));
        OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win));
        OK(MPI_Get_accumulate(&one, 1, MPI_LONG, res, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM,
                              win));
        /* a compare-and-swap increment of slot 2: retries until it wins */
        OK(MPI_Fetch_and_op(NULL, &cmp, MPI_LONG, 0, 2, MPI_NO_OP, win));
        OK(MPI_Win_flush(0, win));
        for (;;) {
            long next = cmp + 1;
            OK(MPI_Compare_and_swap(&next, &cmp, &got, MPI_LONG, 0, 2, win));
            OK(MPI_Win_flush(0, win));
            if (got == cmp)
                break;
            cmp = got;
        }
    }
    /* many small ones in a row: the window for a lost update is small.
     * (Origin and result buffers stay valid until the flush: static.) */
    {
        static long one[2] = {1, 2}, old;
        for (int r = 0; r < TIGHT; r++) {
            OK(MPI_Accumulate(one, 1, MPI_LONG, 0, 3, 1, MPI_LONG, MPI_SUM, win));
            OK(MPI_Fetch_and_op(one, &old, MPI_LONG, 0, 4, MPI_SUM, win));
        }
        OK(MPI_Win_flush(0, win));
        /* runs of accumulates only, to three nearby slots and a pair */
        for (int r = 0; r < TIGHT; r++) {
            OK(MPI_Accumulate(one, 1, MPI_LONG, 0, 5 + r % 3, 1, MPI_LONG, MPI_SUM, win));
            if (r % 7 == 0)
                OK(MPI_Accumulate(one, 2, MPI_LONG, 0, 9, 2, MPI_LONG, MPI_SUM, win));
        }
    }
    OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        for (int k = 0; k < 3; k++) {
            long want = (long)((TIGHT - k + 2) / 3) * size;
            CHECK(mem[5 + k] == want, "accumulate run total at %d: %ld, want %ld", 5 + k,
                  mem[5 + k], want);
        }
        CHECK(mem[9] == (long)((TIGHT + 6) / 7) * size && mem[10] == 2 * mem[9],
              "accumulate pair totals %ld %ld, want %ld and twice that", mem[9], mem[10],
              (long)((TIGHT + 6) / 7) * size);
        CHECK(mem[3] == (long)TIGHT * size, "accumulate (tight loop) total %ld, want %ld", mem[3],
              (long)TIGHT * size);
        CHECK(mem[4] == (long)TIGHT * size, "fetch_and_op (tight loop) total %ld, want %ld", mem[4],
              (long)TIGHT * size);
        CHECK(mem[0] == (long)ROUNDS * size, "fetch_and_op total %ld, want %ld", mem[0],
              (long)ROUNDS * size);
        CHECK(mem[1] == (long)ROUNDS * size, "get_accumulate total %ld, want %ld", mem[1],
              (long)ROUNDS * size);
        CHECK(mem[2] == (long)ROUNDS * size, "compare_and_swap total %ld, want %ld", mem[2],
              (long)ROUNDS * size);
        for (int i = 0; i < N - 64; i++) {
            long per = (i < 1 ? 4 : i < 64 ? 3 : i < 1024 ? 2 : 1) * (long)(i + 1);
            if (mem[64 + i] != per * ROUNDS * size) {
                CHECK(0, "accumulate total at %d: %ld, want %ld", 64 + i, mem[64 + i],
                      per * ROUNDS * size);
                break;
            }
        }
        MPI_Win_unlock(0, win);
    }

    /* 0-byte and MPI_PROC_NULL calls do nothing; outside an epoch a
     * 0-byte put is still an epoch error */
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Win_lock_all(0, win));
    OK(MPI_Put(buf, 0, MPI_LONG, (rank + 1) % size, 0, 0, MPI_LONG, win));
    OK(MPI_Get(buf, 0, MPI_LONG, (rank + 1) % size, 0, 0, MPI_LONG, win));
    OK(MPI_Accumulate(buf, 0, MPI_LONG, (rank + 1) % size, 0, 0, MPI_LONG, MPI_SUM, win));
    OK(MPI_Put(buf, 4, MPI_LONG, MPI_PROC_NULL, 0, 4, MPI_LONG, win));
    OK(MPI_Fetch_and_op(buf, res, MPI_LONG, MPI_PROC_NULL, 0, MPI_SUM, win));
    OK(MPI_Win_unlock_all(win));
    err = MPI_Put(buf, 0, MPI_LONG, (rank + 1) % size, 0, 0, MPI_LONG, win);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "0-byte put outside an epoch: class %d, want MPI_ERR_RMA_SYNC",
          cls);
    /* out of range: refused at the origin */
    OK(MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % size, 0, win));
    err = MPI_Put(buf, 2, MPI_LONG, (rank + 1) % size, N - 1, 2, MPI_LONG, win);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put past the window: class %d, want MPI_ERR_RMA_RANGE", cls);
    OK(MPI_Win_unlock((rank + 1) % size, win));
    {
        MPI_Aint sz;
        int du;
        void *bp;
        err = MPI_Win_shared_query(win, 0, &sz, &du, &bp);
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a created window: class %d", cls);
    }

    /* a dynamic window next to it (active messages) */
    {
        long *dm = calloc(16, sizeof *dm);
        MPI_Aint addr, *addrs = malloc(sizeof *addrs * (size_t)size);
        long v = rank + 1, total = 0;
        OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin));
        OK(MPI_Win_attach(dwin, dm, 16 * sizeof *dm));
        MPI_Get_address(dm, &addr);
        MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
        OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, dwin));
        OK(MPI_Accumulate(&v, 1, MPI_LONG, 0, addrs[0], 1, MPI_LONG, MPI_SUM, dwin));
        OK(MPI_Win_unlock(0, dwin));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, dwin);
            total = dm[0];
            MPI_Win_unlock(0, dwin);
            CHECK(total == (long)size * (size + 1) / 2, "dynamic accumulate %ld", total);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        OK(MPI_Win_detach(dwin, dm));
        OK(MPI_Win_free(&dwin));
        free(dm);
        free(addrs);
    }

    MPI_Type_free(&vec);
    OK(MPI_Win_free(&win));
    free(mem);
    free(buf);
    free(res);
    return mtest_finish();
}
