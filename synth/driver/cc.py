"""`synth cc`: a drop-in for the C compiler that builds C programs with their loop kernels
raised (`make CC="synth cc"`).

    synth cc [cc flags] FILES... [-c] [-o OUT] [--raise NAME] [--no-raise NAME]
             [--target linalg|stablehlo] [--verify all|z3|test] [--report FILE.json]
             [--jobs N] [--cache-dir DIR] [--timeout S] [--cc COMPILER]
             [--lowering tiled|any|loops] [--shapes auto|static|generic]
             [--keep-slower] [--compile-budget S] [--threads N]

Flags it does not own go to the system C compiler unchanged. For each `.c` file: its
function definitions (libclang, synth.driver.rewrite.scan) are translated by synth's C
front end; each static-control one is raised and validated (synth.pipeline), compiled to
an object (synth.driver.native) and cached (synth.driver.cache); the translation unit is
rewritten so the raised functions call that code (synth.driver.rewrite), compiled with
the user's flags, and combined with the objects (`ld -r`): that is the `-c` output, or what
is linked as `cc` would. Each raise is timed against the function as the user's compiler
builds it (synth.driver.timing): without --target, both targets are raised and the faster
used; a function whose raise is not faster than the original keeps its body (unless
--keep-slower), as does one that does not raise or whose raise is not validated. One line
per function on stderr says what happened; `--report` writes the same as JSON, with times.
Exit codes: the C compiler's; 2 for bad input to synth."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from synth.errors import InputError

TARGETS = ("linalg", "stablehlo")
VERIFY = ("all", "z3", "test")
# cc options whose value is the next argument
_WITH_VALUE = {"-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-L", "-l",
               "-x", "-MF", "-MT", "-MQ", "-Xlinker", "-Xpreprocessor", "-Xassembler", "-arch", "-T", "-u", "-z"}
# preprocessor options libclang needs to read the file as cc does
_PREPROCESSOR = ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-std=")
_LINK_ONLY = ("-l", "-L", "-Wl,", "-Xlinker", "-T", "-u", "-z")
_NOT_COMPILING = ("-E", "-S", "-M", "-MM", "-x", "-v", "-###", "--version", "-dumpversion", "-dumpmachine",
                  "--help")
_OWN_WITH_VALUE = {"--raise", "--no-raise", "--target", "--verify", "--report", "--jobs", "--cache-dir", "--timeout",
                   "--cc", "--lowering", "--shapes", "--compile-budget", "--threads"}
_OWN_FLAGS = {"--keep-slower"}


@dataclass
class Options:
    raise_only: list[str] = field(default_factory=list)
    no_raise: list[str] = field(default_factory=list)
    target: str = "auto"  # both targets, the faster (synth.driver.jobs)
    verify: str = "all"
    report: str | None = None
    jobs: int = 1
    cache_dir: str | None = None
    timeout: float = 60.0
    compiler: str = "cc"
    lowering: str = "tiled"
    shapes: str = "auto"
    keep_slower: bool = False
    compile_budget: float = 60.0
    threads: int = 1
    cc_args: list[str] = field(default_factory=list)  # everything else, in order
    sources: list[int] = field(default_factory=list)  # indices in cc_args of the .c inputs
    output: str | None = None
    compile_only: bool = False
    passthrough: bool = False  # -E, -S, -M ...: cc does it all
    march: str | None = None
    preprocessor: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)  # -MD, -MMD, -MP, -MF F, -MT T, -MQ T


def parse(argv: list[str]) -> Options:
    o = Options()
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        if a in _OWN_FLAGS:
            o.keep_slower = True
            i += 1
            continue
        if name in _OWN_WITH_VALUE:
            if not eq:
                if i + 1 >= len(argv):
                    raise InputError(f"synth cc: {name} needs a value")
                value, i = argv[i + 1], i + 1
            _own(o, name, value)
            i += 1
            continue
        o.cc_args.append(a)
        if a in _WITH_VALUE and i + 1 < len(argv):
            o.cc_args.append(argv[i + 1])
            if a == "-o":
                o.output = argv[i + 1]
            elif a in ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter"):
                o.preprocessor += [a, argv[i + 1]]
            if a == "-x":
                o.passthrough = True
            if a in ("-MF", "-MT", "-MQ"):
                o.dependencies += [a, argv[i + 1]]
            i += 2
            continue
        if a == "-c":
            o.compile_only = True
        elif a.startswith("-o") and len(a) > 2:
            o.output = a[2:]
        elif a in ("-MD", "-MMD", "-MP"):
            o.dependencies.append(a)
        elif a.startswith("-march="):
            o.march = a.split("=", 1)[1]
        elif a in _NOT_COMPILING or a.startswith("-x"):
            o.passthrough = True
        elif a.startswith(_PREPROCESSOR):
            o.preprocessor.append(a)
        elif not a.startswith("-") and a.endswith(".c"):
            o.sources.append(len(o.cc_args) - 1)
        i += 1
    return o


def _own(o: Options, name: str, value: str) -> None:
    if name == "--raise":
        o.raise_only += [v for v in value.split(",") if v]
    elif name == "--no-raise":
        o.no_raise += [v for v in value.split(",") if v]
    elif name == "--target":
        if value not in TARGETS:
            raise InputError(f"synth cc: --target takes {' or '.join(TARGETS)}, not '{value}'")
        o.target = value
    elif name == "--verify":
        if value not in VERIFY:
            raise InputError(f"synth cc: --verify takes {', '.join(VERIFY)}, not '{value}'")
        o.verify = value
    elif name == "--report":
        o.report = value
    elif name == "--jobs":
        if not value.isdigit() or int(value) < 1:
            raise InputError(f"synth cc: --jobs takes a positive integer, not '{value}'")
        o.jobs = int(value)
    elif name == "--timeout":
        try:
            o.timeout = float(value)
        except ValueError:
            o.timeout = -1.0
        if not o.timeout > 0:
            raise InputError(f"synth cc: --timeout takes a positive number of seconds, not '{value}'")
    elif name == "--compile-budget":
        try:
            o.compile_budget = float(value)
        except ValueError:
            o.compile_budget = -1.0
        if not o.compile_budget > 0:
            raise InputError(f"synth cc: --compile-budget takes a positive number of seconds, not '{value}'")
    elif name == "--threads":
        if not value.isdigit() or int(value) < 1:
            raise InputError(f"synth cc: --threads takes a positive integer, not '{value}'")
        o.threads = int(value)
    elif name == "--cache-dir":
        o.cache_dir = value
    elif name == "--cc":
        o.compiler = value
    elif name == "--shapes":
        if value not in ("auto", "static", "generic"):
            raise InputError(f"synth cc: --shapes takes auto, static or generic, not '{value}'")
        o.shapes = value
    elif name == "--lowering":
        if value not in ("tiled", "any", "loops"):
            raise InputError(f"synth cc: --lowering takes tiled, any or loops, not '{value}'")
        o.lowering = value


def _dependencies(o: Options, path: str, output: str) -> int:
    """-MD / -MMD: the dependency file of the unit as written (the rewritten copy lives in
    a directory that is removed), made by the compiler's preprocessor: -MF's file, else
    OUTPUT with .d; -MT / -MQ's targets, else OUTPUT."""
    deps = o.dependencies
    if "-MD" not in deps and "-MMD" not in deps:
        return 0
    cmd = [o.compiler, *_compile_flags(o), "-MM" if "-MMD" in deps else "-M"]
    if "-MP" in deps:
        cmd.append("-MP")
    given = {deps[k]: deps[k + 1] for k in range(len(deps) - 1) if deps[k] in ("-MF",)}
    cmd += ["-MF", given.get("-MF", str(Path(output).with_suffix(".d")))]
    targets = [deps[k:k + 2] for k in range(len(deps) - 1) if deps[k] in ("-MT", "-MQ")]
    cmd += [x for t in targets for x in t] or ["-MT", output]
    return _run_cc([*cmd, path])


