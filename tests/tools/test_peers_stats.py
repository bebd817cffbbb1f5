#!/usr/bin/env python3
"""scripts/peers/stats.py on canned inputs (tests/data/peers), every output
compared exactly with what scripts/bench-peers printed and wrote for them:

- record and expiry: the runs below give tests/data/peers/runs.txt (the run
  lines) and tests/data/peers/results.csv (the rows), among them runs
  without a CPU time, with CPU time 0 or above the wall time (share held at
  100%), with no cycles, and expiry runs that saw no flow;
- medians on that results.csv: the median lines (l3fwd, with the median of
  each run's ratio to the l3fwd run of its number: 0.887 where the
  medians' ratio is 0.929; OVS by its in_port
  rule and by exact rules; the floors; a flow count OVS did not run; the
  bridge against OVS NORMAL; the
  expiry medians, skipping runs without a number), DIR/ratios (the smallest
  ratio of each kind; NA for none), DIR/medians.csv and the plot data; an
  OVS expiry run whose poller printed nothing is skipped too (it made the
  medians fail before);
- window: a Sluice window from two `sluice stats --json` snapshots;
- ovs-pmd: an OVS window from pmd-perf-show and pmd-stats-show;
- cpu-seconds: a thread's CPU time from two schedstat readings;
- scale (scripts/bench-flowcache-scale): the table by flow count from the
  ovs part's rows above and flowgen rows (the flow cache at 16M flows from
  the source app, with its table's bytes), an expiry run as the flow cache
  measured it (fc-expiry, with the epoch's backlog high-water), and the
  summary line; counter, epoch and fc-expiry on a summary.
"""
import json
import contextlib
import io
import os
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "scripts", "peers"))
import stats as stats_py  # noqa: E402

DATA = os.path.join(SRC, "tests", "data", "peers")
RUNS = 3
failed = 0


