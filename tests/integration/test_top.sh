#!/usr/bin/env bash
# sluice top, driven under tmux against the quick start running under this
# test's prefix: the screen shows the apps; a counter on it moves between two
# captures and lies between the values `sluice stats` reads before and
# after; its rate agrees with its own counters over two consecutive
# refreshes; a window too small shows one line asking for a bigger one; q
# exits 0; usage errors exit 2, no engine or no terminal exit 1.  Then, with
# --sort cycles, the apps are in the order of the cycles/packet shown, and
# the engine stops under top: top says so and exits 0.
# Every wait polls for what the screen or a file shows, with a long deadline.
. "$(dirname "$0")/lib.sh"
[[ $(id -u) -eq 0 ]] || skip "the telemetry socket is root's: run as root"
command -v tmux >/dev/null || skip "tmux is missing (scripts/setup installs it)"

TMUX_SOCK="sluice-top-$$"
tm() { tmux -L "$TMUX_SOCK" "$@"; }
trap 'tmux -L "$TMUX_SOCK" kill-server 2>/dev/null; kill -KILL ${pid:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# The quick start under this test's prefix, its apps declared sink first, so
# that the configuration's order (out, swap, src) is not the order of
# cycles/packet (the rate-limited source spends the most per packet).
python3 - "$SRC/docs/examples/quickstart.yaml" "$PREFIX" >"$T/q.yaml" <<'PY' || fail "the test's config"
import sys
lines = open(sys.argv[1]).read().replace("sluice-quickstart", sys.argv[2]).split("\n")
apps = [i for i, l in enumerate(lines) if l.startswith(("  src:", "  swap:", "  out:"))]
assert len(apps) == 3 and apps == list(range(apps[0], apps[0] + 3)), apps
lines[apps[0]:apps[0] + 3] = reversed(lines[apps[0]:apps[0] + 3])
print("\n".join(lines))
PY
grep -q -- "--file-prefix, $PREFIX," "$T/q.yaml" || fail "the quick start's prefix was not replaced"

stats_json() { "$SLUICE" stats --prefix "$PREFIX" --json >"$1" 2>"$1.err"; }
# json_get FILE KEY...: a value of a stats snapshot (summary_get reads any JSON).
json_get() { summary_get "$@"; }

start_engine() {
  "$SLUICE" run "$T/q.yaml" --summary-json "$T/run.log.json" >"$T/run.log" 2>&1 &
  pid=$!
  wait_event "the start line" "$pid" "$T/run.log" log_lines "$T/run.log" '^sluice: running 3 apps'
  wait_event "a snapshot" "$pid" "$T/run.log" stats_json "$T/before.json"
}

# start_top NAME [ARGS...]: sluice top in a detached 160x50 tmux session NAME; its exit
# status goes to $T/NAME.rc and its stderr to $T/NAME.err; the pane stays
# open afterwards (cat waits on the terminal) so that its last words remain.
start_top() {
  rm -f "$T/$1.rc"
  tm new-session -d -s "$1" -x 160 -y 50 \
    "'$SLUICE' top --prefix '$PREFIX' --interval 0.5 ${*:2} 2>'$T/$1.err'; echo \$? >'$T/$1.rc'; exec cat" ||
    fail "tmux new-session"
}
capture() { tm capture-pane -p -t "$1" >"$2"; }
# screen_has NAME REGEX: the pane of session NAME shows REGEX (kept in $T/screen).
screen_has() { capture "$1" "$T/screen" && grep -qE -- "$2" "$T/screen"; }
# src_total FILE: the in_packets column of src's row (wide layout), or nothing.
src_total() { awk '$1 == "src" && $2 == "source" { print $(NF - 1) }' "$1"; }
src_mpps() { awk '$1 == "src" && $2 == "source" { print $4 }' "$1"; }
# wait_screen NAME WHAT REGEX
wait_screen() {
  wait_event "$2" "$pid" "$T/screen" screen_has "$1" "$3"
}

