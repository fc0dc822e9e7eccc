/*
 * Unit tests of the shared-memory channel (channels/shm/): the table of
 * cases every channel runs (ch_conform.c: order, sizes, sendv from inside
 * on_packet, block/wake, sendv's argument checks), then what is shm's own:
 * counters that wrap, two nodes, ring back-pressure, rdma_read (one, pieces, batches) through CMA,
 * a read denied inside a batch (the test knob CANAL_SHM_CMA_FAIL_AFTER),
 * futex sleeps, and the segment's life in /dev/shm. Each test forks a small job through
 * test/unit/fake_pmi.c; the ranks check their own results and report by
 * exit status, which the Check test asserts.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "channels/channel.h"
#include "channels/shm/shm.h"
#include "test/unit/ch_conform.h"

#define SHM_ST ((ch_shm_state_t *)EP->state)

static void shm_wake(int peer)
{
    ch_wake(EP, peer);
}

static void shm_on_fail(void)
{
    ch_finalize(EP); /* removes the segment name if we still own it */
}

const conf_channel_t conf_channel = {
    .file = "test_ch_shm.c",
    .ops = &ch_shm_ops,
    .after_send = shm_wake,
    .on_fail = shm_on_fail,
    .self_send = 1,
    .pingpong_rounds = 20000,
};

static void on_peer_failed_unused(int peer, canal_status_t st) {}

static ch_upcalls_t up_check = {on_packet_check, on_rdma_done_unused, on_peer_failed_unused};

static void bring_up(ch_upcalls_t *up)
{
    conf_bring_up(up);
}

/* ---- layout ------------------------------------------------------------- */

START_TEST(test_layout)
{
    ch_shm_layout_t lay;
    size_t prev = 0;

    for (int L = 1; L <= 256; L *= 2) {
        ck_assert_int_eq(ch_shm_layout_compute(L, 16384, 16, 64u << 20, &lay), CANAL_OK);
        ck_assert_int_eq(lay.local_size, L);
        ck_assert(lay.ncells >= 2);
        ck_assert(lay.payload_cap >= 1024);
        ck_assert_int_eq(lay.cell_stride % 64, 0);
        ck_assert(lay.cell_stride >= SHM_CELL_HEAD + CH_HDR_MAX + lay.payload_cap);
        ck_assert_int_eq(lay.rings_off % 4096, 0);
        ck_assert_int_eq(lay.block_stride % 4096, 0);
        ck_assert(lay.block_stride >= (size_t)L * lay.ring_stride);
        if (L <= 128)
            ck_assert_msg(lay.seg_size <= 64u << 20, "L=%d: %zu bytes", L, lay.seg_size);
        if (L <= 8)
            ck_assert_int_eq(lay.payload_cap, 16384);
        ck_assert(lay.seg_size >= prev || L > 16);
        prev = lay.seg_size;
    }
    ck_assert_int_eq(ch_shm_layout_compute(2, 16384, 16, 64u << 20, &lay), CANAL_OK);
    ck_assert_int_eq(lay.ncells, 16);
    ck_assert_int_eq(ch_shm_layout_compute(0, 16384, 16, 64u << 20, &lay), CANAL_ERR_ARG);
    ck_assert_int_eq(ch_shm_layout_compute(-3, 16384, 16, 64u << 20, &lay), CANAL_ERR_ARG);
    ck_assert_int_eq(ch_shm_layout_compute(2, 16384, 16, 64u << 20, NULL), CANAL_ERR_ARG);
}
END_TEST

/* ---- segment lifetime ------------------------------------------------- */

static int body_segment(int rank, void *arg)
{
    char path[256];
    canal_status_t st;

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    st = ch_init(EP, &info, &up_check, &caps);
    T_CHECK(st == CANAL_OK, "init: %d", st);
    T_CHECK(caps.local_only == 1, "local_only");
    T_CHECK(caps.max_payload == SHM_ST->lay.payload_cap, "max_payload");
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (info.local_rank == 0) {
        snprintf(path, sizeof path, "/dev/shm%s", ch_shm_segment_name(EP));
        T_CHECK(access(path, F_OK) == 0, "%s should exist between init and post_fence", path);
    }
    st = ch_post_fence(EP);
    T_CHECK(st == CANAL_OK, "post_fence: %d", st);
    /* The creator unlinks right after the fence inside post_fence; when
     * every rank has returned from post_fence, the name is gone. */
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    snprintf(path, sizeof path, "/dev/shm%s", ch_shm_segment_name(EP));
    T_CHECK(strncmp(ch_shm_segment_name(EP), "/canal-", 7) == 0, "name %s",
            ch_shm_segment_name(EP));
    T_CHECK(access(path, F_OK) != 0 && errno == ENOENT, "%s still exists after post_fence", path);
    for (int r = 0; r < info.size; r++)
        T_CHECK(ch_reaches(EP, r), "reaches(%d)", r);
    T_CHECK(!ch_reaches(EP, -1) && !ch_reaches(EP, info.size), "reaches out of range");
    return tear_down();
}

START_TEST(test_segment_gone_2)
{
    ck_assert_int_eq(run_job(2, 1, body_segment, NULL), 0);
}
END_TEST
START_TEST(test_segment_gone_4)
{
    ck_assert_int_eq(run_job(4, 1, body_segment, NULL), 0);
}
END_TEST

/* The creator dies by a signal between create and unlink. */
static char *crash_name; /* shared with the parent */

static int body_crash(int rank, void *arg)
{
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    if (rank != 0)
        return 0;
    /* Check's runner handler would take the whole test down with us. */
    signal(SIGTERM, SIG_DFL);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_OK, "init");
    snprintf(crash_name, 256, "/dev/shm%s", ch_shm_segment_name(EP));
    T_CHECK(access(crash_name, F_OK) == 0, "%s should exist", crash_name);
    raise(SIGTERM);
    return 0;
}

START_TEST(test_crash_cleanup)
{
    int ws[2];
    fake_pmi_job_t job = {.nprocs = 2, .wstatus_out = ws};

    crash_name = mmap(NULL, 256, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert(crash_name != MAP_FAILED);
    crash_name[0] = '\0';
    ck_assert_int_eq(fake_pmi_run(&job, body_crash, NULL), 1);
    ck_assert(WIFSIGNALED(ws[0]) && WTERMSIG(ws[0]) == SIGTERM);
    ck_assert(WIFEXITED(ws[1]) && WEXITSTATUS(ws[1]) == 0);
    ck_assert_msg(crash_name[0] != '\0', "rank 0 never created the segment");
    ck_assert_msg(access(crash_name, F_OK) != 0, "%s left behind", crash_name);
    munmap(crash_name, 256);
}
END_TEST

/* The creator reports a failure through the KVS ("!reason"): the others'
 * post_fence fails with that reason, and nobody hangs in the fence. */
static int body_creator_failed(int rank, void *arg)
{
    canal_status_t st;
    char path[256];

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_OK, "init");
    if (rank == 0)
        T_CHECK(pmi_put("canal-shm-seg", "!injected failure") == CANAL_OK, "put");
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    snprintf(path, sizeof path, "/dev/shm%s", ch_shm_segment_name(EP));
    st = ch_post_fence(EP);
    if (rank == 0) {
        T_CHECK(st == CANAL_OK, "creator's post_fence: %d", st);
        T_CHECK(access(path, F_OK) != 0, "%s left behind", path);
    } else {
        T_CHECK(st == CANAL_ERR_IO, "post_fence: %d", st);
        T_CHECK(strstr(common_err_detail(), "injected failure") != NULL, "message: %s",
                common_err_detail());
        T_CHECK(ch_sendv(EP, 0, NULL, 0) < 0 && ch_progress(EP) == 0, "usable after failure");
    }
    T_CHECK(ch_finalize(EP) == CANAL_OK, "finalize");
    return 0;
}

START_TEST(test_creator_failed)
{
    ck_assert_int_eq(run_job(3, 1, body_creator_failed, NULL), 0);
}
END_TEST

/* ---- ordering, sizes, back-pressure ------------------------------------ */

/* The same with the ring counters starting just below 2^32, so they wrap. */
static int body_order_wrap(int rank, void *arg)
{
    ch_shm_test_count_base = UINT32_MAX - CONF_ORDER_MSGS / 2;
    return conf_body_order(rank, arg);
}

START_TEST(test_order_wrap)
{
    ck_assert_int_eq(run_job(3, 1, body_order_wrap, NULL), 0);
}
END_TEST

/* order_wrap meets record number 0 (the one after UINT32_MAX) at a line
 * start no record has reached yet only when that record lands past every
 * one sent before (1 run in 10-20), and fails only if the reader has
 * caught up and polls there before it is written: ci65 saw it once. Here
 * record 0 comes early in the ring's first lap, at a line start (record 3
 * or 4 after a 16 KiB, a 1-byte and an 8-byte message; loop index k: the
 * counters start at UINT32_MAX - 3 - k % 2), and every rank polls after
 * each send, so that readers are mostly caught up: 3 ranks, each sending
 * ORDER_LAP1_MSGS to the two others, interleaved, with order_wrap's sizes. */
enum { ORDER_LAP1_MSGS = 64 };

static int body_order_wrap_first_lap(int rank, void *arg)
{
    unsigned char *buf;
    int peers[2] = {(rank + 1) % 3, (rank + 2) % 3};

    ch_shm_test_count_base = UINT32_MAX - 3 - (uint32_t)(uintptr_t)arg % 2;
    bring_up(&up_check);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    for (unsigned i = 0; i < ORDER_LAP1_MSGS; i++)
        for (int k = 0; k < 2; k++) {
            send_checked(peers[k], i, conf_order_len(i, caps.max_payload), buf);
            T_CHECK(poll_once() >= 0, "progress");
        }
    wait_delivered(2L * ORDER_LAP1_MSGS);
    for (int k = 0; k < 2; k++)
        T_CHECK(received[peers[k]] == ORDER_LAP1_MSGS, "from %d: %u", peers[k],
                received[peers[k]]);
    free(buf);
    return tear_down();
}

