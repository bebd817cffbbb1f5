/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port: an rte_ethdev (a PCI NIC or a virtual device: pcap, ring, null,
 * af_packet, tap, vhost, ...).
 *
 * init probes `device` (hot-plug) unless an ethdev of that name already
 * exists, for instance a NIC the EAL probed at start-up or a --vdev given in
 * the EAL arguments; the ethdev name is the part of `device` before the first
 * comma (a PCI address in its full 0000:bb:dd.f form).  The app claims the
 * port in this process's table of claimed ports, so two apps cannot drive
 * one device.  (Not with rte_eth_dev_owner_set: an owned port is invisible
 * to RTE_ETH_FOREACH_DEV in every process, so dpdk-dumpcap, a secondary
 * process, could not find it; docs/capture.md.)
 *
 * Queues.  An app on one worker gets rx_queues rx queues and polls them all,
 * and transmits on tx queue 0.  An app on a worker group of n members runs as
 * n replicas (engine/config/config.h); the device gets n x rx_queues rx queues
 * and n tx queues, and replica k polls rx queues k x rx_queues ..
 * (k + 1) x rx_queues - 1 and transmits on tx queue k: no two threads touch
 * one queue, and nothing is locked.  Replica 0 opens, configures and starts
 * the device for all (init runs in replica order), the last replica's stop
 * stops it, and replica 0's fini closes it.  A device with fewer queues than
 * that is a configuration error (init returns -EDOM: exit 2, the app's
 * FILE:LINE:COL).  Other workers reach the port over links (interlinks).
 *
 * RSS.  With more than one rx queue and a device that has RSS, receive-side
 * scaling hashes the fields `rss` names (default ip,udp,tcp), with rss_key
 * or the device's own key, or with the symmetric key (rss_symmetric: both
 * directions of a flow on one queue, which a flow cache wants), and the
 * redirection table spreads evenly over every rx queue of the port.  Without
 * RSS (vhost-user, af_packet) the peer picks the queue: a virtio driver by
 * its own queue choice, af_packet by the kernel's fanout (a hash of the flow).
 *
 * pull  receives a burst from every rx queue and transmits it on "output"
 *       (counting packets; in_bytes is the device's own byte counter, read
 *       at stop: 0 for drivers that count none, such as net_null);
 *       with "output" unconnected the queues are set up but never polled.
 * push  sends what "input" holds on its tx queue.  Packets the device does
 *       not take are dropped (counted in the app's drops); sent packets are
 *       counted as the app's out_packets/out_bytes.
 * stop  reads the device's counters and link status, then stops it (for a
 *       replicated port: each replica reads its queues' counters; replica 0
 *       the device's own, which so count on replica 0 only).
 *       Frames the device reports as not delivered are not counted as
 *       delivered: frames it took for transmission but did not send
 *       (out_packets less its opackets) move from out_packets to drops;
 *       receive losses (imissed, ierrors) count as drops.  Such a port gets
 *       one warning (sl_app_warn) naming the device and the counters, as
 *       does a link found down or a failed receive buffer allocation
 *       (rx_nombuf; reported, not counted: most drivers leave the frame in
 *       the ring, where imissed counts it if it is lost).  The device's
 *       counters behind the warning are the app's counters (port_counters).
 *       fini closes it (freeing what its rings hold), and removes the
 *       device if this app probed it.
 *
 * pcap files.  The pcap driver cannot report a failed write, so what can be
 * checked is checked here.  Before probing a net_pcap device, each tx_pcap
 * file must take data: it is opened for writing and sent one byte (appended
 * to a regular file and cut off again; a NUL to a character device; FIFOs
 * are left alone, as opening one blocks until a reader comes).  A file that
 * does not, such as /dev/full or a file in a read-only directory, fails init
 * with a sentence naming the file.  At stop, a regular tx_pcap file must be
 * as long as what was sent to it (the pcap header, then a 16-byte record
 * header and the frame per frame); a shorter file means writes failed, and
 * the frames missing (estimated from the average frame length when part of
 * them arrived) move from out_packets to drops, with a warning.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_pci.h>

#include "runtime/app.h"
#include "apps/pkt/pkt.h"
#include "apps/port_xdp.h"
#include "placement/topology.h"

#define PORT_TX_ROUNDS 4
/* Full rx bursts a breath into a direct link (port_pull); measured with
 * the router between net_pcap and net_null (docs/benchmarks.md, "Four
 * bursts a breath"): 8 gained nothing over 4. */
#define PORT_RX_ROUNDS 4

/* The app's counters, read from the device at stop, in the order of port_counters. */
enum {
	PORT_LINK_DOWN, PORT_TX_UNSENT, PORT_TX_FILE_LOST, PORT_RX_MISSED, PORT_RX_ERRORS,
	PORT_RX_NOMBUF, PORT_RX_QUEUE, PORT_TX_QUEUE, PORT_Q_IPACKETS, PORT_Q_IBYTES,
	PORT_Q_OPACKETS, PORT_Q_OBYTES, PORT_Q_ERRORS, PORT_L4_FILLED, PORT_N_COUNTERS
};

static const struct sl_counter_spec port_counters[PORT_N_COUNTERS] = {
	[PORT_LINK_DOWN] = { "link_down", SL_GAUGE, "1 if the device reported its link down at stop, else 0." },
	[PORT_TX_UNSENT] = { "tx_unsent", SL_COUNTER, "Frames the device took for transmission but did not send (out_packets less its opackets); moved to drops." },
	[PORT_TX_FILE_LOST] = { "tx_file_lost", SL_COUNTER, "Frames missing from a regular tx_pcap file (estimated); moved to drops." },
	[PORT_RX_MISSED] = { "rx_missed", SL_COUNTER, "Frames the device lost on receive for want of room (imissed); counted as drops." },
	[PORT_RX_ERRORS] = { "rx_errors", SL_COUNTER, "Frames received with errors (ierrors); counted as drops." },
	[PORT_RX_NOMBUF] = { "rx_nombuf", SL_COUNTER, "Receive buffer allocations that failed (the pool ran empty)." },
	[PORT_RX_QUEUE] = { "rx_queue", SL_GAUGE, "The first rx queue this app (replica) polls." },
	[PORT_TX_QUEUE] = { "tx_queue", SL_GAUGE, "The tx queue this app (replica) transmits on." },
	[PORT_Q_IPACKETS] = { "q_ipackets", SL_COUNTER, "Frames received on this app's rx queues, by the device's per-queue statistics (0 where it keeps none)." },
	[PORT_Q_IBYTES] = { "q_ibytes", SL_COUNTER, "Bytes received on this app's rx queues, by the device's per-queue statistics." },
	[PORT_Q_OPACKETS] = { "q_opackets", SL_COUNTER, "Frames sent on this app's tx queue, by the device's per-queue statistics." },
	[PORT_Q_OBYTES] = { "q_obytes", SL_COUNTER, "Bytes sent on this app's tx queue, by the device's per-queue statistics." },
	[PORT_Q_ERRORS] = { "q_errors", SL_COUNTER, "Receive errors on this app's rx queues, by the device's per-queue statistics." },
	[PORT_L4_FILLED] = { "l4_filled", SL_COUNTER, "Received TCP and UDP frames whose checksum the app computed (l4_checksum: fill)." },
};

struct port_priv {
	uint16_t port_id;
	uint16_t n_rxq;          /* rx queues this app polls, from rxq0 */
	uint16_t rxq0;           /* the first of them */
	uint16_t txq;            /* the tx queue it transmits on */
	bool leader;             /* opened the device (replica 0, or not replicated) */
	bool is_pci;             /* name is a PCI address (else a vdev) */
	bool probed;             /* this app hot-plugged the device: fini removes it */
	bool configured;         /* fini closes the port */
	bool started;
	bool owned;              /* claimed_by[port_id] is this app */
	bool fill_l4;            /* l4_checksum: fill */
	bool xdp_on;             /* peer_tso: off: xdp_fd is the XDP link (port_xdp.h) */
	int xdp_fd;
	struct rte_device *dev;  /* the bus device, for rte_dev_remove */
	char *tx_file;           /* queue 0's tx_pcap file when a regular file; else NULL */
	char name[RTE_ETH_NAME_MAX_LEN];
};

/* Bytes of a pcap file's header and of each record's header. */
#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16

/* Ethdev name of a device string: up to the first comma, PCI addresses in
 * canonical form. */
static int device_name(const char *device, char *name, size_t size, bool *is_pci,
		       struct sl_err *err)
{
	size_t len = strcspn(device, ",");
	struct rte_pci_addr addr;

	if (len >= size)
		return sl_errf(err, EINVAL, "device name in '%s' is longer than %zu characters",
			       device, size - 1);
	memcpy(name, device, len);
	name[len] = '\0';
	*is_pci = rte_pci_addr_parse(name, &addr) == 0;
	if (*is_pci)
		rte_pci_device_name(&addr, name, size);
	return 0;
}

/* Many drivers fail with -1 rather than a -errno value and log the reason
 * themselves; do not call that "Operation not permitted". */
static const char *why(int rc)
{
	return rc == -1 ? "the driver refused (see its log message)" : rte_strerror(-rc);
}

static int errnum(int rc)
{
	return rc == -1 ? EINVAL : -rc;
}

/* Does path take data?  Returns 0, or -errno with a sentence.  See the
 * comment at the top for what is written where. */
static int check_tx_file(const char *path, bool *regular, struct sl_err *err)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	*regular = !exists || S_ISREG(st.st_mode);
	if (exists && S_ISFIFO(st.st_mode))
		return 0;
	if (exists && S_ISDIR(st.st_mode))
		return sl_errf(err, EISDIR, "cannot write the tx_pcap file '%s': it is a directory",
			       path);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
	if (fd < 0)
		return sl_errf(err, errno, "cannot write the tx_pcap file '%s': %s", path,
			       strerror(errno));
	int rc = 0;
	if (*regular || S_ISCHR(st.st_mode)) {
		off_t size = lseek(fd, 0, SEEK_END);
		ssize_t n = write(fd, "", 1);
		if (n != 1)
			rc = sl_errf(err, n < 0 ? errno : EIO, "cannot write the tx_pcap file '%s': %s",
				     path, n < 0 ? strerror(errno) : "nothing was written");
		if (*regular && size >= 0 && ftruncate(fd, size) != 0 && rc == 0)
			rc = sl_errf(err, errno, "cannot write the tx_pcap file '%s': %s", path,
				     strerror(errno));
	}
	close(fd);
	if (rc < 0 && !exists)
		unlink(path);
	return rc;
}

