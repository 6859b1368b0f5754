"""Checks Cargo.toml's `[package.metadata.binstall]` against what dist builds: for every target
in `dist manifest`, the archive name cargo-binstall asks for and the binary path it looks for
inside it are the archive dist uploads and the binary in it (tarballs hold one folder named after
the archive, Windows zips hold the files at their root). Exits 1 naming what differs.
Usage: python3 scripts/check-binstall.py   (from the repository root, with `dist` on PATH)"""

import json
import subprocess
import sys
import tomllib

SUFFIX = {"txz": ".tar.xz", "tgz": ".tar.gz", "zip": ".zip"}


def render(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace("{ " + key + " }", value)
    return template


def main() -> int:
    with open("Cargo.toml", "rb") as f:
        package = tomllib.load(f)["package"]
    meta = package["metadata"]["binstall"]
    manifest = json.loads(
        subprocess.run(
            ["dist", "manifest", "--artifacts=all", "--output-format=json", "--no-local-paths"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    version = package["version"]
    base = f"{package['repository']}/releases/download/v{version}/"
    problems = []
    checked = 0
    for name, artifact in manifest["artifacts"].items():
        if artifact.get("kind") != "executable-zip":
            continue
        (target,) = artifact["target_triples"]
        settings = {**meta, **meta.get("overrides", {}).get(target, {})}
        windows = "windows" in target
        values = {
            "repo": package["repository"],
            "version": version,
            "name": package["name"],
            "target": target,
            "archive-suffix": SUFFIX[settings["pkg-fmt"]],
            "bin": "capkg",
            "binary-ext": ".exe" if windows else "",
        }
        url = render(settings["pkg-url"], values)
        if url != base + name:
            problems.append(f"{target}: cargo-binstall asks for {url}, dist uploads {base + name}")
        executables = [a["path"] for a in artifact["assets"] if a["kind"] == "executable"]
        root = "" if name.endswith(".zip") else name.removesuffix(SUFFIX["txz"]) + "/"
        inside = [root + path for path in executables]
        wanted = render(settings["bin-dir"], values)
        if wanted not in inside:
            problems.append(f"{target}: cargo-binstall looks for {wanted} in {name}, which holds {inside}")
        checked += 1
    for problem in problems:
        print(f"check-binstall: {problem}", file=sys.stderr)
    print(f"check-binstall: {checked} archive(s), {len(problems)} problem(s)")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