START_TEST(test_order_wrap_first_lap)
{
    ck_assert_int_eq(run_job(3, 1, body_order_wrap_first_lap, (void *)(uintptr_t)_i), 0);
}
END_TEST
/* Two simulated nodes of two ranks: one segment each, peers on the other
 * node not reached. */
static int body_two_nodes(int rank, void *arg)
{
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    for (int r = 0; r < info.size; r++)
        T_CHECK(ch_reaches(EP, r) == 0, "reaches before init");
    return conf_body_order(rank, arg);
}

START_TEST(test_two_nodes)
{
    ck_assert_int_eq(run_job(4, 2, body_two_nodes, NULL), 0);
}
END_TEST

/* More ranks than cores: needs the waits to yield. */
START_TEST(test_order_8)
{
    ck_assert_int_eq(run_job(8, 1, conf_body_order, NULL), 0);
}
END_TEST

/* Where the sender puts a record of rec bytes, as sendv does it: its offset;
 * *pos and *recs move past it (and a skip record before it), and *bytes
 * grows by the ring bytes it takes (skip and padding included). */
static uint32_t ring_place(uint32_t *pos, uint32_t *recs, uint32_t rec, uint32_t ring,
                           size_t *bytes)
{
    uint32_t at = *pos + rec > ring ? 0 : *pos, end = ch_shm_rec_next(at, rec);

    *recs += *pos + rec > ring ? 2 : 1;
    *bytes += (at == *pos ? 0 : ring - *pos) + (end - at);
    *pos = end == ring ? 0 : end;
    return at;
}

static uint32_t la_place(uint32_t *pos, uint32_t *recs, uint32_t rec, uint32_t ring)
{
    size_t bytes = 0;
    return ring_place(pos, recs, rec, ring, &bytes);
}

/* Rank 0 fills the ring while rank 1 does not read, must get AGAIN once the
 * records (and at most one skip at the end of the ring) fill it; then rank 1
 * drains while rank 0 pushes the rest. */
enum { BP_MSGS = 20000 };

/* Poll until n messages from rank 0 arrived (a hang fails the rank). */
static void wait_received(unsigned n, const char *what)
{
    double t0 = now_s();

    while (received[0] < n) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(now_s() - t0 < unit_hang_s(), "%s: only %u of %u arrived", what, received[0], n);
    }
}

static int body_backpressure(int rank, void *arg)
{
    unsigned char *buf;

    bring_up(&up_check);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    if (rank == 0) {
        unsigned seq = 0;
        size_t used = 0, next = 0;
        uint32_t ring = (uint32_t)SHM_ST->lay.ring_bytes, pos = 0, recs = 0;
        canal_status_t st;
        for (;;) {
            size_t len = seq % 3 == 0 ? caps.max_payload : seq % 3 == 1 ? 0 : 77;
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            make_payload(buf, 0, seq, len);
            uint32_t pos_next = pos, recs_next = recs;
            next = 0;
            ring_place(&pos_next, &recs_next, ch_shm_rec_size(sizeof h, len), ring, &next);
            st = ch_sendv(EP, 1, iov, 2);
            if (st == CANAL_AGAIN)
                break;
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            used += next;
            pos = pos_next;
            recs = recs_next;
            seq++;
            T_CHECK(seq <= 100000, "never got CANAL_AGAIN");
        }
        T_CHECK(used + SHM_REC_HEAD <= ring && used + next + SHM_REC_HEAD > ring,
                "AGAIN after %u packets of %zu bytes in all (the next %zu), ring of %u", seq,
                used, next, ring);
        /* A second try of the same packet without the reader moving must
         * also say AGAIN. */
        {
            size_t len = seq % 3 == 0 ? caps.max_payload : seq % 3 == 1 ? 0 : 77;
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            T_CHECK(ch_sendv(EP, 1, iov, 2) == CANAL_AGAIN, "second AGAIN");
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        for (; seq < BP_MSGS; seq++)
            send_checked(1, seq, seq % 3 == 0 ? caps.max_payload : seq % 3 == 1 ? 0 : 77, buf);
    } else {
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        wait_received(BP_MSGS, "backpressure");
    }
    free(buf);
    return tear_down();
}

START_TEST(test_backpressure)
{
    ck_assert_int_eq(run_job(2, 1, body_backpressure, NULL), 0);
}
END_TEST

/* ---- turns: the line a pair shares --------------------------------------- */

/* Send checked packet seq of len bytes from rank 0 to 1, as a turn or not. */
static void turn_send(int turn, unsigned seq, size_t len, unsigned char *buf)
{
    thdr_t h = {THDR_MAGIC, (uint32_t)info.rank, seq, (uint32_t)len};
    struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
    canal_status_t st;

    make_payload(buf, info.rank, seq, len);
    st = turn ? ch_sendv_turn(EP, 1 - info.rank, iov, 2) : ch_sendv(EP, 1 - info.rank, iov, 2);
    T_CHECK(st == CANAL_OK, "%s seq %u len %zu: %d", turn ? "sendv_turn" : "sendv", seq, len, st);
}

/* Wait until n packets from the peer have arrived. */
static void turn_wait(unsigned n, const char *what)
{
    double t0 = now_s();

    while (received[1 - info.rank] < n) {
        T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(now_s() - t0 < unit_hang_s(), "%s: %u of %u arrived", what,
                received[1 - info.rank], n);
    }
}

/* Rank 1 answers with a turn of its own, which acknowledges rank 0's last
 * (the only way a turn is acknowledged); rank 0 waits for it. */
static void turn_answer(unsigned *seq1, const char *what, unsigned char *buf)
{
    if (info.rank == 1) {
        unsigned long t0 = SHM_ST->turns_sent;
        turn_send(1, (*seq1)++, 0, buf);
        T_CHECK(SHM_ST->turns_sent == t0 + 1, "%s: the answer took the ring", what);
    } else {
        turn_wait(++*seq1, what);
    }
}

/* A ping-pong of turns goes through the pair's line, every one (each
 * answer acknowledges the turn it answers); a turn the peer has not
 * acknowledged yet, one
 * too large, or one to itself takes the ring; turns and ring records
 * arrive in the order they were sent, both ways round (on_packet_check);
 * and a turn wakes a peer asleep in block(). */
static int body_turns(int rank, void *arg)
{
    enum { PP = 2000 };
    unsigned char buf[128];
    unsigned seq = 0, seq1 = PP; /* rank 0's packets, rank 1's */
    unsigned long t0;

    (void)arg;
    bring_up(&up_check);
    for (unsigned i = 0; i < PP; i++) {
        if (rank == 0) {
            turn_send(1, i, i % 9, buf);
            turn_wait(i + 1, "ping-pong");
        } else {
            turn_wait(i + 1, "ping-pong");
            turn_send(1, i, i % 9, buf);
        }
    }
    T_CHECK(SHM_ST->turns_sent == PP, "%lu of %d ping-pong turns through the line",
            SHM_ST->turns_sent, PP);
    seq = PP;
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 0) {
        /* The peer reads nothing until the fence: the first turn fills the
         * half, the rest go through the ring behind it. */
        t0 = SHM_ST->turns_sent;
        turn_send(1, seq++, 8, buf);
        turn_send(1, seq++, 1, buf);
        turn_send(0, seq++, 100, buf);
        turn_send(1, seq++, 0, buf);
        T_CHECK(SHM_ST->turns_sent == t0 + 1, "%lu turns with the half full",
                SHM_ST->turns_sent - t0);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    seq = PP + 4;
    if (rank == 1) {
        turn_wait(seq, "a full half");
        /* Taken, not acknowledged: a poll writes nothing to the line. */
        T_CHECK(ch_progress(EP) >= 0, "progress");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 0) {
        t0 = SHM_ST->turns_sent;
        turn_send(1, seq++, 2, buf);
        T_CHECK(SHM_ST->turns_sent == t0, "a turn before the peer acknowledged the last");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    turn_answer(&seq1, "the first answer", buf);
    if (rank == 0) {
        /* Ring, turn, ring: the turn must wait for the record before it
         * and pass none after it. Then one too large and one to itself. */
        t0 = SHM_ST->turns_sent;
        turn_send(0, seq++, 48, buf);
        turn_send(1, seq++, 8, buf);
        turn_send(0, seq++, 3, buf);
        T_CHECK(SHM_ST->turns_sent == t0 + 1, "the acknowledged half not taken");
        turn_send(1, seq++, 9, buf); /* 16 + 9 bytes: the ring */
        T_CHECK(SHM_ST->turns_sent == t0 + 1, "a turn of 25 bytes in the half");
        {
            thdr_t h = {THDR_MAGIC, 0, 0, 8};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, 8}};
            make_payload(buf, 0, 0, 8);
            T_CHECK(ch_sendv_turn(EP, 0, iov, 2) == CANAL_OK, "a turn to itself");
            for (double w0 = now_s(); received[0] < 1;) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - w0 < unit_hang_s(), "the turn to itself never arrived");
            }
        }
        T_CHECK(SHM_ST->turns_sent == t0 + 1, "a turn to itself in a half");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    seq = PP + 9;
    if (rank == 1)
        turn_wait(seq, "ring, turn, ring");
    turn_answer(&seq1, "the second answer", buf);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    /* Rank 1 sleeps with nothing to read; rank 0's turn must wake it. */
    if (rank == 0) {
        sleep_ms(100);
        t0 = SHM_ST->turns_sent;
        turn_send(1, seq++, 4, buf);
        T_CHECK(SHM_ST->turns_sent == t0 + 1, "the wake-up turn took the ring");
    } else {
        double w0 = now_s();
        while (received[0] < seq + 1) {
            T_CHECK(ch_block(EP, unit_block_forever_us()) == CANAL_OK, "block");
            T_CHECK(ch_progress(EP) >= 0, "progress");
            T_CHECK(now_s() - w0 < unit_hang_s(), "the turn did not wake the sleeper");
        }
    }
    return tear_down();
}

