# Shared helpers for Sluice's integration tests (sourced, not run).
# Each test gets a scratch directory $T, removed on exit, and a unique DPDK
# file prefix $PREFIX.  SLUICE is the binary (set by meson, or build/sluice).
set -uo pipefail
# The system's programs first: the tests use Debian's python3 (its standard
# library only), ip, tshark and the rest as installed by scripts/setup.  A
# pyenv or virtualenv shim ahead of /usr/bin is a shell wrapper that costs
# each python3 call up to half a second of CPU, hundreds of times a test.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
SLUICE=${SLUICE:-${1:-build/sluice}}
SRC=${SLUICE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PCAPTOOL="python3 $SRC/tests/tools/pcaptool.py"
T=$(mktemp -d /tmp/sluice-test.XXXXXX)
PREFIX="sl$$"
trap 'rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT
# Engines nap when idle (engine.idle_sleep's default, docs/config.md): two
# tests at a time share two CPUs with their peers and the sanitizer builds,
# and an engine that polls without pause takes a CPU whether it has work or
# not.  A test of the idle sleep itself sets its own; the bench scripts
# unset it.
export SLUICE_IDLE_SLEEP=${SLUICE_IDLE_SLEEP-1ms}
EAL_ARGS="[--no-huge, -m, \"256\", --no-pci, --file-prefix, $PREFIX, --log-level, \"lib.eal:warning\"]"

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
ok() { echo "ok: $*"; }

# run_sluice LOG ARGS...: run sluice, keep stdout+stderr in LOG, return its status.
# A summary LOG.json left by an earlier run is removed first.
run_sluice() {
  local log=$1; shift
  rm -f "$log.json"
  "$SLUICE" "$@" >"$log" 2>&1
}

# expect_exit WANT LOG ARGS...: run sluice and fail unless the status is WANT.
expect_exit() {
  local want=$1 log=$2; shift 2
  run_sluice "$log" "$@"
  local rc=$?
  [[ $rc -eq $want ]] || { cat "$log" >&2; fail "sluice $* exited $rc, expected $want"; }
}

# expect_refused TEXT ARGS...: run the script $B with ARGS (its output in
# $T/out) and fail unless it exits 2 (a usage error) saying TEXT.
expect_refused() {
  local want=$1; shift
  "$B" "$@" >"$T/out" 2>&1
  local rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/out"; fail "${B##*/} $* exited $rc, expected 2"; }
  expect_in "$T/out" "$want"
}

# expect_usage TEXT ARGS...: expect_refused, and the message points to the
# script's --help ("try: scripts/NAME --help").
expect_usage() {
  expect_refused "$@"
  expect_in "$T/out" "try: scripts/${B##*/} --help"
}

# bench_refused BENCH MESSAGE ARG...: the benchmark program tests/BENCH of
# the build ($SLUICE_BUILD) run with ARG... exits 2 with the one line
# "BENCH: MESSAGE".
bench_refused() {
  local bench=$1 msg=$2 rc=0; shift 2
  "${SLUICE_BUILD:?}/tests/$bench" "$@" >"$T/refused.log" 2>&1 || rc=$?
  [[ $rc == 2 ]] || { cat "$T/refused.log" >&2; fail "$bench $*: exit $rc, not 2"; }
  grep -qxF "$bench: $msg" "$T/refused.log" || { cat "$T/refused.log" >&2; fail "$bench $*: not '$msg'"; }
}

# expect_in LOG TEXT: fail unless LOG contains TEXT (fixed string).
expect_in() {
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "expected '$2' in the output"; }
}

# ns_port_refused NS NAME PORT TEXT: a pipeline of one port app NAME (PORT:
# its settings, flow style) into a sink, run in network namespace NS with a
# file prefix of its own, must fail before running (exit 1) saying TEXT.
# Its log: $T/refused-NAME.log.
ns_port_refused() {
  local ns=$1 name=$2 port=$3 text=$4 f=$T/refused-$2 rc
  cat >"$f.yaml" <<YAML
dpdk: { args: ${EAL_ARGS/$PREFIX/$PREFIX-$name} }
pool: { mbufs: 4095 }
apps:
  $name: $port
  drop: { type: sink }
links:
  - $name.output -> drop.input
YAML
  ip netns exec "$ns" "$SLUICE" run "$f.yaml" --duration 5 >"$f.log" 2>&1
  rc=$?
  [[ $rc -eq 1 ]] || { cat "$f.log" >&2; fail "app '$name' in $ns: exit $rc, expected 1"; }
  expect_in "$f.log" "$text"
  ! grep -q '^sluice: running' "$f.log" || fail "sluice reported running with app '$name'"
}

# The JSON summary.  A test that reads a run's summary passes
# --summary-json "$LOG.json" to `sluice run` (LOG: the file the run's output
# goes to); the helpers below take LOG and read LOG.json (docs/summary.md).

# summary_get FILE KEY...: the value at FILE's KEY path (one argument per
# level, so that keys may hold dots and spaces: apps fc counters hits;
# links "a.output -> b.input" packets).  Numbers and strings print bare,
# null as "null", objects and lists as JSON.  A missing file, bad JSON or
# missing key prints a message to stderr and nothing to stdout.
summary_get() {
  python3 - "$@" <<'PY'
import json, sys
f, path = sys.argv[1], sys.argv[2:]
try:
    with open(f) as fh:
        v = json.load(fh)
except (OSError, ValueError) as e:
    sys.exit("summary_get: %s: %s" % (f, e))
for k in path:
    try:
        v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        sys.exit("summary_get: %s: no %s" % (f, " / ".join(path)))
if v is None:
    print("null")
elif isinstance(v, bool):
    print("true" if v else "false")
elif isinstance(v, (dict, list)):
    print(json.dumps(v))
else:
    print(v)
PY
}

# summary_of LOG: LOG's summary file, which must exist.
summary_of() {
  [[ -f "$1.json" ]] || { cat "$1" >&2; fail "no JSON summary $1.json (run with --summary-json \"\$LOG.json\")"; }
  echo "$1.json"
}

# pool_back LOG: the run's summary says every mbuf is back (mbufs.back ==
# mbufs.total > 0).
pool_back() {
  local f a b
  f=$(summary_of "$1") || exit 1
  a=$(summary_get "$f" mbufs back) b=$(summary_get "$f" mbufs total)
  [[ -n $a && "$a" -eq "$b" && "$b" -gt 0 ]] || { cat "$1" >&2; fail "only $a of $b mbufs back in the pool"; }
  ok "all $b mbufs back in the pool"
}

# app_counter LOG APP COUNTER: one of the app's counters (the common
# in_packets in_bytes out_packets out_bytes drops, or one its type declares).
app_counter() {
  local f
  f=$(summary_of "$1") || exit 1
  summary_get "$f" apps "$2" counters "$3"
}

# link_counter LOG "a.output -> b.input" COUNTER: packets bytes drops
# occupancy_hwm sojourn_p50_ns sojourn_p99_ns ("null" for a local link's
# interlink-only values).
link_counter() {
  local f
  f=$(summary_of "$1") || exit 1
  summary_get "$f" links "$2" "$3"
}

# link_kind LOG "a.output -> b.input": 'local' or 'interlink'.
link_kind() {
  local f
  f=$(summary_of "$1") || exit 1
  summary_get "$f" links "$2" kind
}

# wait_event WHAT PID LOG CMD...: poll CMD every 10 ms (or every
# $WAIT_EVENT_POLL seconds, for a CMD that is costly to run) until it
# succeeds (the event a test synchronises on: a log line, a file).  Fails naming WHAT, with
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
    sleep "${WAIT_EVENT_POLL:-0.01}"
  done
}

