#!/usr/bin/env bash
# sluice capture's bounds (docs/capture.md): the filter's size, and the
# control thread while a filter compiles.
#  1. A filter over the bounds (65 terms; 800 "host" terms, 15 KB) is refused
#     by sluice capture and, sent raw, by the engine: exit/status 2 and a
#     message naming the bound.  A filter of 64 terms (63 of them "portrange",
#     the costliest to compile) is accepted and captures.
#  2. While the engine compiles a filter (held: its "host NAME" waits on a
#     DNS server of this test, through a resolv.conf bind-mounted for the
#     engine alone), `info` on the control socket and `sluice stats` answer,
#     and the sd_notify watchdog pings go on; then the held name is answered
#     NXDOMAIN and the capture is refused with libpcap's message.
# Every run ends with every mbuf back in the pool.
. "$(dirname "$0")/lib.sh"
as_root_engine
trap 'kill -KILL ${pid:-} ${dns_pid:-} ${listener:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT
command -v unshare >/dev/null || skip "unshare is not installed"
P=(--prefix "$PREFIX")

conf() {   # conf PAUSED SIZE COUNT
  cat <<EOF
$(two_workers_head)
apps:
  src: { type: source, worker: gen, flows: 8, size: $2, count: $3, rate: 20000, paused: $1 }
  out: { type: sink, worker: fwd }
links:
  - { link: "src.output -> out.input", size: 4096 }
EOF
}

# ctl PYTHON: run PYTHON with ask(bytes) -> reply dict (a new connection to
# the control socket each time) and SOCK defined.
ctl() {
  python3 - "/var/run/dpdk/$PREFIX/sluice_control" "$@" <<PY
import json, os, socket, sys
SOCK = sys.argv[1]
def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(30)
    s.connect(SOCK)
    return s
def ask(data):
    s = connect()
    s.send(data)
    r = s.recv(1 << 20)
    s.close()
    return json.loads(r)
$(cat)
PY
}

# --- 1. bounds: refused by the CLI and the engine; 64 terms accepted
# The engine runs in a mount namespace of its own whose resolv.conf names
# this test's DNS server (part 2).
ns=127.0.$((RANDOM % 200 + 20)).$((RANDOM % 200 + 20))
printf 'nameserver %s\noptions timeout:30 attempts:2\n' "$ns" >"$T/resolv.conf"
conf false 64 0 >"$T/one.yaml"
# It tells a listener of this test its watchdog pings (sd_notify; a ping
# every 0.1 s).
python3 - "$T/notify.sock" "$T/notify" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    msg = s.recv(4096).decode()
    with open(sys.argv[2], "a") as f:
        f.write(";".join(msg.split("\n")) + "\n")
