#!/usr/bin/env bash
# Sluice's pool as a DPDK plugin (pool/meson.build: librte_mempool_sluice.so;
# docs/pool.md): DPDK's own programs load it with -d and pick it with
# --mbuf-pool-ops-name sluice, and the creator passes no options, so every
# EAL lcore gets a worker freelist of its own.
#
#   1. dpdk-test's mbuf_autotest on two lcores (its reference-count test
#      frees mbufs on the other lcore): every pktmbuf pool it makes is on the
#      sluice ops (without the plugin those pools cannot be made, and the
#      test fails), and it passes.
#   2. dpdk-testpmd io-forwarding net_null on the plugin: it says it chose the
#      sluice ops, forwards, and no receive found the pool empty.
#   3. The EAL refuses the plugin in a world-writable directory (any on its
#      path), as docs/pool.md says.
# serial: DPDK's own programs (dpdk-test, dpdk-testpmd) on hugepages; runs alone
. "$(dirname "$0")/lib.sh"

BUILD=${SLUICE_BUILD:-$(dirname "$SLUICE")}
PLUGIN=$BUILD/pool/librte_mempool_sluice.so
[[ -f $PLUGIN ]] || fail "no plugin at $PLUGIN (pool/meson.build builds it)"
DPDK_TEST=$(command -v dpdk-test || true)
TESTPMD=$(command -v dpdk-testpmd || true)
[[ -n $DPDK_TEST && -n $TESTPMD ]] || skip "dpdk-test or dpdk-testpmd not found (Debian: apt-get install dpdk)"
# A sanitizer build's plugin needs its runtime loaded first, which DPDK's
# own (uninstrumented) programs do not do.
if [[ $(ldd "$PLUGIN" 2>/dev/null) =~ lib(asan|tsan|ubsan) ]]; then
  skip "the plugin of a sanitizer build cannot be loaded into DPDK's uninstrumented programs"
fi
[[ $(nproc) -ge 2 ]] || echo "note: one CPU: the two lcores share it"

# The EAL loads a plugin only if no directory on its path is world-writable
# (so not from a build under /tmp): where the build's path has one, the test
# copies the plugin to a directory of its own under /run (root) or $HOME.
path_safe() {
  local d
  d=$(cd "$(dirname "$1")" && pwd -P) || return 1
  while :; do
    (( 8#$(stat -c %a "$d") & 2 )) && return 1
    [[ $d == / ]] && return 0
    d=$(dirname "$d")
  done
}
SAFE=""
trap 'rm -rf "$T" ${SAFE:+"$SAFE"} /var/run/dpdk/${PREFIX}*' EXIT
for base in /run "${HOME:-/nonexistent}"; do
  [[ -d $base && -w $base ]] || continue
  SAFE=$(mktemp -d "$base/sluice-plugin.XXXXXX") || continue
  chmod 0755 "$SAFE"
  path_safe "$SAFE/x" && break
  rm -rf "$SAFE"; SAFE=""
done
if ! path_safe "$PLUGIN"; then
  [[ -n $SAFE ]] || skip "the plugin's path has a world-writable directory and no safe directory could be made under /run or \$HOME"
  cp "$PLUGIN" "$SAFE/"
  PLUGIN=$SAFE/librte_mempool_sluice.so
  echo "note: the build's path has a world-writable directory; the plugin is loaded from $SAFE"
fi
EAL=(--no-huge -m 512 --no-pci -l 0-1 --log-level lib.eal:warning)

# ---- 1: mbuf_autotest
echo mbuf_autotest | timeout 300 "$DPDK_TEST" "${EAL[@]}" --file-prefix "${PREFIX}a" \
  -d "$PLUGIN" --mbuf-pool-ops-name sluice >"$T/autotest.log" 2>&1
grep -q '^Test OK' "$T/autotest.log" || { tail -40 "$T/autotest.log" >&2; fail "mbuf_autotest on the sluice ops did not pass"; }
# The same without the plugin cannot make its pools: the ops are the plugin's.
echo mbuf_autotest | timeout 300 "$DPDK_TEST" "${EAL[@]}" --file-prefix "${PREFIX}b" \
  --mbuf-pool-ops-name sluice >"$T/noplugin.log" 2>&1
grep -q '^Test OK' "$T/noplugin.log" && fail "mbuf_autotest passed without the plugin: the sluice ops were not what it used"
ok "dpdk-test mbuf_autotest passes on the sluice ops (and fails without the plugin)"

# ---- 2: testpmd io forwarding on the plugin, driven command by command
mkfifo "$T/cmd"
"$TESTPMD" "${EAL[@]}" --file-prefix "${PREFIX}p" -d "$PLUGIN" --mbuf-pool-ops-name sluice \
  --vdev net_null0 --vdev net_null1 -- -i --forward-mode=io --total-num-mbufs=8192 \
  <"$T/cmd" >"$T/testpmd.log" 2>&1 &
pid=$!
exec 3>"$T/cmd"
trap 'exec 3>&-; kill -KILL $pid 2>/dev/null; rm -rf "$T" ${SAFE:+"$SAFE"} /var/run/dpdk/${PREFIX}*' EXIT
wait_event "testpmd's prompt" "$pid" "$T/testpmd.log" grep -q 'testpmd>' "$T/testpmd.log"
echo start >&3
forwarded() { echo "show port stats 0" >&3; log_lines "$T/testpmd.log" 'RX-packets: [1-9][0-9]{5,}'; }
WAIT_EVENT_POLL=0.5 wait_event "testpmd to forward 100000 packets" "$pid" "$T/testpmd.log" forwarded
echo stop >&3
echo quit >&3
exec 3>&-
wait "$pid" || { cat "$T/testpmd.log" >&2; fail "testpmd on the plugin exited $?"; }
expect_in "$T/testpmd.log" "preferred mempool ops selected: sluice"
grep -E 'RX-nombuf: +[1-9]' "$T/testpmd.log" && fail "testpmd found the pool empty"
ok "dpdk-testpmd io-forwards net_null on the sluice ops, no receive without a buffer"

# ---- 3: a world-writable directory is refused by the EAL
[[ -n $SAFE ]] || skip "no directory of a safe path to make a world-writable one in"
mkdir "$SAFE/open"
chmod 0777 "$SAFE/open"
cp "$PLUGIN" "$SAFE/open/"
echo quit | timeout 120 "$DPDK_TEST" "${EAL[@]}" --file-prefix "${PREFIX}w" \
  -d "$SAFE/open/librte_mempool_sluice.so" >"$T/open.log" 2>&1 && fail "the EAL loaded a plugin from a world-writable directory"
expect_in "$T/open.log" "directory path $SAFE/open is world-writable and insecure"
ok "the EAL refuses the plugin in a world-writable directory"
