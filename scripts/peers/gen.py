#!/usr/bin/env python3
"""Inputs and reports for scripts/bench-peers.

  gen.py routes N DIR            route table of N IPv4 prefixes, written as
                                 DIR/routes.v4 (R lines, l3fwd --rule_ipv4),
                                 DIR/routes.v6 (one R line: l3fwd reads its
                                 IPv4 file only when an IPv6 file is given) and
                                 DIR/routes.yaml (the router's routes list)
  gen.py dests N K FILE          pcap of K IPv4/UDP frames to K destinations
                                 spread over the N routes of `routes N`
  gen.py routes6 N DIR           the same for N IPv6 prefixes: DIR/routes.v6,
                                 DIR/routes.v4 (one R line) and DIR/routes.yaml
  gen.py dests6 N K FILE         pcap of K IPv6/UDP frames to K destinations
                                 spread over the N routes of `routes6 N`
  gen.py flows N FILE [ROUNDS]   pcap of N distinct UDP 5-tuples, one frame
                                 each, the whole set ROUNDS times (default 1)
  gen.py macs K A B              the bridge part: K MAC addresses, K/2 hosts
                                 each side; pcap A one frame from each a_i to
                                 its b_i, pcap B the way back
  gen.py ofrules N FILE          one exact OpenFlow rule per 5-tuple of
                                 `flows N` (ovs-ofctl add-flows FILE)
  gen.py records PCAP            per-flow delay from last packet to expiry,
                                 from the flow records a flowcache sent as
                                 frames (pcap time of the record - its "end"):
                                 prints "n p0 p50 p90 p99 max" in ms
  gen.py ethdev-measure SOCK PID D [TID]  a DPDK program (l3fwd, testpmd)
                                 forwarding over D seconds: port 1's
                                 opackets from the telemetry socket SOCK at the
                                 start and end, the CPU time of PID's thread
                                 TID (default PID's main thread: l3fwd's
                                 forwarding lcore) meanwhile:
                                 prints "packets seconds cpu_seconds"
  gen.py ovs-expiry CTL N TIMEOUT [READY]
                                 polls `ovs-appctl -t CTL dpctl/dump-flows`
                                 until the datapath has no flow left (or
                                 TIMEOUT s): per flow, from its last use (poll
                                 time - "used") to the first poll without it;
                                 prints "n p0 p50 p90 p99 max polls poll_ms" (ms);
                                 creates the file READY after its first poll
Frames are 64 bytes, IPv4/UDP, TTL 64, with a valid IPv4 header checksum.  Everything is deterministic (fixed seeds).
"""
import json
import random
import struct
import sys

