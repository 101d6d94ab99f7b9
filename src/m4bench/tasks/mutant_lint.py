"""Lint rules for mutants: each is a real, small, well-formed change of its reference.

Run by ``lint_catalog`` (``m4bench tasks lint``) after the per-task rules.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp

from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import Catalog, Task
from m4bench.tasks.finding import Finding
from m4bench.tasks.mutants import MUTANTS_FILE, Mutant, family_mutants
from m4bench.tasks.reference import parse_statement, statement_columns

MUTANT_RULES: dict[str, str] = {
    "mutants-file": "mutants.toml parses and validates; names are unique, none is 'first'",
    "mutants-count": "a family has at least four mutants, each reference file at least one",
    "mutant-edits": "a mutant's edits apply cleanly: each find occurs exactly once in its "
    "reference and no two edits overlap",
    "mutant-reference": "a mutant changes a reference file a task of the family uses; "
    "the tasks it names use that file",
    "mutant-differs": "a mutant differs from its reference in meaning, not only in layout",
    "mutant-small": "a mutant is a small change: few changed lines against its reference",
    "mutant-columns": "a mutant outputs exactly the reference's columns, in order",
    "mutant-moves": "the columns a mutant says it moves are scored by its tasks",
}

MIN_PER_FAMILY = 4
MIN_PER_REFERENCE = 1
MAX_CHANGED_LINES = 40


def lint_mutants(catalog: Catalog) -> list[Finding]:
    """Every mutant finding over the catalog's families."""
    findings: list[Finding] = []
    for family in catalog.families:
        tasks = catalog.family(family)
        findings.extend(_lint_family(tasks[0].family_dir, tasks))
    return findings


@dataclass(frozen=True)
class _Shape:
    """What the change rules compare of one query: its output columns and its text as
    sqlglot prints it (layout and comments removed), from a single parse."""

    columns: list[str]
    normalized: str


@dataclass
class _References:
    """The shape of each reference text of a family, parsed once for all its mutants
    (None: the reference does not parse; the reference rules report that)."""

    shapes: dict[str, _Shape | None] = field(default_factory=dict)

    def shape(self, sql: str) -> _Shape | None:
        if sql not in self.shapes:
            try:
                self.shapes[sql] = _shape(sql, "reference SQL")
            except (M4BenchError, sqlglot.errors.SqlglotError):
                self.shapes[sql] = None
        return self.shapes[sql]


def _shape(sql: str, origin: str) -> _Shape:
    tree = parse_statement(sql, origin)
    columns = statement_columns(tree, origin)
    return _Shape(columns, _normalized_tree(tree, copy=False))  # the tree is not read again


def _lint_family(family_dir: Path, tasks: list[Task]) -> Iterator[Finding]:
    toml = family_dir / MUTANTS_FILE
    try:
        mutants = family_mutants(family_dir)
    except M4BenchError as exc:
        yield Finding("mutants-file", toml, 1, exc.message)
        return
    yield from _count_rules(toml, mutants, tasks)
    references = _References()
    for mutant in mutants:
        yield from _one_mutant(mutant, tasks, references)


def _count_rules(toml: Path, mutants: list[Mutant], tasks: list[Task]) -> Iterator[Finding]:
    if len(mutants) < MIN_PER_FAMILY:
        yield Finding(
            "mutants-count", toml, 1, f"{len(mutants)} mutants, at least {MIN_PER_FAMILY} needed"
        )
    for reference in sorted({t.card.reference.file for t in tasks}):
        count = sum(1 for m in mutants if m.spec.reference == reference)
        if count < MIN_PER_REFERENCE:
            yield Finding("mutants-count", toml, 1, f"no mutant changes {reference}")


def _one_mutant(mutant: Mutant, tasks: list[Task], references: _References) -> Iterator[Finding]:
    names = {t.name for t in tasks if t.card.reference.file == mutant.spec.reference}
    unknown_tasks = sorted(set(mutant.spec.tasks or []) - names)
    if unknown_tasks:
        yield Finding(
            "mutant-reference",
            mutant.family_dir / MUTANTS_FILE,
            1,
            f"mutant {mutant.name}: {unknown_tasks} are not tasks of {mutant.spec.reference}",
        )
    users = [t for t in tasks if mutant.applies_to(t)]
    if not users:
        yield Finding(
            "mutant-reference",
            mutant.family_dir / MUTANTS_FILE,
            1,
            f"mutant {mutant.name}: no task of the family uses {mutant.spec.reference}",
        )
        return
    try:
        sql = mutant.sql
    except M4BenchError as exc:
        yield Finding("mutant-edits", mutant.path, 1, exc.message)
        return
    yield from _change_rules(mutant, sql, users[0].reference_sql, references)
    scored = {c for t in users for c in t.card.evaluation.scored_columns}
    unknown = [c for c in mutant.spec.moves if c not in scored]
    if unknown:
        yield Finding(
            "mutant-moves",
            mutant.family_dir / MUTANTS_FILE,
            1,
            f"mutant {mutant.name}: moves columns that are not scored: {unknown}",
        )


def changed_lines(reference: str, mutant: str) -> int:
    """Lines added or removed going from ``reference`` to ``mutant``."""
    diff = difflib.unified_diff(reference.splitlines(), mutant.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


def normalized(sql: str) -> str:
    """The query as sqlglot prints it: layout and comments do not count."""
    return _normalized_tree(sqlglot.parse_one(sql, read="duckdb"), copy=False)


def _normalized_tree(tree: exp.Expr, copy: bool = True) -> str:
    """``copy=False`` normalizes ``tree`` in place (no deep copy): for a tree read once."""
    return tree.sql(dialect="duckdb", comments=False, normalize=True, copy=copy)


def _change_rules(
    mutant: Mutant, sql: str, reference: str, references: _References
) -> Iterator[Finding]:
    path = mutant.path
    label = f"mutant {mutant.name}"
    expected = references.shape(reference)
    if expected is None:
        return  # a broken reference is reported by the reference rules
    try:
        shape = _shape(sql, f"{path} ({label})")
    except (M4BenchError, sqlglot.errors.SqlglotError) as exc:
        yield Finding("mutant-differs", path, 1, f"{label} does not parse: {exc}")
        return
    if shape.normalized == expected.normalized:
        yield Finding(
            "mutant-differs", path, 1, f"{label} is the same query as the reference (layout only)"
        )
    columns = shape.columns
    if columns != expected.columns:
        yield Finding("mutant-columns", path, 1, f"{label} outputs {columns}, not the reference's")
    count = changed_lines(reference, sql)
    if count > MAX_CHANGED_LINES:
        yield Finding(
            "mutant-small",
            path,
            1,
            f"{label}: {count} changed lines against the reference (at most {MAX_CHANGED_LINES})",
        )
