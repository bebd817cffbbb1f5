#!/usr/bin/env bash
# sluice reload and SIGHUP (docs/control.md), with a source -> l2fwd -> sink
# pipeline running:
#   - --dry-run lists the actions and changes nothing;
#   - refused, exit 2, the engine untouched: a YAML error (FILE:LINE:COL), an
#     unknown app type, an impossible placement (FILE:LINE:COL), a setting that cannot change (pool.mbufs), an action
#     a running engine does not apply (a new worker, with apps on it), the
#     workers reordered (alone, or with a live change), /proc/self/status (a
#     pseudo-file of size 0: read to its end, a config error);
#   - a reload from rate 1 to 1M: the source's count passes 100000, which
#     rate 1 cannot reach; SIGHUP after editing the file in place back to a
#     low rate: the count then grows by at most that rate (plus the bucket)
#     over any interval, however long the machine makes it;
#   - the control socket: mode 0600; malformed JSON, an unknown verb, an
#     oversized message and a client that sends nothing get an error reply or
#     a closed connection, and the engine answers the next reload;
#   (100 reloads in a row under traffic: test_reload_loop)
#   - every mbuf back at stop; no engine, bad options: exit 1 and 2.
# Nothing here waits on a sleep: each step waits for a log line, a reply or
# a counter (wait_event).
. "$(dirname "$0")/lib.sh"
as_root_engine


# conf RATE [EXTRA-APP-LINES [EXTRA-LINK-LINES]]: the pipeline with the
# source at RATE.
conf() {
  cat <<EOF
$(two_workers_head)
apps:
  src:  { type: source, worker: gen, size: 64, flows: 16, rate: $1 }
  swap: { type: l2fwd, worker: fwd }
  out:  { type: sink, worker: fwd }
${2:-}
links:
  - { link: "src.output -> swap.input", size: 4096 }
  - swap.output -> out.input
${3:-}
EOF
}
conf 1 >"$T/run.yaml"
conf 1000000 >"$T/fast.yaml"
start_engine "$T/run.yaml" "$T/run.log" 3
sock=/var/run/dpdk/$PREFIX/sluice_control
wait_event "the control socket" "$pid" "$T/run.log" test -S "$sock"
[[ $(stat -c %a "$sock") == 600 ]] || fail "the control socket's mode is $(stat -c %a "$sock"), not 600"
ok "the control socket $sock, mode 0600"

src_in() { snap && summary_get "$T/s.json" apps src counters in_packets; }

# --- 1. --dry-run: the action, nothing changed.
expect_exit 0 "$T/dry" reload --prefix "$PREFIX" "$T/fast.yaml" --dry-run
expect_in "$T/dry" "would reconfigure app 'src': rate 1 -> 1000000"
expect_in "$T/dry" "reload: 1 action (dry run: nothing changed)"
ok "--dry-run lists the reconfiguration"

