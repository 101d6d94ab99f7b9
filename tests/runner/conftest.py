"""Session fixtures of the runner tests (helpers live in run_bench)."""

from __future__ import annotations

import pytest
from run_bench import EICU_SOURCE, FAST_TASKS, SOURCE, Bench
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.tasks.catalog import Catalog


@pytest.fixture(scope="session")
def bench(
    tmp_path_factory: pytest.TempPathFactory,
    catalog: Catalog,
    synthetic_sources: SyntheticSources,
) -> Bench:
    """A home of the worker's own: the small MIMIC-IV source with its concepts, the fast
    tasks provisioned."""
    home = DataHome(tmp_path_factory.mktemp("runner-home"))
    synthetic_sources.copy(home, SOURCE, "mimic-iv", 60, 5, concepts=True)
    setup(home, SOURCE, FAST_TASKS, "native", progress=False)
    return Bench(home, catalog)


@pytest.fixture(scope="session")
def eicu_bench(bench: Bench, synthetic_sources: SyntheticSources) -> Bench:
    """The same home with a small eICU source too, its tasks provisioned."""
    synthetic_sources.copy(bench.home, EICU_SOURCE, "eicu", 80, 5)
    setup(bench.home, EICU_SOURCE, None, "native", progress=False)
    return bench
