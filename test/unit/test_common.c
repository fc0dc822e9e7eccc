/*
 * Unit tests of the helpers in common/ that the layers share: hex text
 * (round trip, either case in, every kind of bad text refused), random bytes
 * (filled, not repeated), the monotonic clock (units agree, never goes back),
 * the intrusive list (order, removal at either end and in the middle),
 * shared-memory segments (a second mapping sees the first's stores, the
 * name is fresh each time and gone after the unlink, a missing name fails).
 */
#include "common/clock.h"
#include "common/copy.h"
#include "common/hex.h"
#include "common/list.h"
#include "common/proc.h"
#include "common/random.h"
#include "common/shmseg.h"
#include "test/unit/unit_limits.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

START_TEST(hex_round_trip)
{
    unsigned char in[256], back[256];
    char text[2 * sizeof in + 1];

    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)i;
    common_hex_encode(in, sizeof in, text);
    ck_assert_uint_eq(strlen(text), 2 * sizeof in);
    ck_assert_int_eq(strncmp(text, "000102", 6), 0);
    ck_assert_str_eq(text + 2 * 250, "fafbfcfdfeff");
    ck_assert_int_eq(common_hex_decode(text, strlen(text), back, sizeof back), (long)sizeof in);
    ck_assert_int_eq(memcmp(in, back, sizeof in), 0);
    common_hex_encode(in, 0, text);
    ck_assert_str_eq(text, "");
}
END_TEST

START_TEST(hex_decode_checks)
{
    unsigned char out[4] = {0};

    ck_assert_int_eq(common_hex_decode("DEadBeEf", 8, out, sizeof out), 4);
    ck_assert_uint_eq(out[0], 0xde);
    ck_assert_uint_eq(out[3], 0xef);
    ck_assert_int_eq(common_hex_decode("abc", 3, out, sizeof out), -1);         /* odd */
    ck_assert_int_eq(common_hex_decode("0g", 2, out, sizeof out), -1);          /* not a digit */
    ck_assert_int_eq(common_hex_decode("g0", 2, out, sizeof out), -1);
    ck_assert_int_eq(common_hex_decode("0102030405", 10, out, sizeof out), -1); /* too long */
    ck_assert_int_eq(common_hex_decode("0102@@", 4, out, sizeof out), 2);       /* only len chars */
    ck_assert_int_eq(common_hex_decode("", 0, out, sizeof out), 0);
    ck_assert_int_eq(common_hex_digit('7'), 7);
    ck_assert_int_eq(common_hex_digit('F'), 15);
    ck_assert_int_eq(common_hex_digit('x'), -1);
    ck_assert_int_eq(common_hex_digit('\0'), -1);
}
END_TEST

/* common_copy_small at every size of its fixed-size branches (1-3, 4-7,
 * 8-15, 16-32, 33-64) and past them (memcpy), from and to every offset in a
 * 16-byte window: exactly n bytes land, nothing around them is touched. */
START_TEST(copy_small_sizes)
{
    unsigned char src[128], dst[128], want[128];

    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    for (size_t n = 0; n <= 80; n++) {
        for (size_t so = 0; so < 16; so += 3) {
            for (size_t d = 0; d < 16; d += 5) {
                memset(dst, 0xee, sizeof dst);
                memset(want, 0xee, sizeof want);
                memcpy(want + d, src + so, n);
                common_copy_small(dst + d, src + so, n);
                ck_assert_msg(memcmp(dst, want, sizeof dst) == 0,
                              "copy of %zu bytes from offset %zu to offset %zu", n, so, d);
            }
        }
    }
}
END_TEST

START_TEST(random_fills)
{
    unsigned char a[4096], b[4096];
    size_t zero = 0;

    memset(a, 0, sizeof a);
    ck_assert_int_eq(common_random_bytes(a, sizeof a), CANAL_OK);
    ck_assert_int_eq(common_random_bytes(b, sizeof b), CANAL_OK);
    for (size_t i = 0; i < sizeof a; i++)
        zero += a[i] == 0;
    /* 4096 random bytes hold about 16 zeros; all-zero means nothing was written. */
    ck_assert_uint_lt(zero, 200);
    ck_assert_int_ne(memcmp(a, b, sizeof a), 0);
    ck_assert_int_eq(common_random_bytes(a, 0), CANAL_OK);
}
END_TEST

