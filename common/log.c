/*
 * Implementation of common/log.h: one line per message, written with a single
 * write so lines of different ranks do not interleave.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int log_rank = -1;
static int log_level = LOG_LVL_WARN;

void common_log_set_rank(int rank) { log_rank = rank; }
int common_log_rank(void) { return log_rank; }
void common_log_set_level(int level) { log_level = level; }
int common_log_level(void) { return log_level; }

void common_log(int level, const char *fmt, ...)
{
    char buf[1024];
    int n;
    va_list ap;

    if (level > log_level)
        return;
    if (log_rank >= 0)
        n = snprintf(buf, sizeof buf, "[canal:%d] ", log_rank);
    else
        n = snprintf(buf, sizeof buf, "[canal] ");
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    if (buf[n - 1] != '\n')
        buf[n++] = '\n';
    if (write(STDERR_FILENO, buf, (size_t)n) < 0) {
        /* nothing sensible left to do */
    }
}