START_TEST(test_turns)
{
    ck_assert_int_eq(run_job(2, 1, body_turns, NULL), 0);
}
END_TEST

/* The ranks' CANAL_SHM_TURNS may differ: rank 1 runs with 0 and sends no
 * turns, but must still take rank 0's. Rank 0's first turn goes through the
 * line; rank 1's answers through the ring acknowledge nothing, so the rest
 * of rank 0's take the ring too. Every packet arrives, in order. */
static int body_turns_mixed(int rank, void *arg)
{
    enum { PP = 200 };
    unsigned char buf[16];

    (void)arg;
    if (rank == 1)
        setenv("CANAL_SHM_TURNS", "0", 1);
    bring_up(&up_check);
    for (unsigned i = 0; i < PP; i++) {
        if (rank == 0) {
            turn_send(1, i, 8, buf);
            turn_wait(i + 1, "ping-pong");
        } else {
            turn_wait(i + 1, "ping-pong");
            turn_send(1, i, 8, buf);
        }
    }
    T_CHECK(SHM_ST->turns_sent == (rank == 0 ? 1u : 0u), "rank %d sent %lu turns", rank,
            SHM_ST->turns_sent);
    return tear_down();
}

START_TEST(test_turns_mixed)
{
    ck_assert_int_eq(run_job(2, 1, body_turns_mixed, NULL), 0);
}
END_TEST

/* ---- the straight path --------------------------------------------------- */

/* sendv()'s straight path (a header and one payload of at most 32 bytes, or
 * none) against its guarantees, with both directions busy: each rank fills
 * its ring to the other until AGAIN without reading, so both rings are full
 * at once, then both stream the rest, reading only when sendv() says AGAIN.
 * Payloads of 0-32 bytes (0 also as a one-iovec packet) put records of 24-56
 * bytes at every offset of a line, so records meet the ring's end (a skip),
 * the soft wrap's boundaries and a full ring in every phase; the counters
 * start below 2^32 when arg says so. Then a ping-pong in which the reader
 * sleeps in block() and only sendv() wakes it (no wake() after a send). */
enum { STRAIGHT_ROUNDS = 300 };

/* arg's bits: 1 the counters start below 2^32; 2 payloads of 0-1099 bytes,
 * so the straight path's mid-size records (65-1024 bytes, placed 32-aligned
 * and copied by memcpy) meet the same ends, mixed with the general path's
 * larger ones (test_straight_mid). */
static int straight_mid;

static size_t straight_len(unsigned seq)
{
    return straight_mid ? (seq * 97u) % 1100 : (seq * 7u) % 33;
}

static canal_status_t straight_send(int peer, unsigned seq, unsigned char *buf)
{
    size_t len = straight_len(seq);
    thdr_t h = {THDR_MAGIC, (uint32_t)info.rank, seq, (uint32_t)len};
    struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};

    make_payload(buf, info.rank, seq, len);
    return ch_sendv(EP, peer, iov, len == 0 && seq % 2 ? 1 : 2);
}

static int body_straight(int rank, void *arg)
{
    unsigned char buf[1100];
    int peer = 1 - rank;
    unsigned seq = 0, total, fill;
    unsigned long waits0;
    canal_status_t st;
    double t0;

    if ((uintptr_t)arg & 1)
        ch_shm_test_count_base = UINT32_MAX - 3000;
    straight_mid = ((uintptr_t)arg & 2) != 0;
    bring_up(&up_check);
    /* Fill until AGAIN; the peer does the same, so both rings are full. */
    while ((st = straight_send(peer, seq, buf)) == CANAL_OK)
        seq++;
    T_CHECK(st == CANAL_AGAIN, "sendv while filling: %d", st);
    fill = seq;
    T_CHECK(fill > SHM_ST->lay.ring_bytes / (straight_mid ? 1200 : 64),
            "AGAIN after only %u records", fill);
    total = 4 * fill;
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    t0 = now_s();
    while (seq < total || received[peer] < total) {
        if (seq < total && (st = straight_send(peer, seq, buf)) == CANAL_OK) {
            seq++;
            continue;
        }
        T_CHECK(seq >= total || st == CANAL_AGAIN, "sendv: %d", st);
        T_CHECK(ch_progress(EP) >= 0, "progress");
        T_CHECK(now_s() - t0 < unit_hang_s(), "both directions: sent %u, got %u of %u", seq,
                received[peer], total);
    }
    T_CHECK(SHM_ST->nblocked == 0, "still blocked on %d rings", SHM_ST->nblocked);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");

    /* The sleeping reader, woken by the straight path alone. */
    waits0 = SHM_ST->futex_waits;
    for (unsigned i = 0; i < STRAIGHT_ROUNDS; i++) {
        if (rank == 0) {
            if (i % 16 == 0)
                sleep_ms(1); /* let the peer fall asleep */
            while ((st = straight_send(peer, seq, buf)) == CANAL_AGAIN)
                T_CHECK(ch_progress(EP) >= 0, "progress");
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            seq++;
        }
        t0 = now_s();
        while (received[peer] < total + i + 1) {
            int n = ch_progress(EP);
            T_CHECK(n >= 0, "progress");
            if (n == 0)
                T_CHECK(ch_block(EP, unit_block_forever_us()) == CANAL_OK, "block");
            T_CHECK(now_s() - t0 < unit_hang_s(), "round %u: the reader was not woken", i);
        }
        if (rank == 1) {
            if (i % 16 == 0)
                sleep_ms(1);
            while ((st = straight_send(peer, seq, buf)) == CANAL_AGAIN)
                T_CHECK(ch_progress(EP) >= 0, "progress");
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            seq++;
        }
    }
    T_CHECK(SHM_ST->futex_waits > waits0, "the reader never slept (%lu futex waits)",
            SHM_ST->futex_waits - waits0);
    return tear_down();
}

START_TEST(test_straight_both_full)
{
    ck_assert_int_eq(run_job(2, 1, body_straight, NULL), 0);
}
END_TEST

START_TEST(test_straight_counts_wrap)
{
    ck_assert_int_eq(run_job(2, 1, body_straight, (void *)1), 0);
}
END_TEST

START_TEST(test_straight_mid)
{
    ck_assert_int_eq(run_job(2, 1, body_straight, (void *)2), 0);
    ck_assert_int_eq(run_job(2, 1, body_straight, (void *)3), 0);
}
END_TEST

/* A lap that ends exactly at the ring's end, then the straight path at
 * offset 0: the new lap's soft-wrap boundary must be the first one again
 * (the straight path does not look for offset 0; the send that ends the
 * lap resets it). Rank 1 sends one message first, so that rank 0's try at
 * the first boundary is due; rank 1 then does not read, so the try fails
 * (its reader has not caught up) and the boundary moves on; rank 0 fills
 * its ring with one-line records (a 16-byte header and 40 bytes) until
 * AGAIN, which comes one line before the end; rank 1 drains, rank 0 sends
 * the record that ends at the ring's end and one more at offset 0 (the
 * straight path), then its soft-wrap boundary and straight bound are the
 * lap's first. */
