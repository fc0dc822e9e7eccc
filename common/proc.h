/*
 * Another process of this node, named by its pid: does it still run? A pid
 * names the same process only inside one pid namespace. Ranks of one job on
 * one node may sit in different ones (a container per rank, sharing the
 * node's /dev/shm): a peer's pid then names nothing here, or another
 * process. So every pid a process publishes travels with its namespace's
 * identity (common_pidns), and a pid is looked up only when that identity
 * is ours. Also the first number of a file such as sysfs's topology files,
 * which the library (mpi/comm.c) and mpiexec's binding both read.
 */
#ifndef CANAL_COMMON_PROC_H
#define CANAL_COMMON_PROC_H

#include <stdint.h>

/* This process's pid namespace: the inode of /proc/self/ns/pid, 0 when it
 * cannot be read (no /proc). Two unreadable ones count as the same (as
 * before namespaces were looked at); one readable and one not, as
 * different. */
uint64_t common_pidns(void);

/* Is the process pid of namespace pidns gone? 1 gone (ESRCH), 0 it runs
 * (or exists and is not ours to signal), -1 cannot tell: another pid
 * namespace, or no pid. */
int common_pid_gone(long pid, uint64_t pidns);

/* The first number of a file ("0-3,8" -> 0), or -1 when it cannot be read. */
int common_file_first_int(const char *path);

/* This process's number of threads (/proc/self/stat), or -1. */
int common_thread_count(void);

/* How many of this process's threads are runnable now (state R in
 * /proc/self/task/<tid>/stat: running or waiting for a CPU; not those asleep
 * on a lock, a condition variable or I/O), or -1. */
int common_threads_running(void);

#endif
