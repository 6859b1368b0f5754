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
# The runs are interleaved (capkg render twice, capkg assemble twice, kustomize twice, again RUNS
# times) so that load from other processes falls on all three alike; each figure is the median of
# its runs. The first run of each pair follows another tool (`cold`), the second follows itself
# (`warm`): on this VM a run of 20 to 50 ms that follows an idle moment or a long run of another
# program takes up to twice as long as the same run repeated, which kustomize's 500 ms hide and
# capkg's do not. Printed per tool: both wall times in milliseconds, user+sys CPU milliseconds
# (from /usr/bin/time, over both runs), and the ratios of kustomize's wall time to capkg's, cold
# to cold and warm to warm. kustomize uses both cores; on a shared machine the CPU column is the
# steadier before/after figure for capkg itself. A `harness` row times `true` the same way: what
# the measuring itself (date, /usr/bin/time, fork and exec) adds to every wall figure. The ratios
# are of the figures as measured, harness included.
set -euo pipefail

runs="${1:-7}"
here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${2:-$here/../shared/corpus}"
command -v kubectl >/dev/null || { echo "kubectl not installed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed (apt-get install time)" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 2; }

cargo build --release --quiet --bin capkg --manifest-path "$here/Cargo.toml"
capkg="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/capkg"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# No clusterctl config file from this machine: values come from the environment only.
export HOME="$work" XDG_CONFIG_HOME="$work"

aws="$corpus/infrastructure-aws/infrastructure-components.yaml"
largest="$(ls -S "$corpus"/*/*-components*.yaml | head -1)"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# timed NAME CMD...: appends "wall_ms cpu_ms" of one run to $work/NAME.times (output discarded,
# exit status ignored: capkg assemble refuses some corpus releases for their real defects after
# doing all the work but the final write, see benches/assemble_vs_kustomize.sh).
timed() {
    local name="$1"
    shift
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f '%U %S' -o "$work/time.out" "$@" > /dev/null 2>&1 || true
    t1=$(date +%s%N)
    awk -v wall=$(( (t1 - t0) / 1000 )) '{ printf "%.1f %.1f\n", wall / 1000, ($1 + $2) * 1000 }' "$work/time.out" >> "$work/$name.times"
}

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
    rm -f "$work"/*.times
    for _ in $(seq "$runs"); do
        # Each command twice in a row: the first run follows another tool (cold), the second
        # follows itself (warm).
        for run in cold warm; do
            timed "render.$run" "$capkg" render "$dir/release/$base" --provider bench -n bench-system "${vars[@]}"
        done
        for run in cold warm; do
            timed "assemble.$run" "$capkg" -q --format json assemble --config "$dir/release/capkg.yaml" --out "$dir/out"
        done
        for run in cold warm; do
            timed "kustomize.$run" kubectl kustomize "$dir/kustomize"
        done
        for run in cold warm; do
            timed "harness.$run" true
        done
    done
    printf '%s: %s (%d bytes), median of %d interleaved runs\n' "$label" "${input#"$corpus"/}" "$(stat -c %s "$input")" "$runs"
    printf '  %-12s %12s %12s %8s %10s %10s\n' tool cold_wall_ms warm_wall_ms cpu_ms cold_ratio warm_ratio
    local kc kw
    kc=$(cut -d' ' -f1 < "$work/kustomize.cold.times" | median)
    kw=$(cut -d' ' -f1 < "$work/kustomize.warm.times" | median)
    for tool in render assemble kustomize harness; do
        local wc ww c
        wc=$(cut -d' ' -f1 < "$work/$tool.cold.times" | median)
        ww=$(cut -d' ' -f1 < "$work/$tool.warm.times" | median)
        c=$(cat "$work/$tool.cold.times" "$work/$tool.warm.times" | cut -d' ' -f2 | median)
        printf '  %-12s %12.1f %12.1f %8.1f %9.1fx %9.1fx\n' "$tool" "$wc" "$ww" "$c" \
            "$(awk "BEGIN { print $kc / ($wc > 0 ? $wc : 0.1) }")" \
            "$(awk "BEGIN { print $kw / ($ww > 0 ? $ww : 0.1) }")"
    done
}

bench_file aws "$aws"
bench_file largest "$largest"
echo "goals: render >= 20x, assemble >= 30x kubectl kustomize (ratio = kustomize wall / capkg wall)"
