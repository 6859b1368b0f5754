#!/usr/bin/env bash
# Peak resident memory of `capkg lint` and `capkg assemble` on components files of about 20 MB and
# 100 MB, against the input size (issue 17's goal: at most 3x the input).
#
#   benches/peak_rss.sh [--corpus DIR] [SIZES_MB...]
#       (default: 20 100; needs /usr/bin/time: apt-get install time; the B/entry column needs
#       PyYAML: apt-get install python3-yaml)
#
# Real providers' shapes, and one stress case. A real shape is a provider's components file
# repeated to the size, each copy made its own: its kinds and object names (so that the file
# reads as one provider's and lint finds what it finds in the original), and its prose (common
# words such as `the` and `of` numbered), so that the long texts, mostly CustomResourceDefinitions'
# descriptions, repeat across copies no more than they repeat within a real file (the loader
# gives equal texts one copy; plain repetition would make that look better than it is). By
# default three, from testdata/corpus:
# - `core`: core Cluster API's (1.2 MB, mostly CRDs), one mapping entry per 94 bytes;
# - `ipam`: the in-cluster IPAM provider's, the densest of the corpus's 16 providers: one mapping
#   entry per 48 bytes;
# - `helm`: the Helm add-on provider's, the next densest: one per 57.
# With `--corpus DIR`, every provider of DIR instead (a folder per provider, named
# `{type}-{name}`, with its `{type}-components.yaml`): `--corpus testdata/corpus` takes the eight
# kept there; benches/README.md has the figures of all 16.
#
# The stress case, `dense` (default run only): a Namespace, then Deployments (one `manager`
# container, a pinned image, args, env, probes) alternating with ConfigMaps holding a literal
# block, all labelled: one mapping entry per 27 bytes, nearly twice as many nodes per byte as the
# densest provider. It is reported, not judged: capkg keeps a tree of the whole file, so the
# peak grows with the mapping entries, and any file dense enough is over 3x; the line lies well
# below the corpus's providers (benches/README.md, "Memory and density").
#
# Peak RSS is read with `/usr/bin/time -f %M` (KiB), for the binary a release ships and the glibc
# one (benches/builds.sh). `B/entry` is the input's bytes per mapping entry, counted with PyYAML in
# its first 2 MB. Exits 1 when a real shape's figure is above 3x the input.
set -euo pipefail

corpus=""
if [ "${1:-}" = "--corpus" ]; then
    corpus="$(cd "${2:?--corpus needs a folder}" && pwd)"
    shift 2
fi
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

generate_repeated() { # generate_repeated PROVIDER_FOLDER MB FOLDER
    local folder="${1##*/}" type name file
    type="$(provider_type "$folder")"
    name="${folder#"$type"-}"
    file="$type-components.yaml"
    mkdir -p "$3"
    python3 - "$2" "$1/$file" "$3/$file" <<'PY'
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
    kind = re.search(r"(?m)^    kind: (\S+)$", document)
    plural = re.search(r"(?m)^    plural: (\S+)$", document)
    if re.search(r"(?m)^kind: CustomResourceDefinition$", document) and kind and plural:
        kind, plural = kind.group(1), plural.group(1)
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
    cp "$1/metadata.yaml" "$3/metadata.yaml"
    cat > "$3/capkg.yaml" <<YAML
provider: {name: $name, type: $type}
components: {file: $file}
metadata: metadata.yaml
YAML
}

provider_type() { # provider_type FOLDER_NAME: the clusterctl type its name starts with
    local type
    for type in control-plane runtime-extension infrastructure bootstrap core ipam addon; do
        case "$1" in "$type"-*) echo "$type"; return ;; esac
    done
    echo "no provider type in the folder name $1" >&2
    exit 2
}

density() { # density FILE: bytes per mapping entry in its first 2 MB (whole documents), or -
    python3 - "$1" <<'PY'
import sys
try:
    import yaml
except ImportError:
    print("-")
    sys.exit()
text = open(sys.argv[1], encoding="utf-8").read(2_000_000)
if len(text) == 2_000_000:
    text = text[: text.rfind("\n---") + 1]
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
entries, stack = 0, list(yaml.compose_all(text, Loader=loader))
while stack:
    node = stack.pop()
    if isinstance(node, yaml.MappingNode):
        entries += len(node.value)
        stack.extend(n for pair in node.value for n in pair)
    elif isinstance(node, yaml.SequenceNode):
        stack.extend(node.value)
print(round(len(text.encode()) / entries) if entries else "-")
PY
}

peak() { # peak KiB of "$@" (exit 1, findings, is accepted; anything else fails the bench)
    local code=0
    /usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2>&1 || code=$?
    [ "$code" -le 1 ] || { echo "failed ($code): $*" >&2; exit 2; }
    tail -1 "$work/rss"
}

if [ -n "$corpus" ]; then
    inputs=()
    for folder in "$corpus"/*/; do
        folder="${folder%/}"
        type="$(provider_type "${folder##*/}")"
        [ -f "$folder/$type-components.yaml" ] && inputs+=("$folder")
    done
else
    inputs=("$here/testdata/corpus/core-cluster-api" "$here/testdata/corpus/ipam-in-cluster"
        "$here/testdata/corpus/addon-helm" dense)
fi

status=0
printf '%-34s %4s %-6s %7s %10s  %10s %6s  %12s %6s\n' \
    input MB build B/entry input_KiB lint_KiB ratio assemble_KiB ratio
for input in "${inputs[@]}"; do
    label="${input##*/}"
    [ -z "$corpus" ] && case "$label" in
        core-cluster-api) label=core ;; ipam-in-cluster) label=ipam ;; addon-helm) label=helm ;;
    esac
    for mb in "${sizes[@]}"; do
        folder="$work/input-$mb"
        if [ "$input" = dense ]; then
            generate_dense "$mb" "$folder"
        else
            generate_repeated "$input" "$mb" "$folder"
        fi
        file=("$folder"/*-components.yaml)
        input_kib=$(( $(stat -c %s "${file[0]}") / 1024 ))
        per_entry="$(density "${file[0]}")"
        for build in "${builds[@]}"; do
            bin="${build#*:}"
            lint=$(peak "$bin" --format json lint "$folder")
            assemble=$(peak "$bin" -q --format json assemble --config "$folder/capkg.yaml" --out "$work/out")
            lr=$(awk "BEGIN { printf \"%.2f\", $lint / $input_kib }")
            ar=$(awk "BEGIN { printf \"%.2f\", $assemble / $input_kib }")
            note=""
            if [ "$input" = dense ]; then
                note="  (stress case, not judged)"
            elif awk "BEGIN { exit !($lr > 3 || $ar > 3) }"; then
                note="  over 3x"
                status=1
            fi
            printf '%-34s %4s %-6s %7s %10d  %10d %5sx  %12d %5sx%s\n' "$label" "$mb" \
                "${build%%:*}" "$per_entry" "$input_kib" "$lint" "$lr" "$assemble" "$ar" "$note"
            rm -rf "$work/out"
        done
        rm -rf "$folder"
    done
done
exit "$status"
