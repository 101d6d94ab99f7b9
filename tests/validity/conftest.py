"""The default-size synthetic sources (about 1,000 stays each), built once per session.

They take seed 3, not the default 0: the demo builds seed 0, and the audit must pass at
any seed (the heavy tier, ``test_coverage_seeds``, sweeps several more).
"""

from __future__ import annotations

import pytest
from validity_sources import SEED, DefaultSources

from m4bench.home import DataHome
from m4bench.sources.synth import synthesize_mimic_iv
from m4bench.sources.synth.eicu import synthesize_eicu


@pytest.fixture(scope="session")
def default_sources(tmp_path_factory: pytest.TempPathFactory) -> DefaultSources:
    home = DataHome(tmp_path_factory.mktemp("validity-home"))
    mimic = synthesize_mimic_iv(home, seed=SEED, progress=False)
    eicu = synthesize_eicu(home, seed=SEED, progress=False)
    return DefaultSources(home, mimic, eicu)
