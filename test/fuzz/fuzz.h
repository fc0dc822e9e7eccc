/*
 * The two functions libFuzzer calls in a target (each test/fuzz/fuzz_*.c
 * defines TestOneInput, most also Initialize). Declared here so that the
 * targets build with the library's -Wmissing-prototypes.
 */
#ifndef CANAL_TEST_FUZZ_H
#define CANAL_TEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
