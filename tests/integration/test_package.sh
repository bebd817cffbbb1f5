#!/usr/bin/env bash
# The Debian package (docs/operations.md, "The package"): scripts/package
# builds it in a fresh clone of the tree; its files are exactly
# tests/data/package-files.txt; lintian finds no error or warning; `apt
# install ./sluice_*.deb` installs it; /usr/bin/sluice runs
# /etc/sluice/example.yaml for 2 s; `man -w` finds sluice(8),
# sluice.yaml(5) and sluice-exporter(8); bash completes `sluice ch` to
# check through the installed completion; a user's edit of
# /etc/sluice/example.yaml survives a reinstall and a removal; the purge
# leaves no file of the package.  Root only (it installs on this machine);
# it takes minutes, so it runs with scripts/test --full
# (SLUICE_TEST_FULL=1) only.
# serial: installs a package system-wide and builds with every CPU
. "$(dirname "$0")/lib.sh"
[[ ${SLUICE_TEST_FULL:-0} == 1 ]] || skip "takes minutes: scripts/test --full runs it (or SLUICE_TEST_FULL=1)"
((EUID == 0)) || skip "installs a package: needs root"
dpkg-query -W -f='${Status}' sluice 2>/dev/null | grep -q "install ok" &&
  skip "a sluice package is installed already: this test would replace and purge it"
for t in git dpkg-buildpackage lintian apt-get; do
  command -v $t >/dev/null || skip "no $t"
done
cleanup_pkg() { apt-get purge -y -qq sluice >/dev/null 2>&1 || true; }
# the example's own DPDK file prefix (serial: nothing else runs it meanwhile)
trap 'cleanup_pkg; rm -rf "$T" "/var/run/dpdk/$PREFIX" /var/run/dpdk/sluice-quickstart' EXIT

git clone -q "$SRC" "$T/clone" || fail "cannot clone $SRC"
"$T/clone/scripts/package" --out "$T/deb" >"$T/package.log" 2>&1 || { cat "$T/package.log"; fail "scripts/package failed"; }
version=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -1)
deb=$T/deb/sluice_${version}_amd64.deb
[[ -f $deb ]] || { ls "$T/deb"; fail "no $deb"; }
ok "scripts/package built sluice_${version}_amd64.deb in a fresh clone"

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep -v '^$' | sort >"$T/files"
diff -u "$SRC/tests/data/package-files.txt" "$T/files" || fail "the package's files differ from tests/data/package-files.txt"
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || fail "the package's version is not meson's $version"
ok "its $(wc -l <"$T/files") files are the expected ones, version $version"

lintian --fail-on error,warning "$deb" >"$T/lintian" 2>&1 || { cat "$T/lintian"; fail "lintian"; }
ok "lintian: no error, no warning"

apt-get install -y -qq "$deb" >"$T/apt" 2>&1 || { cat "$T/apt"; fail "apt install failed"; }
[[ $(/usr/bin/sluice --version) == "sluice $version" ]] || fail "/usr/bin/sluice --version: $(/usr/bin/sluice --version)"
/usr/bin/sluice run /etc/sluice/example.yaml --duration 2 --summary-json "$T/run.log.json" >"$T/run.log" 2>&1 ||
  { cat "$T/run.log"; fail "the installed sluice did not run the example"; }
pool_back "$T/run.log"
(($(summary_get "$T/run.log.json" apps out counters out_packets) > 0)) || fail "the example forwarded nothing"
for p in sluice sluice.yaml sluice-exporter sluice-bench; do
  man -w "$p" >/dev/null 2>&1 || fail "man -w $p finds nothing"
done
got=$(bash -c 'source /usr/share/bash-completion/completions/sluice; COMP_WORDS=(sluice ch); COMP_CWORD=1; _sluice; echo "${COMPREPLY[*]}"')
[[ $got == check ]] || fail "the installed completion gives '$got' for 'sluice ch'"
[[ -f /lib/systemd/system/sluice@.service || -f /usr/lib/systemd/system/sluice@.service ]] || fail "no sluice@.service"
ok "installed: sluice --version, the example ran 2 s, man -w finds the 4 pages, completion works, the units are there"

echo "# a user's edit" >>/etc/sluice/example.yaml
apt-get install -y -qq --reinstall "$deb" >"$T/apt2" 2>&1 || { cat "$T/apt2"; fail "the reinstall failed"; }
grep -q "^# a user's edit" /etc/sluice/example.yaml || fail "a reinstall overwrote the edited /etc/sluice/example.yaml"
apt-get remove -y -qq sluice >"$T/apt3" 2>&1 || { cat "$T/apt3"; fail "apt remove failed"; }
[[ ! -e /usr/bin/sluice ]] || fail "/usr/bin/sluice left after remove"
grep -q "^# a user's edit" /etc/sluice/example.yaml || fail "remove took the edited configuration"
ok "an edited conffile survives reinstall and remove"

apt-get purge -y -qq sluice >"$T/apt4" 2>&1 || { cat "$T/apt4"; fail "apt purge failed"; }
left=""
while read -r f; do
  [[ -z $f || $f == / || -d $f ]] && continue
  [[ -e $f || -L $f ]] && left+=" $f"
done <"$T/files"
[[ -z $left ]] || fail "files left after the purge:$left"
[[ ! -e /etc/sluice/example.yaml ]] || fail "/etc/sluice/example.yaml left after the purge"
ok "purge: no file of the package left"
