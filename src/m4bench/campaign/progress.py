"""Progress of a campaign as it runs: the counters a display shows, and the callback
protocol that receives them (the command line's live display implements it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Tally:
    planned: int
    complete: int
    running: int
    failed: int
    infra_errors: int
    cost_usd: float
    eta_seconds: float | None = None


class ProgressSink(Protocol):
    """Receives the campaign's counters after every change (from the driver's thread)."""

    def update(self, tally: Tally) -> None: ...
