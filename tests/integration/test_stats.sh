#!/usr/bin/env bash
# sluice stats: one snapshot of a running engine (docs/telemetry.md).  With
# the quick start running under this test's prefix: --json names every app
# with its type, its counters grow between two calls, and its keys are those
# of the same run's --summary-json document (apart from "live" and the
# runtime fields only a live engine has); the text names every app.  Errors:
# no engine with that prefix, a reader that is not root, several engines and
# no --prefix (exit 1, named); a bad option (exit 2).
. "$(dirname "$0")/lib.sh"
[[ $(id -u) -eq 0 ]] || skip "the telemetry socket is root's: run as root"
setpriv --version >/dev/null 2>&1 || skip "setpriv (util-linux) is missing"

PREFIX2="${PREFIX}b"
trap 'kill -KILL ${pid:-} ${pid2:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX" "/var/run/dpdk/$PREFIX2"' EXIT

# stats_ok OUT ARGS...: `sluice stats ARGS` succeeds, its output in OUT.
stats_ok() { local out=$1; shift; "$SLUICE" stats "$@" >"$out" 2>"$out.err"; }

sed "s/sluice-quickstart/$PREFIX/" "$SRC/docs/examples/quickstart.yaml" >"$T/q.yaml"
grep -q -- "--file-prefix, $PREFIX," "$T/q.yaml" || fail "the quick start's prefix was not replaced"
"$SLUICE" run "$T/q.yaml" --summary-json "$T/run.log.json" >"$T/run.log" 2>&1 &
pid=$!
wait_event "the start line" "$pid" "$T/run.log" log_lines "$T/run.log" '^sluice: running 3 apps'
# The telemetry commands answer once the engine runs its pipeline.
wait_event "a snapshot" "$pid" "$T/run.log" stats_ok "$T/s1.json" --prefix "$PREFIX" --json

