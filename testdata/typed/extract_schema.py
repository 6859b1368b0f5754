#!/usr/bin/env python3
"""Writes src/assemble/typed_schema.txt: the JSON field sets of the Kubernetes Go types that
clusterctl converts to and back from (see src/assemble/typed.rs), read from the struct tags of
k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver at one tag.

Usage: extract_schema.py API_GIT APIMACHINERY_GIT APIEXTENSIONS_GIT TAG > typed_schema.txt
(each *_GIT a git directory of the repository; files are read with `git show TAG:path`).

Output, one type per block:
    TYPE pkg.Name            a struct, followed by its fields
      json-name  TYPEREF  [o] [z]     o: omitempty, z: omitzero
      ... TYPEREF           an embedded (inline) struct: name `...`
    ALIAS pkg.Name TYPEREF   a named non-struct type
TYPEREF: string | bool | int | float | bytes | any | quantity | intorstring | time | json |
         propsorarray | propsorbool | propsorstringarray | *T | []T | map[]T | pkg.Name
"""
import re
import subprocess
import sys

api, machinery, extensions, tag = sys.argv[1:5]

FILES = {
    "core": (api, "core/v1/types.go"),
    "apps": (api, "apps/v1/types.go"),
    "rbac": (api, "rbac/v1/types.go"),
    "arv1": (api, "admissionregistration/v1/types.go"),
    "arv1beta1": (api, "admissionregistration/v1beta1/types.go"),
    "meta": (machinery, "pkg/apis/meta/v1/types.go"),
    "extv1": (extensions, "pkg/apis/apiextensions/v1/types.go"),
    "extv1js": (extensions, "pkg/apis/apiextensions/v1/types_jsonschema.go"),
    "extv1beta1": (extensions, "pkg/apis/apiextensions/v1beta1/types.go"),
    "extv1beta1js": (extensions, "pkg/apis/apiextensions/v1beta1/types_jsonschema.go"),
}
# Files that share a Go package.
PACKAGE = {"extv1js": "extv1", "extv1beta1js": "extv1beta1"}
IMPORTS = {
    "k8s.io/api/core/v1": "core",
    "k8s.io/apimachinery/pkg/apis/meta/v1": "meta",
    "k8s.io/api/admissionregistration/v1": "arv1",
}
SPECIAL = {
    "resource.Quantity": "quantity",
    "intstr.IntOrString": "intorstring",
    "meta.Time": "time",
    "meta.MicroTime": "time",
    "meta.Duration": "string",
    "types.UID": "string",
    "runtime.RawExtension": "any",
    "meta.FieldsV1": "any",
    "extv1.JSON": "json",
    "extv1beta1.JSON": "json",
    "extv1.JSONSchemaPropsOrArray": "propsorarray",
    "extv1beta1.JSONSchemaPropsOrArray": "propsorarray",
    "extv1.JSONSchemaPropsOrBool": "propsorbool",
    "extv1beta1.JSONSchemaPropsOrBool": "propsorbool",
    "extv1.JSONSchemaPropsOrStringArray": "propsorstringarray",
    "extv1beta1.JSONSchemaPropsOrStringArray": "propsorstringarray",
}
BASIC = {
    "string": "string", "bool": "bool", "float64": "float", "float32": "float",
    "int": "int", "int32": "int", "int64": "int", "uint": "int", "uint32": "int",
    "uint64": "int", "byte": "int", "interface{}": "any",
}

structs = {}
aliases = {}

for key, (repo, path) in FILES.items():
    pkg = PACKAGE.get(key, key)
    text = subprocess.run(["git", "--git-dir", repo, "show", f"{tag}:{path}"],
                          check=True, capture_output=True, text=True).stdout
    imports = {}
    block = re.search(r"^import \((.*?)^\)", text, re.M | re.S)
    for alias, target in re.findall(r'^\s*(\w+)?\s*"([^"]+)"', block.group(1) if block else "", re.M):
        name = alias or target.rsplit("/", 1)[-1]
        imports[name] = IMPORTS.get(target, name)

    def ref(go):
        go = go.strip()
        if go.startswith("*"):
            return "*" + ref(go[1:])
        if go == "[]byte":
            return "bytes"
        if go.startswith("[]"):
            return "[]" + ref(go[2:])
        if go.startswith("map["):
            return "map[]" + ref(go[go.index("]") + 1:])
        if go in BASIC:
            return BASIC[go]
        if "." in go:
            alias, name = go.split(".", 1)
            full = f"{imports.get(alias, alias)}.{name}"
        else:
            full = f"{pkg}.{go}"
        return SPECIAL.get(full, full)

    body = re.sub(r"//[^\n]*", "", text)
    for name, fields in re.findall(r"^type (\w+) struct \{(.*?)^\}", body, re.M | re.S):
        out = []
        for line in fields.splitlines():
            line = line.strip()
            if not line:
                continue
            m = re.match(r'^(?:(\w+)\s+)?([^\s`]+)\s*`json:"([^"]*)"', line)
            if not m:
                continue
            _, go, tag_text = m.groups()
            parts = tag_text.split(",")
            json_name = parts[0]
            if json_name == "-":
                continue
            flags = ("o" if "omitempty" in parts[1:] else "") + ("z" if "omitzero" in parts[1:] else "")
            out.append((json_name or "...", ref(go), flags))
        structs[f"{pkg}.{name}"] = out
    for name in re.findall(r"^type (\w+) struct\s*\{\}", body, re.M):
        structs[f"{pkg}.{name}"] = []
    for name, go in re.findall(r"^type (\w+) (?:= )?([\w.\[\]*]+(?:\{\})?)\s*$", body, re.M):
        if go != "struct" and f"{pkg}.{name}" not in structs:
            aliases[f"{pkg}.{name}"] = ref(go)

ROOTS = [
    "apps.Deployment", "apps.DaemonSet", "rbac.RoleBinding", "rbac.ClusterRoleBinding",
    "arv1.ValidatingWebhookConfiguration", "arv1.MutatingWebhookConfiguration",
    "arv1beta1.ValidatingWebhookConfiguration", "arv1beta1.MutatingWebhookConfiguration",
    "extv1.CustomResourceDefinition", "extv1beta1.CustomResourceDefinition",
    "extv1.JSONSchemaProps", "extv1beta1.JSONSchemaProps",
]
seen = []
todo = list(ROOTS)
while todo:
    name = todo.pop(0)
    if name in seen:
        continue
    seen.append(name)
    refs = [t for _, t, _ in structs.get(name, [])] + ([aliases[name]] if name in aliases else [])
    for t in refs:
        base = t.lstrip("*")
        while base.startswith("[]") or base.startswith("map[]"):
            base = base[2:] if base.startswith("[]") else base[5:]
            base = base.lstrip("*")
        if "." in base and base not in seen:
            todo.append(base)

print(f"# Generated by testdata/typed/extract_schema.py from k8s.io/api, k8s.io/apimachinery and")
print(f"# k8s.io/apiextensions-apiserver {tag}. Do not edit by hand.")
for name in sorted(seen):
    if name in structs:
        print(f"TYPE {name}")
        for field, t, flags in structs[name]:
            print(f"  {field} {t}{' ' + flags if flags else ''}")
    elif name in aliases:
        print(f"ALIAS {name} {aliases[name]}")
    else:
        print(f"# MISSING {name}")
