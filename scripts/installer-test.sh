#!/usr/bin/env bash
# The installer paths of a capkg release, offline: dist builds this machine's archive with the
# release profile, its checksum and the shell installer (`dist build --artifacts=host`, as a
# release does per target); a local HTTP server serves them in a GitHub release's layout
# (RELEASES/v<version>/…), beside a release whose archive has one byte changed and a "trap"
# release whose archive and installer each leave a mark when anything runs them; then
#   1. dist's installer, downloaded to a file and pointed at the server by its download-URL
#      override, installs capkg and the installed `capkg --version` runs;
#   2. the action's install step (scripts/action-install.sh, as action.yml runs it) resolves the
#      version from Cargo.toml, installs, keeps the checked archive in its cache folder, puts
#      capkg on PATH; a second run uses the kept archive and downloads only the checksum;
#   3. a poisoned action cache (another archive in its place, or a `bin/capkg` of the old layout)
#      is never run: the kept archive is judged by the release's published SHA-256 and downloaded
#      again, and where the download is bad too the step fails, saying why;
#   4. dist's installer refuses the changed archive by its checksum and installs nothing;
#   5. scripts/install.sh (README's installer) checks the archive before anything runs: the
#      changed and trap archives are refused, nothing is installed and no mark is left; with only
#      `shasum -a 256` it checks too, with neither it installs nothing; a URL that only looks like
#      loopback (`http://127.0.0.1:1@evil.example`) is refused before any request.
# Usage: scripts/installer-test.sh [--no-build]   (--no-build: reuse target/distrib)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
# dist writes its archives under the workspace's target/distrib, whatever CARGO_TARGET_DIR says.
distrib=target/distrib
if [ "${1:-}" != --no-build ]; then
  dist build --artifacts=host >/dev/null
fi
archive=$(ls "$distrib"/capkg-*.tar.xz | head -n 1)
[ -f "$archive" ] && [ -f "$distrib/capkg-installer.sh" ] || {
  echo "installer-test: no archive or installer in $distrib" >&2
  exit 2
}

# The archive's target triple: install.sh picks the static musl build on Linux, the test serves
# what dist built for this machine.
export CAPKG_TARGET
CAPKG_TARGET=$(basename "$archive" .tar.xz)
CAPKG_TARGET=${CAPKG_TARGET#capkg-}
archive_name=$(basename "$archive")

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "installer-test: FAILED: $*" >&2
  exit 1
}
mark=$work/something-ran
no_mark() { [ ! -e "$mark" ] || fail "$1: something from a refused download ran"; }

# Three releases with the real checksum file: the real one, one whose archive has a byte changed,
# and a trap: its archive holds a `capkg` and its installer is a script, each of which leaves the
# mark when run.
for release in good corrupt trap; do
  mkdir -p "$work/srv/$release/v$version"
  cp "$archive" "$archive.sha256" "$distrib/capkg-installer.sh" "$work/srv/$release/v$version/"
done
python3 - "$work/srv/corrupt/v$version/$archive_name" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0xFF
open(path, "wb").write(bytes(data))
PY
mkdir -p "$work/trap/capkg-$CAPKG_TARGET"
printf '#!/bin/sh\ntouch "%s"\necho "capkg %s"\n' "$mark" "$version" >"$work/trap/capkg-$CAPKG_TARGET/capkg"
chmod +x "$work/trap/capkg-$CAPKG_TARGET/capkg"
cp "$work/trap/capkg-$CAPKG_TARGET/capkg" "$work/srv/trap/v$version/capkg-installer.sh"
tar -cJf "$work/srv/trap/v$version/$archive_name" -C "$work/trap" "capkg-$CAPKG_TARGET"
python3 scripts/serve-dir.py "$work/srv" "$work/port" 300 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 100); do [ -f "$work/port" ] && break; sleep 0.1; done
[ -f "$work/port" ] || fail "the local server did not start"
base="http://127.0.0.1:$(cat "$work/port")"
passed=0
requests() { grep -c "GET /$1 HTTP" "$work/server.log" || true; }

# 1. dist's installer with its download-URL override, downloaded first, then run.
url="$base/good/v$version"
curl --fail --silent --show-error --output "$work/capkg-installer.sh" "$url/capkg-installer.sh"
CAPKG_DOWNLOAD_URL=$url CAPKG_INSTALL_DIR="$work/direct" CAPKG_NO_MODIFY_PATH=1 HOME="$work/home" \
  sh "$work/capkg-installer.sh" --quiet
