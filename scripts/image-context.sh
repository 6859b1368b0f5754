#!/usr/bin/env bash
# Unpacks the static Linux binaries from dist's archives to target/image/linux/<arch>/capkg, where
# the Dockerfile copies them from (one folder per Docker platform, for multi-platform builds).
# Usage: scripts/image-context.sh FOLDER_WITH_ARCHIVES
set -euo pipefail
cd "$(dirname "$0")/.."
archives=${1:?usage: scripts/image-context.sh FOLDER_WITH_ARCHIVES}
found=0
for pair in amd64:x86_64 arm64:aarch64; do
  arch=${pair%%:*}
  triple=${pair#*:}-unknown-linux-musl
  archive="$archives/capkg-$triple.tar.xz"
  if [ ! -f "$archive" ]; then
    echo "image-context: no $archive; the image for linux/$arch needs it" >&2
    continue
  fi
  mkdir -p "target/image/linux/$arch"
  tar -xJf "$archive" --strip-components=1 -C "target/image/linux/$arch" "capkg-$triple/capkg"
  found=$((found + 1))
done
if [ "$found" -eq 0 ]; then
  echo "image-context: no capkg-*-unknown-linux-musl.tar.xz in $archives" >&2
  exit 1
fi
