#!/usr/bin/env bash
# Signals and the clients of a running engine (docs/control.md,
# docs/operations.md "Signals" and "Clients of a running engine"):
#   - only the control thread takes SIGHUP, SIGINT, SIGTERM and SIGALRM:
#     every other thread of the engine (DPDK's telemetry, interrupt and
#     multi-process threads, the workers) has them blocked;
#   - a burst of 8000 SIGHUPs from four concurrent senders: the telemetry
#     thread lives on ("telemetry thread quitting" never logged), and
#     `sluice stats`, `sluice reload` and an exporter scrape still answer;
#   - a telemetry socket that never accepts, one that accepts and never
#     greets, one that greets and never answers, and a control socket that accepts and never answers: stats,
#     reload, capture and the exporter give up after SLUICE_TIMEOUT with a
#     message naming the prefix or socket and the limit, exit 1 (the
#     exporter: sluice_up 0); a bad SLUICE_TIMEOUT is refused with exit 2
#     (by the exporter program too); the exporter's own default is 1.5 s;
#   - Ctrl-C while capture waits for the start's answer: "interrupted",
#     exit 1 at once;
#   - without --prefix, a silent prefix beside a real engine: reload refuses,
#     naming both;
#   - the engine's control connections have a send buffer for two 64 KiB
#     messages;
#   - all 8 control connections held: a raw client gets the busy reply;
#     `sluice reload` gives up after SLUICE_TIMEOUT saying the engine is
#     busy, exit 1, and with a longer one it says it is trying again and
#     gets through once one connection is let go (a slot the engine drops
#     from a starved holder is re-taken, and a try during which one was lost
#     is made again).
# Every wait is for an event (a file, a log line, a process ending); the
# timeouts under test are of clients talking to sockets that never answer.
. "$(dirname "$0")/lib.sh"
as_root_engine
command -v curl >/dev/null || skip "curl not installed (scripts/setup)"
pids=()
trap 'kill -KILL ${pid:-} 2>/dev/null; for p in "${pids[@]}"; do end_process "$p"; done; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# A client bounded from outside too: a hang fails the test instead of
# stopping it.
client() { timeout 120 "$SLUICE" "$@"; }

swap_pipeline 1000 >"$T/run.yaml"
start_engine "$T/run.yaml" "$T/run.log" 3
sock=/var/run/dpdk/$PREFIX/sluice_control
wait_event "the control socket" "$pid" "$T/run.log" test -S "$sock"

# --- 1. The signal mask of every thread: SIGHUP (bit 0), SIGINT (1),
# SIGALRM (13), SIGTERM (14) blocked everywhere but the control thread.
python3 - "$pid" <<'PY' || fail "the engine's threads' signal masks"
import os, sys
pid = sys.argv[1]
want = (1 << 0) | (1 << 1) | (1 << 13) | (1 << 14)
names = []
for tid in sorted(os.listdir("/proc/%s/task" % pid)):
    base = "/proc/%s/task/%s/" % (pid, tid)
    comm = open(base + "comm").read().strip()
    blk = [int(l.split()[1], 16) for l in open(base + "status") if l.startswith("SigBlk:")][0]
    names.append(comm)
    if tid == pid:
        assert blk & want == 0, "the control thread blocks %x" % (blk & want)
    else:
        assert blk & want == want, "thread %s (%s) does not block them: SigBlk %x" % (tid, comm, blk)
assert "telemetry-v2" in names, names
print("threads:", " ".join(names))
PY
ok "SIGHUP, SIGINT, SIGTERM and SIGALRM are blocked on every thread but the control thread"

# --- 2. A burst of SIGHUPs from four senders at once.
start_exporter
senders=()
for k in 1 2 3 4; do
  (for i in $(seq 2000); do kill -HUP "$pid" 2>/dev/null || exit 1; done) &
  senders+=($!)
