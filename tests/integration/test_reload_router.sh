#!/usr/bin/env bash
# A live route change (docs/control.md): source (count 20000, 2000 a second:
# ten seconds for the reload to land in while packets flow) on one
# worker -> router -> two sinks on another.  The reload moves 198.19.0.0/16
# from output0 to output1 while packets flow: every packet arrives at one of
# the sinks (the sum is the count), sink a gets none after the reload
# returned (the router's links are empty at a breath boundary), sink b gets
# the rest; the old table is retired through the epoch and freed by stop
# (retired == freed, at least 1).  A router whose routes a flowcache caches
# refuses the change (exit 1, named) and goes on as it was.
. "$(dirname "$0")/lib.sh"
as_root_engine
N=20000

# conf OUTPUT [FRONT]: routes to OUTPUT; FRONT "fc" puts a flowcache that
# caches r's routes in front of the router.
conf() {
  local first=r extra=""
  if [[ ${2:-} == fc ]]; then
    first=fc extra="  fc: { type: flowcache, worker: fwd, route: r, entries: 1024 }"
  fi
  cat <<EOF
$(two_workers_head)
apps:
  src: { type: source, worker: gen, count: $N, rate: 2000, flows: 8 }
$extra
  r:
    type: router
    worker: fwd
    routes:
      - { prefix: 198.19.0.0/16, output: $1 }
      - { prefix: 0.0.0.0/0, output: 0 }
  a: { type: sink, worker: fwd }
  b: { type: sink, worker: fwd }
links:
  # More slots than the pool has mbufs: no packet can be dropped there, however
  # long the router's worker waits for a CPU (the sum at the sinks is N).
  - { link: "src.output -> $first.input", size: 16384 }
$([[ $first == fc ]] && echo "  - fc.output -> r.input")
  - r.output0 -> a.input
  - r.output1 -> b.input
EOF
}
conf 0 >"$T/run.yaml"
conf 1 >"$T/moved.yaml"
start_engine "$T/run.yaml" "$T/run.log" 4
sink() { summary_get "$T/s.json" apps "$1" counters out_packets; }
some_at_a() { snap && (($(sink a) > 0)); }
wait_event "packets at sink a" "$pid" "$T/run.log" some_at_a
expect_exit 0 "$T/reload" reload --prefix "$PREFIX" "$T/moved.yaml"
expect_in "$T/reload" "reconfigure app 'r': routes changed (2 rows)"
snap || fail "no snapshot after the reload"
a_at=$(sink a) src_at=$(summary_get "$T/s.json" apps src counters in_packets)
((src_at < N)) || fail "the source had sent all $N packets before the reload: nothing to move (rate too high?)"
done_all() { snap && (($(sink a) + $(sink b) == N)); }
wait_event "all $N packets at the sinks" "$pid" "$T/run.log" done_all
a_end=$(sink a) b_end=$(sink b)
((a_end == a_at)) || fail "sink a got $((a_end - a_at)) packets after the reload returned"
((b_end > 0)) || fail "sink b got nothing after the route moved"
ok "the route moved while packets flowed: a $a_end (all before the reload), b $b_end, sum $N"
interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/run.log"
ret=$(summary_get "$T/run.log.json" epoch retired) freed=$(summary_get "$T/run.log.json" epoch freed)
((ret >= 1 && ret == freed)) || fail "epoch retired $ret, freed $freed: the old table was not freed by the epoch"
ok "the old table retired and freed through the epoch ($ret == $freed)"

# --- a router whose routes a flowcache caches: refused, nothing changed.
conf 0 fc >"$T/fc.yaml"
conf 1 fc >"$T/fc-moved.yaml"
start_engine "$T/fc.yaml" "$T/fc.log" 5
expect_exit 1 "$T/fc-reload" reload --prefix "$PREFIX" "$T/fc-moved.yaml"
expect_in "$T/fc-reload" "app 'r': parameter 'routes' cannot change while running: a flowcache caches this router's routes (route: r); restart Sluice"
done_fc() { snap && (($(sink a) == N)); }
wait_event "all $N packets at sink a (the old route)" "$pid" "$T/fc.log" done_fc
interrupt "$pid" "$T/fc.log" || { cat "$T/fc.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/fc.log"
ok "refused for a router a flowcache caches; every packet took the old route"
