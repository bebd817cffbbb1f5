#!/usr/bin/env bash
# Failures to create the mbuf pool and an interlink reach people as the
# engine's sentence followed by the pool's or the interlink's own, which names
# it (exit 1): a pool larger than DPDK's memory (of either ops), a link ring
# larger than it.
. "$(dirname "$0")/lib.sh"

config() {   # config FILE MEGABYTES MBUFS LINK [OPS]
  cat >"$1" <<YAML
dpdk: { args: [--no-huge, -m, "$2", --no-pci, --file-prefix, $PREFIX, --log-level, "lib.eal:warning"] }
pool: { mbufs: $3, ops: ${5:-sluice} }
workers: { a: auto, b: auto }
apps:
  src: { type: source, worker: a, count: 10 }
  snk: { type: sink, worker: b }
links:
  - $4
YAML
}

# 1000000 mbufs of 2 kB do not fit in 256 MB.
config "$T/pool.yaml" 256 1000000 "src.output -> snk.input"
expect_exit 1 "$T/log" run "$T/pool.yaml" --duration 0.1
expect_in "$T/log" "sluice: error: pool: cannot create 1000000 mbufs of 2048 bytes (chunk 512): pool 'sluice_mbufs': cannot populate 1000000 mbufs of "
expect_in "$T/log" ": Cannot allocate memory (raise dpdk.args -m?)"
ok "a pool too large for DPDK's memory: the pool's sentence, exit 1"

# The same with DPDK's pool ops (placed by sl_mempool_pktmbuf_create).
config "$T/dpool.yaml" 256 1000000 "src.output -> snk.input" dpdk
expect_exit 1 "$T/log" run "$T/dpool.yaml" --duration 0.1
expect_in "$T/log" "sluice: error: pool: cannot create 1000000 mbufs of 2048 bytes: Cannot allocate memory (raise dpdk.args -m?)"
ok "a pool of DPDK's ops too large for DPDK's memory: the pool's sentence, exit 1"

# A ring of 2^24 slots (128 MB) does not fit in 64 MB.
config "$T/link.yaml" 64 4096 '{ link: "src.output -> snk.input", size: 16777216 }'
expect_exit 1 "$T/log" run "$T/link.yaml" --duration 0.1
expect_in "$T/log" "sluice: error: link 'src.output -> snk.input': cannot create its interlink: interlink 'sluice_l0': cannot reserve memzone 'sl_il_sluice_l0' of "
expect_in "$T/log" ": Cannot allocate memory"
ok "an interlink too large for DPDK's memory: the interlink's sentence, exit 1"
