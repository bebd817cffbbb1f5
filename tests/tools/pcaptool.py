#!/usr/bin/env python3
"""Small pcap helper for Sluice's integration tests (standard library only).

  pcaptool.py gen OUT N [SEED]     write N varied frames: IPv4/UDP, IPv4/TCP,
                                   IPv6/UDP, ARP, VLAN-tagged IPv4, short frames
  pcaptool.py l2swap IN OUT        expected output of l2fwd mode=swap
  pcaptool.py l2set IN OUT SRC DST expected output of l2fwd mode=set
  pcaptool.py cmp A B              compare packet by packet; exit 1 on the first
                                   difference, naming the packet and offset
  pcaptool.py count FILE           print the number of packets
"""
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
