"""Synthetic MIMIC-IV sources of the synth tests: the shared fixture-size one, and one
with high quirk rates (built once per worker)."""

from __future__ import annotations

import duckdb
import pytest
from synth_helpers import HIGH_QUIRKS
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.sources.layout import Source
from m4bench.sources.synth import synthesize_mimic_iv


@pytest.fixture(scope="session")
def mimic_source(synthetic_sources: SyntheticSources) -> Source:
    """The fixture-size source other suites use too: 200 stays, seed 7, default quirks."""
    return synthetic_sources.source("mimic-iv", 200, 7)


@pytest.fixture(scope="session")
def quirky_source(tmp_path_factory: pytest.TempPathFactory) -> Source:
    home = DataHome(tmp_path_factory.mktemp("synth-quirky"))
    return synthesize_mimic_iv(
        home, "quirky", stays=300, seed=11, quirks=HIGH_QUIRKS, progress=False
    )


@pytest.fixture(scope="session")
def con(mimic_source: Source) -> duckdb.DuckDBPyConnection:
    return mimic_source.connect()


@pytest.fixture(scope="session")
def qcon(quirky_source: Source) -> duckdb.DuckDBPyConnection:
    return quirky_source.connect()
