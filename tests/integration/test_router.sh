#!/usr/bin/env bash
# router, golden: pcap in -> router -> two pcap outs, compared byte for byte
# with what pcaptool computes independently (longest prefix in Python, TTL - 1,
# header checksum from scratch, MACs rewritten); the per-reason counters; every
# mbuf back.  The same with a flowcache in front passing route hints, where
# that app exists.  Then the configuration errors, word for word.
. "$(dirname "$0")/lib.sh"

$PCAPTOOL gen-router "$T/in.pcap" 400 11
n_in=$($PCAPTOOL count "$T/in.pcap")

# The routes twice: as JSON for pcaptool, as YAML for sluice.
cat >"$T/routes.json" <<'JSON'
[{"prefix": "10.1.0.0/16", "output": 0, "dst_mac": "02:00:00:00:01:01", "src_mac": "02:00:00:00:01:00"},
 {"prefix": "10.1.2.0/24", "output": 1, "dst_mac": "02:00:00:00:02:01"},
 {"prefix": "10.1.2.128/25", "output": 0},
 {"prefix": "192.0.2.7/32", "output": 1, "src_mac": "02:00:00:00:02:00"},
 {"prefix": "172.16.0.0/12", "output": 0, "dst_mac": "02:00:00:00:03:01", "src_mac": "02:00:00:00:03:00"}]
JSON
ROUTES='    routes:
      - { prefix: 10.1.0.0/16, output: 0, dst_mac: "02:00:00:00:01:01", src_mac: "02:00:00:00:01:00" }
      - { prefix: 10.1.2.0/24, output: 1, dst_mac: "02:00:00:00:02:01" }
      - { prefix: 10.1.2.128/25, via: 10.1.0.254, output: 0 }
      - { prefix: 192.0.2.7/32, output: 1, src_mac: "02:00:00:00:02:00" }
      - prefix: 172.16.0.0/12
        output: 0
        dst_mac: "02:00:00:00:03:01"
        src_mac: "02:00:00:00:03:00"'

want=$($PCAPTOOL route "$T/in.pcap" "$T/routes.json" "$T/want0.pcap" "$T/want1.pcap") ||
  fail "pcaptool route failed"
# The input exercises every outcome.
for k in forwarded no_route ttl_expired malformed not_ipv4; do
  n=$(echo "$want" | sed -nE "s/.*$k ([0-9]+).*/\1/p")
  [[ -n "$n" && "$n" -gt 0 ]] || fail "the input has no '$k' packets: $want"
done
[[ $($PCAPTOOL count "$T/want0.pcap") -gt 0 && $($PCAPTOOL count "$T/want1.pcap") -gt 0 ]] ||
  fail "an output would be empty"
forwarded=$(echo "$want" | sed -nE 's/^forwarded ([0-9]+),.*/\1/p')

# run_2s LOG CONFIG: the config runs for 2 s (exit 0, its summary in
# $T/LOG and $T/LOG.json), and every mbuf comes back.
run_2s() {
  expect_exit 0 "$T/$1" run "$2" --summary-json "$T/$1.json" --duration 2
  pool_back "$T/$1"
}