# expect_eq WHAT GOT WANT: GOT is WANT, or the test fails naming WHAT (and
# shows $LOG, where the test set one).
expect_eq() {
  [[ "$2" == "$3" ]] || { [[ -n "${LOG:-}" ]] && cat "$LOG" >&2; fail "$1 is '$2', expected '$3'"; }
}

# log_lines LOG PATTERN N: LOG has at least N lines matching the extended
# regular expression PATTERN (N defaults to 1).
log_lines() {
  local n
  n=$(grep -cE -- "$2" "$1" 2>/dev/null)
  ((${n:-0} >= ${3:-1}))
}

# signal_run SIG PID LOG: signal SIG (INT, TERM) to a sluice run in the
# background and its exit status (in $?).  One that has not ended a minute
# later is shown (its log, signal masks and where each thread waits),
# killed, and fails the test.
signal_run() {
  local isig=$1 ipid=$2 ilog=$3
  kill "-$isig" "$ipid"
  local iend=$((SECONDS + 60))
  while kill -0 "$ipid" 2>/dev/null; do
    if ((SECONDS >= iend)); then
      cat "$ilog" >&2
      grep -E '^Sig(Ign|Cgt|Pnd|Blk)|^ShdPnd' "/proc/$ipid/status" >&2
      for t in /proc/"$ipid"/task/*; do echo "thread ${t##*/}: $(cat "$t/comm") in $(cat "$t/wchan")" >&2; done
      kill -KILL "$ipid"
      fail "sluice still runs a minute after SIG$isig"
    fi
    sleep 0.01
  done
  wait "$ipid"
}