def stats(*args):
    """What `stats.py ARGS` prints (run in this process: one interpreter for
    the whole test)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        stats_py.main(list(args))
    return out.getvalue()


def read(path):
    with open(path) as fh:
        return fh.read()


def check(what, got, want):
    global failed
    if got == want:
        print("ok: " + what)
        return
    failed += 1
    print("FAIL: %s" % what)
    for i, (g, w) in enumerate(zip(got.splitlines() + [""] * 99, want.splitlines())):
        if g != w:
            print("  line %d\n  got:  %r\n  want: %r" % (i + 1, g, w))
            break


# PART CONFIG ENGINE RUN PACKETS SECONDS CPU CYCLES HIT EXTRA
RECORDS = [
    ('l3fwd', 'routes=1024 dests=1024', 'sluice', '1', '30123456', '2.001', '1.998', '71.4', '-', ''),
    ('l3fwd', 'routes=1024 dests=1024', 'l3fwd', '1', '24000000', '2.000', '2.000', '-', '-', ''),
    ('l3fwd', 'routes=16384 dests=65536', 'sluice', '1', '20000000', '2.002', '1.501', '95.0', '-', ''),
    ('l3fwd', 'routes=16384 dests=65536', 'l3fwd', '1', '21000000', '2.001', '', '-', '-', ''),
    ('l3fwd', 'routes=1024 dests=1024', 'sluice', '2', '29000000', '2.000', '2.100', '72.9', '-', ''),
    ('l3fwd', 'routes=1024 dests=1024', 'l3fwd', '2', '25500000', '2.003', '1.700', '-', '-', ''),
    ('l3fwd', 'routes=16384 dests=65536', 'sluice', '2', '19500000', '1.999', '1.999', '96.2', '-', ''),
    ('l3fwd', 'routes=16384 dests=65536', 'l3fwd', '2', '22000000', '2.000', '1.990', '-', '-', ''),
    ('l3fwd', 'routes=1024 dests=1024', 'sluice', '3', '31000000', '2.000', '0.000', '70.1', '-', ''),
    ('l3fwd', 'routes=1024 dests=1024', 'l3fwd', '3', '23000000', '2.000', '1.996', '-', '-', ''),
    ('l3fwd', 'routes=16384 dests=65536', 'sluice', '3', '18000000', '2.000', '1.800', '-', '-', ''),
    ('l3fwd', 'routes=16384 dests=65536', 'l3fwd', '3', '20500000', '2.004', '2.004', '-', '-', ''),
    ('ovs', 'flows=1', 'sluice', '1', '40000000', '2.000', '1.999', '50.2', '100.0', 'flowcache 12.3 cycles/packet'),
    ('ovs', 'flows=1', 'sluice-io', '1', '50000000', '2.000', '2.000', '40.0', '-', ''),
    ('ovs', 'flows=1', 'testpmd-io', '1', '52000000', '2.001', '1.997', '-', '-', ''),
    ('ovs', 'flows=1', 'ovs', '1', '16000000', '2.010', '2.009', '130.5', '100.0', 'simple match 99.9% emc 0.1% smc 0.0% megaflow 0.0% upcall 0.00%'),
    ('ovs', 'flows=1', 'sluice', '2', '41000000', '2.000', '2.000', '49.8', '100.0', 'flowcache 12.1 cycles/packet'),
    ('ovs', 'flows=1', 'sluice-io', '2', '49000000', '2.000', '1.998', '40.9', '-', ''),
    ('ovs', 'flows=1', 'testpmd-io', '2', '51000000', '2.000', '1.999', '-', '-', ''),
    ('ovs', 'flows=1', 'ovs', '2', '17000000', '2.011', '2.011', '128.0', '100.0', 'simple match 99.9% emc 0.1% smc 0.0% megaflow 0.0% upcall 0.00%'),
    ('ovs', 'flows=1024', 'sluice', '1', '30000000', '2.000', '1.990', '66.6', '99.9', 'flowcache 28.0 cycles/packet'),
    ('ovs', 'flows=1024', 'sluice-io', '1', '48000000', '2.000', '2.000', '41.0', '-', ''),
    ('ovs', 'flows=1024', 'testpmd-io', '1', '50000000', '2.000', '2.000', '-', '-', ''),
    ('ovs', 'flows=1024', 'ovs', '1', '12000000', '2.009', '2.009', '170.2', '100.0', 'simple match 99.8% emc 0.2% smc 0.0% megaflow 0.0% upcall 0.00%'),
    ('ovs', 'flows=1024', 'ovs-exact', '1', '9000000', '2.010', '2.010', '230.4', '100.0', 'simple match 0.0% emc 97.6% smc 0.0% megaflow 2.4% upcall 0.00%'),
    ('ovs', 'flows=1024', 'sluice', '2', '31000000', '2.000', '2.000', '65.1', '99.9', 'flowcache 27.5 cycles/packet'),
    ('ovs', 'flows=1024', 'sluice-io', '2', '47000000', '2.000', '2.000', '41.8', '-', ''),
    ('ovs', 'flows=1024', 'testpmd-io', '2', '50500000', '2.000', '2.000', '-', '-', ''),
    ('ovs', 'flows=1024', 'ovs', '2', '12500000', '2.008', '2.008', '168.9', '100.0', 'simple match 99.8% emc 0.2% smc 0.0% megaflow 0.0% upcall 0.00%'),
    ('ovs', 'flows=1024', 'ovs-exact', '2', '9500000', '2.010', '2.010', '226.0', '100.0', 'simple match 0.0% emc 97.9% smc 0.0% megaflow 2.1% upcall 0.00%'),
    ('ovs', 'flows=1048576', 'sluice', '1', '16000000', '2.000', '1.999', '130.0', '62.5', 'flowcache 60.2 cycles/packet'),
    ('ovs', 'flows=1048576', 'sluice', '2', '15000000', '2.000', '1.999', '138.8', '62.0', 'flowcache 63.0 cycles/packet'),
    ('bridge', 'macs=2', 'sluice', '1', '60000000', '2.000', '2.000', '81.0', '100.0', 'bridge 25.1 cycles/packet'),
    ('bridge', 'macs=2', 'ovs', '1', '30000000', '2.000', '2.000', '166.0', '100.0', 'simple match 0.0% emc 100.0% smc 0.0% megaflow 0.0% upcall 0.00%; fdb 2/2048'),
    ('bridge', 'macs=2', 'sluice', '2', '62000000', '2.000', '2.000', '79.0', '100.0', 'bridge 24.9 cycles/packet'),
    ('bridge', 'macs=2', 'ovs', '2', '31000000', '2.000', '2.000', '164.0', '100.0', 'simple match 0.0% emc 100.0% smc 0.0% megaflow 0.0% upcall 0.00%; fdb 2/2048'),
]
# ENGINE RUN RESULT (gen.py records or ovs-expiry), of 1000 flows
EXPIRY = [
    ('sluice', '1', '1000 1003.2 1510.4 1905.0 1990.7 2001.9'),
    ('ovs', '1', '1000 1201.0 5120.5 9800.1 10600.0 10710.2 512 12'),
    ('sluice', '2', '1000 1002.9 1498.7 1899.5 1989.9 2003.3'),
    ('ovs', '2', '0 NA NA NA NA NA 1500 11'),
    ('sluice', '3', '0 NA NA NA NA NA'),
]

MEDIANS = """\
l3fwd routes=1024 dests=1024 sluice 15.054 Mpps (14.50..15.50; per CPU-s 14.443)  l3fwd 12.000 Mpps (11.50..12.73; per CPU-s 12.000)  ratio 1.254 (per CPU-s 1.204)  cycles/pkt sluice 71  paired ratio 1.254
l3fwd routes=16384 dests=65536 sluice 9.755 Mpps (9.00..9.99; per CPU-s 10.000)  l3fwd 10.495 Mpps (10.23..11.00; per CPU-s 10.642)  ratio 0.929 (per CPU-s 0.940)  cycles/pkt sluice 96  paired ratio 0.887
ovs   flows=1                sluice 20.250 Mpps (20.00..20.50; per CPU-s 20.255)  ovs   8.207 Mpps (7.96..8.45; per CPU-s 8.209)  ratio 2.467 (per CPU-s 2.467)  cycles/pkt sluice 50 ovs 129, hits sluice 100.0% ovs 100.0%
ovs   flows=1                sluice-io 24.750 Mpps (24.50..25.00; per CPU-s 24.762)  ovs   8.207 Mpps (7.96..8.45; per CPU-s 8.209)  ratio 3.016 (per CPU-s 3.017)  cycles/pkt sluice-io 40 ovs 129
ovs   flows=1                testpmd-io 25.743 Mpps (25.50..25.99; per CPU-s 25.776)  ovs   8.207 Mpps (7.96..8.45; per CPU-s 8.209)  ratio 3.137 (per CPU-s 3.140)  cycles/pkt testpmd-io NA ovs 129
ovs   flows=1024             sluice 15.250 Mpps (15.00..15.50; per CPU-s 15.288)  ovs   6.099 Mpps (5.97..6.22; per CPU-s 6.099)  ratio 2.500 (per CPU-s 2.507)  cycles/pkt sluice 66 ovs 170, hits sluice 99.9% ovs 100.0%
ovs   flows=1024             sluice 15.250 Mpps (15.00..15.50; per CPU-s 15.288)  ovs-exact 4.602 Mpps (4.48..4.73; per CPU-s 4.602)  ratio 3.314 (per CPU-s 3.322)  cycles/pkt sluice 66 ovs-exact 228, hits sluice 99.9% ovs-exact 100.0%
      ovs-exact hit split, run by run: simple match 0.0% emc 97.6% smc 0.0% megaflow 2.4% upcall 0.00% | simple match 0.0% emc 97.9% smc 0.0% megaflow 2.1% upcall 0.00%
