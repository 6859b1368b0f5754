#!/usr/bin/env python3
"""Fails when CHANGELOG.md has no release notes for the version in Cargo.toml, as dist reads them.

dist (release.yml) takes a GitHub release's notes from the CHANGELOG.md section whose heading names
the tag's version, and publishes none, silently, when there is no such section. So this asks dist
itself: `dist plan --tag v<version>` must find notes. With `--release` (before tagging), the
heading must also carry the release's day, not `Unreleased`.

Usage: python3 scripts/check-changelog.py [--release]   (from a git checkout, with `dist` on
PATH; .ci/run runs it without --release)
"""
import json
import re
import subprocess
import sys
import tomllib


def main():
    with open("Cargo.toml", "rb") as manifest:
        version = tomllib.load(manifest)["package"]["version"]
    tag = f"v{version}"
    plan = json.loads(
        subprocess.run(
            ["dist", "plan", "--tag", tag, "--output-format=json", "--no-local-paths"],
            check=True,
            capture_output=True,
        ).stdout
    )
    notes = plan.get("announcement_changelog")
    title = plan.get("announcement_title") or ""
    if not notes:
        sys.exit(
            f"CHANGELOG.md has no notes for {version}, the version in Cargo.toml: dist would "
            f"publish {tag} without release notes. Add a section `## [{version}] - YYYY-MM-DD` "
            "(or rename `## [Unreleased]` to it) with what the release changes."
        )
    if "--release" in sys.argv[1:] and not re.search(
        r"\b\d{4}-\d{2}-\d{2}\b", title
    ):
        sys.exit(
            f"CHANGELOG.md's section for {version} is headed `{title}`: give it the release's "
            f"day (`## [{version}] - YYYY-MM-DD`) before tagging {tag}."
        )
    print(f"CHANGELOG.md: {len(notes.splitlines())} line(s) of release notes for {tag} ({title})")


if __name__ == "__main__":
    main()
