#!/usr/bin/env python3
"""Writes what capkg prints for every corpus provider, so two builds can be compared byte for byte.

    scripts/compare-outputs.py CAPKG OUT_DIR [CORPUS_DIR]
    diff -r BEFORE_DIR AFTER_DIR   # empty when behaviour is unchanged

For each provider folder of the corpus (default: ../shared/corpus beside the repository, else
testdata/corpus) it records, with each command's exit code:
  lint.json          `capkg lint --format json FOLDER`
  assemble/          `capkg assemble` of the folder's components, metadata and templates into a
                     release (namespace `compare-system`, the newest release series of metadata.yaml)
                     and its JSON report
  render/NAME        `capkg render` of every template with every variable it lists set, and of the
                     components file with its variables set (clusterctl's output)
  release/           `capkg release` of the same configuration: `--dry-run` to every kind of
                     target (human and JSON), then to a local repository (JSON, and the files
                     written), then the next patch version to the same repository, which compares
                     it with the first (the upgrade check)
and, for the example providers of testdata/, `capkg release --dry-run` and `capkg release --target
local` in human and JSON form.
Used before and after refactors and optimisations that must not change behaviour.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def run(cmd, env=None, cwd=None):
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr


def newest_series(metadata: Path):
    text = metadata.read_text(errors="replace")
    pairs = re.findall(r"major:\s*(\d+)\s*\n\s*-?\s*minor:\s*(\d+)", text)
    pairs += [(a, b) for b, a in re.findall(r"minor:\s*(\d+)\s*\n\s*-?\s*major:\s*(\d+)", text)]
    if not pairs:
        return "v0.1.0"
    major, minor = max((int(a), int(b)) for a, b in pairs)
    return f"v{major}.{minor}.0"


def variables(capkg, path, env):
    code, out, _ = run([capkg, "render", "--list-variables", "--format", "json", str(path)], env=env)
    if code != 0:
        return []
    text = json.loads(out)["output"]
    return re.findall(r"^\s+- ([A-Za-z_][A-Za-z0-9_]*)", text, re.M)


def record(folder: Path, name: str, code: int, out: bytes, err: bytes):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.out").write_bytes(out)
    (folder / f"{name}.err").write_bytes(err)
    (folder / f"{name}.exit").write_text(f"{code}\n")


def normalised(data: bytes, replacements) -> bytes:
    for old, new in replacements:
        data = data.replace(old.encode(), new.encode())
    return data


def record_tree(folder: Path, name: str, root: Path):
    """Every file under `root` with its size and SHA-256, one per line."""
    import hashlib
    lines = []
    if root.is_dir():
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            data = path.read_bytes()
            lines.append(f"{path.relative_to(root)} {len(data)} {hashlib.sha256(data).hexdigest()}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.tree").write_text("\n".join(lines) + "\n")


def next_patch(version: str) -> str:
    major, minor, patch = version.lstrip("v").split(".")[:3]
    return f"v{major}.{minor}.{int(patch) + 1}"


def releases(capkg, env, work: Path, config: dict, dest: Path, replacements):
    """`capkg release` of `config` (written to work/capkg.yaml): dry runs, a local release, the next."""
    release_env = dict(env)
    release_env["CAPKG_CHECK_IMAGES"] = "false"
    repo = work / "repository"
    dry = dict(config)
    dry["targets"] = {
        "local": {"repository": str(repo)},
        "github": {"repo": "capkg/compare"},
        "gitlab": {"project": "capkg/compare", "api_url": "https://gitlab.example.com/api/v4"},
        "oci": {"repository": "registry.example.com/capkg/compare"},
    }
    (work / "capkg.yaml").write_text(json.dumps(dry, indent=2))
    folder = dest / "release"
    for fmt in ("human", "json"):
        code, out, err = run([capkg, "--format", fmt, "release", "--dry-run"], env=release_env, cwd=work)
        record(folder, f"dry-run-{fmt}", code, normalised(out, replacements), normalised(err, replacements))
    local = dict(config)
    local["targets"] = {"local": {"repository": str(repo)}}
    (work / "capkg.yaml").write_text(json.dumps(local, indent=2))
    code, out, err = run([capkg, "--format", "json", "release"], env=release_env, cwd=work)
    record(folder, "local-json", code, normalised(out, replacements), normalised(err, replacements))
    version = config.get("version")
    if version:
        after = next_patch(version)
        for fmt in ("human", "json"):
            code, out, err = run([capkg, "--format", fmt, "release", "--dry-run", "--version", after],
                                 env=release_env, cwd=work)
            record(folder, f"next-dry-run-{fmt}", code, normalised(out, replacements),
                   normalised(err, replacements))
        code, out, err = run([capkg, "--format", "human", "release", "--version", after],
                             env=release_env, cwd=work)
        record(folder, "next-local-human", code, normalised(out, replacements), normalised(err, replacements))
    record_tree(folder, "repository", repo)


def examples(capkg, env, repo: Path, out_dir: Path):
    for name in ("example-provider", "example-multi-provider"):
        work = Path("/tmp/capkg-compare") / name
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(repo / "testdata" / name, work)
        dest = out_dir / "examples" / name
        replacements = [(str(work), "WORK")]
        for fmt in ("human", "json"):
            code, out, err = run([capkg, "--format", fmt, "release", "--dry-run", "--target", "local"],
                                 env=env, cwd=work)
            record(dest, f"dry-run-{fmt}", code, normalised(out, replacements), normalised(err, replacements))
        for fmt in ("human", "json"):
            code, out, err = run([capkg, "--format", fmt, "release", "--target", "local"], env=env, cwd=work)
            record(dest, f"local-{fmt}", code, normalised(out, replacements), normalised(err, replacements))
        code, out, err = run([capkg, "--format", "json", "assemble"], env=env, cwd=work)
        record(dest, "assemble-json", code, normalised(out, replacements), normalised(err, replacements))
        record_tree(dest, "work", work)
        shutil.rmtree(work)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    capkg = os.path.abspath(sys.argv[1])
    out_dir = Path(sys.argv[2])
    repo = Path(__file__).resolve().parent.parent
    corpus = Path(sys.argv[3]) if len(sys.argv) > 3 else repo.parent / "shared" / "corpus"
    if not corpus.is_dir():
        corpus = repo / "testdata" / "corpus"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GITLAB_", "CI"))}
    env["NO_COLOR"] = "1"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    for provider in sorted(p for p in corpus.iterdir() if p.is_dir()):
        dest = out_dir / provider.name
        record(dest, "lint", *run([capkg, "lint", "--format", "json", str(provider)], env=env))

        components = sorted(provider.glob("*-components*.yaml"))
        metadata = provider / "metadata.yaml"
        if components and metadata.is_file():
            # A fixed place, so that paths (and the order of diagnostics, sorted by path) are the
            # same whichever OUT_DIR the caller chose.
            work = Path("/tmp/capkg-compare") / provider.name
            if work.exists():
                shutil.rmtree(work)
            # capkg reads sources only inside the repository (the configuration's folder here):
            # a copy of the provider's files.
            shutil.copytree(provider, work / "src")
            provider_type = components[0].name.split("-components")[0]
            config = {
                "provider": {"type": provider_type},
                "components": {"file": f"src/{components[0].name}"},
                "metadata": "src/metadata.yaml",
                "templates": [f"src/{glob}" for glob in ("cluster-template*.yaml", "clusterclass-*.yaml")
                              if any(provider.glob(glob))],
                "namespace": "compare-system",
                "version": newest_series(metadata),
                "output": "assemble",
            }
            (work / "capkg.yaml").write_text(json.dumps(config, indent=2))
            command = [capkg, "assemble", "--format", "json", "--config", "capkg.yaml"]
            code, out, err = run(command, env=env, cwd=work)
            if code == 1:
                # The corpus has real defects: waive the rules that failed, so that the release
                # is written and compared too.
                try:
                    errors = {d["rule"] for d in json.loads(out)["diagnostics"] if d["severity"] == "error"}
                except (ValueError, KeyError):
                    errors = set()
                if errors:
                    config["lint"] = {"allow": [{"rule": r, "reason": "compare"} for r in sorted(errors)]}
                    (work / "capkg.yaml").write_text(json.dumps(config, indent=2))
                    code, out, err = run(command, env=env, cwd=work)
            out = out.replace(str(provider).encode(), b"CORPUS").replace(str(work).encode(), b"WORK")
            err = err.replace(str(provider).encode(), b"CORPUS").replace(str(work).encode(), b"WORK")
            record(dest, "assemble", code, out, err)
            if (work / "assemble").is_dir():
                shutil.move(str(work / "assemble"), str(dest / "assemble"))
            releases(capkg, env, work, config, dest, [(str(provider), "CORPUS"), (str(work), "WORK")])
            shutil.rmtree(work)

        for template in sorted(provider.glob("*.yaml")):
            if template.name in ("metadata.yaml",) or template.name.startswith("SOURCE"):
                continue
            names = variables(capkg, template, env)
            render_env = dict(env)
            for index, name in enumerate(names):
                render_env[name] = f"value-{index}"
            cmd = [capkg, "render", "--format", "json", str(template)]
            if "-components" not in template.name:
                cmd += ["--cluster-name", "compare"]
            code, out, err = run(cmd, env=render_env)
            record(dest / "render", template.name, code, out.replace(str(provider).encode(), b"CORPUS"),
                   err.replace(str(provider).encode(), b"CORPUS"))
    examples(capkg, env, repo, out_dir)


if __name__ == "__main__":
    main()
