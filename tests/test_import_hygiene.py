"""Import hygiene: few imports inside functions, and no circle even counting them.

An import of a cvreport module inside a function hides a dependency from the
reader and from the circle check at module level. It is allowed only where a
heavy optional part is loaded lazily, at most :data:`MOST_LAZY_IMPORTS` times,
each with a comment saying why. The circle check reads every import a file
holds: at module level, inside functions, under ``TYPE_CHECKING`` and through
``importlib.import_module``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cvreport

PACKAGE = Path(cvreport.__file__).parent
MOST_LAZY_IMPORTS = 10

#: Circles another change removes (the report is rendered from an analysis value,
#: so the view no longer reads the report); delete an entry once that change is in.


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def _is_import_module(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "import_module"
    )


def _of_cvreport(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == "cvreport"
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == "cvreport" for alias in node.names)
    return _is_import_module(node)  # importlib.import_module counts as an import


def lazy_imports(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every import of a cvreport module inside a function of ``source``.

    Imports under ``if TYPE_CHECKING:`` are not run and do not count.
    """
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            if in_function and _of_cvreport(child):
                found.append((child.lineno, ast.unparse(child)))
            inner = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, in_function or inner)

    visit(ast.parse(source), False)
    return found


def _every_lazy_import() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if imports := lazy_imports(path.read_text(encoding="utf-8")):
            found[str(path.relative_to(PACKAGE.parent))] = imports
    return found


def test_the_counter_counts_imports_in_functions_and_not_for_type_checkers():
    source = (
        "from typing import TYPE_CHECKING\n"
        "import cvreport.errors\n"
        "if TYPE_CHECKING:\n"
        "    from cvreport.data.table import ResultsTable\n"
        "def f():\n"
        "    from cvreport.results import TestResult\n"
        "    from . import sibling\n"
        "    import numpy\n"
        "    if TYPE_CHECKING:\n"
        "        from cvreport.methods import spec\n"
        "    def g():\n"
        "        return importlib.import_module('cvreport.simulate')\n"
        "    return lambda: __import__('x')\n"
    )
    assert [line for line, _ in lazy_imports(source)] == [6, 7, 12]


def test_at_most_ten_imports_of_cvreport_modules_inside_functions():
    found = _every_lazy_import()
    count = sum(len(imports) for imports in found.values())
    assert count <= MOST_LAZY_IMPORTS, found


def test_every_import_inside_a_function_says_why():
    for name, imports in _every_lazy_import().items():
        lines = (PACKAGE.parent / name).read_text(encoding="utf-8").splitlines()
        for line, text in imports:
            said = lines[line - 1].split("#", 1)[1:] + lines[line - 2].strip().split("#", 1)[1:]
            assert any(reason.strip() for reason in said), f"{name}:{line} {text} says not why"


def _imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """Every cvreport module ``path`` imports anywhere: top, functions, TYPE_CHECKING, importlib."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                candidate = f"{module}.{alias.name}"
                found.add(candidate if candidate in known else module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif _is_import_module(node) and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value))
    return {module for module in found if module in known}


def import_graph() -> dict[str, set[str]]:
    """Module -> the cvreport modules it imports (a package's own parents are no edge)."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    known = set(paths)
    graph = {}
    for name, path in paths.items():
        edges = _imports_of(path, name, known) - {name, "cvreport"}
        graph[name] = {edge for edge in edges if not name.startswith(edge + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_circles_and_only_them():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"a"}}
    assert sorted(map(sorted, circles(graph))) == [["a", "b", "c"], ["d", "e"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_circle_counting_imports_in_functions_and_for_type_checkers():
    left = circles(import_graph())
    assert not left, sorted(map(sorted, left))
