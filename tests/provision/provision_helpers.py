"""Names and helpers shared by the provisioning tests (fixtures live in conftest.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.provision.equivalence import EquivalenceResult
from m4bench.provision.provisioner import SetupReport, equivalence_checks
from m4bench.provision.setup_lock import setup_lock
from m4bench.sources.layout import Source
from m4bench.tasks.catalog import Catalog, Task

SOURCE = "prov-mimic"


@dataclass(frozen=True)
class Provisioned:
    home: DataHome
    source: Source
    report: SetupReport
    perturbed_built_by_native_setup: bool


def checked_equivalence(p: Provisioned, tasks: Sequence[Task]) -> list[EquivalenceResult]:
    """``equivalence_checks`` of ``tasks`` on the shared home, under setup's lock as
    ``setup`` runs it: a setup in another worker sweeps the temporary files it finds."""
    with setup_lock(p.home, SOURCE, lambda message: None):
        return equivalence_checks(p.home, p.source, tasks, "native", progress=False)


def mimic_tasks(catalog: Catalog, mode: str | None = None) -> list[str]:
    return [
        t.name
        for t in catalog.tasks
        if t.card.dataset == "mimic-iv" and (mode is None or t.card.mode == mode)
    ]


def sha(path: Path) -> str:
    return sha256_file(path)


def private_home(p: Provisioned, tmp_path: Path) -> DataHome:
    """A home sharing the session's source (read-only) but with its own ground truth."""
    home = DataHome(tmp_path / "home")
    home.sources.mkdir(parents=True)
    (home.sources / SOURCE).symlink_to(p.source.layout.root)
    return home
