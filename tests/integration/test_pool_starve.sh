#!/usr/bin/env bash
# A pool that stays empty while its buffers sit unused on freelists is
# reported, once as a warning naming where they are and in a summary line.
# Both pools pass `sluice check` (with its warning that the workers'
# freelists can hold the whole pool), and both starve:
#  - pool { mbufs: 1023, high: 1016, chunk: 64 }, source on worker a, sink
#    on worker b: the mbufs end up in b's tier (its front cache, DPDK's
#    cache of its lcore, flushes only above the high mark), below its high
#    mark, and a's gets fail.  (A worker's front cache flushes at the high
#    mark or at 1024, DPDK's cache array, whichever is lower; a flush of
#    1024 is two default chunks, which go on to the global queue at once
#    unless the freelist behind the cache has room for them below the rest
#    of the mark, so with the default chunk a high mark of 2040 no longer
#    holds a pool of 2047: hence a pool under 1024 mbufs, held in the cache
#    alone, and a small chunk so that the chunk alone does not starve it);
#  - pool { mbufs: 3071, chunk: 2048 }: the default high mark (1.5 chunks,
#    3072) is above the pool, so the same happens with a default high mark.
# Each run is stopped with SIGINT once the warning is in the log (an event),
# so how long starting takes does not matter.
. "$(dirname "$0")/lib.sh"

# run_until_warning YAML: run, wait for the pool warning (60 s at most), stop.
run_until_warning() {
  : >"$T/log"   # empty now: a waiter must not find the last run's lines
  rm -f "$T/log.json"
  "$SLUICE" run "$1" --summary-json "$T/log.json" >"$T/log" 2>&1 &
  local pid=$!
  wait_event "the pool warning" "$pid" "$T/log" log_lines "$T/log" "^sluice: warning: pool: "
  interrupt "$pid" "$T/log"; local rc=$?
  [[ $rc -eq 0 ]] || { cat "$T/log" >&2; fail "exit $rc, expected 0"; }
}

# run_starved NAME POOL HIGH: the run with POOL starves worker 'a', the
# warning names b's freelist and its high mark HIGH, the summary names 'a',
# the sink got no more than the pool holds, every mbuf comes back.
run_starved() {
  local name=$1 pool=$2 high=$3 mbufs
  mbufs=$(sed -E 's/.*mbufs: ([0-9]+).*/\1/' <<<"$pool")
  cat >"$T/$name.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
pool: { $pool }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  src: { type: source, worker: a }
  snk: { type: sink, worker: b }
links:
  - src.output -> snk.input
YAML
  run_until_warning "$T/$name.yaml"
  expect_in "$T/log" "sluice: warning: pool: worker 'a' has found the pool empty for "
  grep -qE "s while [0-9]+ of its $mbufs mbufs sit unused on the freelist of worker 'b', at or below its high mark \($high\): a freelist gives nothing back below its high mark; raise pool.mbufs or lower pool.high$" "$T/log" ||
    { cat "$T/log" >&2; fail "$name: the warning does not name worker 'b''s freelist"; }
  [[ $(grep -c "^sluice: warning: pool: " "$T/log") -eq 1 ]] || fail "$name: the warning is not given once"
  grep -qE "^pool starved \(gets failed for whole seconds while the mbufs sat unused on freelists\): 'a' [0-9.]+ s$" "$T/log" ||
    { cat "$T/log" >&2; fail "$name: no summary line naming worker 'a'"; }
  [[ $(summary_get "$T/log.json" pool starved_s) =~ ^\{\"a\":\ [0-9.]+\}$ ]] ||
    { cat "$T/log.json" >&2; fail "$name: the JSON summary's pool.starved_s does not name worker 'a' alone"; }
  local out
  out=$(app_counter "$T/log" snk out_packets)
  ((out <= mbufs)) || fail "$name: the sink consumed $out packets from a pool of $mbufs that cannot refill"
  pool_back "$T/log"
  ok "$name: worker 'a' starved, worker 'b''s freelist named (high mark $high), $out packets moved"
}
run_starved high "mbufs: 1023, high: 1016, chunk: 64" 1016
run_starved chunk "mbufs: 3071, chunk: 2048" 3072

# A pool that is merely busy is not starved: a plain pipeline with the
# default pool gives no warning in a second of traffic.
sed -e '/^pool:/d' "$T/high.yaml" >"$T/plain.yaml"
expect_exit 0 "$T/log" run "$T/plain.yaml" --summary-json "$T/log.json" --duration 2.5
grep -q "pool: worker\|^pool starved" "$T/log" && { cat "$T/log" >&2; fail "a healthy pool reported as starved"; }
[[ $(summary_get "$T/log.json" pool starved_s) == "{}" ]] || fail "a healthy pool has starved workers in the JSON summary"
ok "a healthy pool is not reported"
