#!/usr/bin/env python3
"""Shrinks the CRDs of a trimmed provider repository copy (testdata/repos/<name>/).

Every `*/crd/bases/*.yaml` file (controller-gen output) is rewritten with the `description`
strings of its OpenAPI schemas removed: they are most of the bytes and nothing in capkg or
kustomize reads them. Versions, names, subresources, labels and every schema property stay.

Usage: trim.py DIR...
"""
import pathlib
import sys

import yaml


def strip(node):
    if isinstance(node, dict):
        for key in [k for k, v in node.items() if k == "description" and isinstance(v, str)]:
            del node[key]
        for value in node.values():
            strip(value)
    elif isinstance(node, list):
        for item in node:
            strip(item)


def main(dirs):
    for root in dirs:
        for path in sorted(pathlib.Path(root).glob("**/crd/bases/*.yaml")):
            docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
            for doc in docs:
                for version in doc.get("spec", {}).get("versions", []):
                    strip(version.get("schema", {}))
            text = yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, width=1000)
            path.write_text("---\n" + text)


if __name__ == "__main__":
    main(sys.argv[1:])
