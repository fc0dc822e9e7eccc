/*
 * common/random.c: getrandom() until the buffer is full (it may return
 * fewer bytes than asked, or be interrupted by a signal).
 */
#include "common/random.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

canal_status_t common_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    size_t got = 0;

    while (got < n) {
        ssize_t r = getrandom(p + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return common_err_set(CANAL_ERR_IO, "getrandom(%zu bytes): %s", n - got,
                                  strerror(errno));
        got += (size_t)r;
    }
    return CANAL_OK;
}