struct tx_files {
	struct port_priv *p;
	struct sl_err *err;
	int rc;
	bool first;
};

static int tx_file_arg(const char *key, const char *value, void *opaque)
{
	struct tx_files *t = opaque;
	bool regular;
	if (t->rc < 0 || value == NULL)
		return 0;
	t->rc = check_tx_file(value, &regular, t->err);
	if (t->rc == 0 && t->first && regular) {
		t->p->tx_file = strdup(value);
		if (t->p->tx_file == NULL)
			t->rc = sl_errf(t->err, ENOMEM, "out of memory");
	}
	t->first = false;
	return 0;
}

/* Before probing a net_pcap device: every tx_pcap file must take data. */
static int check_pcap_files(struct port_priv *p, const char *device, struct sl_err *err)
{
	const char *args = strchr(device, ',');
	if ((strncmp(p->name, "net_pcap", 8) != 0 && strncmp(p->name, "eth_pcap", 8) != 0) ||
	    args == NULL)
		return 0;
	struct rte_kvargs *kv = rte_kvargs_parse(args + 1, NULL);
	if (kv == NULL)
		return 0;   /* the driver will refuse the arguments itself */
	struct tx_files t = { .p = p, .err = err, .first = true };
	rte_kvargs_process(kv, "tx_pcap", tx_file_arg, &t);
	rte_kvargs_free(kv);
	return t.rc;
}

/* The same for a pcap device the EAL probed already (--vdev in dpdk.args or
 * after --): its arguments come from its devargs.  The driver has opened the
 * files; a write that fails now fails for its frames too. */
static int check_probed_pcap_files(struct port_priv *p, struct sl_err *err)
{
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(p->port_id, &info) != 0 || info.device == NULL)
		return 0;
	const struct rte_devargs *da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL || da->args[0] == '\0')
		return 0;
	size_t len = strlen(p->name) + strlen(da->args) + 2;
	char *device = malloc(len);
	if (device == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	snprintf(device, len, "%s,%s", p->name, da->args);
	int rc = check_pcap_files(p, device, err);
	free(device);
	return rc;
}

