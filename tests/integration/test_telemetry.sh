#!/usr/bin/env bash
# DPDK telemetry (docs/telemetry.md), asked with DPDK's own client,
# dpdk-telemetry.py: every command of a running quick start answers with the
# declared names, counters grow between two calls (asked until they have),
# bad parameters get an error naming what was wrong, and a pipeline too big
# for one 16 KiB reply is cut between rows and read whole page by page.
. "$(dirname "$0")/lib.sh"
command -v dpdk-telemetry.py >/dev/null || skip "dpdk-telemetry.py (Debian package dpdk) is not installed"
[[ $(id -u) -eq 0 ]] || skip "the telemetry socket is root's"
trap 'kill -KILL ${pid:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# tel CMD...: send each command with dpdk-telemetry.py; one JSON reply per line.
tel() { printf '%s\n' "$@" | dpdk-telemetry.py -f "$PREFIX"; }

sed -e "s/--file-prefix, sluice-quickstart/--file-prefix, $PREFIX/" \
  "$SRC/docs/examples/quickstart.yaml" >"$T/q.yaml"
grep -q "$PREFIX" "$T/q.yaml" || fail "could not set the file prefix in the quick start"
"$SLUICE" run "$T/q.yaml" >"$T/log" 2>&1 &
pid=$!
wait_event "the start line" "$pid" "$T/log" log_lines "$T/log" '^sluice: running'

# The first sample is taken once every worker has done some timed work:
# the source has made a packet, the interlink has carried one, and each
# worker's busy cycles (timed on one breath in 16) are above 0 (on a loaded
# machine a worker may not have run yet when the start line is written).
first() {
  tel /sluice/info /sluice/apps /sluice/links /sluice/workers /sluice/pool /sluice/epoch \
    >"$T/a.out" || return 1
  python3 - "$T/a.out" <<'PY'
import json, sys
r = {}
for line in open(sys.argv[1]):
    r.update(json.loads(line))
sys.exit(0 if r["/sluice/apps"]["in_packets"][0] > 0 and r["/sluice/links"]["packets"][0] > 0
         and all(c > 0 for c in r["/sluice/workers"]["busy_cycles"]) else 1)
PY
}
wait_event "a first telemetry sample with packets made" "$pid" "$T/log" first
# The counters grow: asked again until they have (on a loaded machine a
# worker may not run at all between two calls).
grown() {
  tel /sluice/apps >"$T/b.out" || return 1
  python3 - "$T/a.out" "$T/b.out" <<'PY'
import json, sys
r = {}
for line in open(sys.argv[1]):
    r.update(json.loads(line))
a, b = r["/sluice/apps"], json.loads(open(sys.argv[2]).read())["/sluice/apps"]
sys.exit(0 if all(b[k][i] > a[k][i] for k, i in (("in_packets", 0), ("out_packets", 2),
                                                 ("pull_calls", 0), ("push_packets", 1)))
         else 1)
PY
}
wait_event "the apps' counters to grow between two telemetry calls" "$pid" "$T/log" grown
python3 - "$T/a.out" "$T/b.out" "$PREFIX" <<'PY' || { cat "$T/a.out" >&2; fail "replies"; }
import json, sys
r = {}
for line in open(sys.argv[1]):
    r.update(json.loads(line))
later = json.loads(open(sys.argv[2]).read())["/sluice/apps"]
info, apps = r["/sluice/info"], r["/sluice/apps"]
assert info["state"] == "running" and info["prefix"] == sys.argv[3], info
assert info["apps"] == 3 and info["links"] == 2 and info["workers"] == 2, info
assert info["tsc_hz"] > 0 and info["config"].endswith("q.yaml"), info
assert apps["name"] == ["src", "swap", "out"], apps
assert apps["type"] == ["source", "l2fwd", "sink"] and apps["total"] == 3, apps
for k in ("in_packets", "in_bytes", "out_packets", "out_bytes", "drops", "pull_calls",
          "pull_packets", "pull_cycles", "push_calls", "push_packets", "push_cycles"):
    assert len(apps[k]) == 3, k
assert "next" not in apps and "cut" not in apps
# counters grow between two calls
assert later["in_packets"][0] > apps["in_packets"][0] > 0, (apps, later)
assert later["out_packets"][2] > apps["out_packets"][2], (apps, later)
assert later["pull_calls"][0] > apps["pull_calls"][0], (apps, later)
assert later["push_packets"][1] > apps["push_packets"][1], (apps, later)
links = r["/sluice/links"]
assert links["name"] == ["src.output -> swap.input", "swap.output -> out.input"], links
assert links["kind"] == ["interlink", "local"] and links["from"][0] == "src.output", links
assert links["packets"][0] > 0, links
w = r["/sluice/workers"]
assert w["name"] == ["gen", "fwd"], w
assert all(b >= x for b, x in zip(w["breaths"], w["busy_breaths"])), w
assert all(c > 0 for c in w["busy_cycles"]), w
p = r["/sluice/pool"]
assert p["ops"] == "sluice" and p["mbufs"] == 16383 and p["chunk"] == 512, p
assert 0 < p["available"] <= 16383, p
assert p["workers"] + p["l3"] + p["global"] + p["shared"] <= 16383, p
e = r["/sluice/epoch"]
assert e["policy"] == "immediate" and e["reclaim_cap"] == 256 and "stall_ns" in e, e
PY
ok "every command answers with the declared names; counters grow"

# Bad parameters: an error naming what was wrong, never another object.
tel /sluice/apps,7 /sluice/apps,x1 /sluice/l2fwd,swap /sluice/flowcache,swap \
  /sluice/flowcache,nosuch /sluice/flowcache >"$T/err.out"
