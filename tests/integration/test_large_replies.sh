#!/usr/bin/env bash
# Large answers, read whole (docs/control.md "The protocol", docs/telemetry.md
# "Columns and pages"):
#   - a reload --dry-run from 3 to 2003 apps (3000 actions: a reply of about
#     250 KiB, over 64 KiB) exits 0 and
#     prints every action and the count; a raw client reads it as messages of
#     65536 bytes and a shorter last one;
#   - a reply over the send buffer is parked and sent as the client reads:
#     another client is answered meanwhile, and a client that stops reading
#     is closed; a reply of exactly a multiple of 65536 bytes ends with a
#     newline message;
#   - the reload itself (applied: 3000 actions) exits 0 and says so;
#   - then lists of many pages (2003 apps, 1002 links; a telemetry reply
#     holds a few hundred rows): `sluice stats --json`, the exporter's series
#     and the summary at stop all count 2003 apps and 1002 links.
. "$(dirname "$0")/lib.sh"
as_root_engine
command -v curl >/dev/null || skip "curl not installed (scripts/setup)"
pids=()
trap 'kill -KILL ${pid:-} 2>/dev/null; for p in "${pids[@]}"; do end_process "$p"; done; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

N=1000   # source -> sink pairs added by the reload
# The stop's clean-up of 2003 apps takes well under a second on an idle
# machine; the limit (default 5 s) is set far from it, below signal_run's
# minute, so that a loaded machine does not turn slowness into a failure.
head_apps() {
  cat <<EOF
$(two_workers_head)
engine: { stop_timeout: 30s }
apps:
  src:  { type: source, worker: gen, size: 64, flows: 16, rate: 1000 }
  swap: { type: l2fwd, worker: fwd }
  out:  { type: sink, worker: fwd }
EOF
}
head_apps >"$T/run.yaml"
printf 'links:\n  - src.output -> swap.input\n  - swap.output -> out.input\n' >>"$T/run.yaml"
{
  head_apps
  for i in $(seq "$N"); do
    echo "  generator_number_$i: { type: source, worker: gen, rate: 1 }"
    echo "  sink_number_$i: { type: sink, worker: fwd }"
  done
  printf 'links:\n  - src.output -> swap.input\n  - swap.output -> out.input\n'
  for i in $(seq "$N"); do echo "  - generator_number_$i.output -> sink_number_$i.input"; done
} >"$T/big.yaml"
apps=$((2 * N + 3)) links=$((N + 2)) actions=$((3 * N))

start_engine "$T/run.yaml" "$T/run.log" 3
sock=/var/run/dpdk/$PREFIX/sluice_control
wait_event "the control socket" "$pid" "$T/run.log" test -S "$sock"

# --- 1. The dry run: every action, and the count.
SLUICE_TIMEOUT=120 timeout 150 "$SLUICE" reload --prefix "$PREFIX" "$T/big.yaml" --dry-run >"$T/dry" 2>&1 ||
  { tail -5 "$T/dry" >&2; fail "reload --dry-run of $actions actions failed"; }
expect_in "$T/dry" "reload: $actions actions (dry run: nothing changed)"
n=$(grep -c "^would " "$T/dry")
[[ $n -eq $actions ]] || fail "the dry run printed $n actions, not $actions"
# The same reply read raw: messages of 65536 bytes, then a shorter one.
python3 - "$sock" "$T/big.yaml" "$actions" <<'PY' || fail "the raw chunked reply"
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(60)
s.connect(sys.argv[1])
s.send(json.dumps({"verb": "reload", "config": sys.argv[2], "dry_run": True}).encode())
parts = []
while True:
    m = s.recv(1 << 20)
    assert m, "closed before the end of the reply"
    parts.append(m)
    if len(m) != 65536:
        break
assert all(len(p) == 65536 for p in parts[:-1])
r = json.loads(b"".join(parts))
assert r["ok"] is True and r["applied"] is False and len(r["actions"]) == int(sys.argv[3]), r.keys()
assert len(parts) > 2, "a reply of %d messages only" % len(parts)
print("dry run: %d bytes in %d messages" % (sum(map(len, parts)), len(parts)))
PY
ok "a dry run of $actions actions (over 64 KiB) arrives whole, exit 0"

