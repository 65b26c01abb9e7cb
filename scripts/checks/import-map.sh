#!/usr/bin/env bash
# The import map of the poplab library and the CLI: which module imports which (`use` lines, and
# `crate::...`/`super::...` paths written inline, tests left out). A path through a re-export
# (`pub use agents::Watch` in engine/mod.rs, `pub use base::numbers` in lib.rs, a `use` of a parent
# module its children reach by `super::`) counts as an arrow to the file that defines the item.
# Reports every arrow between the library's top-level modules that does not point down its layers,
# and every circle between the children (files or subfolders) of any one folder, the crate's root
# included (arrows to and from a folder's own mod.rs are the folder's business). Exits 1 if there
# is any. The Python package (crates/poplab-py/python/poplab) too: its circles between modules
# (`from .X import`, `from . import X`, at any indentation; imports under `if TYPE_CHECKING:` are
# not run, so they do not count).
#   scripts/checks/import-map.sh [--edges]   (--edges also lists every arrow)
#   scripts/checks/import-map.sh --selftest  (checks itself on the tree in import-map-fixture/, next to it)
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 - "$@" <<'PY'
import os, re, sys
from collections import defaultdict

# The library's layers, lowest first: a top-level module may import modules of lower layers only
# (never one of its own layer, other than itself). A wing (a folder of modules: base/, evidence/,
# run/) is one layer; inside it, as inside any folder, only circles count.
LAYERS = [
    ["base"],
    ["evidence"],
    ["graph"],
    ["protocol"],
    ["init"],
    ["engine", "protocols", "exact"],
    ["crn"],
    ["run"],
    ["sweep"],
    ["claims"],
]
CRATES = [("poplab", "crates/poplab/src", "lib.rs", LAYERS), ("poplab-cli", "crates/poplab-cli/src", "main.rs", None)]


def expand(prefix, tree, out):  # `a::{b, c::{d as e}}` -> ([a, b], b), ([a, c, d], e)
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
            name, _, alias = item.partition(" as ")
            path = prefix + [s for s in name.strip().split("::") if s]
            if path and path[-1] == "self":
                path = path[:-1]
            if path:
                out.append((path, alias.strip() or path[-1]))


USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
DEF = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+\"C\")\s+)*"
    r"(?:fn|struct|enum|trait|type|const|static|union|mod)\s+(\w+)|^\s*macro_rules!\s*(\w+)",
    re.M,
)


