#!/usr/bin/env bash
# engine.idle_sleep and its default from SLUICE_IDLE_SLEEP (docs/config.md):
# idle workers nap and count it, every packet still arrives, an idle engine
# takes a fraction of its CPUs; the file's value wins over the environment's;
# bad values are refused naming the key or the variable.
. "$(dirname "$0")/lib.sh"

# conf FILE ENGINE_KEYS: a source paced at 200 packets/s (idle most of the
# time) on one worker, a sink on the other, over an interlink; 400 packets.
conf() {
  cat >"$1" <<EOF
dpdk: { args: $EAL_ARGS }
engine: { $2 }
workers: { a: { core: auto }, b: { core: auto } }
apps:
  src: { type: source, worker: a, rate: 200, count: 400 }
  out: { type: sink, worker: b }
links: [ src.output -> out.input ]
EOF
}

# worker_val LOG WORKER KEY
worker_val() { summary_get "$(summary_of "$1")" workers "$2" "$3"; }

# cpu_ticks PID: user + system clock ticks of the process so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# --- 1. a file's idle_sleep: both workers nap, nothing is lost.
conf "$T/nap.yaml" "idle_sleep: 1ms"
unset SLUICE_IDLE_SLEEP
"$SLUICE" run "$T/nap.yaml" --summary-json "$T/nap.log.json" >"$T/nap.log" 2>&1 &
pid=$!
# Wait for the source's last packet (a counter), then measure the idle
# engine's CPU over two seconds of it doing nothing.
sent() { [[ $("$SLUICE" stats --prefix "$PREFIX" --json 2>/dev/null |
             python3 -c 'import json,sys; print(json.load(sys.stdin)["apps"]["out"]["counters"]["out_packets"])' 2>/dev/null) == 400 ]]; }
WAIT_EVENT_POLL=0.2 wait_event "the 400 packets at the sink" "$pid" "$T/nap.log" sent
# The span: until worker b has napped 1000 more times (a counter, about a
# second at 1 ms a nap; longer on a loaded machine, which only lowers the
# CPU share measured).
naps_b() { "$SLUICE" stats --prefix "$PREFIX" --json 2>/dev/null |
           python3 -c 'import json,sys; print(json.load(sys.stdin)["workers"]["b"]["naps"])' 2>/dev/null; }
n0=$(naps_b)
[[ $n0 =~ ^[0-9]+$ ]] || fail "no naps count for worker b in the snapshot ('$n0')"
t0=$(cpu_ticks "$pid") s0=$EPOCHREALTIME
more_naps() { local n; n=$(naps_b); [[ $n =~ ^[0-9]+$ ]] && ((n >= n0 + 1000)); }
WAIT_EVENT_POLL=0.2 wait_event "worker b's next 1000 naps" "$pid" "$T/nap.log" more_naps
t1=$(cpu_ticks "$pid") s1=$EPOCHREALTIME
interrupt "$pid" "$T/nap.log" || { cat "$T/nap.log"; fail "the napping run failed"; }
hz=$(getconf CLK_TCK)
# Two workers polling without pause would take two CPUs (or the one CPU
# they share) for the whole span; napping ones a few percent.  A quarter
# of one CPU is far from both.
python3 - "$t0" "$t1" "$s0" "$s1" "$hz" <<'PY' || fail "an idle napping engine took too much CPU"
import sys
t0, t1, s0, s1, hz = map(float, sys.argv[1:])
cpu, wall = (t1 - t0) / hz, s1 - s0
print("idle engine: %.2f CPU-seconds over %.2f s" % (cpu, wall))
assert cpu < 0.25 * wall, (cpu, wall)
PY
for w in a b; do
  n=$(worker_val "$T/nap.log" "$w" naps)
  [[ $n =~ ^[0-9]+$ && $n -gt 0 ]] || { cat "$T/nap.log"; fail "worker $w: naps '$n', expected a count > 0"; }
done
[[ $(app_counter "$T/nap.log" out out_packets) == 400 ]] || fail "out_packets is not 400"
pool_back "$T/nap.log"
grep -qE "^  worker .* naps$" "$T/nap.log" || { cat "$T/nap.log"; fail "no naps column in the text summary"; }
ok "idle_sleep: 1ms: both workers nap, 400 of 400 packets arrive, an idle engine takes little CPU"

# --- 2. SLUICE_IDLE_SLEEP is the default; the file's value wins.
conf "$T/env.yaml" "burst: 32"
SLUICE_IDLE_SLEEP=500us expect_exit 0 "$T/env.log" run "$T/env.yaml" --duration 3 --summary-json "$T/env.log.json"
n=$(worker_val "$T/env.log" b naps)
[[ $n =~ ^[0-9]+$ && $n -gt 0 ]] || { cat "$T/env.log"; fail "SLUICE_IDLE_SLEEP=500us: naps '$n'"; }
conf "$T/poll.yaml" "idle_sleep: 0"
SLUICE_IDLE_SLEEP=1ms expect_exit 0 "$T/poll.log" run "$T/poll.yaml" --duration 3 --summary-json "$T/poll.log.json"
n=$(worker_val "$T/poll.log" b naps)
[[ $n == null ]] || fail "idle_sleep: 0 with SLUICE_IDLE_SLEEP=1ms: naps '$n', expected null (never napping)"
ok "SLUICE_IDLE_SLEEP gives the default (naps counted); idle_sleep: 0 in the file wins (naps null)"

# --- 3. bad values, named.
SLUICE_IDLE_SLEEP=soon expect_exit 2 "$T/bad.log" check "$T/env.yaml"
expect_in "$T/bad.log" "the environment's SLUICE_IDLE_SLEEP (the default of engine.idle_sleep)"
expect_in "$T/bad.log" "soon"
conf "$T/long.yaml" "idle_sleep: 2s"
expect_exit 2 "$T/long.log" check "$T/long.yaml"
expect_in "$T/long.log" "idle_sleep"
expect_in "$T/long.log" "1000ms"
conf "$T/word.yaml" "idle_sleep: often"
expect_exit 2 "$T/word.log" check "$T/word.yaml"
expect_in "$T/word.log" "idle_sleep"
ok "a bad SLUICE_IDLE_SLEEP and a bad or too long idle_sleep are refused, named (exit 2)"
