# Shared helpers for Sluice's integration tests (sourced, not run).
# Each test gets a scratch directory $T, removed on exit, and a unique DPDK
# file prefix $PREFIX.  SLUICE is the binary (set by meson, or build/sluice).
set -uo pipefail
SLUICE=${SLUICE:-${1:-build/sluice}}
SRC=${SLUICE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PCAPTOOL="python3 $SRC/tests/tools/pcaptool.py"
T=$(mktemp -d /tmp/sluice-test.XXXXXX)
PREFIX="sl$$"
trap 'rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT
EAL_ARGS="[--no-huge, -m, \"256\", --no-pci, --file-prefix, $PREFIX, --log-level, \"lib.eal:warning\"]"

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
ok() { echo "ok: $*"; }

# run_sluice LOG ARGS...: run sluice, keep stdout+stderr in LOG, return its status.
run_sluice() {
  local log=$1; shift
  "$SLUICE" "$@" >"$log" 2>&1
}

# expect_exit WANT LOG ARGS...: run sluice and fail unless the status is WANT.
expect_exit() {
  local want=$1 log=$2; shift 2
  run_sluice "$log" "$@"
  local rc=$?
  [[ $rc -eq $want ]] || { cat "$log" >&2; fail "sluice $* exited $rc, expected $want"; }
}

# expect_in LOG TEXT: fail unless LOG contains TEXT (fixed string).
expect_in() {
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "expected '$2' in the output"; }
}

# pool_back LOG: the engine's end-of-run accounting says every mbuf is back.
pool_back() {
  local line
  line=$(grep -E '^pool: [0-9]+ of [0-9]+ mbufs back in the pool' "$1") ||
    { cat "$1" >&2; fail "no pool accounting line"; }
  local a b
  read -r a b < <(echo "$line" | sed -E 's/^pool: ([0-9]+) of ([0-9]+).*/\1 \2/')
  [[ "$a" -eq "$b" && "$b" -gt 0 ]] || fail "only $a of $b mbufs back in the pool"
  ok "all $b mbufs back in the pool"
}

# app_counter LOG APP COLUMN: a number from the summary's apps table.
# COLUMN: in_packets in_bytes out_packets out_bytes drops
app_counter() {
  local col
  case $3 in
    in_packets) col=4 ;; in_bytes) col=5 ;; out_packets) col=6 ;;
    out_bytes) col=7 ;; drops) col=8 ;; *) fail "bad column $3" ;;
  esac
  awk -v app="$2" -v c="$col" '/^apps/{t=1;next} /^links:/{t=0} t && $1==app {print $c}' "$1"
}

# link_counter LOG "a.output -> b.input" COLUMN: packets bytes drops
link_counter() {
  local col
  case $3 in packets) col=2 ;; bytes) col=3 ;; drops) col=4 ;; *) fail "bad column $3" ;; esac
  awk -v l="$2" -v c="$col" '
    /^links/{t=1;next} /^workers:/{t=0}
    t && index($0, "  " l " ") == 1 {
      rest = substr($0, length(l) + 4); split(rest, f, " "); print f[c] }' "$1"
}

# link_kind LOG "a.output -> b.input": 'local' or 'interlink'.
link_kind() {
  awk -v l="$2" '
    /^links/{t=1;next} /^workers:/{t=0}
    t && index($0, "  " l " ") == 1 {
      rest = substr($0, length(l) + 4); split(rest, f, " "); print f[1] }' "$1"
}

# wait_event WHAT PID LOG CMD...: poll CMD every 10 ms until it succeeds (the
# event a test synchronises on: a log line, a file).  Fails naming WHAT, with
# LOG shown, after a minute or as soon as process PID (if not empty) has
# ended; the process is killed first.  The deadline is a backstop for a
# broken engine, not a speed requirement.
# (Its locals have odd names: bash scopes dynamically, and CMD may read a
# caller's $pid or $log.)
wait_event() {
  local we_what=$1 we_pid=$2 we_log=$3; shift 3
  local we_end=$((SECONDS + 60))
  until "$@"; do
    if [[ -n $we_pid ]] && ! kill -0 "$we_pid" 2>/dev/null; then
      [[ -f $we_log ]] && cat "$we_log" >&2
      fail "process $we_pid ended while waiting for $we_what"
    fi
    if ((SECONDS >= we_end)); then
      [[ -n $we_pid ]] && kill -KILL "$we_pid" 2>/dev/null
      [[ -f $we_log ]] && cat "$we_log" >&2
      fail "timed out waiting for $we_what"
    fi
    sleep 0.01
  done
}

# log_lines LOG PATTERN N: LOG has at least N lines matching the extended
# regular expression PATTERN (N defaults to 1).
log_lines() {
  local n
  n=$(grep -cE -- "$2" "$1" 2>/dev/null)
  ((${n:-0} >= ${3:-1}))
}

# interrupt PID LOG: SIGINT to a sluice run in the background and its exit
# status (in $?).  One that has not ended a minute later is shown (its log,
# signal masks and where each thread waits), killed, and fails the test.
interrupt() {
  local ipid=$1 ilog=$2
  kill -INT "$ipid"
  local iend=$((SECONDS + 60))
  while kill -0 "$ipid" 2>/dev/null; do
    if ((SECONDS >= iend)); then
      cat "$ilog" >&2
      grep -E '^Sig(Ign|Cgt|Pnd|Blk)|^ShdPnd' "/proc/$ipid/status" >&2
      for t in /proc/"$ipid"/task/*; do echo "thread ${t##*/}: $(cat "$t/comm") in $(cat "$t/wchan")" >&2; done
      kill -KILL "$ipid"
      fail "sluice still runs a minute after SIGINT"
    fi
    sleep 0.01
  done
  wait "$ipid"
}
