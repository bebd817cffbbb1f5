#!/usr/bin/env bash
# Monitoring through a burst of structural reloads (docs/telemetry.md,
# docs/operations.md): while 20 reloads start and stop a tee and a sink,
# one loop scrapes the exporter and another runs `sluice stats --json`,
# each until the burst is over.  Every scrape says sluice_up 1, every stats
# call works and says state running or reloading (never stopping), the
# uptime never goes back (in each loop, and after the burst it is past
# what it was before: a reload does not restart it), the reload counter
# only grows; after the burst sluice_reloads_total and the summary's
# reload.applied are 20, and sluice_last_reload_timestamp_seconds lies
# within the burst.
. "$(dirname "$0")/lib.sh"
as_root_engine
pids=()
trap 'kill -KILL ${pid:-} 2>/dev/null; for p in "${pids[@]}"; do end_process "$p"; done; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

s0() {
  two_workers_head
  cat <<EOF
apps:
  src: { type: source, worker: gen, rate: 20000, flows: 4 }
  out: { type: sink, worker: fwd }
links:
  - { link: "src.output -> out.input", size: 4096 }
EOF
}
s1() {
  two_workers_head
  cat <<EOF
apps:
  src:  { type: source, worker: gen, rate: 20000, flows: 4 }
  tee:  { type: tee, worker: fwd }
  out:  { type: sink, worker: fwd }
  out2: { type: sink, worker: fwd }
links:
  - { link: "src.output -> tee.input", size: 4096 }
  - tee.output0 -> out.input
  - tee.output1 -> out2.input
EOF
}
s0 >"$T/s0.yaml"; s1 >"$T/s1.yaml"
start_engine "$T/s0.yaml" "$T/run.log" 2
start_exporter
url="http://127.0.0.1:$port/metrics"
# value FILE NAME: the sample NAME (no labels) in FILE.
value() { awk -v s="$1 " 'index($0, s) == 1 { print $2; exit }' "$2"; }
# The engine has run a while (its own uptime says so), so that a restarted
# uptime would show.
grown() {
  curl -s --max-time 30 -o "$T/m.first" "$url" &&
    awk '$1 == "sluice_uptime_seconds" && $2 >= 2 { ok = 1 } END { exit !ok }' "$T/m.first"
}
wait_event "an uptime of 2 s" "$pid" "$T/run.log" grown
u0=$(value sluice_uptime_seconds "$T/m.first")

# The two loops: numbered files, until $T/done exists (and once more).
scrapes() {
  local n=0 last=""
  while [[ -z $last ]]; do
    [[ -e $T/done ]] && last=1
    n=$((n + 1))
    curl -s --max-time 30 -o "$T/m.$n" -w '%{http_code}\n' "$url" >"$T/m.$n.code"
  done
}
stats() {
  local n=0 last=""
  while [[ -z $last ]]; do
    [[ -e $T/done ]] && last=1
    n=$((n + 1))
    "$SLUICE" stats --prefix "$PREFIX" --json >"$T/st.$n" 2>"$T/st.$n.err"
    echo $? >"$T/st.$n.rc"
  done
}
scrapes & pids+=($!); scraper=$!
stats & pids+=($!); stater=$!
wait_event "the loops' first samples" "$pid" "$T/run.log" test -e "$T/m.1.code" -a -e "$T/st.1.rc"

t_first=$(date +%s.%N)
for i in $(seq 20); do
  "$SLUICE" reload --prefix "$PREFIX" "$T/s$((i % 2)).yaml" >"$T/reload" 2>&1 || { cat "$T/reload" >&2; fail "reload $i"; }
done
t_last=$(date +%s.%N)
touch "$T/done"
wait "$scraper" "$stater"
expect_in "$T/reload" "stop app 'tee': tee"

python3 - "$T" "$u0" "$t_first" "$t_last" <<'PY' || fail "monitoring misread the reloads"
import glob, json, os, sys
T, u0, t_first, t_last = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
def num(path):
    return int(path.rsplit(".", 1)[1])
def metrics(path):
    v = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        name, val = line.rsplit(" ", 1)
        v[name] = float(val)
    return v
# The scrapes, in order.
m = sorted((p for p in glob.glob(T + "/m.*") if p.rsplit(".", 1)[1].isdigit()), key=num)
prev_up, prev_n = u0, 0
for p in m:
    code = open(p + ".code").read().strip()
    assert code == "200", "%s: HTTP %s" % (p, code)
    v = metrics(p)
    assert v.get("sluice_up") == 1, "%s: sluice_up %s" % (p, v.get("sluice_up"))
    up, n = v["sluice_uptime_seconds"], v.get("sluice_reloads_total", 0)
    assert up >= prev_up, "%s: uptime went back from %s to %s" % (p, prev_up, up)
    assert n >= prev_n, "%s: the reload counter went back from %s to %s" % (p, prev_n, n)
    prev_up, prev_n = up, n
last = metrics(m[-1])
assert last.get("sluice_reloads_total") == 20, last.get("sluice_reloads_total")
ts = last["sluice_last_reload_timestamp_seconds"]
assert t_first - 1 <= ts <= t_last + 1, (t_first, ts, t_last)
# The stats calls, in order.
s = sorted((p for p in glob.glob(T + "/st.*") if p.rsplit(".", 1)[1].isdigit()), key=num)
prev_el, states = 0, {}
for p in s:
    rc = open(p + ".rc").read().strip()
    assert rc == "0", "%s: sluice stats exited %s: %s" % (p, rc, open(p + ".err").read())
    j = json.load(open(p))
    st = j["live"]["state"]
    assert st in ("running", "reloading"), "%s: state %s" % (p, st)
    states[st] = states.get(st, 0) + 1
    el = j["live"]["elapsed_ns"]
    assert el >= prev_el, "%s: elapsed went back from %d to %d" % (p, prev_el, el)
    prev_el = el
j = json.load(open(s[-1]))
assert j["reload"]["applied"] == 20, j["reload"]
assert t_first - 1 <= j["reload"]["last_unix_s"] <= t_last + 1, j["reload"]
assert j["live"]["elapsed_ns"] / 1e9 >= u0, (j["live"]["elapsed_ns"], u0)
print("%d scrapes (sluice_up 1, uptime %.2f -> %.2f s), %d stats calls (states %s); 20 reloads counted"
      % (len(m), u0, prev_up, len(s), states))
PY
ok "monitoring through 20 structural reloads: up, monotonic uptime, reloads counted"

interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/run.log"
[[ $(summary_get "$T/run.log.json" reload applied) == 20 ]] || fail "reload.applied is not 20 in the summary"
last_s=$(summary_get "$T/run.log.json" reload last_unix_s)
python3 -c "import sys; a, t, b = map(float, sys.argv[1:]); sys.exit(not (a - 1 <= t <= b + 1))" "$t_first" "$last_s" "$t_last" ||
  fail "reload.last_unix_s $last_s is not within the burst"
ok "the summary: reload.applied 20, reload.last_unix_s within the burst"
