"""Which task folders ``m4bench tasks lint TASK...`` or ``--path DIR`` lints.

A task is chosen by its folder, not its loaded card, so an author's task whose card does
not load yet is still linted (and its ``card-valid`` finding shown). The catalog-wide
rules still read every card (they are cheap); only the findings that concern a chosen
task's family folder, or no catalog folder at all (the concept library), are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import catalog_roots, catalog_task_dirs
from m4bench.tasks.finding import Finding


def chosen_task_dirs(names: Sequence[str], paths: Sequence[Path]) -> list[Path]:
    """The folders of the catalog's tasks (shipped and ``$M4BENCH_TASKS``) named by
    ``names`` (a task folder is named as its task) or lying under one of ``paths``."""
    roots = catalog_roots()
    folders = catalog_task_dirs(roots)
    chosen: list[Path] = []
    for name in names:
        found = [folder for folder in folders if folder.name == name]
        if not found:
            raise M4BenchError(
                f"no task named {name!r} in {', '.join(str(r) for r in roots)}",
                hint="see `m4bench tasks list`; a task of your own must lie under a folder "
                "of $M4BENCH_TASKS (or give its folder with --path)",
            )
        chosen.extend(found)
    for path in paths:
        where = path.resolve()
        found = [f for f in folders if f.resolve().is_relative_to(where)]
        if not found:
            raise M4BenchError(
                f"{path}: no task folder of the catalog lies here",
                hint="give a task folder, a family folder or a catalog folder; a folder of "
                "your own tasks must be listed in $M4BENCH_TASKS (export M4BENCH_TASKS=DIR)",
            )
        chosen.extend(found)
    return list(dict.fromkeys(chosen))


def concerns(finding: Finding, chosen: Sequence[Path], roots: Sequence[Path]) -> bool:
    """Whether ``finding`` is about a chosen task's family folder (its cards, reference,
    provenance, mutants) or lies outside every catalog folder (the concept library)."""
    path = finding.path.resolve()
    if any(path.is_relative_to(folder.parent.resolve()) for folder in chosen):
        return True
    return not any(path.is_relative_to(root.resolve()) for root in roots)
