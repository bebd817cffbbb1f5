#!/usr/bin/env bash
# Sluice as a systemd service (docs/operations.md).
# 1. `meson install` into a scratch root installs the binary, the unit
#    sluice@.service, the docs and the example configuration; the installed
#    unit passes `systemd-analyze verify` without a message (its ExecStart
#    pointed at the installed binary, which lies under the scratch root).
# 2. The sd_notify protocol, for real: `sluice run` with NOTIFY_SOCKET set to
#    a datagram socket that a small listener reads, and WATCHDOG_USEC set
#    (WATCHDOG_PID naming the engine).  READY=1 comes after the start line
#    and before any ping, WATCHDOG=1 comes repeatedly but not more often
#    than every half interval, STOPPING=1 comes last after SIGTERM, and the
#    run exits 0 with every mbuf back.
# 3. Without WATCHDOG_USEC (a unit without WatchdogSec): READY=1 and
#    STOPPING=1, and no WATCHDOG=1 in a run whose stats lines show that
#    pings would have been due.
# Every wait is on an event (a line in a file), with a long deadline.
. "$(dirname "$0")/lib.sh"

BUILD=${SLUICE_BUILD:-$(dirname "$SLUICE")}
trap 'kill -KILL ${pid:-} ${lpid:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# --- 1. the installed tree and the unit.
command -v systemd-analyze >/dev/null ||
  fail "systemd-analyze not found (Debian package systemd; scripts/setup installs it)"
ROOT=$T/root
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$ROOT" >"$T/install.log" 2>&1 ||
  { cat "$T/install.log" >&2; fail "meson install --destdir failed"; }