# interrupt PID LOG: signal_run INT.
interrupt() { signal_run INT "$@"; }

# md_tables_ok FILE NAME WHAT: every Markdown table in FILE (generated by
# WHAT, shown as NAME) has, in every row, the header's number of cells
# (cells are separated by '|' not preceded by a backslash).
md_tables_ok() {
  awk -v name="$2" '
    function cells(line,   s, n) {
      s = line
      gsub(/\\\|/, "", s)            # escaped pipes are cell content
      sub(/^[ \t]*\|/, "", s); sub(/\|[ \t]*$/, "", s)
      n = gsub(/\|/, "", s)
      return n + 1
    }
    /^\|/ {
      if (!intable) { intable = 1; want = cells($0); head = NR; next }
      got = cells($0)
      if (got != want) {
        printf "%s line %d: %d cells, the header (line %d) has %d: %s\n", name, NR, got, head, want, $0
        bad = 1
      }
      next
    }
    { intable = 0 }
    END { exit bad }
  ' "$1" >"$1.tables" || { cat "$1.tables" >&2; fail "malformed Markdown tables in '$3' (escape '|' in cells as '\\|')"; }
  ok "every Markdown table row has the header's number of cells"
}

# doc_is_generated DOC OUT ARGS...: `sluice ARGS` succeeds, prints something
# (kept in OUT), and DOC (relative to the source tree) equals it; else the
# diff and the command that regenerates DOC.
doc_is_generated() {
  local dg_doc=$SRC/$1 dg_out=$2; shift 2
  local dg_regen="$SLUICE $* > $dg_doc"
  "$SLUICE" "$@" >"$dg_out" 2>"$T/err" || { cat "$T/err" >&2; fail "sluice $* failed"; }
  [[ -s $dg_out ]] || fail "sluice $* printed nothing"
  [[ -f $dg_doc ]] || fail "${dg_doc#"$SRC"/} is missing; generate it with: $dg_regen"
  if ! diff -u "$dg_doc" "$dg_out" >"$T/diff"; then
    cat "$T/diff" >&2
    fail "${dg_doc#"$SRC"/} differs from 'sluice $*' (diff above: - the file, + the binary); regenerate it with: $dg_regen"
  fi
  ok "${dg_doc#"$SRC"/} equals 'sluice $*'"
}

# free_port: a TCP port on loopback that was free a moment ago.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_exporter: `sluice exporter` for $PREFIX on a free loopback port,
# logging to $T/exp.log; another program may take the port between
# free_port and the bind, then another is tried.  Sets port and exporter
# (its pid, also appended to the caller's pids array).
start_exporter() {
  local attempt
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    # A wait of 60 s per step, unless the test sets its own: the 1.5 s
    # default would let one scrape on a loaded machine say sluice_up 0.
    SLUICE_TIMEOUT=${SLUICE_TIMEOUT:-60} \
      "$SLUICE" exporter --listen "127.0.0.1:$port" --prefix "$PREFIX" >"$T/exp.log" 2>&1 &
    exporter=$!
    pids+=("$exporter")
    wait_event "the exporter's 'serving' line" "" "$T/exp.log" \
      grep -qE 'serving|Address already in use' "$T/exp.log"
    grep -q serving "$T/exp.log" && break
    wait "$exporter"
  done
  expect_in "$T/exp.log" "serving http://127.0.0.1:$port/metrics"
}

# end_process PID: for a clean-up: end process PID (TERM, then KILL if it
# still runs 5 s later) and reap it.  Nothing for an empty PID or one that
# has ended.
end_process() {
  [[ -n $1 ]] || return 0
  if kill -0 "$1" 2>/dev/null; then
    kill -TERM "$1" 2>/dev/null
    # Wait for the process to be gone (tail --pid returns when it is), at
    # most 5 s, then kill it.
    timeout 5 tail --pid="$1" -f /dev/null 2>/dev/null
    kill -KILL "$1" 2>/dev/null
  fi
  wait "$1" 2>/dev/null
  return 0
}

