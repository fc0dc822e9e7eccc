/*
 * SHA-256 as FIPS 180-4 section 6.2 describes it, and HMAC over it as RFC
 * 2104 does, for the sock channel's challenge/response (sock_hs.c). Written
 * for clarity, not speed: a handshake hashes a few hundred bytes. The unit
 * test (test/unit/test_ch_sock.c) checks the FIPS 180-4 examples and the
 * RFC 4231 HMAC vectors.
 */
#include "channels/sock/sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void compress(uint32_t h[8], const unsigned char block[SHA256_BLOCK])
{
    uint32_t w[64], a, b, c, d, e, f, g, hh;

    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = hh + S1 + ch + K[t] + w[t];
        uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void ch_sock_sha256_init(sock_sha256_t *c)
{
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, H0, sizeof H0);
    c->nbytes = 0;
    c->buflen = 0;
}

void ch_sock_sha256_update(sock_sha256_t *c, const void *data, size_t len)
{
    const unsigned char *p = data;

    c->nbytes += len;
    if (c->buflen > 0) {
        size_t take = SHA256_BLOCK - c->buflen < len ? SHA256_BLOCK - c->buflen : len;
        memcpy(c->buf + c->buflen, p, take);
        c->buflen += take;
        p += take;
        len -= take;
        if (c->buflen < SHA256_BLOCK)
            return;
        compress(c->h, c->buf);
        c->buflen = 0;
    }
    for (; len >= SHA256_BLOCK; p += SHA256_BLOCK, len -= SHA256_BLOCK)
        compress(c->h, p);
    if (len > 0) {
        memcpy(c->buf, p, len);
        c->buflen = len;
    }
}

void ch_sock_sha256_final(sock_sha256_t *c, unsigned char out[SHA256_LEN])
{
    uint64_t bits = c->nbytes * 8;
    unsigned char pad[SHA256_BLOCK + 8] = {0x80};
    /* The message, a 1 bit, zeros, and the 64-bit length end on a block boundary. */
    size_t padlen = (c->buflen < 56 ? 56 : 120) - c->buflen;
    unsigned char lenbuf[8];

    for (int i = 0; i < 8; i++)
        lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
    ch_sock_sha256_update(c, pad, padlen);
    ch_sock_sha256_update(c, lenbuf, 8);
    for (int i = 0; i < 8; i++)
        store_be32(out + 4 * i, c->h[i]);
    memset(c, 0, sizeof *c);
}

void ch_sock_sha256(const void *data, size_t len, unsigned char out[SHA256_LEN])
{
    sock_sha256_t c;
    ch_sock_sha256_init(&c);
    ch_sock_sha256_update(&c, data, len);
    ch_sock_sha256_final(&c, out);
}

void ch_sock_hmac_init(sock_hmac_t *h, const void *key, size_t keylen)
{
    unsigned char k[SHA256_BLOCK] = {0}, pad[SHA256_BLOCK];

    /* Keys longer than a block are hashed first (RFC 2104 section 2). */
    if (keylen > SHA256_BLOCK)
        ch_sock_sha256(key, keylen, k);
    else if (keylen > 0)
        memcpy(k, key, keylen);
    for (int i = 0; i < SHA256_BLOCK; i++)
        pad[i] = k[i] ^ 0x36;
    ch_sock_sha256_init(&h->inner);
    ch_sock_sha256_update(&h->inner, pad, sizeof pad);
    for (int i = 0; i < SHA256_BLOCK; i++)
        pad[i] = k[i] ^ 0x5c;
    ch_sock_sha256_init(&h->outer);
    ch_sock_sha256_update(&h->outer, pad, sizeof pad);
    memset(k, 0, sizeof k);
    memset(pad, 0, sizeof pad);
}

void ch_sock_hmac_update(sock_hmac_t *h, const void *data, size_t len)
{
    ch_sock_sha256_update(&h->inner, data, len);
}

void ch_sock_hmac_final(sock_hmac_t *h, unsigned char out[SHA256_LEN])
{
    unsigned char inner[SHA256_LEN];

    ch_sock_sha256_final(&h->inner, inner);
    ch_sock_sha256_update(&h->outer, inner, sizeof inner);
    ch_sock_sha256_final(&h->outer, out);
    memset(inner, 0, sizeof inner);
}

void ch_sock_hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
                         unsigned char out[SHA256_LEN])
{
    sock_hmac_t h;
    ch_sock_hmac_init(&h, key, keylen);
    ch_sock_hmac_update(&h, data, len);
    ch_sock_hmac_final(&h, out);
}

int ch_sock_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char diff = 0;

    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(x[i] ^ y[i]);
    return diff == 0;
}
