"""The import contract: synth's layers import downward only (frontend < analysis < grammar <
semantics < synthesis < validation < codegen < pipeline < backends < bench < driver < cli), read
from the source (every import, at module level or inside a function). Modules outside the
layers (synth.errors, synth.numerics, synth.execution, synth/__init__) may be imported by
any layer. KNOWN lists the upward imports not removed yet: the test fails on a new one, and
on a known one that is gone (so the list only shrinks)."""

import ast
import sys
from pathlib import Path

import synth

LAYERS = ["frontend", "analysis", "grammar", "semantics", "synthesis", "validation", "codegen",
          "pipeline", "backends", "bench", "driver", "cli"]
ROOT = Path(synth.__file__).resolve().parent

# (importing module, imported module): upward imports still there
KNOWN: set[tuple[str, str]] = set()


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "synth":
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def upward_imports() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(ROOT.rglob("*.py")):
        name = _module_name(path)
        mine = _layer(name)
        if mine is None:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            else:
                continue
            for t in targets:
                theirs = _layer(t)
                if theirs is not None and theirs > mine:
                    found.add((name, ".".join(t.split(".")[:2])))
    return found


def test_layers_import_downward_only():
    found = upward_imports()
    new = sorted(found - KNOWN)
    gone = sorted(KNOWN - found)
    assert not new, "upward imports (a lower layer importing a higher one): " + ", ".join(f"{a} -> {b}" for a, b in new)
    assert not gone, "remove from KNOWN, no longer there: " + ", ".join(f"{a} -> {b}" for a, b in gone)


def test_python_api_defaults_are_the_cli_defaults():
    """`synth.raise_module`'s keyword defaults equal `synth raise`'s option defaults."""
    import inspect

    from synth.cli import build_parser

    cli = vars(build_parser().parse_args(["raise", "k.mlir", "--target", "linalg"]))
    api = {k: p.default for k, p in inspect.signature(synth.raise_module).parameters.items()
           if p.default is not inspect.Parameter.empty}
    assert set(api) == {"function", "timeout", "max_size", "verify", "z3_timeout", "seed", "shapes"}
    assert {k: cli[k] for k in api} == api


def test_python_verify_defaults_are_the_cli_defaults():
    """`synth.verify`'s keyword defaults equal `synth verify`'s (it defaulted to level "z3"
    where the CLI's default is "all")."""
    import inspect

    from synth.cli import build_parser

    cli = vars(build_parser().parse_args(["verify", "k.mlir", "k.raised.mlir"]))
    api = {k: p.default for k, p in inspect.signature(synth.verify).parameters.items()
           if p.default is not inspect.Parameter.empty}
    assert set(api) == {"function", "level", "seed", "z3_timeout"}
    assert {k: cli[k] for k in api} == api


def test_no_module_is_over_600_lines():
    """Modules readable in one sitting: none of synth's is over 600 lines."""
    long = {str(p.relative_to(ROOT)): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 600}
    assert not long, f"modules over 600 lines: {long}"


def _imported_module(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module name of `from ... import`, relative forms resolved against `path`."""
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    package = package[: len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def private_imports() -> list[str]:
    """`from synth.X import _name` (a private name of another synth module) anywhere in synth,
    and `module._name` where `module` was imported as a synth module."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _imported_module(path, node)
                if not source.startswith("synth"):
                    continue
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {source}.{a.name}")
                    elif (ROOT.parent / (source + "." + a.name).replace(".", "/")).with_suffix(".py").exists():
                        modules[a.asname or a.name] = f"{source}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("synth"):
                        modules[a.asname or "synth"] = a.name if a.asname else "synth"
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
                continue
            owner = _dotted(node.value)
            head, _, rest = (owner or "").partition(".")
            if head in modules:
                module = modules[head] + ("." + rest if rest else "")
                if (ROOT.parent / module.replace(".", "/")).with_suffix(".py").exists() or \
                        (ROOT.parent / module.replace(".", "/") / "__init__.py").exists():
                    found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {module}.{node.attr}")
    return found


def _dotted(node) -> str | None:
    """`a.b.c` of a chain of attributes on a name; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def test_no_module_imports_another_modules_private_names():
    """A helper shared between modules has a public name in the module that owns it: no synth
    module reaches into another for a `_private` name."""
    found = private_imports()
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def test_private_import_scan_finds_a_private_import(tmp_path, monkeypatch):
    """The scan above is not vacuous: a module that imports a private name is reported."""
    package = tmp_path / "synth"
    (package / "synthesis").mkdir(parents=True)
    (package / "synthesis" / "a.py").write_text("def _helper():\n    return 1\n")
    (package / "synthesis" / "b.py").write_text("from synth.synthesis.a import _helper\n"
                                              "from synth.synthesis import a\nx = a._helper()\n"
                                              "import synth.synthesis.a\ny = synth.synthesis.a._helper()\n"
                                              "z = a.helper()._private  # an object's attribute: not a module's\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", package)
    assert private_imports() == ["synth/synthesis/b.py:1: synth.synthesis.a._helper",
                                 "synth/synthesis/b.py:3: synth.synthesis.a._helper",
                                 "synth/synthesis/b.py:5: synth.synthesis.a._helper"]
