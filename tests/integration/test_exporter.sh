#!/usr/bin/env bash
# sluice exporter against a running engine (a copy of the quick start under
# this test's file prefix):
#   - GET /metrics answers 200 with Content-Type text/plain; version=0.0.4,
#     and `promtool check metrics` (Debian's prometheus) accepts a real scrape;
#   - sluice_app_out_packets_total{app="out",...} grows between two scrapes;
#     sluice_up 1 and sluice_info name the engine's prefix;
#   - /other answers 404, POST /metrics 405;
#   - the engine stopped: still 200, with sluice_up 0; started again under
#     the same prefix: sluice_up 1 again (the exporter reconnects);
#   - usage errors exit 2 with a message (bad --listen, unknown option), a
#     port in use exits 1 naming the address, SIGTERM and SIGINT exit 0.
# The telemetry socket is root's: the test needs root.
source "$(dirname "$0")/lib.sh"
[[ $(id -u) -eq 0 ]] || skip "the engine's telemetry socket is root's: run as root"
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus; scripts/setup)"
command -v curl >/dev/null || skip "curl not installed (scripts/setup)"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$T" "/var/run/dpdk/$PREFIX"
}
trap cleanup EXIT


sed "s/sluice-quickstart/$PREFIX/" "$SRC/docs/examples/quickstart.yaml" >"$T/q.yaml"
grep -q -- "$PREFIX" "$T/q.yaml" || fail "the quick start's --file-prefix was not replaced"

start_engine() {
  "$SLUICE" run "$T/q.yaml" >"$T/run.log" 2>&1 &
  engine=$!
  pids+=("$engine")
}

# The exporter on a free port (lib.sh).
start_exporter
url="http://127.0.0.1:$port"

# scrape FILE: GET /metrics into FILE (headers in FILE.h); fails unless 200.
scrape() {
  local code
  code=$(curl -s --max-time 30 -D "$1.h" -o "$1" -w '%{http_code}' "$url/metrics")
  [[ $code == 200 ]]
}

# value FILE SERIES: the value of the sample whose name and labels start
# with SERIES (a fixed string).
value() {
  awk -v s="$2" 'index($0, s) == 1 { print $NF; exit }' "$1"
}

up_is() {
  scrape "$T/m.up" && [[ $(value "$T/m.up" "sluice_up ") == "$1" ]]
}

# Before the engine: up 0, and the exporter's own info.
scrape "$T/m0" || fail "GET /metrics without an engine did not answer 200"
[[ $(value "$T/m0" "sluice_up ") == 0 ]] || { cat "$T/m0" >&2; fail "sluice_up is not 0 without an engine"; }
expect_in "$T/m0" "sluice_exporter_info{version=\"$("$SLUICE" version | awk '{print $2}')\",prefix=\"$PREFIX\"} 1"
promtool check metrics <"$T/m0" >"$T/lint0" 2>&1 || { cat "$T/lint0" >&2; fail "promtool rejects the scrape without an engine"; }
ok "no engine: 200 with sluice_up 0 and the exporter's info"

start_engine
wait_event "sluice_up 1" "$engine" "$T/run.log" up_is 1
out='sluice_app_out_packets_total{app="out",'
has_out() { scrape "$T/m1" && [[ -n $(value "$T/m1" "$out") ]]; }
wait_event "a sample of $out...}" "$engine" "$T/run.log" has_out
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$T/m1.h" ||
  { cat "$T/m1.h" >&2; fail "Content-Type is not text/plain; version=0.0.4"; }
ok "GET /metrics: 200, Content-Type text/plain; version=0.0.4; charset=utf-8"

promtool check metrics <"$T/m1" >"$T/lint" 2>&1 || { cat "$T/lint" >&2; fail "promtool check metrics rejects a scrape"; }
ok "promtool check metrics accepts a real scrape ($(grep -c '^# TYPE' "$T/m1") families, $(grep -vc '^#' "$T/m1") samples)"

