#!/usr/bin/env bash
# The interlink, pool and bounce benchmarks name the regime of their pair of CPUs in
# their summary lines: c2c_ns is measured, and regime is near below 100 ns,
# far at or above (tests/bench/regime.h), or mixed when the measurements of
# one invocation straddle 100 ns.  The interlink and pool benches also name
# each run's (round's) regime from the c2c before and after it, and print
# the far and near runs' ratios on lines of their own.  A tiny run of each;
# no timing is judged (the ratios of so short a run may be anything, even
# inf), only that the lines are complete and every regime and count agrees
# with the c2c values printed.  A printed value is rounded: one within the
# rounding of 100 ns may stand for either side.
# serial: a benchmark, its threads pinned to CPUs and spinning; beside other
# tests it measures their contention and takes ten times as long
. "$(dirname "$0")/lib.sh"
BLD=${SLUICE_BUILD:?}

mapfile -t cpus < <(python3 -c 'import os; print("\n".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2]))')
if ((${#cpus[@]} < 2)); then
  echo "skip: the benchmarks need two CPUs; this process may use ${#cpus[@]}"
  exit 77
fi
pair="${cpus[0]},${cpus[1]}"

# regime_ok LOG: the summary line's regime agrees with its c2c_ns.
regime_ok() {
  python3 - "$1" <<'PY' || fail "$1: the summary's regime does not match its c2c_ns"
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("summary:")][-1]
kv = dict(re.findall(r"(\w+)=(\S+)", line))
c2c, regime = float(kv["c2c_ns"]), kv["regime"]
assert c2c > 0, line
assert regime == "mixed" or abs(c2c - 100) <= 0.05 or regime == ("near" if c2c < 100 else "far"), line
PY
}

# The regime rules of tests/bench/regime.h for printed (rounded) values, for
# the python checks below: side(v, tol) is "near", "far" or None (within the
# rounding of 100 ns: either); pair(a, b) is the regime of a run or round
# measured a ns before and b after it, or None where rounding leaves it open.
REGIME_PY='
def side(v, tol=0.05):
    return None if abs(v - 100) <= tol else ("near" if v < 100 else "far")
def pair(a, b):
    sa, sb = side(a), side(b)
    if sa is None or sb is None:
        return None
    return sa if sa == sb else "mixed"
'


# lines_ok BENCH LOG MIN MAX KEY...: LOG has a line "lines: KEY=V ..." with
# each KEY's value in [MIN, MAX) (cache lines made to cross per object).
lines_ok() {
  local bench=$1 log=$2 min=$3 max=$4 lines; shift 4
  lines=$(grep '^lines: ' "$log") || { cat "$log" >&2; fail "$bench: no lines line"; }
  python3 - "$lines" "$min" "$max" "$@" <<'PY' || fail "$bench: lines out of [$min, $max): $lines"
import re, sys
kv = dict(re.findall(r"(\w+)=([0-9.]+)", sys.argv[1]))
for k in sys.argv[4:]:
    assert float(sys.argv[2]) <= float(kv[k]) < float(sys.argv[3]), (k, kv)
PY
  ok "$bench: ${lines%% (*}"
}

"$BLD/tests/bench_interlink" --cores "$pair" --runs 1 --seconds 0.2 >"$T/il.log" 2>&1 ||
  { cat "$T/il.log" >&2; fail "bench_interlink --cores $pair failed"; }
grep -qE '^summary: throughput_ratio=\S+ latency_p50_ns=\S+ c2c_ns=[0-9.]+ latency_ratio=\S+ regime=(near|far|mixed)$' "$T/il.log" ||
  { cat "$T/il.log" >&2; fail "bench_interlink: no complete summary line"; }
grep -qE '^run 1: c2c [0-9.]+/[0-9.]+ ns \((near|far|mixed)\) \|' "$T/il.log" ||
  fail "bench_interlink: the run line does not name its c2c before and after and its regime"
# The run's regime follows from its two c2c measurements (and, for far, the
# interlink's p50: a sample crosses the pair); a run of one regime has that
# regime's line of medians, a mixed run none.
python3 - "$T/il.log" "$REGIME_PY" <<'PY' || fail "bench_interlink: a run's regime or the per-regime lines disagree with its c2c"
import re, sys
exec(sys.argv[2])
text = open(sys.argv[1]).read()
m = re.search(r"^run 1: c2c ([0-9.]+)/([0-9.]+) ns \((\w+)\) .*latency p50/p99 interlink ([0-9]+)/", text, re.M)
a, b, reg, p50 = float(m.group(1)), float(m.group(2)), m.group(3), float(m.group(4))
want = pair(a, b)
if want == "far":   # a far run also needs its latency witness
    want = "mixed" if p50 < 99.5 else None if p50 < 100.5 else "far"
assert want is None or reg == want, (reg, want, a, b, p50)
lines = re.findall(r"^(near|far) runs \((\d+)\): throughput_ratio=\S+ batched_ratio=\S+ latency_p50_ns=([0-9.]+) c2c_ns=([0-9.]+) latency_ratio=\S+$", text, re.M)
if reg == "mixed":
    assert lines == [], (lines, reg)
else:
    # one run: its line's medians are the run's own values
    assert [(l[0], l[1]) for l in lines] == [(reg, "1")], (lines, reg)
    assert abs(float(lines[0][2]) - p50) <= 1, (lines, p50)
    assert abs(float(lines[0][3]) - (a + b) / 2) <= 0.11, (lines, a, b)
summary = re.search(r"^summary: .* c2c_ns=([0-9.]+) .*regime=(\w+)$", text, re.M)
assert summary.group(2) == reg, (summary.group(2), reg)
assert abs(float(summary.group(1)) - (a + b) / 2) <= 0.11, (summary.group(1), a, b)
PY
regime_ok "$T/il.log"
ok "bench_interlink: $(grep '^summary:' "$T/il.log")"
# Lines per packet: every object is written into a slot line the consumer
# reads (8 pointers a line), so neither ring can be under 1/8, and at bursts
# of 32 neither should reach one line per packet.
# Every packet crosses through a slot line of 8 pointers: at least 1/8.
lines_ok bench_interlink "$T/il.log" 0.125 1 lines_per_packet ring_lines_per_packet

"$BLD/tests/bench_pool" --cores "$pair" --runs 2 --objects 100000 --only one-way,same-worker >"$T/pool.log" 2>&1 ||
  { cat "$T/pool.log" >&2; fail "bench_pool --cores $pair failed"; }
grep -qE '^summary: oneway_speedup=\S+ same_worker_ratio=\S+ step_p999_ns=[0-9]+ pool_only_ratio=\S+ c2c_ns=[0-9.]+ regime=(near|far|mixed)$' "$T/pool.log" ||
  { cat "$T/pool.log" >&2; fail "bench_pool: no complete summary line"; }
for w in before after; do
  grep -qE "^c2c of cpus ${cpus[0]} and ${cpus[1]} $w the rounds: [0-9.]+ ns \((near|far)\)$" "$T/pool.log" ||
    { cat "$T/pool.log" >&2; fail "bench_pool: no c2c line $w the rounds"; }
done
regime_ok "$T/pool.log"
# Each round's regime from the c2c before it (the line before the rounds)
# and after it; a round of one regime has that regime's line of ratios.
python3 - "$T/pool.log" "$REGIME_PY" <<'PY' || fail "bench_pool: a round's regime or the per-regime lines disagree with its c2c"
import re, sys
exec(sys.argv[2])
text = open(sys.argv[1]).read()
c = [float(re.search(r"^c2c of cpus \d+ and \d+ before the rounds: ([0-9.]+) ns", text, re.M).group(1))]
c += [float(v) for v in re.search(r"^c2c +after \(ns\)((?: +[0-9.]+)+)$", text, re.M).group(1).split()]
regs = re.search(r"^regime((?: +\w+)+)$", text, re.M).group(1).split()
assert len(c) == 3 and len(regs) == 2, (c, regs)
for r in range(2):   # round r: the c2c before it and after it
    want = pair(c[r], c[r + 1])
    assert want is None or regs[r] == want, (r, regs, c)
lines = dict(re.findall(r"^(near|far) rounds \((\d+)\): oneway_speedup=\S+ pool_only_ratio=\S+ c2c_ns=[0-9.]+ oneway_bound=\S+$", text, re.M))
counts = {g: str(regs.count(g)) for g in ("near", "far") if regs.count(g) > 0}
assert lines == counts, (lines, regs)
last = float(re.search(r"^c2c of cpus \d+ and \d+ after the rounds: ([0-9.]+) ns", text, re.M).group(1))
summary = re.search(r"^summary: .* regime=(\w+)$", text, re.M).group(1)
common = regs[0] if regs[0] == regs[1] else "mixed"
if common != "mixed" and side(last) not in (None, common):
    common = "mixed"   # the pair moved before the last measurement
assert summary == common or (side(last) is None and summary == "mixed"), (summary, regs, last)
PY
ok "bench_pool: $(grep '^summary:' "$T/pool.log")"
# Lines per buffer, one-way: ring+cache moves every pointer through a slot
# line of 8, at least 1/8, plus its tail lines (a few per hundreds of
# buffers).  Sluice moves chunks of 32-bit deltas, 16 a line, with a
# sequence line there and back: 34 lines per 512 buffers (0.066) for each
# buffer that crossed in a chunk handoff; those the taking side's freelist
# held from the start never do (a larger share of a short round on a
# loaded machine), so some, and under 0.1: chunks of pointers (66 lines,
# 0.129) would not be.
lines_ok bench_pool "$T/pool.log" 0.125 0.5 ring_lines_per_buffer
lines_ok bench_pool "$T/pool.log" 0.001 0.1 lines_per_buffer
bench_refused bench_pool "--tier must be 0 or a power of two from 2 to 65536, got '3'" --tier 3
bench_refused bench_pool "--tier must be 0 or a power of two from 2 to 65536, got 'x'" --tier x
bench_refused bench_pool "--tier must be 0 or a power of two from 2 to 65536, got '131072'" --tier 131072
ok "bench_pool: a bad --tier refused, named"

# bench_bounce (the floor under the cliff): the same complete summary, and
# its argument errors named.
"$BLD/tests/bench_bounce" --cores "$pair" --runs 1 --seconds 0.05 --objects 4096 >"$T/bb.log" 2>&1 ||
  { cat "$T/bb.log" >&2; fail "bench_bounce --cores $pair failed"; }
grep -qE '^summary: read_over_local=[0-9.]+ pfw_over_read=[0-9.]+ index_over_local=[0-9.]+ c2c_ns=[0-9.]+ regime=(near|far|mixed)$' "$T/bb.log" ||
  { cat "$T/bb.log" >&2; fail "bench_bounce: no complete summary line"; }
for s in index read pfw local; do
  grep -qE "^run 1 $s +[0-9.]+ ns/object +[0-9.]+ Mobj/s +c2c [0-9.]+ ns \((near|far)\)$" "$T/bb.log" ||
    { cat "$T/bb.log" >&2; fail "bench_bounce: no run line for scenario $s"; }
done
regime_ok "$T/bb.log"
ok "bench_bounce: $(grep '^summary:' "$T/bb.log")"
bench_refused bench_bounce "--stride must be a multiple of 64, at least 384 with --footprint mbuf, got 100" --stride 100
bench_refused bench_bounce "--order must be shuffled or sequential, got 'random'" --order random
bench_refused bench_bounce "--cores must be two different CPUs A,B, got '1,1'" --cores 1,1
bench_refused bench_bounce "--objects (2000) must be a multiple of --burst (32), at least two bursts" --objects 2000
bench_refused bench_bounce "--footprint must be mbuf or line, got 'x'" --footprint x
bench_refused bench_bounce "--seconds must be 0.05..60, got '0'" --seconds 0
bench_refused bench_bounce "--stores must be a number 1..8, got '9'" --stores 9
bench_refused bench_bounce "--distance must be a number 0..4096, got 'x'" --distance x
bench_refused bench_bounce "unexpected argument 'extra'" extra
ok "bench_bounce: bad arguments refused, each named"
