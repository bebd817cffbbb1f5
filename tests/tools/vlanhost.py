#!/usr/bin/env python3
"""A host on an 802.1Q VLAN, for a kernel without VLAN devices (no 8021q):
scapy on a raw socket of IFACE, with address ADDR on VLAN VID.  It pings DST
COUNT times through GATEWAY_MAC (the router's MAC), answers the ARP requests
for ADDR that arrive tagged with VID, and prints one line:
"sent N replies R arp_answered A tagged_in T untagged_in U".
Exits 0 when every ping was answered by a frame tagged VID, else 1.

usage: vlanhost.py IFACE ADDR VID GATEWAY_MAC DST COUNT [WAIT_S]
"""
import select
import sys
import time

from scapy.all import ARP, Dot1Q, Ether, ICMP, IP, conf, get_if_hwaddr


def main():
    iface, addr, vid, gw_mac, dst, count = sys.argv[1:7]
    vid, count = int(vid), int(count)
    wait = float(sys.argv[7]) if len(sys.argv) > 7 else 2.0
    mine = get_if_hwaddr(iface)
    sock = conf.L2socket(iface=iface)
    replies = arp_answered = tagged_in = untagged_in = 0
    for seq in range(count):
        ask = (Ether(src=mine, dst=gw_mac) / Dot1Q(vlan=vid) /
               IP(src=addr, dst=dst, ttl=64) / ICMP(id=0x5a5a, seq=seq) / (b"x" * 32))
        sock.send(ask)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            ready, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            p = sock.recv()
            if p is None:
                continue
            if Dot1Q not in p:
                untagged_in += ICMP in p and p[ICMP].id == 0x5a5a
                continue
            if p[Dot1Q].vlan != vid:
                continue
            tagged_in += 1
            if ARP in p and p[ARP].op == 1 and p[ARP].pdst == addr:
                sock.send(Ether(src=mine, dst=p[ARP].hwsrc) / Dot1Q(vlan=vid) /
                          ARP(op=2, hwsrc=mine, psrc=addr, hwdst=p[ARP].hwsrc,
                              pdst=p[ARP].psrc))
                arp_answered += 1
            elif (ICMP in p and p[ICMP].type == 0 and p[ICMP].id == 0x5a5a and
                  p[ICMP].seq == seq and p[IP].src == dst and p[IP].dst == addr):
                replies += 1
                break
    print("sent %d replies %d arp_answered %d tagged_in %d untagged_in %d" %
          (count, replies, arp_answered, tagged_in, untagged_in))
    return 0 if replies == count else 1


if __name__ == "__main__":
    sys.exit(main())
