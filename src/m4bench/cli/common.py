"""Options shared by command groups."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.defaults import choose_source
from m4bench.tasks.catalog import load_catalog

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Data home (default: $M4BENCH_HOME, else ~/.m4bench)."),
]


def resolve_home(home: Path | None) -> DataHome:
    return DataHome.from_env(home)


# Wide enough for every table the commands print, so none is cut with an ellipsis.
_PIPE_WIDTH = 200


def make_console(*, stderr: bool = False) -> Console:
    """A console for command output.

    On a terminal it takes the terminal's width. Written to a file or a pipe (a log, a
    script, ``| grep``), rich would fall back to 80 columns and cut task and source
    names short; it gets ``_PIPE_WIDTH`` columns instead, unless ``COLUMNS`` is set.
    """
    probe = Console(stderr=stderr)
    if probe.is_terminal or "COLUMNS" in os.environ:
        return probe
    return Console(stderr=stderr, width=max(probe.width, _PIPE_WIDTH))


def source_for_tasks(home: DataHome, tasks: Iterable[str], purpose: str = "one command") -> str:
    """The source of the named tasks' dataset (MIMIC-IV when none is named) that
    :func:`~m4bench.sources.defaults.choose_source` picks, for commands whose --source
    was left out."""
    catalog = load_catalog()
    datasets = {catalog.task(name).card.dataset for name in tasks} or {"mimic-iv"}
    if len(datasets) > 1:
        raise M4BenchError(
            f"the tasks span MIMIC-IV and eICU; {purpose} reads one source",
            hint="run it once for the MIMIC-IV tasks and once for the eICU tasks",
        )
    return choose_source(home, datasets.pop())
