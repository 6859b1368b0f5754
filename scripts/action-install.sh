#!/usr/bin/env bash
# The install step of capkg's GitHub Action (action.yml), kept here so that it runs the same way
# in .ci/run's offline installer test: resolves the version, installs through scripts/install.sh
# (which checks the archive against the SHA-256 the release publishes before unpacking anything),
# and puts capkg on PATH.
#
# What actions/cache keeps between runs is only the checked archive, in a folder per version
# (DIR below). A cache can be written by another workflow of the repository, so nothing in it is
# trusted: on every run install.sh fetches the release's published SHA-256 afresh, uses a kept
# archive only when it matches (and downloads it again when it does not), and unpacks the binary
# the run executes into a folder outside the cache (RUNNER_TEMP).
#
# Environment:
#   CAPKG_VERSION       `0.2.0`, `v0.2.0` or `latest`; empty: the version in Cargo.toml of the
#                       action's own checkout (GITHUB_ACTION_PATH), i.e. the tag the action is pinned to
#   CAPKG_INSTALL_ROOT  where the kept archives are, a folder per version (the action: the
#                       runner's tool cache)
#   CAPKG_RELEASES_URL  where releases are downloaded from (default
#                       https://github.com/capkg/capkg/releases/download; tests serve their own)
#   CAPKG_TARGET        passed to install.sh (the archive's target triple; default this machine's)
#   GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP  the runner's; without them (a shell), the lines are
#                       printed and the binary goes under CAPKG_INSTALL_ROOT/.run
# Usage: action-install.sh resolve   prints version=, dir= and cacheable= lines to GITHUB_OUTPUT
#        action-install.sh install   installs (from DIR's archive when it matches the release's
#                                    SHA-256), puts the binary's folder on PATH
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
    if [ "$version" = latest ]; then
      url=${releases%/download}/latest/download
    else
      url=$releases/v$version
    fi
    # The binary this run executes: unpacked afresh, outside what the cache restores.
    home=${RUNNER_TEMP:-$root/.run}/capkg-$version
    bin=$home/bin
    CAPKG_VERSION=$version CAPKG_DOWNLOAD_URL=$url CAPKG_CACHE_DIR=$root/$version \
      CAPKG_INSTALL_DIR=$home sh "$(dirname "$0")/install.sh"
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
