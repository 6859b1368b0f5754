#!/usr/bin/env bash
# Peak resident memory of `capkg lint` and `capkg assemble` on components files of about 20 MB and
# 100 MB, against the input size (issue 17's goal: at most 3x the input).
#
#   benches/peak_rss.sh [SIZES_MB...]     (default: 20 100; needs /usr/bin/time: apt-get install time)
#
# Four inputs of each size. Three repeat a real provider's components file, each copy made its
# own: its kinds and object names (so that the file reads as one provider's and lint finds what it
# finds in the original), and its prose (common words such as `the` and `of` numbered), so that
# the long texts, mostly CustomResourceDefinitions' descriptions, repeat across copies no more
# than they repeat within a real file (the loader gives equal texts one copy; plain repetition
# would make that look better than it is):
# - `core`: core Cluster API's (testdata/corpus/core-cluster-api, 1.2 MB, mostly CRDs); one
#   mapping entry per 94 bytes;
# - `ipam`: the in-cluster IPAM provider's (testdata/corpus/ipam-in-cluster), the densest of the
#   corpus's 16 providers: one mapping entry per 48 bytes;
# - `helm`: the Helm add-on provider's (testdata/corpus/addon-helm), the next densest: one per 57.
# - `dense`: a Namespace, then Deployments (one `manager` container, a pinned image, args, env,
#   probes) alternating with ConfigMaps holding a literal block, all labelled. One mapping entry
#   per 27 bytes, nearly twice as many nodes per byte as the densest real provider: a stress
#   case, not a provider's shape.
# Peak RSS is read with `/usr/bin/time -f %M` (KiB), for the binary a release ships and the glibc
# one (benches/builds.sh). Exits 1 when a figure is above 3x the input.
set -euo pipefail

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(20 100)
here="$(cd "$(dirname "$0")/.." && pwd)"
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed (apt-get install time)" >&2; exit 2; }
. "$here/benches/builds.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work" XDG_CONFIG_HOME="$work"

generate_dense() { # generate_dense MB FOLDER
    mkdir -p "$2"
    python3 - "$1" "$2/infrastructure-components.yaml" <<'PY'
import sys
size, path = int(sys.argv[1]) * 1000 * 1000, sys.argv[2]
head = """apiVersion: v1
kind: Namespace
metadata:
  labels:
    cluster.x-k8s.io/provider: infrastructure-bench
  name: capb-system
"""
parts, total, i = [head], len(head), 0
while total < size:
    doc = f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    cluster.x-k8s.io/provider: infrastructure-bench
    control-plane: controller-{i}
  name: controller-{i}
  namespace: capb-system
spec:
  replicas: 1
  selector:
    matchLabels:
      control-plane: controller-{i}
  template:
    metadata:
      labels:
        control-plane: controller-{i}
    spec:
      containers:
      - args:
        - --leader-elect
        - --metrics-bind-addr=localhost:8080
        - --feature-gates=MachinePool=${{EXP_MACHINE_POOL:=false}}
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        image: registry.example.com/bench/controller:v1.2.{i}
        livenessProbe:
          httpGet:
            path: /healthz
            port: healthz
        name: manager
        ports:
        - containerPort: 9443
          name: webhook-server
          protocol: TCP
---
apiVersion: v1
data:
  script.sh: |
    #!/bin/sh
    echo "controller {i} starting"
    exec /manager --v=2
kind: ConfigMap
metadata:
  labels:
    cluster.x-k8s.io/provider: infrastructure-bench
  name: controller-{i}-script
  namespace: capb-system
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
    cat > "$2/capkg.yaml" <<'YAML'
provider: {name: bench, type: infrastructure}
components: {file: infrastructure-components.yaml}
metadata: metadata.yaml
namespace: bench-system
YAML
}

