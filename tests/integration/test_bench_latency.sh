#!/usr/bin/env bash
# `sluice bench latency`: a short sweep on this machine produces well-formed
# results (CSV with one row per run and ordered percentiles, JSON with the
# machine and the runs, every run's config, log, JSON summary and sink
# reports, every mbuf back, the summaries' counts in the results), the runs
# planned for described machines cover their hop classes, and bad options
# exit 2 with a message.  Nothing here depends on how fast
# the machine is: only the shape of the output and the accounting are checked.
# serial: a benchmark, its threads pinned to CPUs and spinning; beside other
# tests it measures their contention and takes ten times as long
. "$(dirname "$0")/lib.sh"

if ! "$SLUICE" apps probe_sink >/dev/null 2>&1 || ! "$SLUICE" apps probe_source >/dev/null 2>&1; then
  skip "the probe_source and probe_sink apps are not in this build"
fi

# ---------------------------------------------------------------- bad options
bad_option() {
  local text=$1; shift
  "$SLUICE" bench "$@" >"$T/bad.out" 2>"$T/bad.err"
  local rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/bad.err" >&2; fail "sluice bench $* exited $rc, expected 2"; }
  grep -qF -- "$text" "$T/bad.err" || { cat "$T/bad.err" >&2; fail "sluice bench $*: expected '$text'"; }
  [[ ! -s "$T/bad.out" ]] || fail "sluice bench $*: printed on stdout"
}
bad_option "unknown benchmark 'latnecy' (did you mean 'latency'?)" latnecy
bad_option "unknown option '--durtion' (did you mean '--duration'?)" latency --durtion 1
bad_option "--duration needs seconds in 0.1..3600, got 'x'" latency --duration x
bad_option "--duration needs a value" latency --duration
bad_option "--loads needs a whole number" latency --loads 10k,fast
bad_option "--ops: unknown pool ops 'dpkd' (did you mean 'dpdk'?)" latency --ops sluice,dpkd
bad_option "--size needs a whole number in 60..9000, got '59'" latency --size 59
bad_option "--receivers needs a whole number in 0..16" latency --receivers 99
bad_option "unexpected argument 'now'" latency now
bad_option "--memory needs one of 4k, 2m, got '1g'" latency --memory 1g
bad_option "--order needs one of shuffled, address, got 'sorted'" latency --order sorted
ncpu=$(nproc)
if [[ $ncpu -le 16 ]]; then
  bad_option "--receivers $ncpu: this process may use" latency --receivers "$ncpu" --dry-run
fi
HWLOC_SYNTHETIC="pack:1 l3:4 core:6 pu:1" "$SLUICE" bench latency --quick --out "$T/syn" \
  >"$T/syn.out" 2>"$T/syn.err"
[[ $? -eq 2 ]] || fail "bench latency on a described machine did not exit 2"
expect_in "$T/syn.err" "runs on this machine only"
[[ ! -e "$T/syn" ]] || fail "bench latency on a described machine created its output directory"
ok "bad options and described machines exit 2 with a message"

# ---------------------------------------------------------------- planning
# Described machines: every hop class they have gets a pair, the receivers are
# ordered closest first, the transmitter keeps off CPU 0.
plan() { HWLOC_SYNTHETIC="$1" "$SLUICE" bench latency --dry-run --loads 0 --ops sluice --receivers "$2"; }
plan "numa:2 l3:2 core:2 pu:2" 3 >"$T/plan1" || fail "dry run on a described machine failed"
for want in "local cpu2->cpu2" "smt-sibling cpu2->cpu3" "same-l3 cpu2->cpu1" "cross-l3 cpu2->cpu4" \
            "cross-numa cpu2->cpu8" "3 receivers cpu2->cpu3,cpu1,cpu0 "; do
  expect_in "$T/plan1" "$want"
done
expect_in "$T/plan1" "bench latency: 8 runs (8 placements x 1 load x 1 pool ops)"
plan "pack:1 l3:4 core:6 pu:1" 6 >"$T/plan2" || fail "dry run on a described machine failed"
expect_in "$T/plan2" "6 receivers cpu1->cpu2,cpu3,cpu4,cpu5,cpu0,cpu6 "
if grep -q "smt-sibling\|cross-numa" "$T/plan2"; then fail "a hop class the machine lacks was planned"; fi
ok "planned runs cover each described machine's hop classes, receivers closest first"

