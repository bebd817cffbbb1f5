#!/usr/bin/env bash
# scripts/bench-scaling: bad options are refused with a message and exit
# status 2; a tiny run (one run of 1 s per worker count, 1 and 2 workers where
# two CPUs are available) prints one line per worker count with its Mpps and
# Mpps per worker, keeps one CSV row per run, and ends with a well-formed
# summary line.  No rate is judged: only that every run forwarded something.
# serial: a benchmark, its threads pinned to CPUs and spinning; beside other
# tests it measures their contention and takes ten times as long
. "$(dirname "$0")/lib.sh"
B="$SRC/scripts/bench-scaling"
export SLUICE SLUICE_BENCH_NO_BUILD=1

expect_refused "bench-scaling: unknown argument '--bogus'" --bogus
expect_refused "bench-scaling: --runs must be a positive integer" --runs 0
expect_refused "bench-scaling: --duration needs a value" --duration
expect_refused "bench-scaling: --source must be pcap or null" --source ring
expect_refused "bench-scaling: --placement must be explicit or auto" --placement spread
expect_refused "bench-scaling: --counts must include 1 (the scaling is relative to one worker)" --counts 2,4
expect_refused "bench-scaling: --max-workers must be at most the CPUs this process may use" --max-workers 4096
ok "bad options refused with exit status 2"

mapfile -t cpus < <(python3 -c 'import os; print("\n".join(str(c) for c in sorted(os.sched_getaffinity(0))))')
n=$((${#cpus[@]} >= 2 ? 2 : 1))
"$B" --max-workers "$n" --runs 1 --duration 1 --flows 256 --no-c2c --out "$T/b" >"$T/out" 2>&1 ||
  { cat "$T/out"; fail "a tiny run with --max-workers $n failed"; }
for ((k = 1; k <= n; k++)); do
  grep -qE "^workers +$k: +[0-9]+\.[0-9]{3} Mpps +[0-9]+\.[0-9]{3} Mpps per worker " "$T/out" ||
    { cat "$T/out"; fail "no line for $k worker(s)"; }
done
line=$(grep '^summary: ' "$T/out") || { cat "$T/out"; fail "no summary line"; }
[[ $line =~ ^summary:\ workers=$n\ scaling=[0-9]+\.[0-9]{3}$ ]] || fail "malformed summary: $line"
expect_in "$T/out" "Model name"
python3 - "$T/b/results.csv" "$n" "${cpus[*]}" <<'PY' || fail "result rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n, cpus = int(sys.argv[2]), sys.argv[3].split()
assert [int(r["count"]) for r in rows] == list(range(1, n + 1)), rows
for r in rows:
    k = int(r["count"])
    assert float(r["mpps"]) > 0 and int(r["packets"]) > 0, r
    members = r["member_cpus"].split(",")
    # control on the first CPU, member j on the (j+1)-th, wrapping to the first
    assert members == [cpus[j % len(cpus)] for j in range(1, k + 1)], r
    assert r["control_cpu"] == cpus[0], r
    assert len(r["member_mpps"].split(",")) == k, r
PY
if ((n == 2 && ${#cpus[@]} == 2)); then
  expect_in "$T/out" "the control thread SHARES cpu ${cpus[0]} with fwd@1"
fi
ok "tiny run, $n worker count(s): $line"
