"""A small synthetic MIMIC-IV source, its concepts and its native provisioning, built once.

The session fixtures share one data home; the perturbed schemas are built into it only
by the ``perturbed`` fixture, after ``provisioned`` has recorded that native setup did
not create them.
"""

from __future__ import annotations

import pytest
from provision_helpers import SOURCE, Provisioned

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.provision.equivalence import EquivalenceResult
from m4bench.provision.layout import perturbed_root
from m4bench.provision.provisioner import equivalence_checks, setup
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv
from m4bench.tasks.catalog import Catalog, load_catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def provisioned(tmp_path_factory: pytest.TempPathFactory) -> Provisioned:
    home = DataHome(tmp_path_factory.mktemp("provision-home"))
    source = synthesize_mimic_iv(home, SOURCE, stays=200, seed=11, progress=False)
    build_concepts(source, jobs=2, progress=False)
    report = setup(home, SOURCE, None, "native", progress=False)
    return Provisioned(home, source, report, perturbed_root(home, SOURCE).exists())


@pytest.fixture(scope="session")
def perturbed(provisioned: Provisioned, catalog: Catalog) -> list[EquivalenceResult]:
    """Both perturbed schemas built, every MIMIC-IV reference checked on them."""
    tasks = [t for t in catalog.tasks if t.card.dataset == "mimic-iv"]
    return equivalence_checks(provisioned.home, provisioned.source, tasks, "native", progress=False)
