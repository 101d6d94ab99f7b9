"""Synthetic MIMIC-IV sources of the synth tests: the shared fixture-size one, and one
with high quirk rates (each built once per run)."""

from __future__ import annotations

import duckdb
import pytest
from synth_helpers import HIGH_QUIRKS
from synthetic_sources import SyntheticSources, locked, run_folder

from m4bench.home import DataHome
from m4bench.sources.layout import Source, load_source
from m4bench.sources.synth import synthesize_mimic_iv


@pytest.fixture(scope="session")
def mimic_source(synthetic_sources: SyntheticSources) -> Source:
    """The fixture-size source other suites use too: 200 stays, seed 7, default quirks."""
    return synthetic_sources.source("mimic-iv", 200, 7)


@pytest.fixture(scope="session")
def quirky_source(tmp_path_factory: pytest.TempPathFactory) -> Source:
    """300 stays with high quirk rates, built once per run (the first worker to ask)."""
    root = run_folder(tmp_path_factory) / "synth-quirky"
    home = DataHome(root / "home")
    with locked(root / "build.lock"):
        if not (root / "built").exists():
            synthesize_mimic_iv(
                home, "quirky", stays=300, seed=11, quirks=HIGH_QUIRKS, progress=False
            )
            (root / "built").write_text("", encoding="utf-8")
    return load_source(home, "quirky")


@pytest.fixture(scope="session")
def con(mimic_source: Source) -> duckdb.DuckDBPyConnection:
    return mimic_source.connect()


@pytest.fixture(scope="session")
def qcon(quirky_source: Source) -> duckdb.DuckDBPyConnection:
    return quirky_source.connect()
