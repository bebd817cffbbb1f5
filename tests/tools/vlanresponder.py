#!/usr/bin/env python3
"""Hosts on 802.1Q VLANs behind one interface, for a kernel without VLAN
devices (no 8021q): scapy on a raw socket of IFACE answers, for each
VID=ADDR given, the ARP requests for ADDR and the ICMP echo requests to ADDR
that arrive tagged VID, with frames tagged VID from IFACE's MAC.  It writes
READY once listening, and on SIGTERM one line:
"VID: arp A echo E" per VLAN, then exits 0.

usage: vlanresponder.py IFACE READY VID=ADDR...
"""
import select
import signal
import sys

from scapy.all import ARP, Dot1Q, Ether, ICMP, IP, conf, get_if_hwaddr


def main():
    iface, ready = sys.argv[1], sys.argv[2]
    addrs = {}
    for arg in sys.argv[3:]:
        vid, addr = arg.split("=")
        addrs[int(vid)] = addr
    mine = get_if_hwaddr(iface)
    sock = conf.L2socket(iface=iface)
    counts = {vid: [0, 0] for vid in addrs}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    open(ready, "w").close()
    while not stop:
        try:
            rd, _, _ = select.select([sock], [], [], 0.2)
        except InterruptedError:
            continue
        if not rd:
            continue
        p = sock.recv()
        if p is None or Dot1Q not in p or p[Dot1Q].vlan not in addrs:
            continue
        vid = p[Dot1Q].vlan
        addr = addrs[vid]
        if ARP in p and p[ARP].op == 1 and p[ARP].pdst == addr:
            sock.send(Ether(src=mine, dst=p[Ether].src) / Dot1Q(vlan=vid) /
                      ARP(op=2, hwsrc=mine, psrc=addr, hwdst=p[ARP].hwsrc, pdst=p[ARP].psrc))
            counts[vid][0] += 1
        elif IP in p and ICMP in p and p[IP].dst == addr and p[ICMP].type == 8:
            sock.send(Ether(src=mine, dst=p[Ether].src) / Dot1Q(vlan=vid) /
                      IP(src=addr, dst=p[IP].src, ttl=64) /
                      ICMP(type=0, id=p[ICMP].id, seq=p[ICMP].seq) / bytes(p[ICMP].payload))
            counts[vid][1] += 1
    for vid in sorted(counts):
        print("%d: arp %d echo %d" % (vid, counts[vid][0], counts[vid][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