# ------------------------------------------------------------ veth wire
# For af_packet tests: the engine as a wire between two hosts, each in a
# network namespace of its own, on two veth pairs:
#
#   NS_A: vethA IP_A/24 ==veth== ethA ]              [ ethB ==veth== vethB IP_B/24 : NS_B
#                                      NS_E: sluice
#
# The engine's ends live in a namespace of their own (NS_E), so that no other
# traffic of this machine reaches them.  IPv6 is off everywhere, so the only
# frames are those the test sends and ARP.  Needs root.  A test calls
# wire_init, installs a clean-up that calls wire_cleanup, then wire_up.
NS_A="" NS_B="" NS_E="" IP_A="" IP_B="" SL_PID="" WIRE_RAN=""

# wire_init TAG IP_A IP_B: name the namespaces sl-TAG-a-PID, sl-TAG-b-PID and
# sl-TAG-e-PID (unique to this run of the test); skip the test without ip,
# ping or root.
wire_init() {
  NS_A=sl-$1-a-$$ NS_B=sl-$1-b-$$ NS_E=sl-$1-e-$$
  IP_A=$2 IP_B=$3
  command -v ip >/dev/null || skip "no 'ip' command (iproute2)"
  command -v ping >/dev/null || skip "no 'ping' command (iputils-ping)"
  [[ $(id -u) -eq 0 ]] || skip "network namespaces need root (CAP_NET_ADMIN)"
}

# wire_up: make the namespaces and veth pairs, addressed and up, with IPv6
# off; skip the test where no namespace or veth can be made.  Then, before
# Sluice runs, nothing may join the two hosts: a ping from A to B must fail.
wire_up() {
  local ns dev ns_dev
  ip netns add "$NS_A" 2>"$T/err" || skip "cannot create a network namespace: $(cat "$T/err")"
  ip netns add "$NS_B" || fail "cannot create namespace $NS_B"
  ip netns add "$NS_E" || fail "cannot create namespace $NS_E"
  ip link add vethA netns "$NS_A" type veth peer name ethA netns "$NS_E" 2>"$T/err" ||
    skip "cannot create a veth pair: $(cat "$T/err")"
  ip link add vethB netns "$NS_B" type veth peer name ethB netns "$NS_E" ||
    fail "cannot create the second veth pair"
  for ns in "$NS_A" "$NS_B" "$NS_E"; do
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
      net.ipv6.conf.default.disable_ipv6=1 || fail "cannot disable IPv6 in $ns"
  done
  for ns_dev in "$NS_A vethA" "$NS_B vethB" "$NS_E ethA" "$NS_E ethB"; do
    read -r ns dev <<<"$ns_dev"
    ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" ||
      fail "cannot disable IPv6 on $dev"
  done
  ip -n "$NS_A" addr add "$IP_A/24" dev vethA || fail "cannot address vethA"
  ip -n "$NS_B" addr add "$IP_B/24" dev vethB || fail "cannot address vethB"
  for ns_dev in "$NS_A lo" "$NS_A vethA" "$NS_B lo" "$NS_B vethB" "$NS_E ethA" "$NS_E ethB"; do
    read -r ns dev <<<"$ns_dev"
    ip -n "$ns" link set "$dev" up || fail "cannot set $dev up in $ns"
  done
  ok "namespaces $NS_A, $NS_B, $NS_E with two veth pairs"
  ip netns exec "$NS_A" ping -c 1 -W 1 "$IP_B" >/dev/null 2>&1 &&
    fail "$IP_B answers before Sluice runs"
  return 0
}

# wire_kstats: the hosts' kernel packet counters, as "vethA-tx vethA-rx
# vethB-tx vethB-rx".
wire_kstat() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }
wire_kstats() {
  echo "$(wire_kstat "$NS_A" vethA tx_packets) $(wire_kstat "$NS_A" vethA rx_packets)" \
       "$(wire_kstat "$NS_B" vethB tx_packets) $(wire_kstat "$NS_B" vethB rx_packets)"
}

