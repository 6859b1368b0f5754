#!/usr/bin/env bash
# The release job on the example provider as CI runs it, whole-process wall time:
#   installer: the action's install step (scripts/action-install.sh: the archive and its
#              checksum from a local server standing in for GitHub, checksum check, unpack) into
#              an empty tool cache, then `capkg release --target local`; RUNS times, each from
#              scratch;
#   compile:   (with --cargo-install) `cargo install --locked --path .` into an empty root with a
#              fresh target folder, then the same release; once (minutes).
# Needs target/distrib from `dist build --artifacts=host` (scripts/installer-test.sh makes it).
# Usage: benches/release_job.sh [--cargo-install] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
compile=false
if [ "${1:-}" = --cargo-install ]; then
  compile=true
  shift
fi
runs=${1:-5}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
ls target/distrib/capkg-*.tar.xz target/distrib/capkg-installer.sh >/dev/null

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/srv/v$version"
cp target/distrib/capkg-*.tar.xz target/distrib/capkg-*.tar.xz.sha256 target/distrib/capkg-installer.sh "$work/srv/v$version/"
python3 scripts/serve-dir.py "$work/srv" "$work/port" 3600 2>/dev/null &
server_pid=$!
for _ in $(seq 100); do [ -f "$work/port" ] && break; sleep 0.1; done
releases="http://127.0.0.1:$(cat "$work/port")"
# The archive dist built for this machine (install.sh would pick the static musl build on Linux).
archive=$(basename "$(ls target/distrib/capkg-*.tar.xz | head -n 1)" .tar.xz)
export CAPKG_TARGET=${archive#capkg-}

# A provider checkout as CI has it: the example provider, committed and tagged.
provider() {
  rm -rf "$work/provider"
  cp -R testdata/example-provider "$work/provider"
  git -C "$work/provider" init -q
  git -C "$work/provider" add -A
  git -C "$work/provider" -c user.name=bench -c user.email=bench@example.com commit -qm release
  git -C "$work/provider" tag v0.1.0
}
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }

times=()
for run in $(seq "$runs"); do
  provider
  rm -rf "$work/tool-cache"
  start=$(now)
  (
    export CAPKG_RELEASES_URL=$releases CAPKG_INSTALL_ROOT="$work/tool-cache" HOME="$work/home"
    CAPKG_VERSION=$version "$root/scripts/action-install.sh" install
    cd "$work/provider"
    "$work/tool-cache/.run/capkg-$version/bin/capkg" release --target local
  ) >"$work/installer-$run.log" 2>&1
  end=$(now)
  grep -q "^Published\.$" "$work/installer-$run.log" || { cat "$work/installer-$run.log"; exit 1; }
  times+=("$(elapsed "$start" "$end")")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
echo "installer + release: runs ${times[*]} s; median $median s"

if $compile; then
  provider
  start=$(now)
  (
    unset CARGO_TARGET_DIR
    cargo install --quiet --locked --path "$root" --root "$work/cargo-root"
    cd "$work/provider"
    "$work/cargo-root/bin/capkg" release --target local
  ) >"$work/compile.log" 2>&1
  end=$(now)
  grep -q "^Published\.$" "$work/compile.log" || { cat "$work/compile.log"; exit 1; }
  compiled=$(elapsed "$start" "$end")
  echo "cargo install + release: $compiled s"
  python3 -c "import sys; print(f'speed-up: {float(sys.argv[1]) / float(sys.argv[2]):.0f}x')" "$compiled" "$median"
fi
