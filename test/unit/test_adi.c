/*
 * Unit tests of the device's packet header check, adi_pkt_check() in
 * adi/pt2pt.c: the first thing adi_on_packet does with what a channel hands
 * up. Each refused header here is a case the adi_packet fuzz target
 * (test/fuzz/fuzz_adi_packet.c) exercises; the check must refuse it with a
 * message naming the field and value, and accept what the device sends.
 */
#include "adi/adi_impl.h"
#include "test/unit/unit_limits.h"

#include <check.h>
#include <limits.h>
#include <string.h>

static adi_pkt_t pkt(int type)
{
    adi_pkt_t h;
    memset(&h, 0, sizeof h);
    h.type = (uint8_t)type;
    h.context = 4;
    return h;
}

static void refused(const adi_pkt_t *h, size_t hdr_len, size_t len, const char *words)
{
    adi_pkt_t out;
    ck_assert_int_eq(adi_pkt_check(1, 4, h, hdr_len, len, &out), CANAL_ERR_PROTO);
    ck_assert_msg(strstr(common_err_detail(), words) != NULL, "message '%s' does not say '%s'",
                  common_err_detail(), words);
}

START_TEST(valid_packets_pass)
{
    adi_pkt_t h = pkt(PKT_EAGER), out;
    h.size = 10;
    h.flags = PKT_FLAG_SYNC;
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, sizeof h, 10, &out), CANAL_OK);
    ck_assert_int_eq(out.size, 10);
    h.tag = (int32_t)0x80010002u; /* partitioned communication's tags are negative */
    ck_assert_int_eq(adi_pkt_check(0, 2, &h, sizeof h, 10, &out), CANAL_OK);
    h = pkt(PKT_RTS);
    h.size = 1 << 20;
    h.flags = PKT_FLAG_RDMA;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, sizeof h, 0, &out), CANAL_OK);
    h = pkt(PKT_CTS);
    h.sreq = 7;
    h.rreq = 9;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, sizeof h, 0, &out), CANAL_OK);
    h = pkt(PKT_DATA);
    h.rreq = 9;
    h.raddr = 4096;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, sizeof h, 4096, &out), CANAL_OK);
    h = pkt(PKT_CREDIT);
    h.size = 4096;
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, sizeof h, 0, &out), CANAL_OK);
    h = pkt(PKT_FIN);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, sizeof h, 0, &out), CANAL_OK);
    h = pkt(PKT_SYNC_ACK);
    ck_assert_int_eq(adi_pkt_check(1, 2, &h, sizeof h, 0, &out), CANAL_OK);
}
END_TEST

START_TEST(bad_headers_refused)
{
    adi_pkt_t h = pkt(PKT_EAGER), out;

    ck_assert_int_eq(adi_pkt_check(4, 4, &h, sizeof h, 0, &out), CANAL_ERR_PROTO);
    ck_assert_int_eq(adi_pkt_check(-1, 4, &h, sizeof h, 0, &out), CANAL_ERR_PROTO);
    refused(&h, sizeof h - 1, 0, "header");
    h.type = 0;
    refused(&h, sizeof h, 0, "unknown type 0");
    h.type = PKT_CREDIT + 1;
    refused(&h, sizeof h, 0, "unknown type");
    h = pkt(PKT_EAGER);
    h.flags = 0x80;
    refused(&h, sizeof h, 0, "flags 0x80");
    /* adi_ctx() used to double its table past INT_MAX for this context */
    h = pkt(PKT_RTS);
    h.context = INT_MAX;
    refused(&h, sizeof h, 0, "context 2147483647");
    h.context = -3;
    refused(&h, sizeof h, 0, "context -3");
    h = pkt(PKT_EAGER);
    h.src_rank = -5;
    refused(&h, sizeof h, 0, "source rank -5");
    h = pkt(PKT_EAGER);
    h.size = 100;
    refused(&h, sizeof h, 99, "header says 100");
    h = pkt(PKT_RTS);
    h.size = 100;
    refused(&h, sizeof h, 8, "payload");
    h = pkt(PKT_CTS);
    h.sreq = 0x80000000u;
    refused(&h, sizeof h, 0, "request 2147483648");
    h = pkt(PKT_FIN);
    refused(&h, sizeof h, 16, "16 bytes of payload");
    h = pkt(PKT_DATA);
    h.rreq = UINT32_MAX;
    refused(&h, sizeof h, 8, "request 4294967295");
    h = pkt(PKT_CREDIT);
    h.size = UINT64_MAX;
    refused(&h, sizeof h, 0, "returns");
    h.size = 0;
    refused(&h, sizeof h, 0, "returns 0");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("adi");
    TCase *tc = tcase_create("packet check");
    tcase_set_timeout(tc, unit_case_timeout_s());
    SRunner *sr;
    int failed;

    tcase_add_test(tc, valid_packets_pass);
    tcase_add_test(tc, bad_headers_refused);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
