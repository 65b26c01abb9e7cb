#!/usr/bin/env bash
# The import map of the poplab library: which module imports which (`use crate::...`, `use super::...`
# and paths written inline, tests left out), between top-level modules and the children of folders.
# Reports every arrow that does not point down the layers below and every circle: between top-level
# modules, and between the children of one folder (arrows to and from the folder's own mod.rs are
# the folder's business). Exits 1 if there is any.
#   scripts/import-map.sh [--edges]      (--edges also lists every arrow)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, re, sys
from collections import defaultdict

ROOT = "crates/poplab/src"
# The layers, lowest first: a module may import modules of lower layers only (never one of its own
# layer, other than itself).
# A wing (a folder of modules: base/, evidence/, run/) is one layer; inside it, as inside any
# folder, only circles count.
LAYERS = [
    ["base"],
    ["evidence"],
    ["graph"],
    ["protocol"],
    ["init"],
    ["engine", "protocols", "exact"],
    ["run"],
    ["sweep"],
    ["claims"],
]
layer = {m: i for i, ms in enumerate(LAYERS) for m in ms}

def parts_of(rel):
    p = rel[:-3].split("/")
    return p[:-1] if p[-1] == "mod" else p

files = {}
for d, _, fs in os.walk(ROOT):
    for f in fs:
        if f.endswith(".rs"):
            rel = os.path.relpath(os.path.join(d, f), ROOT)
            if rel != "lib.rs":
                files[rel] = parts_of(rel)
children = defaultdict(set)
for p in files.values():
    if len(p) >= 2:
        children[p[0]].add(p[1])

def node(path):  # a module path -> its node: top-level module, or folder/child
    for _ in range(4):  # through the root's re-exports (`pub use run::spec`, then `spec::RunSpec`)
        if path[0] not in ROOT_NAMES or ROOT_NAMES[path[0]][0] == path[0]:
            break
        path = ROOT_NAMES[path[0]] + path[1:]
    if len(path) >= 2 and path[1] in children.get(path[0], ()):
        return path[0] + "/" + path[1]
    return path[0]

def expand(prefix, tree, out):  # `a::{b, c::{d}}` -> [a, b], [a, c, d]
    depth, cur, items = 0, "", []
    for ch in tree:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    for item in map(str.strip, items):
        if not item:
            continue
        if "{" in item:
            i = item.index("{")
            head = [s for s in item[:i].split("::") if s]
            expand(prefix + head, item[i + 1 : item.rindex("}")], out)
        else:
            out.append(prefix + [s for s in item.split(" as ")[0].strip().split("::") if s])

# What lib.rs re-exports at the root (`pub use error::{Error, Result}`), by name.
ROOT_NAMES = {}
for m in re.finditer(r"^pub use ([^;]+);", open(os.path.join(ROOT, "lib.rs")).read(), re.M):
    found = []
    expand([], m.group(1), found)
    ROOT_NAMES.update({p[-1]: p for p in found})

edges = defaultdict(set)
for rel, me in files.items():
    text = open(os.path.join(ROOT, rel)).read()
    test = re.search(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{", text)
    text = text[: test.start()] if test else text
    text = re.sub(r"//.*", "", text)
    text = re.sub(r"pub\(in [^)]*\)", "", text)
    paths = []
    use = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
    for m in use.finditer(text):
        expand([], m.group(1), paths)
    text = use.sub("", text)
    paths += [m.group(0).split("::") for m in re.finditer(r"(?<![\w:])(?:crate|super)(?:::\w+)+", text)]
    for path in paths:
        if path[0] == "crate":
            target = path[1:]
        elif path[0] in ("super", "self"):
            base = me if path[0] == "self" else me[:-1]
            rest = path[1:]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            target = base + rest
        else:
            continue
        if target and node(target) != node(me):
            edges[node(me)].add(node(target))

def top(n):
    return n.split("/")[0]

def circles(nodes, arrows):  # strongly connected components with more than one node (Tarjan)
    index, low, stack, on, out = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in arrows.get(v, ()):
            if w not in nodes:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out

if "--edges" in sys.argv:
    print("arrows:")
    for a in sorted(edges):
        print(f"  {a} -> {' '.join(sorted(edges[a]))}")

problems = 0
unknown = sorted({top(n) for n in list(edges) + [t for ts in edges.values() for t in ts]} - set(layer))
for m in unknown:
    print(f"no layer for module {m} (add it to LAYERS in scripts/import-map.sh)")
    problems += 1
upward = [(a, b) for a in sorted(edges) for b in sorted(edges[a])
          if top(a) != top(b) and top(a) in layer and top(b) in layer and layer[top(b)] >= layer[top(a)]]
print(f"upward or sideways arrows: {len(upward)}")
for a, b in upward:
    print(f"  {a} -> {b}")
top_edges = defaultdict(set)
for a, bs in edges.items():
    for b in bs:
        if top(a) != top(b):
            top_edges[top(a)].add(top(b))
found = circles({p[0] for p in files.values()}, top_edges)
for folder in sorted(children):
    inner = {n for n in edges if n.startswith(folder + "/")} | {t for ts in edges.values() for t in ts if t.startswith(folder + "/")}
    found += circles(inner, edges)
print(f"circles: {len(found)}")
for c in found:
    print(f"  {' <-> '.join(c)}")
problems += len(upward) + len(found)
sys.exit(1 if problems else 0)
PY
