#!/usr/bin/env python3
"""Small pcap helper for Sluice's integration tests (standard library only).

  pcaptool.py gen OUT N [SEED]     write N varied frames: IPv4/UDP, IPv4/TCP,
                                   IPv6/UDP, ARP, VLAN-tagged IPv4, short frames
  pcaptool.py l2swap IN OUT        expected output of l2fwd mode=swap
  pcaptool.py l2set IN OUT SRC DST expected output of l2fwd mode=set
  pcaptool.py cmp A B              compare packet by packet; exit 1 on the first
                                   difference, naming the packet and offset
  pcaptool.py count FILE           print the number of packets
  pcaptool.py bytes FILE           print the number of bytes in all packets
  pcaptool.py pick IN OUT START STEP
                                   write packets START, START+STEP, ... of IN
  pcaptool.py minlen IN OUT N      write the packets of IN that have at least N bytes
  pcaptool.py not-ethertype IN OUT HEX
                                   write the packets of IN whose ethertype (bytes
                                   12-13, no tag skipped) is not HEX, e.g. 0806
  pcaptool.py gen-flows OUT N FLOWS [SEED]
                                   N frames over FLOWS flows (IPv4 UDP/TCP, IPv6 UDP,
                                   VLAN-tagged IPv4, IPv4 fragments, ARP); packets of
                                   one flow differ in length and payload
  pcaptool.py gen-bad OUT N [SEED] N malformed frames: 0..13 bytes, cut headers,
                                   bad IHL, deep VLAN stacks, IPv6 extension chains
                                   that run past the end, oversized length fields;
                                   frames of 12 bytes or more all differ
  pcaptool.py interleave ALL PART...
                                   exit 1 unless ALL is an interleaving of the PARTs:
                                   every packet of ALL belongs to exactly one PART,
                                   and each PART keeps its own order (the check is
                                   greedy: packets should differ across PARTs)
  pcaptool.py flows FILE...        exit 1 if a flow (the 5-tuple split hashes on)
                                   has packets in more than one FILE; print how many
                                   flows each FILE holds
  pcaptool.py tuples FILE          print, as one JSON object, the number of packets
                                   of each IPv4 UDP/TCP 5-tuple, keyed
                                   "PROTO SRC:SPORT DST:DPORT", most packets first
                                   (ties in order of first appearance); any other
                                   frame counts under the key "other"
  pcaptool.py gen-resolve IN SENT BEFORE AFTER HOLD
                                   a router's input while it resolves its gateway
                                   (test_router.sh): BEFORE frames to 10.1.5.x, the
                                   gateway's ARP reply, AFTER frames; SENT: the
                                   frames it forwards (the first HOLD, then AFTER)
  pcaptool.py gen-router OUT N [SEED]
                                   frames for the router test: a fixed set (several
                                   destinations, TTL 64/2/1/0/255, no route, ARP,
                                   IPv6, cut and inconsistent IPv4, fragments, IPv4
                                   options, one and two VLAN tags, three tags, a
                                   checksum that becomes 0) then N random ones
  pcaptool.py route IN ROUTES OUT0 [OUT1...]
                                   what router does to IN, computed here: ROUTES is
                                   a JSON list of {"prefix", "output", "dst_mac"?,
                                   "src_mac"?}; writes each output's frames (TTL - 1,
                                   header checksum computed from scratch, MACs
                                   rewritten) and prints the router's counter line
                                   "forwarded N, no_route N, ttl_expired N,
                                   malformed N, not_ipv4 N"
  pcaptool.py ipcsum FILE...       exit 1 unless every IPv4 header (after up to two
                                   VLAN tags) in FILE has a correct checksum; print
                                   how many were checked
  pcaptool.py gen-empty OUT N [SEED]
                                   N frames as gen writes them, but every third one
                                   (frames 1, 4, 7, ...) zero bytes long
  pcaptool.py empty FILE           print the number of zero-length frames
"""
import json
import random
import struct
import sys

