#!/usr/bin/env bash
# A worker that blocks while online holds epoch reclamation up, and the
# engine names it: worker 'a' reads a pcap from a FIFO whose writer sends the
# file header and then nothing, so its first breath blocks in the read;
# worker 'b' meanwhile ends flows (every packet a new flow in a small table)
# and cannot free them.  The engine must warn, naming 'a'; the flowcache runs
# out of ids instead of freeing early; once the writer closes the FIFO, 'a'
# breathes again and everything is freed and every mbuf comes back.
. "$(dirname "$0")/lib.sh"

mkfifo "$T/fifo"
python3 - "$T/fifo" "$T/release" <<'PY' &
import os, struct, sys, time
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.flush()
    deadline = time.time() + 30
    while not os.path.exists(sys.argv[2]) and time.time() < deadline:
        time.sleep(0.05)
PY
writer=$!
cat >"$T/l.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  io:  { type: port, worker: a, device: "net_pcap0,rx_pcap=$T/fifo" }
  s0:  { type: sink, worker: a }
  src: { type: source, worker: b, dist: unique, rate: 200000 }
  fc:  { type: flowcache, worker: b, entries: 1024 }
  s1:  { type: sink, worker: b }
links:
  - io.output -> s0.input
  - src.output -> fc.input
  - fc.output -> s1.input
YAML
(sleep 1.5; touch "$T/release") &
expect_exit 0 "$T/log" run "$T/l.yaml" --duration 3
wait "$writer"
pool_back "$T/log"
grep -qE "^sluice: warning: worker 'a' has held up epoch reclamation for [0-9.]+ ms" "$T/log" ||
  { cat "$T/log"; fail "no warning naming worker 'a'"; }
ms=$(grep -E "^sluice: warning: worker 'a' has held up" "$T/log" |
     sed -E 's/.* for ([0-9.]+) ms.*/\1/' | sort -g | tail -1)
python3 -c "import sys; sys.exit(0 if float('$ms') >= 500 else 1)" ||
  fail "the longest stall named is $ms ms; worker 'a' was blocked for about 1.5 s"
fc=$(grep "^flowcache 'fc':" "$T/log")
num() { echo "$fc" | grep -oE "[ ,]$1 [0-9]+" | grep -oE '[0-9]+$'; }
(( $(num no_id) > 0 )) || fail "the stall did not exhaust the ids: $fc"
[[ $(num inserted) == "$(num freed)" ]] || fail "inserted $(num inserted) != freed $(num freed)"
ok "worker 'a' named after ${ms} ms without a quiescent state; flows waited for it, none freed early, all freed after"
