"""A provisioned data home for the harness-robustness tests, and runs of hostile scripts.

The home (the small synthetic MIMIC-IV source, one task provisioned) is built once per
test run in the run's shared folder and then only read: a test that damages it takes a
copy (:func:`private_home`). Hostile agents are ``replay`` scripts run with the ``none``
backend, where isolation is not what the test is about.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from synthetic_sources import SyntheticSources, locked, run_folder

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.runner import ResultRecord, RunOptions, RunSpec, execute_run
from m4bench.tasks.catalog import Catalog

SOURCE = "hostile-mimic"
TASK = "mimic-meld-24h"


def shared_home(factory: pytest.TempPathFactory, sources: SyntheticSources) -> DataHome:
    """The home every test of this folder reads (built by the first to ask)."""
    root = run_folder(factory) / "hostile-home"
    with locked(root.with_suffix(".lock")):
        if not (root / "built").exists():
            shutil.rmtree(root, ignore_errors=True)
            home = DataHome(root / "home")
            sources.copy(home, SOURCE, "mimic-iv", 60, 5, concepts=True)
            setup(home, SOURCE, [TASK], "native", progress=False)
            (root / "built").write_text("", encoding="utf-8")
    return DataHome(root / "home")


def private_home(shared: DataHome, folder: Path) -> DataHome:
    """A copy of the shared home that a test may damage: the task's link tree is
    pointed at the copy's own source files."""
    shutil.copytree(shared.root, folder, symlinks=True)
    old = str(shared.root)
    for link in folder.rglob("*"):
        if link.is_symlink() and str(link.readlink()).startswith(old):
            target = str(link.readlink()).replace(old, str(folder), 1)
            link.unlink()
            link.symlink_to(target)
    return DataHome(folder)


def hostile_run(
    home: DataHome,
    results: Path,
    script: str,
    catalog: Catalog,
    suffix: str = ".sh",
    **options: object,
) -> ResultRecord:
    """Run ``script`` (shell or Python text) as the replay agent, unsandboxed."""
    path = results.parent / f"hostile-{results.name}{suffix}"
    path.write_text(script, encoding="utf-8")
    spec = RunSpec.model_validate({"task": TASK, "agent": "replay"})
    settings = RunOptions(
        sandbox="none",
        replay_file=path,
        timeout=60,
        catalog=catalog,
        **options,  # type: ignore[arg-type]
    )
    return execute_run(spec, home=home, source=SOURCE, results_dir=results, options=settings)


def attempt_dir(results: Path, record: ResultRecord) -> Path:
    return results / record.run_id / f"attempt-{record.attempt}"
