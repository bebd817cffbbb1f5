/* SPDX-License-Identifier: BSD-3-Clause */
/* A pass-everything XDP program on an interface: see port_xdp.h. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "port_xdp.h"

static int bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int sl_xdp_pass_attach(int ifindex, const char *ifname, struct sl_err *err)
{
	/* r0 = XDP_PASS; exit */
	struct bpf_insn prog[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_XDP;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.insn_cnt = 2;
	a.license = (uint64_t)(uintptr_t)"GPL";
	strcpy(a.prog_name, "sluice_pass");
	int prog_fd = bpf(BPF_PROG_LOAD, &a);
	if (prog_fd < 0)
		return sl_errf(err, errno, "cannot load an XDP program for interface '%s': %s "
			       "(needs root, or CAP_BPF and CAP_NET_ADMIN)", ifname, strerror(errno));

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog_fd;
	a.link_create.target_ifindex = (uint32_t)ifindex;
	a.link_create.attach_type = BPF_XDP;
	int link_fd = bpf(BPF_LINK_CREATE, &a);
	int e = errno;
	close(prog_fd);
	if (link_fd < 0)
		return sl_errf(err, e, "cannot attach an XDP program to interface '%s': %s%s", ifname,
			       strerror(e), e == EBUSY ? " (it has one already)" : "");
	return link_fd;
}
