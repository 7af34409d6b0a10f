"""The house explains itself: small modules, no import cycle, no family
reaching into another family's modules (issue "jaxmatch 1.0")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "jaxmatch"
FAMILIES = ("lap", "matching", "weighted")

#: The longest file allowed: Python under jaxmatch/, C++ and CUDA under cuda_ffi/.
MAX_PYTHON_LINES = 600
MAX_CPP_LINES = 800


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The jaxmatch modules ``path`` imports, at any depth of its code
    (imports inside functions too), resolved to module names."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("jaxmatch"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("jaxmatch"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if _exists(sub) else target)
    return {m for m in found if _exists(m)}


def _exists(module: str) -> bool:
    path = ROOT.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_no_import_cycle_in_the_package():
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            # A package's __init__ importing its own submodules is the
            # package's doing, not a cycle of the submodules.
            if node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_no_family_imports_another_familys_modules():
    for module, targets in _graph().items():
        parts = module.split(".")
        if len(parts) < 2 or parts[1] not in FAMILIES:
            continue
        for target in targets:
            tparts = target.split(".")
            if len(tparts) >= 2 and tparts[1] in FAMILIES and tparts[1] != parts[1]:
                pytest.fail(f"{module} imports {target}: share it through a neutral module")


def test_python_modules_are_small():
    long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_PYTHON_LINES
    }
    assert long == {}


def test_cpp_files_are_small():
    suffixes = {".h", ".cc", ".cu", ".cuh"}
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "cuda_ffi").rglob("*")
        if p.suffix in suffixes and (n := len(p.read_text().splitlines())) > MAX_CPP_LINES
    }
    assert long == {}


def test_each_lap_solver_has_a_room_on_both_sides():
    for room in ("hungarian", "jv", "split", "sparse", "points"):
        assert (PACKAGE / "lap" / room / "__init__.py").exists(), room
        assert (ROOT / "cuda_ffi" / "lap" / room).is_dir(), room