# --- 1b. A reply the socket cannot take at once is parked and sent as the
# client reads (docs/control.md): a dry run adding 2400 source -> sink
# pairs with names of 110 bytes (a link's app names are at most 127): over
# 1 MiB, four times the 256 KiB send buffer the engine sets, so most of it
# can only go out after the client has begun to read.  While it is parked
# another connection gets its `info` answer; then the reply is read whole.
# A client that sends the same and never reads is closed after
# SL_CTL_IDLE_MS (its connection hangs up with the reply unfinished).
long=$(printf 'x%.0s' $(seq 100))
{
  head_apps
  for i in $(seq 2400); do
    printf '  park_s%04d_%s: { type: source, worker: gen, rate: 1 }\n' "$i" "$long"
    printf '  park_k%04d_%s: { type: sink, worker: fwd }\n' "$i" "$long"
  done
  printf 'links:\n  - src.output -> swap.input\n  - swap.output -> out.input\n'
  for i in $(seq 2400); do
    printf '  - park_s%04d_%s.output -> park_k%04d_%s.input\n' "$i" "$long" "$i" "$long"
  done
} >"$T/park.yaml"
python3 - "$sock" "$T/park.yaml" <<'PY' || fail "the parked reply"
import json, select, socket, sys
path, conf = sys.argv[1:]
req = json.dumps({"verb": "reload", "config": conf, "dry_run": True}).encode()
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(60)
    s.connect(path)
    return s
def read_whole(s):
    parts = []
    while True:
        m = s.recv(1 << 20)
        if not m:
            return parts, False       # closed before the last message
        parts.append(m)
        if len(m) != 65536:
            return parts, True
a = conn()
a.send(req)
# The first message of a's reply is there: the engine has answered a
# (and parked what the socket could not take).
assert select.select([a], [], [], 60)[0], "no reply to the big dry run"
b = conn()
b.send(b'{"verb": "info"}')
r = json.loads(b.recv(65536))
assert r["ok"] is True, r
parts, whole = read_whole(a)
assert whole, "the parked reply ended early"
total = sum(map(len, parts))
assert total > 4 * 262144, "a reply of %d bytes only: %r" % (total, b"".join(parts)[:300])
r = json.loads(b"".join(parts))
assert r["ok"] is True and len(r["actions"]) == 7200, (r.get("error"), len(r.get("actions", [])))
print("parked reply: %d bytes in %d messages, info answered meanwhile" % (total, len(parts)))
# The client that does not read: closed, its reply unfinished.
c = conn()
c.send(req)
p = select.poll()
p.register(c, select.POLLRDHUP)
ev = p.poll(60000)
assert ev and ev[0][1] & (select.POLLRDHUP | select.POLLHUP), "not closed: %r" % ev
parts, whole = read_whole(c)
assert not whole, "the reply of a client that did not read came whole"
print("the idle reader was closed after %d of its messages" % len(parts))
d = conn()                 # and the engine still answers
d.send(b'{"verb": "info"}')
assert json.loads(d.recv(65536))["ok"] is True
PY
ok "a reply over the send buffer is parked: another client is answered meanwhile, the reply arrives whole; a client that stops reading is closed"

# --- 1c. A reply whose length is an exact multiple of 65536: a newline
# ends it, so its last message is shorter (one byte).  Pairs of pad apps
# bring the dry run's text near a multiple; then the lengths of one pair's
# names (each character of a name is a fixed number of bytes of the reply:
# measured) make up the rest.
python3 - "$sock" "$T/run.yaml" "$T/mult.yaml" <<'PY' || fail "the reply of a multiple of 65536 bytes"
import itertools, json, socket, sys
path, base, out = sys.argv[1:]
text = open(base).read()
head, links = text.split("links:\n")
# A chain: a source, l2fwd apps, a sink, linked in that order.
def dry(chains):
    with open(out, "w") as f:
        f.write(head)
        for ch in chains:
            f.write("  %s: { type: source, worker: gen, rate: 1 }\n" % ch[0])
            for m in ch[1:-1]:
                f.write("  %s: { type: l2fwd, worker: fwd }\n" % m)
            f.write("  %s: { type: sink, worker: fwd }\n" % ch[-1])
        f.write("links:\n" + links)
        for ch in chains:
            for a, b in zip(ch, ch[1:]):
                f.write("  - %s.output -> %s.input\n" % (a, b))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(60)
    s.connect(path)
    s.send(json.dumps({"verb": "reload", "config": out, "dry_run": True}).encode())
    parts = []
    while True:
        m = s.recv(1 << 20)
        assert m, "closed before the end"
        parts.append(m)
        if len(m) != 65536:
            break
    s.close()
    return parts
def text_len(parts):      # without the newline that pads a multiple
    b = b"".join(parts)
    assert json.loads(b)["ok"] is True, b[:300]
    return len(b) - (1 if b.endswith(b"\n") else 0)
def pad(i):
    return ("fa%d" % i + "y" * 100, "fb%d" % i + "y" * 100)
# One chain source -> l2fwd -> sink whose three names grow by up to 99
# characters each (an l2fwd's name is in two links: its cost differs from
# the others'), and pad pairs to come within that of a multiple.
def adj(x, y, z):
    return ("ga" + "a" * x, "gm" + "m" * y, "gb" + "b" * z)
