#!/usr/bin/env bash
# Configuration errors of worker groups and ports served by several workers:
# each exits 2 with a message that starts with FILE:LINE:COL of the object at
# fault and names it, and nothing runs.
#   1. a group with no cores (`cores: []`): `check` and `run`;
#   2. two port apps on one device, one on a group and one on a single worker
#      (either order): `check` and `run`;
#   3. more queues than the device has: net_pcap with one rx_pcap file has one
#      rx queue; on a group of two it would need two.  Found when the device is
#      opened (`run` only), still exit 2, with the port's FILE:LINE:COL, the
#      app, the device, its limit and the number of queues the group needs.
# Like test_config_errors.sh it reports every case that fails, then exits 1.
. "$(dirname "$0")/lib.sh"

errors=0
bad() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }

# refused NAME CMD FILE WANT-ERE: `sluice CMD FILE` (run: with a 60 s
# backstop) exits 2 within 60 s, prints a stderr line matching WANT-ERE, does
# not report running, and writes no JSON summary.
refused() {
  local name=$1 cmd=$2 file=$3 want=$4
  local out="$T/$name.$cmd.out" err="$T/$name.$cmd.err" rc
  rm -f "$out.json"
  if [[ $cmd == run ]]; then
    timeout 60 "$SLUICE" run "$file" --duration 60 --summary-json "$out.json" >"$out" 2>"$err"
  else
    timeout 60 "$SLUICE" "$cmd" "$file" >"$out" 2>"$err"
  fi
  rc=$?
  if [[ $rc -ne 2 ]]; then
    bad "$name: 'sluice $cmd' exited $rc, expected 2"
  elif ! grep -qE -- "$want" "$err"; then
    bad "$name: 'sluice $cmd' printed no line matching: $want"
  elif grep -q '^sluice: running' "$out" "$err" || [[ -e $out.json ]]; then
    bad "$name: 'sluice $cmd' ran the pipeline"
  else
    ok "$name ($cmd): $(grep -E -- "$want" "$err" | head -n 1)"
    return 0
  fi
  sed 's/^/  | /' "$err" "$out" | head -n 20 >&2
}

# ere TEXT: TEXT as an extended regular expression matching itself.
ere() { printf '%s' "$1" | sed -e 's/[][\.*^$?+(){}|]/\\&/g'; }

# line_of FILE TEXT: the number of FILE's first line holding TEXT.
line_of() { grep -nF -- "$2" "$1" | head -n 1 | cut -d: -f1; }

# --- 1. a group with no cores
F=$T/nocores.yaml
cat >"$F" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  ctl: { core: auto }
  fwd: { cores: [] }
apps:
  nic: { type: port, worker: fwd, device: "net_null0" }
  k:   { type: sink, worker: ctl }
links:
  - nic.output -> k.input
YAML
L=$(line_of "$F" "fwd: { cores: [] }")
for cmd in check run; do
  refused nocores "$cmd" "$F" \
    "^(sluice: )?$(ere "$F"):$L:[0-9]+: $(ere "worker 'fwd': cores is empty; a group needs at least one core")"
done

# --- 2. one device, two ports: on a group and on a single worker
# twice NAME WORKER-A WORKER-B: ports a (on WORKER-A) and b (on WORKER-B)
# both on net_null0; b, the second, is refused, naming a and its line.
twice() {
  local name=$1 f="$T/$1.yaml" la lb cmd
  cat >"$f" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  solo: { core: auto }
  fwd:  { count: 2 }
apps:
  a: { type: port, worker: $2, device: "net_null0" }
  b: { type: port, worker: $3, device: "net_null0" }
  ka: { type: sink, worker: solo }
  kb: { type: sink, worker: solo }
links:
  - a.output -> ka.input
  - b.output -> kb.input
YAML
  la=$(line_of "$f" "  a: {") lb=$(line_of "$f" "  b: {")
  for cmd in check run; do
    refused "$name" "$cmd" "$f" \
      "^(sluice: )?$(ere "$f"):$lb:[0-9]+: $(ere "app 'b': device 'net_null0' is already served by app 'a' (line $la)")"
  done
}
twice twice fwd solo
# The other order: the single worker's port first.
twice twice-group solo fwd

# --- 3. more queues than the device has
$PCAPTOOL gen "$T/in.pcap" 10 1 || fail "cannot make $T/in.pcap"
F=$T/queues.yaml
cat >"$F" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  fwd: { count: 2 }
apps:
  nic: { type: port, worker: fwd, device: "net_pcap0,rx_pcap=$T/in.pcap" }
  k:   { type: sink, worker: fwd }
links:
  - nic.output -> k.input
YAML
L=$(line_of "$F" "  nic: {")
# `check` opens no device: the configuration itself is valid.
expect_exit 0 "$T/queues.check" check "$F"
refused queues run "$F" \
  "^(sluice: )?(error: )?$(ere "$F"):$L:[0-9]+: app 'nic': device '[^']*net_pcap0[^']*' has at most 1 rx queues; group 'fwd' needs 2 [(]2 members x rx_queues 1[)]$"
# The same device on a group of one: it runs (the error is the group's size).
sed -e 's/fwd: { count: 2 }/fwd: { count: 1 }/' "$F" >"$T/queues1.yaml"
expect_exit 0 "$T/queues1.log" run "$T/queues1.yaml" --duration 0.5 --summary-json "$T/queues1.log.json"
pool_back "$T/queues1.log"
ok "the same port on a group of one runs"

[[ $errors -eq 0 ]] || fail "$errors case(s) failed"
exit 0
