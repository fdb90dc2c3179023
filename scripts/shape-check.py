#!/usr/bin/env python3
"""The shape of the Rust sources, checked: three rules over every .rs file in src/,
crates/, fuzz/ and e2e/bench/wasm-engine (their tests included).

  lines      no file longer than 500 lines before its `#[cfg(test)]` module (the
             code a reader must hold; the tests below it may run long). Files in a
             `tests/` or `benches/` folder are tests from their first line.
  circle     no import circle among files.
  component  no `#[component]` function longer than 150 lines (fn line to closing
             brace): a component that does not fit on about three screens does too
             much and should be split by concern.
  folder     among the folders of src/ui (one per feature, and the shared `platform`,
             `widgets`, `state`): no import circle between folders, and no arrow from
             a shared folder into a feature (`app` is the top; nothing may import it).
             Edges are the file edges of the circle rule, grouped by folder.

An import circle. Every file is a module (crate roots are the files no `mod x;`
declaration reaches; `mod.rs` and `name.rs` + `name/` both work). File A has an edge
to file B when code in A, outside its `#[cfg(test)]` module, names an item that B
defines: through a `use` path (`use crate::a::b::Item`, `use super::x::{Y, Z}`,
`use child::Item`) or a qualified path in code (`crate::a::Item`, `super::Item`).
A path is resolved to the file of the longest module prefix, then, when the next
name is re-exported there (`pub use`), on to the file that defines it; so
`use crate::Scenario` is an edge to scenario.rs, not to lib.rs. Paths into other
crates are not edges (Cargo already forbids circles between crates).

Not edges:
  * `mod x;` declarations;
  * a file's paths into its own subtree (a module using or re-exporting its
    children: `pub use child::X`, `use read::cell` in explain/mod.rs). A parent
    composes its children and its children may use what it defines (`super::`);
    counting both directions would make every folder with a mod.rs a circle.
  * test code (`#[cfg(test)]` modules).
A circle is a strongly connected component of more than one file in that graph;
each is printed with one edge per member (file:line of the `use`).

  scripts/shape-check.py              check; exit 1 on any violation not allowed
  scripts/shape-check.py --report     also list the longest files and components
  scripts/shape-check.py --self-test  prove on fixture strings that each rule can fail

Violations listed in scripts/shape-allow.txt (`path rule` per line) are reported as
allowed and do not fail the check; an allowlist entry that no longer matches a
violation fails it, so the list can only shrink.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOTS = ["src", "crates", "fuzz", "e2e/bench/wasm-engine", "tests"]
SKIP_DIRS = {"target", "node_modules", ".git", "dist", "corpus", "artifacts"}
MAX_LINES = 500
MAX_COMPONENT = 150
ALLOW_FILE = "scripts/shape-allow.txt"


# ---------------------------------------------------------------- lexing


def strip(text: str) -> str:
    """The source with comments, strings and char literals blanked out (newlines kept,
    so line numbers and brace structure survive)."""
    out: list[str] = []
    i, n = 0, len(text)

    def blank(s: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = '"' + m.group(1)
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + blank(text[i + 2 : j]))
            i = j
        elif c == '"' or (c == "b" and text.startswith('b"', i) and (i == 0 or not text[i - 1].isalnum())):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append('""' + blank(text[i + 2 : j]))
            i = j
        elif c == "'" and (m := re.compile(r"'(\\(x..|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'").match(text, i)):
            out.append(blank(m.group(0)))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


TEST_MOD = re.compile(r"^[ \t]*#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s", re.M)


def code_end(stripped: str) -> int:
    """Offset of the file's `#[cfg(test)] mod` (its end when there is none)."""
    m = TEST_MOD.search(stripped)
    return m.start() if m else len(stripped)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# ---------------------------------------------------------------- rule: lines


def is_test_file(path: str) -> bool:
    """An integration test or benchmark file (`tests/`, `benches/`): all of it is tests."""
    return bool({"tests", "benches"} & set(Path(path).parts[:-1]))


def lines_before_tests(stripped: str) -> int:
    end = code_end(stripped)
    return stripped[:end].rstrip().count("\n") + 1 if stripped[:end].strip() else 0