shown=$("$work/direct/bin/capkg" --version)
[ "$shown" = "capkg $version" ] || fail "the installed capkg says \`$shown\`, not \`capkg $version\`"
passed=$((passed + 1))

# 2. The action's install step, twice: the second uses the kept archive and downloads only the
# release's checksum.
export GITHUB_OUTPUT="$work/output" GITHUB_PATH="$work/path" GITHUB_ACTION_PATH=$root
export CAPKG_RELEASES_URL="$base/good" CAPKG_INSTALL_ROOT="$work/tool-cache" HOME="$work/home"
cache="$work/tool-cache/$version"
action_bin="$work/tool-cache/.run/capkg-$version/bin"
CAPKG_VERSION= scripts/action-install.sh resolve
grep -qx "version=$version" "$work/output" || fail "resolve: $(cat "$work/output")"
grep -qx "dir=$cache" "$work/output" || fail "resolve: $(cat "$work/output")"
grep -qx "cacheable=true" "$work/output" || fail "resolve: $(cat "$work/output")"
CAPKG_VERSION=v$version scripts/action-install.sh install >"$work/first.log" 2>&1 \
  || fail "action install: $(cat "$work/first.log")"
grep -qx "$action_bin" "$work/path" || fail "GITHUB_PATH: $(cat "$work/path")"
grep -qx "capkg $version" "$work/first.log" || fail "action install: $(cat "$work/first.log")"
cmp -s "$archive" "$cache/$archive_name" || fail "the cache folder does not hold the checked archive"
[ ! -e "$cache/bin" ] || fail "the binary was unpacked into the cache folder"
archives=$(requests "good/v$version/$archive_name")
sums=$(requests "good/v$version/$archive_name.sha256")
CAPKG_VERSION=$version scripts/action-install.sh install >"$work/second.log" 2>&1 \
  || fail "second action install: $(cat "$work/second.log")"
grep -q "matches the release's SHA-256" "$work/second.log" || fail "the kept archive was not used: $(cat "$work/second.log")"
[ "$(requests "good/v$version/$archive_name")" = "$archives" ] || fail "the second run downloaded the archive again"
[ "$(requests "good/v$version/$archive_name.sha256")" -gt "$sums" ] || fail "the second run did not fetch the release's checksum"
if CAPKG_VERSION=main scripts/action-install.sh resolve 2>"$work/bad-version.log"; then
  fail "the version \`main\` was accepted"
fi
grep -q "not a capkg version" "$work/bad-version.log" || fail "$(cat "$work/bad-version.log")"
passed=$((passed + 1))

# 3. A poisoned cache: the trap's archive in the kept archive's place, and a `bin/capkg` where
# the action before this one ran its cached binary from. Neither runs; the archive is downloaded
# again and checked.
cp "$work/srv/trap/v$version/$archive_name" "$cache/$archive_name"
mkdir -p "$cache/bin"
cp "$work/trap/capkg-$CAPKG_TARGET/capkg" "$cache/bin/capkg"
CAPKG_VERSION=$version scripts/action-install.sh install >"$work/poisoned.log" 2>&1 \
  || fail "action install over a poisoned cache: $(cat "$work/poisoned.log")"
no_mark "the poisoned cache"
grep -q "does not match the release's published SHA-256" "$work/poisoned.log" || fail "$(cat "$work/poisoned.log")"
grep -qx "capkg $version" "$work/poisoned.log" || fail "$(cat "$work/poisoned.log")"
cmp -s "$archive" "$cache/$archive_name" || fail "the poisoned archive was kept"
[ "$(requests "good/v$version/$archive_name")" -gt "$archives" ] || fail "the archive was not downloaded again"
# Poisoned, and the release's archive bad too: the step fails, saying why, and puts nothing on PATH.
cp "$work/srv/trap/v$version/$archive_name" "$cache/$archive_name"
rm -rf "$work/tool-cache/.run" "$work/path"
if CAPKG_RELEASES_URL="$base/corrupt" CAPKG_VERSION=$version scripts/action-install.sh install \
  >"$work/poisoned-corrupt.log" 2>&1; then
  fail "the action installed from a poisoned cache and a corrupted download"
fi
no_mark "the poisoned cache and a corrupted download"
grep -q "checksum mismatch" "$work/poisoned-corrupt.log" || fail "$(cat "$work/poisoned-corrupt.log")"
[ ! -e "$action_bin/capkg" ] && [ ! -e "$work/path" ] || fail "a refused archive was installed or put on PATH"
passed=$((passed + 1))
unset GITHUB_OUTPUT GITHUB_PATH GITHUB_ACTION_PATH CAPKG_RELEASES_URL CAPKG_INSTALL_ROOT

