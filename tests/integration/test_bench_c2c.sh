#!/usr/bin/env bash
# scripts/lib/c2c.sh, the c2c line every bench script prints beside its
# results: the one-pair and many-pair lines and the near/far regime from a
# matrix (a stand-in for `sluice topology --measure --save` writes it), the
# notes when the measurement fails or the matrix lacks the pair, nothing for
# a single CPU, and one real measurement of CPUs 0 and 1 where both exist.
# serial: a benchmark, its threads pinned to CPUs and spinning; beside other
# tests it measures their contention and takes ten times as long
. "$(dirname "$0")/lib.sh"
. "$SRC/scripts/lib/c2c.sh"

# fake_sluice MATRIX: a `sluice` that saves MATRIX where --save says.
fake_sluice() {
  cat >"$T/fake" <<SH
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = --save ] && { printf '%s\n' "$1" >"\$2"; exit 0; }; shift; done
exit 1
SH
  chmod +x "$T/fake"
}

# One pair, far; the order of the CPUs given does not matter.
fake_sluice $'cpu,0,1\n0,0.0,234.2\n1,234.2,0.0'
c2c_measure bench-x "$T/fake" 1,0 before "$T" >"$T/out" 2>"$T/err"; out=$(cat "$T/out")
[[ $out == "c2c of cpus 1 and 0 before the runs: 234.2 ns (far)" ]] || fail "one pair: '$out'"
[[ $C2C_MED == 234.2 ]] || fail "one pair: C2C_MED '$C2C_MED'"
[[ ! -s $T/err ]] || { cat "$T/err"; fail "one pair: a note on stderr"; }
[[ -f $T/c2c-before.csv ]] || fail "the matrix is not kept as DIR/c2c-WHEN.csv"
ok "one pair: the line, the regime (far) and C2C_MED"

# Three CPUs, three pairs, median near.
fake_sluice $'cpu,0,1,2\n0,0,48.0,215.0\n1,48.0,0,50.0\n2,215.0,50.0,0'
c2c_measure bench-x "$T/fake" 0,1,2 after "$T" >"$T/out" 2>"$T/err"
[[ $(cat "$T/out") == "c2c of the 3 pairs of cpus 0,1,2 after the runs: median 50.0 ns (near), min 48.0, max 215.0" ]] ||
  { cat "$T/out"; fail "three pairs: wrong line"; }
[[ $C2C_MED == 50.0 ]] || fail "three pairs: C2C_MED '$C2C_MED'"
ok "three pairs: median, min, max and the regime (near)"

# The measurement fails: a note on stderr naming the log, no line, no median.
printf '#!/bin/sh\necho "sluice: error: cannot pin" >&2\nexit 1\n' >"$T/fake"
c2c_measure bench-x "$T/fake" 0,1 before "$T" >"$T/out" 2>"$T/err" || fail "a failed measurement stops the caller"
out=$(cat "$T/out")
[[ -z $out && -z $C2C_MED ]] || fail "a failed measurement printed '$out' / C2C_MED '$C2C_MED'"
expect_in "$T/err" "bench-x: note: 'sluice topology --measure' on cpus 0,1 failed (see $T/c2c-before.log)"
expect_in "$T/c2c-before.log" "sluice: error: cannot pin"
ok "a failed measurement: a note naming its log, the caller goes on"

# A matrix without the pair asked for.
fake_sluice $'cpu,0,1\n0,0.0,60.0\n1,60.0,0.0'
c2c_measure bench-x "$T/fake" 0,5 before "$T" >"$T/out" 2>"$T/err"; out=$(cat "$T/out")
[[ -z $out && -z $C2C_MED ]] || fail "a missing pair printed '$out' / C2C_MED '$C2C_MED'"
expect_in "$T/err" "bench-x: note: the matrix $T/c2c-before.csv has no pair of cpus 0,5"
ok "a matrix without the pair: a note, no line"

# One CPU (twice): nothing measured, nothing printed.
rm -f "$T"/c2c-*
c2c_measure bench-x "$T/fake" 1,1 before "$T" >"$T/out" 2>&1; out=$(cat "$T/out")
[[ -z $out && -z $C2C_MED ]] || fail "one CPU printed '$out'"
compgen -G "$T/c2c-*" >/dev/null && fail "one CPU: a measurement was run"
ok "one CPU: nothing measured or printed"

# The real thing, where CPUs 0 and 1 may both be used.
if taskset -c 0,1 true 2>/dev/null && [[ $(taskset -c 0,1 nproc) -ge 2 ]]; then
  c2c_measure bench-x "$SLUICE" 0,1 before "$T" >"$T/out" 2>"$T/err"; out=$(cat "$T/out")
  [[ $out =~ ^"c2c of cpus 0 and 1 before the runs: "([0-9]+\.[0-9]+)" ns ("(near|far)")"$ ]] ||
    { cat "$T/err"; fail "a real measurement: '$out'"; }
  v=${BASH_REMATCH[1]} r=${BASH_REMATCH[2]}
  [[ $C2C_MED == "$v" ]] || fail "a real measurement: C2C_MED '$C2C_MED', line $v"
  awk -v v="$v" -v r="$r" 'BEGIN { exit !(v > 0 && r == (v < 100 ? "near" : "far")) }' ||
    fail "a real measurement: $v ns called $r"
  ok "a real measurement of cpus 0 and 1: $v ns ($r)"
else
  ok "a real measurement: skipped, CPUs 0 and 1 are not both usable here"
fi
