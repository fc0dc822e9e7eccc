/*
 * common/hex.c: the one hexadecimal encoder and decoder of the library (see
 * hex.h). Decoding checks every character, so a value damaged on its way
 * through PMI or a user's port name is refused, never half-read.
 */
#include "common/hex.h"

void common_hex_encode(const void *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = in;

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

int common_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long common_hex_decode(const char *in, size_t len, void *out, size_t cap)
{
    unsigned char *b = out;

    if (len % 2 != 0 || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = common_hex_digit(in[2 * i]), lo = common_hex_digit(in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return (long)(len / 2);
}
