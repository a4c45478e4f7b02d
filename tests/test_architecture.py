"""The import graph of irmetrics/: no cycle, and every import points down the layers.

The layers are the numbered list under "## Layers" in docs/architecture.md,
bottom first; the test reads them there, so the page and the code cannot
drift apart.  A module may import modules of its own layer and of the layers
below it; within a layer, imports go either way but never in a circle.  The
graph is built from the source with ``ast``: module-level and
function-local imports alike, relative imports resolved; imports under
``if TYPE_CHECKING:`` are left out (they never run).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "irmetrics"
PAGE = ROOT / "docs" / "architecture.md"

# Imports allowed against the layers: none.
ALLOWED: Set[Tuple[str, str]] = set()


# === The modules and their imports ===========================================


def _modules() -> Dict[str, Path]:
    """{dotted name inside irmetrics ("data", "sub.mod"; "__init__" for the package): path}."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()  # a subpackage is named as itself
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _package_of(name: str) -> List[str]:
    """The package a module's relative imports start from, as parts inside irmetrics."""
    path = MODULES[name]
    parts = [] if name == "__init__" else name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def _target(parts: List[str]) -> str:
    """The module named by *parts* (inside irmetrics), else the nearest package above it."""
    while parts:
        name = ".".join(parts)
        if name in MODULES:
            return name
        parts = parts[:-1]
    return "__init__"


class _Imports(ast.NodeVisitor):
    """The irmetrics modules a module imports: (target, line, inside a function)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: List[Tuple[str, int, bool]] = []
        self.depth = 0

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _add(self, parts: List[str], node: ast.stmt) -> None:
        target = _target(parts)
        if target != self.name:
            self.found.append((target, node.lineno, self.depth > 0))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            head, *rest = alias.name.split(".")
            if head == "irmetrics":
                self._add(rest, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = _package_of(self.name)
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        elif node.module and node.module.split(".")[0] == "irmetrics":
            base = []
        else:
            return
        module = node.module or ""
        if not node.level:
            module = module.partition(".")[2]
        parts = base + (module.split(".") if module else [])
        # ``from .pkg import mod`` imports the module pkg.mod; ``from .mod import name``, mod
        for alias in node.names:
            sub = ".".join(parts + [alias.name])
            self._add(sub.split(".") if sub in MODULES else parts, node)


def _imports(name: str) -> List[Tuple[str, int, bool]]:
    visitor = _Imports(name)
    visitor.visit(ast.parse(MODULES[name].read_text(encoding="utf-8")))
    return visitor.found


GRAPH = {name: _imports(name) for name in MODULES}


# === The layers, from docs/architecture.md ===================================


def _layers() -> List[Tuple[str, List[str]]]:
    """[(layer, [modules])], bottom first, from the page's "## Layers" list."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    layers = []
    for line in section.splitlines():
        m = re.match(r"^\d+\. \*\*(.+?)\*\*: ((?:`[\w.]+`(?:, )?)+)", line)
        if m:
            layers.append((m.group(1), re.findall(r"`([\w.]+)`", m.group(2))))
    return layers


LAYERS = _layers()


def _layer_of() -> Dict[str, int]:
    listed = {module: i for i, (_, modules) in enumerate(LAYERS) for module in modules}
    out = {}
    for name in MODULES:
        # a module of a subpackage is in its own layer if listed, else in its package's
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            key = ".".join(parts[:n])
            if key in listed:
                out[name] = listed[key]
                break
    return out


# === The tests ===============================================================


def test_the_page_lists_every_module_once_in_a_layer():
    assert len(LAYERS) >= 5, "docs/architecture.md has no '## Layers' list"
    listed = [m for _, modules in LAYERS for m in modules]
    assert sorted(m for m in set(listed) if listed.count(m) > 1) == []
    assert sorted(m for m in listed if m not in MODULES) == [], "listed, but no such module"
    placed = _layer_of()
    assert sorted(m for m in MODULES if m not in placed) == [], "modules in no layer"


def test_imports_point_down_the_layers():
    layer = _layer_of()
    wrong = []
    for name, imports in GRAPH.items():
        for target, line, _ in imports:
            if layer[target] > layer[name] and (name, target) not in ALLOWED:
                wrong.append(
                    f"{name} ({LAYERS[layer[name]][0]}) imports {target} "
                    f"({LAYERS[layer[target]][0]}) at line {line}"
                )
    assert wrong == []


def _cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One cycle of *graph*, as [a, b, ..., a], or None (depth-first search)."""
    state: Dict[str, int] = {}  # 1: on the path, 2: done
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle():
    edges = {
        name: {t for t, _, _ in imports if (name, t) not in ALLOWED}
        for name, imports in GRAPH.items()
    }
    assert _cycle(edges) is None


def test_no_function_local_import_of_irmetrics():
    # A module imported inside a function to dodge a cycle is code in the
    # wrong layer: move the code instead.
    local = [
        f"{name} imports {target} inside a function at line {line}"
        for name, imports in GRAPH.items()
        for target, line, inside in imports
        if inside and (name, target) not in ALLOWED
    ]
    assert local == []


# === The checker itself ======================================================


@pytest.mark.parametrize(
    "graph, cycle",
    [
        ({"a": {"b"}, "b": set()}, None),
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_cycle_finder(graph, cycle):
    assert _cycle(graph) == cycle


def test_the_graph_sees_every_kind_of_import(tmp_path, monkeypatch):
    source = (
        "from typing import TYPE_CHECKING\n"
        "import irmetrics.trec\n"
        "from . import data\n"
        "from .errors import InvalidArgumentError\n"
        "if TYPE_CHECKING:\n"
        "    from .compare import Comparison\n"
        "def f():\n"
        "    from .measures import parse_measure\n"
    )
    monkeypatch.setitem(MODULES, "probe", tmp_path / "probe.py")
    (tmp_path / "probe.py").write_text(source, encoding="utf-8")
    assert _imports("probe") == [
        ("trec", 2, False), ("data", 3, False), ("errors", 4, False), ("measures", 8, True)
    ]