ovs   flows=1024             sluice-io 23.750 Mpps (23.50..24.00; per CPU-s 23.750)  ovs   6.099 Mpps (5.97..6.22; per CPU-s 6.099)  ratio 3.894 (per CPU-s 3.894)  cycles/pkt sluice-io 41 ovs 170
ovs   flows=1024             testpmd-io 25.125 Mpps (25.00..25.25; per CPU-s 25.125)  ovs   6.099 Mpps (5.97..6.22; per CPU-s 6.099)  ratio 4.120 (per CPU-s 4.119)  cycles/pkt testpmd-io NA ovs 170
ovs   flows=1048576          sluice 7.750 Mpps (7.50..8.00; per CPU-s 7.754)  ovs   NA Mpps (; per CPU-s NA)  ratio NA (per CPU-s NA)  cycles/pkt sluice 134 ovs NA, hits sluice 62.2% ovs NA%
bridge macs=2                 sluice 30.500 Mpps (30.00..31.00; per CPU-s 30.500)  ovs   15.250 Mpps (15.00..15.50; per CPU-s 15.250)  ratio 2.000 (per CPU-s 2.000)  cycles/pkt sluice 80 ovs 165, hits sluice 100.0% ovs 100.0%
expiry sluice medians over 2 runs of the delay from last packet to state gone, ms: p0 1003 p50 1505 p90 1902 p99 1990 max 2003
expiry ovs    medians over 1 runs of the delay from last packet to state gone, ms: p0 1201 p50 5120 p90 9800 p99 10600 max 10710
"""

RATIOS = """\
l3fwd 0.929
l3fwd6 NA
ovs 2.467
ovs-exact 3.314
sluice-io 3.016
testpmd-io 3.137
bridge 2.000
flowgen NA
"""

PLOTS = {
    "l3fwd": """\