GLOBAL = struct.Struct("<IHHiIII")
RECORD = struct.Struct("<IIII")


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < GLOBAL.size:
        raise SystemExit(f"{path}: not a pcap file (too short)")
    magic = GLOBAL.unpack_from(data)[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit(f"{path}: not a little-endian pcap file (magic {magic:#x})")
    off, pkts = GLOBAL.size, []
    while off + RECORD.size <= len(data):
        _, _, incl, _ = RECORD.unpack_from(data, off)
        off += RECORD.size
        pkts.append(data[off:off + incl])
        off += incl
    return pkts


def write(path, pkts):
    with open(path, "wb") as f:
        f.write(GLOBAL.pack(0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(pkts):
            f.write(RECORD.pack(1700000000 + i // 1000, (i % 1000) * 1000, len(p), len(p)))
            f.write(p)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(src, dst, proto, payload, ttl=64):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, ttl, proto, 0,
                      bytes(src), bytes(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def gen(n, seed):
    rnd = random.Random(seed)
    pkts = []
    for i in range(n):
        dst = bytes([0x02, 0, 0, 0, 0, 0x10 + i % 4])
        src = bytes([0x02, 0, 0, 0, 1, i % 256])
        kind = i % 6
        body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(18, 300)))
        s4 = [198, 18, i // 256 % 256, i % 256]
        d4 = [198, 19, 0, 1 + i % 7]
        if kind == 0:
            udp = struct.pack("!HHHH", 1024 + i, 4789, 8 + len(body), 0) + body
            frame = dst + src + b"\x08\x00" + ipv4(s4, d4, 17, udp)
        elif kind == 1:
            tcp = struct.pack("!HHIIBBHHH", 2000 + i, 80, i, 0, 0x50, 0x18, 1024, 0, 0) + body
            frame = dst + src + b"\x08\x00" + ipv4(s4, d4, 6, tcp)
        elif kind == 2:
            udp = struct.pack("!HHHH", 5000 + i, 53, 8 + len(body), 0) + body
            ip6 = struct.pack("!IHBB16s16s", 0x60000000, len(udp), 17, 64,
                              bytes([0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [i % 256]),
                              bytes([0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [1]))
            frame = dst + src + b"\x86\xdd" + ip6 + udp
        elif kind == 3:
            arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, src, bytes(s4),
                              b"\0" * 6, bytes(d4))
            frame = b"\xff" * 6 + src + b"\x08\x06" + arp
        elif kind == 4:
            udp = struct.pack("!HHHH", 7000 + i, 9, 8 + len(body), 0) + body
            frame = dst + src + b"\x81\x00" + struct.pack("!H", 100) + b"\x08\x00" + \
                ipv4(s4, d4, 17, udp)
        else:
            frame = dst + src + b"\x08\x00" + bytes([0x45, 0])  # truncated IPv4
        if len(frame) < 60:
            frame += b"\0" * (60 - len(frame))
        pkts.append(frame)
    return pkts


def gen_flows(n, nflows, seed):
    """n frames, each on one of nflows flows; the frames of one flow share
    their flow key but differ in payload, length and TTL."""
    rnd = random.Random(seed)
    flows = []
    for f in range(nflows):
        kind = f % 6
        dst = bytes([0x02, 0, 0, 0, 0, 0x20 + f % 8])
        src = bytes([0x02, 0, 0, 0, 2, f % 256])
        s4 = [10, 1, f // 256 % 256, f % 256]
        d4 = [10, 2, 0, 1 + f % 5]
        flows.append((kind, dst, src, s4, d4, 1024 + f, 2000 + f % 13))
    pkts = []
    for i in range(n):
        kind, dst, src, s4, d4, sport, dport = flows[rnd.randrange(nflows)]
        body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 200)))
        ttl = rnd.randrange(1, 255)
        if kind == 0:
            udp = struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body
            frame = dst + src + b"\x08\x00" + ipv4(s4, d4, 17, udp, ttl)
        elif kind == 1:
            tcp = struct.pack("!HHIIBBHHH", sport, dport, i, 0, 0x50, 0x10, 512, 0, 0) + body
            frame = dst + src + b"\x08\x00" + ipv4(s4, d4, 6, tcp, ttl)
        elif kind == 2:
            udp = struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body
            ip6 = struct.pack("!IHBB16s16s", 0x60000000 | i % 4096, len(udp), 17, ttl,
                              bytes([0x20, 0x01, 0x0d, 0xb8] + [0] * 8 + s4),
                              bytes([0x20, 0x01, 0x0d, 0xb8] + [0] * 8 + d4))
            frame = dst + src + b"\x86\xdd" + ip6 + udp
        elif kind == 3:
            udp = struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body
            tag = struct.pack("!H", rnd.randrange(1, 4095))   # the VLAN id is not hashed
            frame = dst + src + b"\x81\x00" + tag + b"\x08\x00" + ipv4(s4, d4, 17, udp, ttl)
        elif kind == 4:
            # A non-first IPv4 fragment: what follows the header is not a port pair.
            ip = bytearray(ipv4(s4, d4, 17, body + b"\0" * 8, ttl))
            ip[6:8] = struct.pack("!H", 0x2000 | rnd.randrange(1, 100))
            ip[10:12] = b"\0\0"
            ip[10:12] = struct.pack("!H", csum(bytes(ip[:20])))
            frame = dst + src + b"\x08\x00" + bytes(ip)
        else:
            arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1 + i % 2, src, bytes(s4),
                              b"\0" * 6, bytes(d4))
            frame = dst + src + b"\x08\x06" + arp + body[:18]
        if len(frame) < 60:
            frame += b"\0" * (60 - len(frame))
        pkts.append(frame)
    return pkts


def gen_bad(n, seed):
    """n malformed frames, cycling through a set of defects."""
    rnd = random.Random(seed)
    dst = b"\x02\0\0\0\0\x31"
    pkts = []
    for i in range(n):
        kind = i % 10
        junk = bytes(rnd.randrange(256) for _ in range(64))
        src = bytes([0x02, 0, 0, 0x03, i >> 8 & 255, i & 255])   # frames of 12+ bytes differ
        if kind == 0:
            frame = junk[:i // 10 % 14]                  # 0..13 bytes: no Ethernet header
        elif kind == 1:
            frame = dst + src + b"\x08\x00"              # Ethernet header only
        elif kind == 2:                                  # IPv4 header cut short
            frame = dst + src + b"\x08\x00" + ipv4([1, 2, 3, 4], [5, 6, 7, 8], 17,
                                                      junk[:8])[:rnd.randrange(1, 20)]
        elif kind == 3:                                  # IHL of 15 words, 24 bytes there
            ip = bytearray(ipv4([1, 2, 3, 4], [5, 6, 7, 8], 6, junk[:4]))
            ip[0] = 0x4F
            frame = dst + src + b"\x08\x00" + bytes(ip)
        elif kind == 4:                                  # IHL below 5
            ip = bytearray(ipv4([1, 2, 3, 4], [5, 6, 7, 8], 17, junk[:8]))
            ip[0] = 0x41
            frame = dst + src + b"\x08\x00" + bytes(ip)
        elif kind == 5:                                  # IPv4 total length far too large
            ip = bytearray(ipv4([1, 2, 3, 4], [5, 6, 7, 8], 17, junk[:8]))
            ip[2:4] = b"\xff\xff"
            frame = dst + src + b"\x08\x00" + bytes(ip)
        elif kind == 6:                                  # VLAN tags up to the end
            frame = dst + src + (b"\x81\x00\x00\x01" + b"\x88\xa8\x00\x02") * (1 + i % 7)
            frame = frame[:len(frame) - i % 3]
        elif kind == 7:                                  # IPv6 header cut short
            ip6 = struct.pack("!IHBB16s16s", 0x60000000, 8, 17, 64, b"\x20" * 16, b"\x30" * 16)
            frame = dst + src + b"\x86\xdd" + ip6[:rnd.randrange(1, 40)]
        elif kind == 8:                                  # IPv6 extension headers past the end
            ext = bytes([0, 255]) + junk[:6]             # hop-by-hop claiming 2048 bytes
            ip6 = struct.pack("!IHBB16s16s", 0x60000000, 0xffff, 0, 64, b"\x20" * 16,
                              b"\x30" * 16)
            frame = dst + src + b"\x86\xdd" + ip6 + ext
        else:                                            # IPv6 fragment header, then nothing
            ip6 = struct.pack("!IHBB16s16s", 0x60000000, 8, 44, 64, b"\x20" * 16, b"\x30" * 16)
            frame = dst + src + b"\x86\xdd" + ip6 + bytes([17, 0, 0, 0])
        pkts.append(frame)
    return pkts


def flow_key(p):
    """The flow a frame belongs to, as split's hash mode defines it."""
    if len(p) < 14:
        return ("runt", p)
    off, etype = 14, struct.unpack_from("!H", p, 12)[0]
    while etype in (0x8100, 0x88A8) and off + 4 <= len(p):
        etype = struct.unpack_from("!H", p, off + 2)[0]
        off += 4
    if etype == 0x0800 and off + 20 <= len(p):
        ihl = (p[off] & 0x0F) * 4
        proto = p[off + 9]
        ports = b""
        frag = struct.unpack_from("!H", p, off + 6)[0] & 0x3FFF
        if proto in (6, 17, 132) and not frag and ihl >= 20 and off + ihl + 4 <= len(p):
            ports = p[off + ihl:off + ihl + 4]
        return ("ip4", p[off + 12:off + 16], p[off + 16:off + 20], proto, ports)
    if etype == 0x86DD and off + 40 <= len(p) and p[off + 6] in (6, 17, 132):
        ports = p[off + 40:off + 44] if off + 44 <= len(p) else b""
        return ("ip6", p[off + 8:off + 24], p[off + 24:off + 40], p[off + 6], ports)
    if etype == 0x86DD and off + 40 <= len(p):
        raise SystemExit("flows: IPv6 extension headers are not supported here")
    return ("l2", p[0:12], etype)


def five_tuple(p):
    """"PROTO SRC:SPORT DST:DPORT" of an untagged IPv4 UDP or TCP frame (first
    fragment or whole), else "other"."""
    if len(p) < 34 or p[12:14] != b"\x08\x00" or p[14] >> 4 != 4:
        return "other"
    ihl = (p[14] & 0x0F) * 4
    proto = p[23]
    frag = struct.unpack_from("!H", p, 20)[0] & 0x1FFF
    if proto not in (6, 17) or frag or ihl < 20 or 14 + ihl + 4 > len(p):
        return "other"
    src = ".".join(str(b) for b in p[26:30])
    dst = ".".join(str(b) for b in p[30:34])
    sport, dport = struct.unpack_from("!HH", p, 14 + ihl)
    return f"{proto} {src}:{sport} {dst}:{dport}"


VLAN_TPIDS = (0x8100, 0x88A8, 0x9100)


def ipv4_hdr(src, dst, proto, plen, ttl=64, ident=1, frag=0, options=b"", tos=0):
    """An IPv4 header with a correct checksum for a payload of plen bytes."""
    ihl = 5 + len(options) // 4
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + plen, ident, frag, ttl,
                      proto, 0, bytes(src), bytes(dst)) + options
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]


def l3_offset(p):
    """(offset, ethertype) after up to two VLAN tags, or None when the frame
    ends inside its L2 header or has three tags."""
    if len(p) < 14:
        return None
    off, etype = 14, struct.unpack_from("!H", p, 12)[0]
    for tags in range(3):
        if etype not in VLAN_TPIDS:
            return off, etype
        if tags == 2 or off + 4 > len(p):
            return None
        etype = struct.unpack_from("!H", p, off + 2)[0]
        off += 4
    return off, etype


def gen_router(n, seed):
    """Frames for the router test.  Destinations (see test_router.sh):
    10.1.0.0/16, 10.1.2.0/24, 10.1.2.128/25, 192.0.2.7/32, 172.16.0.0/12;
    anything else has no route."""
    rnd = random.Random(seed)
    dmac, smac = b"\x02\0\0\0\xee\x01", b"\x02\0\0\0\xee\x02"
    src = [198, 51, 100, 9]

    def udp(sport, dport, body):
        return struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body

    def frame(dst, ttl=64, proto=17, payload=None, pad=True, **kw):
        if payload is None:
            payload = udp(1000 + len(dst), 53, bytes(range(20)))
        f = dmac + smac + b"\x08\x00" + ipv4_hdr(src, dst, proto, len(payload), ttl, **kw) \
            + payload
        return f + b"\0" * (60 - len(f)) if pad and len(f) < 60 else f

    pkts = [
        frame([10, 1, 5, 5]),                            # /16
        frame([10, 1, 2, 5]),                            # /24
        frame([10, 1, 2, 200]),                          # /25
        frame([10, 1, 2, 127]),                          # /24 next to the /25
        frame([192, 0, 2, 7]),                           # /32
        frame([172, 20, 0, 1], proto=6,
              payload=struct.pack("!HHIIBBHHH", 40000, 443, 1, 0, 0x50, 0x18, 512, 0, 0)),
        frame([172, 16, 0, 1], proto=1, payload=b"\x08\0\0\0\0\1\0\1"),   # ICMP
        frame([10, 1, 5, 5], ttl=2),                     # leaves with TTL 1
        frame([10, 1, 5, 5], ttl=255),
        frame([10, 1, 5, 5], ttl=1),                     # ttl_expired
        frame([10, 1, 5, 5], ttl=0),                     # ttl_expired
        frame([192, 0, 2, 8]),                           # no_route (next to the /32)
        frame([8, 8, 8, 8]),                             # no_route
        frame([8, 8, 8, 8], ttl=1),                      # ttl_expired comes first
        frame([10, 1, 5, 6], frag=0x2000),               # first fragment
        frame([10, 1, 5, 6], frag=0x0003, payload=bytes(range(24))),   # last fragment
        frame([10, 1, 2, 9], options=b"\x01\x01\x01\x00"),             # IPv4 options
        frame([10, 1, 5, 7], payload=udp(7, 8, bytes(100)), pad=False),
        frame([10, 1, 5, 8], payload=udp(7, 8, bytes(range(256)) * 11 + bytes(180))),
    ]
    # VLAN tags are kept: one tag, then QinQ.
    inner = ipv4_hdr(src, [10, 1, 2, 77], 17, 28) + udp(5, 6, bytes(20))
    pkts.append(dmac + smac + b"\x81\x00\x00\x64\x08\x00" + inner)
    pkts.append(dmac + smac + b"\x88\xa8\x00\x0a\x81\x00\x00\x14\x08\x00" + inner)
    pkts.append(dmac + smac + b"\x81\x00\x00\x01\x88\xa8\x00\x02\x81\x00\x00\x03\x08\x00"
                + inner)                                  # three tags: malformed
    # A header whose checksum becomes 0x0000 after the decrement (the
    # identification is chosen for it), and one that was 0x0000 before.
    for target_after in (True, False):
        for ident in range(65536):
            h = ipv4_hdr(src, [10, 1, 5, 9], 17, 28, ttl=64, ident=ident)
            after = ipv4_hdr(src, [10, 1, 5, 9], 17, 28, ttl=63, ident=ident)
            if (after if target_after else h)[10:12] == b"\0\0":
                pkts.append(dmac + smac + b"\x08\x00" + h + udp(9, 9, bytes(20)))
                break
    # Not IPv4.
    arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, smac, bytes(src), b"\0" * 6,
                      bytes([10, 1, 5, 5]))
    pkts.append(b"\xff" * 6 + smac + b"\x08\x06" + arp + b"\0" * 18)
    ip6 = struct.pack("!IHBB16s16s", 0x60000000, 28, 17, 64, b"\x20" * 16, b"\x30" * 16)
    pkts.append(dmac + smac + b"\x86\xdd" + ip6 + udp(1, 2, bytes(20)))
    pkts.append(dmac + smac + b"\x86\xdd" + ip6[:30])    # IPv6, cut: still not_ipv4
    pkts.append(dmac + smac + b"\x88\xb5" + bytes(46))   # unknown ethertype
    # Malformed IPv4.
    good = frame([10, 1, 5, 5])
    pkts.append(good[:14 + 10])                          # cut inside the header
    pkts.append(good[:13])                               # no Ethernet header
    bad = bytearray(good)
    bad[14] = 0x44                                       # IHL 4
    pkts.append(bytes(bad))
    bad = bytearray(good)
    bad[14] = 0x4f                                       # IHL 15: 60 bytes, 46 there
    pkts.append(bytes(bad))
    bad = bytearray(frame([10, 1, 5, 5], pad=False))
    bad[16:18] = struct.pack("!H", len(bad) - 14 + 1)    # total length past the frame
    pkts.append(bytes(bad))
    bad = bytearray(good)
    bad[16:18] = struct.pack("!H", 19)                   # total length < IHL * 4
    pkts.append(bytes(bad))
    bad = bytearray(good)
    bad[14] = 0x65                                       # version 6 under 0x0800
    pkts.append(bytes(bad))
    bad = frame([10, 1, 5, 5], payload=b"\x01\x02")      # UDP without its ports
    pkts.append(bad)

    # Random traffic over the routes and beside them, on 24 flows (so that a
    # flow cache in front sees each flow many times).
    dsts = [[10, 1, 0, 0], [10, 1, 2, 0], [10, 1, 2, 128], [192, 0, 2, 7], [172, 16, 0, 0],
            [172, 32, 0, 0], [11, 0, 0, 0]]
    flows = []
    for _ in range(24):
        d = list(rnd.choice(dsts))
        d[3] |= rnd.randrange(0, 128 if d[3] else 256)
        if d[0] != 192:
            d[2] |= rnd.randrange(0, 4)
        flows.append((d, rnd.randrange(65536), rnd.randrange(65536)))
    for i in range(n):
        d, sport, dport = rnd.choice(flows)
        ttl = rnd.choice([1, 2, 3, 64, 64, 64, 128, 255])
        body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 120)))
        f = frame(d, ttl=ttl, payload=udp(sport, dport, body),
                  ident=rnd.randrange(65536), tos=rnd.randrange(256))
        if rnd.randrange(5) == 0:
            f = f[:12] + b"\x81\x00" + struct.pack("!H", rnd.randrange(4096)) + f[12:]
        pkts.append(f)
    return pkts


