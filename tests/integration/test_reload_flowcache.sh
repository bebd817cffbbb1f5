#!/usr/bin/env bash
# A live change of a flow cache's expiry (docs/control.md): 64 flows, one
# packet each, through a flowcache with a 1 h idle timeout: none ends.  A
# reload to idle_timeout 10ms (and expiry_cap 8): all 64 end by the idle
# timeout.  A table with expiry wheel refuses new timeouts (exit 1, named)
# and keeps its flows; expiry_cap alone changes on it.
. "$(dirname "$0")/lib.sh"
as_root_engine

# conf EXPIRY IDLE CAP
conf() {
  cat <<EOF
$(two_workers_head)
apps:
  src: { type: source, worker: gen, flows: 64, count: 64, rate: 1000 }
  fc:  { type: flowcache, worker: fwd, entries: 1024, expiry: $1, idle_timeout: $2, expiry_cap: $3 }
  out: { type: sink, worker: fwd }
links:
  - { link: "src.output -> fc.input", size: 4096 }
  - fc.output -> out.input
EOF
}
fc() { summary_get "$T/s.json" apps fc counters "$1"; }
inserted_all() { snap && (($(fc inserted) == 64)); }

for expiry in scan wheel; do
  conf $expiry 1h 32 >"$T/run.yaml"
  start_engine "$T/run.yaml" "$T/run.log" 3
  wait_event "64 flows in the table" "$pid" "$T/run.log" inserted_all
  (($(fc idle) == 0)) || fail "$expiry: flows ended at a 1 h idle timeout"
  if [[ $expiry == scan ]]; then
    conf scan 10ms 8 >"$T/short.yaml"
    expect_exit 0 "$T/reload" reload --prefix "$PREFIX" "$T/short.yaml"
    expect_in "$T/reload" "reconfigure app 'fc': idle_timeout 3600s -> 10ms; expiry_cap 32 -> 8"
    all_idle() { snap && (($(fc idle) == 64)); }
    wait_event "64 flows ended by the new idle timeout" "$pid" "$T/run.log" all_idle
    ok "scan: idle_timeout 1h -> 10ms live: all 64 flows ended (reason idle)"
  else
    conf wheel 10ms 32 >"$T/short.yaml"
    expect_exit 1 "$T/reload" reload --prefix "$PREFIX" "$T/short.yaml"
    expect_in "$T/reload" "app 'fc': table 'fc': the timeouts of a table with expiry wheel cannot change while running"
    conf wheel 1h 8 >"$T/cap.yaml"
    expect_exit 0 "$T/cap" reload --prefix "$PREFIX" "$T/cap.yaml"
    expect_in "$T/cap" "reconfigure app 'fc': expiry_cap 32 -> 8"
    snap && (($(fc idle) == 0)) || fail "wheel: flows ended after the refused reload"
    ok "wheel: new timeouts refused (exit 1, named), the flows kept; expiry_cap changed"
  fi
  interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
  pid=
  pool_back "$T/run.log"
done
