#!/bin/sh
# Installs a capkg release's prebuilt binary, checking before anything runs: it downloads this
# machine's archive and the SHA-256 the release publishes beside it (`ARCHIVE.sha256`), compares
# them, and only then unpacks the `capkg` binary into place. Nothing downloaded is run (not even
# the release's own installer) and nothing is installed when the check fails or cannot be made
# (neither `sha256sum` nor `shasum` on the machine).
#
#   curl --proto '=https' --tlsv1.2 -LsSf -o install.sh https://raw.githubusercontent.com/capkg/capkg/v0.1.0/scripts/install.sh
#   CAPKG_VERSION=0.1.0 sh install.sh
#
# Environment:
#   CAPKG_VERSION       `0.1.0`, `v0.1.0` or `latest` (the default)
#   CAPKG_INSTALL_DIR   installs to DIR/bin/capkg (default: $CARGO_HOME, else ~/.cargo, as the
#                       release's own installer does); no shell profile is changed
#   CAPKG_TARGET        the archive to install, a target triple (default: this machine's; Linux
#                       gets the static musl build)
#   CAPKG_DOWNLOAD_URL  where the release's files are (default: its GitHub release). https only;
#                       plain http only to a test server on loopback, written exactly
#                       http://127.0.0.1:PORT, http://[::1]:PORT or http://localhost:PORT,
#                       optionally followed by a path
#   CAPKG_CACHE_DIR     a folder that keeps the checked archive between runs (capkg's GitHub
#                       Action): an archive found there is used only when it matches the
#                       release's published SHA-256, and is downloaded again when it does not
# Arguments: -q or --quiet: print only errors.
set -eu

quiet=
for arg in "$@"; do
  case $arg in
    -q | --quiet) quiet=1 ;;
    *)
      echo "capkg install: unknown argument \`$arg\` (only --quiet; settings are CAPKG_* variables, see the script's opening comment)" >&2
      exit 2
      ;;
  esac
done
say() { [ -n "$quiet" ] || echo "capkg install: $*" >&2; }
fail() {
  echo "capkg install: $*" >&2
  exit 1
}

version=${CAPKG_VERSION:-latest}
version=${version#v}
case $version in
  latest) default_url=https://github.com/capkg/capkg/releases/latest/download ;;
  *) default_url=https://github.com/capkg/capkg/releases/download/v$version ;;
esac
url=${CAPKG_DOWNLOAD_URL:-$default_url}
url=${url%/}

# `http://` is accepted for loopback only, and only written plainly: scheme, one of the three
# loopback hosts, a port, then nothing but a path. A prefix match would take
# `http://127.0.0.1:1@evil.example` (user `127.0.0.1`, host evil.example) for loopback.
is_loopback_http() {
  rest=${1#http://}
  authority=${rest%%/*}
  path=${rest#"$authority"}
  host=${authority%:*}
  port=${authority##*:}
  case $host in 127.0.0.1 | localhost | '[::1]') ;; *) return 1 ;; esac
  case $port in '' | *[!0-9]*) return 1 ;; esac
  case $path in *[!A-Za-z0-9._~/-]*) return 1 ;; esac
  return 0
}
case $url in
  https://*) plain_http= ;;
  http://*)
    is_loopback_http "$url" \
      || fail "refusing \`$url\`: plain http is only for a test server on loopback (http://127.0.0.1:PORT/PATH); use https"
    plain_http=1
    ;;
  *) fail "refusing \`$url\`: CAPKG_DOWNLOAD_URL must be an https:// URL" ;;
esac
fetch() { # URL FILE
  if [ -n "$plain_http" ]; then
    curl --proto '=http' --fail --silent --show-error --retry 3 --output "$2" "$1"
  else
    curl --proto '=https' --proto-redir '=https' --tlsv1.2 --fail --silent --show-error \
      --location --retry 3 --output "$2" "$1"
  fi
}

if [ -n "${CAPKG_TARGET:-}" ]; then
  target=$CAPKG_TARGET
else
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-musl ;;
    Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-musl ;;
    Darwin/x86_64) target=x86_64-apple-darwin ;;
    Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin ;;
    *) fail "no prebuilt capkg for $(uname -s) $(uname -m); on Windows use capkg-installer.ps1, elsewhere \`cargo install --locked --git https://github.com/capkg/capkg capkg\`" ;;
  esac
fi
case $target in *[!A-Za-z0-9_.-]*) fail "\`$target\` is not a target triple" ;; esac
archive=capkg-$target.tar.xz

if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
  fail "neither \`sha256sum\` nor \`shasum\` is installed, so the archive's SHA-256 cannot be checked; nothing was installed. Install one of them (coreutils, or perl's shasum) and run this again."
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The checksum the release publishes, always fetched afresh: a kept archive is judged by it too.
fetch "$url/$archive.sha256" "$work/$archive.sha256" \
  || fail "cannot download $url/$archive.sha256 (is there a capkg $version for $target?); nothing was installed"
# `HASH *NAME` (or `HASH  NAME`, or the hash alone) on the first line.
expected=$(head -n 1 "$work/$archive.sha256" | cut -d ' ' -f 1 | tr 'A-F' 'a-f')
case $expected in *[!0-9a-f]* | '') expected= ;; esac
[ "${#expected}" -eq 64 ] || fail "$url/$archive.sha256 holds no SHA-256; nothing was installed"

checked=
cache=${CAPKG_CACHE_DIR:-}
if [ -n "$cache" ] && [ -f "$cache/$archive" ]; then
  found=$(sha256 "$cache/$archive")
  if [ "$found" = "$expected" ]; then
    say "the kept archive $cache/$archive matches the release's SHA-256 ($expected)"
    cp "$cache/$archive" "$work/$archive"
    checked=1
  else
    echo "capkg install: the kept archive $cache/$archive does not match the release's published SHA-256 (it has $found, the release $expected): it is not used, and is downloaded again" >&2
    rm -f "$cache/$archive"
  fi
fi
if [ -z "$checked" ]; then
  say "downloading $url/$archive"
  fetch "$url/$archive" "$work/$archive" || fail "cannot download $url/$archive; nothing was installed"
  found=$(sha256 "$work/$archive")
  [ "$found" = "$expected" ] \
    || fail "checksum mismatch: $archive has SHA-256 $found, the release publishes $expected; nothing was unpacked or installed"
  if [ -n "$cache" ]; then
    mkdir -p "$cache"
    cp "$work/$archive" "$cache/$archive.tmp" && mv -f "$cache/$archive.tmp" "$cache/$archive"
  fi
fi

# Only the binary, from the checked archive.
mkdir "$work/unpacked"
tar -xJf "$work/$archive" -C "$work/unpacked" "capkg-$target/capkg" \
  || fail "$archive holds no capkg-$target/capkg; nothing was installed"
binary=$work/unpacked/capkg-$target/capkg
[ -f "$binary" ] && [ ! -L "$binary" ] || fail "capkg-$target/capkg in $archive is not a regular file; nothing was installed"

bin_dir=${CAPKG_INSTALL_DIR:-${CARGO_HOME:-$HOME/.cargo}}/bin
mkdir -p "$bin_dir"
cp "$binary" "$bin_dir/.capkg.$$"
chmod 755 "$bin_dir/.capkg.$$"
mv -f "$bin_dir/.capkg.$$" "$bin_dir/capkg"
say "installed capkg ($version, $target) to $bin_dir/capkg"
case ":${PATH:-}:" in
  *":$bin_dir:"*) ;;
  *) say "$bin_dir is not on PATH: add it to your shell's profile" ;;
esac
