"""Shared by the validity tests: the default-size synthetic sources of one session."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from m4bench.home import DataHome
from m4bench.sources.layout import Source
from m4bench.sources.synth.coverage_needs import all_needs
from m4bench.validity import AuditReport

# every test of the default sources runs in one xdist worker, so they are built once
DEFAULT_SOURCES_GROUP = pytest.mark.xdist_group("validity-default-sources")
SEED = 3  # a seed other than the default: coverage must not depend on it
# a bin no engineered stay serves must be common: this many rows at the default size
POPULATION_ROWS = 10


def unserved_gaps(report: AuditReport) -> list[str]:
    """Bins served by no coverage need that fewer than :data:`POPULATION_ROWS` rows reach."""
    served = {name for need in all_needs() for name in need.bins}
    return [
        f"{b.family}/{b.name}: {b.rows} rows"
        for b in report.coverage
        if f"{b.family}/{b.name}" not in served and (b.rows or 0) < POPULATION_ROWS
    ]


@dataclass(frozen=True)
class DefaultSources:
    home: DataHome
    mimic: Source
    eicu: Source
