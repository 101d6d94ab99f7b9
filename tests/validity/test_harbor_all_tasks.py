"""Tasks exported to Harbor, on the default synthetic sources: their own scripts score the
oracle 1.0 and the task's first mutant below 1.0 (the audit proves every mutant moves the
score on these sources).

All 28 tasks in the heavy tier; the default suite exports and runs the fixed sample of
sweeps.py (one task per dataset and mode)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from harbor_trial import check_with_harbor, harbor_python, run_trial
from sweeps import SWEEP_PARAMS, swept
from validity_sources import DefaultSources

from m4bench.integrations.bundle import resolve_bundle
from m4bench.integrations.harbor_export import ExportRequest, export_harbor
from m4bench.integrations.harbor_model import folder_problems
from m4bench.provision.provisioner import setup
from m4bench.tasks.catalog import Catalog
from m4bench.tasks.mutants import task_mutants

CONDITION = "no-skill"


@dataclass(frozen=True)
class Exported:
    every: bool
    tasks: list[str]
    out: Path


@pytest.fixture(scope="module", params=SWEEP_PARAMS)
def exported(
    request: pytest.FixtureRequest,
    default_sources: DefaultSources,
    catalog: Catalog,
    tmp_path_factory: pytest.TempPathFactory,
) -> Exported:
    every: bool = request.param
    tasks = [t.name for t in swept(catalog.tasks, every)]
    home = default_sources.home
    for source in (default_sources.mimic, default_sources.eicu):
        mine = [t for t in tasks if catalog.task(t).card.dataset == source.manifest.dataset]
        setup(home, source.name, mine, "native", progress=False)
    out = tmp_path_factory.mktemp("harbor-all")
    sources = {"mimic-iv": default_sources.mimic.name, "eicu": default_sources.eicu.name}
    request_ = ExportRequest(tasks=tasks, conditions=[CONDITION], sources=sources)
    export_harbor(home, out, request_, catalog=catalog)
    return Exported(every, tasks, out)


def test_the_tasks_are_exported_as_harbor_accepts_them(exported: Exported) -> None:
    folders = sorted(exported.out.iterdir())
    assert [folder.name for folder in folders] == sorted(
        f"{task}.{CONDITION}" for task in exported.tasks
    )
    assert len(folders) == (28 if exported.every else 3)
    assert {
        folder.name: folder_problems(folder) for folder in folders if folder_problems(folder)
    } == {}
    python = harbor_python()
    if python is not None:
        check_with_harbor(python, folders)


def test_the_scripts_score_the_oracle_one_and_a_mutant_less(
    exported: Exported, default_sources: DefaultSources, catalog: Catalog, tmp_path: Path
) -> None:
    for task in exported.tasks:
        folder = exported.out / f"{task}.{CONDITION}"
        assert run_trial(folder, tmp_path / task / "oracle")["reward"] == 1.0, task
        dataset = catalog.task(task).card.dataset
        source = default_sources.mimic if dataset == "mimic-iv" else default_sources.eicu
        bundle = resolve_bundle(default_sources.home, task, source=source.name)
        mutant = task_mutants(bundle.task)[0]
        statements = bundle.oracle_statements(mutant.sql)
        wrong = run_trial(folder, tmp_path / task / "mutant", statements)
        assert wrong["reward"] < 1.0, (task, mutant.name)
