"""Every one of the 28 tasks exported to Harbor, on the default synthetic sources: its own
scripts score the oracle 1.0 and the task's first mutant below 1.0 (the audit proves every
mutant moves the score on these sources)."""

from __future__ import annotations

from pathlib import Path

import pytest
from harbor_trial import check_with_harbor, harbor_python, run_trial
from validity_sources import DEFAULT_SOURCES_GROUP, DefaultSources

from m4bench.integrations.bundle import resolve_bundle
from m4bench.integrations.harbor_export import ExportRequest, export_harbor
from m4bench.integrations.harbor_model import folder_problems
from m4bench.provision.provisioner import setup
from m4bench.tasks.catalog import load_catalog
from m4bench.tasks.mutants import task_mutants

pytestmark = [pytest.mark.slow, DEFAULT_SOURCES_GROUP]
TASKS = load_catalog().names
CONDITION = "no-skill"


@pytest.fixture(scope="module")
def exported(default_sources: DefaultSources, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = default_sources.home
    for source in (default_sources.mimic, default_sources.eicu):
        setup(home, source.name, None, "native", progress=False)
    out = tmp_path_factory.mktemp("harbor-all")
    sources = {"mimic-iv": default_sources.mimic.name, "eicu": default_sources.eicu.name}
    export_harbor(home, out, ExportRequest(conditions=[CONDITION], sources=sources))
    return out


def test_all_28_tasks_are_exported_as_harbor_accepts_them(exported: Path) -> None:
    folders = sorted(exported.iterdir())
    assert [folder.name for folder in folders] == sorted(f"{task}.{CONDITION}" for task in TASKS)
    assert len(folders) == 28
    assert {
        folder.name: folder_problems(folder) for folder in folders if folder_problems(folder)
    } == {}
    python = harbor_python()
    if python is not None:
        check_with_harbor(python, folders)


@pytest.mark.parametrize("task", TASKS)
def test_the_scripts_score_the_oracle_one_and_a_mutant_less(
    task: str, exported: Path, default_sources: DefaultSources, tmp_path: Path
) -> None:
    folder = exported / f"{task}.{CONDITION}"
    assert run_trial(folder, tmp_path / "oracle")["reward"] == 1.0
    dataset = load_catalog().task(task).card.dataset
    source = default_sources.mimic if dataset == "mimic-iv" else default_sources.eicu
    bundle = resolve_bundle(default_sources.home, task, source=source.name)
    mutant = task_mutants(bundle.task)[0]
    wrong = run_trial(folder, tmp_path / "mutant", bundle.oracle_statements(mutant.sql))
    assert wrong["reward"] < 1.0, mutant.name