/* The app that claimed each port (control thread only; its name is read
 * when needed: a reload may move it to another config's copy). */
static const struct sl_app *claimed_by[RTE_MAX_ETHPORTS];

/* Find or probe the device, and claim its port. */
static int port_attach(struct sl_app *app, const char *device, struct sl_err *err)
{
	struct port_priv *p = app->priv;
	int rc;

	rc = device_name(device, p->name, sizeof(p->name), &p->is_pci, err);
	if (rc < 0)
		return rc;
	if (rte_eth_dev_get_port_by_name(p->name, &p->port_id) != 0) {
		rc = check_pcap_files(p, device, err);
		if (rc < 0)
			return rc;
		rc = rte_dev_probe(device);
		/* EAL answers -EFAULT when no bus claims the name. */
		if (rc == -EFAULT)
			return sl_errf(err, ENODEV,
				       "cannot probe device '%s': no bus or driver recognises '%s'",
				       device, p->name);
		if (rc < 0)
			return sl_errf(err, errnum(rc), "cannot probe device '%s': %s",
				       device, why(rc));
		if (rte_eth_dev_get_port_by_name(p->name, &p->port_id) != 0) {
			/* Probed, but not as an ethdev of the expected name:
			 * undo the probe so that nothing is left attached. */
			rte_eal_hotplug_remove(p->is_pci ? "pci" : "vdev", p->name);
			return sl_errf(err, ENODEV, "device '%s' has no ethdev port", device);
		}
		p->probed = true;
	} else {
		rc = check_probed_pcap_files(p, err);
		if (rc < 0)
			return rc;
	}

	if (claimed_by[p->port_id] != NULL)
		return sl_errf(err, EBUSY, "device '%s' is already used by sluice app '%s'", p->name,
			       claimed_by[p->port_id]->name);
	struct rte_eth_dev_owner cur = { 0 };
	if (rte_eth_dev_owner_get(p->port_id, &cur) == 0 && cur.id != RTE_ETH_DEV_NO_OWNER)
		return sl_errf(err, EBUSY, "device '%s' is already used by %s", p->name,
			       cur.name[0] != '\0' ? cur.name : "another owner");
	claimed_by[p->port_id] = app;
	p->owned = true;
	return 0;
}

/* The hash fields `rss` may name, and what each means to ethdev. */
static const struct {
	const char *name;
	uint64_t hf;
} rss_fields[] = {
	{ "ip", RTE_ETH_RSS_IP },
	{ "ipv4", RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER },
	{ "ipv6", RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER |
		  RTE_ETH_RSS_IPV6_EX },
	{ "udp", RTE_ETH_RSS_UDP },
	{ "tcp", RTE_ETH_RSS_TCP },
	{ "sctp", RTE_ETH_RSS_SCTP },
	{ "l2", RTE_ETH_RSS_ETH },
	{ "none", 0 },
};

#define RSS_KEY_MAX 128    /* bytes; devices take 40 or 52 */

/* The hash fields of an `rss` value ("ip,udp,tcp"); 0, or -EINVAL with a
 * sentence naming the word that is not a field. */
static int parse_rss(const char *text, uint64_t *hf, struct sl_err *err)
{
	*hf = 0;
	const char *s = text;
	while (*s != '\0') {
		size_t len = strcspn(s, ",");
		while (len > 0 && s[0] == ' ')
			s++, len--;
		size_t n = len;
		while (n > 0 && s[n - 1] == ' ')
			n--;
		unsigned i = 0;
		while (i < SL_ARRAY_LEN(rss_fields) &&
		       (strlen(rss_fields[i].name) != n || strncmp(rss_fields[i].name, s, n) != 0))
			i++;
		if (i == SL_ARRAY_LEN(rss_fields))
			return sl_errf(err, EINVAL, "parameter 'rss': '%.*s' is not a hash field "
				       "(fields: ip, ipv4, ipv6, udp, tcp, sctp, l2, or none)", (int)n, s);
		*hf |= rss_fields[i].hf;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* rss_key's bytes (hex, two digits a byte, ':' allowed between bytes). */
static int parse_rss_key(const char *text, uint8_t *key, unsigned *len, struct sl_err *err)
{
	*len = 0;
	if (strcmp(text, "none") == 0)
		return 0;
	for (const char *s = text; *s != '\0';) {
		if (*s == ':') {
			s++;
			continue;
		}
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]))
			return sl_errf(err, EINVAL, "parameter 'rss_key' must be hex bytes "
				       "(6d5a6d5a... or 6d:5a:...), got '%s'", text);
		if (*len == RSS_KEY_MAX)
			return sl_errf(err, EINVAL, "parameter 'rss_key' is longer than %u bytes",
				       RSS_KEY_MAX);
		char byte[3] = { s[0], s[1], '\0' };
		key[(*len)++] = (uint8_t)strtoul(byte, NULL, 16);
		s += 2;
	}
	return 0;
}

/* Parameters by index, for check (parallel to port_params). */
enum { P_DEVICE, P_RX_QUEUES, P_RX_DESC, P_TX_DESC, P_PROMISC, P_MTU, P_RSS, P_RSS_KEY,
       P_RSS_SYMMETRIC, P_L4_CHECKSUM, P_PEER_TSO, P_N };

static int port_check(const struct sl_param_value *params, unsigned n_in,
				unsigned n_out, struct sl_err *err)
{
	uint64_t hf;
	uint8_t key[RSS_KEY_MAX];
	unsigned len;
	int rc = parse_rss(params[P_RSS].s, &hf, err);
	if (rc == 0)
		rc = parse_rss_key(params[P_RSS_KEY].s, key, &len, err);
	if (rc == 0 && len > 0 && params[P_RSS_SYMMETRIC].u)
		rc = sl_errf(err, EINVAL, "give rss_key or rss_symmetric, not both: "
			     "rss_symmetric uses a key of its own");
	if (rc == 0 && params[P_PEER_TSO].u == 1 &&
	    strncmp(params[P_DEVICE].s, "net_af_packet", 13) != 0)
		rc = sl_errf(err, EINVAL, "peer_tso: off needs a net_af_packet device (a packet "
			     "socket on a veth), not '%s'", params[P_DEVICE].s);
	return rc;
}

