/*
 * Random bytes from the kernel (getrandom), for secrets that guard the
 * sock listener and the ports of dynamic processes.
 */
#ifndef CANAL_COMMON_RANDOM_H
#define CANAL_COMMON_RANDOM_H

#include <stddef.h>

#include "common/status.h"

/* Fills buf with n random bytes; CANAL_ERR_IO (with the reason) if the
 * kernel refuses. */
canal_status_t common_random_bytes(void *buf, size_t n);

#endif