def route_one(p, table):
    """(reason, None) or ("forwarded", (output, frame)) for frame p."""
    l3 = l3_offset(p)
    if l3 is None:
        return "malformed", None
    off, etype = l3
    if etype != 0x0800:
        return "not_ipv4", None
    avail = len(p) - off
    if avail < 20 or p[off] >> 4 != 4:
        return "malformed", None
    ihl = (p[off] & 0x0F) * 4
    total = struct.unpack_from("!H", p, off + 2)[0]
    if ihl < 20 or ihl > avail or total < ihl or total > avail:
        return "malformed", None
    first = struct.unpack_from("!H", p, off + 6)[0] & 0x1FFF == 0
    if first and p[off + 9] in (6, 17, 132, 136) and ihl + 4 > total:
        return "malformed", None
    if p[off + 8] <= 1:
        return "ttl_expired", None
    dst = struct.unpack_from("!I", p, off + 16)[0]
    best = None
    for net, depth, r in table:
        mask = (0xFFFFFFFF << (32 - depth)) & 0xFFFFFFFF if depth else 0
        if dst & mask == net and (best is None or depth > best[0]):
            best = (depth, r)
    if best is None:
        return "no_route", None
    r = best[1]
    q = bytearray(p)
    q[off + 8] -= 1
    q[off + 10:off + 12] = b"\0\0"
    q[off + 10:off + 12] = struct.pack("!H", csum(bytes(q[off:off + ihl])))
    if "dst_mac" in r:
        q[0:6] = mac(r["dst_mac"])
    if "src_mac" in r:
        q[6:12] = mac(r["src_mac"])
    return "forwarded", (r["output"], bytes(q))


