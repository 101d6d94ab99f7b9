"""A small synthetic MIMIC-IV source, its concepts and its native provisioning, built once.

The session fixtures share one data home, built once for all test workers (under a
file lock in the run's shared temporary directory) from a copy of the shared 200-stay
source with its concepts; the perturbed schemas are built into it only by the
``perturbed`` fixture, after native setup has recorded that it did not create them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from provision_helpers import SOURCE, Provisioned, checked_equivalence
from sweeps import sweep_sample
from synthetic_sources import SyntheticSources, locked, run_folder

from m4bench.home import DataHome
from m4bench.provision.equivalence import EquivalenceResult
from m4bench.provision.layout import perturbed_root
from m4bench.provision.provisioner import setup
from m4bench.sources.layout import load_source
from m4bench.tasks.catalog import Catalog


@pytest.fixture(scope="session")
def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every worker of this test run sees."""
    return run_folder(tmp_path_factory) / "provision-shared"


@pytest.fixture(scope="session")
def provisioned(shared_root: Path, synthetic_sources: SyntheticSources) -> Provisioned:
    home = DataHome(shared_root / "home")
    marker = shared_root / "native.built"
    with locked(shared_root / "native.lock"):
        if not marker.exists():
            synthetic_sources.copy(home, SOURCE, "mimic-iv", 200, 7, concepts=True)
        report = setup(home, SOURCE, None, "native", progress=False)
        if not marker.exists():
            marker.write_text(str(perturbed_root(home, SOURCE).exists()))
    source = load_source(home, SOURCE)
    return Provisioned(home, source, report, marker.read_text() == "True")


@pytest.fixture(scope="session")
def perturbed(provisioned: Provisioned, catalog: Catalog) -> list[EquivalenceResult]:
    """Both perturbed schemas built, the fixed sample of MIMIC-IV tasks (sweeps.py) checked
    on them; every reference in the heavy tier (test_perturbations)."""
    tasks = sweep_sample([t for t in catalog.tasks if t.card.dataset == "mimic-iv"])
    return checked_equivalence(provisioned, tasks)
