#!/usr/bin/env bash
# `sluice plan` at scale: 256 auto workers (32 chains of 8) on a synthetic
# machine of 1024 PUs (2 NUMA nodes, 32 L3 domains of 16 two-thread cores).
# The plan keeps the placement rules: every worker on a core of its own, the
# control thread on a CPU no worker uses, every chain inside one L3 domain,
# no warning.  A plan this size takes well under a second; the generous
# timeout only turns a regression into a failure instead of a hang.
. "$(dirname "$0")/lib.sh"

{
  echo "workers:"
  for ((i = 0; i < 256; i++)); do echo "  w$i: auto"; done
  echo "apps:"
  for ((i = 0; i < 256; i++)); do
    case $((i % 8)) in 0) t=source ;; 7) t=sink ;; *) t=l2fwd ;; esac
    echo "  a$i: { type: $t, worker: w$i }"
  done
  echo "links:"
  for ((i = 0; i < 255; i++)); do
    (( i % 8 != 7 )) && echo "  - a$i.output -> a$((i + 1)).input"
  done
} >"$T/scale.yaml"

HWLOC_SYNTHETIC="pack:2 numa:1 l3:16 core:16 pu:2" \
  timeout 120 "$SLUICE" plan "$T/scale.yaml" >"$T/plan.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] || { tail -20 "$T/plan.log" >&2; fail "sluice plan exited $rc (124: over 120 s)"; }
expect_in "$T/plan.log" "machine: synthetic: pack:2 numa:1 l3:16 core:16 pu:2"

# Worker rows: name cpu core l3 numa apps.
awk '$1 ~ /^w[0-9]+$/ {print $2, $3, $4}' "$T/plan.log" >"$T/rows"
[[ $(wc -l <"$T/rows") -eq 256 ]] || fail "$(wc -l <"$T/rows") worker rows, expected 256"
[[ -z $(cut -d' ' -f1 "$T/rows" | sort | uniq -d) ]] || fail "workers share a CPU"
[[ -z $(cut -d' ' -f2 "$T/rows" | sort | uniq -d) ]] || fail "workers share a core"
ok "256 workers on 256 distinct cores"

main=$(awk '$1 == "(control)" {print $2}' "$T/plan.log")
[[ -n "$main" ]] || fail "no control thread row"
cut -d' ' -f1 "$T/rows" | grep -qx "$main" && fail "a worker shares the control thread's cpu $main"
ok "control thread alone on cpu $main"

# Each chain of 8 in one L3 domain: all 224 links same-l3.
same=$(grep -cE '^  a[0-9]+\.output -> a[0-9]+\.input +same-l3$' "$T/plan.log")
[[ $same -eq 224 ]] || fail "$same of 224 links inside one L3 domain"
for ((c = 0; c < 32; c++)); do
  n=$(awk -v lo=$((c * 8)) '$1 ~ /^w[0-9]+$/ { w = substr($1, 2) + 0;
        if (w >= lo && w < lo + 8) print $4 }' "$T/plan.log" | sort -u | wc -l)
  [[ $n -eq 1 ]] || fail "chain $c spans $n L3 domains"
done
ok "every chain of 8 inside one L3 domain"
grep -q '^warning:' "$T/plan.log" && { grep '^warning:' "$T/plan.log" | head -3 >&2; fail "warnings"; }
ok "no warning"
