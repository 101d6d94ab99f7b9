"""The live display of a running campaign: done, running, failed, time left, cost so far."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from m4bench.campaign.progress import Tally


class LiveProgress:
    """A rich progress bar whose description carries the campaign's counters; a
    :class:`~m4bench.campaign.progress.ProgressSink`."""

    def __init__(self, console: Console | None = None) -> None:
        self._progress = Progress(
            TextColumn("[bold]campaign"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
            TextColumn("ETA {task.fields[eta]}"),
            console=console,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> LiveProgress:
        self._progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._progress.__exit__(kind, value, trace)

    def update(self, tally: Tally) -> None:
        eta = "-" if tally.eta_seconds is None else clock(tally.eta_seconds)
        detail = (
            f"running {tally.running}  failed {tally.failed}  "
            f"infra {tally.infra_errors}  ${tally.cost_usd:,.2f}"
        )
        if self._task is None:
            self._task = self._progress.add_task(
                "campaign", total=tally.planned, completed=tally.complete, detail=detail, eta=eta
            )
            return
        self._progress.update(self._task, completed=tally.complete, detail=detail, eta=eta)


def clock(seconds: float) -> str:
    """``H:MM:SS``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
