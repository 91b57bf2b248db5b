#!/usr/bin/env python3
"""Builds vtk's libFuzzer targets (libFuzzer + AddressSanitizer) with swiftc, without SwiftPM.

    Tools/Fuzz/build.py [BUILD_DIR] [TARGET...]   (default /tmp/vtk-fuzz/build; FUZZ_OPT=-Onone for a debug build)

Nothing here is listed by hand, so it cannot rot when a module gains a dependency or a file:
- the targets are the harnesses, Tools/Fuzz/Fuzz<Name>.swift -> fuzz-<name>;
- the modules a harness needs are its `import`s, closed over the target dependencies that
  `swift package dump-package` reports from Package.swift; system libraries (CLibAVUtil, ...) give swiftc
  their module-map folder and pkg-config flags;
- a harness that must reach a module's internal API names it on a line
  `// fuzz-inside: Sources/Module/Seed.swift ...`: it is compiled in one module with those seeds and every
  file of that folder that declares a top-level name the set uses, repeated until nothing is added.

Each library module is compiled once, instrumented, into BUILD/<Module>.o and BUILD/<Module>.swiftmodule,
in dependency order, and rebuilt only when one of its sources (or a module it imports) changed.
"""
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
FUZZ = os.path.join(ROOT, "Tools", "Fuzz")
SWIFTC = os.environ.get("SWIFTC", "swiftc")
OPT = os.environ.get("FUZZ_OPT", "-O")
SAN = "-sanitize=fuzzer,address"


def log(message):
    print("fuzz: " + message, flush=True)


def run(command):
    result = subprocess.run(command)
    if result.returncode != 0:
        sys.exit("fuzz: failed: " + " ".join(shlex.quote(c) for c in command))


def package_targets():
    """Package.swift's targets by name: type, source folder, dependencies, pkg-config name."""
    out = subprocess.run(["swift", "package", "--package-path", ROOT, "dump-package"],
                         check=True, capture_output=True, text=True).stdout
    targets = {}
    for t in json.loads(out)["targets"]:
        deps = []
        for d in t["dependencies"]:
            for kind in ("byName", "target"):
                if kind in d:
                    deps.append(d[kind][0])
        path = t.get("path") or os.path.join("Tests" if t["type"] == "test" else "Sources", t["name"])
        targets[t["name"]] = {"type": t["type"], "path": os.path.join(ROOT, path), "deps": deps,
                              "pkgConfig": t.get("pkgConfig")}
    return targets


def swift_files(folder):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(".swift"))


IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|enum|class|func|protocol|typealias|var|let)\s+)?(\w+)", re.M)


def imports(files):
    names = set()
    for f in files:
        with open(f, encoding="utf-8") as handle:
            names.update(IMPORT.findall(handle.read()))
    return names


def closure(roots, targets):
    """The package targets that `roots` need, dependencies first."""
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in targets:
            return
        seen.add(name)
        for dep in targets[name]["deps"]:
            visit(dep)
        order.append(name)

    for name in sorted(roots):
        visit(name)
    return order


def system_flags(names, targets):
    """swiftc flags for the system libraries among `names`: module-map folder, pkg-config cflags and libs."""
    flags = []
    for name in names:
        t = targets[name]
        if t["type"] != "system":
            continue
        flags += ["-I", t["path"]]
        if t["pkgConfig"]:
            for kind, prefix in (("--cflags", "-Xcc"), ("--libs", None)):
                out = subprocess.run(["pkg-config", kind, t["pkgConfig"]], capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"fuzz: pkg-config {kind} {t['pkgConfig']} failed (make deps installs it)")
                for flag in shlex.split(out.stdout):
                    flags += [prefix, flag] if prefix else [flag]
    return flags


DECLARATION = re.compile(
    r"^(?:public |internal |fileprivate |private |final |indirect |@\w+ )*"
    r"(?:struct|enum|class|actor|protocol|typealias|func|let|var)\s+(\w+)", re.M)


