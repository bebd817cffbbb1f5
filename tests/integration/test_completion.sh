#!/usr/bin/env bash
# Bash completion (completions/sluice, installed by meson where
# bash-completion looks): driven with COMP_WORDS in a bash that sourced it.
# The first word completes to every command `sluice --help` lists; each
# command's options include every option its synopsis names; `sluice apps`
# completes to the app types; --prefix to the file prefix of a running
# engine; run's CONFIG to YAML files (not other files); sluice-exporter to
# its options.  meson installs the script under both names.
. "$(dirname "$0")/lib.sh"
COMP="$SRC/completions/sluice"
[[ -f $COMP ]] || fail "no completions/sluice"

# complete WORD...: the completions of the last WORD after the others
complete_words() {
  bash -c 'shopt -s extglob; source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
           _sluice; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@"
}

"$SLUICE" --help | sed -n '/^commands:/,/^$/p' >"$T/help"
sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' "$T/help" | sort -u >"$T/commands"
(($(wc -l <"$T/commands") >= 10)) || fail "too few commands in sluice --help"
complete_words "$SLUICE" "" | sort -u >"$T/first"
comm -23 "$T/commands" "$T/first" >"$T/missing"
[[ ! -s $T/missing ]] || fail "the first word does not complete to: $(tr '\n' ' ' <"$T/missing")"
[[ $(complete_words "$SLUICE" "to") == "topology
top" || $(complete_words "$SLUICE" "to" | sort | tr '\n' ' ') == "top topology " ]] ||
  fail "'to' completes to: $(complete_words "$SLUICE" "to" | tr '\n' ' ')"
ok "the first word: the $(wc -l <"$T/commands") commands of sluice --help"

# every option in a command's synopsis (its lines in sluice --help, up to
# the summary) is offered after "-"
n=0
while read -r c; do
  "$SLUICE" help "$c" >"$T/h.$c" 2>&1 || true
  sed -n '1,/^[^ u]/p' "$T/h.$c" | grep -o -- ' \[\{0,1\}-\{1,2\}[a-z][a-z-]*' | tr -d ' [' | sort -u >"$T/want.$c"
  complete_words "$SLUICE" "$c" "-" | sort -u >"$T/got.$c"
  comm -23 "$T/want.$c" "$T/got.$c" >"$T/missing"
  [[ ! -s $T/missing ]] || fail "sluice $c -<TAB> lacks: $(tr '\n' ' ' <"$T/missing")"
  n=$((n + $(wc -l <"$T/want.$c")))
done <"$T/commands"
((n >= 20)) || fail "only $n options read from the commands' synopses"
ok "each command completes every option of its synopsis ($n in all)"

"$SLUICE" apps | sed -n 's/^\([a-z_0-9]*\): .*/\1/p' | sort -u >"$T/types"
complete_words "$SLUICE" apps "" | sort -u >"$T/gtypes"
cmp -s "$T/types" "$T/gtypes" || fail "sluice apps <TAB>: $(tr '\n' ' ' <"$T/gtypes"), want $(tr '\n' ' ' <"$T/types")"
ok "sluice apps: the $(wc -l <"$T/types") app types"

mkdir "$T/cfgs"
touch "$T/cfgs/a.yaml" "$T/cfgs/b.yml" "$T/cfgs/notes.txt"
got=$(cd "$T/cfgs" && complete_words "$SLUICE" run "" | sort | tr '\n' ' ')
[[ $got == "a.yaml b.yml " ]] || fail "sluice run <TAB> in a folder of a.yaml b.yml notes.txt: '$got'"
ok "run's CONFIG: YAML files only"

got=$(complete_words "$SLUICE" bench latency --memory "" | sort | tr '\n' ' ')
[[ $got == "2m 4k " ]] || fail "sluice bench latency --memory <TAB>: '$got', expected 2m 4k"
ok "bench latency --memory: 4k and 2m"
got=$(complete_words "$SLUICE" bench latency --order "" | sort | tr '\n' ' ')
[[ $got == "address shuffled " ]] || fail "sluice bench latency --order <TAB>: '$got', expected address shuffled"
ok "bench latency --order: shuffled and address"

cat >"$T/p.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, rate: 1000 }
  snk: { type: sink }
links:
  - src.output -> snk.input
EOF
start_engine "$T/p.yaml" "$T/p.log" 2
complete_words "$SLUICE" stats --prefix "" >"$T/prefixes"
grep -qx "$PREFIX" "$T/prefixes" || fail "--prefix <TAB> lacks the running engine's $PREFIX: $(tr '\n' ' ' <"$T/prefixes")"
interrupt "$pid" "$T/p.log" || fail "the engine did not stop"
pid=""
ok "--prefix: the running engine's file prefix"

got=$(complete_words sluice-exporter "--" | sort | tr '\n' ' ')
[[ $got == *"--listen"* && $got == *"--prefix"* ]] || fail "sluice-exporter --<TAB>: '$got'"
grep -q "install_symlink('sluice-exporter', pointing_to : 'sluice'" "$SRC/meson.build" ||
  fail "meson does not install the completion for sluice-exporter"
ok "sluice-exporter: its options"