/* RSS over total_rxq queues: the fields asked for that the device hashes,
 * with the key asked for (rss_key, the symmetric key, or the device's own:
 * NULL).  key[] must outlive the configure call. */
static int port_rss(struct sl_app *app, const struct rte_eth_dev_info *info, unsigned total_rxq,
		    uint8_t *key, struct rte_eth_conf *conf, struct sl_err *err)
{
	const struct port_priv *p = app->priv;
	uint64_t want;
	unsigned key_len;
	if (total_rxq < 2 || info->flow_type_rss_offloads == 0 ||
	    parse_rss(sl_app_param_str(app, "rss"), &want, err) < 0 || want == 0)
		return 0;   /* (the config checked the value) */
	uint64_t hf = want & info->flow_type_rss_offloads;
	if (hf == 0) {
		sl_app_warn(app, "device '%s' hashes none of the fields rss names ('%s'): "
			    "packets are not spread by RSS", p->name, sl_app_param_str(app, "rss"));
		return 0;
	}
	conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf->rx_adv_conf.rss_conf.rss_hf = hf;
	parse_rss_key(sl_app_param_str(app, "rss_key"), key, &key_len, NULL);
	if (sl_app_param_bool(app, "rss_symmetric")) {
		/* A key of one 16-bit pattern repeated makes the Toeplitz hash
		 * of (src, dst) equal that of (dst, src). */
		key_len = info->hash_key_size != 0 ? info->hash_key_size : 40;
		for (unsigned i = 0; i < key_len; i++)
			key[i] = i % 2 == 0 ? 0x6d : 0x5a;
	}
	if (key_len == 0)
		return 0;
	if (info->hash_key_size != 0 && key_len != info->hash_key_size)
		return sl_errf(err, EDOM, "rss_key has %u bytes but device '%s' takes %u",
			       key_len, p->name, info->hash_key_size);
	conf->rx_adv_conf.rss_conf.rss_key = key;
	conf->rx_adv_conf.rss_conf.rss_key_len = (uint8_t)key_len;
	return 0;
}

/* The redirection table, spread evenly over every rx queue of the port
 * (most drivers start so; not all). */
static int port_reta(struct sl_app *app, const struct rte_eth_dev_info *info, unsigned total_rxq,
		     struct sl_err *err)
{
	const struct port_priv *p = app->priv;
	if (total_rxq < 2 || info->reta_size == 0 || info->flow_type_rss_offloads == 0)
		return 0;
	unsigned groups = (info->reta_size + RTE_ETH_RETA_GROUP_SIZE - 1) / RTE_ETH_RETA_GROUP_SIZE;
	struct rte_eth_rss_reta_entry64 *reta = calloc(groups, sizeof(*reta));
	if (reta == NULL)
		return sl_errf(err, ENOMEM, "out of memory");
	for (unsigned i = 0; i < info->reta_size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |= UINT64_C(1) << (i % RTE_ETH_RETA_GROUP_SIZE);
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			(uint16_t)(i % total_rxq);
	}
	int rc = rte_eth_dev_rss_reta_update(p->port_id, reta, info->reta_size);
	free(reta);
	if (rc < 0 && rc != -ENOTSUP)
		return sl_errf(err, errnum(rc), "cannot set the RSS redirection table of device '%s': %s",
			       p->name, why(rc));
	return 0;
}

/* The device configuration for mtu (0: the device's default, at most 1500):
 * scattered rx where a frame does not fit in one pool buffer, multi-segment
 * tx. */
