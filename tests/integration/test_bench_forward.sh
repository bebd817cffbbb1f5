#!/usr/bin/env bash
# scripts/bench-forward: bad options are refused with a message and exit
# status 2, before anything is built or run.  (The benchmark itself is run
# by hand or by scripts/bench-peers; nothing here asserts a rate.)
. "$(dirname "$0")/lib.sh"
B="$SRC/scripts/bench-forward"

expect_usage "bench-forward: unknown argument '--bogus'" --bogus
expect_usage "bench-forward: --runs must be a positive integer" --runs 0
expect_usage "bench-forward: --duration needs a value" --duration
expect_usage "bench-forward: --size must be 60..2048" --size 59
expect_usage "bench-forward: --direction must be bi or uni" --direction both
expect_usage "bench-forward: --pool-ops must be sluice or dpdk" --pool-ops stack
expect_usage "bench-forward: --accounting must be on or off" --accounting maybe
expect_usage "bench-forward: --memory must be 4k or huge" --memory 1g
expect_usage "bench-forward: --worker-core must be a CPU number" --worker-core x
ok "bad options refused with exit status 2"

"$B" --help >"$T/help" 2>&1 || fail "bench-forward --help exited $?"
expect_in "$T/help" "--memory M"
ok "--help lists --memory"
