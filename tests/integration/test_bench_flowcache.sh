#!/usr/bin/env bash
# scripts/bench-flowcache: bad options are refused with a message and exit
# status 2; a tiny run (one worker, one load, two policies, 1 s) writes one
# CSV row per run and ends with a well-formed summary line; --summarize
# reprints the summary from that CSV.
# serial: a benchmark, its threads pinned to CPUs and spinning; beside other
# tests it measures their contention and takes ten times as long
. "$(dirname "$0")/lib.sh"
B="$SRC/scripts/bench-flowcache"
export SLUICE SLUICE_BENCH_NO_BUILD=1

expect_refused "bench-flowcache: unknown argument '--bogus'" --bogus
expect_refused "bench-flowcache: --runs must be a positive integer" --runs 0
expect_refused "bench-flowcache: unknown load 'heavy' (pressure, churn, unique)" --loads heavy
expect_refused "bench-flowcache: unknown policy 'lazy' (immediate, batch, qsbr)" --policies lazy
expect_refused "bench-flowcache: --expiry must be scan or wheel" --expiry timer
expect_refused "bench-flowcache: --workers needs a value" --workers
ok "bad options refused with exit status 2"

"$B" --workers 1 --runs 1 --duration 1 --loads unique --policies immediate,batch \
  --entries 4096 --out "$T/b" >"$T/out" 2>&1 || { cat "$T/out"; fail "a tiny run failed"; }
[[ $(wc -l <"$T/b/results.csv") -eq 3 ]] || { cat "$T/b/results.csv"; fail "expected 2 result rows"; }
line=$(grep '^summary: ' "$T/out") || { cat "$T/out"; fail "no summary line"; }
[[ $line =~ ^summary:\ immediate_overhead_pct=-?[0-9.]+\ backlog_hwm=[0-9]+\ backlog_bound=64\ retire_free_p99_breaths=[0-9]+$ ]] ||
  fail "malformed summary: $line"
python3 - "$T/b/results.csv" <<'PY' || fail "result rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["policy"] for r in rows] == ["immediate", "batch"], rows
for r in rows:
    assert float(r["mpps"]) > 0, r
    assert int(r["evicted"]) > 0, r
PY
"$B" --workers 1 --summarize "$T/b" >"$T/out2" 2>&1 || fail "--summarize failed"
[[ $(grep '^summary: ' "$T/out2") == "$line" ]] || fail "--summarize printed a different summary"
ok "tiny run: 2 rows, $line"
