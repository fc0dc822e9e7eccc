/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), small and dependency
 * free, for the sock channel's connection handshake (channels/sock/). Not a
 * general crypto library: one-shot and streaming forms, nothing else.
 */
#ifndef CANAL_CH_SOCK_SHA256_H
#define CANAL_CH_SOCK_SHA256_H

#include <stddef.h>
#include <stdint.h>

enum { SHA256_LEN = 32, SHA256_BLOCK = 64 };

typedef struct {
    uint32_t h[8];
    uint64_t nbytes; /* bytes hashed so far */
    unsigned char buf[SHA256_BLOCK];
    size_t buflen;
} sock_sha256_t;

typedef struct {
    sock_sha256_t inner, outer;
} sock_hmac_t;

void ch_sock_sha256_init(sock_sha256_t *c);
void ch_sock_sha256_update(sock_sha256_t *c, const void *data, size_t len);
void ch_sock_sha256_final(sock_sha256_t *c, unsigned char out[SHA256_LEN]);
void ch_sock_sha256(const void *data, size_t len, unsigned char out[SHA256_LEN]);

void ch_sock_hmac_init(sock_hmac_t *h, const void *key, size_t keylen);
void ch_sock_hmac_update(sock_hmac_t *h, const void *data, size_t len);
void ch_sock_hmac_final(sock_hmac_t *h, unsigned char out[SHA256_LEN]);
void ch_sock_hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
                         unsigned char out[SHA256_LEN]);

/* 1 if the n bytes at a and b are equal; the time taken does not depend on
 * where they differ (for comparing MACs). */
int ch_sock_ct_equal(const void *a, const void *b, size_t n);

#endif