# --- 0. usage errors (exit 2) and no engine (exit 1).
usage() {
  expect_exit 2 "$T/bad" top "${@:2}"
  expect_in "$T/bad" "$1"
}
usage "sluice: top: unknown option '--bogus'" --bogus
usage "usage: sluice top [--prefix P] [--interval S] [--sort cycles|packets|drops]" --bogus
usage "sluice: top: --sort needs one of cycles, packets, drops, got 'speed'" --sort speed
usage "sluice: top: --interval needs seconds in 0.1..3600, got '0'" --interval 0
usage "sluice: top: --prefix needs a value" --prefix
ok "usage errors exit 2 with a message"
expect_exit 1 "$T/nosuch" top --prefix "nosuch$PREFIX"
expect_in "$T/nosuch" "sluice: top: "
expect_in "$T/nosuch" "'nosuch$PREFIX'"
ok "no engine with that prefix: exit 1, the prefix named"

# --- 1. the live view.
start_engine
expect_exit 1 "$T/notty" top --prefix "$PREFIX"
expect_in "$T/notty" "sluice: top: needs a terminal"
ok "without a terminal: exit 1, says so"
start_top top
wait_screen top "top to show the apps" '^  src +source +gen +[0-9.]+ '
for row in "swap +l2fwd +fwd" "out +sink +fwd"; do
  grep -qE "^  $row " "$T/screen" || { cat "$T/screen" >&2; fail "top shows no row '$row'"; }
done
for head in "worker" "busy %" "breaths/s" "Mpps in" "drops/s" "cyc/pkt" "pkt/call" \
            "occ hwm" "p99 ns" "pool (" "epoch (" "retire->free p99" "engine '$PREFIX'"; do
  grep -qF -- "$head" "$T/screen" || { cat "$T/screen" >&2; fail "top shows no '$head'"; }
done
cp "$T/screen" "$T/screen1"
n1=$(src_total "$T/screen1")
[[ $n1 =~ ^[0-9]+$ ]] || { cat "$T/screen1" >&2; fail "no in_packets on src's row: '$n1'"; }
moved() { capture top "$T/screen2" && n2=$(src_total "$T/screen2") && [[ $n2 =~ ^[0-9]+$ ]] && ((n2 > n1)); }
wait_event "src's in_packets on screen to move past $n1" "$pid" "$T/screen2" moved
stats_json "$T/after.json" || { cat "$T/after.json.err" >&2; fail "sluice stats"; }
before=$(json_get "$T/before.json" apps src counters in_packets)
after=$(json_get "$T/after.json" apps src counters in_packets)
((before <= n1 && n1 < n2 && n2 <= after)) ||
  fail "src's in_packets: stats read $before, then top showed $n1 and $n2, then stats read $after"
ok "src's in_packets on screen moved ($n1 -> $n2), between what stats read before ($before) and after ($after)"

# The rate on screen against top's own counters: over two consecutive
# refreshes (the header's running time moves by one interval), src's
# in_packets difference over the time difference is the rate the second
# one shows, up to the header's 0.1 s rounding (a factor of 3 allowed).
# Top's own snapshots, not another client's: a window between other
# instants can differ many times over on a loaded machine (a worker
# descheduled for a few hundred ms), which says nothing about top.
# A capture can catch the screen mid-redraw: each must show src's row.
run_s() { sed -nE 's/.* for ([0-9]+\.[0-9]) s; every .*/\1/p' "$1"; }
rate_shown() { capture top "$1" && [[ $(src_mpps "$1") =~ ^[0-9]+\.[0-9]+$ && -n $(run_s "$1") ]]; }
next_refresh() { rate_shown "$T/screen4" && [[ $(run_s "$T/screen4") != "$(run_s "$T/screen3")" ]]; }
consecutive() {
  rate_shown "$T/screen3" || return 1
  wait_event "top's next refresh" "$pid" "$T/run.log" next_refresh
  # a pair over which gen did not run at all says nothing: taken again
  python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) > float(sys.argv[1]) else 1)' \
    "$(src_total "$T/screen3")" "$(src_total "$T/screen4")" || return 1
  python3 -c 'import sys; d = float(sys.argv[2]) - float(sys.argv[1]); sys.exit(0 if 0.35 <= d <= 0.65 else 1)' \
    "$(run_s "$T/screen3")" "$(run_s "$T/screen4")"
}
wait_event "two consecutive refreshes of top" "$pid" "$T/run.log" consecutive
python3 - "$(run_s "$T/screen3")" "$(src_total "$T/screen3")" "$(run_s "$T/screen4")" \
  "$(src_total "$T/screen4")" "$(src_mpps "$T/screen4")" <<'PY' ||