static int port_conf(const struct sl_app *app, const struct rte_eth_dev_info *info,
		     uint16_t mtu, struct rte_eth_conf *conf, struct sl_err *err)
{
	const struct port_priv *p = app->priv;

	/* Frame overhead beyond the MTU, by ethdev's own rule. */
	uint32_t overhead = info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu ?
		info->max_rx_pktlen - info->max_mtu : RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	uint32_t mtu_max = info->max_rx_pktlen > overhead ? info->max_rx_pktlen - overhead : 0;
	mtu_max = RTE_MIN(mtu_max, (uint32_t)info->max_mtu);
	uint16_t eff_mtu = mtu;
	if (mtu != 0) {
		if (mtu < info->min_mtu || mtu > mtu_max)
			return sl_errf(err, EINVAL,
				       "mtu %u is outside the range %u..%u of device '%s'",
				       mtu, info->min_mtu, mtu_max, p->name);
		conf->rxmode.mtu = mtu;
	} else {
		eff_mtu = RTE_MIN(info->max_mtu, (uint16_t)RTE_ETHER_MTU);
	}
	/* Frames larger than one pool buffer need scattered rx. */
	uint32_t room = rte_pktmbuf_data_room_size(app->pool);
	uint32_t buf = room - RTE_MIN(room, (uint32_t)RTE_PKTMBUF_HEADROOM);
	/* Where the device offers it, ask for scattered rx; otherwise the PMD
	 * decides (several enable it by themselves, others refuse at start). */
	if (eff_mtu + overhead > buf && (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	/* Chained mbufs (from scattered rx or a large source) may be sent. */
	if (info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	return 0;
}

/* Set up the configured port's n_rxq rx queues (from app->pool) and n_txq
 * tx queues, on the device's NUMA node (else the app's). */
static int port_queues(struct sl_app *app, uint16_t n_rxq, uint16_t n_txq, uint16_t rx_desc,
		       uint16_t tx_desc, struct sl_err *err)
{
	struct port_priv *p = app->priv;
	int rc;

	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &rx_desc, &tx_desc);
	if (rc < 0)
		return sl_errf(err, errnum(rc), "cannot fit descriptor counts to device '%s': %s",
			       p->name, why(rc));

	int socket = rte_eth_dev_socket_id(p->port_id);
	if (socket < 0)
		socket = app->socket;
	for (uint16_t q = 0; q < n_rxq; q++) {
		rc = rte_eth_rx_queue_setup(p->port_id, q, rx_desc, (unsigned)socket,
					    NULL, app->pool);
		if (rc < 0)
			return sl_errf(err, errnum(rc),
				       "cannot set up rx queue %u of device '%s': %s",
				       q, p->name, why(rc));
	}
	for (uint16_t q = 0; q < n_txq; q++) {
		rc = rte_eth_tx_queue_setup(p->port_id, q, tx_desc, (unsigned)socket, NULL);
		if (rc < 0)
			return sl_errf(err, errnum(rc),
				       "cannot set up tx queue %u of device '%s': %s",
				       q, p->name, why(rc));
	}
	return 0;
}

/* Replica k > 0 of a replicated port: replica 0 (initialised before this
 * one) has opened the device for all. */
static int port_join(struct sl_app *app)
{
	struct port_priv *p = app->priv;
	const struct port_priv *lead = sl_app_replica(app, 0)->priv;
	p->port_id = lead->port_id;
	p->is_pci = lead->is_pci;
	p->dev = lead->dev;
	memcpy(p->name, lead->name, sizeof(p->name));
	p->n_rxq = lead->n_rxq;
	p->rxq0 = (uint16_t)(app->replica * p->n_rxq);
	p->txq = (uint16_t)app->replica;
	p->started = lead->started;
	sl_app_ctr_set(app, PORT_RX_QUEUE, p->rxq0);
	sl_app_ctr_set(app, PORT_TX_QUEUE, p->txq);
	return 0;
}

static int port_init(struct sl_app *app, struct sl_err *err)
{
	struct port_priv *p = app->priv;
	const char *device = sl_app_param_str(app, "device");
	unsigned n_rxq = (unsigned)sl_app_param_uint(app, "rx_queues");
	uint16_t rx_desc = (uint16_t)sl_app_param_uint(app, "rx_desc");
	uint16_t tx_desc = (uint16_t)sl_app_param_uint(app, "tx_desc");
	uint16_t mtu = (uint16_t)sl_app_param_uint(app, "mtu");
	unsigned members = RTE_MAX(app->n_replicas, 1u);
	unsigned total_rxq = members * n_rxq;
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint8_t key[RSS_KEY_MAX];
	int rc;

	p->n_rxq = (uint16_t)n_rxq;
	p->fill_l4 = sl_app_param_uint(app, "l4_checksum") == 1;   /* keep|fill */
	if (app->replica > 0)
		return port_join(app);
	p->leader = true;
	rc = port_attach(app, device, err);
	if (rc < 0)
		return rc;

	rc = rte_eth_dev_info_get(p->port_id, &info);
	if (rc < 0)
		return sl_errf(err, errnum(rc), "cannot query device '%s': %s", p->name,
			       why(rc));
	p->dev = info.device;
	if (sl_app_param_uint(app, "peer_tso") == 1) {   /* keep|off */
		char ifname[IF_NAMESIZE] = "?";
		if (info.if_index == 0 || if_indextoname(info.if_index, ifname) == NULL)
			return sl_errf(err, ENODEV, "peer_tso: off: device '%s' names no kernel "
				       "interface", p->name);
		rc = sl_xdp_pass_attach((int)info.if_index, ifname, err);
		if (rc < 0)
			return rc;
		p->xdp_fd = rc;
		p->xdp_on = true;
	}

	if (total_rxq > info.max_rx_queues && app->n_replicas > 0)
		return sl_errf(err, EDOM, "device '%s' has at most %u rx queues; group '%s' needs "
			       "%u (%u members x rx_queues %u)", p->name, info.max_rx_queues,
			       app->group, total_rxq, members, n_rxq);
	if (total_rxq > info.max_rx_queues)
		return sl_errf(err, EDOM, "rx_queues is %u but device '%s' has at most %u rx queues",
			       n_rxq, p->name, info.max_rx_queues);
	if (members > info.max_tx_queues)
		return sl_errf(err, EDOM, "device '%s' has at most %u tx queues; group '%s' needs "
			       "%u (one per member)", p->name, info.max_tx_queues, app->group, members);
	rc = port_conf(app, &info, mtu, &conf, err);
	if (rc == 0)
		rc = port_rss(app, &info, total_rxq, key, &conf, err);
	if (rc < 0)
		return rc;

	/* One tx queue per replica; some drivers (tap) insist on as many tx
	 * queues as rx queues, and idle extra ones cost a few descriptors. */
	uint16_t n_txq = (uint16_t)RTE_MAX(members, RTE_MIN(total_rxq, (unsigned)info.max_tx_queues));

	rc = rte_eth_dev_configure(p->port_id, (uint16_t)total_rxq, n_txq, &conf);
	if (rc < 0)
		return sl_errf(err, errnum(rc), "cannot configure device '%s': %s", p->name,
			       why(rc));
	p->configured = true;

	rc = port_queues(app, (uint16_t)total_rxq, n_txq, rx_desc, tx_desc, err);
	if (rc < 0)
		return rc;

	rc = rte_eth_dev_start(p->port_id);
	if (rc < 0) {
		const char *hint = rc == -ENOMEM ?
			" (the pool must hold at least rx_queues x rx_desc mbufs per replica)" : "";
		return sl_errf(err, errnum(rc), "cannot start device '%s': %s%s",
			       p->name, why(rc), hint);
	}
	p->started = true;
	sl_app_ctr_set(app, PORT_RX_QUEUE, 0);
	sl_app_ctr_set(app, PORT_TX_QUEUE, 0);

	rc = port_reta(app, &info, total_rxq, err);
	if (rc < 0)
		return rc;
	if (sl_app_param_bool(app, "promiscuous"))
		rc = rte_eth_promiscuous_enable(p->port_id);
	else
		rc = rte_eth_promiscuous_disable(p->port_id);
	if (rc < 0 && rc != -ENOTSUP)
		return sl_errf(err, errnum(rc), "cannot set promiscuous mode on device '%s': %s",
			       p->name, why(rc));
	return 0;
}

/* One rx burst of up to `burst` packets of queue q handed to out.  Returns
 * how many came. */
static inline unsigned port_rx(struct sl_app *app, const struct port_priv *p, uint16_t q,
			       struct sl_link *out, unsigned burst)
{
	struct rte_mbuf *pkts[SL_BURST_MAX];
	uint16_t n = rte_eth_rx_burst(p->port_id, q, pkts, (uint16_t)burst);
	if (n == 0)
		return 0;
	/* Packets only: reading every mbuf here costs more than the rest of
	 * the rx path; bytes come from the device's counters at stop. */
	sl_app_count_in_n(app, n, 0);
	if (unlikely(p->fill_l4)) {
		unsigned filled = 0;
		for (uint16_t i = 0; i < n; i++)
			filled += sl_pkt_fill_l4_csum(pkts[i]);
		sl_app_ctr_add(app, PORT_L4_FILLED, filled);
	}
	sl_link_transmit(out, pkts, n);
	return n;
}

/* Each rx queue once, or, when the output is a direct link (its consumer
 * takes each burst at once, so nothing waits in a queue), up to
 * PORT_RX_ROUNDS bursts of the engine's size while they come full: the
 * breath's own work (epoch, pool, ticks) is then paid once for up to that
 * many.  A direct consumer that asks for a batch of its own (sl_link_batch)
 * gets bursts of that size, as many as make up the same packets a breath
 * (at least one). */
static void port_pull(struct sl_app *app)
{
	struct port_priv *p = app->priv;
	struct sl_link *out = app->out[0];

	if (out == NULL)
		return;
	unsigned rounds = 1, burst = app->burst;
	if (sl_link_direct(out)) {
		burst = sl_link_batch(out, app->burst);
		rounds = burst == app->burst ? PORT_RX_ROUNDS
					     : RTE_MAX(PORT_RX_ROUNDS * app->burst / burst, 1u);
	}
	for (uint16_t q = p->rxq0; q < p->rxq0 + p->n_rxq; q++)
		for (unsigned r = 0; r < rounds; r++)
			if (port_rx(app, p, q, out, burst) < burst)
				break;
}

/* Send pkts[0..n) of `bytes` bytes; what the tx ring has no room for is
 * dropped.  Returns whether all were sent.  Lengths are read before the tx
 * (the caller's sum): a PMD may free what it sent. */
static inline bool port_tx(struct sl_app *app, const struct port_priv *p,
			   struct rte_mbuf **pkts, unsigned n, uint64_t bytes)
{
	uint16_t sent = rte_eth_tx_burst(p->port_id, p->txq, pkts, (uint16_t)n);
	if (likely(sent == n)) {
		sl_app_count_out_n(app, n, bytes);
		return true;
	}
	sl_app_count_out_n(app, sent, bytes - sl_pkts_bytes(pkts + sent, n - sent));
	sl_app_drop(app, pkts + sent, n - sent);
	return false;
}

static void port_push(struct sl_app *app)
{
	const struct port_priv *p = app->priv;
	struct rte_mbuf *pkts[SL_BURST_MAX];
	struct sl_link *in = app->in[0];

	if (in == NULL)
		return;
	for (unsigned r = 0; r < PORT_TX_ROUNDS; r++) {
		uint64_t bytes = 0;
		unsigned n = sl_link_receive_sum(in, pkts, app->burst, &bytes);
		if (n == 0)
			break;
		/* The tx ring is full: the rest was dropped, stop for now. */
		if (!port_tx(app, p, pkts, n, bytes) || n < app->burst)
			break;
	}
}

/* A burst from a direct link (app.h): the same as one push round. */
static void port_take(struct sl_app *app, unsigned in, struct rte_mbuf **pkts, unsigned n,
		      uint64_t bytes)
{
	if (bytes == SL_BYTES_UNKNOWN)
		bytes = sl_pkts_bytes(pkts, n);
	sl_link_rx_bytes(app->in[in], bytes);
	port_tx(app, app->priv, pkts, n, bytes);
}

/* Take n frames back from out_packets (and their share of out_bytes) and
 * count them as drops: the device did not deliver them. */
static void not_delivered(struct sl_app *app, uint64_t n)
{
	struct sl_app_stats *s = &app->stats;
	n = RTE_MIN(n, s->out_packets);
	if (n == 0)
		return;
	s->out_bytes -= n == s->out_packets ? s->out_bytes : s->out_bytes / s->out_packets * n;
	s->out_packets -= n;
	s->drops += n;
}

/* A regular tx_pcap file shorter than what was sent to it lost frames.
 * Returns how many were lost (estimated when some arrived); sets *size. */
static uint64_t tx_file_lost(const struct sl_app *app, const struct port_priv *p,
			     uint64_t *size, uint64_t *want)
{
	const struct sl_app_stats *s = &app->stats;
	struct stat st;
	*want = PCAP_FILE_HDR + PCAP_REC_HDR * s->out_packets + s->out_bytes;
	if (p->tx_file == NULL || s->out_packets == 0 || stat(p->tx_file, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	*size = (uint64_t)st.st_size;
	if (*size >= *want)
		return 0;
	if (*size <= PCAP_FILE_HDR)
		return s->out_packets;
	uint64_t per = PCAP_REC_HDR + s->out_bytes / s->out_packets;
	uint64_t lost = (*want - *size + per - 1) / per;
	return RTE_MAX(RTE_MIN(lost, s->out_packets), (uint64_t)1);
}

/* Frames the device took from tx_burst but did not send: what it took
 * (took: the out_packets of every replica) less what it counts as sent
 * (opackets).  Drivers differ in what oerrors holds (frames taken but not
 * sent, as af_packet counts them, or frames refused by tx_burst, which were
 * already counted as drops, as vhost and ring count them), so opackets is
 * the measure; a driver that counts neither is taken at its word.  A
 * hardware queue may still be sending at stop: give it up to 100 ms. */
static uint64_t tx_unsent(const struct port_priv *p, uint64_t took, struct rte_eth_stats *st)
{
	if (st->opackets == 0 && st->oerrors == 0)
		return 0;
	for (unsigned i = 0; i < 100 && st->opackets < took; i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
		if (rte_eth_stats_get(p->port_id, st) != 0)
			break;
	}
	return st->opackets < took ? took - st->opackets : 0;
}

/* The device's per-queue statistics for the app's queues (drivers keep
 * them for the first RTE_ETHDEV_QUEUE_STAT_CNTRS queues, if at all). */
static void queue_counters(struct sl_app *app, const struct port_priv *p,
			   const struct rte_eth_stats *st)
{
	uint64_t ip = 0, ib = 0, er = 0;
	for (unsigned q = p->rxq0; q < (unsigned)p->rxq0 + p->n_rxq; q++)
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			ip += st->q_ipackets[q];
			ib += st->q_ibytes[q];
			er += st->q_errors[q];
		}
	sl_app_ctr_set(app, PORT_Q_IPACKETS, ip);
	sl_app_ctr_set(app, PORT_Q_IBYTES, ib);
	sl_app_ctr_set(app, PORT_Q_ERRORS, er);
	if (p->txq < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
		sl_app_ctr_set(app, PORT_Q_OPACKETS, st->q_opackets[p->txq]);
		sl_app_ctr_set(app, PORT_Q_OBYTES, st->q_obytes[p->txq]);
	}
}

/* While running (telemetry): the device's error counters, which only the
 * device keeps (on replica 0 of a replicated port), and the per-queue
 * statistics.  rte_eth_stats_get reads them as DPDK's own telemetry does. */
static void port_sample(struct sl_app *app)
{
	struct port_priv *p = app->priv;
	struct rte_eth_stats st;
	if (!p->started || rte_eth_stats_get(p->port_id, &st) != 0)
		return;
	queue_counters(app, p, &st);
	if (!p->leader)
		return;
	sl_app_ctr_set(app, PORT_RX_MISSED, st.imissed);
	sl_app_ctr_set(app, PORT_RX_ERRORS, st.ierrors);
	sl_app_ctr_set(app, PORT_RX_NOMBUF, st.rx_nombuf);
}

/* Frames the device did not send, moved from out_packets to drops: per
 * replica where the device counts what each tx queue sent (the sum of
 * q_opackets is opackets), else all on replica 0 (app).  Returns the total. */
static uint64_t undelivered(struct sl_app *app, const struct port_priv *p,
			    struct rte_eth_stats *st)
{
	unsigned n = RTE_MAX(app->n_replicas, 1u);
	uint64_t took = 0, per_queue = 0;
	for (unsigned r = 0; r < n; r++) {
		const struct sl_app *x = sl_app_replica(app, r);
		took += x->stats.out_packets;
		if (r < RTE_ETHDEV_QUEUE_STAT_CNTRS)
			per_queue += st->q_opackets[r];
	}
	uint64_t lost = tx_unsent(p, took, st);
	sl_app_ctr_set(app, PORT_TX_UNSENT, lost);
	if (lost == 0 || n == 1 || n > RTE_ETHDEV_QUEUE_STAT_CNTRS || per_queue != st->opackets) {
		not_delivered(app, lost);
		return lost;
	}
	for (unsigned r = 0; r < n; r++) {
		struct sl_app *x = sl_app_replica(app, r);
		uint64_t sent = st->q_opackets[r];
		uint64_t l = x->stats.out_packets > sent ? x->stats.out_packets - sent : 0;
		sl_app_ctr_set(x, PORT_TX_UNSENT, l);
		not_delivered(x, l);
	}
	return lost;
}

/* Stops run in reverse config order, so replica 0 (the leader) stops last:
 * the others read their queues' counters, and the leader reads the
 * device's, checks what it lost, and stops it. */
static void port_stop(struct sl_app *app)
{
	struct port_priv *p = app->priv;

	if (!p->started)
		return;
	struct rte_eth_stats st;
	struct rte_eth_link link;
	char text[512];
	size_t off = 0;
	uint64_t tx_lost = 0, rx_lost = 0;
	bool have = rte_eth_stats_get(p->port_id, &st) == 0;
	if (have)
		queue_counters(app, p, &st);
	/* Bytes received: the device's count (per queue for a replica). */
	if (have)
		app->stats.in_bytes = app->n_replicas > 0 ? app->ctr[PORT_Q_IBYTES] : st.ibytes;
	if (!p->leader) {
		p->started = false;
		return;
	}
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_DOWN) {
		off += (size_t)snprintf(text + off, sizeof(text) - off, "; the link is down");
		sl_app_ctr_set(app, PORT_LINK_DOWN, 1);
	}
	if (have) {
		sl_app_ctr_set(app, PORT_RX_MISSED, st.imissed);
		sl_app_ctr_set(app, PORT_RX_ERRORS, st.ierrors);
		sl_app_ctr_set(app, PORT_RX_NOMBUF, st.rx_nombuf);
		uint64_t out = 0;
		for (unsigned r = 0; r < RTE_MAX(app->n_replicas, 1u); r++)
			out += sl_app_replica(app, r)->stats.out_packets;
		tx_lost = undelivered(app, p, &st);
		if (tx_lost > 0 && off < sizeof(text))
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"; %" PRIu64 " of the %" PRIu64 " frames it took for "
						"transmission were not sent (opackets %" PRIu64
						", oerrors %" PRIu64 ")", tx_lost, out, st.opackets,
						st.oerrors);
		rx_lost = st.imissed + st.ierrors;
		if (rx_lost > 0 && off < sizeof(text))
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"; %" PRIu64 " frames lost on receive (imissed %"
						PRIu64 ", ierrors %" PRIu64 ")", rx_lost,
						st.imissed, st.ierrors);
		if (st.rx_nombuf > 0 && off < sizeof(text))
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"; %" PRIu64 " receive buffer allocations failed "
						"(rx_nombuf: the pool ran empty; some drivers lose "
						"the frame)", st.rx_nombuf);
	}
	/* A regular tx_pcap file tells what reached it, whatever the driver
	 * counted (queue 0's file: the leader's). */
	uint64_t size = 0, want = 0;
	uint64_t file_lost = tx_file_lost(app, p, &size, &want);
	sl_app_ctr_set(app, PORT_TX_FILE_LOST, file_lost);
	if (file_lost > 0 && off < sizeof(text))
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"; the tx_pcap file '%s' holds %" PRIu64 " of the %" PRIu64
					" bytes written to it: %s%" PRIu64 " frames were lost",
					p->tx_file, size, want,
					file_lost < app->stats.out_packets ? "about " : "all ",
					file_lost);
	if (file_lost > tx_lost)
		not_delivered(app, file_lost - tx_lost);
	tx_lost = RTE_MAX(tx_lost, file_lost);
	app->stats.drops += rx_lost;
	if (off > 0)
		sl_app_warn(app, "device '%s':%s%s", p->name, text + 1, tx_lost + rx_lost > 0 ?
			    " (lost frames are counted as drops, not as delivered)" : "");
	rte_eth_dev_stop(p->port_id);
	p->started = false;
}