def inside_sources(seeds, folder):
    """Seeds plus every file in `folder` declaring a top-level name the set uses, until nothing is added."""
    declared = {}
    for f in swift_files(folder):
        with open(f, encoding="utf-8") as handle:
            for name in DECLARATION.findall(handle.read()):
                declared.setdefault(name, set()).add(f)
    chosen, pending = set(), list(seeds)
    while pending:
        f = pending.pop()
        if f in chosen:
            continue
        chosen.add(f)
        with open(f, encoding="utf-8") as handle:
            words = set(re.findall(r"\b\w+\b", handle.read()))
        for word in words & declared.keys():
            pending += sorted(declared[word] - chosen)
    return sorted(chosen)


class Builder:
    def __init__(self, build):
        self.build = build
        self.targets = package_targets()
        self.rebuilt = set()
        self.done = set()
        self.script_time = os.path.getmtime(__file__)

    def stale(self, sources, output, deps):
        if not os.path.exists(output) or any(d in self.rebuilt for d in deps):
            return True
        built = os.path.getmtime(output)
        return self.script_time > built or any(os.path.getmtime(s) > built for s in sources)

    def module(self, name):
        if name in self.done:
            return
        self.done.add(name)
        t = self.targets[name]
        if t["type"] == "system":
            return
        sources = swift_files(t["path"])
        needs = closure(t["deps"], self.targets)
        obj = os.path.join(self.build, name + ".o")
        if not self.stale(sources, obj, needs):
            return
        self.rebuilt.add(name)
        log("compiling module " + name)
        run([SWIFTC, "-parse-as-library", "-wmo", OPT, "-g", SAN, "-module-name", name, "-I", self.build,
             *system_flags(needs, self.targets),
             "-emit-module", "-emit-module-path", os.path.join(self.build, name + ".swiftmodule"),
             "-c", *sources, "-o", obj])

    def harness(self, harness):
        stem = os.path.basename(harness)[len("Fuzz"):-len(".swift")]
        name = "fuzz-" + stem.lower()
        with open(harness, encoding="utf-8") as handle:
            text = handle.read()
        seeds = [os.path.join(ROOT, s) for line in re.findall(r"^// fuzz-inside:(.*)$", text, re.M)
                 for s in line.split()]
        extra = inside_sources(seeds, os.path.dirname(seeds[0])) if seeds else []
        sources = [harness] + extra
        inside = {os.path.basename(os.path.dirname(s)) for s in seeds}
        modules = closure(imports(sources) - inside, self.targets)
        for m in modules:
            self.module(m)
        objects = [os.path.join(self.build, m + ".o") for m in modules if self.targets[m]["type"] != "system"]
        output = os.path.join(self.build, name)
        if not self.stale(sources, output, modules):
            return name
        log(f"linking {name} ({', '.join(m for m in modules if self.targets[m]['type'] != 'system') or 'no modules'}"
            + (f"; inside: {len(extra)} files" if extra else "") + ")")
        run([SWIFTC, "-parse-as-library", OPT, "-g", SAN, "-module-name", "Fuzz" + stem, "-I", self.build,
             *system_flags(modules, self.targets), "-use-ld=lld", *sources, *objects, "-o", output])
        return name


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args and not args[0].startswith("fuzz-") else "/tmp/vtk-fuzz/build"
    os.makedirs(build, exist_ok=True)
    harnesses = sorted(os.path.join(FUZZ, f) for f in os.listdir(FUZZ) if re.fullmatch(r"Fuzz\w+\.swift", f))
    if args:
        harnesses = [h for h in harnesses if "fuzz-" + os.path.basename(h)[4:-6].lower() in args]
    builder = Builder(build)
    names = [builder.harness(h) for h in harnesses]
    log(f"{len(names)} targets in {build}: {' '.join(names)}")


if __name__ == "__main__":
    main()
