# Sourced by the bench scripts: the one-way core-to-core latency (c2c) of
# the CPUs a run uses, printed beside its results (the vCPUs may land on
# near or far physical cores, and every result is read against that).
#
#   c2c_measure NAME SLUICE CPUS WHEN DIR
#     measures CPUS (comma-separated) with `SLUICE topology --measure`
#     (matrix DIR/c2c-WHEN.csv, log DIR/c2c-WHEN.log) and prints
#       c2c of cpus A and B WHEN the runs: N ns (near|far)
#     for one pair, or for more
#       c2c of the P pairs of cpus CPUS WHEN the runs: median N ns (near|far), min L, max H
#     near: under 100 ns.  Sets C2C_MED to the median ("" when nothing was
#     measured).  Fewer than two distinct CPUS: measures and prints nothing.
#     A failed measurement prints "NAME: note: ..." on stderr; the caller
#     goes on (returns 0).
C2C_MED=""
c2c_measure() {
  local name=$1 sluice=$2 cpus=$3 when=$4 dir=$5
  local f="$dir/c2c-$when.csv" vals lo med hi n regime
  C2C_MED=""
  (($(tr ',' '\n' <<<"$cpus" | sort -u | wc -l) >= 2)) || return 0
  if ! taskset -c "$cpus" "$sluice" topology --measure --samples 3 --round-trips 10000 \
       --save "$f" >"$dir/c2c-$when.log" 2>&1; then
    echo "$name: note: 'sluice topology --measure' on cpus $cpus failed (see $dir/c2c-$when.log)" >&2
    return 0
  fi
  vals=$(c2c_pairs "$f" "$cpus") || true
  if [[ -z $vals ]]; then
    echo "$name: note: the matrix $f has no pair of cpus $cpus" >&2
    return 0
  fi
  read -r lo med hi n <<<"$vals"
  regime=$(awk -v m="$med" 'BEGIN { print m < 100 ? "near" : "far" }')
  if ((n == 1)); then
    echo "c2c of cpus ${cpus/,/ and } $when the runs: $med ns ($regime)"
  else
    echo "c2c of the $n pairs of cpus $cpus $when the runs: median $med ns ($regime), min $lo, max $hi"
  fi
  C2C_MED=$med
}

# c2c_pairs FILE CPUS: from a matrix saved by `sluice topology --measure
# --save`, the one-way latency of the pairs of CPUS (comma-separated):
# prints "MIN MEDIAN MAX PAIRS" in ns, or nothing.
c2c_pairs() {
  python3 - "$1" "$2" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
cols = [int(c) for c in rows[0][1:]]
m = {int(r[0]): dict(zip(cols, map(float, r[1:]))) for r in rows[1:]}
cpus = sorted(set(int(c) for c in sys.argv[2].split(",")))
v = [m[a][b] for i, a in enumerate(cpus) for b in cpus[i + 1:] if a in m and b in m[a]]
if v:
    print("%.1f %.1f %.1f %d" % (min(v), statistics.median(v), max(v), len(v)))
PY
}
