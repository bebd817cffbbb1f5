#!/usr/bin/env bash
# scripts/bench-link: bad options are refused with a message and exit status
# 2 before anything runs; one short real run of each implementation (on two
# CPUs) writes both kinds of link, its results and a well-formed summary line.
# Nothing here asserts a rate.
# serial: a benchmark, its threads pinned to CPUs and spinning; beside other
# tests it measures their contention and takes ten times as long
. "$(dirname "$0")/lib.sh"
B="$SRC/scripts/bench-link"

expect_usage "bench-link: unknown argument '--bogus'" --bogus
expect_usage "bench-link: --runs must be a positive integer" --runs 0
expect_usage "bench-link: --duration needs a value" --duration
expect_usage "bench-link: --duration must be 0.2..600 seconds" --duration 0.1
expect_usage "bench-link: --receivers must be 1 or 2" --receivers 3
expect_usage "bench-link: --link-size must be a power of two from 64 to 65536" --link-size 1000
expect_usage "bench-link: --latency-rate must be 1..10000000" --latency-rate 0
expect_usage "bench-link: --memory must be 4k or 2m, got '1g'" --memory 1g
expect_usage "bench-link: --cores must be two CPU numbers A,B" --cores 0
expect_usage "bench-link: --cores needs two different CPUs" --cores 0,0
first=$(awk '/^Cpus_allowed_list:/{print $2}' /proc/self/status | cut -d, -f1 | cut -d- -f1)
expect_usage "bench-link: --cores: CPU 9999 is not in this process's CPU affinity" --cores "$first,9999"
ok "bad options refused with exit status 2"

"$B" --help >"$T/help" 2>&1 || fail "bench-link --help exited $?"
expect_in "$T/help" "engine_link_ratio"
ok "--help says what the summary line holds"

# REPORT=1: the report of earlier runs, no run.  Run 2's c2c says far, but
# its interlink's latency p50 (91 ns) cannot be: the regime is mixed.
mkdir -p "$T/rep"
cat >"$T/rep/results.csv" <<'EOF'
run,impl,mpps,drops,p50_ns,p99_ns,lost,c2c_before_ns,c2c_after_ns,lines_per_packet
1,interlink,26.00,100,324,28416,0,229.8,204.0,0.160
1,local,80.00,0,NA,NA,NA,215.0,208.9,NA
1,ring,20.00,200,520,35328,0,204.4,218.9,NA
2,ring,30.00,300,536,51712,0,219.5,218.8,NA
2,local,100.00,0,NA,NA,NA,216.3,217.3,NA
2,interlink,66.00,400,91,13440,0,211.6,215.0,0.161
EOF
REPORT=1 "$B" --out "$T/rep" >"$T/report" 2>&1 || { cat "$T/report"; fail "REPORT=1 exited $?"; }
expect_in "$T/report" "regime of each run: 1:far 2:mixed"
expect_in "$T/report" "far runs (1): engine_link_ratio=1.300 sojourn_p50_ratio=0.623 cliff_ratio=0.325"
expect_in "$T/report" "summary: engine_link_ratio=1.750 sojourn_p50_ratio=0.396 cliff_ratio=0.493 c2c_ns=215.7 regime=mixed"
REPORT=1 "$B" >"$T/out" 2>&1; rc=$?
[[ $rc -eq 2 ]] || fail "REPORT=1 without --out exited $rc"
expect_in "$T/out" "bench-link: REPORT=1 needs --out DIR"
REPORT=1 "$B" --out "$T/none" >"$T/out" 2>&1; rc=$?
[[ $rc -eq 2 ]] || fail "REPORT=1 with no results exited $rc"
expect_in "$T/out" "bench-link: REPORT=1: no $T/none/results.csv"
ok "REPORT=1: a run whose latency p50 is under 100 ns is not far, whatever its c2c"

# The reading between a link's throughput and latency runs (c2c_mid_ns, a
# column results of earlier versions lack): run 1 reads far before and
# after each part, but near between the interlink's two runs: mixed.
mkdir -p "$T/mid"
cat >"$T/mid/results.csv" <<'EOF'
run,impl,mpps,drops,p50_ns,p99_ns,lost,c2c_before_ns,c2c_after_ns,lines_per_packet,c2c_mid_ns
1,interlink,26.00,100,324,28416,0,229.8,204.0,0.160,41.5
1,local,80.00,0,NA,NA,NA,215.0,208.9,NA,NA
1,ring,20.00,200,520,35328,0,204.4,218.9,NA,210.0
2,ring,30.00,300,536,51712,0,219.5,218.8,NA,214.2
2,local,100.00,0,NA,NA,NA,216.3,217.3,NA,NA
2,interlink,36.00,400,310,13440,0,211.6,215.0,0.161,220.1
EOF
REPORT=1 "$B" --out "$T/mid" >"$T/report" 2>&1 || { cat "$T/report"; fail "REPORT=1 exited $?"; }
expect_in "$T/report" "regime of each run: 1:mixed 2:far"
expect_in "$T/report" "far runs (1): engine_link_ratio=1.200 sojourn_p50_ratio=0.578 cliff_ratio=0.360 c2c_ns=216.8"
ok "REPORT=1: a near reading between a link's two runs makes the run mixed"

