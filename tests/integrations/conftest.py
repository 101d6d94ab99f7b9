"""A small synthetic MIMIC-IV source, provisioned for the integration tests' tasks."""

from __future__ import annotations

import pytest
from integration_home import RAW_TASK, SOURCE, TASK

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv


@pytest.fixture(scope="session")
def small_home(tmp_path_factory: pytest.TempPathFactory) -> DataHome:
    home = DataHome(tmp_path_factory.mktemp("integrations-home"))
    synthesize_mimic_iv(home, SOURCE, stays=40, seed=3, progress=False)
    setup(home, SOURCE, [TASK, RAW_TASK], "native", progress=False)
    return home