PY
listener=$!
wait_event "the listener's socket" "$listener" "" test -S "$T/notify.sock"
( export NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=200000 WATCHDOG_PID=$BASHPID
  exec unshare -m --propagation private sh -c 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' \
    sh "$T/resolv.conf" "$SLUICE" run "$T/one.yaml" --summary-json "$T/one.log.json" ) >"$T/one.log" 2>&1 &
pid=$!
wait_event "the start line" "$pid" "$T/one.log" log_lines "$T/one.log" "^sluice: running 2 apps"

terms() {   # terms N OP: N "portrange" terms joined by OP
  python3 -c 'import sys; n, op = int(sys.argv[1]), sys.argv[2]
print(op.join("portrange %d-%d" % (1000 + i, 1010 + i) for i in range(n)))' "$@"
}
f65=$(terms 65 " or ")
f65b=$(terms 65 "&&")
hosts=$(python3 -c 'print(" or ".join("host 10.0.%d.%d" % (i // 250, i % 250 + 1) for i in range(800)))')
f64="udp dst port 9 or $(terms 63 ' || ')"
((${#hosts} > 4096)) || fail "the 800-term filter is only ${#hosts} bytes"
# (-c 1, -a duration:1: a capture that is not refused ends.)
expect_exit 2 "$T/b1" capture "${P[@]}" src.output -f "$f65" -c 1 -w "$T/x"
expect_in "$T/b1" "sluice: capture: filter has 65 terms (primitives joined by and/or); at most 64 are accepted"
expect_exit 2 "$T/b2" capture "${P[@]}" src.output -f "$f65b" -c 1 -w "$T/x"
expect_in "$T/b2" "sluice: capture: filter has 65 terms"
expect_exit 2 "$T/b3" capture "${P[@]}" src.output -f "$hosts" -a duration:1 -w "$T/x"
expect_in "$T/b3" "sluice: capture: filter is ${#hosts} bytes long; at most 4096 are accepted"
[[ -e $T/x ]] && fail "a refused capture created its output file"
ctl "$f65" "$hosts" <<'PY' || fail "the engine's answers to filters over the bounds"
for f, want in ((sys.argv[2], "capture: filter has 65 terms (primitives joined by and/or); at most 64 are accepted"),
                (sys.argv[3], "capture: filter is %d bytes long; at most 4096 are accepted" % len(sys.argv[3]))):
    r = ask(json.dumps({"verb": "capture", "points": ["src.output"], "filter": f}).encode())
    assert r["ok"] is False and r["status"] == 2 and want in r["error"], r
PY
expect_exit 0 "$T/b4" capture "${P[@]}" src.output -f "$f64" -c 10 -w "$T/c64.pcapng"
expect_in "$T/b4" "ended (count): 10 packets captured"
(($(tcpdump -r "$T/c64.pcapng" 2>/dev/null | wc -l) == 10)) || fail "the 64-term capture does not hold 10 packets"
ok "filters over 64 terms or 4096 bytes refused by sluice capture and the engine (status 2); 64 terms captured"

# --- 2. the control thread answers while a filter compiles
python3 - "$ns" "$T/dns.log" "$T/gate" <<'PY' &
# A DNS server that holds each query until the gate file exists, then
# answers NXDOMAIN (the question echoed, no records).
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
open(sys.argv[2], "a").close()
while True:
    q, peer = s.recvfrom(4096)
    name, i = [], 12
    while q[i]:
        name.append(q[i + 1:i + 1 + q[i]].decode())
        i += 1 + q[i]
    with open(sys.argv[2], "a") as f:
        f.write(".".join(name) + "\n")
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.01)
    flags = 0x8183   # a response, recursion desired and available, NXDOMAIN
    s.sendto(q[:2] + flags.to_bytes(2, "big") + q[4:6] + b"\0\0\0\0\0\0" + q[12:], peer)
PY
dns_pid=$!
wait_event "the DNS server" "$dns_pid" "$T/one.log" test -e "$T/dns.log"
ctl "$T/dns.log" "$T/gate" "$SLUICE" "$PREFIX" "$T/notify" <<'PY' || { cat "$T/one.log" >&2; fail "the control thread while a filter compiles"; }
import subprocess, time
log, gate, sluice, prefix, notify = sys.argv[2:7]
def pings():
    return open(notify).read().split("\n").count("WATCHDOG=1")
held = connect()
held.send(json.dumps({"verb": "capture", "points": ["src.output"],
                      "filter": "host held.sluice-test.example"}).encode())
# The engine asks the DNS server: its compile is under way, and waits.
end = time.monotonic() + 60
while "held.sluice-test" not in open(log).read():
    assert time.monotonic() < end, "the engine never looked the filter's host up"
    time.sleep(0.01)
r = ask(b'{"verb": "info"}')
assert r["ok"] is True and r["pid"] > 0, r
n = pings()
while pings() < n + 3:   # the watchdog is fed meanwhile
    assert time.monotonic() < end, "%d watchdog pings while the filter compiled" % (pings() - n)
    time.sleep(0.01)
st = subprocess.run([sluice, "stats", "--prefix", prefix, "--json"], capture_output=True, timeout=30)
assert st.returncode == 0 and json.loads(st.stdout)["apps"], st
assert "held.sluice-test" in open(log).read()
open(gate, "w").close()
r = json.loads(held.recv(65536))
want = "capture: filter 'host held.sluice-test.example': unknown host 'held.sluice-test.example'"
assert r["ok"] is False and r["status"] == 2 and r["error"] == want, r
PY
kill "$dns_pid" "$listener"
dns_pid= listener=
interrupt "$pid" "$T/one.log" || { cat "$T/one.log" >&2; fail "run 1 failed"; }
pid=
pool_back "$T/one.log"
ok "info, stats and the watchdog's pings went on while the engine compiled a filter; the unknown host then refused (status 2)"

