#!/usr/bin/env bash
# Configuration errors that `sluice check` must find, not only `sluice run`:
# addresses of the generators, a flowcache's route and shared table,
# durations, pool settings that cannot work, a flow table larger than the
# memory this process can get, and files that are not configurations.  For
# each: the message with FILE:LINE:COL, exit status 2 from both `check` and
# `run`, and nothing started (no DPDK, no workers).  Also: a 100000-app
# chain is accepted.
#
# Like test_cli.sh it reports every case that fails, then exits 1.
. "$(dirname "$0")/lib.sh"

errors=0
bad() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }

# WRAP: a command (array) to run sluice under, e.g. with a lower ulimit.
WRAP=()

# refused NAME WANT ARGS-AFTER-COMMAND...: `check` and `run` of the same
# arguments both exit 2 within 60 s with WANT (fixed text) on stderr, that
# one line only, and nothing on stdout; `run` starts nothing.
refused() {
  local name=$1 want=$2; shift 2
  local cmd rc
  for cmd in check run; do
    local out="$T/$name.$cmd.out" err="$T/$name.$cmd.err"
    if [[ $cmd == run ]]; then
      timeout 60 "${WRAP[@]}" "$SLUICE" run "$@" --duration 1 >"$out" 2>"$err"
    else
      timeout 60 "${WRAP[@]}" "$SLUICE" check "$@" >"$out" 2>"$err"
    fi
    rc=$?
    if [[ $rc -ne 2 ]]; then
      bad "$name: 'sluice $cmd $*' exited $rc, expected 2"
    elif ! grep -qxF -- "$want" "$err"; then
      bad "$name: 'sluice $cmd' did not print the line: $want"
    elif [[ $(wc -l <"$err") -ne 1 || -s "$out" ]]; then
      bad "$name: 'sluice $cmd' printed more than the error (something started?)"
    else
      continue
    fi
    sed 's/^/  | /' "$err" "$out" | head -n 20 >&2
  done
  [[ $errors -eq 0 ]] && ok "$name: $want"
}

# case_yaml NAME APPS-AND-LINKS: write $T/NAME.yaml (the EAL on no hugepages).
case_yaml() {
  printf 'dpdk: { args: %s }\n%s\n' "$EAL_ARGS" "$2" >"$T/$1.yaml"
}

# --- the generators' addresses (line 3: the source app)
gen() {   # gen NAME TYPE PARAMS SINK-TYPE SINK-PORT
  case_yaml "$1" "apps:
  src: { type: $2, count: 10, $3 }
  snk: { type: $4 }
links: [src.$5 -> snk.$6]"
}
for v in 256.1.1.1 1.2.3.4.5 hello; do
  for p in src_ip dst_ip; do
    gen "source-$p-$v" source "$p: $v" sink output input
    F="$T/source-$p-$v.yaml"
    refused "source-$p-$v" \
      "sluice: $F:3:3: app 'src': parameter '$p' must be an IPv4 address like 198.18.0.1, got '$v'" "$F"
    gen "probe-$p-$v" probe_source "$p: $v" probe_sink output0 input0
    F="$T/probe-$p-$v.yaml"
    refused "probe_source-$p-$v" \
      "sluice: $F:3:3: app 'src': parameter '$p' must be an IPv4 address like 198.18.0.1, got '$v'" "$F"
  done
done

# --- a duration above its type's bound: the source's catch_up is at most 1s
gen "source-catch-up" source "rate: 1000, catch_up: 1001ms" sink output input
F="$T/source-catch-up.yaml"
refused "source-catch-up" \
  "sluice: $F:3:57: app 'src': parameter 'catch_up' must be <= 1000ms, got '1001ms'" "$F"