# wire_start LOG CONFIG DURATION: make both hosts forget their neighbours
# (they must resolve each other through Sluice), then `sluice run CONFIG` in
# NS_E in the background (SL_PID), its output in LOG and its summary in
# LOG.json, with --duration DURATION as a backstop only; wait until it runs.
# Skips the test where DPDK has no af_packet driver.
wire_start() {
  local log=$1
  ip -n "$NS_A" neigh flush dev vethA
  ip -n "$NS_B" neigh flush dev vethB
  WIRE_RAN=1
  rm -f "$log.json"
  ip netns exec "$NS_E" "$SLUICE" run "$2" --summary-json "$log.json" --duration "$3" >"$log" 2>&1 &
  SL_PID=$!
  wait_event "sluice to start with $2" "$SL_PID" "$log" wire_started "$log"
  if grep -q 'no bus or driver recognises' "$log"; then
    cat "$log" >&2
    skip "DPDK has no net_af_packet driver here"
  fi
}
wire_started() { grep -qE '^sluice: running|no bus or driver recognises' "$1"; }

# ping_counted NS OUT COUNT ARGS... DEST: COUNT pings from namespace NS to
# DEST, 0.2 s apart (ARGS: more of ping's options, such as -6), every one of
# icmp_seq 1..COUNT answered; ping's output in OUT.  ping -c alone gives its
# last request only max(2 x the slowest round trip so far, the interval)
# once any reply has come (-W counts only while none has), so a late last
# reply on a loaded machine read as a loss; with a deadline (-w COUNT + 20
# s) it waits for the replies, sending more requests meanwhile, and ends at
# the COUNT-th reply of any request (one reordered behind a later request's
# reply could then be missed: a failure, never a false pass).  A request
# that is never answered is still a missing icmp_seq.
ping_counted() {
  local ns=$1 out=$2 count=$3 s
  shift 3
  ip netns exec "$ns" ping -n -c "$count" -i 0.2 -w $((count + 20)) "$@" >"$out" 2>&1
  # (a reply ping marks as corrupt or short is not an answer)
  for ((s = 1; s <= count; s++)); do
    grep -E "bytes from .* icmp_seq=$s " "$out" | grep -qvE 'BAD CHECKSUM|truncated' || return 1
  done
}

# wire_ping WHAT LOG COUNT: COUNT pings from A to B (a few more while late
# replies are waited for), 0.2 s apart, all answered (ping_counted); else
# ping's output and LOG are shown.
wire_ping() {
  local tries=1
  # First one answer (each side's kernel resolves its neighbour, which a
  # loaded machine has been seen to take longer than ping's wait), then
  # the counted run, which must lose nothing.
  until ip netns exec "$NS_A" ping -n -q -c 1 -W 2 "$IP_B" >"$T/ping" 2>&1; do
    tries=$((tries + 1))
    [[ -z ${SL_PID:-} ]] || kill -0 "$SL_PID" 2>/dev/null || { cat "$2" >&2; fail "$1: sluice ended during the first ping"; }
    ((tries <= 15)) || { cat "$T/ping" "$2" >&2; fail "$1: no answer to ping in 15 tries"; }
  done
  if ! ping_counted "$NS_A" "$T/ping" "$3" "$IP_B"; then
    cat "$T/ping" "$2" >&2
    fail "$1: ping through Sluice lost packets"
  fi
  ok "$1: $3 of $3 answered"
}

# wire_stop LOG WHAT: SIGINT to SL_PID; it must exit 0, say so in LOG and
# have every mbuf back.
wire_stop() {
  local rc
  signal_run INT "$SL_PID" "$1"
  rc=$?
  SL_PID=""
  [[ $rc -eq 0 ]] || { cat "$1" >&2; fail "$2: sluice exited $rc after SIGINT, expected 0"; }
  expect_in "$1" "sluice: SIGINT received, stopping"
  pool_back "$1"
}

# wire_cleanup PIDS...: for the test's clean-up: end PIDS and SL_PID, delete
# the veths and namespaces, $T, and EAL's runtime directory for $PREFIX if
# wire_start ran.
wire_cleanup() {
  local pid ns
  for pid in "$@" "$SL_PID"; do end_process "$pid"; done
  SL_PID=""
  # Deleting one end of a veth deletes both; do it while the namespace is
  # still there, so that nothing waits on the kernel's asynchronous cleanup.
  if [[ -n $NS_E ]]; then
    ip -n "$NS_E" link del ethA 2>/dev/null
    ip -n "$NS_E" link del ethB 2>/dev/null
  fi
  for ns in $NS_A $NS_B $NS_E; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$T"
  [[ -n $WIRE_RAN ]] && rm -rf "/var/run/dpdk/$PREFIX" 2>/dev/null
  return 0
}