def source(path):  # a file's text without its tests and comments
    text = open(path).read()
    test = re.search(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{", text)
    text = text[: test.start()] if test else text
    text = re.sub(r"//.*", "", text)
    return re.sub(r"pub\(in [^)]*\)", "", text)


def import_map(root, root_file):
    """The arrows between the modules (tuples of names: () is the crate's root) of the crate whose
    sources are in `root`, each to the module that defines what is imported, and each module's file."""
    files = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".rs"):
                rel = os.path.relpath(os.path.join(d, f), root)
                p = rel[:-3].split("/")
                if rel == root_file:
                    p = []
                elif p[-1] == "mod":
                    p = p[:-1]
                files[tuple(p)] = rel
    texts = {m: source(os.path.join(root, rel)) for m, rel in files.items()}

    def absolute(me, path):  # a path written in module `me` -> a path from the root, or None (another crate)
        head, rest = path[0], list(path[1:])
        if head == "crate":
            return rest
        if head in ("self", "super"):
            base = list(me) if head == "self" else list(me[:-1])
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            return base + rest
        if me + (head,) in files:  # a `use` relative to the module: `pub use agents::Watch`
            return list(me) + list(path)
        return None

    names, globs, defined = defaultdict(dict), defaultdict(list), {}
    for me, text in texts.items():
        found = []
        for m in USE.finditer(text):
            expand([], m.group(1), found)
        for path, alias in found:
            target = absolute(me, path)
            if target is None:
                continue
            if path[-1] == "*":
                globs[me].append(target[:-1])
            else:
                names[me][alias] = target
        defined[me] = {a or b for a, b in DEF.findall(USE.sub("", text))}

    def module_of(path, depth=0):  # the module that defines what `path` (from the root) names
        cur = ()
        for i, s in enumerate(path):
            if cur + (s,) in files:
                cur += (s,)
                continue
            if s in defined.get(cur, ()) or depth > 16:
                return cur
            if s in names[cur]:
                return module_of(names[cur][s] + list(path[i + 1 :]), depth + 1)
            for g in globs[cur]:
                there = module_of(g, depth + 1)
                if there + (s,) in files or s in defined.get(there, ()) or s in names[there]:
                    return module_of(g + list(path[i:]), depth + 1)
            return cur
        return cur

    edges = defaultdict(set)
    for me, text in texts.items():
        found = []
        for m in USE.finditer(text):
            expand([], m.group(1), found)
        paths = [p for p, _ in found]
        paths += [m.group(0).split("::") for m in re.finditer(r"(?<![\w:])(?:crate|super)(?:::\w+)+", USE.sub("", text))]
        for path in paths:
            target = absolute(me, [s for s in path if s != "*"])
            if target is not None:
                there = module_of(target)
                if there != me:
                    edges[me].add(there)
    return files, edges


def circles(arrows):  # strongly connected components with more than one node (Tarjan)
    nodes = set(arrows) | {w for ws in arrows.values() for w in ws}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(arrows.get(v, ())):
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


def check(crate, root, root_file, layers, show_edges):
    """Prints the crate's upward arrows and circles; returns how many there are."""
    files, edges = import_map(root, root_file)

    def name(m):  # a module as its file, or its folder (`engine/configuration/`)
        return files[m][: -len("mod.rs")] if files[m].endswith("mod.rs") else files[m]

    if show_edges:
        print(f"{crate} arrows:")
        for a in sorted(edges):
            print(f"  {files[a]} -> {' '.join(sorted(files[b] for b in edges[a]))}")
    # Inside each folder, an arrow between two of its children: the child holding each end.
    by_folder = defaultdict(lambda: defaultdict(set))
    for a, bs in edges.items():
        for b in bs:
            common = 0
            while common < min(len(a), len(b)) and a[common] == b[common]:
                common += 1
            if common < len(a) and common < len(b):
                by_folder[a[:common]][a[: common + 1]].add(b[: common + 1])
    problems = 0
    if layers is not None:
        layer = {m: i for i, ms in enumerate(layers) for m in ms}
        top = by_folder[()]
        unknown = sorted({m[0] for m in set(top) | {b for bs in top.values() for b in bs}} - set(layer))
        for m in unknown:
            print(f"{crate}: no layer for module {m} (add it to LAYERS in scripts/checks/import-map.sh)")
        upward = [(a, b) for a in sorted(top) for b in sorted(top[a])
                  if a[0] in layer and b[0] in layer and layer[b[0]] >= layer[a[0]]]
        print(f"{crate}: upward or sideways arrows: {len(upward)}")
        for a, b in upward:
            print(f"  {name(a)} -> {name(b)}")
        problems += len(unknown) + len(upward)
    found = [c for folder in sorted(by_folder) for c in circles(by_folder[folder])]
    print(f"{crate}: circles: {len(found)}")
    for c in found:
        print(f"  {' <-> '.join(name(m) for m in c)}")
    return problems + len(found)


PYTHON_PACKAGE = "crates/poplab-py/python/poplab"


def python_imports(package):
    """The arrows between the modules of a Python package, by module name."""
    modules = sorted(f[:-3] for f in os.listdir(package) if f.endswith(".py"))
    arrows = defaultdict(set)
    for m in modules:
        skip_deeper_than = None
        for line in open(os.path.join(package, m + ".py"), encoding="utf-8"):
            text = line.strip()
            indent = len(line) - len(line.lstrip())
            if skip_deeper_than is not None:
                if text and indent <= skip_deeper_than:
                    skip_deeper_than = None
                else:
                    continue
            if re.match(r"if (typing\.)?TYPE_CHECKING:", text):
                skip_deeper_than = indent
                continue
            found = re.match(r"from \.(\w+) import", text)
            if found:
                targets = [found.group(1)]
            else:
                found = re.match(r"from \. import (.+)", text)
                targets = [t.strip().split(" as ")[0] for t in found.group(1).strip("()").split(",")] if found else []
            arrows[m].update(t for t in targets if t in modules and t != m)
    return arrows


def check_python(package, show_edges):
    """Prints the package's circles; returns how many there are."""
    arrows = python_imports(package)
    if show_edges:
        print("python arrows:")
        for a in sorted(arrows):
            print(f"  {a} -> {' '.join(sorted(arrows[a]))}")
    found = circles(arrows)
    print(f"python ({package}): circles: {len(found)}")
    for c in found:
        print(f"  {' <-> '.join(c)}")
    return len(found)


if "--selftest" in sys.argv:
    # scripts/checks/import-map-fixture/README.md says what the tree holds.
    root = "scripts/checks/import-map-fixture"
    files, edges = import_map(root, "lib.rs")
    got = {(files[a], files[b]) for a, bs in edges.items() for b in bs}
    want = {
        ("lib.rs", "f/a.rs"), ("f/mod.rs", "f/a.rs"), ("f/mod.rs", "f/b.rs"), ("f/a.rs", "f/b.rs"),
        ("f/b.rs", "f/a.rs"), ("f/e.rs", "f/a.rs"), ("g/mod.rs", "g/c.rs"), ("g/mod.rs", "g/d.rs"),
        ("g/c.rs", "g/d.rs"), ("g/d.rs", "g/c.rs"), ("h.rs", "f/a.rs"), ("h.rs", "g/mod.rs"), ("h.rs", "g/d.rs"),
    }
    for a, b in sorted(got - want):
        print(f"unexpected arrow {a} -> {b}")
    for a, b in sorted(want - got):
        print(f"missing arrow {a} -> {b}")
    problems = check("fixture", root, "lib.rs", [["f"], ["g"], ["h"]], False)
    ok = got == want and problems == 2
    print("selftest", "passed" if ok else f"FAILED (want the arrows above and 2 problems, the two circles)")
    sys.exit(0 if ok else 1)

problems = sum(check(*crate, "--edges" in sys.argv) for crate in CRATES)
problems += check_python(PYTHON_PACKAGE, "--edges" in sys.argv)
sys.exit(1 if problems else 0)
PY
