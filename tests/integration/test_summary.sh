#!/usr/bin/env bash
# The JSON summary (`sluice run --summary-json FILE`, docs/summary.md) and
# the counter tables behind it: the quick start writes a schema 1 document
# with every app of its config and exactly the counters its type declares,
# every mbuf back; a flowcache's declared counters appear with consistent
# values; `sluice apps flowcache` lists them with their help; the text and
# JSON summaries agree; usage errors exit 2 with a message; a run that fails
# in setup writes no file.
. "$(dirname "$0")/lib.sh"

# check_summary FILE CONFIG: schema 1, the config's apps (in push order from
# `sluice check`, compared as a set) with the common counters and those
# `sluice apps TYPE` lists, nothing else; mbufs.back == mbufs.total.
check_summary() {
  local f=$1 cfg=$2 t
  "$SLUICE" check "$cfg" >"$T/check" 2>&1 || { cat "$T/check" >&2; fail "sluice check $cfg"; }
  sed -nE 's/^push order: //p' "$T/check" | tr ' ' '\n' | grep . >"$T/apps"
  : >"$T/declared"
  for t in $(python3 -c 'import json,sys; print(" ".join(sorted({a["type"] for a in json.load(open(sys.argv[1]))["apps"].values()})))' "$f"); do
    "$SLUICE" apps "$t" | awk -v t="$t" '/^  counters/{c=1; next} c && /^    [a-z]/{print t, $1}' >>"$T/declared"
  done
  python3 - "$f" "$T/apps" "$T/declared" <<'PY' || { cat "$f" >&2; fail "summary $f"; }
import json, sys
s = json.load(open(sys.argv[1]))
apps = set(open(sys.argv[2]).read().split())
declared = {}
for line in open(sys.argv[3]):
    t, name = line.split()
    declared.setdefault(t, []).append(name)
common = ["in_packets", "in_bytes", "out_packets", "out_bytes", "drops"]
assert s["schema"] == 1, "schema %r" % s["schema"]
assert set(s["apps"]) == apps, "apps %s, config has %s" % (sorted(s["apps"]), sorted(apps))
for name, a in s["apps"].items():
    want = common + declared.get(a["type"], [])
    assert list(a["counters"]) == want, "app %s: counters %s, want %s" % (name, list(a["counters"]), want)
    assert all(isinstance(v, int) and v >= 0 for v in a["counters"].values()), "app %s: a counter is not a count" % name
    assert a["worker"] in s["workers"], "app %s: worker %s not in workers" % (name, a["worker"])
    rt = a["runtime"]
    assert list(rt) == ["pull_calls", "pull_packets", "pull_cycles", "push_calls", "push_packets", "push_cycles"], rt
    assert all(isinstance(v, int) and v >= 0 for v in rt.values()), "app %s: runtime %s" % (name, rt)
    # a call's packets: pull brings in what in_packets counts (a port's
    # in_packets is the device's count, at least what pull brought)
    assert rt["pull_packets"] <= a["counters"]["in_packets"], (name, rt, a["counters"])
    # cycles are timed on a sample of breaths: none without calls
    assert (rt["pull_calls"] > 0 or rt["pull_cycles"] == 0) and (rt["push_calls"] > 0 or rt["push_cycles"] == 0), rt
for name, l in s["links"].items():
    assert name == l["from"] + " -> " + l["to"], "link %s: from %s to %s" % (name, l["from"], l["to"])
    assert l["kind"] in ("local", "direct", "interlink"), "link %s: kind %s" % (name, l["kind"])
    for k in ("occupancy_hwm", "sojourn_p50_ns", "sojourn_p99_ns", "lines"):
        assert (l[k] is None) == (l["kind"] in ("local", "direct")), "link %s: %s is %r for a %s link" % (name, k, l[k], l["kind"])
    # every packet an interlink took went into a slot line (8 pointers each)
    assert l["kind"] in ("local", "direct") or l["lines"] * 8 >= l["packets"], "link %s: %s lines for %s packets" % (name, l["lines"], l["packets"])
for name, w in s["workers"].items():
    assert list(w) == ["cpu", "lcore", "breaths", "busy_breaths", "idle_breaths", "busy_cycles", "idle_cycles", "naps"] and w["breaths"] > 0, "worker %s: %s" % (name, w)
    # lib.sh sets SLUICE_IDLE_SLEEP, so the workers may nap: a count, never null
    assert isinstance(w["naps"], int) and 0 <= w["naps"] <= w["idle_breaths"], w
    assert w["busy_breaths"] + w["idle_breaths"] == w["breaths"], w
assert s["mbufs"]["total"] > 0 and s["mbufs"]["back"] == s["mbufs"]["total"], "mbufs %s" % s["mbufs"]
assert s["elapsed_s"] > 0 and isinstance(s["warnings"], list)
assert set(s["drained_at_stop"]) == {"delivered", "freed"}
assert s["pool"]["ops"] in ("sluice", "dpdk") and "starved_s" in s["pool"]
assert s["epoch"]["policy"] in ("immediate", "batch", "qsbr")
PY
}

