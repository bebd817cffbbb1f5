#!/usr/bin/env bash
# A port whose output is a direct link pulls up to 4 full bursts a breath
# (PORT_RX_ROUNDS, apps/port.c), each handed through the chain before the
# next is read; into a queued link (engine.direct_links: false) one burst a
# breath, so that nothing piles up in the queue.  net_null's rx fills every
# burst it is asked for, so the pull's packets a call (the summary's
# runtime, counted on every breath) say how many bursts each breath took:
# 4 x 32 direct, 32 queued, whatever the machine's speed.  Every packet
# pulled left by the other port and every mbuf is back.
. "$(dirname "$0")/lib.sh"

config() { # NAME DIRECT_LINKS
  cat >"$T/$1.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 8191 }
engine: { burst: 32, direct_links: $2 }
apps:
  in:  { type: port, device: "net_null0" }
  out: { type: port, device: "net_null1,no-rx=1" }
links:
  - in.output -> out.input
YAML
}

# per_call NAME: the in port's pulled packets per pull call, and checks
# that every packet pulled was sent and every mbuf is back.
per_call() {
  local j=$T/$1.json calls pkts sent back total
  expect_exit 0 "$T/$1.log" run "$T/$1.yaml" --duration 0.5 --quiet --summary-json "$j"
  calls=$(summary_get "$j" apps in runtime pull_calls) || fail "$1: no pull_calls"
  pkts=$(summary_get "$j" apps in runtime pull_packets) || fail "$1: no pull_packets"
  sent=$(summary_get "$j" apps out counters out_packets) || fail "$1: no out_packets"
  back=$(summary_get "$j" mbufs back); total=$(summary_get "$j" mbufs total)
  ((calls > 10 && pkts > 0)) || fail "$1: $calls pull calls, $pkts packets: the run did not forward"
  ((sent == pkts)) || fail "$1: $pkts packets pulled, $sent sent"
  ((back == total)) || fail "$1: $back of $total mbufs back"
  echo $((pkts / calls))
}

config direct true
config queued false
n=$(per_call direct) || exit 1
((n > 4 * 32 * 9 / 10 && n <= 4 * 32)) ||
  fail "direct link: $n packets a pull call, expected about 4 bursts of 32 (128)"
ok "into a direct link: $n packets a breath (4 bursts of 32)"
n=$(per_call queued) || exit 1
((n <= 32 && n > 32 * 9 / 10)) || fail "queued link: $n packets a pull call, expected one burst of 32"
ok "into a queued link: $n packets a breath (one burst of 32)"