def _run_cc(cmd: list[str]) -> int:
    try:
        return subprocess.run(cmd).returncode
    except FileNotFoundError:
        raise InputError(f"synth cc: the C compiler '{cmd[0]}' is not found (--cc names another)") from None


def _compile_flags(o: Options) -> list[str]:
    """The user's flags for compiling one unit: no inputs, -o, -c or link-only flags."""
    out, i, args = [], 0, o.cc_args
    while i < len(args):
        a = args[i]
        takes = a in _WITH_VALUE and i + 1 < len(args)
        if i in o.sources or a in ("-c", "-o", "-MD", "-MMD", "-MP", "-MF", "-MT", "-MQ") \
                or (a.startswith("-o") and len(a) > 2) \
                or a.startswith(_LINK_ONLY) or (not a.startswith("-") and not a.endswith(".c")):
            i += 2 if takes else 1
            continue
        out += args[i:i + 2] if takes else [a]
        i += 2 if takes else 1
    return out


class Build:
    def __init__(self, o: Options, work: Path):
        from synth.driver import cache

        self.o, self.work = o, work
        self.cache_dir = Path(o.cache_dir) if o.cache_dir else cache.default_dir()
        self.entries: list[dict] = []
        self.files: list[dict] = []

    def clang_args(self) -> list[str]:
        return [a for a in self.o.preprocessor if not a.startswith("-std=")]

    def jobs_for(self, path: str, sites: list):
        from synth.driver.jobs import Job

        defines, includes, std, flags, pre, i = [], [], self.std(), [], self.o.preprocessor, 0
        while i < len(pre):
            a = pre[i]
            if a in ("-D", "-I") and i + 1 < len(pre):
                (defines if a == "-D" else includes).append(pre[i + 1])
                i += 2
                continue
            if a in ("-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter") and i + 1 < len(pre):
                flags += pre[i:i + 2]
                i += 2
                continue
            if a.startswith("-D"):
                defines.append(a[2:])
            elif a.startswith("-I"):
                includes.append(a[2:])
            elif not a.startswith("-std="):
                flags.append(a)
            i += 1
        return [Job(path, s.name, tuple(defines), tuple(includes), std, tuple(flags), self.o.target, self.o.verify,
                    self.o.timeout, self.o.march, str(self.cache_dir), str(self.work), self.o.lowering,
                    self.o.shapes, tuple(s.params), self.o.compiler, tuple(_compile_flags(self.o)),
                    self.o.keep_slower, self.o.compile_budget) for s in sites]

    def run_jobs(self, jobs) -> list[dict]:
        from synth.driver.jobs import run_job

        if self.o.jobs <= 1 or len(jobs) <= 1:
            return [run_job(j) for j in jobs]
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(self.o.jobs, len(jobs)),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            return list(pool.map(run_job, jobs))

    def scan(self, path: str) -> list:
        """The function definitions of `path` ([] where libclang reports an error: the
        compiler then says what is wrong, or reads what libclang cannot)."""
        from synth.driver.rewrite import scan

        try:
            return scan(path, self.clang_args() + [f"-std={self.std()}"])
        except InputError as e:
            print(f"synth cc: {path}: not rewritten: {e}", file=sys.stderr)
            return []

    def unit_key(self, path: str) -> str | None:
        """The key of a whole unit: its text as the preprocessor gives it (`cc -E` with the
        user's flags), the flags, and synth cc's own options; None where `cc -E` fails."""
        from synth.driver import cache

        try:
            r = subprocess.run([self.o.compiler, *_compile_flags(self.o), "-E", path], capture_output=True)
        except OSError:
            return None
        if r.returncode != 0:
            return None
        o = self.o
        return cache.key("unit", r.stdout.decode(errors="replace"), _compile_flags(o), o.target, o.verify,
                         o.timeout, o.march, o.lowering, o.shapes, sorted(o.raise_only), sorted(o.no_raise),
                         o.compiler, o.keep_slower, o.compile_budget)

    def unit(self, index: int, path: str, sites: list | None) -> tuple[int, str | None]:
        """Compile one .c input to an object in the work directory: (cc's exit code, the
        object). A unit whose preprocessed text and flags were built before is taken from
        the cache whole: an unchanged rebuild costs a preprocessor run."""
        from synth.driver import cache

        t0 = time.monotonic()
        record = {"file": path, "functions": []}
        self.files.append(record)
        key = self.unit_key(path)
        hit = cache.load_unit(self.cache_dir, key) if key else None
        if hit is not None:
            obj = self.work / f"unit{index}.o"
            shutil.copyfile(hit[0], obj)
            for e in hit[1]:
                e = {**e, "file": path, "cached": True}
                self._say(e)
                self.entries.append(e)
                record["functions"].append(e["function"])
            record.update(cached=True, seconds=round(time.monotonic() - t0, 3))
            return 0, str(obj)
        first = len(self.entries)
        rc, obj = self._build_unit(index, path, self.scan(path) if sites is None else sites, record, t0)
        if rc == 0 and key:
            cache.store_unit(self.cache_dir, key, Path(obj), self.entries[first:])
        return rc, obj

    def _build_unit(self, index: int, path: str, sites: list, record: dict, t0: float) -> tuple[int, str | None]:
        from synth.driver.rewrite import Replacement, check_supported, rewrite
        from synth.driver.native import RUNTIME_C

        chosen = [s for s in sites if (not self.o.raise_only or s.name in self.o.raise_only)
                  and s.name not in self.o.no_raise]
        entries = self.run_jobs(self.jobs_for(path, chosen))
        replacements, objects = [], []
        for site, e in zip(chosen, entries):
            if e["status"] == "raised":
                why = check_supported(e["arguments"], e["results"], site.params)
                if why is not None:
                    e = {**e, "status": "kept", "reason": f"no C call for its signature: {why}"}
                else:
                    note = f"@{site.name} raised to {e['target']}, {e['verified']}"
                    replacements.append(Replacement(site, e["entry"], e["arguments"], e["results"], e["written"], note,
                                                    e.get("guard") or []))
                    if e["object"] not in objects:
                        objects.append(e["object"])
            self._say(e)
            self.entries.append(e)
            record["functions"].append(e["function"])
        obj = self.work / f"unit{index}.o"
        flags = _compile_flags(self.o)
        if replacements:
            needs_copy = any("memrefCopy" in e.get("undefined", ()) for e in entries if e["status"] == "raised")
            text = rewrite(path, replacements, RUNTIME_C if needs_copy else "")
            rewritten = self.work / f"unit{index}_{Path(path).stem}.c"
            rewritten.write_text(text)
            src_dir = str(Path(path).resolve().parent)
            cc_obj = self.work / f"unit{index}_cc.o"
            try:
                done = subprocess.run([self.o.compiler, *flags, "-iquote", src_dir, "-c", str(rewritten),
                                       "-o", str(cc_obj)], capture_output=True, text=True)
            except FileNotFoundError:
                raise InputError(f"synth cc: the C compiler '{self.o.compiler}' is not found") from None
            rc = done.returncode
            if rc == 0:
                sys.stderr.write(done.stderr)  # the compiler's warnings, on the user's lines
                ld = shutil.which("ld") or "ld"
                r = subprocess.run([ld, "-r", str(cc_obj), *objects, "-o", str(obj)], capture_output=True, text=True)
                if r.returncode == 0:
                    record["seconds"] = round(time.monotonic() - t0, 3)
                    return 0, str(obj)
                print(f"synth cc: {path}: ld -r failed ({r.stderr.strip()}); building it as written",
                      file=sys.stderr)
            else:
                first = next((ln for ln in done.stderr.splitlines() if "error" in ln), done.stderr.strip()[:200])
                print(f"synth cc: {path}: the rewritten unit did not compile ({first}); building it as written",
                      file=sys.stderr)
            for e in self.entries:
                if e["file"] == path and e["status"] == "raised":
                    e.update(status="kept", reason="the rewritten translation unit did not build")
        rc = _run_cc([self.o.compiler, *flags, "-c", path, "-o", str(obj)])
        record["seconds"] = round(time.monotonic() - t0, 3)
        return rc, (str(obj) if rc == 0 else None)

    def std(self) -> str:
        """The -std the user gave (the last), else gnu11 (what cc reads by default, near enough)."""
        given = [a.split("=", 1)[1] for a in self.o.preprocessor if a.startswith("-std=")]
        return given[-1] if given else "gnu11"

    def _say(self, e: dict) -> None:
        print(f"synth cc: {e['file']}: {e['function']}: {outcome_line(e)}", file=sys.stderr)


