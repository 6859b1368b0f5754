#!/usr/bin/env bash
# `capkg diff` of two AWS releases against `capkg lint` of one (issue 31: diff within 3x lint).
#
#   benches/diff_vs_lint.sh [RUNS] [CORPUS]
#
# Both releases are the corpus's AWS `metadata.yaml` and `infrastructure-components.yaml`
# (1.2 MB) in a local repository layout (`infrastructure-aws/v2.9.0`, `v2.10.0`); the newer one
# has its manager image retagged and one CRD version unserved, so the diff reports changes
# and a finding. lint is run on the newer folder with its version. Timing is `interleaved.py`'s,
# with lint as the reference: its ratio column is lint's median over diff's, so diff is within
# 3x lint when the ratio is at least 0.33.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-20}"
corpus="${2:-/work/shared/corpus}"
aws="$corpus/infrastructure-aws"
[ -f "$aws/infrastructure-components.yaml" ] || { echo "no AWS components in $aws" >&2; exit 2; }

. "$here/benches/builds.sh"
capkg="${builds[0]#*:}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
old="$work/infrastructure-aws/v2.9.0"
new="$work/infrastructure-aws/v2.10.0"
mkdir -p "$old" "$new"
for dir in "$old" "$new"; do
    cp "$aws/metadata.yaml" "$aws/infrastructure-components.yaml" "$dir/"
done
python3 - "$new/infrastructure-components.yaml" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = re.sub(r"(image: \S+):\S+", r"\1:v2.10.0", text, count=1)
text = text.replace("served: true", "served: false", 1)
open(path, "w").write(text)
PY
# Each command once, checked, before timing.
"$capkg" diff "$old" "$new" > "$work/diff.txt" || [ $? -eq 1 ]
"$capkg" lint "$new" --version v2.10.0 > /dev/null || true
grep -q "capkg diff: infrastructure-aws v2.9.0 -> v2.10.0" "$work/diff.txt"

cat > "$work/spec.json" <<JSON
{
  "lint": ["$capkg", "lint", "$new", "--version", "v2.10.0", "--color", "never"],
  "diff": ["$capkg", "diff", "$old", "$new", "--color", "never"]
}
JSON
python3 "$here/benches/interleaved.py" "$runs" lint "$work/spec.json"
