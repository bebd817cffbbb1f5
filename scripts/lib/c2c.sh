# Sourced by the bench scripts: the one-way core-to-core latency of the two
# CPUs a run uses, printed beside its results (the vCPUs may land on near or
# far physical cores, and every result is read against that).
#   c2c_line SLUICE A B WHEN DIR
#     measures CPUs A and B with `SLUICE topology --measure` (matrix and log
#     under DIR, named after WHEN) and prints
#       c2c of cpus A and B WHEN the runs: N ns (near|far)
#     Prints nothing when A and B are one CPU.  Returns 1, with C2C_WHY set,
#     when the measurement fails.
C2C_WHY=""
c2c_line() {
  local sluice=$1 a=$2 b=$3 when=$4 dir=$5
  local f="$dir/c2c-$when.csv"
  [[ $a != "$b" ]] || return 0
  if ! taskset -c "$a,$b" "$sluice" topology --measure --samples 3 --round-trips 10000 \
       --save "$f" >"$dir/c2c-$when.log" 2>&1; then
    C2C_WHY="'sluice topology --measure' failed (see $dir/c2c-$when.log)"
    return 1
  fi
  python3 - "$f" "$a" "$b" "$when" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
cols = [int(c) for c in rows[0][1:]]
m = {int(r[0]): dict(zip(cols, map(float, r[1:]))) for r in rows[1:]}
a, b = int(sys.argv[2]), int(sys.argv[3])
v = m.get(a, {}).get(b) or m.get(b, {}).get(a)
if v:
    print("c2c of cpus %d and %d %s the runs: %.1f ns (%s)" % (a, b, sys.argv[4], v, "near" if v < 100 else "far"))
PY
}
