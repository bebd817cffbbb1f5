#!/usr/bin/env bash
# The unit tests' runner (tests/check.h, sl_test_main): one line per case,
# only the cases named on the command line, --list, and a usage error for an
# unknown name.  Checked on test_histogram and test_worker (which has a
# set-up and a tear-down: DPDK's EAL and a pool).
source "$(dirname "$0")/lib.sh"
BUILD=${SLUICE_BUILD:-$SRC/build}
H=$BUILD/tests/test_histogram
W=$BUILD/tests/test_worker
[[ -x $H && -x $W ]] || fail "no unit test programs in $BUILD/tests"

# The cases, as the source's table names them.
sed -n 's/^\tSL_CASE(\(.*\)),$/\1/p' "$SRC/tests/unit/test_histogram.c" >"$T/want"
n=$(wc -l <"$T/want")
[[ $n -ge 5 ]] || fail "found only $n SL_CASE lines in test_histogram.c"
"$H" --list >"$T/list" || fail "--list exited $?"
cmp -s "$T/list" "$T/want" ||
  { diff "$T/want" "$T/list"; fail "--list did not name the table's $n cases in order"; }
ok "--list names the $n cases"

"$H" >"$T/all" || { cat "$T/all"; fail "test_histogram failed"; }
[[ $(grep -c '^ok test_' "$T/all") -eq $n ]] || { cat "$T/all"; fail "not one line per case"; }
expect_in "$T/all" "ok: "
ok "every case runs, one line each"

"$H" test_tsc_check test_seq >"$T/two" || { cat "$T/two"; fail "two named cases failed"; }
[[ $(grep '^ok test_' "$T/two" | cut -d' ' -f2 | tr '\n' ' ') == "test_tsc_check test_seq " ]] ||
  { cat "$T/two"; fail "not the two cases named, in the order given"; }
ok "named cases run alone, in the order given"

"$H" test_seq nosuch >"$T/bad" 2>&1; rc=$?
[[ $rc -eq 2 ]] || { cat "$T/bad"; fail "an unknown case exited $rc, expected 2"; }
expect_in "$T/bad" "test_histogram: no case 'nosuch' (--list names them)"
grep -q '^ok test_seq' "$T/bad" && fail "a case ran despite the unknown name"
ok "an unknown case is a usage error and runs nothing"

"$W" test_pkts_free >"$T/w" 2>&1 || { cat "$T/w"; fail "test_worker test_pkts_free failed"; }
expect_in "$T/w" "ok test_pkts_free ("
[[ $(grep -c '^ok test_' "$T/w") -eq 1 ]] || { cat "$T/w"; fail "more than the case named ran"; }
ok "a case with a set-up and tear-down runs alone"