# --- 2. refused: exit 2, a message naming what is wrong, the engine going on.
sed 's/rate: 1000000 }/rate: 1000000/' "$T/fast.yaml" >"$T/broken.yaml"
expect_exit 2 "$T/broken" reload --prefix "$PREFIX" "$T/broken.yaml"
"$SLUICE" check "$T/broken.yaml" >"$T/check" 2>&1
msg=$(grep -o "$T/broken.yaml:[0-9]*:[0-9]*: .*" "$T/check" | head -1)
[[ -n $msg ]] || { cat "$T/check" >&2; fail "sluice check gave no FILE:LINE:COL"; }
expect_in "$T/broken" "$msg"
sed 's/type: sink/type: sinkk/' "$T/fast.yaml" >"$T/unknown.yaml"
expect_exit 2 "$T/unknown" reload --prefix "$PREFIX" "$T/unknown.yaml"
expect_in "$T/unknown" "unknown.yaml:10:17: app 'out': unknown type 'sinkk'"
sed 's/^  gen: { core: auto }/  gen: { core: 999 }/' "$T/fast.yaml" >"$T/place.yaml"
expect_exit 2 "$T/place" reload --prefix "$PREFIX" "$T/place.yaml"
expect_in "$T/place" "$T/place.yaml:5:3: worker 'gen': core 999 does not exist"
sed 's/mbufs: 8191/mbufs: 4095/' "$T/fast.yaml" >"$T/pool.yaml"
expect_exit 2 "$T/pool" reload --prefix "$PREFIX" "$T/pool.yaml"
expect_in "$T/pool" "pool.mbufs cannot change while running (8191 -> 4095); restart Sluice"
conf 1000000 "  more: { type: sink, worker: extra }" >"$T/more.yaml"
sed -i 's/^  fwd: { core: auto }/  fwd: { core: auto }\n  extra: { core: auto }/' "$T/more.yaml"
sed -i 's/^  - swap.output -> out.input/  - swap.output -> out.input\n  - { link: "gen2.output -> more.input" }/' "$T/more.yaml"
sed -i 's/^  out:  { type: sink, worker: fwd }/  out:  { type: sink, worker: fwd }\n  gen2: { type: source, worker: gen, rate: 5 }/' "$T/more.yaml"
"$SLUICE" check "$T/more.yaml" >"$T/more.check" 2>&1 || { cat "$T/more.check" >&2; fail "more.yaml does not check"; }
expect_exit 2 "$T/more" reload --prefix "$PREFIX" "$T/more.yaml"
expect_in "$T/more" "cannot add worker 'extra': core auto while running: a running engine's workers are fixed (DPDK's lcores are set when it starts); nothing was changed"
# Reordering the workers is refused, alone (no other action) or with a
# live change.
conf 1 | awk '/^  gen: /{g=$0; next} /^  fwd: /{print; print g; next} {print}' >"$T/reorder.yaml"
grep -A2 '^workers:' "$T/reorder.yaml" | tail -2 | tr -d '\n' | grep -q 'fwd.*gen' || fail "reorder.yaml does not swap the workers"
"$SLUICE" check "$T/reorder.yaml" >"$T/reorder.check" 2>&1 || { cat "$T/reorder.check" >&2; fail "reorder.yaml does not check"; }
expect_exit 2 "$T/reorder" reload --prefix "$PREFIX" "$T/reorder.yaml"
expect_in "$T/reorder" "$T/reorder.yaml: cannot reorder the workers while running (worker 0 is 'fwd', was 'gen'); nothing was changed"
sed 's/rate: 1 }/rate: 1000000 }/' "$T/reorder.yaml" >"$T/reorder-rate.yaml"
expect_exit 2 "$T/reorder-rate" reload --prefix "$PREFIX" "$T/reorder-rate.yaml"
expect_in "$T/reorder-rate" "cannot reorder the workers while running (worker 0 is 'fwd', was 'gen'); nothing was changed"
# A pseudo-file (size 0) is read to its end: a config error, not "grew".
expect_exit 2 "$T/proc" reload --prefix "$PREFIX" /proc/self/status
expect_in "$T/proc" "/status:1:1: unknown top-level key 'Name'"   # the CLI sends /proc/PID/status
grep -q grew "$T/proc" && fail "a pseudo-file was refused as growing"
kill -0 "$pid" 2>/dev/null || fail "the engine ended after the refused reloads"
n=$(src_in) || fail "no snapshot after the refused reloads"
((n < 100000)) || fail "src sent $n packets at rate 1: a refused reload changed its rate"
ok "refused with exit 2 and the message (FILE:LINE:COL as sluice check gives it); the engine goes on at rate 1 ($n packets)"

# --- 3. a reload that applies: rate 1 -> 1M.
expect_exit 0 "$T/fast" reload --prefix "$PREFIX" "$T/fast.yaml"
expect_in "$T/fast" "reconfigure app 'src': rate 1 -> 1000000"
expect_in "$T/fast" "reload: 1 action applied to engine '$PREFIX'"
past() { local v; v=$(src_in) && ((v > 100000)); }
wait_event "src to pass 100000 packets at its new rate" "$pid" "$T/run.log" past
ok "reloaded to rate 1M: src passed 100000 packets"