# --- a flowcache's route and shared table (source -> tee -> f1, f2 -> sinks)
two_caches() {   # two_caches NAME F1-PARAMS F2-PARAMS
  case_yaml "$1" "apps:
  src: { type: source, count: 10 }
  t:   { type: tee }
  f1:  { type: flowcache, $2 }
  f2:  { type: flowcache, $3 }
  s1:  { type: sink }
  s2:  { type: sink }
  r1:  { type: router, routes: [ { prefix: 0.0.0.0/0, output: 0 } ] }
  s3:  { type: sink }
links: [src.output -> t.input, t.output0 -> f1.input, t.output1 -> f2.input,
        t.output2 -> r1.input, f1.output -> s1.input, f2.output -> s2.input,
        r1.output0 -> s3.input]"
}
two_caches route-nowhere "route: nowhere" "entries: 1024"
F="$T/route-nowhere.yaml"
refused route-nowhere "sluice: $F:5:3: app 'f1': parameter 'route': no router app named 'nowhere'" "$F"
two_caches route-sink "entries: 1024" "route: s1"
F="$T/route-sink.yaml"
refused route-sink "sluice: $F:6:3: app 'f2': parameter 'route': app 's1' is a sink, not a router" "$F"
AGREE="apps sharing a table must agree on entries, ids, idle_timeout, active_timeout, expiry_cap, scan, expiry and route"
two_caches share-entries "table: x, entries: 1024" "table: x, entries: 2048"
F="$T/share-entries.yaml"
refused share-entries "sluice: $F:6:3: app 'f2': table 'x' is shared with app 'f1', which sets a different 'entries'; $AGREE" "$F"
two_caches share-route "table: x, route: r1" "table: x"
F="$T/share-route.yaml"
refused share-route "sluice: $F:6:3: app 'f2': table 'x' is shared with app 'f1', which sets a different 'route'; $AGREE" "$F"
two_caches share-private "entries: 1024" "table: f1"
F="$T/share-private.yaml"
refused share-private "sluice: $F:6:3: app 'f2': table 'f1' is the private table of app 'f1'; to share a table, every app that uses it names it with 'table:'" "$F"
long=$(printf 't%.0s' {1..70})
two_caches table-long "table: $long" "entries: 1024"
F="$T/table-long.yaml"
refused table-long "sluice: $F:5:3: app 'f1': parameter 'table': name '$long' is too long" "$F"

# --- durations (line 4, the value)
one_cache() {   # one_cache NAME PARAMS
  case_yaml "$1" "apps:
  src: { type: source, count: 10 }
  f:   { type: flowcache, $2 }
  snk: { type: sink }
links: [src.output -> f.input, f.output -> snk.input]"
}
for v in nan inf -1s 1e400 0x10s; do
  one_cache "idle-$v" "idle_timeout: $v"
  F="$T/idle-$v.yaml"
  refused "idle_timeout-$v" \
    "sluice: $F:4:41: app 'f': parameter 'idle_timeout' must be a duration like 30s or 250ms, got '$v'" "$F"
done
for v in 0.4ns 1e-20; do
  one_cache "active-$v" "active_timeout: $v"
  F="$T/active-$v.yaml"
  refused "active_timeout-$v" \
    "sluice: $F:4:43: app 'f': parameter 'active_timeout' must be 0 (never) or at least 1ns, got '$v'" "$F"
done

# --- a flow table larger than the memory this process can get: under
# ulimit -v 4 GiB the documented maximum (about 50 GiB) is refused at load,
# at once, by `check` and `run` alike.
# (AddressSanitizer reserves terabytes of shadow address space at start, so
# a build with it cannot run under ulimit -v: that build skips this case.)
one_cache entries-max "entries: 268435456"
F="$T/entries-max.yaml"
if [[ $(ldd "$SLUICE" 2>/dev/null) == *libasan* ]]; then
  echo "entries-max: skipped in an AddressSanitizer build (no ulimit -v under it)"
else
  WRAP=(bash -c 'ulimit -v 4194304 && exec "$@"' ulimit)
  refused entries-max "sluice: $F:4:3: app 'f': a flow table of 268435456 entries (335544320 ids) needs 49.3 GiB of memory, but this process can get 4.0 GiB (bound by the address space limit, ulimit -v); lower 'entries' or 'ids'" "$F"
  WRAP=()
fi

# --- pool settings that cannot work (line 2: the pool)
pool() {   # pool NAME POOL-SETTINGS
  printf 'dpdk: { args: %s }\npool: { %s }\napps:\n  src: { type: source, count: 10 }\n  snk: { type: sink }\nlinks: [src.output -> snk.input]\n' \
    "$EAL_ARGS" "$2" >"$T/$1.yaml"
}
pool pool-chunk "mbufs: 1023, chunk: 2048"
F="$T/pool-chunk.yaml"
refused pool-chunk "sluice: $F:2:29: pool.chunk (2048) must be at most pool.mbufs (1023): buffers move between workers in whole chunks, and the pool could make none" "$F"
pool pool-high "mbufs: 2047, high: 100000"
F="$T/pool-high.yaml"
refused pool-high "sluice: $F:2:28: pool.high (100000) must be at most pool.mbufs (2047): one worker's freelist could keep every buffer from the others" "$F"

# --- a pool the workers' freelists can hold whole: allowed, with a warning
# that gives its place, from check, plan and run alike
printf 'dpdk: { args: %s }\npool: { mbufs: 4095, chunk: 2048 }\nworkers: { a: auto, b: auto }\napps:\n  src: { type: source, worker: a, count: 10 }\n  snk: { type: sink, worker: b }\nlinks: [src.output -> snk.input]\n' \
  "$EAL_ARGS" >"$T/pool-warn.yaml"