# ---------------------------------------------------------------- rule: component

COMPONENT = re.compile(r"#\[(?:leptos::)?component(?:\([^)]*\))?\]")
FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def components(stripped: str) -> list[tuple[str, int, int]]:
    """(name, line of `fn`, length in lines) of every `#[component]` function."""
    found = []
    for m in COMPONENT.finditer(stripped):
        f = FN.search(stripped, m.end())
        if not f:
            continue
        brace = stripped.find("{", f.end())
        if brace < 0:
            continue
        depth, j = 0, brace
        while j < len(stripped):
            if stripped[j] == "{":
                depth += 1
            elif stripped[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        start, end = line_of(stripped, f.start()), line_of(stripped, j)
        found.append((f.group(1), start, end - start + 1))
    return found


# ---------------------------------------------------------------- rule: circle


@dataclass
class Module:
    path: str  # repository-relative file path
    stripped: str
    children: dict[str, str] = field(default_factory=dict)  # name -> file path
    parent: str | None = None
    reexports: dict[str, list[str]] = field(default_factory=dict)  # name -> absolute path
    crate_root: str = ""
    mod_path: list[str] = field(default_factory=list)


MOD_DECL = re.compile(r"(?:^|[;{}\]\s])(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;")
USE = re.compile(r"(?<![A-Za-z0-9_])(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
QUALIFIED = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")


def child_dir(path: str, is_root: bool) -> str:
    p = Path(path)
    if is_root or p.name == "mod.rs":
        return str(p.parent)
    return str(p.parent / p.stem)


def expand_use(tree: str) -> list[tuple[list[str], str]]:
    """A use tree as (path segments, local name) pairs; `*` and `self` kept as segments."""
    tree = re.sub(r"\s+", "", tree)
    results: list[tuple[list[str], str]] = []

    def split_top(s: str) -> list[str]:
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    def walk(prefix: list[str], s: str) -> None:
        if not s:
            return
        brace = s.find("{")
        if brace >= 0 and s.endswith("}"):
            head = [x for x in s[:brace].split("::") if x]
            for part in split_top(s[brace + 1 : -1]):
                walk(prefix + head, part)
            return
        segs = [x for x in s.split("::") if x]
        if segs and segs[-1] == "self":
            segs = segs[:-1]
        results.append((prefix + segs, segs[-1] if segs else ""))

    walk([], tree)
    return results


def use_paths(raw: str) -> list[tuple[list[str], str]]:
    """Like expand_use, but reads `as` aliases before whitespace is removed."""
    aliased = re.sub(r"\s+as\s+([A-Za-z_][A-Za-z0-9_]*)", r"@\1", raw)
    pairs = []
    for segs, _ in expand_use(aliased):
        alias = None
        if segs and "@" in segs[-1]:
            last, alias = segs[-1].split("@", 1)
            segs = segs[:-1] + [last]
        pairs.append((segs, alias or (segs[-1] if segs else "")))
    return pairs


class Graph:
    def __init__(self, files: dict[str, str]):
        self.mods: dict[str, Module] = {p: Module(p, strip(t)) for p, t in files.items()}
        for m in self.mods.values():
            for name in MOD_DECL.findall(m.stripped[: code_end(m.stripped)]):
                m.children[name] = ""
        # resolve children to files: roots are files no declaration reaches
        roots = set(self.mods)
        for _ in range(2):
            for p, m in self.mods.items():
                base = child_dir(p, p in roots)
                for name in list(m.children):
                    for cand in (f"{base}/{name}.rs", f"{base}/{name}/mod.rs"):
                        if cand in self.mods:
                            m.children[name] = cand
                            break
            reached = {c for m in self.mods.values() for c in m.children.values() if c}
            roots = set(self.mods) - reached
        for p, m in self.mods.items():
            for c in m.children.values():
                if c:
                    self.mods[c].parent = p
        for r in roots:
            self._place(r, r, [])
        for m in self.mods.values():
            code = m.stripped[: code_end(m.stripped)]
            for u in USE.finditer(code):
                if not u.group(1):
                    continue
                for segs, name in use_paths(u.group(2)):
                    if segs and segs[-1] != "*":
                        m.reexports[name] = self.absolute(m, segs) or []

    def _place(self, path: str, root: str, mod_path: list[str]) -> None:
        m = self.mods[path]
        m.crate_root, m.mod_path = root, mod_path
        for name, c in m.children.items():
            if c and not self.mods[c].crate_root:
                self._place(c, root, mod_path + [name])

    def absolute(self, m: Module, segs: list[str]) -> list[str] | None:
        """`segs` as a path from m's crate root, or None for another crate's path."""
        if not segs:
            return None
        head, rest = segs[0], segs[1:]
        if head == "crate":
            return rest
        if head in ("self", "super"):
            base = list(m.mod_path)
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    if not base:
                        return None
                    base = base[:-1]
                segs = segs[1:]
            return base + segs
        if head in m.children or head in m.reexports:
            return m.mod_path + segs
        return None

    def module_file(self, root: str, mod_path: list[str]) -> str | None:
        cur = root
        for name in mod_path:
            nxt = self.mods[cur].children.get(name)
            if not nxt:
                return None
            cur = nxt
        return cur

    def resolve(self, root: str, path: list[str], depth: int = 0) -> str | None:
        """The file defining the item `path` (from the crate root)."""
        cur, i = root, 0
        while i < len(path) and self.mods[cur].children.get(path[i]):
            cur, i = self.mods[cur].children[path[i]], i + 1
        if i < len(path) and depth < 16:
            target = self.mods[cur].reexports.get(path[i])
            if target:
                found = self.resolve(root, target + path[i + 1 :], depth + 1)
                if found:
                    return found
        return cur

    def in_subtree(self, ancestor: str, path: str) -> bool:
        p: str | None = path
        while p:
            if p == ancestor:
                return True
            p = self.mods[p].parent
        return False

    def edges(self) -> dict[str, dict[str, int]]:
        """file -> {file it uses: line of the first such use}."""
        out: dict[str, dict[str, int]] = {p: {} for p in self.mods}
        for p, m in self.mods.items():
            if not m.crate_root:
                continue
            code = m.stripped[: code_end(m.stripped)]
            found: list[tuple[int, list[str]]] = []
            for u in USE.finditer(code):
                for segs, _ in use_paths(u.group(2)):
                    found.append((u.start(2), [s for s in segs if s != "*"]))
            use_spans = [(u.start(), u.end()) for u in USE.finditer(code)]
            for q in QUALIFIED.finditer(code):
                if any(a <= q.start() < b for a, b in use_spans):
                    continue
                found.append((q.start(), re.sub(r"\s+", "", q.group(1)).split("::")))
            for offset, segs in found:
                absolute = self.absolute(m, segs)
                if absolute is None:
                    continue
                target = self.resolve(m.crate_root, absolute)
                if not target or target == p or self.in_subtree(p, target):
                    continue
                out[p].setdefault(target, line_of(m.stripped, offset))
        return out


def circles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one file (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
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

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


# ---------------------------------------------------------------- rule: folder

UI = "src/ui/"
SHARED_FOLDERS = {"platform", "widgets", "state"}


def ui_folder(path: str) -> str | None:
    """The folder of src/ui a file lives in (`decode` for src/ui/decode/view.rs), or
    None for a file outside src/ui or directly in it."""
    if not path.startswith(UI):
        return None
    parts = path[len(UI):].split("/")
    return parts[0] if len(parts) > 1 else None


def folder_violations(edges: dict[str, dict[str, int]]) -> list[Violation]:
    """Circles between src/ui's folders, and arrows from a shared folder into a feature."""
    out: list[Violation] = []
    folder_edges: dict[str, dict[str, tuple[str, int, str]]] = {}
    for a, targets in sorted(edges.items()):
        fa = ui_folder(a)
        if fa is None:
            continue
        for b, line in sorted(targets.items()):
            fb = ui_folder(b)
            if fb is None or fb == fa:
                continue
            folder_edges.setdefault(fa, {}).setdefault(fb, (a, line, b))
            if fb == "app":
                out.append(Violation(a, line, "folder", f"uses {b}: ui/app is the top, nothing imports it"))
            elif fa in SHARED_FOLDERS and fb not in SHARED_FOLDERS:
                out.append(Violation(a, line, "folder", f"uses {b}: the shared ui/{fa} imports the feature ui/{fb}"))
    graph = {f: {g: 0 for g in gs} for f, gs in folder_edges.items()}
    for comp in circles(graph):
        members = set(comp)
        for f in comp:
            for g, (a, line, b) in sorted(folder_edges[f].items()):
                if g in members:
                    others = " -> ".join(comp)
                    out.append(Violation(a, line, "folder", f"uses {b}, in the folder circle {others}"))
                    break
    return out


# ---------------------------------------------------------------- the check


@dataclass
class Violation:
    path: str
    line: int
    rule: str
    message: str


def check(files: dict[str, str]) -> tuple[list[Violation], list[tuple[str, int]], list[tuple[str, str, int]]]:
    """Violations, plus (file, lines) and (file, component, lines) for the report."""
    violations: list[Violation] = []
    sizes, comps = [], []
    for path, text in sorted(files.items()):
        stripped = strip(text)
        n = 0 if is_test_file(path) else lines_before_tests(stripped)
        sizes.append((path, n))
        if n > MAX_LINES:
            violations.append(Violation(path, MAX_LINES + 1, "lines", f"{n} lines before its tests (at most {MAX_LINES})"))
        for name, line, length in components(stripped):
            comps.append((path, name, length))
            if length > MAX_COMPONENT:
                violations.append(
                    Violation(path, line, "component", f"#[component] {name} is {length} lines (at most {MAX_COMPONENT})")
                )
    edges = Graph(files).edges()
    for comp in circles(edges):
        members = set(comp)
        for a in comp:
            for b, line in sorted(edges[a].items()):
                if b in members:
                    others = " -> ".join(comp)
                    violations.append(Violation(a, line, "circle", f"uses {b}, in the import circle {others}"))
                    break
    violations += folder_violations(edges)
    return violations, sizes, comps


def repo_files(root: Path) -> dict[str, str]:
    files = {}
    for top in ROOTS:
        base = root / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for f in filenames:
                if f.endswith(".rs"):
                    p = Path(dirpath) / f
                    files[str(p.relative_to(root))] = p.read_text(encoding="utf-8")
    return files


def read_allow(path: Path) -> set[tuple[str, str]]:
    allowed = set()
    if path.exists():
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.split("#", 1)[0].strip()
            if line:
                file, rule = line.split()
                allowed.add((file, rule))
    return allowed


# ---------------------------------------------------------------- self-test


def self_test() -> int:
    long_file = "fn f() {}\n" * (MAX_LINES + 1)
    short_with_long_tests = "fn f() {}\n" * 10 + "#[cfg(test)]\nmod tests {\n" + "fn t() {}\n" * 900 + "}\n"
    component = lambda n: "#[component]\nfn Big() -> impl IntoView {\n" + "    let x = \"{\";\n" * (n - 2) + "}\n"
    cases: list[tuple[str, dict[str, str], set[tuple[str, str]]]] = [
        ("a file over the limit", {"src/lib.rs": long_file}, {("src/lib.rs", "lines")}),
        ("tests below the code do not count", {"src/lib.rs": short_with_long_tests}, set()),
        ("an integration test file is all tests", {"crates/e/tests/big.rs": long_file}, set()),
        ("a long component", {"src/lib.rs": component(MAX_COMPONENT + 1)}, {("src/lib.rs", "component")}),
        ("a component at the limit", {"src/lib.rs": component(MAX_COMPONENT)}, set()),
        (
            "two siblings using each other",
            {"src/lib.rs": "mod a;\nmod b;\n", "src/a.rs": "use crate::b::B;\npub struct A;\n", "src/b.rs": "use super::a::A;\npub struct B;\n"},
            {("src/a.rs", "circle"), ("src/b.rs", "circle")},
        ),
        (
            "a circle through a re-export and a qualified path",
            {
                "src/lib.rs": "mod x;\nmod y;\npub use y::Y;\n",
                "src/x.rs": "pub fn f() -> crate::Y { todo!() }\n",
                "src/y/mod.rs": "mod z;\npub use z::Y;\n",
                "src/y/z.rs": "use crate::x;\npub struct Y;\nfn g() { x::f(); }\n",
            },
            {("src/x.rs", "circle"), ("src/y/z.rs", "circle")},
        ),
        (
            "a parent and its children are not a circle",
            {"src/lib.rs": "mod a;\npub use a::A;\nuse a::helper;\npub struct Root;\n", "src/a.rs": "use crate::Root;\npub struct A;\npub fn helper() {}\n"},
            set(),
        ),
        (
            "test code and strings do not make edges",
            {
                "src/lib.rs": "mod a;\nmod b;\n",
                "src/a.rs": 'pub fn f() -> &str { "use crate::b::B;" }\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n',
                "src/b.rs": "use crate::a::f;\npub struct B;\n",
            },
            set(),
        ),
    ]
    ui = {"src/lib.rs": "pub mod ui;\n", "src/ui/mod.rs": "pub mod a;\npub mod b;\npub mod widgets;\n"}
    cases += [
        (
            "two ui folders using each other, through different files",
            {
                **ui,
                "src/ui/a/mod.rs": "pub mod one;\npub mod two;\n",
                "src/ui/a/one.rs": "use crate::ui::b::three::C;\npub struct A;\n",
                "src/ui/a/two.rs": "pub struct B;\n",
                "src/ui/b/mod.rs": "pub mod three;\n",
                "src/ui/b/three.rs": "use crate::ui::a::two::B;\npub struct C;\n",
                "src/ui/widgets/mod.rs": "",
            },
            {("src/ui/a/one.rs", "folder"), ("src/ui/b/three.rs", "folder")},
        ),
        (
            "a shared folder importing a feature",
            {
                **ui,
                "src/ui/a/mod.rs": "pub struct A;\n",
                "src/ui/b/mod.rs": "",
                "src/ui/widgets/mod.rs": "use crate::ui::a::A;\n",
            },
            {("src/ui/widgets/mod.rs", "folder")},
        ),
        (
            "a feature importing a shared folder",
            {
                **ui,
                "src/ui/a/mod.rs": "use crate::ui::widgets::W;\n",
                "src/ui/b/mod.rs": "",
                "src/ui/widgets/mod.rs": "pub struct W;\n",
            },
            set(),
        ),
    ]
    failed = 0
    for name, files, expected in cases:
        violations, _, _ = check(files)
        got = {(v.path, v.rule) for v in violations}
        ok = got == expected
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": expected {sorted(expected)}, got {sorted(got)}"))
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report", action="store_true", help="also list the longest files and components")
    parser.add_argument("--self-test", action="store_true", help="check the rules on fixture strings")
    parser.add_argument("--no-allow", action="store_true", help=f"ignore {ALLOW_FILE}")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = Path(__file__).resolve().parent.parent
    violations, sizes, comps = check(repo_files(root))
    allowed = set() if args.no_allow else read_allow(root / ALLOW_FILE)
    failing = allowed_count = 0
    for v in sorted(violations, key=lambda v: (v.rule, v.path, v.line)):
        ok = (v.path, v.rule) in allowed
        failing += not ok
        allowed_count += ok
        print(f"{v.path}:{v.line}: {v.rule}: {v.message}{'  (allowed in ' + ALLOW_FILE + ')' if ok else ''}")
    found = {(v.path, v.rule) for v in violations}
    for path, rule in sorted(allowed - found):
        failing += 1
        print(f"{ALLOW_FILE}: '{path} {rule}' is no longer a violation: remove the line")
    if args.report:
        print("\nlongest files (lines before their tests):")
        for path, n in sorted(sizes, key=lambda s: -s[1])[:15]:
            print(f"  {n:5}  {path}")
        print("\nlongest components (lines):")
        for path, name, n in sorted(comps, key=lambda c: -c[2])[:15]:
            print(f"  {n:5}  {name}  ({path})")
    print(f"\nshape: {len(violations)} violations, {allowed_count} allowed, {failing} failing")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