static int body_lap_end(int rank, void *arg)
{
    unsigned char buf[64];
    unsigned seq = 0;

    (void)arg;
    bring_up(&up_check);
    if (rank == 1) {
        send_checked(0, 0, 8, buf);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        /* The ring's lines less one, then the last line and one more. */
        wait_received((unsigned)(SHM_ST->lay.ring_bytes / SHM_LINE) + 1, "lap end");
    } else {
        ch_shm_peer_t *p = &SHM_ST->peers[SHM_ST->local_of[1]];
        uint32_t ring = (uint32_t)SHM_ST->lay.ring_bytes, sw = SHM_ST->wrap_first;
        thdr_t h = {THDR_MAGIC, 0, 0, 40};
        struct iovec iov[2] = {{&h, sizeof h}, {buf, 40}};
        canal_status_t st;

        T_CHECK(sw != UINT32_MAX && sw < ring / 4, "soft wrap %u, ring %u", sw, ring);
        while (received[1] < 1)
            T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(p->out_pos == 0, "rank 0 sent before the test: out_pos %u", p->out_pos);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        for (;;) {
            h.seq = seq;
            make_payload(buf, 0, seq, 40);
            if ((st = ch_sendv(EP, 1, iov, 2)) != CANAL_OK)
                break;
            seq++;
        }
        T_CHECK(st == CANAL_AGAIN, "sendv: %d", st);
        T_CHECK(p->out_pos == ring - SHM_LINE, "AGAIN at offset %u of %u", p->out_pos, ring);
        T_CHECK(p->wrap_at > sw, "the first boundary's try did not fail (wrap_at %u)",
                p->wrap_at);
        T_CHECK(SHM_ST->soft_wraps == 0, "%lu soft wraps", SHM_ST->soft_wraps);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        /* Rank 1 drains now; the last line and one record at offset 0. */
        send_checked(1, seq++, 40, buf);
        T_CHECK(p->out_pos == 0, "the lap did not end at the ring's end: out_pos %u", p->out_pos);
        send_checked(1, seq++, 40, buf);
        T_CHECK(p->out_pos == SHM_LINE, "the next record is not at offset 0: out_pos %u",
                p->out_pos);
        T_CHECK(p->wrap_at == sw, "the new lap's soft-wrap boundary is %u, not %u", p->wrap_at,
                sw);
        T_CHECK(p->out_limit == sw, "the straight bound is %u, not %u", p->out_limit, sw);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    return tear_down();
}

/* The soft wrap's tests turn it on: its default is off on Intel CPUs
 * (common/cvar.c), 8 KiB elsewhere. The job's result (run_job). */
static int run_soft_wrap_job(int nprocs, fake_pmi_body_t body)
{
    int failed;

    setenv("CANAL_SHM_SOFT_WRAP", "8K", 1);
    failed = run_job(nprocs, 1, body, NULL);
    unsetenv("CANAL_SHM_SOFT_WRAP");
    return failed;
}

START_TEST(test_straight_lap_end)
{
    ck_assert_int_eq(run_soft_wrap_job(2, body_lap_end), 0);
}
END_TEST

/* A record numbered 0 (the ring's record counter wraps) whose head falls on
 * a line start that no record has reached yet: the reader, caught up and
 * polling that line, must not take it for the record before it is written.
 * A line start gets no terminator from the sender (the reader cleans line
 * starts when it gives bytes back), so a fresh ring's line starts must
 * already hold a stale number; zeroes passed for record 0 (header length
 * 0: the order_wrap failure of ci65). Counters start at UINT32_MAX - 1:
 * rank 0's first record (one line: a 16-byte header and 40 bytes) carries
 * UINT32_MAX, its second 0; rank 1 takes the first, polls the second line
 * (which must stay empty) and then receives the second. */
static int body_fresh_line(int rank, void *arg)
{
    unsigned char buf[64];

    (void)arg;
    ch_shm_test_count_base = UINT32_MAX - 1;
    bring_up(&up_check);
    if (rank == 0) {
        send_checked(1, 0, 40, buf);
        T_CHECK(SHM_ST->peers[SHM_ST->local_of[1]].out_pos == SHM_LINE,
                "the first record does not end the first line: out_pos %u",
                SHM_ST->peers[SHM_ST->local_of[1]].out_pos);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        send_checked(1, 1, 40, buf);
    } else {
        wait_received(1, "the first record");
        for (int i = 0; i < 1000; i++)
            T_CHECK(poll_once() >= 0, "progress");
        T_CHECK(received[0] == 1, "%u records before the second was sent", received[0]);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        wait_received(2, "the second record");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    return tear_down();
}

START_TEST(test_fresh_line_record_0)
{
    ck_assert_int_eq(run_job(2, 1, body_fresh_line, NULL), 0);
}
END_TEST

/* ---- the soft wrap ------------------------------------------------------- */

/* A ping-pong of small messages must not walk the whole ring: a sender
 * whose reader has caught up goes back to offset 0 on crossing the soft-wrap
 * size (8 KiB), after a skip record. Phase 1: 0-2 KiB both ways; every lap
 * of rank 0's ring (from one return to offset 0 to the next) is recorded
 * with its highest offset: most must stay far below the ring's size, and
 * some must end early. Phase 2: sizes of 0 B to the largest eager packet
 * (16 KiB must still be one packet) in both rings of the pair, skips and
 * soft wraps mixed; every message arrives in order and intact (on_packet_check). */
enum { SW_ROUNDS1 = 3000, SW_ROUNDS2 = 3000 };

static size_t sw_len(unsigned k, int rank, size_t max, int phase)
{
    unsigned x = (k * 2654435761u + (unsigned)rank * 40503u) >> 5;

    if (phase == 1)
        return x % 2049;
    switch (x % 16) {
    case 0:
        return max;
    case 1:
        return 16384;
    case 2:
        return 4096 + x % 64;
    case 3:
        return 8192 + x % 100;
    default:
        return x % 4097;
    }
}

static int body_soft_wrap(int rank, void *arg)
{
    unsigned char *buf;
    unsigned k, short_laps = 0, long_laps = 0;
    uint32_t ring, lap_max = 0, prev_pos = 0;
    ch_shm_peer_t *p;
    double t0;

    (void)arg;
    bring_up(&up_check);
    T_CHECK(caps.max_payload >= 16384, "max_payload %zu: a 16 KiB message is no longer eager",
            caps.max_payload);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    ring = (uint32_t)SHM_ST->lay.ring_bytes;
    p = &SHM_ST->peers[SHM_ST->local_of[1 - rank]];
    for (k = 0; k < SW_ROUNDS1 + SW_ROUNDS2; k++) {
        int phase = k < SW_ROUNDS1 ? 1 : 2;
        size_t len = sw_len(k, rank, caps.max_payload, phase);

        if (rank == 1) {
            wait_received(k + 1, "round");
        }
        send_checked(1 - rank, k, len, buf);
        if (rank == 0) {
            t0 = now_s();
            while (received[1] <= k) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "reply %u never came", k);
            }
        }
        /* Each rank watches its own ring to the other (two rings a pair). */
        if (phase == 1 && k >= 100) {
            if (p->out_pos < prev_pos) { /* a lap ended */
                if (lap_max < ring / 4)
                    short_laps++;
                else
                    long_laps++;
                lap_max = 0;
            }
            if (p->out_pos > lap_max)
                lap_max = p->out_pos;
        }
        prev_pos = p->out_pos;
    }
    T_CHECK(short_laps >= 20 && short_laps > 4 * long_laps,
            "a ping-pong of 0-2 KiB walked the ring (%u B): %u laps below a quarter of it, "
            "%u above",
            ring, short_laps, long_laps);
    free(buf);
    return tear_down();
}

/* Pages of [a, a + len) not present in this process's page table
 * (/proc/self/pagemap, bit 63; readable without privilege), or -1. */
static long pages_absent(const void *a, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE), absent = 0;
    uintptr_t first = (uintptr_t)a / (uintptr_t)pg, last = ((uintptr_t)a + len - 1) / (uintptr_t)pg;
    FILE *f = fopen("/proc/self/pagemap", "rb");

    if (f == NULL)
        return -1;
    for (uintptr_t v = first; v <= last; v++) {
        uint64_t e;
        if (fseeko(f, (off_t)(v * sizeof e), SEEK_SET) != 0 || fread(&e, sizeof e, 1, f) != 1) {
            fclose(f);
            return -1;
        }
        if (!(e >> 63))
            absent++;
    }
    fclose(f);
    return absent;
}

/* After bring-up every page of the rings this rank writes is mapped in its
 * page table: a stream's first pass over a ring used to take one minor fault
 * per page (the first osu_mbw_mr size of a run at a third of the rate). */
static int body_out_rings_mapped(int rank, void *arg)
{
    (void)arg;
    bring_up(&up_check);
    for (int li = 0; li < SHM_ST->local_size; li++) {
        if (li == SHM_ST->local_rank)
            continue;
        long absent = pages_absent(SHM_ST->peers[li].out_ctl, SHM_ST->lay.ring_stride);
        T_CHECK(absent >= 0, "reading /proc/self/pagemap: %s", strerror(errno));
        T_CHECK(absent == 0, "rank %d: %ld pages of its ring to local rank %d not mapped",
                rank, absent, li);
    }
    return tear_down();
}

START_TEST(test_out_rings_mapped)
{
    ck_assert_int_eq(run_job(3, 1, body_out_rings_mapped, NULL), 0);
}
END_TEST

START_TEST(test_soft_wrap)
{
    ck_assert_int_eq(run_soft_wrap_job(2, body_soft_wrap), 0);
}
END_TEST

/* The same with a third local rank that sends nothing: progress() then
 * looks at several rings (shm_ring.c, ring_idle), and what a poll took must
 * still be given back at the next poll (release_due), not only when the
 * ring brings its next record: else the sender never finds its reader
 * caught up, and the ping-pong walks the whole ring. */
static int body_soft_wrap_three(int rank, void *arg)
{
    if (rank == 2) {
        bring_up(&up_check);
        return tear_down();
    }
    return body_soft_wrap(rank, arg);
}

START_TEST(test_soft_wrap_three)
{
    ck_assert_int_eq(run_soft_wrap_job(3, body_soft_wrap_three), 0);
}
END_TEST

/* The same with the ring counters starting just below 2^32, so that the
 * byte and record counts wrap during the soft wraps. */
static int body_soft_wrap_counts(int rank, void *arg)
{
    ch_shm_test_count_base = UINT32_MAX - 5000;
    return body_soft_wrap(rank, arg);
}

START_TEST(test_soft_wrap_counts)
{
    ck_assert_int_eq(run_soft_wrap_job(2, body_soft_wrap_counts), 0);
}
END_TEST

/* A full ring after soft wraps: a ping-pong leaves rank 0 somewhere in the
 * ring's first lines, the reader gives everything back and stops reading,
 * and rank 0 fills the ring (nothing comes back, so no soft wrap: the
 * places are ring_place's). CANAL_AGAIN must come exactly when the records
 * (and at most one skip at the end) fill it; then the reader drains it all
 * in order and intact. */