want="sluice: warning: $T/pool-warn.yaml:2:29: pool: 2 workers x pool.chunk 2048 = 4096 buffers, more than pool.mbufs (4095): buffers move between workers in whole chunks, so a worker can find the pool empty while the others hold every buffer; raise pool.mbufs or lower pool.chunk"
for cmd in check plan run; do
  extra=(); [[ $cmd == run ]] && extra=(--duration 0.1)
  timeout 60 "$SLUICE" $cmd "$T/pool-warn.yaml" "${extra[@]}" >"$T/pool-warn.out" 2>"$T/pool-warn.err"
  rc=$?
  if [[ $rc -ne 0 ]]; then
    bad "pool-warn: 'sluice $cmd' exited $rc, expected 0"; sed 's/^/  | /' "$T/pool-warn.err" >&2
  elif ! grep -qxF -- "$want" "$T/pool-warn.err"; then
    bad "pool-warn: 'sluice $cmd' did not print the line: $want"; sed 's/^/  | /' "$T/pool-warn.err" >&2
  fi
done
[[ $errors -eq 0 ]] && ok "pool-warn: check, plan and run warn with the pool's place"

# --- files that are not configurations: refused at once, nothing read
refused dev-zero "sluice: /dev/zero: cannot read: it is a character device, not a regular file" /dev/zero
mkfifo "$T/fifo"
refused fifo "sluice: $T/fifo: cannot read: it is a FIFO, not a regular file" "$T/fifo"
# a pseudo-file reports 0 bytes: read to its end, then checked as any text
refused proc-status "sluice: /proc/self/status:1:1: unknown top-level key 'Name' (known: dpdk, pool, engine, workers, apps, links, topology)" /proc/self/status
truncate -s $(( (16 << 20) + 1 )) "$T/huge.yaml"
refused too-large "sluice: $T/huge.yaml: too large: 16777217 bytes, more than the 16 MiB a configuration may have" "$T/huge.yaml"

# --- the bridge's members, VLANs and static entries
# bridge_case NAME MEMBERS [STATIC] [PORTS]: a bridge of PORTS (default 2)
# sources and sinks on members MEMBERS (a flow list) and STATIC (one).
bridge_case() {
  local name=$1 members=$2 static=${3:-[]} ports=${4:-2} apps="" links="" i
  for ((i = 0; i < ports; i++)); do
    apps+="  s$i: { type: source }
  k$i: { type: sink }
"
    links+="  - s$i.output -> br.input$i
  - br.output$i -> k$i.input
"
  done
  case_yaml "$name" "apps:
${apps}  br:
    type: bridge
    members: $members
    static: $static
links:
$links"
}
bridge_case br-twice "[ { port: 0 }, { port: 0 } ]"
F=$T/br-twice.yaml
refused br-twice "sluice: $F:9:29: app 'br': port 0 is a member twice (rows 1 and 2)" "$F"
bridge_case br-unconnected "[ { port: 0 }, { port: 1 }, { port: 2 } ]"
F=$T/br-unconnected.yaml
refused br-unconnected "sluice: $F:9:42: app 'br': member port 2 is not connected: link both input2 and output2" "$F"
bridge_case br-no-member "[ { port: 0 }, { port: 1 } ]" "[]" 3
F=$T/br-no-member.yaml
refused br-no-member "sluice: $F:9:3: app 'br': input2 is connected but no member has port 2" "$F"
bridge_case br-vlan-range "[ { port: 0, vlan: 4095 }, { port: 1 } ]"
F=$T/br-vlan-range.yaml
refused br-vlan-range "sluice: $F:9:33: app 'br': members[0]: field 'vlan' must be in 1..4094, got 4095" "$F"
bridge_case br-vlans-bad "[ { port: 0 }, { port: 1, mode: trunk, vlans: \"10,5000\" } ]"
F=$T/br-vlans-bad.yaml
refused br-vlans-bad "sluice: $F:9:29: app 'br': member port 1: VLAN ids must be 1..4094 (a range low-high), got '10,5000'" "$F"
bridge_case br-vlans-syntax "[ { port: 0 }, { port: 1, mode: trunk, vlans: \"10;20\" } ]"
F=$T/br-vlans-syntax.yaml
refused br-vlans-syntax "sluice: $F:9:29: app 'br': member port 1: vlans must be VLAN ids and ranges separated by commas (\"10,20,30-39\"), got '10;20'" "$F"
bridge_case br-native "[ { port: 0 }, { port: 1, mode: trunk, vlans: \"10,20\", native: 10 } ]"
F=$T/br-native.yaml
refused br-native "sluice: $F:9:29: app 'br': trunk port 1 has VLAN 10 both native (untagged) and in vlans (tagged)" "$F"
bridge_case br-trunk-empty "[ { port: 0 }, { port: 1, mode: trunk } ]"
F=$T/br-trunk-empty.yaml
refused br-trunk-empty "sluice: $F:9:29: app 'br': trunk port 1 carries no VLAN: give vlans, native or both" "$F"
bridge_case br-access-vlans "[ { port: 0, vlans: \"10\" }, { port: 1 } ]"
F=$T/br-access-vlans.yaml
refused br-access-vlans "sluice: $F:9:16: app 'br': member port 0 is an access port: vlans and native are a trunk's (mode: trunk)" "$F"
bridge_case br-static-group "[ { port: 0 }, { port: 1 } ]" "[ { mac: \"01:00:5e:00:00:01\", port: 1 } ]"
F=$T/br-static-group.yaml
refused br-static-group "sluice: $F:10:15: app 'br': static MAC 01:00:5e:00:00:01 is not a unicast address" "$F"
bridge_case br-static-port "[ { port: 0 }, { port: 1 } ]" "[ { mac: \"02:00:00:00:00:01\", port: 5 } ]"
F=$T/br-static-port.yaml
refused br-static-port "sluice: $F:10:15: app 'br': static entry on port 5, which is no member" "$F"
bridge_case br-static-vlan "[ { port: 0 }, { port: 1 } ]" "[ { mac: \"02:00:00:00:00:01\", vlan: 20, port: 1 } ]"
F=$T/br-static-vlan.yaml
refused br-static-vlan "sluice: $F:10:15: app 'br': static entry on VLAN 20, which member port 1 does not carry" "$F"

