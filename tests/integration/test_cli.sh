#!/usr/bin/env bash
# Every error a user can reach through the sluice command line: the message
# (one line naming the object, FILE:LINE:COL for configuration errors) and the
# exit status (2 usage/configuration, 1 runtime).  On a configuration error
# nothing starts: neither DPDK nor the workers.  Also: `check` accepts every
# shipped example, `apps` and `version` work.
#
# Unlike most tests this one does not stop at the first failure: it reports
# every case that fails, then exits 1.
. "$(dirname "$0")/lib.sh"

errors=0
bad() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }

# show: print the current case's output, indented.
show() {
  echo "  --- stdout of '$CUR':" >&2; sed 's/^/  | /' "$T/$CUR.out" | head -n 40 >&2
  echo "  --- stderr of '$CUR':" >&2; sed 's/^/  | /' "$T/$CUR.err" | head -n 40 >&2
}

# try NAME WANT ARGS...: run sluice (at most $LIMIT seconds, under the command
# in the array WRAP if any) with stdout and stderr kept apart in $T/NAME.out
# and $T/NAME.err; report a wrong status.
LIMIT=60
WRAP=()
try() {
  CUR=$1
  local want=$2; shift 2
  timeout "$LIMIT" "${WRAP[@]}" "$SLUICE" "$@" >"$T/$CUR.out" 2>"$T/$CUR.err"
  local rc=$?
  if [[ $rc -ne $want ]]; then
    bad "$CUR: 'sluice $*' exited $rc, expected $want"
    show
    return 1
  fi
  return 0
}

# has out|err TEXT / hasnt out|err TEXT / empty out|err: about the current case.
has() { grep -qF -- "$2" "$T/$CUR.$1" || { bad "$CUR: expected '$2' on std$1"; show; }; }
hasnt() { ! grep -qF -- "$2" "$T/$CUR.$1" || { bad "$CUR: did not expect '$2' on std$1"; show; }; }
empty() { [[ ! -s "$T/$CUR.$1" ]] || { bad "$CUR: expected nothing on std$1"; show; }; }

# no_crash: the current case's output shows no crash (the status is checked by try).
no_crash() {
  if cat "$T/$CUR.out" "$T/$CUR.err" |
     grep -qiE 'segmentation fault|core dumped|aborted|panic|backtrace|caught signal'; then
    bad "$CUR: the output shows a crash"
    show
  fi
}

# usage_error NAME TEXT ARGS...: exit 2, TEXT on stderr, nothing on stdout.
usage_error() {
  local name=$1 text=$2; shift 2
  try "$name" 2 "$@" || return
  has err "$text"
  empty out
}

# cfg NAME: write stdin to $T/NAME.yaml.
cfg() { cat >"$T/$1.yaml"; }

# config_error NAME TEXT [MORE...]: `check` and `run` of $T/NAME.yaml both
# exit 2 with "sluice: TEXT" on stderr (and each MORE text too); check prints
# nothing on stdout; neither DPDK nor the workers start.
config_error() {
  local name=$1 text=$2 more
  shift 2
  if try "$name.check" 2 check "$T/$name.yaml"; then
    has err "sluice: $text"
    for more in "$@"; do has err "$more"; done
    empty out
    hasnt err "EAL:"
  fi
  if try "$name.run" 2 run "$T/$name.yaml" --duration 1; then
    has err "sluice: $text"
    for more in "$@"; do has err "$more"; done
    hasnt out "sluice: running"
    hasnt err "EAL:"
  fi
}

# runtime_error NAME TEXT [ARGS...]: `run $T/NAME.yaml` exits 1 with TEXT on
# stderr, without a crash and without starting the workers.
runtime_error() {
  local name=$1 text=$2; shift 2
  try "$name" 1 run "$T/$name.yaml" --duration 1 "$@" || return
  has err "$text"
  hasnt out "sluice: running"
  no_crash
}

# A valid two-app pipeline, for the options.
cfg good <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  s: { type: source, count: 100 }
  k: { type: sink }
links: [s.output -> k.input]
YAML

