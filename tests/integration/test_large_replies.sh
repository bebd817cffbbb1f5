#!/usr/bin/env bash
# Large answers, read whole (docs/control.md "The protocol", docs/telemetry.md
# "Columns and pages"):
#   - a reload --dry-run from 3 to 2003 apps (3000 actions: a reply of about
#     200 KiB, over 64 KiB and over the socket's send buffer) exits 0 and
#     prints every action and the count; a raw client reads it as messages of
#     65536 bytes and a shorter last one;
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
head_apps() {
  cat <<EOF
$(two_workers_head)
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
timeout 120 "$SLUICE" reload --prefix "$PREFIX" "$T/big.yaml" --dry-run >"$T/dry" 2>&1 ||
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
assert len(parts) > 2, "a reply of %d messages only" % len(parts)   # over the send buffer
print("dry run: %d bytes in %d messages" % (sum(map(len, parts)), len(parts)))
PY
ok "a dry run of $actions actions (over 64 KiB and the send buffer) arrives whole, exit 0"

# --- 2. The reload, applied.
timeout 120 "$SLUICE" reload --prefix "$PREFIX" "$T/big.yaml" >"$T/rl" 2>&1 ||
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
