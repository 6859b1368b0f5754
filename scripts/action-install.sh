#!/usr/bin/env bash
# The install step of capkg's GitHub Action (action.yml), kept here so that it runs the same way
# in .ci/run's offline installer test: resolves the version, runs the release's own installer
# through scripts/install.sh (which makes sure the archive's SHA-256 is checked before unpacking)
# into a folder per version that actions/cache keeps, and puts that folder on PATH.
#
# Environment:
#   CAPKG_VERSION       `0.2.0`, `v0.2.0` or `latest`; empty: the version in Cargo.toml of the
#                       action's own checkout (GITHUB_ACTION_PATH), i.e. the tag the action is pinned to
#   CAPKG_INSTALL_ROOT  where versions are installed (the action: the runner's tool cache)
#   CAPKG_RELEASES_URL  where releases are downloaded from (default
#                       https://github.com/capkg/capkg/releases/download; tests serve their own)
#   GITHUB_OUTPUT, GITHUB_PATH  the runner's files; without them (a shell), the lines are printed
# Usage: action-install.sh resolve   prints version=, dir= and cacheable= lines to GITHUB_OUTPUT
#        action-install.sh install   installs unless DIR/bin/capkg is there (a cache hit), puts
#                                    DIR/bin on PATH
#        action-install.sh run       runs capkg with CAPKG_ARGS split on whitespace, newlines
#                                    included (a multi-line `args:`), without shell expansion
set -euo pipefail

releases=${CAPKG_RELEASES_URL:-https://github.com/capkg/capkg/releases/download}
root=${CAPKG_INSTALL_ROOT:-${RUNNER_TOOL_CACHE:-$HOME/.cache}/capkg}

resolve_version() {
  local version=${CAPKG_VERSION:-}
  if [ -z "$version" ]; then
    local manifest=${GITHUB_ACTION_PATH:-}/Cargo.toml
    if [ -z "${GITHUB_ACTION_PATH:-}" ] || [ ! -f "$manifest" ]; then
      echo "capkg action: no version given and no Cargo.toml at the action's path; set \`version:\`" >&2
      exit 1
    fi
    version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$manifest" | head -n 1)
  fi
  version=${version#v}
  if [ "$version" != latest ] && ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
    echo "capkg action: \`$version\` is not a capkg version (0.2.0, v0.2.0 or latest)" >&2
    exit 1
  fi
  echo "$version"
}

emit() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >>"$GITHUB_OUTPUT"; else echo "$1"; fi
}

case ${1:-} in
  resolve)
    version=$(resolve_version)
    emit "version=$version"
    emit "dir=$root/$version"
    # `latest` moves, so it is never restored from the cache.
    if [ "$version" = latest ]; then emit "cacheable=false"; else emit "cacheable=true"; fi
    ;;
  install)
    version=$(resolve_version)
    dir=$root/$version
    # The installer's cargo-home layout: DIR/bin/capkg.
    bin=$dir/bin
    if [ -x "$bin/capkg" ] || [ -x "$bin/capkg.exe" ]; then
      echo "capkg $version: restored from the cache ($dir)"
    else
      if [ "$version" = latest ]; then
        url=${releases%/download}/latest/download
      else
        url=$releases/v$version
      fi
      # scripts/install.sh downloads the release's installer from the same place, which checks
      # the archive's SHA-256 (with `shasum -a 256` where `sha256sum` is missing; nothing is
      # installed where neither is) and installs into $dir only (no profile or PATH edits).
      CAPKG_DOWNLOAD_URL=$url CAPKG_INSTALL_DIR=$dir CAPKG_NO_MODIFY_PATH=1 \
        sh "$(dirname "$0")/install.sh"
    fi
    if [ -n "${GITHUB_PATH:-}" ]; then echo "$bin" >>"$GITHUB_PATH"; fi
    "$bin/capkg" --version
    ;;
  run)
    # `read -d ''` reads to the end, not to the first newline: every line of `args` counts.
    read -r -d '' -a words <<<"${CAPKG_ARGS:-}" || true
    exec capkg "${words[@]}"
    ;;
  *)
    echo "usage: action-install.sh resolve|install|run" >&2
    exit 2
    ;;
esac