# ------------------------------------------------------------ command line
try noargs 2 && { has err "usage: sluice COMMAND"; empty out; }
usage_error unknown-cmd "sluice: unknown command 'rnu' (did you mean 'run'?)" rnu
usage_error unknown-cmd2 "sluice: unknown command 'chekc' (did you mean 'check'?)" chekc
usage_error unknown-cmd3 "usage: sluice COMMAND" frobnicate
usage_error run-noconfig "sluice: run: missing CONFIG" run
usage_error run-option "sluice: run: unknown option '--bogus'" run "$T/good.yaml" --bogus
usage_error run-extra "sluice: run: one CONFIG only ('$T/good.yaml' and 'extra')" run "$T/good.yaml" extra
usage_error run-duration "sluice: run: --duration needs a number of seconds, got 'abc'" \
  run "$T/good.yaml" --duration abc
usage_error run-duration-neg "sluice: run: --duration needs a number of seconds, got '-1'" \
  run "$T/good.yaml" --duration -1
usage_error run-duration-unit "sluice: run: --duration needs a number of seconds, got '2x'" \
  run "$T/good.yaml" --duration 2x
LIMIT=10 usage_error run-duration-nan "sluice: run: --duration needs a number of seconds, got 'nan'" \
  run "$T/good.yaml" --duration nan
usage_error run-duration-novalue "sluice: run: --duration needs a value" run "$T/good.yaml" --duration
usage_error run-stats "sluice: run: --stats needs a number of seconds, got 'often'" \
  run "$T/good.yaml" --stats often
usage_error check-noconfig "sluice: check: missing CONFIG" check
usage_error check-two "sluice: check: one CONFIG only" check "$T/good.yaml" "$T/good.yaml"
has err "usage: sluice check CONFIG"
usage_error apps-option "sluice: apps: unknown option '--bogus'" apps --bogus
usage_error apps-nosuch "sluice: apps: unknown app type 'nosuch'" apps nosuch
usage_error apps-typo "sluice: apps: unknown app type 'splt' (did you mean 'split'?)" apps splt
usage_error missing-file "sluice: $T/nosuch.yaml: cannot read: No such file or directory" \
  check "$T/nosuch.yaml"
usage_error missing-file-run "sluice: $T/nosuch.yaml: cannot read: No such file or directory" \
  run "$T/nosuch.yaml"
mkdir "$T/adir"
usage_error dir-config "sluice: $T/adir: cannot read: Is a directory" check "$T/adir"
usage_error dir-config-run "sluice: $T/adir: cannot read: Is a directory" run "$T/adir"

# ------------------------------------------------------------ configuration
cfg syntax <<'YAML'
apps:
  s: { type: source }
  k: type: sink
YAML
config_error syntax "$T/syntax.yaml:3:10: YAML syntax error: mapping values are not allowed in this context"

: >"$T/emptyfile.yaml"
config_error emptyfile "$T/emptyfile.yaml:1:1: empty configuration"

cfg toplevel <<'YAML'
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
statistics: { every: 1 }
YAML
config_error toplevel "$T/toplevel.yaml:5:1: unknown top-level key 'statistics' (known: dpdk, pool, engine, workers, apps, links, topology)"

cfg toplevel-typo <<'YAML'
apps:
  s: { type: source }
  k: { type: sink }
link: [s.output -> k.input]
YAML
config_error toplevel-typo "$T/toplevel-typo.yaml:4:1: unknown top-level key 'link' (did you mean 'links'?)"

cfg apptype <<'YAML'
apps:
  s: { type: sorce }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error apptype "$T/apptype.yaml:2:14: app 's': unknown type 'sorce' (did you mean 'source'?)"

cfg apptype2 <<'YAML'
apps:
  s: { type: source }
  k: { type: sinc }
links: [s.output -> k.input]
YAML
config_error apptype2 "$T/apptype2.yaml:3:14: app 'k': unknown type 'sinc' (did you mean 'sink'?)"

cfg param <<'YAML'
apps:
  s: { type: source }
  f: { type: l2fwd, mdoe: swap }
  k: { type: sink }
links: [s.output -> f.input, f.output -> k.input]
YAML
config_error param "$T/param.yaml:3:21: app 'f': unknown parameter 'mdoe' (did you mean 'mode'?)"

cfg range <<'YAML'
apps:
  s: { type: source, size: 10 }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error range "$T/range.yaml:2:28: app 's': parameter 'size' must be in 60..9000, got 10"

cfg notuint <<'YAML'
apps:
  s: { type: source, count: lots }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error notuint "$T/notuint.yaml:2:29: app 's': parameter 'count' must be an unsigned integer, got 'lots'"

