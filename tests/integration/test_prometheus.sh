#!/usr/bin/env bash
# A real Prometheus server scrapes sluice exporter: a pipeline whose source
# sends at a fixed rate (RATE packets/s) into a sink, the exporter on
# loopback, Prometheus (Debian's prometheus) on loopback scraping it every
# second with the sample alerting rules of docs/operations.md loaded.  Its
# HTTP API must answer rate(sluice_app_out_packets_total{app="out"}[10s])
# within 10% of RATE, and list the rules.
# The telemetry socket is root's: the test needs root.
source "$(dirname "$0")/lib.sh"
[[ $(id -u) -eq 0 ]] || skip "the engine's telemetry socket is root's: run as root"
command -v prometheus >/dev/null || skip "prometheus not installed (Debian package prometheus; scripts/setup)"
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus; scripts/setup)"
command -v curl >/dev/null || skip "curl not installed (scripts/setup)"

RATE=100000
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$T" "/var/run/dpdk/$PREFIX"
}
trap cleanup EXIT


# The source and the sink on one worker, so that nothing is lost between
# them.  The source's pacing makes up any stall of its worker shorter than
# its catch_up (1 s), so its rate over Prometheus's 5 s window is the rate
# it was told even on a loaded or one-CPU machine, where the worker shares
# its CPU with the control thread, the exporter and Prometheus.
cat >"$T/p.yaml" <<EOF
dpdk:
  args: $EAL_ARGS
apps:
  src:  { type: source, size: 64, flows: 64, rate: $RATE, catch_up: 1s }
  out:  { type: sink }
links:
  - src.output -> out.input
EOF
"$SLUICE" run "$T/p.yaml" --stats 1 >"$T/run.log" 2>&1 &
engine=$!
pids+=("$engine")

start_exporter
eport=$port

# The sample alerting rules and scrape config of docs/operations.md.
cp "$SRC/docs/examples/prometheus/sluice.rules.yml" "$T/sluice.rules.yml"
promtool check config "$SRC/docs/examples/prometheus/prometheus.yml" >"$T/sample.log" 2>&1 ||
  { cat "$T/sample.log" >&2; fail "promtool check config rejects docs/examples/prometheus/prometheus.yml"; }
promtool check rules "$T/sluice.rules.yml" >"$T/rules.log" 2>&1 ||
  { cat "$T/rules.log" >&2; fail "promtool check rules rejects the sample rules"; }
ok "promtool check rules accepts the sample alerting rules"

# Prometheus on loopback, on a free port (retried if another program takes it).
for attempt in 1 2 3 4 5; do
  pport=$(free_port)
  cat >"$T/prometheus.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ "$T/sluice.rules.yml" ]
scrape_configs:
  - job_name: sluice
    static_configs: [ { targets: [ "127.0.0.1:$eport" ] } ]
EOF
  promtool check config "$T/prometheus.yml" >"$T/config.log" 2>&1 ||
    { cat "$T/config.log" >&2; fail "promtool check config rejects the scrape config"; }
  rm -rf "$T/tsdb"
  prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
    --web.listen-address="127.0.0.1:$pport" >"$T/prom.log" 2>&1 &
  prom=$!
  pids+=("$prom")
  ready() { curl -sf --max-time 10 -o /dev/null "http://127.0.0.1:$pport/-/ready"; }
  wait_event "Prometheus to be ready or to fail" "" "$T/prom.log" \
    bash -c "curl -sf --max-time 10 -o /dev/null http://127.0.0.1:$pport/-/ready || ! kill -0 $prom 2>/dev/null"
  ready && break
  grep -q 'address already in use' "$T/prom.log" || { cat "$T/prom.log" >&2; fail "Prometheus did not start"; }
  wait "$prom"
done
ready || { cat "$T/prom.log" >&2; fail "Prometheus did not start"; }
ok "Prometheus on 127.0.0.1:$pport scrapes the exporter on 127.0.0.1:$eport every second"

# query PROMQL: the first result's value, or nothing.
query() {
  curl -s --max-time 10 --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query" |
    python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(r[0]["value"][1] if r else "")
except (ValueError, KeyError, IndexError, TypeError):
    print("")'
}

# within FRACTION A B: A is within FRACTION of B.
within() {
  python3 -c "import sys; a, b = float('$2'), float('$3'); sys.exit(0 if abs(a - b) <= $1 * b else 1)"
}

# src_rate: the source's mean rate over the engine's last five stats lines
# (its own --stats output, not read through the exporter), packets/s.
src_rate() {
  grep -E '^\[ *[0-9.]+s\] src in ' "$T/run.log" | tail -5 | awk '
    { v = $4; u = $5; n++
      sum += v * (u == "Mpps" ? 1e6 : u == "kpps" ? 1e3 : 1) }
    END { if (n) printf "%.0f\n", sum / n }'
}

# The rate, once Prometheus holds more than a window of samples taken after
# the workers started (so that the start is not in it), within 10% of RATE.
# Each poll asks Prometheus (two HTTP queries), so it polls every half
# second; $T/rate.log says what the last poll saw, for a failure.
promql='rate(sluice_app_out_packets_total{app="out"}[10s])'
rate_ok() {
  kill -0 "$prom" 2>/dev/null || { cat "$T/prom.log" >&2; fail "Prometheus ended"; }
  local up
  up=$(query 'sluice_uptime_seconds')
  [[ -n $up ]] && python3 -c "import sys; sys.exit(float('$up') <= 12)" || return 1
  got=$(query "$promql")
  echo "last poll: $promql = ${got:-no value}; the engine's stats: $(src_rate)/s; want $RATE" >"$T/rate.log"
  [[ -n $got ]] && within 0.1 "$got" "$RATE"
}
got=
WAIT_EVENT_POLL=0.5 wait_event "$promql within 10% of $RATE" "$engine" "$T/rate.log" rate_ok
ok "Prometheus: $promql = $got (the source sends $RATE/s)"

# One scrape that timed out on a loaded machine makes up 0 until the next:
# asked until both are 1.
both_up() { [[ $(query 'up{job="sluice"}') == 1 && $(query 'sluice_up') == 1 ]]; }
WAIT_EVENT_POLL=0.5 wait_event "up{job=\"sluice\"} 1 and sluice_up 1 in Prometheus" "$engine" "" both_up
rules=$(curl -s --max-time 10 "http://127.0.0.1:$pport/api/v1/rules")
for r in SluiceDropsRising SluiceEpochLaggard; do
  [[ $rules == *"\"$r\""* ]] || { echo "$rules" >&2; fail "Prometheus did not load the rule $r"; }
done
ok "up{job=\"sluice\"} 1, sluice_up 1, and both alerting rules loaded"

kill -TERM "$prom"
wait "$prom"
kill -TERM "$exporter"
wait "$exporter" || fail "the exporter did not exit 0 after SIGTERM"
interrupt "$engine" "$T/run.log" || { cat "$T/run.log" >&2; fail "the engine did not stop cleanly"; }
ok "Prometheus, the exporter and the engine stopped"