[[ $(id -u) -eq 0 ]] || skip "the engine's runtime directory is root's: run as root"
ncpu=$(awk '/^Cpus_allowed_list:/{print $2}' /proc/self/status | tr ',' '\n' |
       awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')
if ((ncpu < 2)); then
  expect_usage "bench-link: needs two CPUs" --runs 1
  skip "one CPU: the refusal checked; a run needs two"
fi
BUILD=${SLUICE_BUILD:-$SRC/build} "$B" --runs 1 --duration 0.3 --receivers 2 \
  --latency-rate 20000 --out "$T/bl" >"$T/run" 2>&1 ||
  { cat "$T/run"; fail "bench-link exited $?"; }
grep -qE '^summary: engine_link_ratio=[0-9.]+ sojourn_p50_ratio=([0-9.]+|NA) cliff_ratio=[0-9.]+ c2c_ns=([0-9.]+|NA) regime=(near|far|mixed|NA)$' "$T/run" ||
  { cat "$T/run"; fail "no well-formed summary line"; }
expect_in "$T/run" "run 1 interlink"
expect_in "$T/run" "run 1 ring"
expect_in "$T/run" "run 1 local"
expect_in "$T/run" "regime of each run: 1:"
# the interlinks' lines per packet: every packet went into a slot line of 8
# pointers, so at least 1/8; at bursts of up to 32, under one
lpp=$(sed -nE 's/^lines: lines_per_packet=([0-9.]+) .*/\1/p' "$T/run")
[[ -n $lpp ]] && awk -v v="$lpp" 'BEGIN { exit !(v >= 0.125 && v < 1) }' ||
  { cat "$T/run"; fail "lines per packet missing or out of range: '$lpp'"; }
[[ $(wc -l <"$T/bl/results.csv") -eq 4 ]] || { cat "$T/bl/results.csv"; fail "results.csv lacks a row"; }
# the reading between each link's two runs, a number or NA (no reading)
awk -F, 'NR > 1 && $2 != "local" && $11 !~ /^([0-9.]+|NA)$/ { bad = 1 } END { exit bad }' \
  "$T/bl/results.csv" || { cat "$T/bl/results.csv"; fail "results.csv: c2c_mid_ns missing"; }
head -1 "$T/bl/results.csv" | grep -q ',c2c_mid_ns$' || fail "results.csv: no c2c_mid_ns column"
for impl in interlink ring; do
  f=$T/bl/runs/01-$impl-tput.json
  [[ $(summary_get "$f" links "spl.output1 -> rx1.input" kind) == "$impl" ]] ||
    fail "$f: the cross-worker link is not $impl"
  [[ $(summary_get "$f" links "src.output -> spl.input" kind) == local ]] ||
    fail "$f: the same-worker link is not local"
  [[ $(summary_get "$T/bl/runs/01-$impl-lat.json" links "src.output1 -> rx1.input0" kind) == "$impl" ]] ||
    fail "the latency run's link is not $impl"
done
[[ $(summary_get "$T/bl/runs/01-local-tput.json" links "spl.output1 -> rx1.input" kind) == local ]] ||
  fail "the local run's links are not local"
ok "one run of each: every kind of link, results and the summary line"

# --memory 2m: the same pipelines on 2 MB hugepages (reserved as root where
# missing, given back after); the engines' EAL arguments say so.
BUILD=${SLUICE_BUILD:-$SRC/build} "$B" --runs 1 --duration 0.2 --memory 2m \
  --out "$T/bl2m" >"$T/run2m" 2>&1 || { cat "$T/run2m"; fail "bench-link --memory 2m exited $?"; }
grep -qE '^summary: engine_link_ratio=[0-9.]+ ' "$T/run2m" || { cat "$T/run2m"; fail "--memory 2m: no summary line"; }
expect_in "$T/run2m" "memory 2m;"
for f in "$T"/bl2m/runs/01-*.yaml; do
  grep -qF -- '--in-memory, --socket-mem, "512"' "$f" || { cat "$f"; fail "$f: not on hugepages"; }
done
grep -qF -- '--no-huge' "$T/bl/runs/01-interlink-tput.yaml" || fail "the default run is not on 4 kB pages"
ok "--memory 2m: every run on 2 MB hugepages, the default on 4 kB pages"
