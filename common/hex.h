/*
 * Hexadecimal text for binary values (secrets, fabric addresses, port
 * names): lowercase on output, either case on input. Used wherever a byte
 * string must travel as PMI value or inside a printable name.
 */
#ifndef CANAL_COMMON_HEX_H
#define CANAL_COMMON_HEX_H

#include <stddef.h>

/* Writes 2*n digits and a '\0' to out (which holds 2*n+1 characters). */
void common_hex_encode(const void *in, size_t n, char *out);
/* The value of one hex digit, or -1 if c is not one. */
int common_hex_digit(char c);
/* Decodes the len characters at in into at most cap bytes; returns the
 * number of bytes, or -1 if len is odd, a character is not a digit or the
 * value does not fit. */
long common_hex_decode(const char *in, size_t len, void *out, size_t cap);

#endif
