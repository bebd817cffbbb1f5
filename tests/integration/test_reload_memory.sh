#!/usr/bin/env bash
# Reloads give back the configs they replace (docs/control.md, "Memory"):
# a router with 6000 routes (the test writes them), reloaded 30 times
# through a cycle of three files: the routes changed and a sink added (a
# structural reload with a reconfiguration), the routes changed back and the
# sink removed, and the same file again (nothing to do).  Each parsed config
# takes about 2 MB; the engine's resident memory (VmRSS) after the last 24
# reloads must not have grown by more than twice the file's size (a
# fraction of one parsed config) over what it was after the first 6
# (keeping each config, as the engine once did, grows it by 24 of them).
# At stop every mbuf is back and the reloads counted.
. "$(dirname "$0")/lib.sh"
as_root_engine
ROUTES=6000

# conf OUT [EXTRA-APP [EXTRA-LINK]]: the routes alternate between outputs 0
# and 1, starting with OUT.
conf() {
  two_workers_head
  cat <<EOF
apps:
  src: { type: source, worker: gen, rate: 20000, flows: 64 }
  r:
    type: router
    worker: fwd
    routes:
      - { prefix: 0.0.0.0/0, output: 0 }
EOF
  python3 - "$1" "$ROUTES" <<'PY'
import sys
first, n = int(sys.argv[1]), int(sys.argv[2])
out = []
for i in range(n):
    out.append("      - { prefix: 10.%d.%d.0/24, output: %d }\n" % (i // 256, i % 256, (i + first) % 2))
sys.stdout.write("".join(out))
PY
  cat <<EOF
  a: { type: sink, worker: fwd }
  b: { type: sink, worker: fwd }
${2:-}
links:
  - { link: "src.output -> r.input", size: 4096 }
  - r.output0 -> a.input
  - r.output1 -> b.input
${3:-}
EOF
}
conf 0 >"$T/c0.yaml"
conf 1 "  c: { type: sink, worker: fwd }
  src2: { type: source, worker: gen, rate: 1000 }" "  - src2.output -> c.input" >"$T/c1.yaml"
for f in c0 c1; do
  "$SLUICE" check "$T/$f.yaml" >"$T/$f.check" 2>&1 || { cat "$T/$f.check" >&2; fail "$f.yaml does not check"; }
done
size_kb=$(($(stat -c %s "$T/c0.yaml") / 1024))

# Under AddressSanitizer freed memory waits in a quarantine (256 MB) before
# it is reused: a small one here, so that a freed config is reused soon
# (its use after the free is still caught meanwhile).
asan=${ASAN_OPTIONS:+1}   # scripts/test sets it for its AddressSanitizer phase only
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
start_engine "$T/c0.yaml" "$T/run.log" 4
# Every table a reload retired freed (the epoch frees it after the
# workers' next breath: a worker kept off its CPU would leave one more
# live table, which says nothing about configs), and then VmRSS.
all_freed() {
  snap && python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["epoch"]; sys.exit(0 if e["retired"] == e["freed"] else 1)' "$T/s.json"
}
rss_kb() {
  wait_event "the retired tables to be freed" "$pid" "$T/run.log" all_freed
  awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"
}
# The cycle: c1 (structure and routes), c0 (back), c0 (nothing to do).
files=("$T/c1.yaml" "$T/c0.yaml" "$T/c0.yaml")
reload_n() {
  local i
  for ((i = 0; i < $1; i++)); do
    local f=${files[$((done_n % 3))]}
    # (the table the last reload retired freed first: DPDK's heap keeps
    # the high-water mark of tables live at once)
    wait_event "the retired tables to be freed" "$pid" "$T/run.log" all_freed
    "$SLUICE" reload --prefix "$PREFIX" "$f" >"$T/reload" 2>&1 || { cat "$T/reload" >&2; fail "reload $((done_n + 1)) of $f"; }
    done_n=$((done_n + 1))
  done
}
done_n=0
rss0=$(rss_kb)
reload_n 6
expect_in "$T/reload" "reload: 0 actions applied"
rss6=$(rss_kb)
reload_n 24
rss30=$(rss_kb)
grown=$((rss30 - rss6))
echo "VmRSS: start $rss0 kB, after 6 reloads $rss6 kB, after 30 $rss30 kB (file: $size_kb kB)"
# One parsed config takes several times the memory its file has bytes
# (the routes here: about 2 MB each for a 0.25 MB file), so keeping the 24
# replaced configs grows it by about 48 MB.  The bound: twice the file's
# size; under AddressSanitizer (its allocator neither coalesces nor gives
# back what it frees: 1.9 MB of growth was seen in one run) sixteen times,
# still a tenth of what keeping the configs costs.
mult=2; how="twice"
[[ -n $asan ]] && { mult=16; how="sixteen times (AddressSanitizer)"; }
((grown < mult * size_kb)) ||
  fail "VmRSS grew by $grown kB over the last 24 reloads (a config file is $size_kb kB): the replaced configs were kept"
ok "30 reloads of a $ROUTES-route router: VmRSS grew by $grown kB over the last 24 (under $how the $size_kb kB of one file)"

interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/run.log"
[[ $(summary_get "$T/run.log.json" reload applied) == 30 ]] || fail "reload.applied is not 30"
ok "every mbuf back; 30 reloads applied"
