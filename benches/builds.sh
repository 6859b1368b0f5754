# Sourced by the benchmarks that compare capkg with other tools: builds capkg and sets `builds`
# to "NAME:PATH" entries, the binary a release ships first.
#
# A release ships static musl binaries for Linux (dist-workspace.toml): what the shell installer,
# the container image and the Action install. `cargo install` makes a glibc binary. The goals are
# the shipped binary's; without the musl target (`rustup target add x86_64-unknown-linux-musl`)
# only the glibc binary is built and measured, and a note says so.
#
#   . "$here/benches/builds.sh"     (needs `here`, the repository's root)

target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
musl=x86_64-unknown-linux-musl
builds=()
if rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    cargo build --release --quiet --bin capkg --target "$musl" --manifest-path "$here/Cargo.toml"
    builds+=("static:$target_dir/$musl/release/capkg")
else
    echo "note: the $musl target is not installed; measuring the glibc build only" >&2
fi
cargo build --release --quiet --bin capkg --manifest-path "$here/Cargo.toml"
builds+=("glibc:$target_dir/release/capkg")