static int body_soft_wrap_full(int rank, void *arg)
{
    unsigned char *buf;
    unsigned k, seq;
    ch_shm_peer_t *p;
    double t0;

    (void)arg;
    bring_up(&up_check);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    p = &SHM_ST->peers[SHM_ST->local_of[1 - rank]];
    for (k = 0; k < 500; k++) {
        size_t len = sw_len(k, rank, caps.max_payload, 1);
        if (rank == 1) {
            wait_received(k + 1, "round");
        }
        send_checked(1 - rank, k, len, buf);
        if (rank == 0) {
            t0 = now_s();
            while (received[1] <= k) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "reply %u never came", k);
            }
        }
    }
    if (rank == 1)
        for (int i = 0; i < 3; i++)
            poll_once(); /* gives back what it read */
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 0) {
        uint32_t ring = (uint32_t)SHM_ST->lay.ring_bytes, pos = p->out_pos, recs = 0;
        size_t used, next = 0;
        canal_status_t st;

        T_CHECK(p->out_pos < ring / 4, "the ping-pong left the sender at %u of %u", p->out_pos,
                ring);
        used = p->sent - atomic_load(&p->out_ctl->consumed);
        T_CHECK(used == 0, "%zu bytes not given back after the reader's polls", used);
        for (seq = k;; seq++) {
            size_t len = seq % 3 == 0 ? caps.max_payload : seq % 3 == 1 ? 0 : 4000;
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            uint32_t pos_next = pos;

            make_payload(buf, 0, seq, len);
            next = 0;
            ring_place(&pos_next, &recs, ch_shm_rec_size(sizeof h, len), ring, &next);
            if ((st = ch_sendv(EP, 1, iov, 2)) == CANAL_AGAIN)
                break;
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            T_CHECK(p->out_pos == pos_next, "packet %u went to %u, not %u", seq, p->out_pos,
                    pos_next);
            used += next;
            pos = pos_next;
            T_CHECK(seq < k + 100000, "never got CANAL_AGAIN");
        }
        T_CHECK(used + SHM_REC_HEAD <= ring && used + next + SHM_REC_HEAD > ring,
                "AGAIN after %zu bytes in all (the next %zu), ring of %u", used, next, ring);
        snprintf((char *)buf, 32, "%u", seq);
        T_CHECK(pmi_put("sw-full-n", (char *)buf) == CANAL_OK, "put");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        /* Then more, while the reader drains. */
        for (unsigned i = 0; i < 200; i++, seq++)
            send_checked(1, seq, (seq * 977u) % (caps.max_payload + 1), buf);
    } else {
        char val[32];
        unsigned n;

        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(pmi_get(0, "sw-full-n", val, sizeof val) == CANAL_OK, "get");
        n = (unsigned)strtoul(val, NULL, 10) + 200;
        wait_received(n, "full ring");
    }
    free(buf);
    return tear_down();
}

START_TEST(test_soft_wrap_full)
{
    ck_assert_int_eq(run_soft_wrap_job(2, body_soft_wrap_full), 0);
}
END_TEST

/* A stream (osu_bw's windows) whose reader lags one window behind: rank 0
 * sends window w, then waits for rank 1's acknowledgement of window w - 1.
 * A sender that went back to offset 0 with the reader behind would have
 * only the bytes below its position, those the reader has not read, and the
 * rest of the window would meet a full ring in a ring almost empty: every
 * early return to 0 must happen with everything sent already given back.
 * Windows of 8 B and of mixed sizes up to 1 KiB; then windows whose
 * acknowledgement rank 0 awaits before the next (the reader caught up),
 * where early wraps must happen. Content and order checked throughout. */
enum { SWS_WINDOWS = 400, SWS_WIN = 64 };

static int body_soft_wrap_stream(int rank, void *arg)
{
    unsigned char *buf;
    unsigned seq = 0, early = 0, early_sync = 0;
    uint32_t ring;
    ch_shm_peer_t *p;
    double t0;

    (void)arg;
    bring_up(&up_check);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    ring = (uint32_t)SHM_ST->lay.ring_bytes;
    p = &SHM_ST->peers[SHM_ST->local_of[1 - rank]];
    for (unsigned w = 0; w < SWS_WINDOWS; w++) {
        int sync = w >= SWS_WINDOWS / 2;

        if (rank == 1) {
            wait_received((w + 1) * SWS_WIN, "window");
            send_checked(0, w, 0, buf);
            continue;
        }
        for (unsigned i = 0; i < SWS_WIN; i++, seq++) {
            size_t len = w % 2 == 0 ? 8 : (seq * 2654435761u >> 9) % 1025;
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            uint32_t rec = ch_shm_rec_size(sizeof h, len), pos = p->out_pos, sent = p->sent;
            canal_status_t st;

            make_payload(buf, 0, seq, len);
            t0 = now_s();
            while ((st = ch_sendv(EP, 1, iov, 2)) == CANAL_AGAIN) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "sendv stuck in AGAIN");
                pos = p->out_pos;
                sent = p->sent;
            }
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            ch_wake(EP, 1);
            /* Went back to 0 though the record fitted before the end:
             * the ring took more than the record's own bytes. */
            if (pos + rec <= ring && p->sent - sent > ch_shm_rec_next(pos, rec) - pos) {
                T_CHECK(p->peer_consumed == sent, "soft wrap at %u with the reader %u bytes behind",
                        pos, sent - p->peer_consumed);
                early++;
                early_sync += sync;
            }
        }
        /* Acknowledgements come in order: wait for w - 1's (lagging), or
         * w's in the second half. */
        t0 = now_s();
        while (received[1] + (sync ? 0 : 1) < w + 1) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "ack of window %u never came", w);
        }
    }
    if (rank == 0) {
        t0 = now_s();
        while (received[1] < SWS_WINDOWS) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "last ack never came");
        }
        T_CHECK(early_sync > 0, "no soft wrap in %u windows with the reader caught up (%u in all)",
                SWS_WINDOWS / 2, early);
    }
    free(buf);
    return tear_down();
}

START_TEST(test_soft_wrap_stream)
{
    ck_assert_int_eq(run_soft_wrap_job(2, body_soft_wrap_stream), 0);
}
END_TEST

/* ---- rdma_read through CMA ---------------------------------------------- */

static int body_rdma(int rank, void *arg)
{
    size_t len = (4u << 20) + 123;
    unsigned char *buf = malloc(len);
    char val[64];
    char desc[256];
    uint64_t key = 99;
    canal_status_t st;

    T_CHECK(buf != NULL, "malloc");
    bring_up(&up_check);
    T_CHECK(ch_mem_register(EP, buf, len, NULL) == CANAL_ERR_ARG, "NULL key_out");
    if (rank == 0) {
        make_payload(buf, 0, 5, len);
        st = ch_mem_register(EP, buf, len, &key);
        T_CHECK(st == CANAL_OK || (st == CANAL_ERR_UNSUPPORTED && !caps.has_rdma),
                "mem_register: %d", st);
        snprintf(val, sizeof val, "%llx", (unsigned long long)(uintptr_t)buf);
        T_CHECK(pmi_put("test-buf", val) == CANAL_OK, "put");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    } else {
        unsigned long long raddr;
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(pmi_get(0, "test-buf", val, sizeof val) == CANAL_OK, "get");
        raddr = strtoull(val, NULL, 16);
        memset(buf, 0, len);
        st = ch_rdma_read(EP, 0, buf, raddr, 0, len, NULL);
        ch_describe(EP, desc, sizeof desc);
        if (st == CANAL_ERR_UNSUPPORTED) {
            fprintf(stderr, "SKIP rdma_read: CMA denied here (%s); %s\n", common_err_detail(),
                    desc);
            T_CHECK(strstr(desc, "CMA no") != NULL, "describe should say CMA no: %s", desc);
        } else {
            T_CHECK(st == CANAL_OK, "rdma_read of %zu bytes: %d", len, st);
            for (size_t i = 0; i < len; i++)
                T_CHECK(buf[i] == pattern(0, 5, i), "byte %zu", i);
            /* Unaligned pieces. */
            for (size_t off = 1; off < len; off = off * 3 + 7) {
                size_t l = off % 5000 + 1 < len - off ? off % 5000 + 1 : len - off;
                memset(buf, 0, l);
                T_CHECK(ch_rdma_read(EP, 0, buf, raddr + off, 0, l, NULL) == CANAL_OK, "piece");
                for (size_t i = 0; i < l; i++)
                    T_CHECK(buf[i] == pattern(0, 5, off + i), "piece at %zu byte %zu", off, i);
            }
            T_CHECK(ch_rdma_read(EP, 0, buf, raddr, 0, 0, NULL) == CANAL_OK, "len 0");
            /* rdma_readv: 700 pieces (more than one process_vm_readv takes
             * from us: 256), empty ones among them, with gaps between them
             * that must stay untouched; then bad pieces. */
            {
                enum { NP = 700 };
                struct iovec iov[NP];
                size_t at = 0, want = 0, got = 0, gaps = 0;
                memset(buf, 0xEE, len);
                for (int i = 0; i < NP; i++) {
                    size_t l = i % 7 == 3 ? 0 : (size_t)(i * 37 % 1500 + 1);
                    iov[i].iov_base = buf + at;
                    iov[i].iov_len = l;
                    at += l + (size_t)(i % 3) * 5; /* (gaps of 0, 5 or 10) */
                    want += l;
                }
                T_CHECK(at < len, "pieces fit: %zu", at);
                T_CHECK(ch_rdma_readv(EP, 0, iov, NP, raddr + 3, 0) == CANAL_OK, "readv");
                for (int i = 0; i < NP; i++) {
                    unsigned char *b = iov[i].iov_base;
                    for (size_t k = 0; k < iov[i].iov_len; k++)
                        got += b[k] == pattern(0, 5, 3 + (b - buf) - gaps + k) ? 1 : 0;
                    if (i + 1 < NP) {
                        unsigned char *e = b + iov[i].iov_len, *n = iov[i + 1].iov_base;
                        for (unsigned char *g = e; g < n; g++)
                            T_CHECK(*g == 0xEE, "gap after piece %d written", i);
                        gaps += (size_t)(n - e);
                    }
                }
                T_CHECK(got == want, "readv: %zu of %zu bytes right", got, want);
                T_CHECK(ch_rdma_readv(EP, 0, iov, 0, raddr, 0) == CANAL_OK, "no pieces");
                iov[1].iov_base = NULL;
                iov[1].iov_len = 5;
                T_CHECK(ch_rdma_readv(EP, 0, iov, 2, raddr, 0) == CANAL_ERR_ARG, "NULL piece");
                T_CHECK(ch_rdma_readv(EP, 0, iov, -1, raddr, 0) == CANAL_ERR_ARG, "n < 0");
                T_CHECK(ch_rdma_readv(EP, 0, iov, 1, 4096, 0) == CANAL_ERR_ARG,
                        "readv from an unmapped remote address");
            }
            /* rdma_read_batch: 40 reads of 1-9000 bytes in one call, all
             * right; then a bad remote address as the 6th of 10: the first
             * five are read in the call, the 6th fails alone (CANAL_ERR_ARG)
             * and the four after it are read one by one. */
            {
                enum { NB = 40 };
                ch_read_t rd[NB];
                canal_status_t sts[NB];
                size_t at = 0, roff = 17;
                T_CHECK(caps.has_read_batch, "caps.has_read_batch");
                memset(buf, 0, len);
                for (int i = 0; i < NB; i++) {
                    size_t l = (size_t)(i * 613 % 9000 + 1);
                    rd[i] = (ch_read_t){buf + at, raddr + roff, 0, l};
                    at += l + 3;
                    roff += l + 11;
                }
                T_CHECK(ch_rdma_read_batch(EP, 0, rd, NB, sts) == CANAL_OK, "batch");
                for (int i = 0; i < NB; i++) {
                    unsigned char *b = rd[i].dst;
                    size_t r0 = (size_t)(rd[i].raddr - raddr);
                    T_CHECK(sts[i] == CANAL_OK, "batch read %d: %d", i, sts[i]);
                    for (size_t k = 0; k < rd[i].len; k++)
                        if (b[k] != pattern(0, 5, r0 + k)) {
                            T_CHECK(0, "batch read %d byte %zu", i, k);
                            break;
                        }
                }
                memset(buf, 0, len);
                rd[5].raddr = 4096;
                T_CHECK(ch_rdma_read_batch(EP, 0, rd, 10, sts) == CANAL_ERR_ARG,
                        "batch with an unmapped remote address");
                for (int i = 0; i < 10; i++) {
                    unsigned char *b = rd[i].dst;
                    size_t r0 = (size_t)(rd[i].raddr - raddr);
                    T_CHECK(sts[i] == (i == 5 ? CANAL_ERR_ARG : CANAL_OK), "read %d of the bad "
                            "batch: %d", i, sts[i]);
                    if (i != 5)
                        T_CHECK(b[0] == pattern(0, 5, r0) &&
                                    b[rd[i].len - 1] == pattern(0, 5, r0 + rd[i].len - 1),
                                "read %d of the bad batch: data", i);
                }
            }
            /* Bad remote addresses give an error, not a crash. */
            st = ch_rdma_read(EP, 0, buf, 4096, 0, 64, NULL);
            T_CHECK(st == CANAL_ERR_ARG, "unmapped remote address: %d", st);
            st = ch_rdma_read(EP, 0, buf, ~0ULL - 8, 0, 64, NULL);
            T_CHECK(st == CANAL_ERR_ARG, "wrapping remote range: %d", st);
            T_CHECK(ch_rdma_read(EP, 0, NULL, raddr, 0, 64, NULL) == CANAL_ERR_ARG, "NULL dst");
            T_CHECK(strstr(desc, "CMA yes") != NULL, "describe should say CMA yes: %s", desc);
            T_CHECK(caps.has_rdma, "caps.has_rdma");
            /* (the device pushes only over reads that never say INPROGRESS) */
            T_CHECK(caps.has_rdma_write && caps.rdma_read_sync,
                    "caps.has_rdma_write %d, caps.rdma_read_sync %d", caps.has_rdma_write,
                    caps.rdma_read_sync);
        }
        T_CHECK(ch_rdma_read(EP, info.size, buf, raddr, 0, 8, NULL) == CANAL_ERR_ARG, "bad peer");
    }
    T_CHECK(ch_mem_deregister(EP, key) == CANAL_OK, "deregister");
    /* Rank 0's buffer must outlive rank 1's reads. */
    tear_down();
    free(buf);
    return 0;
}