# ---------------------------------------------------------------- a short sweep
"$SLUICE" bench latency --quick --dry-run >"$T/dry" 2>&1 || { cat "$T/dry" >&2; fail "dry run failed"; }
runs=$(grep -c '^\[[0-9]*/[0-9]*\]' "$T/dry")
[[ $runs -ge 2 ]] || { cat "$T/dry" >&2; fail "the quick sweep plans $runs runs"; }

runtime_dirs() { find /var/run/dpdk -maxdepth 1 -name 'sluice-bench-[0-9]*' 2>/dev/null | sort; }
before=$(runtime_dirs)
B=$T/b
"$SLUICE" bench latency --quick --out "$B" >"$T/bench.out" 2>"$T/bench.err"
rc=$?
[[ $rc -eq 0 ]] || { cat "$T/bench.err" >&2; fail "sluice bench latency --quick exited $rc"; }
after=$(runtime_dirs)
[[ "$before" == "$after" ]] || fail "the bench left a DPDK runtime directory behind"
expect_in "$T/bench.err" "[1/$runs] local cpu"
expect_in "$T/bench.err" "[$runs/$runs] "
expect_in "$T/bench.err" "bench latency: $runs runs in"
ok "quick sweep: $runs runs, exit 0, progress on stderr"

for f in results.csv results.json machine.xml; do
  [[ -s "$B/$f" ]] || fail "$B/$f is missing or empty"
done
for ((i = 1; i <= runs; i++)); do
  n=$(printf '%03d' "$i")
  for f in "$n.yaml" "$n.log" "$n-summary.json" "$n-rx0.json"; do
    [[ -s "$B/runs/$f" ]] || fail "runs/$f is missing or empty"
  done
  python3 -m json.tool "$B/runs/$n-rx0.json" >/dev/null || fail "runs/$n-rx0.json is not JSON"
done
grep -q "<topology" "$B/machine.xml" || fail "machine.xml is not hwloc XML"
ok "every run left its config, log, JSON summary and sink report"

# Each run's JSON summary (docs/summary.md): schema 1, every mbuf back, the
# probe and its sinks; the sent and drops that results.csv and results.json
# report for the run are the summary's.
python3 - "$B" "$runs" <<'PY' || fail "the runs' JSON summaries do not match the results"
import csv, json, sys
b, runs = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(b + "/results.csv")))
res = json.load(open(b + "/results.json"))["runs"]
assert len(rows) == len(res) == runs, "run count"
for i, (row, r) in enumerate(zip(rows, res), 1):
    path = "%s/runs/%03d-summary.json" % (b, i)
    s = json.load(open(path))
    assert s["schema"] == 1, (path, "schema", s["schema"])
    assert s["mbufs"]["back"] == s["mbufs"]["total"] > 0, (path, "mbufs", s["mbufs"])
    assert s["apps"]["probe"]["type"] == "probe_source", (path, "probe")
    sinks = [a for a in s["apps"] if a.startswith("sink")]
    assert len(sinks) == r["receivers"], (path, "sinks", sinks)
    assert all(s["apps"][k]["type"] == "probe_sink" for k in sinks), (path, "sink types")
    sent = s["apps"]["probe"]["counters"]["in_packets"]
    links = [l for l in s["links"].values() if l["from"].startswith("probe.output")]
    assert len(links) == r["receivers"], (path, "probe links", len(links))
    drops = sum(l["drops"] for l in links)
    assert sent > 0 and sent >= r["packets"], (path, "sent", sent, r["packets"])
    assert r["sent"] == sent and float(row["sent"]) == sent, (path, "sent", sent, r["sent"], row["sent"])
    assert r["drops"] == drops and float(row["drops"]) == drops, (path, "drops", drops, r["drops"], row["drops"])
    assert int(row["run"]) == r["run"] == i, (path, "run", row["run"], r["run"])
    cpu = s["control_cpu"]
    assert isinstance(cpu, int) and cpu >= 0, (path, "control_cpu", cpu)
    assert r["control_cpu"] == cpu and int(row["control_cpu"]) == cpu, (path, "control_cpu", cpu, r["control_cpu"], row["control_cpu"])
PY
ok "every run's JSON summary: schema 1, every mbuf back, its sent, drops and control CPU in the results"

