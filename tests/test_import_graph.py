"""The packages of m4bench import each other without a cycle.

The graph is read statically (``ast``) from every ``import`` and ``from ... import`` in
``src/m4bench``, function-local and ``TYPE_CHECKING`` imports included: an edge
``a -> b`` means some module of package ``m4bench.a`` imports from ``m4bench.b``.
Top-level modules (``m4bench.errors``, ``m4bench.sql``, ...) are the shared bottom
layer, not packages, and carry no edges.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import m4bench

ROOT = Path(m4bench.__file__).parent
Graph = Mapping[str, frozenset[str]]


def _package(root: Path, path: Path) -> str | None:
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 else None


def _imported(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def package_graph(root: Path = ROOT) -> dict[str, frozenset[str]]:
    """Package -> the other m4bench packages its modules import."""
    packages = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    edges: dict[str, set[str]] = {name: set() for name in packages}
    for path in sorted(root.rglob("*.py")):
        source = _package(root, path)
        if source is None:
            continue
        for name in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            parts = name.split(".")
            if parts[0] == "m4bench" and len(parts) > 1 and parts[1] in packages:
                edges[source].add(parts[1])
    return {name: frozenset(targets - {name}) for name, targets in edges.items()}


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one package, each sorted."""
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(graph):
        _finish_order(graph, start, seen, order)
    reverse: dict[str, set[str]] = {name: set() for name in graph}
    for name, targets in graph.items():
        for target in targets:
            reverse[target].add(name)
    found: list[list[str]] = []
    assigned: set[str] = set()
    for start in reversed(order):
        if start in assigned:
            continue
        component = _reachable(reverse, start, assigned)
        if len(component) > 1:
            found.append(sorted(component))
    return sorted(found)


def _finish_order(graph: Graph, start: str, seen: set[str], order: list[str]) -> None:
    """Depth-first finishing order from ``start`` (iterative: no recursion limit)."""
    if start in seen:
        return
    seen.add(start)
    stack = [(start, iter(sorted(graph[start])))]
    while stack:
        node, targets = stack[-1]
        target = next(targets, None)
        if target is None:
            stack.pop()
            order.append(node)
        elif target not in seen:
            seen.add(target)
            stack.append((target, iter(sorted(graph[target]))))


def _reachable(graph: Mapping[str, set[str]], start: str, assigned: set[str]) -> set[str]:
    component = {start}
    assigned.add(start)
    todo = [start]
    while todo:
        for target in graph[todo.pop()]:
            if target not in assigned:
                assigned.add(target)
                component.add(target)
                todo.append(target)
    return component


# Cycles known and left for their owners; any other cycle fails the test.
KNOWN_CYCLES = {
    # analysis.api reads Inspect logs with integrations.inspect_logs (a function-local
    # import), which builds analysis.runs rows
    ("analysis", "integrations"),
}


def test_no_two_packages_import_each_other() -> None:
    graph = package_graph()
    assert {"tasks", "scoring", "sources", "runner"} <= set(graph)
    # scoring reads the tasks' evaluation specs; tasks never import scoring back
    assert "tasks" in graph["scoring"] and "scoring" not in graph["tasks"]
    unknown = [c for c in cycles(graph) if tuple(c) not in KNOWN_CYCLES]
    assert unknown == []


def test_the_cycle_finder_finds_direct_and_longer_cycles() -> None:
    graph: dict[str, frozenset[str]] = {
        "a": frozenset({"b"}),
        "b": frozenset({"a", "c"}),
        "c": frozenset({"d"}),
        "d": frozenset({"e"}),
        "e": frozenset({"c"}),
        "f": frozenset({"a"}),
    }
    assert cycles(graph) == [["a", "b"], ["c", "d", "e"]]
    assert cycles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    for name in ("one", "two", "three"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "one" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from m4bench.two.x import y\n",
        encoding="utf-8",
    )
    (tmp_path / "two" / "b.py").write_text(
        "def f():\n    import m4bench.three.z\n", encoding="utf-8"
    )
    (tmp_path / "three" / "c.py").write_text(
        "from m4bench import one\nfrom m4bench.errors import M4BenchError\n", encoding="utf-8"
    )
    graph = package_graph(tmp_path)
    assert graph == {
        "one": frozenset({"two"}),
        "two": frozenset({"three"}),
        "three": frozenset({"one"}),
    }
    assert cycles(graph) == [["one", "three", "two"]]
