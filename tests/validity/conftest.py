"""The default-size synthetic sources (about 1,000 stays each), built once per run.

They take seed 3, not the default 0: the demo builds seed 0, and the audit must pass at
any seed (the heavy tier, ``test_coverage_seeds``, sweeps several more). Each worker
gets a home of its own holding copies named as ``m4bench data synth`` names them, the
MIMIC-IV one with every concept built (the shared source the concept tests read).
"""

from __future__ import annotations

import pytest
from synthetic_sources import SyntheticSources
from validity_sources import SEED, DefaultSources

from m4bench.home import DataHome
from m4bench.sources.defaults import default_source


@pytest.fixture(scope="session")
def default_sources(
    tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources
) -> DefaultSources:
    home = DataHome(tmp_path_factory.mktemp("validity-home"))
    mimic = synthetic_sources.copy(
        home, default_source("mimic-iv"), "mimic-iv", None, SEED, concepts=True
    )
    eicu = synthetic_sources.copy(home, default_source("eicu"), "eicu", None, SEED)
    return DefaultSources(home, mimic, eicu)
