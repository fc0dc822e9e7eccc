/*
 * What an ofi channel test prints when a wait fails as a hang
 * (test_ch_ofi.c, test_ch_endpoints.c built for ofi): the channel's own
 * state (ch_ofi_state_text) and this process's TCP sockets with the bytes
 * the kernel holds on each (/proc/net/tcp, /proc/net/tcp6). Together they
 * say where a packet that never arrived is: completed by the provider but
 * held by the channel for order ("holds"); in the receiver's kernel queue
 * (recv-q > 0 that stays: the receiving provider does not read its socket);
 * in the sender's (send-q > 0: the receiver's window is shut); or nowhere
 * (lost, or sent over a connection to a process that is not the peer: the
 * state text gives each peer's address, the socket list the ports).
 */
#ifndef CANAL_TEST_OFI_TEST_DIAG_H
#define CANAL_TEST_OFI_TEST_DIAG_H

#include <stdio.h>

#include "channels/channel.h"

/* Print ep's state to f, after label (e.g. "endpoint A") when not NULL. */
void ofi_test_diag(FILE *f, ch_endpoint_t *ep, const char *label);
/* Print this process's TCP sockets to f (once per report: they are the
 * process's, not an endpoint's). */
void ofi_test_diag_sockets(FILE *f);

/* The jobs of the ofi tests run on this machine: have tcp and net use the
 * loopback interface (FI_TCP_IFACE, FI_NET_IFACE = lo, unless set). Without
 * it they take the first interface libfabric lists, which may be a bridge
 * another program made and removes while the test runs (test/cluster/
 * netns.sh's 10.N.0.254): a send then fails with EADDRNOTAVAIL or goes to an
 * address that is no longer this machine's. Call before the first init. */
void ofi_test_use_loopback(void);

#endif