/* The device's MAC address, as the ethdev reports it. */
static int port_mac(const struct sl_app *app, uint8_t mac[6], struct sl_err *err)
{
	const struct port_priv *p = app->priv;
	struct rte_ether_addr a;
	int rc = rte_eth_macaddr_get(p->port_id, &a);
	if (rc != 0)
		return sl_errf(err, -rc, "cannot read the MAC address of port %u: %s",
			       p->port_id, rte_strerror(-rc));
	memcpy(mac, a.addr_bytes, 6);
	return 0;
}

static void port_fini(struct sl_app *app)
{
	struct port_priv *p = app->priv;

	port_stop(app);
	if (p->configured) {
		rte_eth_dev_close(p->port_id);
		p->configured = false;
	}
	if (p->xdp_fd >= 0) {
		close(p->xdp_fd);
		}
	if (p->owned) {
		claimed_by[p->port_id] = NULL;
		p->owned = false;
	}
	if (p->probed) {
		if (p->dev != NULL)
			rte_dev_remove(p->dev);
		else
			rte_eal_hotplug_remove(p->is_pci ? "pci" : "vdev", p->name);
		p->probed = false;
	}
	free(p->tx_file);
	p->tx_file = NULL;
}

/* Placement hint: a PCI NIC's NUMA node.  params[0] is `device`. */
static int port_numa(const struct sl_param_value *params, const struct sl_topology *topo)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	bool is_pci = false;
	if (device_name(params[0].s, name, sizeof(name), &is_pci, NULL) < 0 || !is_pci)
		return -1;
	return sl_topology_pci_numa(topo, name);
}