START_TEST(test_rdma_read)
{
    ck_assert_int_eq(run_job(2, 1, body_rdma, NULL), 0);
}
END_TEST

static int body_cma_off(int rank, void *arg)
{
    uint64_t key;
    unsigned char b[8];
    char desc[256];

    setenv("CANAL_SHM_CMA", "no", 1);
    bring_up(&up_check);
    T_CHECK(!caps.has_rdma, "has_rdma with CANAL_SHM_CMA=no");
    T_CHECK(ch_mem_register(EP, b, sizeof b, &key) == CANAL_ERR_UNSUPPORTED, "mem_register");
    T_CHECK(ch_rdma_read(EP, 1 - rank, b, (uintptr_t)b, 0, sizeof b, NULL) == CANAL_ERR_UNSUPPORTED,
            "rdma_read");
    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "CMA no") != NULL, "describe: %s", desc);
    return tear_down();
}

START_TEST(test_cma_off)
{
    ck_assert_int_eq(run_job(2, 1, body_cma_off, NULL), 0);
}
END_TEST

static int body_cma_bad(int rank, void *arg)
{
    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    setenv("CANAL_SHM_CMA", "sometimes", 1);
    T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG, "bad CANAL_SHM_CMA accepted");
    T_CHECK(strstr(common_err_detail(), "CANAL_SHM_CMA") != NULL, "message: %s",
            common_err_detail());
    return 0;
}

START_TEST(test_cma_bad_value)
{
    ck_assert_int_eq(run_job(1, 1, body_cma_bad, NULL), 0);
}
END_TEST

/* ---- CMA denied in the middle of a batch (CANAL_SHM_CMA_FAIL_AFTER) ------- */

/* Rank 1 reads a batch of 2 from rank 0's buffer, then a batch of 8, with
 * the test knob set so that one read fails: fail is that read's index
 * among the 10 (-1: none). With EPERM CMA is denied there: the reads before
 * it are whole, it and every later one answer UNSUPPORTED and leave their
 * bytes untouched (but the first half of the failing one with partial),
 * and later reads are refused too; with EFAULT only that read fails
 * (CANAL_ERR_ARG). */
typedef struct {
    const char *knob;
    int fail, efault, partial;
} cma_fail_case_t;

static int body_cma_fail_after(int rank, void *arg)
{
    const cma_fail_case_t *c = arg;
    enum { LEN = 20000 };
    unsigned char *buf = malloc(10 * LEN);
    char val[64], desc[256];
    uint64_t key;

    T_CHECK(buf != NULL, "malloc");
    setenv("CANAL_SHM_CMA_FAIL_AFTER", c->knob, 1);
    bring_up(&up_check);
    if (rank == 0) {
        make_payload(buf, 0, 7, 10 * LEN);
        T_CHECK(ch_mem_register(EP, buf, 10 * LEN, &key) == CANAL_OK || !caps.has_rdma,
                "mem_register");
        snprintf(val, sizeof val, "%llx", (unsigned long long)(uintptr_t)buf);
        T_CHECK(pmi_put("test-buf", val) == CANAL_OK, "put");
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    } else {
        ch_read_t rd[10];
        canal_status_t sts[10];
        unsigned long long raddr;
        canal_status_t bad = c->efault ? CANAL_ERR_ARG : CANAL_ERR_UNSUPPORTED;
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        T_CHECK(pmi_get(0, "test-buf", val, sizeof val) == CANAL_OK, "get");
        raddr = strtoull(val, NULL, 16);
        memset(buf, 0, 10 * LEN);
        if (!caps.has_rdma || SHM_ST->cma_state != SHM_CMA_WORKS) {
            fprintf(stderr, "SKIP cma_fail_after: CMA denied here\n");
            goto out;
        }
        for (int i = 0; i < 10; i++)
            rd[i] = (ch_read_t){buf + (size_t)i * LEN, raddr + (size_t)i * LEN, 0, LEN};
        T_CHECK(ch_rdma_read_batch(EP, 0, rd, 2, sts) ==
                    (c->fail >= 0 && c->fail < 2 ? bad : CANAL_OK),
                "%s: first batch", c->knob);
        T_CHECK(ch_rdma_read_batch(EP, 0, rd + 2, 8, sts + 2) ==
                    (c->fail >= 2 || (c->fail >= 0 && !c->efault) ? bad : CANAL_OK),
                "%s: second batch", c->knob);
        for (int i = 0; i < 10; i++) {
            int read = c->fail < 0 || i < c->fail || (c->efault && i != c->fail);
            size_t whole = read ? LEN : i == c->fail && c->partial ? LEN / 2 : 0;
            unsigned char *b = buf + (size_t)i * LEN;
            T_CHECK(sts[i] == (read ? CANAL_OK : i == c->fail ? bad : CANAL_ERR_UNSUPPORTED),
                    "%s: read %d: %d", c->knob, i, sts[i]);
            for (size_t j = 0; j < LEN; j++)
                if (b[j] != (j < whole ? pattern(0, 7, (size_t)i * LEN + j) : 0)) {
                    T_CHECK(0, "%s: read %d, byte %zu of %zu copied: %u", c->knob, i, j,
                            whole, b[j]);
                    break;
                }
        }
        /* after EPERM, CMA stays off (and says why); after EFAULT it works */
        T_CHECK(ch_rdma_read(EP, 0, buf, raddr, 0, 8, NULL) ==
                    (c->fail < 0 || c->efault ? CANAL_OK : CANAL_ERR_UNSUPPORTED),
                "%s: a read after the batch", c->knob);
        ch_describe(EP, desc, sizeof desc);
        T_CHECK(strstr(desc, c->fail < 0 || c->efault ? "CMA yes" : "CMA no") != NULL,
                "%s: describe: %s", c->knob, desc);
    }
out:
    T_CHECK(pmi_fence() == CANAL_OK, "fence"); /* (rank 0's buffer outlives the reads) */
    tear_down();
    free(buf);
    return 0;
}

