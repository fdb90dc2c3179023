#!/usr/bin/env python3
"""Code bytes per function and per Rust module of a wasm file, from its name section.

A small stand-in for twiggy (not installed here): reads the code section's function
bodies and the "name" custom section's function names, demangles Rust's legacy
(`_ZN…E`) names to their paths, and sums the body sizes by path prefix. Run it on the
wasm cargo writes (target/wasm32-unknown-unknown/release/attention-lens.wasm), before
wasm-bindgen and wasm-opt strip the names: the sizes are those of the unoptimised
module, so they rank what is big rather than give the shipped bytes.

    python3 tools/wasm_sizes.py FILE.wasm [--depth N] [--top K] [--grep TEXT]
    python3 tools/wasm_sizes.py BEFORE.wasm AFTER.wasm [--depth N] [--top K]

With two files it prints what grew or shrank, module by module.
"""

import argparse
import re
import sys
from collections import Counter


def leb(data, i):
    """An unsigned LEB128 number at i: (value, next index)."""
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def demangle(name):
    """A legacy Rust symbol's path (`a::b::c`, the hash dropped); other names as they are."""
    m = re.match(r"_ZN(.*)E$", name)
    if not m:
        return name
    rest, parts = m.group(1), []
    while rest and rest[0].isdigit():
        n = re.match(r"\d+", rest).group(0)
        rest = rest[len(n):]
        parts.append(rest[: int(n)])
        rest = rest[int(n):]
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    path = "::".join(parts)
    for code, text in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$RF$", "&"), ("$C$", ","),
                       ("$LP$", "("), ("$RP$", ")"), ("..", "::"), ("$u7b$", "{"), ("$u7d$", "}"),
                       ("$BP$", "*"), ("$u27$", "'"), ("$u2b$", "+"), ("$u3d$", "=")):
        path = path.replace(code, text)
    return path[1:] if path.startswith("_<") else path


def functions(path):
    """[(name, body bytes)] for every function defined in the module."""
    data = open(path, "rb").read()
    if data[:4] != b"\0asm":
        sys.exit(f"{path}: not a wasm file")
    i, imported, bodies, names = 8, 0, [], {}
    while i < len(data):
        section, i = data[i], i + 1
        size, i = leb(data, i)
        end = i + size
        if section == 2:  # imports: imported functions take the first indices
            count, j = leb(data, i)
            for _ in range(count):
                for _ in range(2):  # module and field names
                    n, j = leb(data, j)
                    j += n
                kind, j = data[j], j + 1
                if kind == 0:
                    imported += 1
                    _, j = leb(data, j)
                elif kind == 1:
                    j += 1
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 2:
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 3:
                    j += 2
                else:
                    _, j = leb(data, j)  # a tag
        elif section == 10:  # code
            count, j = leb(data, i)
            for _ in range(count):
                n, j = leb(data, j)
                bodies.append(n)
                j += n
        elif section == 0:  # custom: the name section's function names
            n, j = leb(data, i)
            if data[j:j + n] == b"name":
                j += n
                while j < end:
                    sub, j = data[j], j + 1
                    sub_size, j = leb(data, j)
                    sub_end = j + sub_size
                    if sub == 1:
                        count, k = leb(data, j)
                        for _ in range(count):
                            index, k = leb(data, k)
                            length, k = leb(data, k)
                            names[index] = data[k:k + length].decode("utf-8", "replace")
                            k += length
                    j = sub_end
        i = end
    if not names:
        sys.exit(f"{path}: no name section (wasm-opt and wasm-bindgen strip it; use cargo's output)")
    return [(demangle(names.get(imported + n, f"func[{imported + n}]")), size) for n, size in enumerate(bodies)]


def module_of(path, depth):
    """The first `depth` segments of a function's path (inside `<… as …>`, the type's)."""
    m = re.match(r"<(.+?)( as .*)?>::", path)
    base = m.group(1) if m else path
    base = re.sub(r"<.*", "", base)
    return "::".join(base.split("::")[:depth])


def by_module(funcs, depth):
    sums = Counter()
    for name, size in funcs:
        sums[module_of(name, depth)] += size
    return sums


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--depth", type=int, default=3, help="path segments per module (default 3)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--grep", default=None, help="list the functions whose path contains this")
    args = ap.parse_args()
    if len(args.files) == 1:
        funcs = functions(args.files[0])
        print(f"{sum(s for _, s in funcs)} code bytes in {len(funcs)} functions")
        for module, size in by_module(funcs, args.depth).most_common(args.top):
            print(f"{size:9d}  {module}")
        if args.grep:
            # a function counts when the text is anywhere in its name, type parameters
            # included: generic code is compiled once per type, so a component's share of
            # the framework's code carries its name
            hits = sorted((f for f in funcs if args.grep in f[0]), key=lambda f: -f[1])
            print(f"{sum(s for _, s in hits)} code bytes in {len(hits)} functions naming {args.grep!r}:")
            for name, size in hits[: args.top]:
                print(f"{size:9d}  {name[:160]}")
        return
    before, after = (by_module(functions(f), args.depth) for f in args.files[:2])
    diff = {m: after[m] - before[m] for m in set(before) | set(after) if after[m] != before[m]}
    print(f"code bytes: {sum(before.values())} -> {sum(after.values())} ({sum(after.values()) - sum(before.values()):+d})")
    for module, change in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[: args.top]:
        print(f"{change:+9d}  {module}  ({before[module]} -> {after[module]})")


if __name__ == "__main__":
    main()
