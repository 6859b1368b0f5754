# Two uses:
#
# 1. Sourced by the benchmarks that compare capkg with other tools: builds capkg with the dist
#    profile (what a release ships: fat LTO, one codegen unit) and sets `builds` to "NAME:PATH"
#    entries, the binary a release ships first. A release ships static musl binaries for Linux
#    (dist-workspace.toml): what the shell installer, the container image and the Action install.
#    The glibc build is the same code with the same profile. Without the musl target (`rustup
#    target add x86_64-unknown-linux-musl`) only the glibc binary is built and measured, and a
#    note says so.
#
#      . "$here/benches/builds.sh"     (needs `here`, the repository's root)
#
# 2. Run as a script: how long a build from nothing takes with each profile (default: release,
#    the one `cargo run --release` and `cargo install` use, and dist), each in a fresh
#    CARGO_TARGET_DIR under DIR (default: a temporary folder, removed after), the crates already
#    downloaded. Prints wall and CPU time and the load average before and after: other builds on
#    the machine slow a build down, so note them.
#
#      benches/builds.sh cold [--dir DIR] [PROFILE...]

cold_builds() {
    local root base keep="" profile target wall cpu
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    if [ "${1:-}" = --dir ]; then
        base="$2"
        keep=1
        shift 2
        mkdir -p "$base"
    else
        base="$(mktemp -d)"
    fi
    [ "$#" -gt 0 ] || set -- release dist
    cargo fetch --locked --quiet --manifest-path "$root/Cargo.toml"
    echo "cold builds of capkg ($(nproc) cores, $(rustc --version))"
    printf '%-8s %10s %10s  %s\n' profile wall cpu "load average before -> after"
    for profile in "$@"; do
        target="$base/$profile"
        rm -rf "$target"
        local before after
        before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
        local start=$SECONDS
        CARGO_TARGET_DIR="$target" /usr/bin/time -f '%U %S' -o "$base/$profile.cpu" \
            cargo build --locked --quiet --profile "$profile" --bin capkg \
            --manifest-path "$root/Cargo.toml"
        wall=$((SECONDS - start))
        cpu="$(awk '{printf "%d", $1 + $2}' "$base/$profile.cpu")"
        after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
        printf '%-8s %6dm%02ds %6dm%02ds  %s -> %s\n' "$profile" $((wall / 60)) $((wall % 60)) \
            $((cpu / 60)) $((cpu % 60)) "$before" "$after"
        [ -n "$keep" ] || rm -rf "$target"
    done
    [ -n "$keep" ] || rm -rf "$base"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case "${1:-}" in
        cold) shift; cold_builds "$@" ;;
        *) echo "usage: benches/builds.sh cold [--dir DIR] [PROFILE...]  (or source it)" >&2; exit 2 ;;
    esac
    exit 0
fi

target_dir="$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
musl=x86_64-unknown-linux-musl
builds=()
if rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    cargo build --profile dist --quiet --bin capkg --target "$musl" --manifest-path "$here/Cargo.toml"
    builds+=("static:$target_dir/$musl/dist/capkg")
else
    echo "note: the $musl target is not installed; measuring the glibc build only" >&2
fi
cargo build --profile dist --quiet --bin capkg --manifest-path "$here/Cargo.toml"
builds+=("glibc:$target_dir/dist/capkg")
