#!/usr/bin/env python3
"""Statistics and tables of scripts/bench-peers (python3 standard library only).

bench-peers starts the engines and collects raw numbers; everything computed
from them is here:

  stats.py cpu-seconds NS0 NS1      (NS1 - NS0) / 1e9 with three decimals: a
                                    thread's CPU time between two schedstat
                                    readings; nothing where either is empty
  stats.py window S1 S2 SUMMARY OUTAPP FCAPP [WORKER]
                                    a Sluice run measured between two
                                    `sluice stats --json` snapshots S1 and S2
                                    (SUMMARY: its --summary-json, whose mbufs
                                    must all be back): prints "packets seconds
                                    cycles_per_pkt hit_pct fc_cycles_per_pkt"
                                    (OUTAPP's out_packets; the busy cycles of
                                    every worker, or of WORKER alone; the flow
                                    cache FCAPP's hits and own cycles, "-" for
                                    none)
  stats.py counter SUMMARY APP NAME the counter NAME of APP in a summary
  stats.py live SNAPSHOT APP        the flows in APP's table (its live gauge)
                                    in a `sluice stats --json` snapshot
  stats.py epoch SUMMARY            "backlog_hwm=H": the epoch's backlog
                                    high-water in a summary
  stats.py fc-expiry SUMMARY APP TIMEOUT_MS
                                    an expiry run as the flow cache APP saw
                                    it (its expiry_late_us_* plus the idle
                                    timeout): "count NA p50 NA p99 max", ms
  stats.py ovs-pmd PERF STATS       an OVS window from `dpif-netdev/pmd-perf-show`
                                    and `pmd-stats-show`: prints "packets seconds
                                    cycles_per_pkt hit_pct" and the hit split
  stats.py record CSV RUNS PART CONFIG ENGINE RUN PACKETS SECONDS CPU CYCLES HIT EXTRA
                                    prints one run's line and appends its row to
                                    CSV (results.csv); CPU, CYCLES, HIT may be
                                    "" or "-" where unknown
  stats.py expiry CSV RUNS FLOWS ENGINE RUN RESULT
                                    the same for a run of the expiry part; RESULT
                                    is what `gen.py records` (sluice) or
                                    `gen.py ovs-expiry` (ovs) printed
  stats.py medians CSV DIR          the medians of results.csv, engine against
                                    peer, one line a configuration; writes
                                    DIR/medians.csv and DIR/ratios (each ratio's
                                    smallest value over the configurations, or NA)
  stats.py plot-data DIR            gnuplot's data files DIR/plot-*.dat from
                                    DIR/medians.csv
  stats.py scale CSV DIR            scripts/bench-flowcache-scale's table (the
                                    ovs and flowgen parts' medians by flow
                                    count), DIR/scale.dat for its plot, and its
                                    summary line

The formats are those bench-peers has always printed (docs/benchmarks.md
quotes them); tests/tools/test_peers_stats.py checks them on a canned
results file.
"""
import csv
import json
import re
import statistics
import sys

CSV_HEADER = "part,config,engine,run,mpps,packets,seconds,cpu_s,cycles_per_pkt,hit_pct,extra\n"
RATIO_KEYS = ("l3fwd", "l3fwd6", "ovs", "ovs-exact", "sluice-io", "testpmd-io", "bridge", "flowgen")


def cmd_cpu_seconds(ns0, ns1):
    if ns0 != "" and ns1 != "":
        print("%.3f" % ((float(ns1) - float(ns0)) / 1e9))


def cmd_counter(summary, app, name):
    print(json.load(open(summary))["apps"][app]["counters"][name])


def cmd_fc_expiry(summary, app, timeout_ms):
    """A flow cache's own view of an expiry run: "count p0 p50 p90 p99 max"
    of the delay from each flow's last packet to its unlink, in ms, as
    gen.py records prints it (p0 and p90 unknown: NA); count is the flows
    ended idle."""
    c = json.load(open(summary))["apps"][app]["counters"]
    t = float(timeout_ms)
    print("%d NA %.1f NA %.1f %.1f" % (c["idle"], t + c["expiry_late_us_p50"] / 1e3,
                                       t + c["expiry_late_us_p99"] / 1e3, t + c["expiry_late_us_max"] / 1e3))