cfg enum <<'YAML'
apps:
  s: { type: source }
  p: { type: split, mode: random }
  k: { type: sink }
links: [s.output -> p.input, p.output0 -> k.input]
YAML
config_error enum "$T/enum.yaml:3:27: app 'p': parameter 'mode' must be one of hash|round-robin, got 'random'"

cfg mac <<'YAML'
apps:
  s: { type: source }
  f: { type: l2fwd, mode: set, dst_mac: "02:00:00:00:00" }
  k: { type: sink }
links: [s.output -> f.input, f.output -> k.input]
YAML
config_error mac "$T/mac.yaml:3:41: app 'f': parameter 'dst_mac' must be a MAC address like 02:00:00:00:00:01, got '02:00:00:00:00'"

cfg required <<'YAML'
apps:
  p: { type: port }
YAML
config_error required "$T/required.yaml:2:3: app 'p': missing required parameter 'device'"

cfg dupapp <<'YAML'
apps:
  s: { type: source }
  s: { type: sink }
YAML
config_error dupapp "$T/dupapp.yaml:3:3: duplicate app 's' (first at line 2)"

cfg noapp <<'YAML'
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> sinc.input]
YAML
config_error noapp "$T/noapp.yaml:4:9: link 's.output -> sinc.input': no app named 'sinc'"

cfg noport <<'YAML'
apps:
  s: { type: source }
  k: { type: sink }
links: [s.outptu -> k.input]
YAML
config_error noport "$T/noport.yaml:4:9: link 's.outptu -> k.input': app 's' (type source) has no output port 'outptu' (did you mean 'output'?)"

cfg linksyntax <<'YAML'
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output => k.input]
YAML
config_error linksyntax "$T/linksyntax.yaml:4:9: link 's.output => k.input' must look like 'app.port -> app.port'"

cfg unconnected <<'YAML'
apps:
  s: { type: source }
  k: { type: sink }
YAML
config_error unconnected "$T/unconnected.yaml:2:3: app 's': output 'output' is not connected"

cfg gap <<'YAML'
apps:
  s: { type: source }
  p: { type: split }
  k0: { type: sink }
  k2: { type: sink }
links: [s.output -> p.input, p.output0 -> k0.input, p.output2 -> k2.input]
YAML
config_error gap "$T/gap.yaml:3:3: app 'p': output1 is not connected but output2 is; number ports from output0 without gaps"

cfg cycle <<'YAML'
apps:
  a: { type: l2fwd }
  b: { type: l2fwd }
links:
  - a.output -> b.input
  - b.output -> a.input
YAML
config_error cycle "$T/cycle.yaml:5:5: links form a cycle: a -> b -> a"

cfg twice <<'YAML'
apps:
  s: { type: source }
  k1: { type: sink }
  k2: { type: sink }
links:
  - s.output -> k1.input
  - s.output -> k2.input
YAML
config_error twice "$T/twice.yaml:7:5: link 's.output -> k2.input': port 's.output' is already connected (line 6)"

cfg twice-in <<'YAML'
apps:
  s1: { type: source }
  s2: { type: source }
  k: { type: sink }
links:
  - s1.output -> k.input
  - s2.output -> k.input
YAML
config_error twice-in "$T/twice-in.yaml:7:5: link 's2.output -> k.input': port 'k.input' is already connected (line 6)"

cfg nocore <<'YAML'
workers:
  w: { core: 4095 }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error nocore "$T/nocore.yaml:2:" "worker 'w': core" "4095"

cfg nocore2 <<'YAML'
workers:
  w: { core: 1000 }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error nocore2 "$T/nocore2.yaml:2:" "worker 'w': core 1000 "