import sys
t3, n3, t4, n4, top = (float(x) for x in sys.argv[1:6])
own = (n4 - n3) / (t4 - t3) / 1e6
print("src: top shows %.3f Mpps in; its in_packets moved %d in %.1f s: %.3f Mpps" % (top, n4 - n3, t4 - t3, own))
assert n4 > n3 and own / 3 - 0.001 <= top <= own * 3 + 0.001, (top, own)
PY
  { cat "$T/screen3" "$T/screen4" >&2; fail "top's rate of src differs from its own counters'"; }
ok "top's Mpps in for src matches its in_packets over two consecutive refreshes within a factor of 3"

# Too small, then big again.
tm resize-window -t top -x 60 -y 10 || fail "tmux resize-window"
wait_screen top "the too-small message" '^terminal too small \(60x10\): sluice top needs at least [0-9]+x[0-9]+'
[[ $(grep -c . "$T/screen") -eq 1 ]] || { cat "$T/screen" >&2; fail "a too-small terminal shows more than the one line"; }
ok "a 60x10 window shows one line asking for a bigger one"
tm resize-window -t top -x 160 -y 50 || fail "tmux resize-window"
wait_screen top "the apps again after the resize" '^  src +source +gen +[0-9.]+ '

# q quits with 0.
tm send-keys -t top q || fail "tmux send-keys"
wait_event "top to exit after q" "$pid" "$T/top.err" test -s "$T/top.rc"
[[ $(cat "$T/top.rc") == 0 ]] || { cat "$T/top.err" >&2; fail "top exited $(cat "$T/top.rc") after q"; }
ok "q quits with status 0"

# --- 2. sorted by cycles/packet; then the engine stops under top.
start_top top2 --sort cycles
wait_screen top2 "top to show the apps" '^  src +source +gen +[0-9.]+ '
expect_in "$T/screen" "apps by cycles/packet"
awk '$3 ~ /^(gen|fwd)$/ && ($2 == "source" || $2 == "l2fwd" || $2 == "sink") { print $1, $7 }' "$T/screen" >"$T/order"
python3 - "$T/order" <<'PY' || { cat "$T/screen" >&2; fail "the apps are not ordered by cycles/packet"; }
import sys
rows = [l.split() for l in open(sys.argv[1])]
assert sorted(r[0] for r in rows) == ["out", "src", "swap"], rows
keys = [float(v) if v != "-" else -1.0 for _, v in rows]
assert keys == sorted(keys, reverse=True), rows
PY
ok "--sort cycles orders the apps by cycles/packet: $(tr '\n' ' ' <"$T/order")"
interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "sluice run exited $?"; }
pid=
wait_event "top to exit after the engine stopped" "" "$T/top2.err" test -s "$T/top2.rc"
[[ $(cat "$T/top2.rc") == 0 ]] || { cat "$T/top2.err" >&2; fail "top exited $(cat "$T/top2.rc") when the engine stopped"; }
capture top2 "$T/screen"
grep -qF "sluice top: engine '$PREFIX' stopped" "$T/screen" || { cat "$T/screen" "$T/top2.err" >&2; fail "top does not say the engine stopped"; }
ok "the engine stopped under top: top says so and exits 0"