done
for s in "${senders[@]}"; do wait "$s" || fail "the engine went away during the SIGHUP burst"; done
kill -0 "$pid" || fail "the engine ended after the SIGHUP burst"
wait_event "a SIGHUP reload" "$pid" "$T/run.log" log_lines "$T/run.log" "SIGHUP: reloaded $T/run.yaml"
client stats --prefix "$PREFIX" --json >"$T/s.json" 2>"$T/stats.err" ||
  { cat "$T/stats.err" >&2; fail "sluice stats after the SIGHUP burst"; }
[[ $(summary_get "$T/s.json" live state) == running ]] || fail "stats after the burst: not running"
client reload --prefix "$PREFIX" "$T/run.yaml" >"$T/rl.out" 2>&1 ||
  { cat "$T/rl.out" >&2; fail "sluice reload after the SIGHUP burst"; }
expect_in "$T/rl.out" "reload: 0 actions applied to engine '$PREFIX'"
curl -s --max-time 60 -o "$T/m" "http://127.0.0.1:$port/metrics" || fail "no scrape after the burst"
grep -qx "sluice_up 1" "$T/m" || { cat "$T/exp.log" >&2; grep sluice_up "$T/m" >&2; fail "the exporter says the engine is down after the burst"; }
grep -q "telemetry thread quitting" "$T/run.log" && { cat "$T/run.log" >&2; fail "DPDK's telemetry thread quit"; }
grep -qx telemetry-v2 /proc/"$pid"/task/*/comm || fail "the telemetry thread is gone"
ok "8000 SIGHUPs from 4 senders: telemetry lives; stats, reload and a scrape answer (sluice_up 1)"

# --- 3. Sockets that never answer, in a runtime directory of our own
# (RUNTIME_DIRECTORY: where the clients look for engines).
rt=$T/rt
mkdir -p "$rt/dpdk/deaf" "$rt/dpdk/mute" "$rt/dpdk/quiet" "$rt/dpdk/slow"
python3 - "$rt/dpdk" "$T/listening" <<'PY' &
import json, os, socket, sys, threading, time
base, ready = sys.argv[1], sys.argv[2]
def listener(path, backlog):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.bind(path)
    s.listen(backlog)
    return s
# deaf: never accepts, and its queue is full (as when DPDK's telemetry
# thread has ended).
deaf = listener(base + "/deaf/dpdk_telemetry.v2", 0)
fill = []
for i in range(4):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    c.setblocking(False)
    try:
        c.connect(base + "/deaf/dpdk_telemetry.v2")
        fill.append(c)
    except BlockingIOError:
        break
# mute: accepts, never greets.
mute = listener(base + "/mute/dpdk_telemetry.v2", 16)
# quiet: greets, never answers a command.
quiet = listener(base + "/quiet/dpdk_telemetry.v2", 16)
# slow: a telemetry socket that greets and answers /sluice/info (so that
# reload and capture find the engine), and a control socket that accepts
# and never answers.
tel = listener(base + "/slow/dpdk_telemetry.v2", 16)
ctl = listener(base + "/slow/sluice_control", 16)
held = []
def accept_mute():
    while True:
        held.append(mute.accept()[0])
def serve_tel():
    while True:
        c = tel.accept()[0]
        held.append(c)
        def one(c):
            c.send(json.dumps({"version": "x", "pid": os.getpid(), "max_output_len": 16384}).encode())
            while True:
                m = c.recv(1024)
                if not m:
                    return
                cmd = m.decode().split(",")[0]
                c.send(json.dumps({cmd: {"state": "running", "prefix": "slow"}}).encode())
        threading.Thread(target=one, args=(c,), daemon=True).start()
def accept_quiet():
    while True:
        c = quiet.accept()[0]
        c.send(json.dumps({"version": "x", "pid": os.getpid(), "max_output_len": 16384}).encode())
        held.append(c)
def accept_ctl():
    n = 0
    while True:
        c = ctl.accept()[0]
        held.append(c)
        def note(c, n):
            # The request arrived: its client now waits for the answer.
            if c.recv(65536):
                open(ready + ".req%d" % n, "w").close()
        n += 1
        threading.Thread(target=note, args=(c, n), daemon=True).start()
for f in (accept_mute, accept_quiet, serve_tel, accept_ctl):
    threading.Thread(target=f, daemon=True).start()
open(ready, "w").close()
while True:
    time.sleep(3600)
PY
pids+=($!)
wait_event "the silent sockets" "" "" test -e "$T/listening"

# silent CMD OUT WANT...: SLUICE_TIMEOUT=1 sluice CMD exits 1 saying each WANT.
silent() {
  local out=$1; shift 1
  local want=("${@:2}")
  RUNTIME_DIRECTORY=$rt SLUICE_TIMEOUT=1 timeout 120 "$SLUICE" $1 >"$out" 2>&1
  local rc=$?
  [[ $rc -eq 1 ]] || { cat "$out" >&2; fail "sluice $1 against a silent socket exited $rc, expected 1"; }
  for w in "${want[@]}"; do expect_in "$out" "$w"; done
}
silent "$T/deaf" "stats --prefix deaf" \
  "the engine with file prefix 'deaf' did not answer on its telemetry socket $rt/dpdk/deaf/dpdk_telemetry.v2 within 1.0 s (SLUICE_TIMEOUT sets the limit)"
silent "$T/mute" "stats --prefix mute" \
  "the engine with file prefix 'mute' did not answer on its telemetry socket $rt/dpdk/mute/dpdk_telemetry.v2 within 1.0 s (SLUICE_TIMEOUT sets the limit)"
silent "$T/quiet" "stats --prefix quiet" \
  "the engine with file prefix 'quiet' did not answer /sluice/info within 1.0 s on its telemetry socket $rt/dpdk/quiet/dpdk_telemetry.v2 (SLUICE_TIMEOUT sets the limit)"
silent "$T/top" "top --prefix mute" "the engine with file prefix 'mute' did not answer"
silent "$T/slow" "reload --prefix slow $T/run.yaml" \
  "the engine at $rt/dpdk/slow/sluice_control did not answer within 1.0 s (SLUICE_TIMEOUT sets the limit)"
silent "$T/cap" "capture --prefix slow src.output -c 1 -w $T/cap.pcapng" \
  "the engine at $rt/dpdk/slow/sluice_control did not answer within 1.0 s (SLUICE_TIMEOUT sets the limit)"
ok "stats, top, reload, capture against sockets that never answer: exit 1 after SLUICE_TIMEOUT, naming it"

# Ctrl-C during the wait for the start's answer: capture says it was
# interrupted and ends at once (exit 1), not after SLUICE_TIMEOUT (600 s).
# Its request reaching the silent socket is the event to wait for; then
# SIGINT until it ends (a signal just before its wait begins is seen when
# that wait begins; a second press covers the rest), within wait_event's
# 60 s backstop.
n_reqs() { ls "$T" | grep -c '^listening\.req'; }
reqs=$(n_reqs)
more_reqs() { (($(n_reqs) > reqs)); }
RUNTIME_DIRECTORY=$rt SLUICE_TIMEOUT=600 "$SLUICE" capture --prefix slow src.output -c 1 \
  -w "$T/cap2.pcapng" >"$T/cap2" 2>&1 &
cap=$!
pids+=("$cap")
wait_event "the capture request at the silent socket" "$cap" "$T/cap2" more_reqs
cap_ended() {
  kill -INT "$cap" 2>/dev/null
  [[ ! -e /proc/$cap || $(awk '{print $3}' "/proc/$cap/stat" 2>/dev/null) == Z ]]
}
wait_event "capture to end on SIGINT" "" "$T/cap2" cap_ended
wait "$cap"
rc=$?
[[ $rc -eq 1 ]] || { cat "$T/cap2" >&2; fail "capture interrupted while waiting for the engine exited $rc, expected 1"; }
expect_in "$T/cap2" "sluice: capture: interrupted while waiting for the engine at $rt/dpdk/slow/sluice_control to answer"
ok "Ctrl-C while capture waits for the engine's answer: 'interrupted', exit 1 at once"

# Without --prefix, a prefix that does not answer in time is a candidate
# too: beside a real engine it makes the choice ambiguous (a reload must
# not go to the one that answered when the user meant the other).  (10 s:
# the real engine must answer within it, also under ASan on a loaded
# machine; the mute one takes all of it.)
rt2=$T/rt2
mkdir -p "$rt2/dpdk"
ln -s "/var/run/dpdk/$PREFIX" "$rt2/dpdk/real"
ln -s "$rt/dpdk/mute" "$rt2/dpdk/mute"
RUNTIME_DIRECTORY=$rt2 SLUICE_TIMEOUT=10 client reload "$T/run.yaml" --dry-run >"$T/amb" 2>&1
rc=$?
[[ $rc -eq 1 ]] || { cat "$T/amb" >&2; fail "reload without --prefix beside a silent prefix exited $rc, expected 1"; }
expect_in "$T/amb" "sluice: reload: 2 engines are running (file prefixes 'real', and 'mute', which did not answer in time); say which with --prefix"
RUNTIME_DIRECTORY=$rt2 SLUICE_TIMEOUT=10 client reload --prefix real "$T/run.yaml" --dry-run >"$T/amb2" 2>&1 ||
  { cat "$T/amb2" >&2; fail "reload --prefix real beside a silent prefix"; }
expect_in "$T/amb2" "reload: 0 actions (dry run: nothing changed)"
ok "one engine answers, another prefix is silent: reload without --prefix refuses, naming both"

for bad in 0 -1 x 1e9; do
  SLUICE_TIMEOUT=$bad "$SLUICE" stats --prefix "$PREFIX" >"$T/bad" 2>&1
  rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/bad" >&2; fail "SLUICE_TIMEOUT=$bad: exit $rc, expected 2"; }
  expect_in "$T/bad" "sluice: stats: SLUICE_TIMEOUT must be a number of seconds above 0 (at most 86400), not '$bad'"
done
ok "a bad SLUICE_TIMEOUT is refused, exit 2"

# The exporter: a scrape of an engine that never greets says sluice_up 0
# (and the log says why) instead of hanging.
xport=$(free_port)
RUNTIME_DIRECTORY=$rt SLUICE_TIMEOUT=1 "$SLUICE" exporter --listen "127.0.0.1:$xport" --prefix mute \
  >"$T/xp.log" 2>&1 &
pids+=($!)
wait_event "the second exporter's 'serving' line" "${pids[-1]}" "$T/xp.log" grep -q serving "$T/xp.log"
for i in 1 2; do
  curl -s --max-time 60 -o "$T/xm" "http://127.0.0.1:$xport/metrics" || fail "scrape $i of a mute engine did not answer"
  grep -qx "sluice_up 0" "$T/xm" || { cat "$T/xm" >&2; fail "scrape $i of a mute engine: no sluice_up 0"; }
done
expect_in "$T/xp.log" "did not answer on its telemetry socket $rt/dpdk/mute/dpdk_telemetry.v2 within 1.0 s"
ok "the exporter against a mute engine: sluice_up 0 at every scrape, the reason logged"

# Without SLUICE_TIMEOUT the exporter waits 1.5 s to connect and 1.5 s per
# reply (a scrape of a silent engine ends within Prometheus's default
# scrape_timeout of 10 s); a bad value stops the exporter program too.
xport=$(free_port)
RUNTIME_DIRECTORY=$rt "$SLUICE" exporter --listen "127.0.0.1:$xport" --prefix quiet >"$T/xq.log" 2>&1 &
pids+=($!)
wait_event "the third exporter's 'serving' line" "${pids[-1]}" "$T/xq.log" grep -q serving "$T/xq.log"
curl -s --max-time 60 -o "$T/xq" "http://127.0.0.1:$xport/metrics" || fail "the scrape of a quiet engine did not answer"
grep -qx "sluice_up 0" "$T/xq" || { cat "$T/xq" >&2; fail "the scrape of a quiet engine: no sluice_up 0"; }
expect_in "$T/xq.log" "did not answer /sluice/info within 1.5 s on its telemetry socket $rt/dpdk/quiet/dpdk_telemetry.v2"
SLUICE_TIMEOUT=x "$(dirname "$SLUICE")/sluice-exporter" >"$T/xbad" 2>&1
rc=$?
[[ $rc -eq 2 ]] || { cat "$T/xbad" >&2; fail "sluice-exporter with SLUICE_TIMEOUT=x exited $rc, expected 2"; }
expect_in "$T/xbad" "sluice: exporter: SLUICE_TIMEOUT must be a number of seconds above 0 (at most 86400), not 'x'"
ok "the exporter's own waits: 1.5 s per step by default (sluice_up 0, the reason logged); a bad SLUICE_TIMEOUT exits 2"

# The engine gives each control connection a send buffer for whole 64 KiB
# messages, whatever net.core.wmem_default (ss reports twice what is kept).
python3 - "$sock" "$pid" <<'PY' || fail "the control connection's send buffer"
import json, re, socket, subprocess, sys
path, pid = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(60)
s.connect(path)
s.send(b'{"verb": "info"}')
assert json.loads(s.recv(65536))["ok"] is True
out = subprocess.run(["ss", "-x", "-m", "-p", "-n"], capture_output=True, text=True, check=True).stdout
lines = out.splitlines()
tb = []
for i, l in enumerate(lines):
    if path in l and ("pid=%s," % pid) in l and "LISTEN" not in l:
        m = re.search(r"\btb(\d+)", " ".join(lines[i:i + 2]))
        if m:
            tb.append(int(m.group(1)))
assert tb, "no connection of the engine's on %s in ss:\n%s" % (path, out)
assert min(tb) >= 2 * 2 * 65536, "send buffers %s, want at least %d" % (tb, 4 * 65536)
print("send buffers:", tb)
PY
ok "a control connection's send buffer holds two 64 KiB messages"

# --- 4. Every control connection held.  The holders keep their slots by
# asking `info` (the engine closes a connection idle for 2 s).  Holding a
# slot can still fail (a holder starved of CPU for 2 s): a lost slot is an
# event the holders record in $T/lost and re-take the slot after, and an
# assertion that needs all 8 held counts only when no slot was lost while
# it ran (checked by a round the holders make on $T/check.N, answered by
# $T/checked.N); else it is made again.  One is let go for good when
# $T/release exists.
python3 - "$sock" "$T/held" "$T/release" "$T/done" "$T/busy.json" "$T/lost" "$T" <<'PY' &
import json, os, socket, sys, time
path, held, release, done, busy_out, lost, tdir = sys.argv[1:]
def ask(s):
    s.send(b'{"verb": "info"}')
    r = json.loads(s.recv(65536))
    assert r["ok"] is True, r
def take():
    # A slot: connected and answered (a busy reply: none free yet).
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(60)
        s.connect(path)
        try:
            ask(s)
            return s
        except (OSError, ValueError, AssertionError, KeyError):
            s.close()
            time.sleep(0.01)
open(lost, "w").close()
def keep(conns, want):
    # Ask every slot; a lost one is recorded, then taken again.
    for c in list(conns):
        try:
            ask(c)
        except (OSError, ValueError, AssertionError, KeyError):
            conns.remove(c)
            c.close()
            with open(lost, "a") as f:
                f.write("lost\n")
    while len(conns) < want:
        conns.append(take())
conns = [take() for i in range(8)]
# A ninth: the busy reply, then closed (a slot lost meanwhile: again).
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(60)
    s.connect(path)
    try:
        s.send(b'{"verb": "info"}')
    except OSError:
        pass
    r = None
    for attempt in range(2):      # a reset, reported once, may come first
        try:
            r = json.loads(s.recv(65536))
            break
        except ConnectionResetError:
            continue
    if r is not None and r.get("busy") is True:
        break
    s.close()
    keep(conns, 8)
json.dump(r, open(busy_out, "w"))
assert s.recv(65536) == b"", "the busy connection was not closed"
open(held, "w").close()
want, checks = 8, 0
while not os.path.exists(done):
    if os.path.exists(release) and want == 8:
        want = 7
        conns.pop().close()
    check = os.path.join(tdir, "check.%d" % (checks + 1))
    pending = os.path.exists(check)
    keep(conns, want)
    if pending:                # every slot asked after the check began
        checks += 1
        open(os.path.join(tdir, "checked.%d" % checks), "w").close()
    time.sleep(0.1)
PY
holders=$!
pids+=("$holders")
n_lost() { wc -l <"$T/lost"; }
checks=0
# holders_checked: ask the holders for a round over their slots, wait for it.
holders_checked() {
  checks=$((checks + 1))
  touch "$T/check.$checks"
  wait_event "the holders' check $checks" "$holders" "" test -e "$T/checked.$checks"
}
wait_event "the 8 held connections" "$holders" "" test -e "$T/held"
python3 - "$T/busy.json" <<'PY' || fail "the busy reply"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is False and r["busy"] is True and r["status"] == 1, r
assert r["error"] == "the engine is busy: all 8 of its control connections are in use; try again", r
PY
ok "a ninth client gets {\"ok\": false, \"busy\": true, \"status\": 1} and is closed"

for attempt in 1 2 3 4 5; do
  lost0=$(n_lost)
  SLUICE_TIMEOUT=1 client reload --prefix "$PREFIX" "$T/run.yaml" --dry-run >"$T/busy1" 2>&1
  rc=$?
  holders_checked
  (($(n_lost) == lost0)) && break
  echo "a held slot was lost while reload ran (attempt $attempt): again" >&2
done
(($(n_lost) == lost0)) || fail "the holders could not keep 8 slots through a reload 5 times"
[[ $rc -eq 1 ]] || { cat "$T/busy1" >&2; fail "reload against a busy engine exited $rc, expected 1"; }
expect_in "$T/busy1" "sluice: reload: the engine at $sock is busy (all 8 control connections in use); trying again for up to 1.0 s"
grep -qE "sluice: reload: the engine at $sock is busy: all 8 of its control connections stayed in use for [0-9.]+ s \([0-9]+ tries within the [0-9.]+ s limit; SLUICE_TIMEOUT sets it\)" "$T/busy1" ||
  { cat "$T/busy1" >&2; fail "no 'busy' message at the end of the timeout"; }
ok "reload against 8 held connections: tries again, then exit 1 saying the engine is busy"

SLUICE_TIMEOUT=120 client reload --prefix "$PREFIX" "$T/run.yaml" --dry-run >"$T/busy2" 2>"$T/busy2.err" &
rl=$!
wait_event "the busy note" "$rl" "$T/busy2.err" grep -q "is busy (all 8 control connections in use); trying again" "$T/busy2.err"
touch "$T/release"
wait "$rl" || { cat "$T/busy2" "$T/busy2.err" >&2; fail "reload did not get through once a connection was let go"; }
expect_in "$T/busy2" "reload: 0 actions (dry run: nothing changed)"
touch "$T/done"
wait "$holders" || fail "the holders failed"
ok "reload tries again while the engine is busy and gets through once a connection is let go"

interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the engine did not stop cleanly"; }
pid=""
pool_back "$T/run.log"
ok "control clients"