unit=$(find "$ROOT" -name 'sluice@.service' -path '*/systemd/system/*')
[[ -n $unit && $(wc -l <<<"$unit") -eq 1 ]] || fail "no one sluice@.service under systemd/system in the install: '$unit'"
exec_line=$(grep '^ExecStart=' "$unit")
bin=${exec_line#ExecStart=}
bin=${bin%% *}
[[ -x $ROOT$bin ]] || fail "the unit's ExecStart binary $bin is not installed ($exec_line)"
[[ $exec_line == "ExecStart=$bin run /etc/sluice/%i.yaml" ]] || fail "unexpected $exec_line"
docdir=$(grep '^Documentation=file:' "$unit" | sed 's|^Documentation=file:||; s|/operations.md$||')
for f in "$docdir/operations.md" "$docdir/config.md" "$docdir/examples/quickstart.yaml" \
         /etc/sluice/quickstart.yaml.example; do
  [[ -f $ROOT$f ]] || fail "$f is not installed (tree: $(cd "$ROOT" && find . -type f | head -40))"
done
cmp -s "$ROOT/etc/sluice/quickstart.yaml.example" "$SRC/docs/examples/quickstart.yaml" ||
  fail "/etc/sluice/quickstart.yaml.example differs from docs/examples/quickstart.yaml"
for want in Type=notify NotifyAccess=main WatchdogSec= Restart=on-failure TimeoutStopSec= \
            KillMode= LimitMEMLOCK=infinity; do
  grep -q "^$want" "$unit" || fail "the unit has no $want line"
done
ok "meson install: $bin, $(dirname "${unit#"$ROOT"}")/sluice@.service, docs in $docdir, /etc/sluice/quickstart.yaml.example"

# verify reads the unit from its folder (instantiated as sluice@i) and checks
# that ExecStart's binary exists: point it at the installed one.
mkdir -p "$T/units"
sed -e "s|^ExecStart=$bin |ExecStart=$ROOT$bin |" -e "s|^ExecStartPre=$bin |ExecStartPre=$ROOT$bin |" "$unit" >"$T/units/sluice@.service"
systemd-analyze verify "$T/units/sluice@.service" >"$T/verify" 2>&1
rc=$?
[[ $rc -eq 0 && ! -s $T/verify ]] && systemd-analyze verify "$T/units/sluice@quickstart.service" >"$T/verify" 2>&1
rc2=$?
[[ $rc -eq 0 && $rc2 -eq 0 && ! -s $T/verify ]] ||
  { cat "$T/verify" >&2; fail "systemd-analyze verify on the installed unit: exit $rc/$rc2, or messages (above)"; }
ok "systemd-analyze verify: sluice@.service and sluice@quickstart.service, no message"

# ExecStartPre refuses a configuration `sluice check` rejects: the unit's
# own command, on a bad file put where %i points, exits 2 with the
# FILE:LINE:COL message the journal would show
pre=$(sed -n 's/^ExecStartPre=//p' "$unit")
[[ $pre == "$bin check /etc/sluice/%i.yaml" ]] || fail "the unit's ExecStartPre is '$pre'"
printf 'apps:\n  a: { type: sourse }\n' >"$T/bad.yaml"
"$ROOT$bin" check "$T/bad.yaml" >"$T/pre.out" 2>&1
rc=$?
((rc == 2)) || { cat "$T/pre.out"; fail "ExecStartPre's check of a bad file exited $rc, not 2"; }
grep -q "^sluice: $T/bad.yaml:2:[0-9]*: " "$T/pre.out" || { cat "$T/pre.out"; fail "no FILE:LINE:COL message"; }
ok "ExecStartPre: a bad configuration is refused (exit 2, $(head -c 80 "$T/pre.out")...)"

# the exporter's unit, installed beside it, verified the same way (its
# engine's unit beside it, as After= names it; its man page is not
# installed on this machine, so verify does not look for it)
xunit=$(dirname "$unit")/sluice-exporter@.service
[[ -f $xunit ]] || fail "no sluice-exporter@.service beside sluice@.service"
xbin=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$xunit")
[[ -x $ROOT$xbin ]] || fail "sluice-exporter@.service runs $xbin, not installed"
sed "s|^ExecStart=$xbin |ExecStart=$ROOT$xbin |" "$xunit" >"$T/units/sluice-exporter@.service"
systemd-analyze verify --man=no "$T/units/sluice-exporter@quickstart.service" >"$T/verify" 2>&1
rc=$?
[[ $rc -eq 0 && ! -s $T/verify ]] ||
  { cat "$T/verify" >&2; fail "systemd-analyze verify on sluice-exporter@quickstart.service: exit $rc, or messages"; }
grep -q -- "--prefix sluice-%i" "$xunit" || fail "the exporter's unit does not name its engine's prefix"
ok "systemd-analyze verify: sluice-exporter@quickstart.service, no message"

# --- 2. sd_notify.
# listen SOCK OUT LOG: one line in OUT per datagram on SOCK, its fields
# joined by ';'; READY=1 lines end with ' start_line=yes|no' (whether LOG
# held the engine's start line when it came).  Ends when $T/listen.stop
# exists.
listen() {
  rm -f "$1" "$T/listen.stop" "$T/listen.up"
  python3 - "$1" "$2" "$3" "$T/listen.stop" "$T/listen.up" <<'PY' &
import os, socket, sys
path, out, log, stop, up = sys.argv[1:6]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.05)
open(up, "w").close()
with open(out, "w") as f:
    while not os.path.exists(stop):
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            continue
        line = ";".join(msg.split("\n"))
        if "READY=1" in msg.split("\n"):
            with open(log) as lf:
                started = any(l.startswith("sluice: running ") for l in lf)
            line += " start_line=" + ("yes" if started else "no")
        f.write(line + "\n")
        f.flush()
PY
  lpid=$!
  wait_event "the listener's socket" "$lpid" "" test -f "$T/listen.up"
}
stop_listening() { touch "$T/listen.stop"; wait "$lpid"; lpid=; }
in_file() { grep -qE -- "$2" "$1" 2>/dev/null; }
pings() { grep -c '^WATCHDOG=1$' "$T/notify" 2>/dev/null; }
at_least_pings() { (( $(pings) >= $1 )); }

sed "s/sluice-quickstart/$PREFIX/" "$SRC/docs/examples/quickstart.yaml" >"$T/q.yaml"
grep -q -- "--file-prefix, $PREFIX," "$T/q.yaml" || fail "the quick start's file prefix was not replaced"

listen "$T/notify.sock" "$T/notify" "$T/log"
: >"$T/log"
rm -f "$T/log.json"
( export NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=500000 WATCHDOG_PID=$BASHPID
  exec "$SLUICE" run "$T/q.yaml" --summary-json "$T/log.json" ) >"$T/log" 2>&1 &
pid=$!
wait_event "READY=1" "$pid" "$T/log" in_file "$T/notify" '^READY=1'
wait_event "three WATCHDOG=1" "$pid" "$T/log" at_least_pings 3
signal_run TERM "$pid" "$T/log"; rc=$?
pid=
[[ $rc -eq 0 ]] || { cat "$T/log" >&2; fail "the run exited $rc after SIGTERM, expected 0"; }
wait_event "STOPPING=1" "" "$T/log" in_file "$T/notify" '^STOPPING=1$'
stop_listening
expect_in "$T/log" "sluice: SIGTERM received, stopping"
pool_back "$T/log"
first=$(head -1 "$T/notify") last=$(tail -1 "$T/notify")
[[ $first == "READY=1;STATUS=running 3 apps on 2 workers start_line=yes" ]] ||
  { cat "$T/notify" >&2; fail "the first message is '$first', expected READY=1 with its status, after the start line"; }
[[ $last == "STOPPING=1" ]] || { cat "$T/notify" >&2; fail "the last message is '$last', expected STOPPING=1"; }
n_ready=$(grep -c '^READY=1' "$T/notify") n_stop=$(grep -c '^STOPPING=1$' "$T/notify")
n_other=$(grep -vcE '^(READY=1;|WATCHDOG=1$|STOPPING=1$)' "$T/notify")
[[ $n_ready -eq 1 && $n_stop -eq 1 && $n_other -eq 0 ]] ||
  { cat "$T/notify" >&2; fail "expected one READY=1, one STOPPING=1 and pings only"; }
# Pings at most every half interval (0.25 s), from the launch: at most
# elapsed / 0.25 + 1 of them, however late any came.
elapsed=$(summary_get "$T/log.json" elapsed_s)
n=$(pings)
python3 -c "import sys; sys.exit(0 if $n <= $elapsed / 0.25 + 1 else 1)" ||
  { cat "$T/notify" >&2; fail "$n pings in $elapsed s, more than one per 0.25 s"; }
ok "sd_notify: READY=1 after the start line, $n WATCHDOG=1 in $elapsed s, STOPPING=1 after SIGTERM, exit 0"

# --- 3. no WATCHDOG_USEC: no pings.  Two stats lines (two seconds of the
# run's own clock) are the event: eight pings would have been due.
listen "$T/notify.sock" "$T/notify" "$T/log"
: >"$T/log"
rm -f "$T/log.json"
NOTIFY_SOCKET=$T/notify.sock "$SLUICE" run "$T/q.yaml" --stats 1 --summary-json "$T/log.json" \
  >"$T/log" 2>&1 &
pid=$!
wait_event "READY=1" "$pid" "$T/log" in_file "$T/notify" '^READY=1'
wait_event "two stats lines" "$pid" "$T/log" log_lines "$T/log" '^\[' 2
signal_run TERM "$pid" "$T/log"; rc=$?
pid=
[[ $rc -eq 0 ]] || { cat "$T/log" >&2; fail "the run exited $rc after SIGTERM, expected 0"; }
wait_event "STOPPING=1" "" "$T/log" in_file "$T/notify" '^STOPPING=1$'
stop_listening
pool_back "$T/log"
[[ $(pings) -eq 0 && $(wc -l <"$T/notify") -eq 2 ]] ||
  { cat "$T/notify" >&2; fail "without WATCHDOG_USEC: expected READY=1 and STOPPING=1 only"; }
ok "without WATCHDOG_USEC: READY=1 and STOPPING=1, no WATCHDOG=1"