header="run,kind,hop_class,tx_cpu,rx_cpus,receivers,load_pps,ops,size,packets,lost,reordered,mpps,p50_ns,p90_ns,p99_ns,p999_ns,max_ns"
[[ $(head -n 1 "$B/results.csv") == "$header"* ]] ||
  fail "CSV header is '$(head -n 1 "$B/results.csv")'"
rows=$(($(wc -l <"$B/results.csv") - 1))
[[ $rows -eq $runs ]] || fail "CSV has $rows rows, expected $runs"
awk -F, 'NR > 1 {
  n = split("1 4 6 7 9 10 11 12 13 14 15 16 17 18 19", c, " ")
  for (i = 1; i <= n; i++)
    if ($c[i] !~ /^[0-9]+(\.[0-9]+)?$/) { print "row " NR - 1 ": column " c[i] " is \"" $c[i] "\""; bad = 1 }
  if ($2 != "pair" && $2 != "receivers") { print "row " NR - 1 ": kind " $2; bad = 1 }
  if ($8 != "sluice" && $8 != "dpdk") { print "row " NR - 1 ": ops " $8; bad = 1 }
  if ($5 !~ /^[0-9]+( [0-9]+)*$/) { print "row " NR - 1 ": rx_cpus \"" $5 "\""; bad = 1 }
  if (!($14 <= $15 && $15 <= $16 && $16 <= $17 && $17 <= $18)) {
    print "row " NR - 1 ": percentiles out of order: " $14, $15, $16, $17, $18; bad = 1 }
  if (!($19 <= $14)) { print "row " NR - 1 ": min " $19 " above p50 " $14; bad = 1 }
  if ($10 <= 0) { print "row " NR - 1 ": no packets"; bad = 1 }
} END { exit bad }' "$B/results.csv" || fail "malformed CSV rows"
grep -q '^[0-9]*,pair,local,' "$B/results.csv" || fail "no local pair run"
grep -q '^[0-9]*,receivers,' "$B/results.csv" || [[ $(nproc) -lt 2 ]] || fail "no receivers run"
ok "CSV: header, $rows rows, numbers, p50 <= p90 <= p99 <= p99.9 <= max"

python3 -m json.tool "$B/results.json" >/dev/null || fail "results.json does not parse"
python3 - "$B/results.json" "$B/results.csv" "$runs" <<'PY' || fail "results.json does not match"
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
runs = int(sys.argv[3])
assert "machine" in d and "runs" in d, "no 'machine' or 'runs'"
m = d["machine"]
assert isinstance(m["lscpu"], str) and "CPU" in m["lscpu"], "machine.lscpu"
assert m["hwloc_xml"] == "machine.xml", "machine.hwloc_xml"
assert d["complete"] is True and len(d["runs"]) == runs == len(rows), "run count"
for r, row in zip(d["runs"], rows):
    for k in ("run", "kind", "hop_class", "tx_cpu", "receivers", "load_pps", "ops", "size",
              "packets", "lost", "reordered", "mpps", "p50_ns", "p90_ns", "p99_ns",
              "p999_ns", "max_ns"):
        assert str(r[k]) == row[k] or float(r[k]) == float(row[k]), (k, r[k], row[k])
    assert " ".join(map(str, r["rx_cpus"])) == row["rx_cpus"]
    h = r["histogram"]
    assert h and all(len(b) == 3 and b[0] < b[1] for b in h), "histogram buckets"
    assert sum(b[2] for b in h) == r["packets"], "histogram total != packets"
    assert len(r["per_receiver"]) == r["receivers"]
PY
ok "JSON: parses, has the machine and the runs, agrees with the CSV, histograms sum to packets"

# The pair's c2c around every run across CPUs (none for a local run), its
# regime from the two, the same in the CSV, the JSON and the progress line.
python3 - "$B/results.json" "$B/results.csv" "$T/bench.err" <<'PY' || fail "the runs' c2c and regime"
import csv, json, sys
d = json.load(open(sys.argv[1]))["runs"]
rows = list(csv.DictReader(open(sys.argv[2])))
err = open(sys.argv[3]).read()
def regime(a, b):
    return ("near" if a < 100 else "far") if (a < 100) == (b < 100) else "mixed"