SIZE = 64
ETH = bytes.fromhex("020000000000" "020000000001" "0800")


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(src, dst, sport, dport):
    ulen = SIZE - 14 - 20
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 0, 0, 64, 17, 0,
                     src.to_bytes(4, "big"), dst.to_bytes(4, "big"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", sport, dport, ulen, 0) + bytes(ulen - 8)
    return ETH + ip + udp


ETH6 = bytes.fromhex("020000000000" "020000000001" "86dd")


def frame6(src, dst, sport, dport):
    ulen = SIZE - 14 - 40
    ip = struct.pack("!IHBB16s16s", 6 << 28, ulen, 17, 64,
                     src.to_bytes(16, "big"), dst.to_bytes(16, "big"))
    udp = struct.pack("!HHHH", sport, dport, ulen, 0xFFFF) + bytes(ulen - 8)
    return ETH6 + ip + udp


def write_pcap(path, frames):
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        buf = []
        for f in frames:
            buf.append(struct.pack("<IIII", 0, 0, len(f), len(f)) + f)
            if len(buf) >= 65536:
                fh.write(b"".join(buf))
                buf = []
        fh.write(b"".join(buf))


def ip_str(a):
    return "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)


def shaped_prefixes(n, rnd, bits, lens, draw, excluded):
    """N distinct (address, length) prefixes of `bits`-bit addresses: length
    lens[0] for 60%, lens[1] (a range) for 30%, lens[2] for 10%; addresses
    from draw(), those for which excluded(a) is true redrawn."""
    seen, out = set(), []
    while len(out) < n:
        x = rnd.random()
        plen = lens[0] if x < 0.6 else rnd.randint(*lens[1]) if x < 0.9 else rnd.randint(*lens[2])
        a = draw()
        if excluded(a):
            continue
        a &= ((1 << bits) - 1) ^ ((1 << (bits - plen)) - 1)
        if (a, plen) in seen:
            continue
        seen.add((a, plen))
        out.append((a, plen))
    return out


def routes(n):
    """N distinct prefixes, lengths shaped like an Internet table: 60% /24,
    30% /16../23, 10% /25../32 (those need an LPM tbl8 group each), in
    1.0.0.0..223.255.255.255 (198.18.0.0/15 excluded: the sources live there)."""
    rnd = random.Random(n)
    return shaped_prefixes(n, rnd, 32, (24, (16, 23), (25, 32)),
                           lambda: rnd.randint(0x01000000, 0xDFFFFFFF),
                           lambda a: (a >> 17) == (0xC6120000 >> 17))


def write_routes_yaml(d, prefixes):
    """The router's `routes:` value as a flow sequence in DIR/routes.yaml,
    the MACs written once and aliased (a configuration may have at most
    16 MiB: 262144 IPv4 routes come within 0.3 MiB of it, so nothing is
    quoted that need not be); IPv6 prefixes quoted (they hold colons)."""
    with open(d + "/routes.yaml", "w") as fh:
        rows = ['{prefix: %s, output: 0, dst_mac: *d, src_mac: *s}'
                % ('"%s"' % p if ":" in p else p) for p in prefixes]
        rows[0] = rows[0].replace("*d", '&d "02:00:00:00:01:01"').replace("*s", '&s "02:00:00:00:01:00"')
        lines = [", ".join(rows[i:i + 16]) for i in range(0, len(rows), 16)]
        fh.write("[\n" + ",\n".join(" " + x for x in lines) + "]\n")


def cmd_routes(n, d):
    rs = routes(n)
    with open(d + "/routes.v4", "w") as fh:
        fh.write("# %d IPv4 routes, all to port 1\n" % n)
        fh.writelines("R%s/%d 1\n" % (ip_str(a), p) for a, p in rs)
    with open(d + "/routes.v6", "w") as fh:
        fh.write("R2001:db8::/32 1\n")
    write_routes_yaml(d, ["%s/%d" % (ip_str(a), p) for a, p in rs])
    deep = sum(1 for _, p in rs if p > 24)
    print("%d routes (%d longer than /24)" % (n, deep))


def ip6_str(a):
    import ipaddress
    return str(ipaddress.IPv6Address(a))


def routes6(n):
    """N distinct IPv6 prefixes shaped like an Internet table: 60% /48, 30%
    /32../47, 10% /49../64 (rte_lpm6 walks a tbl8 per byte past /24), in
    2400::/6 (2001:db8::/32 and the sources' 2001:db8:ffff::/48 left out)."""
    rnd = random.Random(n + 6)
    return shaped_prefixes(n, rnd, 128, (48, (32, 47), (49, 64)),
                           lambda: (0x24 << 120) | rnd.getrandbits(122), lambda a: False)


def cmd_routes6(n, d):
    rs = routes6(n)
    with open(d + "/routes.v6", "w") as fh:
        fh.write("# %d IPv6 routes, all to port 1\n" % n)
        fh.writelines("R%s/%d 1\n" % (ip6_str(a), p) for a, p in rs)
    with open(d + "/routes.v4", "w") as fh:
        fh.write("R198.51.100.0/24 1\n")
    write_routes_yaml(d, ["%s/%d" % (ip6_str(a), p) for a, p in rs])
    print("%d IPv6 routes (%d longer than /48)" % (n, sum(1 for _, p in rs if p > 48)))


def cmd_dests6(n, k, path):
    rs = routes6(n)
    rnd = random.Random(k * 7919 + n + 6)
    frames = []
    src0 = 0x20010DB8FFFF << 80
    for i in range(k):
        a, plen = rs[(i * n) // k] if k <= n else rs[i % n]
        dst = a | rnd.getrandbits(128 - plen)
        frames.append(frame6(src0 | i, dst, 1024 + (i >> 16), 9))
    rnd.shuffle(frames)
    write_pcap(path, frames)


def cmd_dests(n, k, path):
    rs = routes(n)
    rnd = random.Random(k * 7919 + n)
    frames = []
    for i in range(k):
        a, plen = rs[(i * n) // k] if k <= n else rs[i % n]
        host = rnd.getrandbits(32 - plen) if plen < 32 else 0
        dst = a | host
        src = 0xC6120000 | (i & 0xFFFF)
        frames.append(frame(src, dst, 1024 + (i >> 16), 9))
    rnd.shuffle(frames)
    write_pcap(path, frames)


def flow(i):
    # 198.18.0.0/15 sources (131072 of them), then the next source port
    return 0xC6120000 | (i % 131072), 0xC613FF01, 1024 + i // 131072, 9


def cmd_flows(n, path, rounds=1):
    one = [frame(*flow(i)) for i in range(n)]
    write_pcap(path, (f for _ in range(rounds) for f in one))


def cmd_macs(k, a_path, b_path):
    """K MAC addresses, K/2 hosts on each side of a bridge (at least one):
    a.pcap holds one frame from each host a_i to its partner b_i, b.pcap
    one from each b_i to a_i (64-byte UDP frames)."""
    n = max(k // 2, 1)

    def mac(side, i):
        return bytes([0x02, side, (i >> 24) & 0xFF, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF])

    def one(src, dst, i):
        f = frame(*flow(i))
        return dst + src + f[12:]
    write_pcap(a_path, (one(mac(0xA0, i), mac(0xB0, i), i) for i in range(n)))
    write_pcap(b_path, (one(mac(0xB0, i), mac(0xA0, i), i) for i in range(n)))


def cmd_ofrules(n, path):
    with open(path, "w") as fh:
        for i in range(n):
            s, d, sp, dp = flow(i)
            fh.write("udp,nw_src=%s,nw_dst=%s,tp_src=%d,tp_dst=%d,actions=output:p1\n"
                     % (ip_str(s), ip_str(d), sp, dp))


def read_pcap(path):
    with open(path, "rb") as fh:
        data = fh.read()
    magic = struct.unpack("<I", data[:4])[0]
    nano = magic == 0xA1B23C4D
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        yield sec + frac / (1e9 if nano else 1e6), data[off + 16:off + 16 + incl]
        off += 16 + incl


def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))]


def cmd_records(path):
    d = []
    for ts, f in read_pcap(path):
        if f[12:14] != b"\x88\xb5":
            continue
        r = json.loads(f[14:].split(b"\0")[0].decode())
        if r.get("reason") == "idle":
            d.append((ts - float(r["end"])) * 1e3)
    d.sort()
    if not d:
        print("0 NA NA NA NA NA")
        return
    print("%d %.1f %.1f %.1f %.1f %.1f" % (len(d), d[0], pct(d, .5), pct(d, .9), pct(d, .99), d[-1]))


def cmd_ethdev_measure(sock, pid, secs, tid=None):
    import socket
    import time
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sock)
    s.recv(4096)

    def sample():
        s.send(b"/ethdev/stats,1")
        n = json.loads(s.recv(65536).decode())["/ethdev/stats"]["opackets"]
        t = time.monotonic()
        with open("/proc/%d/task/%d/schedstat" % (pid, tid or pid)) as fh:
            c = int(fh.read().split()[0])
        return n, t, c
    n0, t0, c0 = sample()
    time.sleep(secs)
    n1, t1, c1 = sample()
    print("%d %.3f %.3f" % (n1 - n0, t1 - t0, (c1 - c0) / 1e9))