START_TEST(clock_units_agree)
{
    uint64_t ns0 = common_now_ns();
    int64_t us0 = common_now_us(), ms0 = common_now_ms();
    double s0 = common_now_s(), c0 = common_now_coarse_s();

    for (int i = 0; i < 1000; i++) {
        uint64_t ns = common_now_ns();
        ck_assert_uint_ge(ns, ns0);
        ns0 = ns;
    }
    /* Every unit tells the same time: a reading in one unit lies between
     * two readings in another, whatever time passed between them (no bound
     * on elapsed time: a loaded machine may stop the test for seconds);
     * 1e-6 s is double rounding. The coarse clock never reads ahead of the
     * fine one. */
    ck_assert_int_ge(common_now_us() / 1000, ms0);
    ck_assert_int_ge(common_now_ms(), us0 / 1000);
    ck_assert(common_now_s() >= s0);
    ck_assert(common_now_coarse_s() >= c0);
    {
        int64_t ms_a = common_now_ms();
        double s = common_now_s();
        int64_t ms_b = common_now_ms();
        double s_a, c, s_b, res_s;
        struct timespec res;

        ck_assert(s >= (double)ms_a / 1000 - 1e-6);
        ck_assert(s <= (double)(ms_b + 1) / 1000 + 1e-6);
        ck_assert_int_eq(clock_getres(CLOCK_MONOTONIC_COARSE, &res), 0);
        res_s = (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
        s_a = common_now_s();
        c = common_now_coarse_s();
        s_b = common_now_s();
        /* Only the upper bound: the coarse clock advances on the timer
         * tick, which a loaded or tickless virtual CPU may deliver late by
         * more than clock_getres says (seen in CI), so how far it lags is
         * a matter of time, not of the helpers' units. */
        ck_assert(c <= s_b + 1e-6);
        ck_assert(res_s > 0 && s_a <= s_b);
    }
}
END_TEST

typedef struct {
    int value;
    common_link_t link;
} item_t;

/* The values on the list, head to tail, checked against the walk back. */
static int list_values(const common_list_t *l, int *out)
{
    int n = 0, m;
    for (common_link_t *k = l->head; k != NULL; k = k->next)
        out[n++] = common_list_entry(k, item_t, link)->value;
    m = n;
    for (common_link_t *k = l->tail; k != NULL; k = k->prev)
        ck_assert_int_eq(common_list_entry(k, item_t, link)->value, out[--m]);
    ck_assert_int_eq(m, 0);
    return n;
}

START_TEST(list_order_and_removal)
{
    common_list_t l = {NULL, NULL};
    item_t it[5];
    int v[5];

    ck_assert(common_list_empty(&l));
    ck_assert_ptr_null(common_list_entry(l.head, item_t, link));
    for (int i = 0; i < 5; i++)
        it[i].value = i;
    common_list_push_back(&l, &it[1].link);
    common_list_push_back(&l, &it[2].link);
    common_list_push_front(&l, &it[0].link);
    common_list_push_back(&l, &it[3].link);
    common_list_push_back(&l, &it[4].link);
    ck_assert_int_eq(list_values(&l, v), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(v[i], i);
    common_list_remove(&l, &it[2].link); /* middle */
    common_list_remove(&l, &it[0].link); /* head */
    common_list_remove(&l, &it[4].link); /* tail */
    ck_assert_ptr_null(it[2].link.next);
    ck_assert_int_eq(list_values(&l, v), 2);
    ck_assert_int_eq(v[0], 1);
    ck_assert_int_eq(v[1], 3);
    common_list_remove(&l, &it[1].link);
    common_list_remove(&l, &it[3].link);
    ck_assert(common_list_empty(&l));
    ck_assert_ptr_null(l.tail);
    common_list_push_front(&l, &it[4].link); /* an empty list again takes both ends */
    ck_assert_ptr_eq(l.head, &it[4].link);
    ck_assert_ptr_eq(l.tail, &it[4].link);
}
END_TEST

START_TEST(shm_segments)
{
    char name[COMMON_SHM_NAME_MAX], name2[COMMON_SHM_NAME_MAX];
    char *a = common_shm_create("unit", 8192, name), *b, *c;

    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(strncmp(name, "/canal-unit-", 12), 0);
    ck_assert_int_eq(a[0] | a[8191], 0); /* zero-filled */
    b = common_shm_attach(name, 8192);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_ne(a, b);
    a[100] = 42;
    ck_assert_int_eq(b[100], 42);
    c = common_shm_create("unit", 4096, name2);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_ne(name, name2);
    common_shm_unlink(name);
    common_shm_unlink(name2);
    ck_assert_ptr_null(common_shm_attach(name, 8192)); /* gone */
    b[200] = 7; /* the mappings outlive the name */
    ck_assert_int_eq(a[200], 7);
    munmap(a, 8192);
    munmap(b, 8192);
    munmap(c, 4096);
    ck_assert_ptr_null(common_shm_attach("/canal-unit-no-such-segment", 4096));
    name[0] = '\0';
    common_shm_unlink(name); /* "" (nothing was created): nothing to do */
}
END_TEST

/* A pid is looked up only in our own pid namespace: another namespace's
 * pid, or no pid, cannot tell (-1), never "gone". */
START_TEST(pid_gone_by_namespace)
{
    uint64_t ns = common_pidns();
    pid_t child;
    int status;

    ck_assert_uint_eq(common_pidns(), ns); /* read once, the same after */
    ck_assert_int_eq(common_pid_gone((long)getpid(), ns), 0);
    ck_assert_int_eq(common_pid_gone((long)getpid(), ns + 1), -1);
    ck_assert_int_eq(common_pid_gone(0, ns), -1);
    ck_assert_int_eq(common_pid_gone(-5, ns), -1);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(child, &status, 0), child); /* reaped: the pid is free */
    ck_assert_int_eq(common_pid_gone((long)child, ns), 1);
    ck_assert_int_eq(common_pid_gone((long)child, ns ^ 1), -1);
}
END_TEST

/* The process's thread count, one more while a thread sleeps beside. */
static void *thread_sleep(void *arg)
{
    struct timespec d = {0, 300 * 1000 * 1000};
    (void)arg;
    nanosleep(&d, NULL);
    return NULL;
}

START_TEST(thread_count_follows_threads)
{
    pthread_t t;
    int n = common_thread_count();

    ck_assert_int_ge(n, 1);
    ck_assert_int_eq(pthread_create(&t, NULL, thread_sleep, NULL), 0);
    ck_assert_int_eq(common_thread_count(), n + 1);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(common_thread_count(), n);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("common");
    TCase *tc = tcase_create("helpers");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, unit_case_timeout_s());
    tcase_add_test(tc, hex_round_trip);
    tcase_add_test(tc, hex_decode_checks);
    tcase_add_test(tc, copy_small_sizes);
    tcase_add_test(tc, random_fills);
    tcase_add_test(tc, clock_units_agree);
    tcase_add_test(tc, list_order_and_removal);
    tcase_add_test(tc, shm_segments);
    tcase_add_test(tc, pid_gone_by_namespace);
    tcase_add_test(tc, thread_count_follows_threads);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
