"""A rich progress bar that can be switched off (tests, quiet callers)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

Advance = Callable[[str], None]


@contextlib.contextmanager
def progress_bar(enabled: bool, label: str, total: int) -> Iterator[Advance]:
    """Yield ``advance(description)``: one step of ``total`` done."""
    if not enabled:
        yield lambda description: None
        return
    columns = (
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, transient=False) as progress:
        task = progress.add_task("", total=total)

        def advance(description: str) -> None:
            progress.update(task, advance=1, description=description)

        yield advance
