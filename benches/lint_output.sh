#!/usr/bin/env bash
# Human output against JSON output of `capkg lint` on components files of 5, 10 and 20 MB full
# of findings: every Deployment has a `:latest` image and no `manager` container (one warning and
# one error each, about 3,000 findings per MB). Human output must stay linear in the input, within
# 2x of JSON's time. Usage: benches/lint_output.sh [ROUNDS]   (best of ROUNDS runs, default 3)
#
# Prints one line per size: MB, findings, human seconds, JSON seconds, ratio. Exits 1 when human
# output takes more than twice as long as JSON for any size.
set -euo pipefail

rounds="${1:-3}"
here="$(cd "$(dirname "$0")/.." && pwd)"
# The profile a release ships (Cargo.toml's [profile.dist]).
cargo build --quiet --profile dist --bin capkg --manifest-path "$here/Cargo.toml"
bin="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/dist/capkg"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

generate() { # generate MB FOLDER: a release folder whose components file is about MB megabytes
    mkdir -p "$2"
    python3 - "$1" "$2/infrastructure-components.yaml" <<'PY'
import sys
size, path = int(sys.argv[1]) * 1024 * 1024, sys.argv[2]
head = """apiVersion: v1
kind: Namespace
metadata:
  name: capx-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-bench
"""
parts, total, i = [head], len(head), 0
while total < size:
    doc = f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-{i}
  namespace: capx-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-bench
spec:
  template:
    spec:
      containers:
      - name: controller-{i}
        image: registry.example.com/bench/controller:latest
"""
    parts.append(doc)
    total += len(doc)
    i += 1
open(path, "w").write("".join(parts))
PY
    cat > "$2/metadata.yaml" <<'YAML'
apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 0
  minor: 1
  contract: v1beta1
YAML
}

best() { # best wall time in seconds of "$@" over $rounds runs; lint exits 1 (errors found)
    local best=""
    for _ in $(seq "$rounds"); do
        local t0 t1 code=0
        t0=$(date +%s%N)
        "$@" > /dev/null || code=$?
        t1=$(date +%s%N)
        [ "$code" -le 1 ] || { echo "failed ($code): $*" >&2; exit 1; }
        local t=$(( t1 - t0 ))
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
    done
    python3 -c "print(f'{$best / 1e9:.2f}')"
}

status=0
printf '%4s  %8s  %8s  %8s  %6s\n' MB findings human json ratio
for mb in 5 10 20; do
    folder="$work/release-$mb"
    generate "$mb" "$folder"
    findings=$("$bin" --format json lint "$folder" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["diagnostics"]))' || true)
    human=$(best "$bin" --color never lint "$folder")
    json=$(best "$bin" --format json lint "$folder")
    ratio=$(python3 -c "print(f'{$human / max($json, 0.01):.2f}')")
    printf '%4s  %8s  %8s  %8s  %6s\n' "$mb" "$findings" "$human" "$json" "$ratio"
    if python3 -c "import sys; sys.exit(0 if $human <= 2 * max($json, 0.01) else 1)"; then :; else status=1; fi
done
exit "$status"