# --- 1. the quick start, as docs/summary.md shows it.
mkdir "$T/out"
expect_exit 0 "$T/q.log" run "$SRC/docs/examples/quickstart.yaml" --duration 2 --summary-json "$T/out/s.json"
rm -rf /var/run/dpdk/sluice-quickstart
check_summary "$T/out/s.json" "$SRC/docs/examples/quickstart.yaml"
# Accounting: a worker's cycles are scaled from its sampled breaths to its
# whole time, so busy + idle is the run's length in TSC cycles (less the
# moments before its first and after its last timed breath: on a loaded
# machine a worker's first breath has been seen to come a second late, so
# at least a quarter of the run; a scale wrong by the sampling's 16, 1/16 or
# 16 times it, would be far outside), and
# its apps' cycles fit inside.
python3 - "$T/out/s.json" <<'PY' || fail "accounting's cycles do not add up to the workers' time"
import json, sys
s = json.load(open(sys.argv[1]))
run = s["elapsed_s"] * s["tsc_hz"]
for name, w in s["workers"].items():
    total = w["busy_cycles"] + w["idle_cycles"]
    assert 0.25 * run <= total <= 1.02 * run, (name, total, run)
    apps = sum(a["runtime"]["pull_cycles"] + a["runtime"]["push_cycles"]
               for a in s["apps"].values() if a["worker"] == name)
    assert 0 < apps <= total * 1.001, (name, apps, total)
PY
[[ $(ls "$T/out") == s.json ]] || fail "temporary files left beside the summary: $(ls "$T/out")"
# The text summary says the same.
back=$(summary_get "$T/out/s.json" mbufs back) total=$(summary_get "$T/out/s.json" mbufs total)
expect_in "$T/q.log" "pool: $back of $total mbufs back in the pool"
out=$(summary_get "$T/out/s.json" apps out counters out_packets)
grep -qE "^  out +sink +fwd +[0-9]+ +[0-9]+ +$out +" "$T/q.log" || { cat "$T/q.log" >&2; fail "the text summary's out_packets of 'out' is not $out"; }
cpu=$(summary_get "$T/out/s.json" control_cpu)
expect_in "$T/q.log" "; control thread on cpu $cpu"
# The text names every value as the JSON does (both come from one table).
python3 - "$T/q.log" "$T/out/s.json" <<'PY' || fail "the text summary's names or values differ from the JSON's"
import json, sys
text = open(sys.argv[1]).read().split("\n")
s = json.load(open(sys.argv[2]))
def line(prefix):
    hits = [l for l in text if l.startswith(prefix)]
    assert len(hits) == 1, (prefix, hits)
    return hits[0]
def pairs(l, obj):
    for k, v in obj.items():
        if v is not None:
            assert " %s %d" % (k, v) in l, (k, v, l)
pool = line("pool (chunk ")
pairs(pool, s["pool"]["tiers"]); pairs(pool, s["pool"]["events"])
pairs(line("epoch ("), {k: v for k, v in s["epoch"].items() if k not in ("policy", "reclaim_cap")})
link = next(iter(s["links"].values()))
head = text[text.index([l for l in text if l.startswith("links ")][0]) + 1].split()
assert head[2:] == [k for k in link if k not in ("from", "to", "kind")], head
wk = next(iter(s["workers"].values()))
head = text[text.index("workers:") + 1].split()
assert head[1:] == list(wk), head
PY
ok "the text summary's pool, epoch, links and workers names are the JSON's, with the same values"
ok "quickstart: schema 1, every app with its counters, $back of $total mbufs back; text and JSON agree"

# --- 2. declared counters: a flowcache between a source and a sink.
cat >"$T/fc.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, flows: 100, count: 2000 }
  fc:  { type: flowcache, entries: 1024 }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