# --- 4. SIGHUP after editing the file in place: back to rate 2.
sed -i 's/rate: 1 }/rate: 2 }/' "$T/run.yaml"
kill -HUP "$pid"
wait_event "the SIGHUP note" "$pid" "$T/run.log" log_lines "$T/run.log" "SIGHUP: reloaded $T/run.yaml \(1 actions applied\)"
t0=$(date +%s.%N)
a=$(src_in) || fail "no snapshot after SIGHUP"
more() { local v; v=$(src_in) && ((v > a)); }
wait_event "src to send one more packet at rate 2" "$pid" "$T/run.log" more
b=$(src_in)
t1=$(date +%s.%N)
python3 -c "import sys; a,b,t0,t1=map(float,sys.argv[1:]); sys.exit(0 if b-a <= 2*(t1-t0)+3 else 1)" "$a" "$b" "$t0" "$t1" ||
  fail "src sent $((b - a)) packets in $(python3 -c "print(round($t1-$t0,3))") s after SIGHUP to rate 2"
ok "SIGHUP reloaded the edited file: $((b - a)) packets over the next interval at rate 2"

# --- 5. bad requests on the socket itself.
python3 - "$sock" <<'PY' || fail "the control socket's answers to bad requests"
import json, socket, sys
path = sys.argv[1]
def ask(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(30)
    s.connect(path)
    s.send(data)
    r = s.recv(65536)
    s.close()
    return json.loads(r) if r else None
silent = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
silent.connect(path)             # connects and sends nothing
for data, want in ((b"not json", "malformed request (not JSON"),
                   (b"[1, 2]", "malformed request (not a JSON object)"),
                   (b'{"verb": 3}', "no string \"verb\""),
                   (b'{"verb": "reboot"}', "unknown verb 'reboot'"),
                   (b'{"verb": "reload"}', "\"config\" must be a string"),
                   (b'{"verb": "reload", "config": "/x", "dry_run": 1}', "\"dry_run\" must be true or false"),
                   (b'{"verb": "reload", "config": "/nonexistent.yaml"}', "/nonexistent.yaml"),
                   (b'{"ver\\\xde\x86\x86"}', "malformed request (not JSON: invalid escape near '\"ver\\?'"),
                   (b'{"verb": "reload", "config": "/nonexistent-\\u00ff.yaml"}', "/nonexistent-\u00ff.yaml"),
                   (b"{" + b" " * 70000 + b"}", "request too long (70002 bytes; at most 65536)")):
    r = ask(data)
    assert r is not None and r["ok"] is False and r["status"] == 2 and want in r["error"], (data[:40], r)
r = ask(b'{"verb": "info"}')
assert r["ok"] is True and r["reloads"] == 2, r
silent.settimeout(30)
assert silent.recv(10) == b"", "the silent client was not closed"
PY
ok "malformed, unknown, oversized and silent requests: error replies or a closed connection; info answers"

# --- 7. stop: every mbuf back; the socket gone.
interrupt "$pid" "$T/run.log"
rc=$?
pid=
((rc == 0)) || { cat "$T/run.log" >&2; fail "the run exited $rc"; }
pool_back "$T/run.log" || fail "mbufs missing after the reloads"
[[ ! -e $sock ]] || fail "the control socket is left behind"
ok "every mbuf back after the reloads; the socket removed"

# --- 8. no engine; bad options.
expect_exit 1 "$T/none" reload --prefix "$PREFIX" "$T/fast.yaml"
expect_in "$T/none" "no engine is running with file prefix '$PREFIX'"
expect_exit 2 "$T/noarg" reload
expect_in "$T/noarg" "sluice: reload: no CONFIG given"
expect_exit 2 "$T/badopt" reload "$T/fast.yaml" --now
expect_in "$T/badopt" "sluice: reload: unknown option '--now'"
expect_exit 2 "$T/noprefix" reload "$T/fast.yaml" --prefix
expect_in "$T/noprefix" "sluice: reload: --prefix needs a value"
expect_exit 2 "$T/two" reload "$T/fast.yaml" "$T/run.yaml"
expect_in "$T/two" "sluice: reload: one CONFIG only ('$T/fast.yaml' and '$T/run.yaml')"
expect_exit 2 "$T/nofile" reload "$T/missing.yaml"
expect_in "$T/nofile" "sluice: reload: cannot open '$T/missing.yaml': No such file or directory"
ok "no engine: exit 1, named; bad arguments: exit 2"
