#!/usr/bin/env bash
# 100 reloads in a row under traffic (docs/control.md): a source -> l2fwd ->
# sink pipeline whose source rate alternates between two values; every
# reload applies (its one action named), the engine counts 100, and at stop
# every mbuf is back.  (test_reload has the refusals and the protocol; this
# repetition of one path is left out of the ASan run, which covers the path
# once there.)
. "$(dirname "$0")/lib.sh"
as_root_engine

swap_pipeline 50000 >"$T/r1.yaml"
swap_pipeline 70000 >"$T/r2.yaml"
start_engine "$T/r1.yaml" "$T/run.log" 3
sock=/var/run/dpdk/$PREFIX/sluice_control
wait_event "the control socket" "$pid" "$T/run.log" test -S "$sock"

for i in $(seq 100); do
  f=$T/r$((i % 2 + 1)).yaml
  "$SLUICE" reload --prefix "$PREFIX" "$f" >"$T/loop" 2>&1 || { cat "$T/loop" >&2; fail "reload $i of 100 ($f)"; }
  want="rate 50000 -> 70000"
  ((i % 2 == 0)) && want="rate 70000 -> 50000"
  expect_in "$T/loop" "reconfigure app 'src': $want"
done
python3 - "$sock" <<'PY' || fail "the reload count after the loop"
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.settimeout(30); s.connect(sys.argv[1])
s.send(b'{"verb": "info"}'); r = json.loads(s.recv(65536))
assert r["reloads"] == 100, r
PY
ok "100 reloads in a row, each applying its rate change"

interrupt "$pid" "$T/run.log"
rc=$?
pid=
((rc == 0)) || { cat "$T/run.log" >&2; fail "the run exited $rc"; }
pool_back "$T/run.log" || fail "mbufs missing after the reloads"
[[ $(summary_get "$T/run.log.json" reload applied) == 100 ]] ||
  fail "the summary's reload.applied is $(summary_get "$T/run.log.json" reload applied), not 100"
ok "every mbuf back after 100 reloads; reload.applied 100"