# write_cfg FILE OUT0 OUT1 ROUTES_YAML [FRONT]: in -> [FRONT ->] r1 -> o0, o1.
write_cfg() {
  local front_app="" first="r1"
  if [[ -n "${5:-}" ]]; then
    front_app="  fc: { type: flowcache, route: r1, entries: 1024 }"
    first="fc"
  fi
  cat >"$1" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  in: { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap" }
$front_app
  r1:
    type: router
$4
  o0: { type: port, device: "net_pcap1,tx_pcap=$2" }
  o1: { type: port, device: "net_pcap2,tx_pcap=$3" }
links:
  - in.output -> $first.input
$([[ $first == fc ]] && echo "  - fc.output -> r1.input")
  - r1.output0 -> o0.input
  - r1.output1 -> o1.input
YAML
}

# router_line LOG: the router's counters from the run's JSON summary, in
# the form pcaptool's route prints ("forwarded N, no_route N, ...").
router_line() {
  local out="" k
  for k in forwarded no_route ttl_expired malformed not_ipv4; do
    out+="${out:+, }$k $(app_counter "$1" r1 "$k")"
  done
  echo "$out"
}

write_cfg "$T/r.yaml" "$T/out0.pcap" "$T/out1.pcap" "$ROUTES"
run_2s log "$T/r.yaml"
[[ $(app_counter "$T/log" in in_packets) == "$n_in" ]] ||
  fail "in received $(app_counter "$T/log" in in_packets) of $n_in"
line=$(router_line "$T/log")
[[ "$line" == "$want" ]] || { cat "$T/log" >&2; fail "router 'r1': '$line', expected '$want'"; }
[[ $(app_counter "$T/log" r1 hinted) == 0 ]] || fail "router 'r1': hinted $(app_counter "$T/log" r1 hinted) without a flowcache"
ok "router 'r1': $want, hinted 0"
drops=$((n_in - forwarded))
[[ $(app_counter "$T/log" r1 drops) == "$drops" ]] ||
  fail "r1 counted $(app_counter "$T/log" r1 drops) drops, expected $drops"
for o in 0 1; do
  $PCAPTOOL cmp "$T/out$o.pcap" "$T/want$o.pcap" || fail "output$o differs from the expected frames"
  $PCAPTOOL ipcsum "$T/out$o.pcap" >/dev/null || fail "output$o: a bad IPv4 header checksum"
done
ok "router: output0 and output1 identical to the expected frames ($forwarded of $n_in forwarded)"
# The fast path (docs/router.md, Speed) took the simple frames to routes with
# dst_mac, and the rest of their bursts went the full way after them: both
# kinds are in the input, and the outputs above are the expected ones.
fast=$(app_counter "$T/log" r1 fast)
((fast > 0 && fast < forwarded)) ||
  fail "router 'r1': fast $fast, expected some but not all of the $forwarded forwarded"
ok "router 'r1': $fast of $forwarded forwarded by the fast path, the rest in the same bursts the full way"
# The links' bytes: the router's input link counts what the fast path's
# check read and the rest of each burst (sl_link_receive_raw).
for l in "in.output -> r1.input:$T/in.pcap" "r1.output0 -> o0.input:$T/want0.pcap" \
         "r1.output1 -> o1.input:$T/want1.pcap"; do
  got=$(link_counter "$T/log" "${l%%:*}" bytes)
  want_b=$($PCAPTOOL bytes "${l#*:}")
  [[ "$got" == "$want_b" ]] || fail "link '${l%%:*}': $got bytes, expected $want_b"
done
ok "the links' bytes: those of the input and of each expected output"
# Direct links (engine.direct_links, on by default): the port hands each
# burst to the router, the router to the out ports, in the call.  The same
# frames and counts with every link queued.
for l in "in.output -> r1.input" "r1.output0 -> o0.input" "r1.output1 -> o1.input"; do
  [[ $(link_kind "$T/log" "$l") == direct ]] || fail "link '$l': kind $(link_kind "$T/log" "$l"), expected direct"
done
sed '1a engine: { direct_links: false }' "$T/r.yaml" | sed "s|$T/out\([01]\).pcap|$T/q\1.pcap|" >"$T/q.yaml"
run_2s log-q "$T/q.yaml"
line=$(router_line "$T/log-q")
[[ "$line" == "$want" && $(app_counter "$T/log-q" r1 fast) == "$fast" ]] ||
  fail "router 'r1', links queued: '$line', fast $(app_counter "$T/log-q" r1 fast); expected '$want', fast $fast"
for o in 0 1; do
  $PCAPTOOL cmp "$T/q$o.pcap" "$T/want$o.pcap" || fail "links queued: output$o differs from the expected frames"
done
for l in "in.output -> r1.input" "r1.output0 -> o0.input" "r1.output1 -> o1.input"; do
  [[ $(link_kind "$T/log-q" "$l") == local ]] || fail "link '$l' (direct_links: false): kind $(link_kind "$T/log-q" "$l")"
  [[ $(link_counter "$T/log-q" "$l" bytes) == $(link_counter "$T/log" "$l" bytes) ]] ||
    fail "link '$l': $(link_counter "$T/log-q" "$l" bytes) bytes queued, $(link_counter "$T/log" "$l" bytes) direct"
done
# `sluice plan` says the same before a run.
for f in r q; do
  expect_exit 0 "$T/plan-$f" plan "$T/$f.yaml"
  kind=direct; [[ $f == q ]] && kind=local
  n=$(grep -cE "^  (in\.output -> r1\.input|r1\.output[01] -> o[01]\.input) +$kind \(same worker\)$" "$T/plan-$f")
  [[ $n == 3 ]] || { cat "$T/plan-$f" >&2; fail "plan of $f.yaml: $n of 3 links $kind"; }
done
ok "links direct (the default) and queued (direct_links: false): the same frames, counters and bytes; the plan names them so"

# The same input through a router with an interface on output1 (none on
# output0, so input0 is no interface's and nothing is answered): routes
# with a dst_mac and no src_mac take the interface's MAC, on the fast path
# too (a route on an interface without dst_mac would be resolved by ARP).
# The interface announces itself (gratuitous ARP) on output1: the frames
# other than ARP are compared.
cat >"$T/routes-if.json" <<'JSON'
[{"prefix": "10.1.0.0/16", "output": 0, "dst_mac": "02:00:00:00:01:01", "src_mac": "02:00:00:00:01:00"},
 {"prefix": "10.1.2.0/24", "output": 1, "dst_mac": "02:00:00:00:02:01", "src_mac": "02:00:00:00:0e:01"},
 {"prefix": "192.0.2.7/32", "output": 1, "dst_mac": "02:00:00:00:02:02", "src_mac": "02:00:00:00:02:00"},
 {"prefix": "172.16.0.0/12", "output": 0, "dst_mac": "02:00:00:00:03:01", "src_mac": "02:00:00:00:03:00"}]
JSON
ROUTES_IF='    interfaces:
      - { name: e1, output: 1, address: 198.18.1.1/24, mac: "02:00:00:00:0e:01" }
    routes:
      - { prefix: 10.1.0.0/16, output: 0, dst_mac: "02:00:00:00:01:01", src_mac: "02:00:00:00:01:00" }
      - { prefix: 10.1.2.0/24, output: 1, dst_mac: "02:00:00:00:02:01" }
      - { prefix: 192.0.2.7/32, output: 1, dst_mac: "02:00:00:00:02:02", src_mac: "02:00:00:00:02:00" }
      - { prefix: 172.16.0.0/12, output: 0, dst_mac: "02:00:00:00:03:01", src_mac: "02:00:00:00:03:00" }'
want_if=$($PCAPTOOL route "$T/in.pcap" "$T/routes-if.json" "$T/wantif0.pcap" "$T/wantif1.pcap") ||
  fail "pcaptool route (interface) failed"
fw_if=$(echo "$want_if" | sed -nE 's/^forwarded ([0-9]+),.*/\1/p')
write_cfg "$T/if.yaml" "$T/if0.pcap" "$T/if1.pcap" "$ROUTES_IF"
run_2s log-if "$T/if.yaml"
line=$(router_line "$T/log-if")
[[ "$line" == "$want_if" ]] || { cat "$T/log-if" >&2; fail "router with an interface: '$line', expected '$want_if'"; }
$PCAPTOOL not-ethertype "$T/if1.pcap" "$T/if1-ip.pcap" 0806
for o in 0 1; do
  got=$T/if$o.pcap
  [[ $o == 1 ]] && got=$T/if1-ip.pcap
  $PCAPTOOL cmp "$got" "$T/wantif$o.pcap" ||
    fail "router with an interface: output$o differs from the expected frames"
done
fast=$(app_counter "$T/log-if" r1 fast)
((fast > 0 && fast < fw_if)) ||
  fail "router with an interface: fast $fast, expected some but not all of the $fw_if forwarded"
ok "router with an interface: identical outputs, the interface's MAC as source ($fast of $fw_if forwarded by the fast path)"

# With a flowcache in front, the packets of a known flow carry the route as a
# hint: the router's decisions, and so its outputs, must not change.
# (flowcache drops malformed frames itself, so only these counters compare.)
write_cfg "$T/fc.yaml" "$T/fc0.pcap" "$T/fc1.pcap" "$ROUTES" front
run_2s log-fc "$T/fc.yaml"
line=$(router_line "$T/log-fc")
[[ "$line" == "${want%%, malformed*}, "* ]] ||
  fail "with a flowcache: '$line', expected it to start with '${want%%, malformed*}'"
for o in 0 1; do
  $PCAPTOOL cmp "$T/fc$o.pcap" "$T/want$o.pcap" ||
    fail "with a flowcache: output$o differs from the expected frames"
done
hinted=$(app_counter "$T/log-fc" r1 hinted)
[[ "$hinted" == "$forwarded" ]] ||
  fail "with a flowcache: $hinted of $forwarded forwarded packets used the cached route"
[[ $(app_counter "$T/log-fc" r1 fast) == 0 ]] ||
  fail "with a flowcache: fast $(app_counter "$T/log-fc" r1 fast), expected 0 (a hinted table takes the full path)"
ok "router behind a flowcache: all $forwarded forwarded by the cached route (hints), identical outputs, none by the fast path"

# A next hop resolved by ARP: 64 frames (two bursts of 32) while the gateway
# is unknown (the first 8 held, neigh_hold, the rest dropped), its reply, 100
# more.  The held frames leave when the reply comes, the later ones with the
# burst they came in (listed with the rest of it, not sent one by one): all
# of them rewritten to the gateway's MAC from the interface's, byte for
# byte, and counted once.
$PCAPTOOL gen-resolve "$T/res-in.pcap" "$T/res-sent.pcap" 64 100 8
echo '[{"prefix": "10.1.0.0/16", "output": 0, "dst_mac": "02:00:00:00:0e:02", "src_mac": "02:00:00:00:0e:00"}]' >"$T/res.json"
$PCAPTOOL route "$T/res-sent.pcap" "$T/res.json" "$T/res-want.pcap" >/dev/null || fail "pcaptool route (resolve) failed"
cat >"$T/res.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { burst: 32 }
apps:
  in: { type: port, device: "net_pcap0,rx_pcap=$T/res-in.pcap" }
  r1:
    type: router
    interfaces:
      - { name: e0, output: 0, address: 198.18.1.1/24, mac: "02:00:00:00:0e:00" }
    routes:
      - { prefix: 10.1.0.0/16, via: 198.18.1.2 }
  o0: { type: port, device: "net_pcap1,tx_pcap=$T/res-out.pcap" }
links:
  - in.output -> r1.input
  - r1.output0 -> o0.input
YAML
run_2s log-res "$T/res.yaml"
got=""
for k in forwarded neigh_held neigh_dropped; do got+="${got:+, }$k $(app_counter "$T/log-res" r1 $k)"; done
[[ $got == "forwarded 108, neigh_held 8, neigh_dropped 56" ]] ||
  fail "resolving the gateway: '$got', expected 'forwarded 108, neigh_held 8, neigh_dropped 56'"
$PCAPTOOL not-ethertype "$T/res-out.pcap" "$T/res-out-ip.pcap" 0806
$PCAPTOOL cmp "$T/res-out-ip.pcap" "$T/res-want.pcap" || fail "resolving the gateway: output0 differs from the expected frames"
# The fast path takes the bursts after the reply's (net_pcap hands over
# bursts of 32: the reply and 31 frames, then 69 frames to a known
# gateway); the frames before the reply go the full way.
fast=$(app_counter "$T/log-res" r1 fast)
[[ $fast == 69 ]] || fail "resolving the gateway: fast $fast, expected 69 (the bursts after the reply's)"
ok "a gateway resolved by ARP: $got, the 108 frames as expected, $fast by the fast path"

# IPv6 through a router without interfaces (bench-peers' l3fwd6 tables, 16
# routes and 64 frames to them): every frame forwarded once, counted once in
# forwarded and once in forwarded6.
mkdir -p "$T/v6"
python3 "$SRC/scripts/peers/gen.py" routes6 16 "$T/v6" >/dev/null || fail "gen.py routes6 failed"
python3 "$SRC/scripts/peers/gen.py" dests6 16 64 "$T/v6/in6.pcap" || fail "gen.py dests6 failed"
{ printf 'dpdk: { args: %s }\napps:\n' "$EAL_ARGS"
  printf '  in: { type: port, device: "net_pcap0,rx_pcap=%s" }\n' "$T/v6/in6.pcap"
  printf '  o6: { type: port, device: "net_pcap1,tx_pcap=%s" }\n' "$T/v6/out6.pcap"
  printf '  r1:\n    type: router\n    routes: '; cat "$T/v6/routes.yaml"
  printf 'links:\n  - in.output -> r1.input\n  - r1.output0 -> o6.input\n'; } >"$T/v6.yaml"
run_2s log-v6 "$T/v6.yaml"
f4=$(app_counter "$T/log-v6" r1 forwarded) f6=$(app_counter "$T/log-v6" r1 forwarded6)
[[ $f4 == 64 && $f6 == 64 && $($PCAPTOOL count "$T/v6/out6.pcap") == 64 ]] ||
  fail "IPv6: forwarded $f4, forwarded6 $f6, $($PCAPTOOL count "$T/v6/out6.pcap") frames out; expected 64 each"
ok "IPv6: 64 frames forwarded, counted once in forwarded and once in forwarded6"

# v6_expect IN OUT SKIP: what the router makes of IN's frames (gen.py's
# routes all go to dst_mac 02:00:00:00:01:01 from 02:00:00:00:01:00): each
# frame but those numbered in SKIP (0-based, comma-separated; -1: none)
# with both MACs written and its hop limit less one, in order.
v6_expect() {
  python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
def frames(path):
    d = open(path, "rb").read()
    off, out = 24, []
    while off < len(d):
        n = struct.unpack_from("<IIII", d, off)[2]
        out.append(bytearray(d[off + 16:off + 16 + n]))
        off += 16 + n
    return out
src, got = frames(sys.argv[1]), frames(sys.argv[2])
skip = {int(x) for x in sys.argv[3].split(",")}
want = []
for i, f in enumerate(src):
    if i in skip:
        continue
    f[0:6] = bytes.fromhex("020000000101")
    f[6:12] = bytes.fromhex("020000000100")
    f[21] -= 1
    want.append(bytes(f))
bad = [i for i, (a, b) in enumerate(zip(want, got)) if a != bytes(b)]
if len(want) != len(got) or bad:
    sys.exit("%d frames out, %d expected; first that differs: %s" % (len(got), len(want), bad[:1]))
PY
}
# The IPv6 fast path (docs/router.md, Speed) took every one of them, and
# wrote each as the full path would.
fast6=$(app_counter "$T/log-v6" r1 fast)
[[ $fast6 == 64 ]] || fail "IPv6: fast $fast6, expected all 64 frames by the fast path"
why=$(v6_expect "$T/v6/in6.pcap" "$T/v6/out6.pcap" -1 2>&1) || fail "IPv6 fast path: $why"
ok "IPv6: all 64 by the fast path, both MACs and the hop limit written as expected"

# A frame of hop limit 1 at the 11th place, and the first of the capture to
# a destination no route covers (3fff::1): the fast path stops before each,
# the full path drops them (no interface to send an error from) and
# forwards the rest of their bursts, the next burst is fast again; every
# other frame leaves once, in order, written the same.
python3 - "$T/v6/in6.pcap" "$T/v6/mix6.pcap" <<'PY' || fail "cannot write the IPv6 capture with a hop limit of 1"
import struct, sys
d = open(sys.argv[1], "rb").read()
off, recs = 24, []
while off < len(d):
    n = struct.unpack_from("<IIII", d, off)[2]
    recs.append(bytearray(d[off:off + 16 + n]))
    off += 16 + n
recs[10][16 + 21] = 1
recs[0][16 + 38:16 + 54] = bytes.fromhex("3fff" + "00" * 13 + "01")
open(sys.argv[2], "wb").write(d[:24] + b"".join(bytes(r) for r in recs))
PY
sed -e "s|in6.pcap|mix6.pcap|" -e "s|out6.pcap|mix6-out.pcap|" "$T/v6.yaml" >"$T/mix6.yaml"
run_2s log-mix6 "$T/mix6.yaml"
f4=$(app_counter "$T/log-mix6" r1 forwarded) f6=$(app_counter "$T/log-mix6" r1 forwarded6)
fast6=$(app_counter "$T/log-mix6" r1 fast) nr=$(app_counter "$T/log-mix6" r1 no_route)
[[ $f4 == 62 && $f6 == 62 && $nr == 1 ]] ||
  fail "IPv6 with a hop limit of 1 and no route: forwarded $f4, forwarded6 $f6, no_route $nr, expected 62, 62, 1"
((fast6 >= 32 && fast6 < 62)) || fail "IPv6 with a hop limit of 1 and no route: fast $fast6, expected some but not all of 62"
why=$(v6_expect "$T/v6/mix6.pcap" "$T/v6/mix6-out.pcap" 0,10 2>&1) || fail "IPv6 with a hop limit of 1 and no route: $why"
ok "IPv6 with a hop limit of 1 and one to no route among them: 62 forwarded in order ($fast6 by the fast path), the two dropped"

# Configuration errors, found when the config is loaded (exit 2; `sluice
# check` finds them too): the shape of the list by the loader, the routes'
# values by the router's check.
expect_error() {   # STATUS MESSAGE ROUTES_YAML
  write_cfg "$T/e.yaml" "$T/e0.pcap" "$T/e1.pcap" "$3"
  expect_exit "$1" "$T/log-e" run "$T/e.yaml" --summary-json "$T/log-e.json" --duration 1
  expect_in "$T/log-e" "$2"
  ok "error: $2"
}
E="$T/e.yaml"
expect_error 2 "sluice: $E:9:9: app 'r1': routes[1]: prefix '10.1.0/24' is not A.B.C.D/N with N in 0..32" \
'    routes:
      - { prefix: 10.1.0.0/16, output: 0 }
      - { prefix: 10.1.0/24, output: 1 }'
expect_error 2 "sluice: $E:8:9: app 'r1': routes[0]: prefix '10.1.2.3/24' has host bits set (10.1.2.0/24 would keep them zero)" \
'    routes:
      - { prefix: 10.1.2.3/24, output: 1 }'
expect_error 2 "sluice: $E:9:9: app 'r1': routes[1]: output 3 is not connected (outputs 0..1 are)" \
'    routes:
      - { prefix: 10.1.0.0/16, output: 0 }
      - { prefix: 10.2.0.0/16, output: 3 }'
# `sluice check` finds it without starting DPDK
expect_exit 2 "$T/log-c" check "$E"
expect_in "$T/log-c" "sluice: $E:9:9: app 'r1': routes[1]: output 3 is not connected (outputs 0..1 are)"
ok "sluice check: the same error"
expect_error 2 "sluice: $E:10:9: app 'r1': routes[2]: prefix 10.1.0.0/16 repeats routes[0] ($E:8:9)" \
'    routes:
      - { prefix: 10.1.0.0/16, output: 0 }
      - { prefix: 10.2.0.0/16, output: 1 }
      - prefix: 10.1.0.0/16
        output: 1'
expect_error 2 "sluice: $E:8:9: app 'r1': routes[0]: via: address '10.1.0.256' is not an IPv4 address A.B.C.D" \
'    routes:
      - { prefix: 10.1.0.0/16, via: 10.1.0.256, output: 0 }'
expect_error 2 "sluice: $E:5:3: app 'r1': missing required parameter 'routes'" \
'    worker: main'
expect_error 2 "sluice: $E:7:13: app 'r1': parameter 'routes' must have at least 1 row, got 0" \
'    routes: []'
expect_error 2 "sluice: $E:8:9: app 'r1': routes[0]: missing required field 'prefix'" \
'    routes:
      - { output: 1 }'

# Interfaces (docs/router.md): their addresses, names and outputs, and the
# routes that depend on them, checked at load time.
IFACE_A='    interfaces:
      - { name: a, output: 0, address: 10.1.0.1/24 }'
DEFAULT='    routes:
      - { prefix: 0.0.0.0/0, via: 10.1.0.254 }'
expect_error 2 "sluice: $E:8:9: app 'r1': interface 'a': address '10.1.0.300/24' is not A.B.C.D/N: '10.1.0.300' is not an IPv4 address" \
"    interfaces:
      - { name: a, output: 0, address: 10.1.0.300/24 }
$DEFAULT"
expect_error 2 "sluice: $E:8:9: app 'r1': interface 'a': address '10.1.0.0/24' is not one host's (a network, broadcast, loopback or multicast address)" \
"    interfaces:
      - { name: a, output: 0, address: 10.1.0.0/24 }
$DEFAULT"
expect_error 2 "sluice: $E:8:9: app 'r1': interface 'a': address '10.1.0.1/33': prefix length must be 1..32" \
"    interfaces:
      - { name: a, output: 0, address: 10.1.0.1/33 }
$DEFAULT"
expect_error 2 "sluice: $E:9:9: app 'r1': interface 'b': address 10.1.0.1 is interface 'a''s too" \
"$IFACE_A
      - { name: b, output: 1, address: \"10.2.0.1/24, 10.1.0.1/16\" }
$DEFAULT"
expect_error 2 "sluice: $E:9:9: app 'r1': interface name 'a' repeats interfaces[0] ($E:8:9)" \
"$IFACE_A
      - { name: a, output: 1, address: 10.2.0.1/24 }
$DEFAULT"
expect_error 2 "sluice: $E:9:9: app 'r1': interface 'b': output 0 (untagged) is interface 'a''s already" \
"$IFACE_A
      - { name: b, output: 0, address: 10.2.0.1/24 }
$DEFAULT"
expect_error 2 "sluice: $E:8:9: app 'r1': interface 'a': output 5 is not connected" \
"    interfaces:
      - { name: a, output: 5, address: 10.1.0.1/24 }
$DEFAULT"
expect_error 2 "sluice: $E:8:58: app 'r1': interfaces[0]: field 'mtu' must be in 68..9000, got 60" \
"    interfaces:
      - { name: a, output: 0, address: 10.1.0.1/24, mtu: 60 }
$DEFAULT"
expect_error 2 "sluice: $E:10:9: app 'r1': routes[0]: via 10.9.0.254 is on no interface's prefix (give output)" \
"$IFACE_A
    routes:
      - { prefix: 0.0.0.0/0, via: 10.9.0.254 }"
expect_error 2 "sluice: $E:10:9: app 'r1': routes[0]: prefix 10.1.0.0/24 is interface 'a''s own (connected or local)" \
"$IFACE_A
    routes:
      - { prefix: 10.1.0.0/24, output: 1 }"

# IPv6: interface addresses and routes.
expect_error 2 "app 'r1': interface 'a': address '2001:db8::g/64' is not X:X::X/N: '2001:db8::g' is not an IPv6 address" \
"    interfaces:
      - { name: a, output: 0, address: \"10.1.0.1/24, 2001:db8::g/64\" }
$DEFAULT"
expect_error 2 "app 'r1': interface 'a': address 'fe80::1/64' is link-local: each interface with IPv6 has fe80::/64 from its MAC" \
"    interfaces:
      - { name: a, output: 0, address: fe80::1/64 }
$DEFAULT"
expect_error 2 "app 'r1': interface 'a': address 'ff02::1/64' is not one host's (unspecified, loopback or multicast)" \
"    interfaces:
      - { name: a, output: 0, address: ff02::1/64 }
$DEFAULT"
expect_error 2 "app 'r1': interface 'a': address '2001:db8::1/129': prefix length must be 1..128" \
"    interfaces:
      - { name: a, output: 0, address: 2001:db8::1/129 }
$DEFAULT"
expect_error 2 "app 'r1': interface 'a': mtu 1200 is below IPv6's 1280" \
"    interfaces:
      - { name: a, output: 0, mtu: 1200, address: \"10.1.0.1/24, 2001:db8::1/64\" }
$DEFAULT"
expect_error 2 "app 'r1': interface 'b': an IPv6 address is interface 'a''s too" \
"    interfaces:
      - { name: a, output: 0, address: 2001:db8::1/64 }
      - { name: b, output: 1, address: 2001:db8::1/64 }
$DEFAULT"
expect_error 2 "app 'r1': routes[1]: prefix '2001:db8:5::1/64' has host bits set" \
"$IFACE_A
    routes:
      - { prefix: 0.0.0.0/0, via: 10.1.0.254 }
      - { prefix: 2001:db8:5::1/64, output: 0 }"
expect_error 2 "app 'r1': routes[1]: via 2001:db8:9::1 is on no interface's prefix (give output)" \
"    interfaces:
      - { name: a, output: 0, address: \"10.1.0.1/24, 2001:db8:1::1/64\" }
    routes:
      - { prefix: 0.0.0.0/0, via: 10.1.0.254 }
      - { prefix: \"::/0\", via: 2001:db8:9::1 }"
expect_error 2 "app 'r1': routes[2]: prefix ::/0 repeats routes[0]" \
"    interfaces:
      - { name: a, output: 0, address: \"10.1.0.1/24, 2001:db8:1::1/64\" }
    routes:
      - { prefix: \"::/0\", via: 2001:db8:1::fe }
      - { prefix: 0.0.0.0/0, via: 10.1.0.254 }
      - { prefix: \"::/0\", via: 2001:db8:1::fd }"
expect_error 2 "app 'r1': routes[0]: prefix 2001:db8:1::/64 is interface 'a''s own (connected)" \
"    interfaces:
      - { name: a, output: 0, address: \"10.1.0.1/24, 2001:db8:1::1/64\" }
    routes:
      - { prefix: 2001:db8:1::/64, output: 0 }"

# vlan: 1..4094; two interfaces on one output need different vlans.
expect_error 2 "app 'r1': interface 'a': vlan 4095 is outside 1..4094" \
"    interfaces:
      - { name: a, output: 0, vlan: 4095, address: 10.1.0.1/24 }
$DEFAULT"
expect_error 2 "app 'r1': interface 'a': vlan 0 is outside 1..4094" \
"    interfaces:
      - { name: a, output: 0, vlan: 0, address: 10.1.0.1/24 }
$DEFAULT"
expect_error 2 "app 'r1': interface 'b': output 0 with that vlan is interface 'a''s already" \
"    interfaces:
      - { name: a, output: 0, vlan: 7, address: 10.1.0.1/24 }
      - { name: b, output: 0, vlan: 7, address: 10.2.0.1/24 }
$DEFAULT"
expect_error 2 "app 'r1': interface 'b': output 0 (untagged) is interface 'a''s already" \
"    interfaces:
      - { name: a, output: 0, address: 10.1.0.1/24 }
      - { name: b, output: 0, address: 10.2.0.1/24 }
$DEFAULT"

# local_output: a number of a connected output that is no interface's, and
# only with interfaces.
expect_error 2 "app 'r1': local_output: '1x' is neither none nor an output number" \
"$IFACE_A
    local_output: 1x
$DEFAULT"
expect_error 2 "app 'r1': local_output: output 5 is not connected" \
"$IFACE_A
    local_output: 5
$DEFAULT"
expect_error 2 "app 'r1': local_output: output 0 is interface 'a''s" \
"$IFACE_A
    local_output: 0
$DEFAULT"
expect_error 2 "app 'r1': local_output: needs interfaces (it takes what is addressed to them)" \
"    local_output: 1
    routes:
      - { prefix: 10.1.0.0/16, output: 0 }"

# An interface without mac whose output is not a port: named at start (exit 1).
cat >"$T/nomac.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, count: 1 }
  r1:
    type: router
    interfaces: [ { name: a, output: 0, address: 10.1.0.1/24 } ]
    routes: [ { prefix: 0.0.0.0/0, via: 10.1.0.254 } ]
  o0: { type: sink }
links: [ src.output -> r1.input, r1.output0 -> o0.input ]
YAML
expect_exit 1 "$T/log-nomac" run "$T/nomac.yaml" --duration 1
expect_in "$T/log-nomac" "app 'r1': interface 'a': no mac given and output0 leads to app 'o0' (sink), which has no MAC address of its own: give mac"
ok "error: an interface without mac on a sink's link, named"

# peer_tso: off on a device that is not a packet socket: refused at load.
cat >"$T/tso.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  nic: { type: port, device: net_null0, peer_tso: off }
  o: { type: sink }
links: [ nic.output -> o.input ]
YAML
expect_exit 2 "$T/log-tso" check "$T/tso.yaml"
expect_in "$T/log-tso" "app 'nic': peer_tso: off needs a net_af_packet device (a packet socket on a veth), not 'net_null0'"
ok "error: peer_tso: off on net_null0, named"