# A CPU of this machine that the process may not run on: run sluice pinned to
# the first allowed CPU and ask for the second.
read -r cpu_a cpu_b < <(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(*c[:2])')
if [[ -n "${cpu_b:-}" ]] && command -v taskset >/dev/null; then
  cfg notmine <<YAML
workers:
  w: { core: $cpu_b }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
  WRAP=(taskset -c "$cpu_a")
  config_error notmine "$T/notmine.yaml:2:" "worker 'w': core $cpu_b is not available to this process"
  WRAP=()
else
  echo "note: one CPU or no taskset: the 'core not available' case is not run"
fi

cfg samecore <<'YAML'
workers: { a: 0, b: 0 }
apps:
  s: { type: source, worker: a }
  k: { type: sink, worker: b }
links: [s.output -> k.input]
YAML
config_error samecore "$T/samecore.yaml:1:21: worker 'b': core 0 is already used by worker 'a'"

cfg noworker <<'YAML'
workers: { gen: auto, fwd: auto }
apps:
  s: { type: source, worker: gen }
  k: { type: sink, worker: fdw }
links: [s.output -> k.input]
YAML
config_error noworker "$T/noworker.yaml:4:28: app 'k': no worker named 'fdw'"

cfg whichworker <<'YAML'
workers: { gen: auto, fwd: auto }
apps:
  s: { type: source }
  k: { type: sink, worker: fwd }
links: [s.output -> k.input]
YAML
config_error whichworker "$T/whichworker.yaml:3:3: app 's': no worker given and there are 2 workers (gen, fwd)"

cfg lcores <<YAML
dpdk: { args: [--no-huge, -l, "0-1"] }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error lcores "$T/lcores.yaml:1:27: dpdk.args: '-l' is not allowed: Sluice assigns lcores from the workers section"

cfg linksize <<'YAML'
engine: { link_size: 1000 }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error linksize "$T/linksize.yaml:1:22: engine.link_size must be a power of two, got 1000"

cfg epochring <<'YAML'
engine: { epoch_ring: 1000 }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error epochring "$T/epochring.yaml:1:23: engine.epoch_ring must be a power of two, got 1000"

cfg epochsmall <<'YAML'
engine: { epoch_ring: 32 }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error epochsmall "$T/epochsmall.yaml:1:23: engine.epoch_ring must be in 64..16777216, got 32"

cfg mbufs <<'YAML'
pool: { mbufs: 10 }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
config_error mbufs "$T/mbufs.yaml:1:16: pool.mbufs must be in 1023..16777215, got 10"

# ------------------------------------------------------------ runtime errors
cfg nodriver <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  x: { type: port, device: "net_nosuchdrv0" }
YAML
runtime_error nodriver "sluice: error: app 'x': cannot probe device 'net_nosuchdrv0'"

cfg nopcap <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  rx: { type: port, device: "net_pcap7,rx_pcap=$T/missing.pcap" }
  k:  { type: sink }
links: [rx.output -> k.input]
YAML
runtime_error nopcap "sluice: error: app 'rx': cannot probe device 'net_pcap7,rx_pcap=$T/missing.pcap'"

cfg devtwice <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  a: { type: port, device: "net_null0" }
  b: { type: port, device: "net_null0" }
YAML
config_error devtwice "$T/devtwice.yaml:4:3: app 'b': device 'net_null0' is already served by app 'a' (line 3); one port app serves a device: to spread it over several workers, run that app on a worker group ({ cores: [...] })"

cfg ealopt <<YAML
dpdk: { args: [--no-huge, -m, "256", --no-pci, --file-prefix, $PREFIX, --no-such-eal-opt] }
apps:
  s: { type: source }
  k: { type: sink }
links: [s.output -> k.input]
YAML
runtime_error ealopt "sluice: error: cannot initialise DPDK"

cp "$T/good.yaml" "$T/ealopt2.yaml"
runtime_error ealopt2 "sluice: error: cannot initialise DPDK" -- --no-such-eal-opt

# The valid pipeline itself runs (so that the cases above fail for their reason).
if try good 0 run "$T/good.yaml" --duration 0.5; then
  has out "sluice: running"
  has out "pool: 16383 of 16383 mbufs back in the pool"
fi

# ------------------------------------------------------------ check, apps, version
n_examples=0
for f in "$SRC"/docs/examples/*.yaml; do
  [[ -e $f ]] || continue
  n_examples=$((n_examples + 1))
  if try "example-$(basename "$f" .yaml)" 0 check "$f"; then
    has out "$f: ok:"
    empty err
  fi
done
[[ $n_examples -gt 0 ]] || bad "no docs/examples/*.yaml found under $SRC"

if try apps 0 apps; then
  for t in join l2fwd port sink source split tee; do
    grep -qE "^$t: " "$T/apps.out" || { bad "apps: type '$t' is not listed"; show; }
  done
  empty err
fi
if try apps-split 0 apps split; then
  has out "split: "
  has out "mode"
  has out "round-robin"
  hasnt out "l2fwd"
  hasnt out "takes bursts in hand"
fi
# The types that take a burst in hand (a link into them is direct).
for t in port router flowcache; do
  try "apps-$t" 0 apps "$t" && has out "; takes bursts in hand (a link into it from its worker is direct)"
done
if try apps-md 0 apps --markdown; then
  has out "# Apps"
  has out "## split"
fi
try version 0 version && { grep -qE '^sluice [0-9]+\.[0-9]+\.[0-9]+$' "$T/version.out" || { bad "version: unexpected output"; show; }; }
try help 0 help && { has out "usage: sluice COMMAND"; empty err; }
# `bench latency --help` prints its usage and stops with status 0 (before it
# looks at the machine); an unknown option is a usage error.
try bench_help 0 bench latency --help && { has out "usage: sluice bench latency"; empty err; }
try bench_h 0 bench latency -h && { has out "usage: sluice bench latency"; empty err; }
try bench_unknown 2 bench latency --bogus && {
  has err "sluice: bench latency: unknown option '--bogus'"; empty out; }

# ------------------------------------------------------------ the option parser
# Every command reads its options with one parser (engine/cli/opts.h): the
# same errors, naming the command and the option, then the command's usage.
usage_error opt-unknown "sluice: topology: unknown option '--mesure' (did you mean '--measure'?)" \
  topology --mesure && has err "usage: sluice topology [--measure"
usage_error opt-unknown-top "sluice: top: unknown option '--intervl' (did you mean '--interval'?)" \
  top --intervl 1 && has err "usage: sluice top [--prefix P]"
usage_error opt-novalue "sluice: topology: --samples needs a value" topology --measure --samples
usage_error opt-novalue-top "sluice: top: --interval needs a value" top --interval
usage_error opt-novalue-eq "sluice: stats: --prefix needs a value" stats --prefix=
usage_error opt-badnum "sluice: topology: --samples needs a positive count, got 'x'" \
  topology --measure --samples x
usage_error opt-badnum-run "sluice: run: --stop-timeout needs a number of seconds, got 'soon'" \
  run "$T/good.yaml" --stop-timeout soon
usage_error opt-badnum-eq "sluice: run: --duration needs a number of seconds, got 'abc'" \
  run "$T/good.yaml" --duration=abc
usage_error opt-range "sluice: topology: --round-trips needs a positive count, got '0'" \
  topology --measure --round-trips 0
usage_error opt-range-top "sluice: top: --interval needs seconds in 0.1..3600, got '5000'" \
  top --interval 5000
usage_error opt-range-bench "sluice: bench latency: --size needs a whole number in 60..9000, got '9001'" \
  bench latency --size=9001
usage_error opt-flag-value "sluice: apps: --markdown takes no value" apps --markdown=yes
usage_error opt-choice "sluice: top: --sort needs one of cycles, packets, drops, got 'size'" \
  top --sort=size
usage_error opt-extra "sluice: config: unexpected argument 'extra'" config extra
usage_error opt-extra-reload "sluice: reload: one CONFIG only ('a.yaml' and 'b.yaml')" \
  reload a.yaml b.yaml
# `sluice COMMAND --help` (or -h): the command's usage on stdout, status 0;
# `sluice --help` lists every command.
for c in run check plan apps config topology reload capture stats top exporter version; do
  if try "help-$c" 0 "$c" --help; then has out "usage: sluice $c"; empty err; fi
done
try help-h 0 check -h && { has out "usage: sluice check CONFIG"; empty err; }
# `sluice help COMMAND`: the same usage as `sluice COMMAND --help`.
try help-cmd 0 help reload && { has out "usage: sluice reload CONFIG"; empty err; }
try help-unknown 2 help relaod && { has err "sluice: help: unknown command 'relaod'"; empty out; }
try help-two 2 help run check && has err "sluice: help: one COMMAND only ('run' and 'check')"
if try help-all 0 --help; then
  for c in run check plan apps config topology reload capture stats top exporter bench version; do
    grep -qE "^  $c( |$)" "$T/help-all.out" || { bad "help: command '$c' is not listed"; show; }
  done
fi
try bench-beside 0 bench latency --help && has out "usage: sluice bench latency"

if [[ $errors -gt 0 ]]; then
  echo "$errors case(s) failed" >&2
  exit 1
fi
ok "every error path: message and exit status as expected"
