#!/usr/bin/env bash
# EAL start-up errors reach people as sentences: lcore options after `--` are
# refused as they are in dpdk.args (exit 2, before DPDK starts), and a second
# engine on a file prefix in use names the process that holds it (exit 1).
. "$(dirname "$0")/lib.sh"

cat >"$T/c.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
workers: { w: { core: auto } }
apps:
  src: { type: source, worker: w }
  snk: { type: sink, worker: w }
links:
  - src.output -> snk.input
YAML

# Every spelling of an lcore option after --.
for args in "-l 0-1" "-l0-1" "-c 3" "-c3" "--lcores 0@0" "--lcores=0@0,1@1" \
            "--main-lcore 5" "--main-lcore=5" "--lc=0" "--main=5"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$T/log" run "$T/c.yaml" --duration 0.1 -- $args
  first=${args%% *}
  expect_in "$T/log" "sluice: run: EAL arguments after --: '$first' is not allowed: Sluice assigns lcores from the workers section"
  grep -q "EAL: " "$T/log" && fail "'$args' reached the EAL"
done
ok "lcore options after -- refused with exit 2 before the EAL starts"

# The same options in dpdk.args: the same sentence, with FILE:LINE:COL.
for arg in -l --lcores=0@0 --lc=0 --main-lcore=5 --mai=5; do
  sed "s/--no-pci,/--no-pci, \"$arg\",/" "$T/c.yaml" >"$T/l.yaml"
  for cmd in check run; do
    expect_exit 2 "$T/log" $cmd "$T/l.yaml"
    expect_in "$T/log" "dpdk.args: '$arg' is not allowed: Sluice assigns lcores from the workers section"
  done
done
# Options that are not lcore options still pass.
expect_exit 0 "$T/log" run "$T/c.yaml" --duration 0.1 --quiet -- --log-level lib.eal:warning
ok "other EAL options after -- pass"

# A second engine on the same file prefix.  The first runs until
# its 'running' line is seen (an event), the second is started then.
"$SLUICE" run "$T/c.yaml" >"$T/first.log" 2>&1 &
first=$!
wait_event "the first engine to run" "$first" "$T/first.log" \
  log_lines "$T/first.log" "^sluice: running"
expect_exit 1 "$T/log" run "$T/c.yaml" --duration 0.1
interrupt "$first" "$T/first.log"; rc=$?
[[ $rc -eq 0 ]] || { cat "$T/first.log" >&2; fail "the first engine exited $rc"; }
expect_in "$T/log" "sluice: error: cannot initialise DPDK: its file prefix is in use by process $first (runtime directory "
expect_in "$T/log" "/$PREFIX); stop that process or give this run another --file-prefix (in dpdk.args or after --)"
grep -q "Success" "$T/log" && { cat "$T/log" >&2; fail "the message still says 'Success'"; }
ok "a second engine on file prefix $PREFIX names process $first"
