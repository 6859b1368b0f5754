#!/usr/bin/env bash
# Regenerates completions/ from the command line definition.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin=target/debug/capkg
"$bin" completions bash > completions/capkg.bash
"$bin" completions zsh > completions/_capkg
"$bin" completions fish > completions/capkg.fish
"$bin" completions powershell > completions/_capkg.ps1
"$bin" completions elvish > completions/capkg.elv
