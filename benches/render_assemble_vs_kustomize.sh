#!/usr/bin/env bash
# `capkg render` and `capkg assemble` against `kubectl kustomize`, in one run, as ratios (issue 17's
# goals: render >= 20x, assemble >= 30x), on the AWS components file and on the largest corpus
# components file. Every tool applies the same transformation: namespace `bench-system` and the
# provider label. capkg render also substitutes the file's variables (those without a default are
# set to `v-NAME`, the others take their default); capkg assemble also lints and checksums.
# Image references are made canonical in the copies (`k0s/k0smotron:latest` becomes
# `docker.io/k0s/k0smotron:latest`): clusterctl, and so capkg render, refuses the largest corpus
# file otherwise, before doing most of the work.
#
#   benches/render_assemble_vs_kustomize.sh [RUNS] [CORPUS]     (default 7 runs, ../shared/corpus)
#
# benches/interleaved.py runs and times the commands: each round runs every command twice in a
# row, the first run following another tool (`cold`), the second following itself (`warm`), and
# each round in a new order, so that load from other processes falls on all alike and no command
# always follows the same one; each figure is the median of its runs. On this VM a run of 20 to
# 50 ms that follows an idle moment or a long run of another program (kustomize's exit) takes up
# to twice as long as the same run repeated, which kustomize's 500 ms hide and capkg's do not.
# Printed per tool: both wall times in milliseconds, the median user+sys CPU milliseconds of a
# run, and the ratios of kustomize's wall time to the tool's, cold to cold and warm to warm.
# kustomize uses both cores; on a shared machine the CPU column is the steadier before/after
# figure for capkg itself. A run is timed from its spawn to its exit, in the timing process; the
# `harness` row times `true` the same way: at most what starting and waiting for a process adds to
# every figure (`true` itself is most of it; the ratios include it).
set -euo pipefail

runs="${1:-7}"
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${2:-$here/../shared/corpus}"
command -v kubectl >/dev/null || { echo "kubectl not installed" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 2; }

. "$here/benches/builds.sh"
capkg="${builds[0]#*:}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# No clusterctl config file from this machine: values come from the environment only.
export HOME="$work" XDG_CONFIG_HOME="$work"

aws="$corpus/infrastructure-aws/infrastructure-components.yaml"
largest="$(ls -S "$corpus"/*/*-components*.yaml | head -1)"

bench_file() { # bench_file LABEL FILE
    local label="$1" input="$2" dir="$work/$1"
    mkdir -p "$dir/release" "$dir/kustomize"
    local base
    base="$(basename "$input")"
    sed -E 's#^([[:space:]]*(- )?image: )([a-z0-9-]+/[^ ]+)$#\1docker.io/\3#' "$input" > "$dir/release/$base"
    cp "$dir/release/$base" "$dir/kustomize/$base"
    local type="${base%%-components*}"

    cat > "$dir/release/metadata.yaml" <<'YAML'
apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 0
  contract: v1beta1
YAML
    cat > "$dir/release/capkg.yaml" <<YAML
provider: {name: bench, type: $type}
components: {file: $base}
metadata: metadata.yaml
namespace: bench-system
YAML
    cat > "$dir/kustomize/kustomization.yaml" <<YAML
namespace: bench-system
labels:
- pairs:
    cluster.x-k8s.io/provider: $type-bench
resources:
- $base
YAML
    # Variables without a default get a value; the others keep theirs.
    local vars=()
    while IFS= read -r name; do vars+=(--var "$name=v-$name"); done < <(
        grep -ohE '\$\{ *[A-Za-z_][A-Za-z0-9_]* *\}' "$input" | sed -E 's/^\$\{ *//; s/ *\}$//' | LC_ALL=C sort -u)
    if ! "$capkg" render "$dir/release/$base" --provider bench -n bench-system "${vars[@]}" > "$dir/render.out"; then
        echo "capkg render failed on $input" >&2
        exit 2
    fi
    # The commands, in the order the table prints them; interleaved.py times them.
    python3 - "$dir/tools.json" "$dir" "$base" "${builds[@]}" -- "${vars[@]}" <<'PY'
import json, sys
out, folder, base = sys.argv[1:4]
split = sys.argv.index("--")
builds, variables = sys.argv[4:split], sys.argv[split + 1:]
tools = {}
for build in builds:
    name, binary = build.split(":", 1)
    tools[f"render-{name}"] = [binary, "render", f"{folder}/release/{base}", "--provider", "bench",
                               "-n", "bench-system", *variables]
    tools[f"assemble-{name}"] = [binary, "-q", "--format", "json", "assemble",
                                 "--config", f"{folder}/release/capkg.yaml", "--out", f"{folder}/out"]
tools["kustomize"] = ["kubectl", "kustomize", f"{folder}/kustomize"]
tools["harness"] = ["true"]
with open(out, "w", encoding="utf-8") as spec:
    json.dump(tools, spec)
PY
    printf '%s: %s (%d bytes), median of %d interleaved runs\n' "$label" "${input#"$corpus"/}" "$(stat -c %s "$input")" "$runs"
    python3 "$here/benches/interleaved.py" "$runs" kustomize "$dir/tools.json"
}

bench_file aws "$aws"
bench_file largest "$largest"
echo "goals, for the binary a release ships (${builds[0]%%:*}): render >= 20x, assemble >= 30x kubectl kustomize (ratio = kustomize wall / capkg wall)"