# wire_removed: after wire_cleanup, none of the namespaces is left.
wire_removed() {
  local left
  left=$(ip netns list | grep -E "^($NS_A|$NS_B|$NS_E)( |$)")
  [[ -z $left ]] || fail "namespaces left behind: $left"
  ok "namespaces and veths removed"
}

# ------------------------------------------------------------ hugepages
# For tests whose peer maps the engine's memory (vhost-user).  Needs root.
HUGE_SYS=/sys/kernel/mm/hugepages/hugepages-2048kB
HUGE_DIR="" HUGE_SET="" HUGE_WAS="" HUGE_MOUNTED="" HUGE_MKDIR=""

# huge_reserve PAGES: at least PAGES free 2 MB hugepages and a hugetlbfs
# mount of that page size, at $HUGE_DIR.  Reserves the pages that are
# missing and mounts hugetlbfs where no 2 MB mount exists; skips the test
# where either is impossible.  huge_release (from the test's clean-up) undoes
# both.
huge_reserve() {
  local need=$1 free want
  [[ -d $HUGE_SYS ]] || skip "the kernel offers no 2 MB hugepages ($HUGE_SYS missing)"
  free=$(cat "$HUGE_SYS/free_hugepages")
  if ((free < need)); then
    HUGE_WAS=$(cat "$HUGE_SYS/nr_hugepages")
    want=$((HUGE_WAS + need - free))
    echo "$want" >"$HUGE_SYS/nr_hugepages" 2>/dev/null ||
      skip "cannot write $HUGE_SYS/nr_hugepages (not root, or a container without hugepage rights)"
    HUGE_SET=$(cat "$HUGE_SYS/nr_hugepages")
    free=$(cat "$HUGE_SYS/free_hugepages")
    ((free >= need)) ||
      skip "only $free free 2 MB hugepages after asking for $want in all; need $need"
  fi
  HUGE_DIR=$(awk '$3 == "hugetlbfs" && $4 ~ /(^|,)pagesize=2M(,|$)/ { print $2; exit }' /proc/mounts)
  if [[ -z $HUGE_DIR ]]; then
    if ! mountpoint -q /dev/hugepages 2>/dev/null; then
      HUGE_DIR=/dev/hugepages
    else
      HUGE_DIR=$T/huge    # /dev/hugepages holds pages of another size
    fi
    [[ -d $HUGE_DIR ]] || { mkdir -p "$HUGE_DIR" && HUGE_MKDIR=yes; }
    mount -t hugetlbfs -o pagesize=2M nodev "$HUGE_DIR" 2>/dev/null ||
      skip "cannot mount hugetlbfs at $HUGE_DIR"
    HUGE_MOUNTED=$HUGE_DIR
  fi
  ok "$free free 2 MB hugepages, hugetlbfs at $HUGE_DIR"
}

# huge_release: unmount what huge_reserve mounted and give back the pages it
# reserved, unless someone changed the count since.
huge_release() {
  if [[ -n $HUGE_MOUNTED ]]; then
    umount "$HUGE_MOUNTED" 2>/dev/null && [[ -n $HUGE_MKDIR ]] && rmdir "$HUGE_MOUNTED"
    HUGE_MOUNTED=""
  fi
  if [[ -n $HUGE_SET && $(cat "$HUGE_SYS/nr_hugepages") == "$HUGE_SET" ]]; then
    echo "$HUGE_WAS" >"$HUGE_SYS/nr_hugepages"
  fi
  HUGE_SET=""
}

# ------------------------------------------------------------ dpdk-testpmd
# testpmd, interactive, driven command by command through a fifo (fd 3), its
# output line-buffered into a log.  TESTPMD is the binary.  TP_WATCH, when
# set, is the pid of the process testpmd talks to (the engine): every wait
# fails at once when it ends, showing TP_WATCH_LOG.
TP_PID="" TP_LOG="" TP_FD=false TP_WATCH="" TP_WATCH_LOG=""

