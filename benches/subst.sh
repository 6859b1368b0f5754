#!/usr/bin/env bash
# Substitution against GNU envsubst (gettext) on the same input, in the same run (issue 17's
# goal: `capkg subst` in clusterctl mode at least 2x GNU envsubst). The input is every
# cluster-template*.yaml of the corpus concatenated 20 times: about 17 MB from the 16
# providers' files (../shared/corpus, when it sits beside the repository), 8 MB from the eight
# testdata/corpus keeps.
#
#   benches/subst.sh [ROUNDS] [CORPUS]      (default 7 rounds; needs GNU envsubst:
#                                            apt-get install gettext-base)
#
# Every variable of the templates is set, so the clusterctl path (pre-pass, inventory, missing
# check, evaluation) runs to the end. The semantics differ (GNU envsubst also expands $NAME and
# knows no defaults); this measures throughput only. Each tool reads the file (envsubst on its
# standard input) and writes to /dev/null; benches/interleaved.py runs them interleaved and
# times each run from spawn to exit, CPU from wait4 in microseconds, for the binary a release
# ships and the glibc one (benches/builds.sh). Printed: median wall and CPU milliseconds, the
# ratios of envsubst's wall time to each tool's (cold to cold, warm to warm), and throughputs.
#
# Medians of microsecond timings, because `/usr/bin/time`'s hundredths of a second cannot time a
# capkg run of 10 to 40 ms, and the fastest of a few runs on a shared machine measures the
# scheduler's luck (benches/README.md, "How to measure on this machine").
set -euo pipefail

rounds="${1:-7}"
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${2:-$here/../shared/corpus}"
[ -d "$corpus" ] || corpus="$here/testdata/corpus"
command -v envsubst >/dev/null || { echo "GNU envsubst not found (apt-get install gettext-base)" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 2; }

. "$here/benches/builds.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# No clusterctl config file from this machine: values come from the environment only.
export HOME="$work" XDG_CONFIG_HOME="$work"

input="$work/input.yaml"
mapfile -t templates < <(find "$corpus" -type f -name 'cluster-template*.yaml' | LC_ALL=C sort)
[ ${#templates[@]} -gt 0 ] || { echo "no cluster-template*.yaml under $corpus" >&2; exit 2; }
# One template uses the legacy `${ VM_SSH_KEYS }` spacing, which only clusterctl's pre-pass
# accepts; write it as `${VM_SSH_KEYS}` so that drone's plain Eval parses the input too.
for _ in $(seq 20); do cat "${templates[@]}"; done |
    sed -E 's/\$\{[ \t]+([A-Za-z0-9_]+)[ \t]*\}/${\1}/g' > "$input"
bytes=$(stat -c %s "$input")

# Set every variable the templates use.
while IFS= read -r name; do export "$name=v-$name"; done < <(
    grep -ohE '\$\{ *[A-Za-z_][A-Za-z0-9_]*' "$input" | sed -E 's/^\$\{ *//' | LC_ALL=C sort -u)

# interleaved.py ignores exit codes, so each command runs once here first: a capkg run that
# stopped at an error would otherwise be timed as a fast one.
envsubst < "$input" > "$work/gnu.out"
for build in "${builds[@]}"; do
    bin="${build#*:}"
    for mode in clusterctl plain; do
        flags=()
        [ "$mode" = plain ] && flags=(--plain)
        if ! "$bin" subst "${flags[@]}" "$input" > "$work/capkg.out"; then
            echo "capkg subst ($mode, $bin) failed on the input" >&2
            exit 2
        fi
        [ -s "$work/capkg.out" ] || { echo "capkg subst ($mode, $bin) wrote nothing" >&2; exit 2; }
    done
done

python3 - "$work/tools.json" "$input" "${builds[@]}" <<'PY'
import json, sys
out, input_path, builds = sys.argv[1], sys.argv[2], sys.argv[3:]
tools = {"envsubst": {"argv": ["envsubst"], "stdin": input_path}}
for build in builds:
    name, binary = build.split(":", 1)
    tools[f"subst-{name}"] = [binary, "subst", input_path]
    tools[f"plain-{name}"] = [binary, "subst", "--plain", input_path]
with open(out, "w", encoding="utf-8") as spec:
    json.dump(tools, spec)
PY
printf 'input: %d bytes (%.1f MB), %d cluster templates x 20, median of %d interleaved runs\n' \
    "$bytes" "$(awk "BEGIN { print $bytes / 1e6 }")" "${#templates[@]}" "$rounds"
python3 "$here/benches/interleaved.py" "$rounds" envsubst "$work/tools.json" | tee "$work/table"
# Throughput of each tool's median warm run, in MB/s.
awk -v bytes="$bytes" 'NR > 1 { printf "  %-16s %8.0f MB/s\n", $1, bytes / 1e3 / $3 }' "$work/table"
echo "goal, for the binary a release ships (${builds[0]%%:*}): clusterctl mode >= 2x GNU envsubst" \
    "(subst-*: capkg subst, clusterctl mode; plain-*: capkg subst --plain, drone/envsubst's Eval)"