def cmd_ovs_expiry(ctl, want, timeout, ready=None):
    import subprocess
    import time
    last, gone, polls, spent = {}, {}, 0, 0.0
    start = time.monotonic()
    seen_all = False
    while time.monotonic() - start < timeout:
        t0 = time.monotonic()
        out = subprocess.run(["ovs-appctl", "-t", ctl, "dpctl/dump-flows"], capture_output=True,
                             text=True, check=True).stdout
        t = time.monotonic()
        spent += t - t0
        polls += 1
        if ready and polls == 1:
            open(ready, "w").close()
        now = set()
        for line in out.splitlines():
            if ", used:" not in line or "udp(" not in line:
                continue
            key = line.split(", packets:")[0].strip()
            used = line.split("used:")[1].split(",")[0].strip()
            now.add(key)
            # "never": no packet since the upcall that made the flow (the
            # upcall's own packet is not counted): it was last used about
            # when it was first seen
            u = 0.0 if used == "never" else float(used.rstrip("s"))
            if used != "never" or key not in last:
                last[key] = max(last.get(key, 0.0), t - u)
        for k in last:
            if k not in now and k not in gone:
                gone[k] = t
        if len(last) >= want:
            seen_all = True
        if seen_all and not now:
            break
        if not seen_all and time.monotonic() - start > 5 and not now and last:
            break
        time.sleep(0.02)
    d = sorted((gone[k] - last[k]) * 1e3 for k in gone)
    if not d:
        print("0 NA NA NA NA NA %d %.0f" % (polls, spent / max(polls, 1) * 1e3))
        return
    print("%d %.1f %.1f %.1f %.1f %.1f %d %.0f" % (len(d), d[0], pct(d, .5), pct(d, .9), pct(d, .99),
                                                  d[-1], polls, spent / polls * 1e3))


def main(a):
    if len(a) >= 3 and a[0] == "routes":
        cmd_routes(int(a[1]), a[2])
    elif len(a) == 4 and a[0] == "dests":
        cmd_dests(int(a[1]), int(a[2]), a[3])
    elif len(a) >= 3 and a[0] == "routes6":
        cmd_routes6(int(a[1]), a[2])
    elif len(a) == 4 and a[0] == "dests6":
        cmd_dests6(int(a[1]), int(a[2]), a[3])
    elif len(a) in (3, 4) and a[0] == "flows":
        cmd_flows(int(a[1]), a[2], int(a[3]) if len(a) == 4 else 1)
    elif len(a) == 4 and a[0] == "macs":
        cmd_macs(int(a[1]), a[2], a[3])
    elif len(a) == 3 and a[0] == "ofrules":
        cmd_ofrules(int(a[1]), a[2])
    elif len(a) == 2 and a[0] == "records":
        cmd_records(a[1])
    elif len(a) in (4, 5) and a[0] == "ethdev-measure":
        cmd_ethdev_measure(a[1], int(a[2]), float(a[3]), int(a[4]) if len(a) == 5 else None)
    elif len(a) in (4, 5) and a[0] == "ovs-expiry":
        cmd_ovs_expiry(a[1], int(a[2]), float(a[3]), a[4] if len(a) == 5 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