# testpmd_need: set TESTPMD (from the environment, or dpdk-testpmd on the
# PATH); skip the test without it, without stdbuf, or without root (for the
# hugepages both processes run on).
testpmd_need() {
  TESTPMD=${TESTPMD:-$(command -v dpdk-testpmd || true)}
  [[ -n $TESTPMD && -x $TESTPMD ]] || skip "dpdk-testpmd not found (Debian: apt-get install dpdk)"
  command -v stdbuf >/dev/null || skip "stdbuf (coreutils) not found"
  [[ $(id -u) -eq 0 ]] || skip "needs root to reserve hugepages and mount hugetlbfs"
}

# testpmd_cleanup RC PID LOG...: the clean-up of a test whose engine (PID)
# has testpmd for its peer, RC the status the test exits with: end testpmd
# and the engine, show the last 60 lines of each LOG unless RC is 0 or 77
# (skipped), remove the EAL runtime directories of the file prefixes
# ${PREFIX}vh (the engine's) and ${PREFIX}tp (testpmd's), give back the
# hugepages (huge_release) and remove $T.
testpmd_cleanup() {
  local rc=$1 pid=$2 f; shift 2
  testpmd_kill
  end_process "$pid"
  if [[ $rc -ne 0 && $rc -ne 77 ]]; then
    for f in "$@"; do
      [[ -f $f ]] && { echo "----- $f (last 60 lines)" >&2; tail -n 60 "$f" >&2; }
    done
  fi
  rm -rf "/var/run/dpdk/${PREFIX}vh" "/var/run/dpdk/${PREFIX}tp"
  huge_release
  rm -rf "$T"
  return 0
}

# testpmd_start LOG EAL-ARGS... -- APP-ARGS...: start testpmd (-i is added
# after APP-ARGS) and wait for its prompt.  Sets TP_PID and TP_LOG.
testpmd_start() {
  TP_LOG=$1; shift
  rm -f "$TP_LOG.in"
  mkfifo "$TP_LOG.in" || fail "cannot make the fifo $TP_LOG.in"
  stdbuf -oL -eL "$TESTPMD" "$@" -i <"$TP_LOG.in" >"$TP_LOG" 2>&1 &
  TP_PID=$!
  exec 3>"$TP_LOG.in"
  TP_FD=true
  testpmd_wait "testpmd's prompt" grep -q '^testpmd> ' "$TP_LOG"
}

# testpmd_wait WHAT CMD...: wait_event for CMD, which also fails as soon as
# testpmd or TP_WATCH ends.
testpmd_wait() {
  local tw_what=$1; shift
  wait_event "$tw_what" "$TP_PID" "$TP_LOG" testpmd_guard "$tw_what" "$@"
}
testpmd_guard() {
  local tg_what=$1; shift
  if [[ -n $TP_WATCH ]] && ! kill -0 "$TP_WATCH" 2>/dev/null; then
    [[ -n $TP_WATCH_LOG && -f $TP_WATCH_LOG ]] && tail -n 60 "$TP_WATCH_LOG" >&2
    fail "process $TP_WATCH ended while waiting for $tg_what"
  fi
  "$@"
}

# testpmd_cmd WORDS...: send one command line.
testpmd_cmd() { echo "$*" >&3 || fail "cannot send '$*' to testpmd"; }

# testpmd_lines ERE: how many lines of testpmd's log match ERE.
testpmd_lines() { grep -cE -- "$1" "$TP_LOG"; }
testpmd_more_lines() { (($(testpmd_lines "$1") > $2)); }

# testpmd_port_stats PORT: 'show port stats PORT'; sets TP_RX TP_MISSED
# TP_RXB (received) and TP_TX TP_ERR TP_TXB (sent) from the answer.
testpmd_port_stats() {
  local n
  n=$(testpmd_lines '^ +Tx-pps:')
  testpmd_cmd "show port stats $1"
  testpmd_wait "testpmd's port statistics" testpmd_more_lines '^ +Tx-pps:' "$n"
  read -r TP_RX TP_MISSED TP_RXB < <(grep -E '^ +RX-packets: +[0-9]+ +RX-missed:' "$TP_LOG" |
    tail -n 1 | awk '{ print $2, $4, $6 }')
  read -r TP_TX TP_ERR TP_TXB < <(grep -E '^ +TX-packets: +[0-9]+ +TX-errors:' "$TP_LOG" |
    tail -n 1 | awk '{ print $2, $4, $6 }')
}