def outcome_line(e: dict) -> str:
    """What happened to one function, in words (synth cc's line on stderr): its target,
    verification, the times the choice was made on (fastest first), the other target
    where it was not used."""
    from synth.driver.timing import ORIGINAL, ms

    timing = e.get("timing") or {}
    times = timing.get("ms") or {}
    cached = ", cached" if e.get("cached") else ""
    if e["status"] != "raised":
        others = [t for t in times if e.get("raised_target") and t not in (e["raised_target"], ORIGINAL)]
        also = (f"; {e['raised_target']} the faster raise ({', '.join(f'{t} {ms(times[t])}' for t in others)})"
                if others else "")
        return f"kept as written: {e['reason']}{also}{cached}"
    line = f"raised to {e['target']}, {e['verified']}"
    if ORIGINAL in times:
        raised = sorted((v, t) for t, v in times.items() if t != ORIGINAL)
        line += f" ({', '.join(f'{t} {ms(v)}' for v, t in raised)}; {ORIGINAL} {ms(times[ORIGINAL])})"
    elif timing.get("error"):
        line += f" ({timing['error']})"
    line += cached
    for t, other in (e.get("targets") or {}).items():
        if t != e["target"] and other.get("status") != "raised":
            line += f"; {t} not used: {' '.join(str(other.get('reason')).split())[:160]}"
    return line


