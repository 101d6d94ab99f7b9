"""Time left, from duration priors calibrated by the runs finished so far.

Slowest-first scheduling makes a rate-based estimate pessimistic early on; scaling
each remaining run's prior by the observed actual/prior ratio does not have that bias.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class EtaModel:
    prior_seconds: float = 0.0
    actual_seconds: float = 0.0

    def observe(self, prior: float, actual: float) -> None:
        self.prior_seconds += prior
        self.actual_seconds += actual

    @property
    def calibration(self) -> float:
        """Actual over expected duration of finished runs (1.0 before any finishes)."""
        if self.prior_seconds <= 0 or self.actual_seconds <= 0:
            return 1.0
        return self.actual_seconds / self.prior_seconds

    def seconds_left(
        self, waiting: Iterable[float], running: Iterable[float], capacity: int
    ) -> float:
        """Waiting runs in full, running ones half done, spread over ``capacity`` slots."""
        work = sum(waiting) + sum(running) / 2
        return self.calibration * work / max(capacity, 1)