# testpmd_xstat PORT NAME: sets TP_XSTAT to the extended statistic NAME
# (rx_q1_good_packets, ...) from 'show port xstats PORT'; fails if there is
# none.  (The port statistics asked for next mark the end of the answer:
# testpmd answers in order.)  Also sets what testpmd_port_stats sets.
testpmd_xstat() {
  testpmd_cmd "show port xstats $1"
  testpmd_port_stats "$1"
  TP_XSTAT=$(grep -E "^$2: [0-9]+$" "$TP_LOG" | tail -n 1 | awk '{ print $2 }')
  [[ -n $TP_XSTAT ]] || fail "testpmd shows no extended statistic '$2' for port $1"
}

# testpmd_stop: 'stop'; sets TP_FWD_DROPPED and TP_FWD_TOTAL from the
# forwarding run's accumulated statistics (all ports, all streams).
testpmd_stop() {
  local n
  n=$(testpmd_lines '^ +\++$')
  testpmd_cmd "stop"
  testpmd_wait "testpmd's forward statistics" testpmd_more_lines '^ +\++$' "$n"
  read -r TP_FWD_DROPPED TP_FWD_TOTAL < <(grep -E '^ +TX-packets: +[0-9]+ +TX-dropped:' "$TP_LOG" |
    tail -n 1 | awk '{ print $4, $6 }')
}

# testpmd_quit: 'quit', and its exit status must be 0.
testpmd_quit() {
  local rc
  testpmd_cmd "quit"
  wait_event "testpmd to exit after quit" "" "$TP_LOG" testpmd_gone
  wait "$TP_PID"
  rc=$?
  TP_PID=""
  exec 3>&-
  TP_FD=false
  [[ $rc -eq 0 ]] || { tail -n 60 "$TP_LOG" >&2; fail "testpmd exited $rc"; }
}
testpmd_gone() { ! kill -0 "$TP_PID" 2>/dev/null; }

# testpmd_kill: for a clean-up: close its fifo, end it (TERM, then KILL).
testpmd_kill() {
  if $TP_FD; then exec 3>&-; TP_FD=false; fi
  [[ -n $TP_PID ]] || return 0
  end_process "$TP_PID"
  TP_PID=""
}

# --- reload tests (docs/control.md)

# as_root_engine: skip unless root (an engine's runtime directory is root's);
# on exit, kill the engine in $pid (if any) and remove the scratch files.
as_root_engine() {
  [[ $(id -u) -eq 0 ]] || skip "the engine's runtime directory is root's: run as root"
  trap 'kill -KILL ${pid:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT
}

# start_engine CONFIG LOG N: sluice run CONFIG in the background (its pid in
# $pid, its output in LOG, its JSON summary in LOG.json), and wait for the
# line saying it runs N apps.
start_engine() {
  "$SLUICE" run "$1" --summary-json "$2.json" >"$2" 2>&1 &
  pid=$!
  wait_event "the start line" "$pid" "$2" log_lines "$2" "^sluice: running $3 apps"
}

# two_workers_head: the top of a pipeline on workers gen and fwd (placed
# automatically), with this test's EAL arguments and an 8191-mbuf pool.
two_workers_head() {
  cat <<EOF
dpdk:
  args: $EAL_ARGS
pool: { mbufs: 8191 }
workers:
  gen: { core: auto }
  fwd: { core: auto }
EOF
}

# swap_pipeline RATE [LINE]: two_workers_head, LINE (a section such as
# "engine: { ... }", or nothing), then source (RATE packets/s, 64 bytes, 16
# flows) on gen -> l2fwd -> sink on fwd: 3 apps, one cross-worker link
# "src.output -> swap.input" and one local "swap.output -> out.input".
swap_pipeline() {
  two_workers_head
  [[ -n ${2:-} ]] && echo "$2"
  cat <<EOF
apps:
  src:  { type: source, worker: gen, size: 64, flows: 16, rate: $1 }
  swap: { type: l2fwd, worker: fwd }
  out:  { type: sink, worker: fwd }
links:
  - src.output -> swap.input
  - swap.output -> out.input
EOF
}

# snap: one `sluice stats --json` of this test's engine, into $T/s.json.
snap() { "$SLUICE" stats --prefix "$PREFIX" --json >"$T/s.json" 2>/dev/null; }
