#!/usr/bin/env bash
# The man pages (meson builds and installs them from the programs'
# own output): sluice(8) from `sluice help --man` (the command table),
# sluice.yaml(5) from `sluice config --man` (the configuration schema),
# sluice-exporter(8) from `sluice-exporter --man`, sluice-bench(8) from
# `sluice-bench --man`.  Each renders without a
# warning from groff or man; sluice(8) names every command `sluice --help`
# lists, sluice.yaml(5) every section and key `sluice config` lists; the
# pages in the build directory are the programs' current output; meson's
# project version is the one sluice --version, sluice(8) and
# debian/changelog say; a bad option combination is refused with its
# message.
. "$(dirname "$0")/lib.sh"
EXPORTER=$(dirname "$SLUICE")/sluice-exporter
command -v groff >/dev/null || skip "no groff (scripts/setup installs groff-base)"

"$SLUICE" help --man >"$T/sluice.8" || fail "sluice help --man failed"
"$SLUICE" config --man >"$T/sluice.yaml.5" || fail "sluice config --man failed"
"$EXPORTER" --man >"$T/sluice-exporter.8" || fail "sluice-exporter --man failed"
"$(dirname "$SLUICE")/sluice-bench" --man >"$T/sluice-bench.8" || fail "sluice-bench --man failed"
for p in sluice.8 sluice.yaml.5 sluice-exporter.8 sluice-bench.8; do
  groff -ww -man -Tutf8 -z "$T/$p" >"$T/$p.warn" 2>&1
  [[ ! -s $T/$p.warn ]] || { cat "$T/$p.warn"; fail "groff warns about $p"; }
  if command -v man >/dev/null; then
    MANWIDTH=80 man --warnings -l "$T/$p" >"$T/$p.txt" 2>"$T/$p.warn"
    [[ ! -s $T/$p.warn ]] || { cat "$T/$p.warn"; fail "man warns about $p"; }
  else
    groff -man -Tutf8 "$T/$p" | col -bx >"$T/$p.txt"
  fi
  # the page built for installation is the program's output
  built="$SLUICE_BUILD/$p"
  [[ -f $built ]] || fail "meson did not build $p"
  cmp -s "$built" "$T/$p" || fail "$built differs from the program's --man output (a stale page)"
done
ok "four pages render without warnings, and the built ones are current"

# every command of `sluice --help` is in sluice(8): the first word of each
# synopsis line (indented two spaces under "commands:")
"$SLUICE" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p; s/^  \([a-z][a-z]*\)$/\1/p' |
  sort -u >"$T/commands"
(($(wc -l <"$T/commands") >= 10)) || fail "too few commands read from sluice --help: $(tr '\n' ' ' <"$T/commands")"
tr -s ' ' <"$T/sluice.8.txt" | sed 's/\xe2\x80\x90//g' >"$T/page"
while read -r c; do
  grep -q "sluice $c" "$T/page" || fail "sluice(8) does not describe 'sluice $c'"
done <"$T/commands"
for w in version help "EXIT STATUS" SLUICE_TIMEOUT "sluice.yaml(5)"; do
  grep -q "$w" "$T/page" || fail "sluice(8) lacks '$w'"
done
ok "sluice(8) names the $(wc -l <"$T/commands") commands of sluice --help"

# every section and key of `sluice config` is in sluice.yaml(5)
"$SLUICE" config | awk '/^[a-z_]+: / { sub(":", "", $1); print $1; next } /^  +[a-z_]+ / { print $1 }' |
  sort -u >"$T/keys"
(($(wc -l <"$T/keys") >= 20)) || fail "too few sections and keys read from sluice config"
tr -s ' ' <"$T/sluice.yaml.5.txt" >"$T/page5"
while read -r k; do
  grep -qw -- "$k" "$T/page5" || fail "sluice.yaml(5) does not describe '$k'"
done <"$T/keys"
ok "sluice.yaml(5) names the $(wc -l <"$T/keys") sections and keys of sluice config"

grep -q -- "--listen ADDR:PORT" "$T/sluice-exporter.8.txt" && grep -q -- "--prefix P" "$T/sluice-exporter.8.txt" ||
  fail "sluice-exporter(8) lacks its options"
ok "sluice-exporter(8) names its options"

# the version from one place: meson's project version is what the
# program, its man page and the Debian changelog say
version=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -1)
[[ -n $version ]] || fail "no project version in meson.build"
[[ $("$SLUICE" --version) == "sluice $version" ]] || fail "sluice --version: $("$SLUICE" --version), meson: $version"
grep -q "^\.TH SLUICE 8 \"\" \"sluice $version\"" "$T/sluice.8" || fail "sluice(8) does not say version $version"
chver=$(sed -n '1s/^sluice (\([^)]*\)).*/\1/p' "$SRC/debian/changelog")
[[ $chver == "$version" ]] || fail "debian/changelog's version '$chver' is not meson's $version"
ok "one version, $version: meson, sluice --version, sluice(8), debian/changelog"

# scripts/package refuses what it cannot build: an unknown option, --out
# without a folder, and a changelog whose version is not meson's (checked
# before anything is installed or built: a copy of the script beside a
# meson.build of 9.9.9)
B="$SRC/scripts/package"
expect_usage "package: unknown argument '--bogus'" --bogus
expect_usage "package: --out needs a value" --out
mkdir -p "$T/pkg/scripts" "$T/pkg/debian"
cp "$SRC/scripts/package" "$T/pkg/scripts/"
cp "$SRC/debian/changelog" "$T/pkg/debian/"
printf "project('sluice', 'c',\n  version : '9.9.9',\n)\n" >"$T/pkg/meson.build"
if command -v dpkg-parsechangelog >/dev/null; then
  "$T/pkg/scripts/package" --no-deps >"$T/pkg.out" 2>&1 && fail "scripts/package built with a changelog of another version"
  expect_in "$T/pkg.out" "package: error: debian/changelog's version $version is not meson's project version 9.9.9"
fi
ok "scripts/package refuses an unknown option, --out without a value and a changelog of another version"

expect_exit 2 "$T/both" config --markdown --man
expect_in "$T/both" "sluice: config: --markdown and --man are two formats: give one"
ok "config --markdown --man refused"
