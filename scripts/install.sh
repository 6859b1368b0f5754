#!/bin/sh
# Installs a capkg release through the release's own installer (dist's capkg-installer.sh) with
# the archive's SHA-256 always checked. dist's installer checks it with `sha256sum` only and,
# where that is missing (macOS), installs the archive unchecked; this script gives it a
# `sha256sum` made of `shasum -a 256` there, and installs nothing where neither exists.
#
#   curl --proto '=https' --tlsv1.2 -LsSf https://raw.githubusercontent.com/capkg/capkg/v0.1.0/scripts/install.sh | CAPKG_VERSION=0.1.0 sh
#
# Environment:
#   CAPKG_VERSION        `0.1.0`, `v0.1.0` or `latest` (the default)
#   CAPKG_DOWNLOAD_URL   where the release's files are (default: its GitHub release; tests serve
#                        their own over http on 127.0.0.1)
#   CAPKG_INSTALL_DIR, CAPKG_NO_MODIFY_PATH   passed to the installer, as are the arguments
set -eu

version=${CAPKG_VERSION:-latest}
version=${version#v}
case $version in
  latest) default_url=https://github.com/capkg/capkg/releases/latest/download ;;
  *) default_url=https://github.com/capkg/capkg/releases/download/v$version ;;
esac
url=${CAPKG_DOWNLOAD_URL:-$default_url}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v sha256sum >/dev/null 2>&1; then
  if ! command -v shasum >/dev/null 2>&1; then
    echo "capkg install: neither \`sha256sum\` nor \`shasum\` is installed, so the archive's SHA-256 cannot be checked; nothing was installed. Install one of them (coreutils, or perl's shasum) and run this again." >&2
    exit 1
  fi
  mkdir "$work/bin"
  printf '#!/bin/sh\nexec shasum -a 256 "$@"\n' >"$work/bin/sha256sum"
  chmod +x "$work/bin/sha256sum"
  PATH="$work/bin:$PATH"
  export PATH
fi

# HTTPS only, also across redirects; plain HTTP only for a test server on this machine.
proto='=https'
case $url in http://127.0.0.1:*) proto='=http' ;; esac
curl --proto "$proto" --tlsv1.2 --fail --silent --show-error --location --retry 3 \
  --output "$work/capkg-installer.sh" "$url/capkg-installer.sh"
CAPKG_DOWNLOAD_URL=$url sh "$work/capkg-installer.sh" "$@"