crossed = 0
for r, row in zip(d, rows):
    across = any(c != r["tx_cpu"] for c in r["rx_cpus"])
    if not across:
        assert r["c2c_before_ns"] is None and r["c2c_after_ns"] is None and r["regime"] is None, r
        assert row["c2c_before_ns"] == row["c2c_after_ns"] == row["regime"] == "", row
        continue
    crossed += 1
    a, b = r["c2c_before_ns"], r["c2c_after_ns"]
    assert a > 0 and b > 0, (r["run"], a, b)
    assert float(row["c2c_before_ns"]) == a and float(row["c2c_after_ns"]) == b, (row, a, b)
    assert r["regime"] == row["regime"] == regime(a, b), (r["run"], a, b, r["regime"], row["regime"])
    line = "c2c %.1f/%.1f ns %s" % (a, b, r["regime"])
    assert line in err, (line, "not in the progress lines")
print(crossed)
PY
ok "c2c before and after every run across CPUs, its regime in the CSV, the JSON and the progress"

# The closing summary at unlimited load: the farthest pair over the local
# one (ops sluice), that pair's pools, the c2c around it; none without a
# pair across CPUs.
B2=$T/b2
"$SLUICE" bench latency --quick --loads 0 --receivers 0 --out "$B2" >"$T/sum.out" 2>"$T/sum.err" ||
  { cat "$T/sum.err" >&2; fail "sluice bench latency --quick --loads 0 failed"; }
python3 - "$B2/results.json" "$T/sum.out" <<'PY' || { cat "$T/sum.out" >&2; fail "the summary line"; }
import json, re, statistics, sys
d = json.load(open(sys.argv[1]))["runs"]
out = open(sys.argv[2]).read()
local = [r for r in d if r["hop_class"] == "local" and r["ops"] == "sluice"]
pairs = [r for r in d if r["hop_class"] != "local" and r["kind"] == "pair"]
if not pairs:
    assert "summary:" not in out, out
    sys.exit(0)
x = [r for r in pairs if r["tx_cpu"] == pairs[-1]["tx_cpu"] and r["rx_cpus"] == pairs[-1]["rx_cpus"]]
xs = [r for r in x if r["ops"] == "sluice"][0]
xd = [r for r in x if r["ops"] == "dpdk"][0]
m = re.fullmatch(r"summary: cliff_ratio=([0-9.]+) pool_ratio_across=([0-9.]+) "
                 r"c2c_ns=([0-9.]+) regime=(near|far|mixed)\n", out)
assert m, out
cliff, pool, c2c, reg = float(m[1]), float(m[2]), float(m[3]), m[4]
assert abs(cliff - xs["mpps"] / local[0]["mpps"]) < 0.0015, (cliff, xs["mpps"], local[0]["mpps"])
assert abs(pool - xs["mpps"] / xd["mpps"]) < 0.0015, (pool, xs["mpps"], xd["mpps"])
v = [r[k] for r in (xs, xd) for k in ("c2c_before_ns", "c2c_after_ns")]
assert abs(c2c - statistics.median(v)) < 0.051, (c2c, v)
want = "near" if max(v) < 100 else "far" if min(v) >= 100 else "mixed"
assert reg == want, (reg, v)
PY
ok "summary: cliff_ratio, pool_ratio_across, c2c_ns and regime from the runs at unlimited load"

# ---------------------------------------------------------------- --memory 2m
# The runs on 2 MB hugepages (--in-memory --socket-mem 512) where 256 of them
# are free on NUMA node 0; else the bench refuses at once, saying so.
hp=/sys/devices/system/node/node0/hugepages/hugepages-2048kB
[[ -e $hp ]] || hp=/sys/kernel/mm/hugepages/hugepages-2048kB
free2m=$(cat "$hp/free_hugepages" 2>/dev/null || echo 0)
B3=$T/b3
"$SLUICE" bench latency --quick --memory 2m --receivers 0 --ops sluice --out "$B3" \
  >"$T/2m.out" 2>"$T/2m.err"
rc=$?
if ((free2m >= 256)); then
  [[ $rc -eq 0 ]] || { cat "$T/2m.err" >&2; fail "bench latency --memory 2m exited $rc"; }
  grep -q -- '--in-memory, --socket-mem, "512"' "$B3/runs/001.yaml" ||
    { cat "$B3/runs/001.yaml" >&2; fail "--memory 2m: the run's config does not ask for hugepages"; }
  python3 - "$B3" <<'PY' || fail "--memory 2m: the options or the runs' summaries"
