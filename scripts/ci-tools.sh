#!/usr/bin/env bash
# Installs the tools CI runs exactly as the repository pins them, and prints where they are:
#   scripts/ci-tools.sh pip NAME   a virtual environment holding .ci/requirements/NAME.txt, every
#                                  package checked against the hashes listed there
#                                  (`--require-hashes`, wheels only: nothing is built or run at
#                                  install time); prints its bin folder
#   scripts/ci-tools.sh npm        .ci/npm/package-lock.json installed with `npm ci` (each package
#                                  checked against its integrity hash, install scripts off);
#                                  prints its node_modules folder
# Each install is kept under CAPKG_TOOLS_CACHE (default ~/.cache/capkg/tools) in a folder named
# after the lock file's hash, so a changed pin installs afresh and an unchanged one is reused.
# Never the system interpreter's packages. Usage: PATH="$(scripts/ci-tools.sh pip ci-tools):$PATH"
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${CAPKG_TOOLS_CACHE:-$HOME/.cache/capkg/tools}
key() { sha256sum "$@" | sha256sum | cut -c1-16; }

case ${1:-} in
  pip)
    lock=.ci/requirements/${2:?usage: scripts/ci-tools.sh pip NAME}.txt
    dir=$cache/$2-$(key "$lock")
    if [ ! -f "$dir/.installed" ]; then
      rm -rf "$dir"
      python3 -m venv "$dir" >&2
      "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
        --only-binary=:all: -r "$lock" >&2
      touch "$dir/.installed"
    fi
    echo "$dir/bin"
    ;;
  npm)
    dir=$cache/npm-$(key .ci/npm/package.json .ci/npm/package-lock.json)
    if [ ! -f "$dir/.installed" ]; then
      rm -rf "$dir"
      mkdir -p "$dir"
      cp .ci/npm/package.json .ci/npm/package-lock.json "$dir/"
      npm ci --silent --prefix "$dir" --ignore-scripts --no-audit --no-fund >&2
      touch "$dir/.installed"
    fi
    echo "$dir/node_modules"
    ;;
  *)
    echo "usage: scripts/ci-tools.sh pip NAME | npm" >&2
    exit 2
    ;;
esac
