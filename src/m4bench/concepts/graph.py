"""Dependency-graph algorithms over ``{concept: its inputs}`` edges.

Orders are deterministic: among concepts that are ready at the same time the
alphabetically first comes first.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping

from m4bench.errors import M4BenchError

Edges = Mapping[str, Iterable[str]]


def transitive_closure(edges: Edges, names: Iterable[str]) -> set[str]:
    """``names`` and everything they read, directly or not."""
    seen: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(edges.get(name, ()))
    return seen


def topological_order(edges: Edges, paths: Mapping[str, str] | None = None) -> list[str]:
    """Inputs before readers. Inputs outside ``edges`` are ignored (already present).

    A cycle is an error naming the files involved (``paths`` maps names to files).
    """
    inputs = {name: {d for d in deps if d in edges} for name, deps in edges.items()}
    readers: dict[str, list[str]] = {name: [] for name in inputs}
    for name, deps in inputs.items():
        for dep in deps:
            readers[dep].append(name)
    remaining = {name: len(deps) for name, deps in inputs.items()}
    ready = [name for name, count in remaining.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        name = heapq.heappop(ready)
        order.append(name)
        for reader in readers[name]:
            remaining[reader] -= 1
            if remaining[reader] == 0:
                heapq.heappush(ready, reader)
    if len(order) < len(inputs):
        _raise_cycle(inputs, set(order), paths or {})
    return order


def layers(edges: Edges) -> list[list[str]]:
    """Groups that can be built in parallel: each reads only earlier groups."""
    depth: dict[str, int] = {}
    for name in topological_order(edges):
        deps = [d for d in edges[name] if d in edges]
        depth[name] = 1 + max((depth[d] for d in deps), default=-1)
    grouped: dict[int, list[str]] = {}
    for name, level in depth.items():
        grouped.setdefault(level, []).append(name)
    return [sorted(grouped[level]) for level in sorted(grouped)]


def to_dot(edges: Edges, categories: Mapping[str, str] | None = None) -> str:
    """Graphviz DOT text: one node per concept (clustered by category), edge input -> reader."""
    lines = ["digraph concepts {", "  rankdir=LR;", '  node [shape=box, fontname="Helvetica"];']
    by_category: dict[str, list[str]] = {}
    for name in sorted(edges):
        by_category.setdefault((categories or {}).get(name, ""), []).append(name)
    for index, category in enumerate(sorted(by_category)):
        nodes = " ".join(f'"{n}";' for n in by_category[category])
        if category:
            lines.append(f'  subgraph cluster_{index} {{ label="{category}"; {nodes} }}')
        else:
            lines.append(f"  {nodes}")
    for name in sorted(edges):
        for dep in sorted(edges[name]):
            lines.append(f'  "{dep}" -> "{name}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _raise_cycle(inputs: Mapping[str, set[str]], done: set[str], paths: Mapping[str, str]) -> None:
    cycle = _find_cycle({n: deps - done for n, deps in inputs.items() if n not in done})
    files = ", ".join(paths.get(name, name) for name in cycle[:-1])
    raise M4BenchError(
        f"dependency cycle {' -> '.join(cycle)} (files: {files})",
        hint="a concept may not read, directly or not, a table that reads it",
    )


def _find_cycle(inputs: Mapping[str, set[str]]) -> list[str]:
    """One cycle among nodes that all still have unbuilt inputs (so a cycle exists)."""
    start = min(inputs)
    path: list[str] = []
    position: dict[str, int] = {}
    node = start
    while node not in position:
        position[node] = len(path)
        path.append(node)
        node = min(inputs[node])
    return [*path[position[node] :], node]
