#!/usr/bin/env bash
# Throughput of capkg's substitution engine against GNU envsubst (gettext) on the same input,
# in the same run. The input is every cluster-template*.yaml of ../shared/corpus (the full upstream
# corpus, when it sits beside the repository; else testdata/corpus) concatenated 20 times (about
# 17 MB, or 8 MB). Usage: benches/subst.sh [ROUNDS]   (needs GNU envsubst: apt-get install gettext-base)
#
# Both tools read the file and write to /dev/null; each is run ROUNDS times and the fastest run
# counts. The semantics differ (GNU envsubst also expands $NAME and knows no defaults); this
# measures throughput only. Every variable of the templates is set, so the clusterctl path
# (pre-pass, inventory, missing check, evaluation) runs to the end.
set -euo pipefail

rounds="${1:-7}"
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$here/../shared/corpus"
[ -d "$corpus" ] || corpus="$here/testdata/corpus"
command -v envsubst >/dev/null || { echo "GNU envsubst not found (apt-get install gettext-base)" >&2; exit 1; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }

cargo build --quiet --release --bin capkg --manifest-path "$here/Cargo.toml"
bin="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/capkg"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
input="$work/input.yaml"
mapfile -t templates < <(find "$corpus" -type f -name 'cluster-template*.yaml' | LC_ALL=C sort)
# One template uses the legacy `${ VM_SSH_KEYS }` spacing, which only clusterctl's pre-pass
# accepts; write it as `${VM_SSH_KEYS}` so that drone's plain Eval parses the input too.
for _ in $(seq 20); do cat "${templates[@]}"; done | sed -E 's/\$\{[ \t]+([A-Za-z0-9_]+)[ \t]*\}/${\1}/g' > "$input"
bytes=$(stat -c %s "$input")

# Set every variable the templates use.
while IFS= read -r name; do export "$name=v-$name"; done < <(
    grep -ohE '\$\{ *[A-Za-z_][A-Za-z0-9_]*' "$input" | sed -E 's/^\$\{ *//' | LC_ALL=C sort -u)

best() { # best wall time in seconds of "$@" over $rounds runs
    local best=""
    for _ in $(seq "$rounds"); do
        local t0 t1
        t0=$(date +%s%N)
        if ! "$@" > /dev/null; then echo "failed: $*" >&2; exit 1; fi
        t1=$(date +%s%N)
        local dt=$((t1 - t0))
        if [ -z "$best" ] || [ "$dt" -lt "$best" ]; then best=$dt; fi
    done
    echo "$best"
}

gnu_ns=$(best sh -c 'envsubst < "$0"' "$input")
# No clusterctl config file from this machine: values come from the environment only.
export HOME="$work" XDG_CONFIG_HOME="$work"
plain_ns=$(best "$bin" subst --plain "$input")
ctl_ns=$(best "$bin" subst "$input")

python3 - "$bytes" "$gnu_ns" "$plain_ns" "$ctl_ns" "$rounds" <<'PY'
import sys
b, gnu, plain, ctl, rounds = int(sys.argv[1]), *map(int, sys.argv[2:5]), sys.argv[5]
mbs = lambda ns: b / 1e6 / (ns / 1e9)
print(f"input: {b} bytes ({b/1e6:.1f} MB), best of {rounds} runs, output to /dev/null")
print(f"GNU envsubst                 {mbs(gnu):8.1f} MB/s  ({gnu/1e6:.1f} ms)")
print(f"capkg subst (drone Eval)     {mbs(plain):8.1f} MB/s  ({plain/1e6:.1f} ms)  x{gnu/plain:.2f} vs GNU")
print(f"capkg subst (clusterctl)     {mbs(ctl):8.1f} MB/s  ({ctl/1e6:.1f} ms)  x{gnu/ctl:.2f} vs GNU")
PY
