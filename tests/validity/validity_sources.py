"""Shared by the validity tests: the default-size synthetic sources of one session."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from m4bench.home import DataHome
from m4bench.sources.layout import Source

# every test of the default sources runs in one xdist worker, so they are built once
DEFAULT_SOURCES_GROUP = pytest.mark.xdist_group("validity-default-sources")


@dataclass(frozen=True)
class DefaultSources:
    home: DataHome
    mimic: Source
    eicu: Source