import glob, json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
assert d["options"]["memory"] == "2m", d["options"]
assert d["complete"] is True and d["runs"], "no runs"
for path in glob.glob(sys.argv[1] + "/runs/*-summary.json"):
    s = json.load(open(path))
    assert s["mbufs"]["back"] == s["mbufs"]["total"] > 0, (path, s["mbufs"])
PY
  ok "--memory 2m: the runs on hugepages, every mbuf back, memory in the options"
else
  [[ $rc -eq 1 ]] || { cat "$T/2m.err" >&2; fail "bench latency --memory 2m without hugepages exited $rc, expected 1"; }
  grep -qE -- "--memory 2m: $free2m free 2 MB hugepages( on NUMA node 0)?, 256 needed \(as root, raise $hp/nr_hugepages by $((256 - free2m))\)" "$T/2m.err" ||
    { cat "$T/2m.err" >&2; fail "--memory 2m without hugepages: no message saying what is missing"; }
  [[ ! -e $B3 ]] || fail "--memory 2m without hugepages created its output directory"
  ok "--memory 2m without hugepages: exit 1, saying what is missing"
fi
grep -q -- '--no-huge, -m, "512"' "$B/runs/001.yaml" || fail "the default (--memory 4k) runs are not on --no-huge"
# --order: the pool's order of the runs with ops sluice (shuffled unless
# asked), none with ops dpdk (pool.order is Sluice's pool's).
grep -q 'pool: { ops: sluice, mbufs: 16383, order: shuffled }' "$B/runs/001.yaml" ||
  { cat "$B/runs/001.yaml" >&2; fail "the default runs with ops sluice are not shuffled"; }
"$SLUICE" bench latency --quick --order address --ops sluice,dpdk --receivers 0 --out "$T/ord" >/dev/null 2>"$T/ord.err" ||
  { cat "$T/ord.err" >&2; fail "bench latency --order address failed"; }
grep -q 'pool: { ops: sluice, mbufs: 16383, order: address }' "$T/ord/runs/001.yaml" &&
  grep -q 'pool: { ops: dpdk, mbufs: 16383 }' "$T/ord/runs/002.yaml" ||
  { cat "$T/ord/runs/"00[12].yaml >&2; fail "--order address: the runs' pools"; }
ok "--order: shuffled by default, address when asked, ops dpdk without it"

# ---------------------------------------------------------------- a failing run
# The first sink cannot open its report (a directory stands in the way): the
# run fails, the bench exits 1 naming it, with the end of its log, and leaves
# well-formed (empty) results.
mkdir -p "$T/f/runs/001-rx0.json"
"$SLUICE" bench latency --quick --out "$T/f" >"$T/fail.out" 2>"$T/fail.err"
rc=$?
[[ $rc -eq 1 ]] || { cat "$T/fail.err" >&2; fail "a failing run: bench exited $rc, expected 1"; }
expect_in "$T/fail.err" "sluice: bench latency: run 1 (local cpu"
expect_in "$T/fail.err" "'sluice run $T/f/runs/001.yaml' exited 1"
expect_in "$T/fail.err" "cannot open '$T/f/runs/001-rx0.json' for writing"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["runs"] == [] and not d["complete"]' \
  "$T/f/results.json" || fail "a failing run: results.json is not an empty, incomplete sweep"
ok "a failing run: exit 1, the run named, the end of its log shown"

# ---------------------------------------------------------------- plots
if command -v gnuplot >/dev/null; then
  echo "cpu,0,1" >"$T/c2c.csv"; echo "0,0.0,50.0" >>"$T/c2c.csv"; echo "1,50.0,0.0" >>"$T/c2c.csv"
  "$SRC/scripts/plot-latency" "$B" --matrix "$T/c2c.csv" >"$T/plot.out" 2>&1 ||
    { cat "$T/plot.out" >&2; fail "scripts/plot-latency failed"; }
  # The receivers plot needs receivers runs, which a one-CPU process has none of.
  plots=(density c2c)
  grep -q '^[0-9]*,receivers,' "$B/results.csv" && plots+=(receivers)
  for p in "${plots[@]}"; do
    [[ $(head -c 4 "$B/latency-$p.png" | od -An -c | tr -d ' ') == "211PNG" ]] ||
      fail "latency-$p.png is not a PNG"
  done
  [[ " ${plots[*]} " == *" receivers "* || ! -e "$B/latency-receivers.png" ]] ||
    fail "latency-receivers.png drawn without receivers runs"
  ok "scripts/plot-latency draws the ${plots[*]} PNGs"
fi
