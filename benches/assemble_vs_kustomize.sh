#!/usr/bin/env bash
# `capkg assemble` against `kubectl kustomize` applying the same namespace and label
# transformation to the same components file, in one run, as a ratio; and capkg's peak memory
# against the input size.
#
#   benches/assemble_vs_kustomize.sh [COMPONENTS_FILE] [RUNS]
#
# Default file: the largest components file of ../shared/corpus (the full upstream corpus, when it
# sits beside the repository; else of testdata/corpus). capkg parses, transforms
# (namespace, labels, RBAC subjects, webhook services, certificates), re-serialises, checksums and
# lints the release; kustomize parses, sets the namespace and labels and re-serialises. capkg's
# lint may refuse a corpus release for its real defects (k0smotron: exit 1, nothing written);
# the work measured is the same either way, less the final write. Diagnostics are printed as
# JSON (`--format json`), so that the cost measured is assembling, not drawing snippets.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
corpus="$here/../shared/corpus"
[ -d "$corpus" ] || corpus="$here/testdata/corpus"
input="${1:-$(ls -S "$corpus"/*/*-components*.yaml | head -1)}"
runs="${2:-5}"
command -v kubectl >/dev/null || { echo "kubectl not installed" >&2; exit 2; }

# The profile a release ships (Cargo.toml's [profile.dist]).
cargo build --profile dist --quiet --manifest-path "$here/Cargo.toml"
capkg="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/dist/capkg"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$input" "$work/components.yaml"
cat > "$work/metadata.yaml" <<'YAML'
apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 0
  contract: v1beta1
YAML
cat > "$work/capkg.yaml" <<'YAML'
provider: {name: bench, type: infrastructure}
components: {file: components.yaml}
metadata: metadata.yaml
namespace: bench-system
YAML
mkdir "$work/kustomize"
cp "$input" "$work/kustomize/components.yaml"
cat > "$work/kustomize/kustomization.yaml" <<'YAML'
namespace: bench-system
labels:
- pairs:
    cluster.x-k8s.io/provider: infrastructure-bench
resources:
- components.yaml
YAML

now() { date +%s.%N; }
best() { sort -g | head -1; }

capkg_times="$work/capkg.times"
kustomize_times="$work/kustomize.times"
for _ in $(seq "$runs"); do
  start=$(now)
  "$capkg" -q --format json assemble --config "$work/capkg.yaml" --out "$work/out" >/dev/null 2>&1 || true
  end=$(now); awk "BEGIN { print $end - $start }" >> "$capkg_times"
  start=$(now)
  kubectl kustomize "$work/kustomize" > "$work/kustomize.out"
  end=$(now); awk "BEGIN { print $end - $start }" >> "$kustomize_times"
done

capkg_best=$(best < "$capkg_times")
kustomize_best=$(best < "$kustomize_times")
size=$(stat -c %s "$input")
printf 'input: %s (%d bytes), %d runs each, best of each\n' "${input#$corpus/}" "$size" "$runs"
printf 'capkg assemble:    %8.1f ms\n' "$(awk "BEGIN { print $capkg_best * 1000 }")"
printf 'kubectl kustomize: %8.1f ms\n' "$(awk "BEGIN { print $kustomize_best * 1000 }")"
printf 'ratio (kustomize / capkg): %.1fx\n' "$(awk "BEGIN { print $kustomize_best / $capkg_best }")"
status=0
"$capkg" -q --format json assemble --config "$work/capkg.yaml" --out "$work/out3" >/dev/null 2>&1 || status=$?
if [ "$status" -eq 0 ]; then
  echo "capkg wrote the release (exit 0)"
else
  echo "capkg refused the release (exit $status): measured up to the lint, without the final write"
fi

if [ -x /usr/bin/time ]; then
  rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }
  capkg_rss=$(rss "$capkg" -q --format json assemble --config "$work/capkg.yaml" --out "$work/out2" || true)
  kustomize_rss=$(rss kubectl kustomize "$work/kustomize")
  printf 'peak RSS: capkg %d KiB (%.1fx the input), kustomize %d KiB\n' \
    "$capkg_rss" "$(awk "BEGIN { print $capkg_rss * 1024 / $size }")" "$kustomize_rss"
fi
