"""The layers import downwards only: read from the source, every ``import`` of m4bench.

Importing ``a.b.c`` runs the ``__init__`` of ``a`` and ``a.b`` too, so those count as
imported. Imports under ``if TYPE_CHECKING:`` count as well: a type is a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "m4bench"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in (SRC / PACKAGE).rglob("*.py")}


def _imported(name: str) -> Iterator[str]:
    """The m4bench modules one module imports, and the packages above each."""
    path = _modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix in _modules() and prefix != name:
                    yield prefix


@cache
def _reachable(name: str) -> frozenset[str]:
    """Every m4bench module importing ``name`` runs (its own packages' too)."""
    seen: set[str] = set()
    todo = [name, *_parents(name)]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(_imported(current))
    seen.discard(name)
    return frozenset(seen)


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def _modules_of(layer: str) -> list[str]:
    return sorted(name for name in _modules() if _layer(name) == layer)


def test_the_graph_sees_real_imports() -> None:
    """The walk finds imports as Python resolves them (a check that it can fail)."""
    reached = _reachable("m4bench.campaign.driver")
    assert "m4bench.results.record" in reached and "m4bench.campaign.store" in reached
    assert "m4bench.campaign" in reached, "a module's own package __init__ runs first"
    assert "m4bench.results" in _reachable("m4bench.analysis.load_results")


@pytest.mark.parametrize("layer", ["analysis", "evidence"])
def test_readers_of_results_import_nothing_of_the_campaign(layer: str) -> None:
    """The analysis and the evidence read typed records (``m4bench.results``), never the
    campaign that wrote them, nor the runner."""
    for name in _modules_of(layer):
        wrong = sorted(m for m in _reachable(name) if _layer(m) in {"campaign", "runner"})
        assert not wrong, f"{name} imports {wrong}"


def test_the_results_layer_imports_none_of_its_producers_or_readers() -> None:
    above = {"runner", "campaign", "analysis", "evidence", "demo", "cli", "preflight"}
    for name in _modules_of("results"):
        wrong = sorted(m for m in _reachable(name) if _layer(m) in above)
        assert not wrong, f"{name} imports {wrong}"


def test_the_runner_imports_no_campaign() -> None:
    for name in _modules_of("runner"):
        wrong = sorted(m for m in _reachable(name) if _layer(m) in {"campaign", "demo", "cli"})
        assert not wrong, f"{name} imports {wrong}"


def test_the_viewer_reads_records_only() -> None:
    """The viewer reads results (and the scoring and agent models inside them); it
    imports no producer of runs and no other reader."""
    allowed = {"", "errors", "fileio", "home", "wording", "sql", "results", "scoring",
               "tasks", "concepts", "sources", "agents", "viewer"}  # fmt: skip
    for name in _modules_of("viewer"):
        wrong = sorted(m for m in _reachable(name) if _layer(m) not in allowed)
        assert not wrong, f"{name} imports {wrong}"