def route(pkts, routes, n_out):
    table = []
    for r in routes:
        a, d = r["prefix"].split("/")
        table.append((struct.unpack("!I", bytes(int(x) for x in a.split(".")))[0], int(d), r))
    counts = dict.fromkeys(["forwarded", "no_route", "ttl_expired", "malformed", "not_ipv4"], 0)
    outs = [[] for _ in range(n_out)]
    for p in pkts:
        why, fw = route_one(p, table)
        counts[why] += 1
        if fw is not None:
            outs[fw[0]].append(fw[1])
    return counts, outs


def ipcsum(pkts):
    """(checked, index of the first bad header or None)."""
    checked = 0
    for i, p in enumerate(pkts):
        l3 = l3_offset(p)
        if l3 is None or l3[1] != 0x0800 or len(p) < l3[0] + 20:
            continue
        off = l3[0]
        ihl = (p[off] & 0x0F) * 4
        if ihl < 20 or len(p) < off + ihl:
            continue
        checked += 1
        if csum(p[off:off + ihl]) != 0:
            return checked, i
    return checked, None


def interleave(whole, parts):
    """None if whole is an order-keeping interleaving of parts, else a reason."""
    pos = [0] * len(parts)
    for i, p in enumerate(whole):
        for k, part in enumerate(parts):
            if pos[k] < len(part) and part[pos[k]] == p:
                pos[k] += 1
                break
        else:
            return f"packet {i} ({len(p)} bytes) is not the next packet of any part"
    for k, part in enumerate(parts):
        if pos[k] != len(part):
            return f"part {k} has {len(part) - pos[k]} packets left over"
    return None