def cmd_live(snapshot, app):
    print(json.load(open(snapshot))["apps"][app]["counters"].get("live", 0))


def cmd_epoch(summary):
    print("backlog_hwm=%d" % json.load(open(summary))["epoch"]["backlog_hwm"])


def cmd_window(s1, s2, summary, o, fc, worker=None):
    a, b, s = (json.load(open(f)) for f in (s1, s2, summary))
    if s["mbufs"]["back"] != s["mbufs"]["total"]:
        sys.exit("only %d of %d mbufs back" % (s["mbufs"]["back"], s["mbufs"]["total"]))

    def d(f):
        return f(b) - f(a)
    # o: an app, or several separated by commas (their out_packets summed)
    out = sum(d(lambda x, a=a: x["apps"][a]["counters"]["out_packets"]) for a in o.split(","))
    secs = d(lambda x: x["live"]["elapsed_ns"]) / 1e9
    busy = d(lambda x: sum(w["busy_cycles"] or 0 for n, w in x["workers"].items()
                           if worker is None or n == worker))
    hit = fcc = "-"
    if fc != "-":
        if "forwarded" in b["apps"][fc]["counters"]:   # a bridge: forwarded, not flooded
            hits = d(lambda x: x["apps"][fc]["counters"]["forwarded"])
            look = hits + d(lambda x: x["apps"][fc]["counters"]["flooded"])
        else:
            look = d(lambda x: x["apps"][fc]["counters"]["lookups"])
            hits = d(lambda x: x["apps"][fc]["counters"]["hits"])
        hit = "%.1f" % (100.0 * hits / look) if look else "-"

        def rt(x):
            return x["apps"][fc]["runtime"] or {}
        pk = d(lambda x: rt(x).get("push_packets") or 0)
        cy = d(lambda x: rt(x).get("push_cycles") or 0)
        fcc = "%.1f" % (cy / pk) if pk and cy else "-"
    print(out, "%.3f" % secs, "%.1f" % (busy / out) if out and busy else "-", hit, fcc)


def cmd_ovs_pmd(perf_file, stats_file):
    perf, stats = open(perf_file).read(), open(stats_file).read()
    pmd = stats.split("main thread:")[0]

    def g(pat, t):
        return float(re.search(pat, t).group(1))
    dur = g(r"Measurement duration:\s*([0-9.]+)", perf)
    tx = g(r"Tx packets:\s*(\d+)", perf)
    rx = g(r"packets received:\s*(\d+)", pmd)
    emc, smc, mf, simple = (g(r"%s hits:\s*(\d+)" % k, pmd) for k in ("emc", "smc", "megaflow", "simple match"))
    up = g(r"miss with success upcall:\s*(\d+)", pmd) + g(r"miss with failed upcall:\s*(\d+)", pmd)
    cyc = g(r"avg processing cycles per packet:\s*([0-9.]+)", pmd)

    def pc(x):
        return 100.0 * x / rx if rx else 0
    print("%d %.3f %.1f %.1f simple match %.1f%% emc %.1f%% smc %.1f%% megaflow %.1f%% upcall %.2f%%" % (
        tx, dur, cyc, pc(simple + emc + smc + mf), pc(simple), pc(emc), pc(smc), pc(mf), pc(up)))


def known(v):
    return v not in ("", "-")