bridge_case br-trunk-vlan "[ { port: 0 }, { port: 1, mode: trunk, vlan: 10 } ]"
F=$T/br-trunk-vlan.yaml
refused br-trunk-vlan "sluice: $F:9:29: app 'br': member port 1 is a trunk: its VLANs are vlans (and native), not vlan" "$F"
bridge_case br-static-twice "[ { port: 0 }, { port: 1 } ]" "[ { mac: \"02:00:00:00:00:01\", port: 1 }, { mac: \"02:00:00:00:00:01\", port: 0 } ]"
F=$T/br-static-twice.yaml
refused br-static-twice "sluice: $F:10:54: app 'br': a second static entry for 02:00:00:00:00:01 on VLAN 1" "$F"
# a duration's lower bound (the bridge's aging: at least 1ms), then
# member_limit against entries, and more static entries than entries
case_yaml br-aging "apps:
  s0: { type: source }
  k0: { type: sink }
  br: { type: bridge, aging: 500us, members: [ { port: 0 } ] }
links:
  - s0.output -> br.input0
  - br.output0 -> k0.input"
F=$T/br-aging.yaml
refused br-aging "sluice: $F:5:30: app 'br': parameter 'aging' must be >= 1ms, got '500us'" "$F"
sed 's/aging: 500us/entries: 4, member_limit: 5/' "$F" >"$T/br-limit.yaml"
F=$T/br-limit.yaml
refused br-limit "sluice: $F:5:3: app 'br': member_limit 5 is above entries 4" "$F"
sed 's/aging: 500us/entries: 1, static: [ { mac: "02:00:00:00:00:01" , port: 0 }, { mac: "02:00:00:00:00:02", port: 0 } ]/' \
  "$T/br-aging.yaml" >"$T/br-statics.yaml"
F=$T/br-statics.yaml
refused br-statics "sluice: $F:5:3: app 'br': 2 static entries do not fit in entries 1" "$F"

# --- a chain of 100000 l2fwd apps is accepted by check
python3 - "$T/chain.yaml" <<'PY'
import sys
n = 100000
with open(sys.argv[1], "w") as f:
    f.write("apps:\n  src: { type: source, count: 1 }\n")
    f.writelines("  f%d: { type: l2fwd }\n" % i for i in range(n))
    f.write("  snk: { type: sink }\nlinks:\n  - src.output -> f0.input\n")
    f.writelines("  - f%d.output -> f%d.input\n" % (i, i + 1) for i in range(n - 1))
    f.write("  - f%d.output -> snk.input\n" % (n - 1))
PY
if timeout 120 "$SLUICE" check "$T/chain.yaml" >"$T/chain.out" 2>"$T/chain.err" &&
   grep -q "^$T/chain.yaml: ok: 100002 apps, 100001 links, 1 workers" "$T/chain.out" &&
   grep -q "^push order: src f0 f1 f2 .* f99998 f99999 snk$" "$T/chain.out"; then
  ok "a chain of 100000 l2fwd apps is accepted, in chain order"
else
  bad "the 100000-app chain"
  head -c 2000 "$T/chain.err" "$T/chain.out" >&2
fi

[[ $errors -eq 0 ]] || fail "$errors case(s) failed"
ok "every configuration error is found by check and run, with its place"
