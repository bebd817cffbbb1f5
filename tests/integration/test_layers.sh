#!/usr/bin/env bash
# The direction of includes between engine/'s folders is enforced by the
# build: tests/tools/check-includes runs on every build with the rules of
# engine/meson.build (layer_rules).  Here, with the build's own arguments
# (read from meson's introspection), on the tree and on scratch copies with
# an upward include, an unqualified one, an unknown folder and a circle.
source "$(dirname "$0")/lib.sh"

BUILD=${SLUICE_BUILD:-$SRC/build}
# The build's command line for check-includes, minus the stamp and the files.
mapfile -t ARGS < <(python3 - "$BUILD/meson-info/intro-targets.json" <<'PY'
import json, sys
t = [x for x in json.load(open(sys.argv[1])) if x['name'] == 'check-includes'][0]
cmd = t['target_sources'][0]['compiler']
i = cmd.index('--root')
args = [a for a in cmd[i + 2:] if a != '@INPUT@']
for a in args:
    print(a)
PY
)
[[ ${#ARGS[@]} -gt 10 ]] || fail "no check-includes target in $BUILD's introspection"
grep -q 'check-includes' "$BUILD/build.ninja" || fail "check-includes is not part of the build"
CHECK=$SRC/tests/tools/check-includes

# check TREE: run the checker on TREE's files; output in $T/out.
check() {
  local tree=$1
  (cd "$tree" && "$CHECK" --root . "${ARGS[@]}" \
    $(find engine pool interlink apps -name '*.[ch]' | LC_ALL=C sort)) >"$T/out" 2>&1
}

check "$SRC" || { cat "$T/out"; fail "the tree breaks its own include rules"; }
ok "the tree follows its include rules"

# A fresh scratch copy for each case.
scratch() {
  rm -rf "$T/tree"; mkdir -p "$T/tree"
  cp -r "$SRC/engine" "$SRC/pool" "$SRC/interlink" "$SRC/apps" "$T/tree/"
}

# expect_broken TEXT: the checker fails on the scratch copy, saying TEXT.
expect_broken() {
  check "$T/tree" && { cat "$T/out"; fail "an include against the rules passed"; }
  expect_in "$T/out" "$1"
}

scratch
sed -i '0,/#include "base\/err.h"/s//#include "base\/err.h"\n#include "run\/engine.h"/' \
  "$T/tree/engine/epoch/epoch.h"
expect_broken 'engine/epoch/epoch.h:82: #include "run/engine.h" goes against the direction: epoch/ may include base'
ok "an upward include (epoch -> run) fails"

scratch
printf '#include "ops/report.h"\n' >>"$T/tree/engine/runtime/worker.c"
expect_broken '#include "ops/report.h" goes against the direction: runtime/ may include base, epoch, interlink, pool'
ok "runtime including ops fails"

scratch
printf '#include "runtime/app.h"\n' >>"$T/tree/pool/pool.c"
expect_broken 'pool/pool.c'
expect_in "$T/out" 'pool/ may include base'
ok "the pool including the runtime fails"

scratch
printf '#include "app.h"\n' >>"$T/tree/engine/config/diff.c"
expect_broken 'engine/config/diff.c:'
expect_in "$T/out" '#include "app.h" is not path-qualified'
ok "an unqualified include fails"

scratch
mkdir -p "$T/tree/engine/extra"; printf '#include "base/err.h"\n' >"$T/tree/engine/extra/x.c"
expect_broken 'engine/extra/x.c: folder extra/ has no rule (add one in engine/meson.build)'
ok "a folder without a rule fails"

scratch
printf '#include "base/note.h"\n' >>"$T/tree/engine/base/histogram.h"
printf '#include "base/histogram.h"\n' >>"$T/tree/engine/base/note.h"
expect_broken 'includes form a circle: engine/base/histogram.h -> engine/base/note.h -> engine/base/histogram.h'
ok "a circle of includes within a folder fails"

(cd "$SRC" && "$CHECK" --root . --rule a:b --rule b:a) >"$T/out" 2>&1 &&
  fail "circular rules passed"
expect_in "$T/out" 'the folder rules form a circle: a -> b -> a'
ok "circular folder rules fail"
