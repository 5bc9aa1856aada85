"""The package's import graph: no circle, and `import cvreport` leaves the heavy parts unloaded."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import cvreport

PACKAGE = Path(cvreport.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """Every cvreport module ``path`` imports when run: at module level, in a function, by importlib."""
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for block in ast.walk(tree):  # imports for type checkers only are not run
        if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING":
            block.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in known else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(str(node.args[0].value))
    return {name for name in found if name in known}


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    known = set(paths)
    graph = {}
    for name, path in paths.items():
        # a package's own __init__ is not an edge: importing a.b always runs a/__init__.py
        edges = imported_modules(path, known) - {name}
        graph[name] = {e for e in edges if not name.startswith(e + ".") or e == "cvreport"}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt == "cvreport":  # the top-level package only re-exports
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_circle_between_cvreport_modules():
    assert find_cycle(import_graph()) is None


def part_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between the package's parts: each folder, and each top-level module."""
    parts: dict[str, set[str]] = {}
    for name, edges in graph.items():
        part = ".".join(name.split(".")[:2])
        targets = {".".join(e.split(".")[:2]) for e in edges} - {part, "cvreport"}
        parts.setdefault(part, set()).update(targets)
    return parts


def test_no_part_of_the_package_imports_one_that_imports_it_back():
    # a circle between folders is a layering fault even when no two files form one
    assert find_cycle(part_graph(import_graph())) is None


def test_the_part_graph_collapses_files_into_their_folder():
    graph = {"cvreport.a.x": {"cvreport.b"}, "cvreport.b": {"cvreport.a.y"}, "cvreport.a.y": set()}
    assert find_cycle(graph) is None
    assert find_cycle(part_graph(graph)) == ["cvreport.a", "cvreport.b", "cvreport.a"]


def test_the_circle_finder_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_statistics_never_import_rendering_at_module_level():
    for path in (PACKAGE / "methods").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("cvreport.rendering"), path.name


def test_import_cvreport_loads_jupyter_simulate_and_report_lazily():
    probe = (
        "import sys, cvreport\n"
        "lazy = ['cvreport.jupyter.widgets', 'cvreport.jupyter.notebook', 'cvreport.simulate',"
        " 'cvreport.reporting.report']\n"
        "print([m for m in lazy if m in sys.modules])\n"
        "cvreport.simulate, cvreport.notebook, cvreport.explore, cvreport.Report\n"
        "print([m for m in lazy if m not in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:2] == ["[]", "[]"]


def test_no_statistics_or_simulation_module_over_700_lines():
    paths = [*(PACKAGE / "methods").glob("*.py"), *(PACKAGE / "simulate").glob("*.py")]
    paths += [PACKAGE / "results.py", PACKAGE / "arrays.py", PACKAGE / "__init__.py"]
    long = {
        p.name: n for p in paths if (n := len(p.read_text(encoding="utf-8").splitlines())) > 700
    }
    assert long == {}


def test_dir_lists_the_public_api_not_the_helpers_the_package_imports():
    listed = set(dir(cvreport))
    assert {"Report", "ResultsTable", "arrays", "plan", "explore"} <= listed
    assert not listed & {"Any", "TYPE_CHECKING", "annotations", "importlib"}
    assert set(cvreport.__all__) <= listed
