/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SL_PORT_XDP_H
#define SL_PORT_XDP_H

/*
 * A pass-everything XDP program on a kernel interface, for the port app's
 * `peer_tso: off` (docs/router.md, "TCP from hosts on veths").
 *
 * Why: a veth hands its peer the sender's TCP as TSO super-frames of up to
 * 64 kB, and a packet socket (net_af_packet) cuts each to one ring frame, so
 * a host's TCP through the engine stalls.  The kernel's veth stops offering
 * TSO to a sender whose peer has an XDP program attached (veth_fix_features),
 * and the host's stack then segments in software: every frame fits.  The
 * program passes every frame to the stack (XDP_PASS), where the packet socket
 * sees it as before.
 *
 * The program is attached through a BPF link: it stays attached while the
 * descriptor is open and goes with it, also when the process dies.
 * Errors: the project's convention (base/err.h).  Control thread.
 */

#include "base/err.h"

/* Attach the program to interface `ifindex` (named `ifname` in messages).
 * Returns the link's descriptor (close it to detach), or -errno with a
 * sentence naming the interface in *err. */
int sl_xdp_pass_attach(int ifindex, const char *ifname, struct sl_err *err);

#endif /* SL_PORT_XDP_H */
