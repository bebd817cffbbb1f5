#!/usr/bin/env bash
# Stopping is bounded.  A worker blocked in a port that reads a FIFO whose
# writer sends the pcap header and then nothing: after SIGINT the engine
# waits --stop-timeout seconds, names the worker, its app and step, and
# exits 1 without waiting for it; a second signal does the same at once.
# A signal during setup (a large pool, a port whose open blocks) ends the
# process with exit 1 and the step named, without running.  And --stats with
# many busy apps whose names overflow the stats line keeps running.
# Every wait is on an event (a log line, a file, /proc), with a long deadline.
. "$(dirname "$0")/lib.sh"

# wait_for WHAT CMD...: poll CMD until it succeeds (lib.sh's wait_event).
wait_for() { wait_event "$1" "" "$T/log" "${@:2}"; }
in_log() { grep -qE -- "$1" "$T/log"; }
# caught PID SIG: the process has a handler for signal SIG (SigCgt in /proc).
caught() {
  local mask
  mask=$(awk '/^SigCgt:/{print $2}' "/proc/$1/status" 2>/dev/null) || return 1
  [[ -n $mask ]] && (( (16#$mask >> ($2 - 1)) & 1 ))
}
# writer FIFO: send a pcap file header, then nothing, until $T/release exists.
writer() {
  python3 - "$1" "$T/release" "$T/opened" <<'PY' &
import os, struct, sys, time
with open(sys.argv[1], "wb") as f:
    open(sys.argv[3], "w").close()
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.flush()
    deadline = time.time() + 600
    while not os.path.exists(sys.argv[2]) and time.time() < deadline:
        time.sleep(0.05)
PY
  wpid=$!
}
release() { touch "$T/release"; wait "$wpid" 2>/dev/null; rm -f "$T/release" "$T/opened"; }
# However the test ends, no engine or writer outlives it.
trap 'kill -KILL ${pid:-} 2>/dev/null; touch "$T/release"; [[ -n ${wpid:-} ]] && wait "$wpid" 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# A blocked worker 'a' (it holds epoch reclamation up, so the engine names it
# once it is blocked: the event the test waits for before the signal).
mkfifo "$T/fifo"
cat >"$T/blocked.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  io:  { type: port, worker: a, device: "net_pcap0,rx_pcap=$T/fifo" }
  s0:  { type: sink, worker: a }
  src: { type: source, worker: b, dist: unique, rate: 100000 }
  fc:  { type: flowcache, worker: b, entries: 1024 }
  s1:  { type: sink, worker: b }
links:
  - io.output -> s0.input
  - src.output -> fc.input
  - fc.output -> s1.input
YAML

# 1. SIGINT, then the stop timeout (engine.stop_timeout in the config).
writer "$T/fifo"
sed 's/^workers:/engine: { stop_timeout: 1s }\nworkers:/' "$T/blocked.yaml" >"$T/blocked-1s.yaml"
: >"$T/log"   # empty now: a waiter must not find the last run's lines
rm -f "$T/log.json"
"$SLUICE" run "$T/blocked-1s.yaml" --summary-json "$T/log.json" >"$T/log" 2>&1 &
pid=$!
wait_for "the warning naming worker 'a'" in_log "^sluice: warning: worker 'a' has held up"
kill -INT "$pid"
wait "$pid"; rc=$?
release
[[ $rc -eq 1 ]] || { cat "$T/log" >&2; fail "exit $rc after a stop timeout, expected 1"; }
expect_in "$T/log" "sluice: SIGINT received, stopping"
# (worker b stops too unless the machine keeps it off its CPU for the whole
# second: 1 of 2 or, on a loaded machine, 2 of 2; a is named either way)
grep -qE "^sluice: error: [12] of 2 workers did not stop within 1\.0 s: " "$T/log" ||
  { cat "$T/log" >&2; fail "no line saying that worker 'a' did not stop within 1.0 s"; }
expect_in "$T/log" "worker 'a' (cpu "
expect_in "$T/log" "is in app 'io' (port), step pull, no breath ended since the stop; exiting without the clean-up that would wait for it"
grep -q "^pool: " "$T/log" && fail "the blocked run counted the pool (it must not wait)"
ok "SIGINT with worker 'a' blocked: named with app 'io' and step pull after the stop timeout, exit 1"

# 2. SIGTERM, then a second signal before a long stop timeout ends.
writer "$T/fifo"
: >"$T/log"   # empty now: a waiter must not find the last run's lines
rm -f "$T/log.json"
"$SLUICE" run "$T/blocked.yaml" --summary-json "$T/log.json" --stop-timeout 600 >"$T/log" 2>&1 &
pid=$!
wait_for "the warning naming worker 'a'" in_log "^sluice: warning: worker 'a' has held up"
kill -TERM "$pid"
wait_for "the stop message" in_log "^sluice: SIGTERM received, stopping"
kill -INT "$pid"
wait "$pid"; rc=$?
release
[[ $rc -eq 1 ]] || { cat "$T/log" >&2; fail "exit $rc after a second signal, expected 1"; }
# Worker 'b' may not have left its loop yet either (at once means at once).
grep -qE "^sluice: error: [12] of 2 workers did not stop \(a second signal came\) after " "$T/log" ||
  { cat "$T/log" >&2; fail "no second-signal report"; }
expect_in "$T/log" "worker 'a' (cpu "
expect_in "$T/log" "is in app 'io' (port), step pull"
ok "a second signal ends the stop at once (stop timeout 600 s), naming worker 'a'"

# 3. A signal during setup while a port's open blocks (a FIFO whose writer
# opened it and sends nothing): the step is named, nothing runs, exit 1.
# Whether the signal interrupts the read (the step fails of it) or comes just
# before it (the stop timeout then ends the step) depends on scheduling; both
# end the process and name the step.
python3 - "$T/fifo" "$T/release" "$T/opened" <<'PY' &
import os, sys, time
with open(sys.argv[1], "wb") as f:
    open(sys.argv[3], "w").close()
    deadline = time.time() + 600
    while not os.path.exists(sys.argv[2]) and time.time() < deadline:
        time.sleep(0.05)
PY
wpid=$!
: >"$T/log"   # empty now: a waiter must not find the last run's lines
rm -f "$T/log.json"
"$SLUICE" run "$T/blocked.yaml" --summary-json "$T/log.json" --stop-timeout 1 >"$T/log" 2>&1 &
pid=$!
wait_for "the port to open the FIFO" test -e "$T/opened"
wait_for "the signal handlers" caught "$pid" 2
kill -INT "$pid"
wait "$pid"; rc=$?
release
[[ $rc -eq 1 ]] || { cat "$T/log" >&2; fail "exit $rc after SIGINT during setup, expected 1"; }
expect_in "$T/log" "sluice: SIGINT received during setup, while initialising app 'io' (port)"
grep -qE "(stopped before running|setup did not stop within the stop timeout \(engine.stop_timeout, --stop-timeout\) after the signal; it is still initialising app 'io' \(port\))" "$T/log" ||
  { cat "$T/log" >&2; fail "no end-of-setup message"; }
grep -q "^sluice: running" "$T/log" && fail "it ran after a signal during setup"
ok "SIGINT while a port's open blocks in setup: step named, exit 1, nothing ran"

# 4. A signal while a large pool is created (one long step: seconds here; the
# port after it blocks for ever in its open, so the run can never start).
# The signal is sent once the pool's memory is being filled; on a machine
# fast enough to finish the pool first, it finds the port's open instead.
# Either way the step is named and nothing runs.
cat >"$T/pool.yaml" <<YAML
dpdk: { args: [--no-huge, -m, "1024", --no-pci, --file-prefix, $PREFIX, --log-level, "lib.eal:warning"] }
pool: { mbufs: 300000 }
workers:
  a: { core: auto }
apps:
  io:  { type: port, worker: a, device: "net_pcap0,rx_pcap=$T/fifo" }
  s0:  { type: sink, worker: a }
links:
  - io.output -> s0.input
YAML
pool_step="creating the pool of 300000 mbufs"
io_step="initialising app 'io' (port)"
rss() { awk '/^VmRSS:/{print $2}' "/proc/$pid/status" 2>/dev/null; }
pool_filling() { caught "$pid" 2 && (( $(rss) > 200000 )); }
for timeout in 1 600; do
  : >"$T/log"   # empty now: a waiter must not find the last run's lines
  rm -f "$T/log.json"
  "$SLUICE" run "$T/pool.yaml" --summary-json "$T/log.json" --stop-timeout "$timeout" >"$T/log" 2>&1 &
  pid=$!
  wait_for "the pool to fill" pool_filling
  kill -INT "$pid"
  if [[ $timeout == 600 ]]; then
    # 5. A second signal during setup ends it at once (the first may have
    # ended it already, if it interrupted a system call).
    wait_for "the setup stop message" in_log "received during setup"
    kill -TERM "$pid" 2>/dev/null
  fi
  wait "$pid"; rc=$?
  [[ $rc -eq 1 ]] || { cat "$T/log" >&2; fail "exit $rc after SIGINT in setup (stop timeout $timeout), expected 1"; }
  grep -qE "sluice: SIGINT received during setup, while ($pool_step|$io_step)" "$T/log" ||
    { cat "$T/log" >&2; fail "the step is not named"; }
  grep -qE "($pool_step|$io_step): stopped before running|it is still ($pool_step|$io_step); exiting now|a second signal during setup, while ($pool_step|$io_step)" "$T/log" ||
    { cat "$T/log" >&2; fail "no end-of-setup message naming the step"; }
  grep -q "^sluice: running" "$T/log" && fail "it ran after a signal during setup"
  how=$(grep -oE "stopped before running|it is still|a second signal during setup" "$T/log" | head -1)
  where=$(grep -q "while $pool_step" "$T/log" && echo "the pool" || echo "the port's open")
  ok "SIGINT while creating a large pool (stop timeout $timeout s): in $where, '$how', exit 1"
done

# 6. --stats with 60 busy apps (30 sources, 30 sinks) whose names fill far
# more than a stats line.
{
  echo "dpdk: { args: $EAL_ARGS }"
  echo "workers: { w: { core: auto } }"
  echo "apps:"
  for i in $(seq 10 39); do
    echo "  a_rather_long_source_name_number_$i: { type: source, worker: w, rate: 1000 }"
    echo "  a_rather_long_sink_name_number_$i: { type: sink, worker: w }"
  done
  echo "links:"
  for i in $(seq 10 39); do
    echo "  - a_rather_long_source_name_number_$i.output -> a_rather_long_sink_name_number_$i.input"
  done
} >"$T/many.yaml"
expect_exit 0 "$T/log" run "$T/many.yaml" --summary-json "$T/log.json" --duration 3 --stats 0.2
# Every line is under 1024 characters; a line lists an app only once its
# counters have moved, so the cut one is looked for among all the lines
# (the first may be written before the worker has run at all).
grep -qE '^\[ *[0-9.]+s\]' "$T/log" || { cat "$T/log" >&2; fail "no stats line"; }
long=$(grep -E '^\[ *[0-9.]+s\]' "$T/log" | awk 'length($0) >= 1024' | head -1)
[[ -z $long ]] || fail "stats line of ${#long} characters"
line=$(grep -m1 -E '^\[ *[0-9.]+s\].* \.\.\. drops ' "$T/log") ||
  { cat "$T/log" >&2; fail "no stats line is cut and says so"; }
pool_back "$T/log"
ok "--stats with 60 busy long-named apps: lines cut at ${#line} characters, ending in the drops"

# 7. --stop-timeout 0 is no limit, not no grace: a healthy run ended by
# --duration stops cleanly, with every mbuf back.
expect_exit 0 "$T/log" run "$T/many.yaml" --summary-json "$T/log.json" --duration 0.5 --stop-timeout 0 --quiet
pool_back "$T/log"
ok "--stop-timeout 0: a run ended by --duration stops cleanly"