n0 = text_len(dry([adj(0, 0, 0)]))
cost = [text_len(dry([adj(*d)])) - n0 for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1))]
c_pad = text_len(dry([adj(0, 0, 0), pad(0)])) - n0
reach = sum(cost) * 99
assert reach > c_pad, (cost, c_pad)
need = -n0 % 65536
k = max(0, (need - reach) // c_pad + 1) if need > reach else 0
chains = [adj(0, 0, 0)] + [pad(i) for i in range(k)]
# Solve for the three lengths; the reply is measured again and the
# lengths solved again from there (a name's cost is nearly, not exactly,
# linear), a few times.
cur = (0, 0, 0)
for attempt in range(6):
    n = text_len(dry(chains))
    if n % 65536 == 0:
        break
    r = n % 65536
    # Bytes the three names should add beyond the empty ones: to the next
    # multiple, or back to this one.
    base_extra = sum(c * v for c, v in zip(cost, cur))
    targets = [base_extra + 65536 - r, base_extra - r]
    sol = [(x, y, (t - cost[0] * x - cost[1] * y) // cost[2])
           for t in targets for x in range(100) for y in range(100)
           if t - cost[0] * x - cost[1] * y >= 0 and (t - cost[0] * x - cost[1] * y) % cost[2] == 0
           and (t - cost[0] * x - cost[1] * y) // cost[2] < 100]
    assert sol, "no lengths for %s bytes (costs %s)" % (targets, cost)
    sol.sort(key=lambda d: sum(abs(a - b) for a, b in zip(d, cur)))
    cur = sol[0] if sol[0] != cur else sol[1]
    chains[0] = adj(*cur)
parts = dry(chains)
n = text_len(parts)
assert n % 65536 == 0, "the reply is %d bytes, not a multiple of 65536" % n
assert all(len(p) == 65536 for p in parts[:-1]) and parts[-1] == b"\n", [len(p) for p in parts]
r = json.loads(b"".join(parts))
assert r["ok"] is True, r.get("error")
print("a reply of %d bytes (%d x 65536) in %d messages, the last a newline" % (n, n // 65536, len(parts)))
PY
SLUICE_TIMEOUT=120 timeout 150 "$SLUICE" reload --prefix "$PREFIX" "$T/mult.yaml" --dry-run >"$T/mult" 2>&1 ||
  { tail -5 "$T/mult" >&2; fail "reload --dry-run of a reply of a multiple of 65536 bytes"; }
expect_in "$T/mult" "(dry run: nothing changed)"
ok "a reply of exactly a multiple of 65536 bytes ends with a newline message; sluice reload reads it whole"

# --- 2. The reload, applied.
SLUICE_TIMEOUT=120 timeout 150 "$SLUICE" reload --prefix "$PREFIX" "$T/big.yaml" >"$T/rl" 2>&1 ||
  { tail -5 "$T/rl" >&2; fail "the reload of $actions actions failed"; }
expect_in "$T/rl" "reload: $actions actions applied to engine '$PREFIX'"
n=$(grep -cE "^(start|add) " "$T/rl")
[[ $n -eq $actions ]] || fail "the reload printed $n actions, not $actions"
ok "a reload to $apps apps ($actions actions) applied, exit 0"

# --- 3. Lists of many pages: stats, the exporter, the summary.
"$SLUICE" stats --prefix "$PREFIX" --json >"$T/s.json" 2>"$T/stats.err" ||
  { cat "$T/stats.err" >&2; fail "sluice stats"; }
python3 - "$T/s.json" "$apps" "$links" <<'PY' || fail "stats --json counts"
import json, sys
s, apps, links = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
assert len(s["apps"]) == apps, (len(s["apps"]), apps)
assert len(s["links"]) == links, (len(s["links"]), links)
assert "sink_number_1000" in s["apps"] and "generator_number_1000.output -> sink_number_1000.input" in s["links"]
PY
ok "sluice stats --json: $apps apps, $links links"

start_exporter
curl -s --max-time 60 -o "$T/m" "http://127.0.0.1:$port/metrics" || fail "no scrape"
grep -qx "sluice_up 1" "$T/m" || { cat "$T/exp.log" >&2; fail "the exporter cannot read the engine"; }
n=$(grep -c '^sluice_app_in_packets_total{' "$T/m")
[[ $n -eq $apps ]] || fail "the exporter has $n app series, not $apps"
n=$(grep -c '^sluice_link_packets_total{' "$T/m")
[[ $n -eq $links ]] || fail "the exporter has $n link series, not $links"
ok "the exporter: $apps app series, $links link series"

interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the engine did not stop cleanly"; }
pid=""
f=$(summary_of "$T/run.log")
python3 - "$f" "$apps" "$links" <<'PY' || fail "the summary's counts"
import json, sys
s, apps, links = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
assert len(s["apps"]) == apps and len(s["links"]) == links, (len(s["apps"]), len(s["links"]))
PY
ok "the summary at stop: $apps apps, $links links"
pool_back "$T/run.log"
ok "large replies"