# 4. dist's installer and the corrupted archive.
url="$base/corrupt/v$version"
curl --fail --silent --show-error --output "$work/corrupt-installer.sh" "$url/capkg-installer.sh"
if CAPKG_DOWNLOAD_URL=$url CAPKG_INSTALL_DIR="$work/corrupt" CAPKG_NO_MODIFY_PATH=1 \
  sh "$work/corrupt-installer.sh" 2>"$work/corrupt.log"; then
  fail "the installer accepted a corrupted archive"
fi
grep -q "checksum mismatch" "$work/corrupt.log" || fail "no checksum message: $(cat "$work/corrupt.log")"
[ ! -e "$work/corrupt/bin/capkg" ] || fail "a corrupted archive was installed"
passed=$((passed + 1))

# 5. scripts/install.sh, README's installer. PATHs of this machine's tools without `sha256sum`,
# and without both checksum tools (links, the first folder of PATH's order winning); a `curl`
# that only records being called.
for tools in no-sha256sum no-sum; do
  mkdir "$work/$tools"
  for dir in /bin /usr/bin /usr/local/bin; do
    [ -d "$dir" ] && ln -sf "$dir"/* "$work/$tools/"
  done
  rm -f "$work/$tools/sha256sum"
done
rm -f "$work/no-sum/shasum"
mkdir "$work/recording-curl"
printf '#!/bin/sh\necho "$*" >>"%s"\nexit 7\n' "$work/curl-calls" >"$work/recording-curl/curl"
chmod +x "$work/recording-curl/curl"
install_with() { # PATH release target-folder
  PATH="$1" CAPKG_VERSION=$version CAPKG_DOWNLOAD_URL="$base/$2/v$version" \
    CAPKG_INSTALL_DIR="$work/$3" HOME="$work/home" sh scripts/install.sh
}
install_with "$PATH" good with-sha256sum >/dev/null 2>"$work/install.log" \
  || fail "install.sh: $(cat "$work/install.log")"
[ "$("$work/with-sha256sum/bin/capkg" --version)" = "capkg $version" ] || fail "install.sh did not install"
for release in corrupt trap; do
  if install_with "$work/no-sha256sum" "$release" "refused-$release" >/dev/null 2>"$work/$release.log"; then
    fail "install.sh accepted the $release archive"
  fi
  grep -q "checksum mismatch" "$work/$release.log" || fail "$(cat "$work/$release.log")"
  no_mark "install.sh and the $release release"
  [ ! -e "$work/refused-$release" ] || fail "install.sh installed or unpacked the $release archive"
done
install_with "$work/no-sha256sum" good shasum >/dev/null 2>"$work/shasum.log" \
  || fail "install.sh with shasum only: $(cat "$work/shasum.log")"
[ "$("$work/shasum/bin/capkg" --version)" = "capkg $version" ] || fail "install.sh did not install (shasum)"
if install_with "$work/no-sum" good no-sum >/dev/null 2>"$work/no-sum.log"; then
  fail "install.sh installed without a way to check the archive"
fi
grep -q "neither \`sha256sum\` nor \`shasum\`" "$work/no-sum.log" || fail "$(cat "$work/no-sum.log")"
[ ! -e "$work/no-sum/bin/capkg" ] || fail "an unchecked archive was installed"
for url in "http://127.0.0.1:1@evil.example" "http://127.0.0.1:1@evil.example/v$version" \
  "http://127.0.0.1:80.evil.example/v$version" "http://localhost.evil.example:80/v$version" \
  "http://127.0.0.1/v$version" "http://[::1]:80#@evil.example" "http://evil.example/v$version" \
  "ftp://127.0.0.1:21/v$version"; do
  if PATH="$work/recording-curl:$PATH" CAPKG_DOWNLOAD_URL=$url CAPKG_INSTALL_DIR="$work/evil" \
    HOME="$work/home" sh scripts/install.sh >/dev/null 2>"$work/evil.log"; then
    fail "install.sh accepted $url"
  fi
  grep -qF "refusing \`$url\`" "$work/evil.log" || fail "$url: $(cat "$work/evil.log")"
done
[ ! -e "$work/curl-calls" ] || fail "install.sh made requests for a refused URL: $(cat "$work/curl-calls")"
[ ! -e "$work/evil" ] || fail "install.sh installed from a refused URL"
passed=$((passed + 1))

echo "installer-test: $archive_name from $base"
echo "installer-test: all $passed checks passed"