START_TEST(test_cma_fail_after)
{
    static const cma_fail_case_t cases[] = {
        {"0", 0, 0, 0},          /* the first read of all */
        {"2", 2, 0, 0},          /* the first read of a batch, after a batch */
        {"4", 4, 0, 0},          /* the middle */
        {"4,partial", 4, 0, 1},  /* ... after a short count within it */
        {"9", 9, 0, 0},          /* the last */
        {"4,efault", 4, 1, 0},   /* that one only */
        {"5,efault,partial", 5, 1, 1},
        {"1,efault,partial", 1, 1, 1}, /* the last of the first batch, then a whole batch */
        {"3,first", 2, 0, 0},    /* in the second batch: its first */
        {"3,last", 9, 0, 0},     /* ... its last */
        {"1,efault,last", 1, 1, 0},
        {"11", -1, 0, 0},        /* after the reads (the one after the batches is 11) */
        {"no", -1, 0, 0},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(run_job(2, 1, body_cma_fail_after, (void *)&cases[i]) == 0, "case %s",
                      cases[i].knob);
}
END_TEST

static int body_cma_fail_bad(int rank, void *arg)
{
    static const char *const bad[] = {"x", "3,foo", "-1", "3,", "3,efault,partially"};

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("CANAL_SHM_CMA_FAIL_AFTER", bad[i], 1);
        T_CHECK(ch_init(EP, &info, &up_check, &caps) == CANAL_ERR_ARG, "%s accepted", bad[i]);
        T_CHECK(strstr(common_err_detail(), "CANAL_SHM_CMA_FAIL_AFTER") != NULL &&
                    strstr(common_err_detail(), bad[i]) != NULL,
                "message: %s", common_err_detail());
    }
    return 0;
}

START_TEST(test_cma_fail_bad_value)
{
    ck_assert_int_eq(run_job(1, 1, body_cma_fail_bad, NULL), 0);
}
END_TEST

/* ---- block / wake -------------------------------------------------------- */

/* What only shm does (the table's block_wake covers the wake-up): block()
 * with nothing to do sleeps in the kernel (one futex wait), and a rank that
 * busy polls is never woken with a system call. Counted, never timed. */