expect_in "$T/m1" "sluice_info{version=\"$("$SLUICE" version | awk '{print $2}')\",prefix=\"$PREFIX\"} 1"
for s in 'sluice_app_in_packets_total{app="src",type="source",worker="gen"}' \
         'sluice_link_packets_total{link="src.output -> swap.input",kind="interlink"}' \
         'sluice_worker_breaths_total{worker="gen"}' 'sluice_uptime_seconds'; do
  [[ -n $(value "$T/m1" "$s") ]] || { cat "$T/m1" >&2; fail "no sample $s"; }
done
expect_in "$T/m1" "# TYPE sluice_app_out_packets_total counter"
ok "app, link, worker and uptime samples with their labels"

a=$(value "$T/m1" "$out")
grows() { scrape "$T/m2" && (($(value "$T/m2" "$out") > a)); }
wait_event "$out...} to grow past $a" "$engine" "$T/run.log" grows
ok "sluice_app_out_packets_total{app=\"out\"} grows: $a, then $(value "$T/m2" "$out")"

code=$(curl -s --max-time 30 -o "$T/other" -w '%{http_code}' "$url/other")
[[ $code == 404 ]] || fail "GET /other answered $code, not 404"
code=$(curl -s --max-time 30 -o "$T/post" -w '%{http_code}' -X POST --data x "$url/metrics")
[[ $code == 405 ]] || fail "POST /metrics answered $code, not 405"
ok "GET /other: 404; POST /metrics: 405"

# A second exporter on the same address.
expect_exit 1 "$T/inuse.log" exporter --listen "127.0.0.1:$port" --prefix "$PREFIX"
expect_in "$T/inuse.log" "sluice: exporter: cannot listen on 127.0.0.1:$port: Address already in use"
ok "a port in use: exit 1 naming the address"

# The engine stops: still 200, sluice_up 0; it comes back: sluice_up 1.
interrupt "$engine" "$T/run.log" || { cat "$T/run.log" >&2; fail "the engine did not stop cleanly"; }
wait_event "sluice_up 0 after the engine stopped" "$exporter" "$T/exp.log" up_is 0
promtool check metrics <"$T/m.up" >"$T/lint2" 2>&1 || { cat "$T/lint2" >&2; fail "promtool rejects the scrape after the engine stopped"; }
grep -q '^sluice_app_' "$T/m.up" && fail "app samples while the engine is gone"
expect_in "$T/exp.log" "no engine to read (sluice_up 0)"
ok "the engine stopped: 200 with sluice_up 0, and the exporter said so"
start_engine
wait_event "sluice_up 1 after the engine started again" "$engine" "$T/run.log" up_is 1
ok "the engine started again: sluice_up 1 (the exporter reconnected)"
interrupt "$engine" "$T/run.log" || fail "the engine did not stop cleanly"

kill -TERM "$exporter"
wait "$exporter"
rc=$?
[[ $rc -eq 0 ]] || { cat "$T/exp.log" >&2; fail "the exporter exited $rc after SIGTERM"; }
ok "SIGTERM: exit 0"

"$SLUICE" exporter --listen "127.0.0.1:$port" --prefix "$PREFIX" >"$T/exp2.log" 2>&1 &
exporter=$!
pids+=("$exporter")
wait_event "the second exporter's 'serving' line" "$exporter" "$T/exp2.log" grep -q serving "$T/exp2.log"
kill -INT "$exporter"
wait "$exporter"
rc=$?
[[ $rc -eq 0 ]] || { cat "$T/exp2.log" >&2; fail "the exporter exited $rc after SIGINT"; }
ok "SIGINT: exit 0"

for bad in 127.0.0.1 localhost:9473 1.2.3:80 127.0.0.1:0 127.0.0.1:65536 127.0.0.1:x '[::1]' ':9473'; do
  expect_exit 2 "$T/bad.log" exporter --listen "$bad"
  expect_in "$T/bad.log" "sluice: exporter: --listen needs ADDR:PORT with an IPv4 address or [IPv6], and a port 1..65535, got '$bad'"
done
expect_exit 2 "$T/bad.log" exporter --listen
expect_in "$T/bad.log" "sluice: exporter: --listen needs a value"
expect_exit 2 "$T/bad.log" exporter --bogus
expect_in "$T/bad.log" "sluice: exporter: unknown option '--bogus'"
ok "usage errors: exit 2 with a message"