1024 1024 15.054 12.0
65536 16384 9.755 10.495
""",
    "ovs": """\
1 20.25 8.207
1024 15.25 6.099
1048576 7.75 NaN
""",
    "ovs-exact": """\
1024 4.602
""",
    "sluice-io": """\
1 24.75
1024 23.75
""",
    "testpmd-io": """\
1 25.743499999999997
1024 25.125
""",
    "bridge": """\
2 30.5 15.25
""",
}

with tempfile.TemporaryDirectory() as d:
    csv_path = os.path.join(d, "results.csv")
    with open(csv_path, "w") as fh:
        fh.write("part,config,engine,run,mpps,packets,seconds,cpu_s,cycles_per_pkt,hit_pct,extra\n")
    lines = "".join(stats("record", csv_path, str(RUNS), *r) for r in RECORDS)
    lines += "".join(stats("expiry", csv_path, str(RUNS), "1000", *e) for e in EXPIRY)
    check("record and expiry: the run lines", lines, read(os.path.join(DATA, "runs.txt")))
    check("record and expiry: results.csv", read(csv_path), read(os.path.join(DATA, "results.csv")))

    out = stats("medians", os.path.join(DATA, "results.csv"), d)
    check("medians: the lines", out, MEDIANS)
    check("medians: ratios", read(os.path.join(d, "ratios")), RATIOS)
    check("medians: medians.csv", read(os.path.join(d, "medians.csv")), read(os.path.join(DATA, "medians.csv")))
    # an OVS expiry run whose poller printed nothing is left out as NA is
    with open(os.path.join(DATA, "results.csv")) as fh, open(csv_path, "w") as out:
        out.write(fh.read())
    stats("expiry", csv_path, str(RUNS), "1000", "ovs", "3", "")
    check("medians: an expiry run without a result", stats("medians", csv_path, d), MEDIANS)
    stats("plot-data", d)
    for k, want in PLOTS.items():
        check("plot-data: plot-%s.dat" % k, read(os.path.join(d, "plot-%s.dat" % k)), want)

snap = [os.path.join(DATA, f) for f in ("stats-1.json", "stats-2.json", "summary.json")]
check("window: flow cache", stats("window", *snap, "out", "fc"), "30123457 2.002 66.1 99.9 27.9\n")
check("window: no flow cache", stats("window", *snap, "out", "-"), "30123457 2.002 66.1 - -\n")
check("ovs-pmd", stats("ovs-pmd", os.path.join(DATA, "pmd-perf.txt"), os.path.join(DATA, "pmd-stats.txt")),
      "25598976 2.004 172.2 100.0 simple match 0.0% emc 97.6% smc 0.0% megaflow 2.4% upcall 0.00%\n")
check("cpu-seconds", stats("cpu-seconds", "1000000000", "3001500501"), "2.002\n")
check("cpu-seconds: unknown", stats("cpu-seconds", "", "3001500501"), "")

FLOWGEN = [
    ('flowgen', 'flows=16777216', 'sluice', '1', '20000000', '2.000', '2.000', '120.0', '100.0',
     'flowcache 100.5 cycles/packet; table 3221225472 bytes for 16777216 entries'),
    ('flowgen', 'flows=16777216', 'sluice-io', '1', '100000000', '2.000', '2.000', '24.0', '-', ''),
    ('flowgen', 'flows=16777216', 'sluice', '2', '22000000', '2.000', '2.000', '110.0', '100.0',
     'flowcache 95.5 cycles/packet; table 3221225472 bytes for 16777216 entries'),
    ('flowgen', 'flows=16777216', 'sluice-io', '2', '96000000', '2.000', '2.000', '25.0', '-', ''),
]
SCALE = """\
source        flows  runs         flowcache Mpps  fc cyc/p     cyc/p     floor   ratio       OVS   ratio OVS exact   ratio bytes/flow
pcap              1     2   20.25 (20.00..20.50)      12.2        50     24.75   0.818      8.21   2.467        NA      NA        NA
pcap           1024     2   15.25 (15.00..15.50)      27.8        66     23.75   0.642      6.10   2.500      4.60   3.314        NA
pcap        1048576     2      7.75 (7.50..8.00)      61.6       134        NA      NA        NA      NA        NA      NA        NA
generator  16777216     2   10.50 (10.00..11.00)      98.0       115     49.00   0.214        NA      NA        NA      NA       192
expiry: 1048576 flows stopping at once, run 1: 1048576 flows' state gone, delay after the last packet ms p50 1012.5 p99 1120.0 max 1130.5; backlog_hwm 32
expiry (source app): 16777216 flows stopping at once, run 1: 16777216 flows' state gone, delay after the last packet ms p50 11627.4 p99 13791.6 max 13882.5; backlog_hwm 4096
summary: floor_ratio_min=NA floor_ratio_small_min=0.642 ovs_exact_ratio_min=3.314 ovs_ratio_min=2.467 mpps_16m=10.50
"""
with tempfile.TemporaryDirectory() as d:
    csv_path = os.path.join(d, "results.csv")
    with open(os.path.join(DATA, "results.csv")) as fh, open(csv_path, "w") as out:
        out.writelines(r for r in fh if r.startswith(("part,", "ovs,")))
    for r in FLOWGEN:
        stats("record", csv_path, "2", *r)
    stats("expiry", csv_path, "1", "1048576", "sluice", "1", "1048576 NA 1012.5 NA 1120.0 1130.5 backlog_hwm=32")
    stats("expiry", csv_path, "1", "16777216", "sluice-gen", "1",
          "16777216 NA 11627.4 NA 13791.6 13882.5 backlog_hwm=4096")
    check("scale: the table and summary", stats("scale", csv_path, d), SCALE)
    check("scale: scale-generator.dat", read(os.path.join(d, "scale-generator.dat")),
          "# flows flowcache_mpps floor_mpps ovs_mpps ovs_exact_mpps fc_cycles cycles floor_cycles ovs_cycles\n"
          "16777216 10.500 49.000 NaN NaN 98.000 115.000 24.500 NaN\n")
    summ = os.path.join(d, "summary.json")
    with open(summ, "w") as fh:
        json.dump({"apps": {"fc": {"counters": {"idle": 1048576, "expiry_late_us_p50": 12500,
                                                "expiry_late_us_p99": 120000, "expiry_late_us_max": 130500,
                                                "table_bytes": 413139904}}},
                   "epoch": {"backlog_hwm": 32}}, fh)
    check("fc-expiry", stats("fc-expiry", summ, "fc", "1000"), "1048576 NA 1012.5 NA 1120.0 1130.5\n")
    check("counter", stats("counter", summ, "fc", "table_bytes"), "413139904\n")
    check("epoch", stats("epoch", summ), "backlog_hwm=32\n")
    check("live", stats("live", os.path.join(DATA, "stats-2.json"), "fc"), "%d\n" % json.load(
        open(os.path.join(DATA, "stats-2.json")))["apps"]["fc"]["counters"].get("live", 0))
    with open(summ, "w") as fh:
        json.dump({"apps": {"fc": {"counters": {"live": 16777216}}}}, fh)
    check("live: a full table", stats("live", summ, "fc"), "16777216\n")

sys.exit(1 if failed else 0)
