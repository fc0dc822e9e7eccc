/*
 * CANAL_SHM_CMA=yes (the user demands single copy) and a single copy that
 * fails at run time: the message still arrives whole (through the ring),
 * and each rank says so on stderr once, naming itself, the peer and the
 * errno; under the default auto it says nothing. Every rank sends every
 * other rank ROUNDS messages of 256 KiB (rendezvous: the receiver reads
 * them with process_vm_readv, or the sender writes half with
 * process_vm_writev) and receives theirs, each byte checked. The knobs
 * CANAL_SHM_CMA_FAIL_AFTER (a read fails) and CANAL_SHM_CMA_WRITE_FAIL
 * (every write fails: many failures, still one line) make the failures.
 * stderr is caught in a file after MPI_Init; at the end each rank
 * counts the warning's lines in it (at most one), copies it back to
 * stderr, and the job's count is checked against args: 1 (yes: at least
 * one) or 0 (auto: none). With CANAL_SHM_CMA_FAIL_AFTER=0,probe (the
 * init probes fail, as where CMA cannot work at all) under yes, MPI_Init
 * must fail saying so (the testlist's expect and output), under auto the
 * job runs through the ring.
 */
#include "mtest.h"

#include <fcntl.h>
#include <unistd.h>

enum { LEN = 256 * 1024, ROUNDS = 12 };

static const char warning[] = "CANAL_SHM_CMA=yes, but process_vm_";

static unsigned char byte_of(int from, int to, int round, size_t i)
{
    return (unsigned char)(from * 31 + to * 7 + round * 13 + i % 251);
}

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 1;
    char path[64], line[1024];
    int saved, fd, lines = 0, named = 0, total = 0;
    unsigned char **sb, **rb;
    MPI_Request *r;
    FILE *f;

    mtest_init(&argc, &argv);
    snprintf(path, sizeof path, "/tmp/canal-cma-yes-%d.err", (int)getpid());
    saved = dup(2);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (saved < 0 || fd < 0 || dup2(fd, 2) < 0) {
        perror("pt2pt_cma_yes: catching stderr");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    close(fd);
    sb = calloc(mtest_size, sizeof *sb);
    rb = calloc(mtest_size, sizeof *rb);
    r = calloc(2 * mtest_size, sizeof *r);
    for (int p = 0; p < mtest_size; p++) {
        sb[p] = malloc(LEN);
        rb[p] = malloc(LEN);
    }
    for (int round = 0; round < ROUNDS; round++) {
        int n = 0;
        for (int p = 0; p < mtest_size; p++) {
            if (p == mtest_rank)
                continue;
            memset(rb[p], 0, LEN);
            for (size_t i = 0; i < LEN; i++)
                sb[p][i] = byte_of(mtest_rank, p, round, i);
            OK(MPI_Irecv(rb[p], LEN, MPI_BYTE, p, round, MPI_COMM_WORLD, &r[n++]));
            OK(MPI_Isend(sb[p], LEN, MPI_BYTE, p, round, MPI_COMM_WORLD, &r[n++]));
        }
        OK(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
        for (int p = 0; p < mtest_size; p++) {
            size_t bad = LEN;
            if (p == mtest_rank)
                continue;
            for (size_t i = 0; i < LEN && bad == LEN; i++)
                if (rb[p][i] != byte_of(p, mtest_rank, round, i))
                    bad = i;
            CHECK(bad == LEN, "round %d: byte %zu from rank %d is %#x, want %#x", round, bad, p,
                  bad < LEN ? rb[p][bad] : 0, bad < LEN ? byte_of(p, mtest_rank, round, bad) : 0);
        }
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));

    /* (the warning is written before the message it is about completes) */
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    f = fopen(path, "r");
    CHECK(f != NULL, "cannot read back %s", path);
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char me[32];
        fputs(line, stderr);
        if (strstr(line, warning) == NULL)
            continue;
        lines++;
        snprintf(me, sizeof me, "failed on rank %d: ", mtest_rank);
        named += strstr(line, me) != NULL && strstr(line, "(errno ") != NULL &&
                 strstr(line, " rank ") != NULL;
    }
    if (f != NULL)
        fclose(f);
    unlink(path);
    /* (once per process however many copies failed; which ranks' copies
     * fail depends on who reads and who writes, so the count is the
     * job's: at least one under yes, none under auto) */
    CHECK(lines <= 1, "rank %d: %d warning lines about failed single copies, want at most one",
          mtest_rank, lines);
    OK(MPI_Allreduce(&lines, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(want ? total >= 1 : total == 0,
          "rank %d: %d warning line(s) about failed single copies in the job, want %s",
          mtest_rank, total, want ? "one per rank whose copy failed" : "none");
    CHECK(named == lines, "rank %d: a warning does not name this rank, the peer and the errno",
          mtest_rank);
    for (int p = 0; p < mtest_size; p++) {
        free(sb[p]);
        free(rb[p]);
    }
    free(sb);
    free(rb);
    free(r);
    return mtest_finish();
}
