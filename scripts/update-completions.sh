#!/usr/bin/env bash
# Regenerates completions/ from the command line definition.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
# The binary cargo built, wherever CARGO_TARGET_DIR puts it.
bin="${CARGO_TARGET_DIR:-target}/debug/capkg"
"$bin" completions bash > completions/capkg.bash
"$bin" completions zsh > completions/_capkg
"$bin" completions fish > completions/capkg.fish
"$bin" completions powershell > completions/_capkg.ps1
"$bin" completions elvish > completions/capkg.elv
