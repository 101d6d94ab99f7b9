"""The patient-case lint rules: ``cases.toml`` parses and names the task's columns, and
the tables its cases fill and the concepts they rebuild exist in the task's dataset.

Both are checked without a database, so ``m4bench tasks lint --no-run`` finds a table
name typo before ``m4bench tasks test`` fails on it with DuckDB's words.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.tasks.case_errors import CaseLines, CasesFileError
from m4bench.tasks.case_run import task_cases
from m4bench.tasks.cases import Case, cases_path
from m4bench.tasks.catalog import Task
from m4bench.tasks.drop_tables_lint import closest_table, known_tables, names_no_table
from m4bench.tasks.finding import Finding

CASE_RULES: dict[str, str] = {
    "cases-valid": "cases.toml parses and its expectations name the task's keys and columns",
    "cases-tables": "the tables a case fills are tables of the task's dataset, and the "
    "concepts it rebuilds are concepts of the library",
}


def case_findings(task: Task, derived: Sequence[str]) -> Iterator[Finding]:
    """Findings for the task's ``cases.toml``, when it has one; ``derived``: the concept
    library's names (empty when it did not load: derived names are then not checked)."""
    path = cases_path(task.dir)
    if not path.exists() or not task.reference_path.exists():
        return
    try:
        cases = task_cases(task)
    except CasesFileError as exc:
        yield Finding("cases-valid", exc.path, exc.line, exc.problem)
        return
    except M4BenchError as exc:
        yield Finding("cases-valid", path, 1, exc.message)
        return
    lines = CaseLines.of(path.read_text(encoding="utf-8"))
    for index, case in enumerate(cases):
        yield from _table_findings(task, path, lines, (index, case), derived)


def _table_findings(
    task: Task, path: Path, lines: CaseLines, numbered: tuple[int, Case], derived: Sequence[str]
) -> Iterator[Finding]:
    index, case = numbered
    label = f"case {index + 1} ({case.name!r})"
    tables = known_tables(task.card.dataset, derived)
    for number, block in enumerate(case.rows):
        if not names_no_table(block.table, tables):
            continue
        schema = block.table.split(".", 1)[0]
        if schema not in tables:
            schemas = ", ".join(sorted(tables))
            problem = f"{block.table} is not in a {task.card.dataset} schema ({schemas})"
        else:
            problem = f"{block.table} is not a table of {schema}"
        line = lines.line(["case", index, "rows", number, "table"])
        message = f"{label}: {problem}{closest_table(block.table, tables)}"
        yield Finding("cases-tables", path, line, message)
    for concept in case.rebuild if derived else ():
        if concept not in derived:
            close = difflib.get_close_matches(concept, list(derived), n=1, cutoff=0.7)
            hint = f"; did you mean {close[0]}?" if close else ""
            line = lines.line(["case", index, "rebuild"])
            message = f"{label}: rebuild names {concept!r}, which is not a concept{hint}"
            yield Finding("cases-tables", path, line, message)