def gen_resolve(before, after, hold):
    """Frames for a router resolving its gateway 198.18.1.2 (MAC
    02:00:00:00:0e:02) on its interface 198.18.1.1 (02:00:00:00:0e:00):
    `before` UDP frames to 10.1.5.x, the gateway's ARP reply, `after` more.
    Returns (the input, the frames the router sends: the first `hold` of
    those before, then those after)."""
    rmac, gmac, hmac = b"\x02\0\0\0\x0e\0", b"\x02\0\0\0\x0e\x02", b"\x02\0\0\0\x0e\x05"
    src = [198, 18, 2, 9]

    def frame(i):
        body = struct.pack("!HHHH", 1000 + i, 53, 8 + 18, 0) + bytes(18)
        return rmac + hmac + b"\x08\x00" + ipv4_hdr(src, [10, 1, 5, 1 + i % 250], 17,
                                                     len(body), 64, ident=i) + body

    arp = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 2, gmac, bytes([198, 18, 1, 2]),
                      rmac, bytes([198, 18, 1, 1]))
    pre = [frame(i) for i in range(before)]
    post = [frame(before + i) for i in range(after)]
    return pre + [rmac + gmac + b"\x08\x06" + arp + bytes(18)] + post, pre[:hold] + post


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd = argv[1]
    if cmd == "gen":
        write(argv[2], gen(int(argv[3]), int(argv[4]) if len(argv) > 4 else 1))
    elif cmd == "l2swap":
        write(argv[3], [p[6:12] + p[0:6] + p[12:] if len(p) >= 14 else p
                        for p in read(argv[2])])
    elif cmd == "l2set":
        s, d = mac(argv[4]), mac(argv[5])
        write(argv[3], [d + s + p[12:] if len(p) >= 14 else p for p in read(argv[2])])
    elif cmd == "pick":
        start, step = int(argv[4]), int(argv[5])
        write(argv[3], read(argv[2])[start::step])
    elif cmd == "minlen":
        write(argv[3], [p for p in read(argv[2]) if len(p) >= int(argv[4])])
    elif cmd == "not-ethertype":
        drop = bytes.fromhex(argv[4])
        write(argv[3], [p for p in read(argv[2]) if p[12:14] != drop])
    elif cmd == "gen-flows":
        write(argv[2], gen_flows(int(argv[3]), int(argv[4]),
                                 int(argv[5]) if len(argv) > 5 else 1))
    elif cmd == "gen-bad":
        write(argv[2], gen_bad(int(argv[3]), int(argv[4]) if len(argv) > 4 else 1))
    elif cmd == "interleave":
        why = interleave(read(argv[2]), [read(f) for f in argv[3:]])
        if why is not None:
            print(f"{argv[2]} is not an interleaving of {' '.join(argv[3:])}: {why}")
            return 1
        print(f"{argv[2]} is an interleaving of {len(argv) - 3} parts")
    elif cmd == "flows":
        owner, per_file = {}, []
        for f in argv[2:]:
            keys = {flow_key(p) for p in read(f)}
            per_file.append(len(keys))
            for k in keys:
                if k in owner:
                    print(f"flow {k!r} is in both {owner[k]} and {f}")
                    return 1
                owner[k] = f
        print(" ".join(f"{f}: {n} flows" for f, n in zip(argv[2:], per_file)))
    elif cmd == "tuples":
        counts = {}
        for p in read(argv[2]):
            k = five_tuple(p)
            counts[k] = counts.get(k, 0) + 1
        order = sorted(counts, key=lambda k: -counts[k])   # stable: ties keep first appearance
        print(json.dumps({k: counts[k] for k in order}))
    elif cmd == "gen-resolve":
        inp, sent = gen_resolve(int(argv[4]), int(argv[5]), int(argv[6]))
        write(argv[2], inp)
        write(argv[3], sent)
    elif cmd == "gen-router":
        write(argv[2], gen_router(int(argv[3]), int(argv[4]) if len(argv) > 4 else 1))
    elif cmd == "route":
        with open(argv[3]) as f:
            routes = json.load(f)
        counts, outs = route(read(argv[2]), routes, len(argv) - 4)
        for path, pkts in zip(argv[4:], outs):
            write(path, pkts)
        print(", ".join(f"{k} {v}" for k, v in counts.items()))
    elif cmd == "ipcsum":
        total = 0
        for f in argv[2:]:
            checked, bad = ipcsum(read(f))
            total += checked
            if bad is not None:
                print(f"{f}: packet {bad}: bad IPv4 header checksum")
                return 1
        print(f"{total} IPv4 header checksums correct")
    elif cmd == "gen-empty":
        pkts = gen(int(argv[3]), int(argv[4]) if len(argv) > 4 else 1)
        write(argv[2], [b"" if i % 3 == 1 else p for i, p in enumerate(pkts)])
    elif cmd == "empty":
        print(sum(1 for p in read(argv[2]) if len(p) == 0))
    elif cmd == "bytes":
        print(sum(len(p) for p in read(argv[2])))
    elif cmd == "count":
        print(len(read(argv[2])))
    elif cmd == "cmp":
        a, b = read(argv[2]), read(argv[3])
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                off = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]),
                           min(len(x), len(y)))
                print(f"packet {i}: differs at byte {off} (lengths {len(x)} and {len(y)})")
                return 1
        if len(a) != len(b):
            print(f"packet counts differ: {argv[2]} has {len(a)}, {argv[3]} has {len(b)}")
            return 1
        print(f"{len(a)} packets identical")
    else:
        raise SystemExit(f"unknown command {cmd}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
