/*
 * libFuzzer target: the sock channel's wire formats (channels/sock/sock_wire.c),
 * which read bytes from any process that can reach the listening port before
 * it has proved it knows the job secret. The first byte picks:
 *   0 a byte stream cut into frames with ch_sock_frame_scan, as sock_conn.c does
 *   1 a challenge (ch_sock_hs_challenge_decode)
 *   2 a response checked against a fixed secret (ch_sock_hs_response_check)
 *   3 a verdict checked against a fixed secret (ch_sock_hs_verdict_check)
 *   4 round trip: a response and a verdict encoded from input values must be
 *     accepted by the checks, and one flipped byte must make them refuse
 *   5 ch_sock_hex_decode of the rest as text (the secret from the environment)
 * Built and run by test/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "channels/sock/sock.h"
#include "fuzz.h"

static const unsigned char secret[SOCK_SECRET_LEN] = "fuzz secret: 32 bytes of key...";
static const unsigned char nonce_a[SOCK_NONCE_LEN] = "nonce of the acceptor, 32 bytes";
static const unsigned char nonce_c[SOCK_NONCE_LEN] = "nonce of the connector, 32 byte";

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fuzz_frames(const uint8_t *d, size_t n)
{
    size_t max_payload, off = 0;
    unsigned char *buf;

    if (n < 4)
        return;
    max_payload = le32(d) % (1u << 20);
    /* A copy of exactly the bytes so ASan sees any read past them. */
    buf = malloc(n - 4 ? n - 4 : 1);
    memcpy(buf, d + 4, n - 4);
    n -= 4;
    while (off < n) {
        sock_frame_t f;
        size_t need = 0;
        int r = ch_sock_frame_scan(buf + off, n - off, max_payload, &f, &need);
        if (r < 0)
            break; /* the connection would be closed */
        if (need < SOCK_FRAME_HEAD)
            abort();
        if (r == 0)
            break; /* waits for more bytes */
        if (f.len > max_payload || f.hdr_len > CH_HDR_MAX || f.wire_len % 8 != 0 ||
            f.wire_len < SOCK_FRAME_HEAD + f.hdr_len + f.len || f.wire_len > n - off)
            abort();
        /* what sock_conn.c hands up: header then payload, both inside the frame */
        if (f.hdr_len > 0)
            (void)((volatile const unsigned char *)buf)[off + SOCK_FRAME_HEAD + f.hdr_len - 1];
        off += f.wire_len;
    }
    free(buf);
}

static void fuzz_roundtrip(const uint8_t *d, size_t n)
{
    unsigned char resp[SOCK_RESPONSE_LEN], verd[SOCK_VERDICT_LEN], nc[SOCK_NONCE_LEN];
    int size, me, conn, got = -1, v;

    if (n < 10)
        return;
    size = 2 + (int)(le32(d) % 100000);
    me = (int)(le32(d + 4) % (uint32_t)size);
    conn = (me + 1 + d[8] % (size - 1)) % size;
    ch_sock_hs_response_encode(resp, secret, nonce_a, nonce_c, conn, me);
    if (ch_sock_hs_response_check(resp, secret, nonce_a, me, size, &got, nc) != CANAL_OK ||
        got != conn || memcmp(nc, nonce_c, SOCK_NONCE_LEN) != 0)
        abort();
    resp[d[9] % SOCK_RESPONSE_LEN] ^= (unsigned char)(1u << (d[9] % 8));
    if (ch_sock_hs_response_check(resp, secret, nonce_a, me, size, &got, nc) == CANAL_OK)
        abort();
    ch_sock_hs_verdict_encode(verd, secret, 1 + (d[8] & 1), nonce_a, nonce_c, conn, me);
    if (ch_sock_hs_verdict_check(verd, secret, nonce_a, nonce_c, conn, me, &v) != CANAL_OK ||
        v != 1 + (d[8] & 1))
        abort();
    verd[d[9] % SOCK_VERDICT_LEN] ^= (unsigned char)(1u << (d[9] % 8));
    if (ch_sock_hs_verdict_check(verd, secret, nonce_a, nonce_c, conn, me, &v) == CANAL_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char in[SOCK_RESPONSE_LEN], nonce[SOCK_NONCE_LEN];
    int rank, v;

    if (size < 1)
        return 0;
    memset(in, 0, sizeof in);
    memcpy(in, data + 1, size - 1 < sizeof in ? size - 1 : sizeof in);
    switch (data[0] % 6) {
    case 0:
        fuzz_frames(data + 1, size - 1);
        break;
    case 1:
        if (ch_sock_hs_challenge_decode(in, &rank, nonce) == CANAL_OK && rank < 0)
            abort();
        break;
    case 2: {
        int me = in[SOCK_RESPONSE_LEN - 1] % 4, sz = 4;
        if (ch_sock_hs_response_check(in, secret, nonce_a, me, sz, &rank, nonce) == CANAL_OK)
            abort(); /* nobody guesses an HMAC */
        break;
    }
    case 3:
        if (ch_sock_hs_verdict_check(in, secret, nonce_a, nonce_c, 1, 0, &v) == CANAL_OK)
            abort();
        break;
    case 4:
        fuzz_roundtrip(data + 1, size - 1);
        break;
    case 5: {
        char *text = malloc(size);
        unsigned char out[64];
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        (void)ch_sock_hex_decode(text, out,
                                 (size - 1) / 2 < sizeof out ? (size - 1) / 2 : sizeof out);
        free(text);
        break;
    }
    }
    return 0;
}
