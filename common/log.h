/*
 * Logging for every layer. Messages go to stderr prefixed with "canal" and,
 * once known, the rank ("[canal:3] ..."). Debug output is enabled by the
 * CANAL_DEBUG configuration variable (a verbosity level).
 */
#ifndef CANAL_COMMON_LOG_H
#define CANAL_COMMON_LOG_H

enum { LOG_LVL_ERROR = 0, LOG_LVL_WARN = 1, LOG_LVL_INFO = 2, LOG_LVL_DEBUG = 3 };

/* Set once the process knows its rank; -1 means unknown. */
void common_log_set_rank(int rank);
int common_log_rank(void);
void common_log_set_level(int level);
int common_log_level(void);

void common_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define LOG_ERR(...) common_log(LOG_LVL_ERROR, __VA_ARGS__)
#define LOG_WARN(...) common_log(LOG_LVL_WARN, __VA_ARGS__)
#define LOG_INFO(...) common_log(LOG_LVL_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) common_log(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