def cmd_record(csv_path, runs, part, cfg, engine, run, packets, secs, cpu, cyc, hit, extra):
    mpps = "%.3f" % (float(packets) / float(secs) / 1e6)
    txt = ""
    if known(cpu) and float(cpu) > 0:
        share = min(100 * float(cpu) / float(secs), 100)
        percpu = "%.3f" % (float(packets) / float(cpu) / 1e6)
        txt = "; on its CPU %.0f%%, %s Mpps per CPU-second" % (share, percpu)
    if cyc != "-":
        txt += "; %s cycles/packet" % cyc
    if hit != "-":
        txt += "; hits %s%%" % hit
    if extra:
        txt += "; " + extra
    print("run %d/%d  %-6s %-22s %-7s %8.3f Mpps  (%d packets in %s s%s)" % (
        int(run), int(runs), part, cfg, engine, float(mpps), int(packets), secs, txt))
    with open(csv_path, "a") as fh:
        fh.write(",".join((part, cfg, engine, run, mpps, packets, secs, cpu, cyc, hit,
                           extra.replace(",", ";"))) + "\n")


def awk_int(s):
    """A field printed with awk's %d: its leading number, 0 for none."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s)
    return int(float(m.group(0))) if m else 0


def cmd_expiry(csv_path, runs, flows, engine, run, result):
    # "backlog_hwm=H" (Sluice: the epoch's backlog high-water) rides at the
    # end of extra, after a '|'
    backlog = [x for x in result.split() if x.startswith("backlog_hwm=")]
    v = [x for x in result.split() if not x.startswith("backlog_hwm=")]
    f = v + [""] * (8 - len(v))
    head = "run %d/%d  expiry %-6s  flows %d: delay ms p0 %s p50 %s p90 %s p99 %s max %s" % (
        int(run), int(runs), engine, awk_int(f[0]), f[1], f[2], f[3], f[4], f[5])
    extra = ";".join(f[1:6])
    if engine == "ovs":
        head += " (%d polls of %s ms each)" % (awk_int(f[6]), f[7])
        extra += ";polls %s of %s ms" % (f[6], " ".join(v[7:]))
    else:
        extra = ";".join(f[1:5] + [" ".join(v[5:])])
    if backlog:
        head += "; epoch backlog high-water " + backlog[0].split("=", 1)[1]
        extra += "|" + backlog[0]
    print(head)
    with open(csv_path, "a") as fh:
        fh.write("expiry,flows=%s,%s,%s,,%s,,,,,%s\n" % (flows, engine, run, f[0], extra))


def cmd_medians(csv_path, d):
    rows = [r for r in csv.DictReader(open(csv_path))
            if r["part"] in ("l3fwd", "l3fwd6", "ovs", "bridge", "flowgen")]

    def med(v):
        return statistics.median(v) if v else None
    configs = []
    for r in rows:
        if (r["part"], r["config"]) not in configs:
            configs.append((r["part"], r["config"]))
    ratios = {k: [] for k in RATIO_KEYS}
    out = open(d + "/medians.csv", "w")
    out.write("part,config,sluice_mpps,peer_mpps,ratio,sluice_percpu,peer_percpu,percpu_ratio,"
              "sluice_cyc,peer_cyc,sluice_hit,peer_hit\n")

    def has(e, cfg):
        return any(r["engine"] == e and r["config"] == cfg for r in rows)
    # (part, config, engine, peer, key): engine's median over peer's, kept as key
    pairs = []
    for part, cfg in configs:
        if part in ("l3fwd", "l3fwd6"):
            pairs.append((part, cfg, "sluice", "l3fwd", part))
        elif part == "bridge":
            pairs.append((part, cfg, "sluice", "ovs", "bridge"))
        elif part == "flowgen":   # the flow cache over its floor
            pairs.append((part, cfg, "sluice", "sluice-io", "flowgen"))
        else:
            pairs.append((part, cfg, "sluice", "ovs", "ovs"))
            if has("ovs-exact", cfg):
                pairs.append((part, cfg, "sluice", "ovs-exact", "ovs-exact"))
            for fl in ("sluice-io", "testpmd-io"):
                if has(fl, cfg):
                    pairs.append((part, cfg, fl, "ovs", fl))

    def stat(rs, k):
        return med([float(r[k]) for r in rs if known(r[k])])

    def percpu(rs):
        return med([float(r["packets"]) / float(r["cpu_s"]) / 1e6 for r in rs
                    if known(r["cpu_s"]) and float(r["cpu_s"]) > 0])

    def spread(rs):
        return "%.2f..%.2f" % (min(float(r["mpps"]) for r in rs), max(float(r["mpps"]) for r in rs)) if rs else ""

    def f(x, fmt="%.3f"):
        return fmt % x if x is not None else "NA"
    for part, cfg, eng, peer, key in pairs:
        def sel(e):
            return [r for r in rows if r["part"] == part and r["config"] == cfg and r["engine"] == e]
        s, p = sel(eng), sel(peer)
        sm, pm = stat(s, "mpps"), stat(p, "mpps")
        sc, pc = percpu(s), percpu(p)
        ratio = sm / pm if sm and pm else None
        pratio = sc / pc if sc and pc else None
        if ratio is not None:
            ratios[key].append(ratio)
        line = "%-5s %-22s %s %s Mpps (%s; per CPU-s %s)  %-5s %s Mpps (%s; per CPU-s %s)  ratio %s (per CPU-s %s)" % (
            part, cfg, eng, f(sm), spread(s), f(sc), peer, f(pm), spread(p), f(pc), f(ratio), f(pratio))
        if part in ("ovs", "bridge", "flowgen") and eng == "sluice":
            line += "  cycles/pkt sluice %s %s %s, hits sluice %s%% %s %s%%" % (
                f(stat(s, "cycles_per_pkt"), "%.0f"), peer, f(stat(p, "cycles_per_pkt"), "%.0f"),
                f(stat(s, "hit_pct"), "%.1f"), peer, f(stat(p, "hit_pct"), "%.1f"))
            if peer == "ovs-exact" and p:
                line += "\n      ovs-exact hit split, run by run: " + " | ".join(r["extra"] for r in p)
        elif part == "ovs":
            line += "  cycles/pkt %s %s %s %s" % (eng, f(stat(s, "cycles_per_pkt"), "%.0f"), peer,
                                                   f(stat(p, "cycles_per_pkt"), "%.0f"))
        else:
            line += "  cycles/pkt sluice %s" % f(stat(s, "cycles_per_pkt"), "%.0f")
            # runs alternate one for one: each run's ratio to the peer's run
            # of the same number, whose median a slow phase of the host
            # (both runs of a pair in it) moves less than the medians' ratio
            by_run = {r["run"]: float(r["mpps"]) for r in p}
            paired = med([float(r["mpps"]) / by_run[r["run"]] for r in s
                          if by_run.get(r["run"], 0) > 0])
            line += "  paired ratio %s" % f(paired)
        print(line)
        out.write(",".join(str(x) if x is not None else "" for x in (
            key if key not in ("l3fwd", "flowgen") else part, cfg.replace(",", " "), sm, pm, ratio, sc, pc, pratio,
            stat(s, "cycles_per_pkt"), stat(p, "cycles_per_pkt"), stat(s, "hit_pct"), stat(p, "hit_pct"))) + "\n")
    out.close()
    ex = [r for r in csv.DictReader(open(csv_path)) if r["part"] == "expiry"]
    for e in ("sluice", "ovs"):
        # a run that measured nothing: NA, or nothing at all where the
        # OVS poller printed nothing
        v = [r["extra"].split("|")[0].split(";") for r in ex
             if r["engine"] == e and (r["extra"].split(";") + [""])[1] not in ("NA", "")]
        if v:
            def mid(i):   # p0 and p90 are NA where the flow cache measured itself
                n = [float(x[i].split()[0]) for x in v if x[i].split() and x[i].split()[0] != "NA"]
                return "%.0f" % statistics.median(n) if n else "NA"
            print("expiry %-6s medians over %d runs of the delay from last packet to state gone, ms: "
                  "p0 %s p50 %s p90 %s p99 %s max %s" % (e, len(v), *(mid(i) for i in range(5))))
    with open(d + "/ratios", "w") as fh:
        for k in RATIO_KEYS:
            fh.write("%s %s\n" % (k, "%.3f" % min(ratios[k]) if ratios[k] else "NA"))


def cmd_plot_data(d):
    """One file a curve: l3fwd "dests routes sluice l3fwd" (sorted by dests,
    then routes); ovs "flows sluice ovs"; bridge "macs sluice ovs"; ovs-exact, sluice-io, testpmd-io
    "flows mpps" (sorted by flows).  A missing median is NaN (in l3fwd's
    file: empty)."""
    rows = list(csv.reader(open(d + "/medians.csv")))[1:]

    def nan(x):
        return "NaN" if x == "" else x

    def num(x):
        return float(x.split("=", 1)[1])
    curves = {"l3fwd": [], "ovs": [], "ovs-exact": [], "sluice-io": [], "testpmd-io": [], "bridge": []}
    for r in rows:
        if r[0] == "l3fwd":
            routes, dests = r[1].split(" ")[:2]
            curves["l3fwd"].append(((num(dests), num(routes)),
                                    " ".join((dests[6:], routes[7:], r[2], r[3]))))
        elif r[0] == "ovs":
            curves["ovs"].append(((num(r[1]),), " ".join((r[1][6:], r[2], nan(r[3])))))
        elif r[0] == "bridge":   # "macs=K sluice ovs"
            curves["bridge"].append(((num(r[1]),), " ".join((r[1][5:], r[2], nan(r[3])))))
        elif r[0] == "ovs-exact":
            curves["ovs-exact"].append(((num(r[1]),), " ".join((r[1][6:], nan(r[3])))))
        elif r[0] in curves:
            curves[r[0]].append(((num(r[1]),), " ".join((r[1][6:], nan(r[2])))))
    for k, pts in curves.items():
        with open("%s/plot-%s.dat" % (d, k), "w") as fh:
            fh.writelines(line + "\n" for _, line in sorted(pts))


def cmd_scale(csv_path, d):
    """bench-flowcache-scale's table, plot data and summary (the goals:
    docs/benchmarks.md, "The flow cache at scale")."""
    rows = list(csv.DictReader(open(csv_path)))

    def sel(part, flows, engine):
        return [r for r in rows if r["part"] == part and r["config"] == "flows=%d" % flows
                and r["engine"] == engine]

    def med(rs, f=lambda r: float(r["mpps"])):
        v = [f(r) for r in rs]
        return statistics.median(v) if v else None

    def extra_num(pat):
        def f(r):
            m = re.search(pat, r["extra"])
            return float(m.group(1)) if m else float("nan")
        return f

    def fmt(x, spec="%.2f"):
        return spec % x if x is not None else "NA"

    def ratio(a, b):
        return a / b if a is not None and b else None
    points = []   # (source, flows, ...)
    for part, source in (("ovs", "pcap"), ("flowgen", "generator")):
        for flows in sorted({int(r["config"][6:]) for r in rows if r["part"] == part}):
            fc, fl = sel(part, flows, "sluice"), sel(part, flows, "sluice-io")
            o, ox = sel(part, flows, "ovs"), sel(part, flows, "ovs-exact")
            bpf = None
            tb = [r for r in fc if "table " in r["extra"]]
            if tb:
                m = re.search(r"table (\d+) bytes for (\d+) entries", tb[0]["extra"])
                bpf = float(m.group(1)) / float(m.group(2))
            p = {"source": source, "flows": flows, "fc": med(fc), "floor": med(fl), "ovs": med(o),
                 "ovsx": med(ox), "runs": len(fc),
                 "range": "%.2f..%.2f" % (min(float(r["mpps"]) for r in fc),
                                         max(float(r["mpps"]) for r in fc)) if fc else "",
                 "fc_cyc": med(fc, extra_num(r"flowcache ([0-9.]+) cycles")),
                 "cyc": med([r for r in fc if known(r["cycles_per_pkt"])], lambda r: float(r["cycles_per_pkt"])),
                 "floor_cyc": med([r for r in fl if known(r["cycles_per_pkt"])],
                                  lambda r: float(r["cycles_per_pkt"])),
                 "ovs_cyc": med([r for r in o if known(r["cycles_per_pkt"])], lambda r: float(r["cycles_per_pkt"])),
                 "bpf": bpf}
            p["floor_ratio"], p["ovs_ratio"], p["ovsx_ratio"] = (
                ratio(p["fc"], p["floor"]), ratio(p["fc"], p["ovs"]), ratio(p["fc"], p["ovsx"]))
            points.append(p)
    print("%-9s %9s %5s %22s %9s %9s %9s %7s %9s %7s %9s %7s %9s" % (
        "source", "flows", "runs", "flowcache Mpps", "fc cyc/p", "cyc/p", "floor", "ratio",
        "OVS", "ratio", "OVS exact", "ratio", "bytes/flow"))
    for p in points:
        print("%-9s %9d %5d %22s %9s %9s %9s %7s %9s %7s %9s %7s %9s" % (
            p["source"], p["flows"], p["runs"], "%s (%s)" % (fmt(p["fc"]), p["range"]),
            fmt(p["fc_cyc"], "%.1f"), fmt(p["cyc"], "%.0f"), fmt(p["floor"]), fmt(p["floor_ratio"], "%.3f"),
            fmt(p["ovs"]), fmt(p["ovs_ratio"], "%.3f"), fmt(p["ovsx"]), fmt(p["ovsx_ratio"], "%.3f"),
            fmt(p["bpf"], "%.0f")))
    for src in ("pcap", "generator"):
        with open("%s/scale-%s.dat" % (d, src), "w") as fh:
            fh.write("# flows flowcache_mpps floor_mpps ovs_mpps ovs_exact_mpps fc_cycles cycles floor_cycles ovs_cycles\n")
            for p in points:
                if p["source"] == src:
                    fh.write(" ".join(str(x) for x in (
                        p["flows"], *(fmt(p[k], "%.3f").replace("NA", "NaN") for k in (
                            "fc", "floor", "ovs", "ovsx", "fc_cyc", "cyc", "floor_cyc", "ovs_cyc")))) + "\n")

    def least(key, keep):
        v = [p[key] for p in points if keep(p) and p[key] is not None]
        return "%.3f" % min(v) if v else "NA"
    for r in rows:
        if r["part"] == "expiry" and r["engine"] in ("sluice", "sluice-gen"):
            q = r["extra"].split("|")
            f = q[0].split(";")
            print("expiry%s: %s flows stopping at once, run %s: %s flows' state gone, delay after the last packet ms "
                  "p50 %s p99 %s max %s; %s" % (" (source app)" if r["engine"] == "sluice-gen" else "",
                                               r["config"][6:], r["run"], r["packets"], f[1], f[3],
                                               f[4].split()[0] if f[4:] else "NA",
                                               q[1].replace("=", " ") if len(q) > 1 else "backlog_hwm NA"))
    a = least("floor_ratio", lambda p: 65536 <= p["flows"] <= 1048576)
    b = least("floor_ratio", lambda p: p["flows"] <= 1024)
    c = least("ovsx_ratio", lambda p: True)
    dd = least("ovs_ratio", lambda p: True)
    big = [p["fc"] for p in points if p["source"] == "generator" and p["flows"] == 16777216 and p["fc"]]
    print("summary: floor_ratio_min=%s floor_ratio_small_min=%s ovs_exact_ratio_min=%s ovs_ratio_min=%s mpps_16m=%s"
          % (a, b, c, dd, "%.2f" % big[0] if big else "NA"))


def main(a):
    cmds = {"cpu-seconds": (cmd_cpu_seconds, 2), "window": (cmd_window, 5, 6), "ovs-pmd": (cmd_ovs_pmd, 2),
            "record": (cmd_record, 12), "expiry": (cmd_expiry, 6), "medians": (cmd_medians, 2),
            "plot-data": (cmd_plot_data, 1), "counter": (cmd_counter, 3), "scale": (cmd_scale, 2),
            "epoch": (cmd_epoch, 1), "fc-expiry": (cmd_fc_expiry, 3), "live": (cmd_live, 2)}
    if not a or a[0] not in cmds or len(a) - 1 not in cmds[a[0]][1:]:
        sys.exit(__doc__)
    cmds[a[0]][0](*a[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
