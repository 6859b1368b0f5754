#!/usr/bin/env bash
# The installer path of a capkg release, offline: dist builds this machine's archive with the
# release profile, its checksum and the shell installer (`dist build --artifacts=host`, as a
# release does per target); a local HTTP server serves them in a GitHub release's layout
# (RELEASES/v<version>/…); then
#   1. the installer, pointed at the server by its download-URL override, installs capkg and the
#      installed `capkg --version` runs;
#   2. the action's install step (scripts/action-install.sh, as action.yml runs it) resolves the
#      version from Cargo.toml, installs, puts capkg on PATH, and a second run is a cache hit;
#   3. an archive with one byte changed is refused by its checksum and nothing is installed;
#   4. scripts/install.sh (README's installer line) checks the archive with `shasum -a 256` where
#      `sha256sum` is missing, and installs nothing where both are missing.
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

# Two releases: the real one, and one whose archive has a byte changed (same installer, so the
# same expected checksum).
for release in good corrupt; do
  mkdir -p "$work/srv/$release/v$version"
  cp "$archive" "$archive.sha256" "$distrib/capkg-installer.sh" "$work/srv/$release/v$version/"
done
bad="$work/srv/corrupt/v$version/$(basename "$archive")"
python3 - "$bad" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0xFF
open(path, "wb").write(bytes(data))
PY
python3 scripts/serve-dir.py "$work/srv" "$work/port" 300 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 100); do [ -f "$work/port" ] && break; sleep 0.1; done
[ -f "$work/port" ] || fail "the local server did not start"
base="http://127.0.0.1:$(cat "$work/port")"
passed=0

# 1. The installer with its download-URL override.
url="$base/good/v$version"
curl --fail --silent --show-error "$url/capkg-installer.sh" \
  | CAPKG_DOWNLOAD_URL=$url CAPKG_INSTALL_DIR="$work/direct" CAPKG_NO_MODIFY_PATH=1 HOME="$work/home" \
    sh -s -- --quiet
shown=$("$work/direct/bin/capkg" --version)
[ "$shown" = "capkg $version" ] || fail "the installed capkg says \`$shown\`, not \`capkg $version\`"
passed=$((passed + 1))

# 2. The action's install step, twice: the second finds the cached folder and downloads nothing.
export GITHUB_OUTPUT="$work/output" GITHUB_PATH="$work/path" GITHUB_ACTION_PATH=$root
export CAPKG_RELEASES_URL="$base/good" CAPKG_INSTALL_ROOT="$work/tool-cache" HOME="$work/home"
CAPKG_VERSION= scripts/action-install.sh resolve
grep -qx "version=$version" "$work/output" || fail "resolve: $(cat "$work/output")"
grep -qx "dir=$work/tool-cache/$version" "$work/output" || fail "resolve: $(cat "$work/output")"
grep -qx "cacheable=true" "$work/output" || fail "resolve: $(cat "$work/output")"
CAPKG_VERSION=v$version scripts/action-install.sh install >"$work/first.log"
grep -qx "$work/tool-cache/$version/bin" "$work/path" || fail "GITHUB_PATH: $(cat "$work/path")"
grep -qx "capkg $version" "$work/first.log" || fail "action install: $(cat "$work/first.log")"
requests=$(grep -c "GET /good/" "$work/server.log")
CAPKG_VERSION=$version scripts/action-install.sh install >"$work/second.log"
grep -q "restored from the cache" "$work/second.log" || fail "no cache hit: $(cat "$work/second.log")"
[ "$(grep -c "GET /good/" "$work/server.log")" = "$requests" ] || fail "the cache hit downloaded"
if CAPKG_VERSION=main scripts/action-install.sh resolve 2>"$work/bad-version.log"; then
  fail "the version \`main\` was accepted"
fi
grep -q "not a capkg version" "$work/bad-version.log" || fail "$(cat "$work/bad-version.log")"
passed=$((passed + 1))
unset GITHUB_OUTPUT GITHUB_PATH GITHUB_ACTION_PATH CAPKG_RELEASES_URL CAPKG_INSTALL_ROOT

# 3. The corrupted archive.
url="$base/corrupt/v$version"
if curl --fail --silent --show-error "$url/capkg-installer.sh" \
  | CAPKG_DOWNLOAD_URL=$url CAPKG_INSTALL_DIR="$work/corrupt" CAPKG_NO_MODIFY_PATH=1 \
    sh 2>"$work/corrupt.log"; then
  fail "the installer accepted a corrupted archive"
fi
grep -q "checksum mismatch" "$work/corrupt.log" || fail "no checksum message: $(cat "$work/corrupt.log")"
[ ! -e "$work/corrupt/bin/capkg" ] || fail "a corrupted archive was installed"
passed=$((passed + 1))

# 4. scripts/install.sh, the README's installer line, where `sha256sum` is missing: with only
# `shasum` it still checks (installs the release, refuses the corrupted archive); with neither it
# installs nothing. PATHs of this machine's tools without them.
for tools in no-sha256sum no-sum; do
  mkdir "$work/$tools"
  for dir in /usr/local/bin /usr/bin /bin; do
    for tool in "$dir"/*; do
      name=$(basename "$tool")
      case $name in sha256sum) continue ;; shasum) [ "$tools" = no-sum ] && continue ;; esac
      [ -e "$work/$tools/$name" ] || ln -s "$tool" "$work/$tools/$name"
    done
  done
done
install_with() { # PATH-folder release target-folder
  PATH="$work/$1" CAPKG_VERSION=$version CAPKG_DOWNLOAD_URL="$base/$2/v$version" \
    CAPKG_INSTALL_DIR="$work/$3" CAPKG_NO_MODIFY_PATH=1 HOME="$work/home" sh scripts/install.sh
}
install_with no-sha256sum good shasum >/dev/null 2>"$work/shasum.log" \
  || fail "install.sh with shasum only: $(cat "$work/shasum.log")"
[ "$("$work/shasum/bin/capkg" --version)" = "capkg $version" ] || fail "install.sh did not install"
if install_with no-sha256sum corrupt shasum-corrupt >/dev/null 2>"$work/shasum-corrupt.log"; then
  fail "install.sh with shasum only accepted a corrupted archive"
fi
grep -q "checksum mismatch" "$work/shasum-corrupt.log" || fail "$(cat "$work/shasum-corrupt.log")"
[ ! -e "$work/shasum-corrupt/bin/capkg" ] || fail "a corrupted archive was installed (shasum)"
if install_with no-sum good no-sum >/dev/null 2>"$work/no-sum.log"; then
  fail "install.sh installed without a way to check the archive"
fi
grep -q "neither \`sha256sum\` nor \`shasum\`" "$work/no-sum.log" || fail "$(cat "$work/no-sum.log")"
[ ! -e "$work/no-sum/bin/capkg" ] || fail "an unchecked archive was installed"
passed=$((passed + 1))

echo "installer-test: $(basename "$archive") from $base"
echo "installer-test: all $passed checks passed"