def usage() -> str:
    return __doc__.split("\n\n")[1] + "\n\n" + __doc__.split("\n\n", 2)[2]


def main(argv: list[str]) -> int:
    if argv in (["--help"], ["-h"]):
        print(usage())
        return 0
    o = parse(argv)
    t0 = time.monotonic()
    if o.passthrough or not o.sources:
        return _run_cc([o.compiler, *o.cc_args])
    for i in o.sources:
        if not os.path.isfile(o.cc_args[i]):
            raise InputError("no such file", o.cc_args[i])
    if o.compile_only and o.output and len(o.sources) > 1:
        raise InputError("synth cc: -o with -c names one output, but there are several .c inputs")
    if o.threads > 1:
        print(f"synth cc: --threads {o.threads}: the raised code is single-threaded (MLIR's OpenMP lowering "
              f"calls the __kmpc_* runtime, which the system compiler's libgomp does not provide)", file=sys.stderr)
    work = Path(tempfile.mkdtemp(prefix="synth-cc-"))
    build = Build(o, work)
    sites = {i: build.scan(o.cc_args[i]) for i in o.sources} if o.raise_only else {i: None for i in o.sources}
    missing = sorted(set(o.raise_only) - {s.name for found in sites.values() for s in found or ()})
    if missing:
        shutil.rmtree(work, ignore_errors=True)
        raise InputError(f"synth cc: --raise names {', '.join(missing)}, which no input defines "
                         f"(functions: {', '.join(s.name for found in sites.values() for s in found or ()) or 'none'})")
    rc = 0
    try:
        objects = {}
        for n, i in enumerate(o.sources):
            rc, obj = build.unit(n, o.cc_args[i], sites[i])
            if rc != 0:
                break
            objects[i] = obj
        if rc == 0:
            if o.compile_only:
                for i, obj in objects.items():
                    out = o.output or Path(o.cc_args[i]).with_suffix(".o").name
                    shutil.copyfile(obj, out)
                    rc = rc or _dependencies(o, o.cc_args[i], out)
            else:
                link = [objects.get(i, a) for i, a in enumerate(o.cc_args)]
                t_link = time.monotonic()
                rc = _run_cc([o.compiler, *link])
                build.files.append({"link": True, "seconds": round(time.monotonic() - t_link, 3)})
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if o.report:
            report = {"exit_code": rc, "seconds": round(time.monotonic() - t0, 3), "target": o.target,
                      "verify": o.verify, "threads": 1, "functions": build.entries, "units": build.files}
            try:
                Path(o.report).write_text(json.dumps(report, indent=1, default=str))
            except OSError as e:
                print(f"synth cc: cannot write the report {o.report}: {e.strerror}", file=sys.stderr)
    return rc
