"""A small synthetic MIMIC-IV source, provisioned for the integration tests' tasks."""

from __future__ import annotations

import pytest
from integration_home import RAW_TASK, SOURCE, TASK
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup


@pytest.fixture(scope="session")
def small_home(
    tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources
) -> DataHome:
    """A home of the worker's own: a copy of the shared 40-stay source (seed 3, concepts built)."""
    home = DataHome(tmp_path_factory.mktemp("integrations-home"))
    synthetic_sources.copy(home, SOURCE, "mimic-iv", 40, 3, concepts=True)
    setup(home, SOURCE, [TASK, RAW_TASK], "native", progress=False)
    return home
