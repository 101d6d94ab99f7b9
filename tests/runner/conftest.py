"""Session fixtures of the runner tests (helpers live in run_bench)."""

from __future__ import annotations

import pytest
from run_bench import EICU_SOURCE, FAST_TASKS, SOURCE, Bench, provision_everything

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv
from m4bench.tasks.catalog import Catalog, load_catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def bench(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Bench:
    home = DataHome(tmp_path_factory.mktemp("runner-home"))
    source = synthesize_mimic_iv(home, SOURCE, stays=60, seed=5, progress=False)
    build_concepts(source, jobs=2, progress=False)
    setup(home, SOURCE, FAST_TASKS, "native", progress=False)
    return Bench(home, catalog)


@pytest.fixture(scope="session")
def eicu_bench(bench: Bench) -> Bench:
    """The same home, every MIMIC-IV task provisioned, and a small eICU source too."""
    provision_everything(bench)
    synthesize_eicu(bench.home, EICU_SOURCE, stays=80, seed=5, progress=False)
    setup(bench.home, EICU_SOURCE, None, "native", progress=False)
    return bench
