"""The package's imports (at module level and inside functions alike) form no circle and run only downward through
its layers: the base modules, then optimizers and callbacks, then the engine, then the bridge and conformance, then
the programs."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "tfnet_train"

#: Layer of each top-level part of the package, lowest first; an import may stay in its layer or go lower.
LAYERS = {
    "tolerances": 0, "semantics": 0, "files": 0, "archives": 0, "distribution": 0, "keras_internals": 0,
    "extras": 0,
    "optimizers": 1, "callbacks": 1,
    "engine": 2,
    "bridge": 3, "conformance": 3,
    "cli": 4, "demo": 4, "launch": 4, "__init__": 4, "dotnet": 4,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules ``path`` imports anywhere in it (``from package import submodule`` names the
    submodule)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("tfnet_train"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tfnet_train"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return {name for name in found if name in known} - {module_name(path)}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(path, known) for name, path in known.items()}


def part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_part_of_the_package_has_a_layer() -> None:
    assert {part(m) for m in modules()} <= set(LAYERS), {part(m) for m in modules()} - set(LAYERS)


def test_no_import_circle() -> None:
    assert cycles(graph()) == []


def test_imports_go_only_downward() -> None:
    upward = [f"{a} -> {b}" for a, targets in sorted(graph().items()) for b in sorted(targets)
              if LAYERS[part(b)] > LAYERS[part(a)]]
    assert upward == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
