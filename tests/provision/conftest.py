"""A small synthetic MIMIC-IV source, its concepts and its native provisioning, built once.

The session fixtures share one data home, built once for all test workers (under a
file lock in the run's shared temporary directory); the perturbed schemas are built
into it only by the ``perturbed`` fixture, after native setup has recorded that it did
not create them.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

import pytest
from provision_helpers import SOURCE, Provisioned

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.provision.equivalence import EquivalenceResult
from m4bench.provision.layout import perturbed_root
from m4bench.provision.provisioner import equivalence_checks, setup
from m4bench.sources.layout import load_source
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv
from m4bench.tasks.catalog import Catalog, load_catalog


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (one test worker builds, the others wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every worker of this test run sees."""
    return tmp_path_factory.getbasetemp().parent / "provision-shared"


@pytest.fixture(scope="session")
def provisioned(shared_root: Path) -> Provisioned:
    home = DataHome(shared_root / "home")
    marker = shared_root / "native.built"
    with locked(shared_root / "native.lock"):
        if not marker.exists():
            source = synthesize_mimic_iv(home, SOURCE, stays=200, seed=11, progress=False)
            build_concepts(source, jobs=2, progress=False)
        report = setup(home, SOURCE, None, "native", progress=False)
        if not marker.exists():
            marker.write_text(str(perturbed_root(home, SOURCE).exists()))
    source = load_source(home, SOURCE)
    return Provisioned(home, source, report, marker.read_text() == "True")


@pytest.fixture(scope="session")
def perturbed(
    provisioned: Provisioned, catalog: Catalog, shared_root: Path
) -> list[EquivalenceResult]:
    """Both perturbed schemas built, every MIMIC-IV reference checked on them."""
    tasks = [t for t in catalog.tasks if t.card.dataset == "mimic-iv"]
    with locked(shared_root / "perturbed.lock"):
        return equivalence_checks(
            provisioned.home, provisioned.source, tasks, "native", progress=False
        )