YAML
expect_exit 0 "$T/fc.log" run "$T/fc.yaml" --summary-json "$T/fc.log.json" --duration 2
check_summary "$T/fc.log.json" "$T/fc.yaml"
pool_back "$T/fc.log"
c() { app_counter "$T/fc.log" fc "$1"; }
[[ $(c lookups) == 2000 && $(c hits) == 1900 && $(c misses) == 100 && $(c inserted) == 100 ]] ||
  fail "flowcache: lookups $(c lookups), hits $(c hits), misses $(c misses), inserted $(c inserted); want 2000, 1900, 100, 100"
[[ $(c stopped) == 100 && $(c freed) == 100 && $(c malformed) == 0 ]] ||
  fail "flowcache: stopped $(c stopped), freed $(c freed), malformed $(c malformed); want 100, 100, 0"
grep -qE "^  fc \(flowcache\): lookups 2000, hits 1900, misses 100, inserted 100," "$T/fc.log" ||
  { cat "$T/fc.log" >&2; fail "no 'app counters' line for fc in the text summary"; }
grep -q "^flowcache '" "$T/fc.log" && fail "the flowcache printed its own line"
ok "flowcache: its declared counters in the JSON and text summaries, 2000 lookups, 100 flows"

# --quiet leaves out the tables, not the apps' own counters.
: >"$T/fcq.log"
expect_exit 0 "$T/fcq.log" run "$T/fc.yaml" --summary-json "$T/fcq.log.json" --duration 2 --quiet
grep -qE "^  fc \(flowcache\): lookups 2000, hits 1900," "$T/fcq.log" ||
  { cat "$T/fcq.log" >&2; fail "--quiet: no 'app counters' line for fc"; }
grep -q "^links " "$T/fcq.log" && fail "--quiet printed the links table"
[[ $(app_counter "$T/fcq.log" fc lookups) == 2000 ]] || fail "--quiet: the JSON summary lost fc's lookups"
ok "--quiet: the app counters line stays, the tables go, the JSON is whole"

# --- 3. `sluice apps flowcache` lists the counters with their help.
"$SLUICE" apps flowcache >"$T/apps.txt" 2>&1 || { cat "$T/apps.txt" >&2; fail "sluice apps flowcache"; }
for k in $(python3 -c 'import json,sys; print(" ".join(list(json.load(open(sys.argv[1]))["apps"]["fc"]["counters"])[5:]))' "$T/fc.log.json"); do
  grep -qE "^    $k +(counter|gauge) +[A-Z0-9].*\.$" "$T/apps.txt" || { cat "$T/apps.txt" >&2; fail "sluice apps flowcache: no help line for counter '$k'"; }
done
expect_in "$T/apps.txt" "    hits                   counter  Lookups that found the packet's flow."
"$SLUICE" apps >"$T/all.txt" 2>&1 || fail "sluice apps"
expect_in "$T/all.txt" "    in_packets             counter  Packets received from outside the pipeline"
ok "sluice apps flowcache: every counter of the summary with a kind and a help sentence"

# --- 4. usage errors: exit 2 before anything starts, with a message.
bad() {   # bad MESSAGE ARGS...
  local msg=$1; shift
  expect_exit 2 "$T/bad.log" run "$T/fc.yaml" "$@"
  expect_in "$T/bad.log" "$msg"
  grep -q "sluice: running" "$T/bad.log" && fail "a run started despite: $msg"
  ok "usage: $msg"
}
bad "sluice: run: --summary-json needs a value" --summary-json
bad "sluice: run: --summary-json needs a value" --summary-json -- --log-level lib.eal:warning
bad "sluice: run: --summary-json needs a file name, got ''" --summary-json ""
bad "sluice: run: --summary-json '$T/no/such/s.json': directory '$T/no/such' does not exist" --summary-json "$T/no/such/s.json"
bad "sluice: run: --summary-json '$T/out' is a directory" --summary-json "$T/out"
bad "sluice: run: --summary-json needs a file name, got the directory '$T/out/'" --summary-json "$T/out/"
if [[ $(id -u) -ne 0 ]]; then
  mkdir "$T/ro" && chmod 555 "$T/ro"
  bad "sluice: run: --summary-json '$T/ro/s.json': cannot write in directory '$T/ro': Permission denied" --summary-json "$T/ro/s.json"
fi

# --- 5. a run that fails in setup writes no summary.
cat >"$T/fail.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, count: 10 }
  o:   { type: port, device: "net_nosuchdriver0" }
links:
  - src.output -> o.input
YAML
expect_exit 1 "$T/fail.log" run "$T/fail.yaml" --summary-json "$T/fail.log.json" --duration 1
[[ ! -e "$T/fail.log.json" ]] || fail "a failed setup wrote a summary"
ok "a run that fails in setup writes no summary"