static int body_block(int rank, void *arg)
{
    unsigned char buf[16];
    unsigned long waits0, wakes0;

    bring_up(&up_check);
    if (rank == 1) {
        waits0 = SHM_ST->futex_waits;
        T_CHECK(ch_block(EP, 100000) == CANAL_OK, "block");
        T_CHECK(SHM_ST->futex_waits == waits0 + 1, "no futex wait");
        T_CHECK(ch_block(EP, 0) == CANAL_OK, "block(0)");
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");

    wakes0 = SHM_ST->futex_wakes;
    for (unsigned i = 0; i < 500; i++) {
        if (rank == 0) {
            send_checked(1, i, 8, buf);
            while (received[1] < i + 1)
                poll_once();
        } else {
            while (received[0] < i + 1)
                poll_once();
            send_checked(0, i, 8, buf);
        }
    }
    T_CHECK(SHM_ST->futex_wakes == wakes0, "%lu futex wakes while nobody slept",
            SHM_ST->futex_wakes - wakes0);
    return tear_down();
}

START_TEST(test_block_futex)
{
    ck_assert_int_eq(run_job(2, 1, body_block, NULL), 0);
}
END_TEST

/* Records are packed back to back, so the reader polls heads at offsets
 * where the last lap left payload bytes. Here the payload of a first phase
 * of large records holds, at every offset where a record of the second
 * phase will start, the very sequence number the reader will expect there:
 * only the terminator (a stale sequence the sender writes after each record
 * before publishing it) keeps the reader from taking those bytes for a
 * record before the sender wrote it. The sender pauses between the small
 * records so that the reader polls each new position first. */
enum { LA_BIG_LEN = 2000, LA_SMALL_LEN = 8 };

static unsigned la_got;

static void la_on_packet(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    thdr_t h;

    (void)payload;
    T_CHECK(hdr_len == sizeof h, "header length %zu from %d (a stale head was read)", hdr_len, peer);
    memcpy(&h, hdr, sizeof h);
    T_CHECK(h.magic == THDR_MAGIC && h.seq == la_got && h.len == len,
            "packet %u: magic %#x seq %u len %zu/%u", la_got, h.magic, h.seq, len, h.len);
    la_got++;
}

static ch_upcalls_t up_la = {la_on_packet, on_rdma_done_unused, on_peer_failed_unused};

static int body_lookalike(int rank, void *arg)
{
    uint32_t ring, big = ch_shm_rec_size(sizeof(thdr_t), LA_BIG_LEN);
    uint32_t small = ch_shm_rec_size(sizeof(thdr_t), LA_SMALL_LEN);
    uint32_t n1, n2, pos = 0, recs = 0;
    uint32_t *map, *payload;
    double t0;

    (void)arg;
    bring_up(&up_la);
    ring = (uint32_t)SHM_ST->lay.ring_bytes;
    n1 = 2 * ring / big;
    n2 = ring / small;
    map = calloc(ring / 4, sizeof *map);
    payload = malloc(LA_BIG_LEN);
    T_CHECK(map != NULL && payload != NULL, "malloc");
    la_got = 0;
    if (rank == 0) {
        ch_shm_peer_t *p = &SHM_ST->peers[SHM_ST->local_of[1]];
        uint32_t at;

        for (uint32_t k = 0; k < n1; k++)
            la_place(&pos, &recs, big, ring);
        for (uint32_t k = 0; k < n2; k++) {
            at = la_place(&pos, &recs, small, ring);
            map[at / 4] = recs; /* record number + 1, what the reader expects */
        }
        pos = recs = 0;
        for (uint32_t k = 0; k < n1 + n2; k++) {
            size_t len = k < n1 ? LA_BIG_LEN : LA_SMALL_LEN;
            thdr_t h = {THDR_MAGIC, 0, k, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {payload, len}};
            canal_status_t st;

            at = la_place(&pos, &recs, k < n1 ? big : small, ring);
            if (k < n1) {
                uint32_t off = at + SHM_REC_HEAD + (uint32_t)ch_shm_payload_off(sizeof h, len);
                for (size_t i = 0; i < LA_BIG_LEN / 4; i++)
                    payload[i] = map[off / 4 + i];
            } else {
                memset(payload, 0, len);
                if (k == n1) /* the reader has drained the first phase */
                    T_CHECK(pmi_fence() == CANAL_OK, "fence");
                for (double t1 = now_s(); now_s() - t1 < 2e-6;)
                    ;
            }
            t0 = now_s();
            while ((st = ch_sendv(EP, 1, iov, 2)) == CANAL_AGAIN) {
                T_CHECK(poll_once() >= 0, "progress");
                T_CHECK(now_s() - t0 < unit_hang_s(), "sendv stuck in AGAIN");
            }
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            T_CHECK(p->out_pos == pos && p->sent_recs == recs, "the test's placement is not sendv's");
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    } else {
        t0 = now_s();
        while (la_got < n1) {
            T_CHECK(poll_once() >= 0, "progress");
            T_CHECK(now_s() - t0 < unit_hang_s(), "only %u of %u arrived", la_got, n1);
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        t0 = now_s();
        while (la_got < n1 + n2) {
            T_CHECK(ch_progress(EP) >= 0, "progress: %s", common_err_detail());
            T_CHECK(now_s() - t0 < unit_hang_s(), "only %u of %u arrived", la_got, n1 + n2);
        }
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
    }
    free(map);
    free(payload);
    return tear_down();
}

START_TEST(test_lookalike)
{
    ck_assert_int_eq(run_job(2, 1, body_lookalike, NULL), 0);
}
END_TEST

/* A sender blocked on a full ring sleeps and is woken by the reader's drain. */
static int body_block_full(int rank, void *arg)
{
    unsigned char buf[64];
    double t0;

    bring_up(&up_check);
    if (rank == 0) {
        unsigned seq = 0;
        thdr_t h;
        struct iovec iov[2] = {{&h, sizeof h}, {buf, 0}};
        canal_status_t st;
        for (;; seq++) {
            h = (thdr_t){THDR_MAGIC, 0, seq, 0};
            if ((st = ch_sendv(EP, 1, iov, 2)) != CANAL_OK)
                break;
        }
        T_CHECK(st == CANAL_AGAIN, "flood: %d", st);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        t0 = now_s();
        while ((st = ch_sendv(EP, 1, iov, 2)) == CANAL_AGAIN) {
            T_CHECK(ch_block(EP, unit_block_forever_us()) == CANAL_OK, "block");
            T_CHECK(now_s() - t0 < unit_hang_s(), "never woken");
        }
        T_CHECK(st == CANAL_OK, "sendv after wake: %d", st);
        ch_wake(EP, 1);
        seq++;
        t0 = now_s();
        while (received[1] == 0) {
            poll_once();
            T_CHECK(now_s() - t0 < unit_hang_s(), "no final ack");
        }
        (void)seq;
    } else {
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        sleep_ms(300);
        wait_received(SHM_ST->lay.ncells + 1, "cells");
        send_checked(0, 0, 0, buf);
    }
    return tear_down();
}

START_TEST(test_block_full_ring)
{
    ck_assert_int_eq(run_job(2, 1, body_block_full, NULL), 0);
}
END_TEST

/* Both sides sleep whenever they cannot proceed: a lost wake-up shows as a
 * block() that sleeps past the hang limit. Streaming (sender sleeps on a full
 * ring, reader on an empty one), then ping-pong. */
enum { STRESS_MSGS = 20000, STRESS_ROUNDS = 3000 };

static void block_checked(double *worst)
{
    double t0 = now_s(), dt;
    T_CHECK(ch_block(EP, unit_block_forever_us()) == CANAL_OK, "block");
    dt = now_s() - t0;
    if (dt > *worst)
        *worst = dt;
    T_CHECK(dt < unit_hang_s(), "block() slept %.0f s: a wake-up was lost", dt);
}

static int body_block_stress(int rank, void *arg)
{
    unsigned char *buf;
    double worst = 0;

    bring_up(&up_check);
    buf = malloc(caps.max_payload);
    T_CHECK(buf != NULL, "malloc");
    if (rank == 0) {
        for (unsigned seq = 0; seq < STRESS_MSGS; seq++) {
            size_t len = (seq * 2654435761u) % (caps.max_payload + 1);
            thdr_t h = {THDR_MAGIC, 0, seq, (uint32_t)len};
            struct iovec iov[2] = {{&h, sizeof h}, {buf, len}};
            canal_status_t st;
            make_payload(buf, 0, seq, len);
            while ((st = ch_sendv(EP, 1, iov, 2)) == CANAL_AGAIN)
                block_checked(&worst);
            T_CHECK(st == CANAL_OK, "sendv: %d", st);
            ch_wake(EP, 1);
        }
    } else {
        while (received[0] < STRESS_MSGS) {
            int n = ch_progress(EP);
            T_CHECK(n >= 0, "progress");
            if (n == 0)
                block_checked(&worst);
        }
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    for (unsigned i = 0; i < STRESS_ROUNDS; i++) {
        int from = 1 - rank;
        unsigned want = rank == 0 ? i : i + 1;
        if (rank == 0)
            send_checked(1, STRESS_MSGS + i, 8, buf);
        while (received[from] < (rank == 0 ? want + 1 : want + (unsigned)STRESS_MSGS)) {
            int n = ch_progress(EP);
            T_CHECK(n >= 0, "progress");
            if (n == 0)
                block_checked(&worst);
        }
        if (rank == 1)
            send_checked(0, i, 8, buf);
    }
    if (rank == 0)
        fprintf(stderr, "block stress: longest sleep %.1f ms\n", worst * 1e3);
    free(buf);
    return tear_down();
}

START_TEST(test_block_stress)
{
    ck_assert_int_eq(run_job(2, 1, body_block_stress, NULL), 0);
}
END_TEST

/* A local peer dies: block() timeouts notice it and report it once through
 * on_peer_failed; sendv to it then fails instead of saying AGAIN forever. */
static int failed_peer = -1, failed_count;

static void on_peer_failed_record(int peer, canal_status_t st)
{
    T_CHECK(st == CANAL_ERR_PEER, "status %d", st);
    failed_peer = peer;
    failed_count++;
}

static ch_upcalls_t up_death = {on_packet_check, on_rdma_done_unused, on_peer_failed_record};

static int body_peer_death(int rank, void *arg)
{
    double t0;
    thdr_t h = {THDR_MAGIC, 0, 0, 0};
    struct iovec iov[1] = {{&h, sizeof h}};
    canal_status_t st;

    bring_up(&up_death);
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    if (rank == 1)
        _exit(0); /* no finalize: as if killed */
    t0 = now_s();
    while (failed_count == 0) {
        /* No time limit: block() must still come back for a dead peer. */
        T_CHECK(ch_block(EP, -1) == CANAL_OK, "block");
        T_CHECK(now_s() - t0 < unit_hang_s(), "death of rank 1 not noticed");
    }
    T_CHECK(failed_peer == 1, "failed peer %d", failed_peer);
    for (int i = 0; i < 5; i++)
        T_CHECK(ch_block(EP, 50000) == CANAL_OK, "block");
    sleep_ms(150);
    T_CHECK(ch_block(EP, 50000) == CANAL_OK, "block");
    T_CHECK(failed_count == 1, "reported %d times", failed_count);
    for (int i = 0; i < 1000 && (st = ch_sendv(EP, 1, iov, 1)) == CANAL_OK; i++)
        h.seq++;
    T_CHECK(st == CANAL_ERR_PEER, "sendv to the dead rank: %d", st);
    ch_finalize(EP);
    return 0;
}

START_TEST(test_peer_death)
{
    ck_assert_int_eq(run_job(2, 1, body_peer_death, NULL), 0);
}
END_TEST

/* A peer that finalized and left is not a failure. */
static int body_peer_finalized(int rank, void *arg)
{
    bring_up(&up_death);
    if (rank == 1) {
        ch_finalize(EP);
        T_CHECK(pmi_fence() == CANAL_OK, "fence");
        _exit(0);
    }
    T_CHECK(pmi_fence() == CANAL_OK, "fence");
    sleep_ms(100);
    for (int i = 0; i < 4; i++)
        T_CHECK(ch_block(EP, 150000) == CANAL_OK, "block");
    T_CHECK(failed_count == 0, "a finalized peer was reported failed");
    ch_finalize(EP);
    return 0;
}

START_TEST(test_peer_finalized)
{
    ck_assert_int_eq(run_job(2, 1, body_peer_finalized, NULL), 0);
}
END_TEST

/* ---- bad input ----------------------------------------------------------- */

static int body_bad_input(int rank, void *arg)
{
    unsigned char big[CH_HDR_MAX + 1];
    unsigned char *pay;
    struct iovec iov[3];
    int other = 1 - rank;
    ch_caps_t c2;

    /* Before init. */
    T_CHECK(ch_progress(EP) == 0, "progress before init");
    iov[0] = (struct iovec){big, 4};
    T_CHECK(ch_sendv(EP, rank, iov, 1) < 0, "sendv before init");
    T_CHECK(ch_post_fence(EP) < 0, "post_fence before init");

    T_CHECK(pmi_init(&info) == CANAL_OK, "pmi_init");
    T_CHECK(ch_init(EP, NULL, &up_check, &caps) == CANAL_ERR_ARG, "NULL pmi");
    T_CHECK(ch_init(EP, &info, NULL, &caps) == CANAL_ERR_ARG, "NULL up");
    T_CHECK(ch_init(EP, &info, &up_check, NULL) == CANAL_ERR_ARG, "NULL caps");
    {
        pmi_info_t bad = info;
        int lr[1] = {other};
        bad.local_ranks = lr;
        T_CHECK(ch_init(EP, &bad, &up_check, &caps) == CANAL_ERR_ARG, "wrong local_ranks");
        bad = info;
        bad.local_rank = 5;
        T_CHECK(ch_init(EP, &bad, &up_check, &caps) == CANAL_ERR_ARG, "local_rank out of range");
    }
    /* Two nodes of one rank each: the other rank is not local. */
    bring_up(&up_check);
    T_CHECK(info.local_size == 1, "local_size %d", info.local_size);
    T_CHECK(ch_init(EP, &info, &up_check, &c2) == CANAL_ERR_PENDING, "double init");
    T_CHECK(ch_reaches(EP, rank) && !ch_reaches(EP, other), "reaches");
    iov[0] = (struct iovec){big, 4};
    T_CHECK(ch_sendv(EP, other, iov, 1) == CANAL_ERR_ARG, "sendv to a remote rank");
    pay = malloc(caps.max_payload + 1);
    T_CHECK(pay != NULL, "malloc");
    T_CHECK(ch_rdma_read(EP, other, pay, (uintptr_t)pay, 0, 8, NULL) == CANAL_ERR_ARG,
            "rdma_read from a remote rank");
    /* Self delivery works on the one-rank (anonymous) segment. */
    {
        thdr_t h = {THDR_MAGIC, (uint32_t)rank, 0, 3};
        struct iovec ok[2] = {{&h, sizeof h}, {pay, 3}};
        make_payload(pay, rank, 0, 3);
        T_CHECK(ch_sendv(EP, rank, ok, 2) == CANAL_OK, "self send");
        T_CHECK(ch_progress(EP) == 1 && received[rank] == 1, "self delivery");
    }
    free(pay);
    return tear_down();
}

START_TEST(test_bad_input)
{
    ck_assert_int_eq(run_job(2, 2, body_bad_input, NULL), 0);
}
END_TEST

static int body_describe(int rank, void *arg)
{
    char desc[256];

    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "not initialized") != NULL, "%s", desc);
    bring_up(&up_check);
    ch_describe(EP, desc, sizeof desc);
    T_CHECK(strstr(desc, "unlinked") != NULL && strstr(desc, "CMA") != NULL, "%s", desc);
    if (rank == 0)
        fprintf(stderr, "describe: %s\n", desc);
    ch_describe(EP, desc, 0);
    ch_describe(EP, NULL, 10);
    return tear_down();
}

START_TEST(test_describe)
{
    ck_assert_int_eq(run_job(4, 1, body_describe, NULL), 0);
}
END_TEST

static Suite *ch_shm_suite(void)
{
    Suite *s = suite_create("ch_shm");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, unit_case_timeout_s());
    conf_add_cases(tc, 1);
    tcase_add_test(tc, test_layout);
    tcase_add_test(tc, test_segment_gone_2);
    tcase_add_test(tc, test_segment_gone_4);
    tcase_add_test(tc, test_crash_cleanup);
    tcase_add_test(tc, test_creator_failed);
    tcase_add_test(tc, test_order_wrap);
    tcase_add_loop_test(tc, test_order_wrap_first_lap, 0, 4);
    tcase_add_test(tc, test_order_8);
    tcase_add_test(tc, test_two_nodes);
    tcase_add_test(tc, test_backpressure);
    tcase_add_test(tc, test_turns);
    tcase_add_test(tc, test_turns_mixed);
    tcase_add_test(tc, test_straight_both_full);
    tcase_add_test(tc, test_straight_counts_wrap);
    tcase_add_test(tc, test_straight_mid);
    tcase_add_test(tc, test_straight_lap_end);
    tcase_add_test(tc, test_fresh_line_record_0);
    tcase_add_test(tc, test_lookalike);
    tcase_add_test(tc, test_soft_wrap);
    tcase_add_test(tc, test_soft_wrap_three);
    tcase_add_test(tc, test_out_rings_mapped);
    tcase_add_test(tc, test_soft_wrap_counts);
    tcase_add_test(tc, test_soft_wrap_stream);
    tcase_add_test(tc, test_soft_wrap_full);
    tcase_add_test(tc, test_rdma_read);
    tcase_add_test(tc, test_cma_off);
    tcase_add_test(tc, test_cma_bad_value);
    tcase_add_test(tc, test_cma_fail_after);
    tcase_add_test(tc, test_cma_fail_bad_value);
    tcase_add_test(tc, test_block_futex);
    tcase_add_test(tc, test_block_full_ring);
    tcase_add_test(tc, test_block_stress);
    tcase_add_test(tc, test_peer_death);
    tcase_add_test(tc, test_peer_finalized);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_describe);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ch_shm_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