# --- 1. two snapshots: the apps with their types, counters that grow.
# (src's in_packets and out's out_packets: each worker has run since; asked
# until both have grown, as a loaded machine may run one and not the other.)
moved() { python3 -c 'import json,sys; c = lambda f, a, k: json.load(open(f))["apps"][a]["counters"][k]
sys.exit(0 if all(c(sys.argv[2], a, k) > c(sys.argv[1], a, k) for a, k in (("src", "in_packets"), ("out", "out_packets"))) else 1)' "$1" "$2"; }
grown() { stats_ok "$T/s2.json" --prefix "$PREFIX" --json && moved "$T/s1.json" "$T/s2.json"; }
wait_event "src's in_packets and out's out_packets to grow" "$pid" "$T/run.log" grown
python3 - "$T/s1.json" "$T/s2.json" "$PREFIX" <<'PY' || fail "the snapshots"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for s in (a, b):
    assert s["schema"] == 1, s["schema"]
    assert list(s["apps"]) == ["src", "swap", "out"], list(s["apps"])
    types = {n: x["type"] for n, x in s["apps"].items()}
    assert types == {"src": "source", "swap": "l2fwd", "out": "sink"}, types
    assert s["live"]["prefix"] == sys.argv[3], s["live"]
    assert s["live"]["state"] == "running", s["live"]
for n, c in (("src", "in_packets"), ("out", "out_packets")):
    x, y = a["apps"][n]["counters"][c], b["apps"][n]["counters"][c]
    assert y > x, "apps.%s.counters.%s did not grow: %d then %d" % (n, c, x, y)
assert b["live"]["elapsed_ns"] > a["live"]["elapsed_ns"], (a["live"], b["live"])
for name, l in b["links"].items():
    assert l["packets"] > 0, "link %s moved nothing" % name
PY
ok "two snapshots name src, swap, out with their types; their counters grow"

# --- 2. the text names every app, and the engine.
stats_ok "$T/text" --prefix "$PREFIX" || { cat "$T/text.err" >&2; fail "sluice stats (text)"; }
for row in "src +source +gen" "swap +l2fwd +fwd" "out +sink +fwd"; do
  grep -qE "^  $row +[0-9]+ " "$T/text" || { cat "$T/text" >&2; fail "the text has no row '$row'"; }
done
expect_in "$T/text" "engine '$PREFIX': pid $pid,"
for head in "cycles/packet" "packets/call" "links (" "workers (" "busy %" "epoch (" "mbufs in the pool now"; do
  expect_in "$T/text" "$head"
done
ok "the text names every app and the engine"

# --- 3. errors: no engine with a prefix, not root, bad options.
expect_exit 1 "$T/nosuch" stats --prefix "nosuch$PREFIX"
expect_in "$T/nosuch" "sluice: stats: "
expect_in "$T/nosuch" "'nosuch$PREFIX'"
ok "no engine with that prefix: exit 1, the prefix named"

# A user that is not root looks in its own runtime directory first, then
# finds root's engine and says why it cannot read it; with RUNTIME_DIRECTORY
# (DPDK's, as systemd sets it) pointing at root's directory, the same.
# Without --prefix, root's runtime directory is itself unreadable.
for env in "" "RUNTIME_DIRECTORY=/var/run"; do
  for p in "--prefix $PREFIX" ""; do
    # shellcheck disable=SC2086
    env -u XDG_RUNTIME_DIR $env setpriv --reuid=nobody --regid=nogroup --clear-groups \
      "$SLUICE" stats $p >"$T/nobody" 2>&1
    rc=$?
    [[ $rc -eq 1 ]] || { cat "$T/nobody" >&2; fail "stats $p as nobody ($env) exited $rc, expected 1"; }
    expect_in "$T/nobody" "sluice: stats: "
    expect_in "$T/nobody" "root's; run as root"
  done
done
ok "a reader that is not root: exit 1, says the socket is root's"

for bad in "--bogus" "--prefix" "extra"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$T/bad" stats $bad
  expect_in "$T/bad" "sluice: stats: "
  expect_in "$T/bad" "usage: sluice stats"
done
ok "usage errors exit 2"

# --- 4. a second engine: without --prefix, stats names both.
cat >"$T/two.yaml" <<EOF
dpdk:
  args: [--no-huge, -m, "256", --no-pci, --file-prefix, $PREFIX2, --log-level, "lib.eal:warning"]
workers:
  w: { core: auto }
apps:
  src: { type: source, worker: w, rate: 1000 }
  out: { type: sink, worker: w }
links:
  - src.output -> out.input
EOF
"$SLUICE" run "$T/two.yaml" >"$T/run2.log" 2>&1 &
pid2=$!
wait_event "the second engine's start line" "$pid2" "$T/run2.log" log_lines "$T/run2.log" '^sluice: running 2 apps'
wait_event "the second engine's snapshot" "$pid2" "$T/run2.log" stats_ok "$T/t.json" --prefix "$PREFIX2" --json
expect_exit 1 "$T/both" stats --json
expect_in "$T/both" "sluice: stats: "
expect_in "$T/both" "$PREFIX"
expect_in "$T/both" "$PREFIX2"
ok "two engines and no --prefix: exit 1, both named"
stats_ok "$T/t.json" --prefix "$PREFIX2" --json || fail "stats --prefix $PREFIX2"
[[ $(summary_get "$T/t.json" live prefix) == "$PREFIX2" ]] || fail "stats --prefix $PREFIX2 read another engine"
interrupt "$pid2" "$T/run2.log" || { cat "$T/run2.log" >&2; fail "the second engine exited $?"; }
pid2=

# --- 5. the snapshot has the keys of the same run's summary.
stats_ok "$T/s3.json" --prefix "$PREFIX" --json || fail "the last snapshot"
interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "sluice run exited $?"; }
pid=
pool_back "$T/run.log"
python3 - "$T/s3.json" "$T/run.log.json" <<'PY' || fail "the snapshot's keys differ from the summary's"
import json, sys
snap, summ = (json.load(open(f)) for f in sys.argv[1:3])
# Only a live engine has these (telclient.h, docs/telemetry.md): the "live"
# object and the runtime accounting.  A summary may have them too.
live_only = {(): {"live"}, ("apps", "*"): {"runtime"},
             ("workers", "*"): {"busy_breaths", "idle_breaths", "busy_cycles", "idle_cycles"},
             ("epoch",): {"backlog", "stall_ns"}}
named = {("apps",), ("links",), ("workers",)}
def extra_ok(path):
    for pat, keys in live_only.items():
        if len(pat) == len(path) and all(p in ("*", q) for p, q in zip(pat, path)):
            return keys
    return set()
def walk(a, b, path):
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return
    if path == ("pool", "starved_s"):   # empty in a live snapshot
        return
    missing = set(b) - set(a)
    extra = set(a) - set(b) - extra_ok(path)
    assert not missing and not extra, "at %s: the summary's %s not in the snapshot, the snapshot's %s not in the summary" % ("/".join(path) or "top", sorted(missing), sorted(extra))
    if path not in named and path[:1] not in named:
        assert list(k for k in a if k in b) == list(b), "at %s: order %s vs %s" % ("/".join(path) or "top", list(a), list(b))
    for k in b:
        walk(a[k], b[k], path + ((("*",) if path in named else (k,))))
walk(snap, summ, ())
PY
ok "the snapshot has the keys of the summary of the same run (besides live and runtime)"
