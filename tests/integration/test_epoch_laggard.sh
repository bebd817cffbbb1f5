#!/usr/bin/env bash
# A worker that blocks while online holds epoch reclamation up, and the
# engine names it: worker 'a' reads a pcap from a FIFO whose writer sends the
# file header and then nothing, so its first breath blocks in the read;
# worker 'b' meanwhile ends flows (every packet a new flow in a small table)
# and cannot free them.  The engine must warn, naming 'a', and when the stall
# ends say so with its whole length; the flowcache runs out of ids instead of
# freeing early; once the writer closes the FIFO, 'a' breathes again and
# everything is freed and every mbuf comes back.
#
# No step depends on how fast the machine is: the writer is released only
# after the engine has named 'a' twice (its warnings come at most once a
# second, so 'a' has been blocked for over a second and 'b' has had that long
# to use up the ids), the engine is stopped with SIGINT only after the
# stall-ended line, and the stall the engine reports is checked against the
# time this script itself kept the writer blocked.
. "$(dirname "$0")/lib.sh"

mkfifo "$T/fifo"
python3 - "$T/fifo" "$T/release" <<'PY' &
import os, struct, sys, time
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.flush()
    deadline = time.time() + 600
    while not os.path.exists(sys.argv[2]) and time.time() < deadline:
        time.sleep(0.01)
PY
writer=$!
# However the test ends, the writer is released (and does not outlive it).
trap 'touch "$T/release"; wait "$writer" 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT
cat >"$T/l.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  io:  { type: port, worker: a, device: "net_pcap0,rx_pcap=$T/fifo" }
  s0:  { type: sink, worker: a }
  src: { type: source, worker: b, dist: unique, rate: 200000 }
  fc:  { type: flowcache, worker: b, entries: 1024 }
  s1:  { type: sink, worker: b }
links:
  - io.output -> s0.input
  - src.output -> fc.input
  - fc.output -> s1.input
YAML
: >"$T/log"   # empty now: a waiter must not find the last run's lines
rm -f "$T/log.json"
"$SLUICE" run "$T/l.yaml" --summary-json "$T/log.json" >"$T/log" 2>&1 &
pid=$!

warned="^sluice: warning: worker 'a' has held up epoch reclamation for [0-9.]+ ms"
# "for at least N ms" when 'a' stalled again before the engine looked: a
# lower bound, which the check below treats the same way.
ended="^sluice: worker 'a' held up epoch reclamation for (at least )?[0-9.]+ ms \(ended\)$"
# wait_lines PATTERN N: until the log has N lines matching PATTERN.
wait_lines() { wait_event "$2 line(s) like: $1" "$pid" "$T/log" log_lines "$T/log" "$1" "$2"; }
now_ms() { python3 -c 'import time; print(int(time.monotonic() * 1000))'; }

wait_lines "$warned" 1
t_first=$(now_ms)          # 'a' is blocked from before this moment ...
wait_lines "$warned" 2
# Worker b has run out of flow ids while a was held (asked of the engine:
# on a loaded machine b may not have run enough by the second warning).
ids_out() { snap && (($(summary_get "$T/s.json" apps fc counters no_id) > 0)); }
wait_event "flow ids to run out while 'a' is held" "$pid" "$T/log" ids_out
t_release=$(now_ms)        # ... until after this one
touch "$T/release"
wait "$writer"
held=$((t_release - t_first))
wait_lines "$ended" 1
interrupt "$pid" "$T/log"; rc=$?
[[ $rc -eq 0 ]] || { cat "$T/log" >&2; fail "exit $rc, expected 0"; }
pool_back "$T/log"

ms=$(grep -m1 -E "$ended" "$T/log" | sed -E 's/.* for (at least )?([0-9.]+) ms.*/\2/')
python3 -c "import sys; sys.exit(0 if float('$ms') >= $held else 1)" ||
  { cat "$T/log" >&2; fail "the stall reported as ended lasted $ms ms; this test kept worker 'a' blocked for at least $held ms"; }
fc=$(summary_get "$T/log.json" apps fc counters)
num() { app_counter "$T/log" fc "$1"; }
(( $(num no_id) > 0 )) || fail "the stall did not exhaust the ids: $fc"
[[ $(num inserted) == "$(num freed)" ]] || fail "inserted $(num inserted) != freed $(num freed)"
ok "worker 'a' named while blocked, its stall reported as $ms ms when it ended (the test held it >= $held ms); flows waited for it, none freed early, all freed after"
