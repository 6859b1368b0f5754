#!/usr/bin/env bash
# `capkg diff` on releases built to find costs that grow with the square (issue 38's goal: the
# 100,000-version release in at most 1 s, peak memory at most 3x the two inputs), beside `capkg
# lint` of the new release.
#
#   benches/diff_large.sh [RUNS] [CORPUS]
#
# Three pairs of releases, each in a local repository layout (`infrastructure-bench/v1.0.0`,
# `v1.1.0`), the newer with one change so that the comparison runs and reports:
# - `versions-100k`: one CRD of 100,000 versions (`served`, `storage`, no schema), 5.9 MB; the
#   newer stops serving the first. Before issue 38, 52 s and more (every version looked up by a
#   scan of all, every pair of served versions visited).
# - `served-6k`: one CRD of 6,000 served versions, each with a small schema whose `maxLength` is
#   lower than the previous version's (so every pair of versions is incompatible, in both
#   releases), 1.6 MB; the newer gives one version's field a `minLength`. Before issue 38, every
#   pair's schemas were compared and every pair's difference kept (18 million), and capkg ran
#   out of memory.
# - `aws`: the corpus's AWS components (1.2 MB), as `diff_vs_lint.sh` builds it: a retagged image,
#   one CRD version unserved. The realistic shape, for the memory ratio.
# Timing is `interleaved.py`'s (RUNS rounds, default 7), with lint of the newer release as the
# reference; peak RSS is `/usr/bin/time -f %M` of one run, against the two components files'
# sizes. Needs `time` (apt-get install time).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-7}"
corpus="${2:-/work/shared/corpus}"
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed (apt-get install time)" >&2; exit 2; }

. "$here/benches/builds.sh"
capkg="${builds[0]#*:}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

generate() { # generate CASE FOLDER: both releases of CASE under FOLDER/infrastructure-bench
    python3 - "$1" "$2" "$corpus" <<'PY'
import os, re, sys
case, folder, corpus = sys.argv[1:]
label = "infrastructure-bench"
metadata = """apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 0
  contract: v1beta1
- major: 1
  minor: 1
  contract: v1beta1
"""
head = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.infrastructure.cluster.x-k8s.io
  labels:
    cluster.x-k8s.io/provider: infrastructure-bench
spec:
  group: infrastructure.cluster.x-k8s.io
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
  versions:
"""
schema = """    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              name:
                type: string
"""

def versions(count, newer):
    parts = [head]
    for i in range(1, count + 1):
        served = "false" if newer and case == "versions-100k" and i == 1 else "true"
        parts.append(f"  - name: v1alpha{i}\n    served: {served}\n    storage: {'true' if i == count else 'false'}\n")
        if case == "served-6k":
            # Each version's limit lower than the one before: every pair of versions is
            # incompatible already (the old release too), the worst case for pairwise checks.
            text = schema.replace("type: string\n", f"type: string\n                maxLength: {100_000 - i}\n")
            if newer and i == count // 2:
                text = text.replace("type: string\n", "type: string\n                minLength: 1\n")
            parts.append(text)
    return "".join(parts)

for version, newer in (("v1.0.0", False), ("v1.1.0", True)):
    out = os.path.join(folder, label, version)
    os.makedirs(out)
    if case == "aws":
        aws = os.path.join(corpus, "infrastructure-aws")
        text = open(os.path.join(aws, "infrastructure-components.yaml")).read()
        meta = open(os.path.join(aws, "metadata.yaml")).read()
        if newer:
            text = re.sub(r"(image: \S+):\S+", r"\1:v1.1.0", text, count=1)
            text = text.replace("served: true", "served: false", 1)
    else:
        text = versions(100_000 if case == "versions-100k" else 6_000, newer)
        meta = metadata
    open(os.path.join(out, "infrastructure-components.yaml"), "w").write(text)
    open(os.path.join(out, "metadata.yaml"), "w").write(meta)
PY
}

printf '%-14s %9s  %12s %12s %11s  %9s %9s %11s\n' \
    case input_KiB lint_warm_ms diff_warm_ms diff_cpu_ms lint_KiB diff_KiB diff/inputs
for case in versions-100k served-6k aws; do
    if [ "$case" = aws ] && [ ! -f "$corpus/infrastructure-aws/infrastructure-components.yaml" ]; then
        echo "$case: no AWS components in $corpus, skipped" >&2
        continue
    fi
    folder="$work/$case"
    generate "$case" "$folder"
    old="$folder/infrastructure-bench/v1.0.0"
    new="$folder/infrastructure-bench/v1.1.0"
    input_kib=$(( ($(stat -c %s "$old/infrastructure-components.yaml") + $(stat -c %s "$new/infrastructure-components.yaml")) / 1024 ))
    # Each command once, checked: the diff reports (exit 1) or passes (exit 0), never fails.
    code=0
    "$capkg" diff "$old" "$new" > "$work/diff.txt" 2>&1 || code=$?
    [ "$code" -le 1 ] || { cat "$work/diff.txt" >&2; exit 2; }
    cat > "$work/spec.json" <<JSON
{
  "lint": ["$capkg", "lint", "$new", "--version", "v1.1.0", "--format", "json"],
  "diff": ["$capkg", "diff", "$old", "$new", "--format", "json"]
}
JSON
    table="$(python3 "$here/benches/interleaved.py" "$runs" lint "$work/spec.json")"
    # interleaved.py's columns: tool, cold and warm wall medians, CPU median, ratios.
    lint_ms="$(awk '$1 == "lint" { print $3 }' <<< "$table")"
    diff_ms="$(awk '$1 == "diff" { print $3 }' <<< "$table")"
    diff_cpu="$(awk '$1 == "diff" { print $4 }' <<< "$table")"
    peak() {
        /usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2>&1 || true
        tail -1 "$work/rss"
    }
    lint_kib="$(peak "$capkg" lint "$new" --version v1.1.0 --format json)"
    diff_kib="$(peak "$capkg" diff "$old" "$new" --format json)"
    ratio="$(awk "BEGIN { printf \"%.2f\", $diff_kib / $input_kib }")"
    printf '%-14s %9d  %12s %12s %11s  %9d %9d %10sx\n' "$case" "$input_kib" "$lint_ms" \
        "$diff_ms" "$diff_cpu" "$lint_kib" "$diff_kib" "$ratio"
    if [ -n "${VERBOSE:-}" ]; then echo "$table"; fi
    rm -rf "$folder"
done