/* For `sluice plan`: the queues a replica serves. */
static void port_describe(const struct sl_param_value *params, unsigned replica,
			  unsigned n_replicas, char *buf, size_t len)
{
	unsigned n = (unsigned)params[P_RX_QUEUES].u;
	unsigned members = n_replicas > 0 ? n_replicas : 1;
	if (n == 1)
		snprintf(buf, len, "rx queue %u, tx queue %u of %u pairs; rss %s%s", replica,
			 replica, members, params[P_RSS].s,
			 params[P_RSS_SYMMETRIC].u ? " (symmetric)" : "");
	else
		snprintf(buf, len, "rx queues %u-%u of %u, tx queue %u; rss %s%s", replica * n,
			 replica * n + n - 1, members * n, replica, params[P_RSS].s,
			 params[P_RSS_SYMMETRIC].u ? " (symmetric)" : "");
}

static const struct sl_param_spec port_params[] = {
	{ .name = "device", .type = SL_PARAM_STRING, .def = NULL, .exclusive = true,
	  .doc = "PCI address (0000:03:00.0) or vdev string (net_pcap0,rx_pcap=in.pcap)" },
	{ .name = "rx_queues", .type = SL_PARAM_UINT, .def = "1", .min = 1, .max = 16,
	  .doc = "rx queues the app polls (per replica on a worker group); spread by RSS where the device has it" },
	{ .name = "rx_desc", .type = SL_PARAM_UINT, .def = "1024", .min = 64, .max = 16384,
	  .doc = "descriptors per rx queue (fitted to the device's limits)" },
	{ .name = "tx_desc", .type = SL_PARAM_UINT, .def = "1024", .min = 64, .max = 16384,
	  .doc = "descriptors of the tx queue (fitted to the device's limits)" },
	{ .name = "promiscuous", .type = SL_PARAM_BOOL, .def = "true",
	  .doc = "receive frames for any MAC address (ignored where unsupported)" },
	{ .name = "mtu", .type = SL_PARAM_UINT, .def = "0", .max = 9600,
	  .doc = "MTU in bytes; 0 keeps the device's default" },
	{ .name = "rss", .type = SL_PARAM_STRING, .def = "ip,udp,tcp",
	  .doc = "RSS hash fields, comma-separated: ip, ipv4, ipv6, udp, tcp, sctp, l2, or none" },
	{ .name = "rss_key", .type = SL_PARAM_STRING, .def = "none",
	  .doc = "RSS key in hex (the device's size, often 40 bytes); none: the device's own" },
	{ .name = "rss_symmetric", .type = SL_PARAM_BOOL, .def = "false",
	  .doc = "hash both directions of a flow to one queue (a symmetric key)" },
	{ .name = "l4_checksum", .type = SL_PARAM_ENUM, .def = "keep", .choices = "keep|fill",
	  .doc = "fill: compute the TCP and UDP checksums of received frames (a veth or tap whose sender left them to offload: docs/router.md)" },
	{ .name = "peer_tso", .type = SL_PARAM_ENUM, .def = "keep", .choices = "keep|off",
	  .doc = "off: attach a pass-all XDP program to the net_af_packet device's interface while the port runs, so that the host on the other end of a veth segments its TCP and every frame fits the packet socket (docs/router.md)" },
};
_Static_assert(SL_ARRAY_LEN(port_params) == P_N, "port_params in the order of P_*");

static const struct sl_port_spec port_inputs[] = {
	{ .name = "input", .required = false, .doc = "packets to transmit" },
};

static const struct sl_port_spec port_outputs[] = {
	{ .name = "output", .required = false, .doc = "packets received" },
};

static const struct sl_app_type port_app = {
	.name = "port",
	.doc = "A DPDK ethdev: receive on output, transmit what arrives on input",
	.params = port_params,
	.n_params = SL_ARRAY_LEN(port_params),
	.inputs = port_inputs,
	.n_inputs = SL_ARRAY_LEN(port_inputs),
	.outputs = port_outputs,
	.n_outputs = SL_ARRAY_LEN(port_outputs),
	.priv_size = sizeof(struct port_priv),
	.counters = port_counters,
	.n_counters = PORT_N_COUNTERS,
	.boundary = true,
	.numa = port_numa,
	.check = port_check,
	.describe = port_describe,
	.init = port_init,
	.pull = port_pull,
	.push = port_push,
	.take = port_take,
	.stop = port_stop,
	.sample = port_sample,
	.fini = port_fini,
	.mac = port_mac,
};

SL_APP_REGISTER(port_app)
