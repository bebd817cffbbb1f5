/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sluice-exporter: the Prometheus exporter as a program of its own, which
 * `sluice exporter ARGS` runs (execv, same arguments).  It is a separate
 * binary so that the engine's does not load the HTTP server's libraries
 * (libmicrohttpd pulls in GnuTLS and p11-kit, whose thread-local storage
 * made every thread-local access of DPDK's dlopen'ed drivers slower:
 * docs/benchmarks.md, "Accounting").
 */
#include "cli/promtext.h"

int main(int argc, char **argv)
{
	return sl_exporter_main(argc - 1, argv + 1, SL_VERSION);
}