generate_repeated() { # generate_repeated CORPUS_DIR PROVIDER_NAME MB FOLDER
    local source=("$here/testdata/corpus/$1"/*-components.yaml)
    local file="${source[0]##*/}"
    mkdir -p "$4"
    python3 - "$3" "${source[0]}" "$4/$file" <<'PY'
import re, sys
size, source, path = int(sys.argv[1]) * 1000 * 1000, sys.argv[2], sys.argv[3]
documents = [d.strip("\n") + "\n" for d in re.split(r"(?m)^---\s*$", open(source).read()) if d.strip()]
PROSE = re.compile(r"(?<= )(the|of|The|a|to|is|for|and|in|be|if|this|that|or)(?= )")

def copy(document, n):
    """The document as copy `n` has it: its own kinds, names and prose, one Namespace for all."""
    if n == 0:
        return document
    if re.search(r"(?m)^kind: Namespace$", document):
        return None
    document = PROSE.sub(rf"\g<1>{n}", document)
    if re.search(r"(?m)^kind: CustomResourceDefinition$", document):
        kind = re.search(r"(?m)^    kind: (\S+)$", document).group(1)
        plural = re.search(r"(?m)^    plural: (\S+)$", document).group(1)
        new = f"{kind}V{n}"
        document = document.replace(f"name: {plural}.", f"name: {new.lower()}s.")
        document = re.sub(r"(?m)^(    plural: )\S+$", rf"\g<1>{new.lower()}s", document)
        document = re.sub(r"(?m)^(    singular: )\S+$", rf"\g<1>{new.lower()}", document)
        document = re.sub(rf"(?m)^(    kind: ){kind}$", rf"\g<1>{new}", document)
        return re.sub(rf"(?m)^(    listKind: ){kind}List$", rf"\g<1>{new}List", document)
    return re.sub(r"(?m)^(  name: )(\S+)$", rf"\g<1>\g<2>-c{n}", document)

parts, total, n = [], 0, 0
while total < size:
    for document in documents:
        document = copy(document, n)
        if document is not None:
            parts.append(document)
            total += len(document) + 4
    n += 1
open(path, "w").write("---\n".join(parts))
PY
    cp "$here/testdata/corpus/$1/metadata.yaml" "$4/metadata.yaml"
    cat > "$4/capkg.yaml" <<YAML
provider: {name: $2, type: ${file%-components.yaml}}
components: {file: $file}
metadata: metadata.yaml
YAML
}

generate_core() { generate_repeated core-cluster-api cluster-api "$@"; }
generate_ipam() { generate_repeated ipam-in-cluster in-cluster "$@"; }
generate_helm() { generate_repeated addon-helm helm "$@"; }

peak() { # peak KiB of "$@" (exit 1, findings, is accepted; anything else fails the bench)
    local code=0
    /usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2>&1 || code=$?
    [ "$code" -le 1 ] || { echo "failed ($code): $*" >&2; exit 2; }
    tail -1 "$work/rss"
}

status=0
printf '%-6s %5s %-7s %10s  %12s %6s  %12s %6s\n' input MB build input_KiB lint_KiB ratio assemble_KiB ratio
for kind in core ipam helm dense; do
    for mb in "${sizes[@]}"; do
        folder="$work/$kind-$mb"
        "generate_$kind" "$mb" "$folder"
        input_kib=$(( $(stat -c %s "$folder"/*-components.yaml) / 1024 ))
        for build in "${builds[@]}"; do
            bin="${build#*:}"
            lint=$(peak "$bin" --format json lint "$folder")
            assemble=$(peak "$bin" -q --format json assemble --config "$folder/capkg.yaml" --out "$work/out")
            lr=$(awk "BEGIN { printf \"%.2f\", $lint / $input_kib }")
            ar=$(awk "BEGIN { printf \"%.2f\", $assemble / $input_kib }")
            printf '%-6s %5s %-7s %10d  %12d %5sx  %12d %5sx\n' "$kind" "$mb" "${build%%:*}" "$input_kib" "$lint" "$lr" "$assemble" "$ar"
            awk "BEGIN { exit !($lr > 3 || $ar > 3) }" && status=1
            rm -rf "$work/out"
        done
        rm -rf "$folder"
    done
done
exit "$status"