python3 - "$T/err.out" <<'PY' || { cat "$T/err.out" >&2; fail "error replies"; }
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
e = [list(x.values())[0] for x in r]
assert e[0] == {"error": "offset 7 is past the last row (3 rows)"}, e[0]
assert "bad parameter 'x1'" in e[1]["error"], e[1]
assert e[2] is None, e[2]     # l2fwd declares no counters: no such command
assert e[3] == {"error": "app 'swap' is a l2fwd, not a flowcache"}, e[3]
assert e[4] == {"error": "no app 'nosuch' in the pipeline"}, e[4]
assert e[5]["total"] == 0 and e[5]["name"] == [], e[5]
PY
ok "bad parameters get errors that name them"

interrupt "$pid" "$T/log" || { cat "$T/log" >&2; fail "the quick start did not stop cleanly"; }
pid=""

# An app type's own counters, also those kept outside the worker (a flow
# cache's table statistics, sampled when asked): they grow while it runs.
cat >"$T/fc.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, flows: 100, rate: 200k }
  fc:  { type: flowcache, entries: 1024 }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
YAML
"$SLUICE" run "$T/fc.yaml" >"$T/fc.log" 2>&1 &
pid=$!
wait_event "the start line" "$pid" "$T/fc.log" log_lines "$T/fc.log" '^sluice: running'
# Sampled once the cache holds all 100 flows, then asked until its lookups
# have grown (events, not sleeps: the worker may not run between two calls).
fc_filled() {
  tel /sluice/flowcache,fc /sluice/flowcache >"$T/fc1.out" || return 1
  # (hits and misses are added one after the other: a sample taken between
  # the two adds is taken again)
  python3 -c 'import json,sys; c = json.loads(open(sys.argv[1]).readline())["/sluice/flowcache"]; sys.exit(0 if c["inserted"] >= 100 and c["hits"] + c["misses"] == c["lookups"] else 1)' "$T/fc1.out"
}
fc_grown() {
  tel /sluice/flowcache,fc /sluice/info >"$T/fc2.out" || return 1
  python3 -c 'import json,sys; a, b = (json.loads(open(f).readline())["/sluice/flowcache"]["lookups"] for f in sys.argv[1:]); sys.exit(0 if b > a else 1)' "$T/fc1.out" "$T/fc2.out"
}
wait_event "the flow cache to hold its 100 flows" "$pid" "$T/fc.log" fc_filled
wait_event "the flow cache's lookups to grow" "$pid" "$T/fc.log" fc_grown
python3 - "$T/fc1.out" "$T/fc2.out" "$SLUICE" <<'PY' || { cat "$T/fc1.out" "$T/fc2.out" >&2; fail "flowcache counters"; }
import json, subprocess, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
one, cols, later = a[0]["/sluice/flowcache"], a[1]["/sluice/flowcache"], b[0]["/sluice/flowcache"]
declared = [l.split()[0] for l in subprocess.run([sys.argv[3], "apps", "flowcache"],
            capture_output=True, text=True).stdout.split("  counters")[1].split("\n")
            if l.startswith("    ") and l.split()]
assert list(one) == ["name"] + declared, (list(one), declared)
assert cols["name"] == ["fc"] and all(len(cols[k]) == 1 for k in declared), cols
assert later["lookups"] > one["lookups"] > 0, (one, later)
assert one["hits"] + one["misses"] == one["lookups"] and one["inserted"] == 100, one
assert b[1]["/sluice/info"]["types"] == ["flowcache"], b[1]
PY
interrupt "$pid" "$T/fc.log" || { cat "$T/fc.log" >&2; fail "the flowcache pipeline did not stop cleanly"; }
pid=""
ok "a flow cache's own counters, sampled from its table, grow while it runs"

# A pipeline too big for one reply: 300 source -> sink pairs on one worker.
{
  echo "dpdk: { args: $EAL_ARGS }"
  echo "apps:"
  for i in $(seq 300); do
    echo "  generator_number_$i: { type: source, rate: 1k }"
    echo "  sink_number_$i: { type: sink }"
  done
  echo "links:"
  for i in $(seq 300); do echo "  - generator_number_$i.output -> sink_number_$i.input"; done
} >"$T/big.yaml"
"$SLUICE" run "$T/big.yaml" >"$T/big.log" 2>&1 &
pid=$!
wait_event "the start line" "$pid" "$T/big.log" log_lines "$T/big.log" '^sluice: running'
# Read every page of links and apps, as a client would.
python3 - "$PREFIX" <<'PY' || fail "paging"
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect("/var/run/dpdk/%s/dpdk_telemetry.v2" % sys.argv[1])
s.recv(1024)
def ask(cmd):
    s.send(cmd.encode())
    raw = s.recv(65536)
    assert len(raw) < 16384, (cmd, len(raw))
    return json.loads(raw)[cmd.split(",")[0]]
for cmd, total in (("/sluice/links", 300), ("/sluice/apps", 600)):
    names, off, pages = [], 0, 0
    while True:
        r = ask(cmd if off == 0 else "%s,%d" % (cmd, off))
        assert r["total"] == total and r["offset"] == off, r
        assert len(r["name"]) == r["count"] > 0, r
        names += r["name"]
        pages += 1
        if "next" not in r:
            break
        assert r["next"] == off + r["count"], r
        assert r["cut"].startswith("rows %d.." % off), r["cut"]
        off = r["next"]
    assert pages > 1, (cmd, pages)
    assert len(names) == total and len(set(names)) == total, cmd
    print(cmd, "pages", pages)
PY
ok "a 300-link pipeline is read whole in pages under 16 KiB"
interrupt "$pid" "$T/big.log" || { cat "$T/big.log" >&2; fail "the big pipeline did not stop cleanly"; }
pid=""
ok "telemetry"
