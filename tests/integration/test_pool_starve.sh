#!/usr/bin/env bash
# A pool that stays empty while its buffers sit unused on freelists is
# reported, once as a warning naming where they are and in a summary line:
#  - pool { mbufs: 2047, high: 100000 }, source on worker a, sink on worker b:
#    every mbuf ends up on b's freelist, below its high mark, and a's gets fail;
#  - pool { mbufs: 1023, chunk: 2048 }: the mbufs sit in the non-worker
#    freelist, less than the chunk a worker takes, and nothing is generated.
# Each run is stopped with SIGINT once the warning is in the log (an event),
# so how long starting takes does not matter.
. "$(dirname "$0")/lib.sh"

# run_until_warning YAML: run, wait for the pool warning (60 s at most), stop.
run_until_warning() {
  "$SLUICE" run "$1" >"$T/log" 2>&1 &
  local pid=$! end=$((SECONDS + 60))
  until grep -q "^sluice: warning: pool: " "$T/log"; do
    if ((SECONDS >= end)) || ! kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null; cat "$T/log" >&2; fail "no pool warning"
    fi
    sleep 0.05
  done
  kill -INT "$pid"
  wait "$pid"; local rc=$?
  [[ $rc -eq 0 ]] || { cat "$T/log" >&2; fail "exit $rc, expected 0"; }
}

cat >"$T/high.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 2047, high: 100000 }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  src: { type: source, worker: a }
  snk: { type: sink, worker: b }
links:
  - src.output -> snk.input
YAML
run_until_warning "$T/high.yaml"
expect_in "$T/log" "sluice: warning: pool: worker 'a' has found the pool empty for "
grep -qE "s while [0-9]+ of its 2047 mbufs sit unused on the freelist of worker 'b', at or below its high mark \(100000\): a freelist gives nothing back below its high mark; raise pool.mbufs or lower pool.high$" "$T/log" ||
  { cat "$T/log" >&2; fail "the warning does not name worker 'b''s freelist"; }
[[ $(grep -c "^sluice: warning: pool: " "$T/log") -eq 1 ]] || fail "the warning is not given once"
grep -qE "^pool starved \(gets failed for whole seconds while the mbufs sat unused on freelists\): 'a' [0-9.]+ s$" "$T/log" ||
  { cat "$T/log" >&2; fail "no summary line naming worker 'a'"; }
out=$(app_counter "$T/log" snk out_packets)
((out <= 2047)) || fail "the sink consumed $out packets from a pool of 2047 that cannot refill"
pool_back "$T/log"
ok "high mark above the pool: worker 'a' starved, worker 'b''s freelist named, $out packets moved"

cat >"$T/chunk.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 1023, chunk: 2048 }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  src: { type: source, worker: a }
  snk: { type: sink, worker: b }
links:
  - src.output -> snk.input
YAML
run_until_warning "$T/chunk.yaml"
expect_in "$T/log" "sluice: warning: pool: worker 'a' has found the pool empty for "
grep -qE "s while 1023 of its 1023 mbufs sit unused in the non-worker freelist, less than the chunk \(2048\) a worker takes at a time; raise pool.mbufs or lower pool.chunk$" "$T/log" ||
  { cat "$T/log" >&2; fail "the warning does not name the non-worker freelist"; }
grep -qE "^pool starved .*: 'a' [0-9.]+ s$" "$T/log" || { cat "$T/log" >&2; fail "no summary line"; }
[[ $(app_counter "$T/log" src in_packets) -eq 0 ]] || fail "packets generated from an unusable pool"
pool_back "$T/log"
ok "chunk larger than the pool: worker 'a' starved, the non-worker freelist named"

# A pool that is merely busy is not starved: a plain pipeline with the
# default pool gives no warning in a second of traffic.
sed -e '/^pool:/d' "$T/high.yaml" >"$T/plain.yaml"
expect_exit 0 "$T/log" run "$T/plain.yaml" --duration 2.5
grep -q "pool: worker\|^pool starved" "$T/log" && { cat "$T/log" >&2; fail "a healthy pool reported as starved"; }
ok "a healthy pool is not reported"
