"""``m4bench export harbor``: task folders Harbor accepts, whose own scripts score the
oracle 1.0 and a mutant below it, holding nothing the agent must not see."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest
from harbor_trial import check_with_harbor, harbor_python, run_trial, solve, verify
from integration_home import HOME_GROUP, MUTANT, RAW_TASK, SOURCE, TASK
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.integrations.bundle import resolve_bundle
from m4bench.integrations.harbor_export import ExportRequest, export_harbor
from m4bench.integrations.harbor_model import HarborTaskConfig, folder_problems
from m4bench.tasks.mutants import find_mutant

pytestmark = HOME_GROUP
CONDITIONS = ("no-skill", "with-skill")


@pytest.fixture(scope="module")
def exported(small_home: DataHome, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("harbor")
    export_harbor(small_home, out, ExportRequest(tasks=[TASK, RAW_TASK], conditions=CONDITIONS))
    return out


def _files(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_one_folder_per_task_and_condition_in_harbors_format(exported: Path) -> None:
    names = sorted(path.name for path in exported.iterdir())
    assert names == sorted(f"{task}.{c}" for task in (TASK, RAW_TASK) for c in CONDITIONS)
    for folder in exported.iterdir():
        assert folder_problems(folder) == [], folder.name
    config_text = (exported / f"{TASK}.with-skill" / "task.toml").read_text(encoding="utf-8")
    config = HarborTaskConfig.model_validate(tomllib.loads(config_text))
    assert config.task.name == f"m4bench/{TASK}.with-skill"
    assert config.metadata["m4bench"]["condition"] == "with-skill"
    assert config.metadata["m4bench"]["skills"] == ["meld-score"]
    assert config.environment.skills_dir == "/app/skills" and config.agent.timeout_sec == 1800
    assert "skills_dir" not in (exported / f"{TASK}.no-skill" / "task.toml").read_text("utf-8")


def test_the_agent_gets_the_native_instruction_and_only_its_allowed_files(
    exported: Path, small_home: DataHome
) -> None:
    bundle = resolve_bundle(small_home, TASK, "with-skill", source=SOURCE)
    folder = exported / f"{TASK}.with-skill"
    assert (folder / "instruction.md").read_text(encoding="utf-8") == bundle.prompt()
    workdir = folder / "environment" / "workdir"
    data = {p.relative_to(workdir).as_posix() for p in workdir.rglob("*.parquet")}
    assert data == {relative for _, relative in bundle.data_files}
    assert "m4data/mimiciv_derived/meld.parquet" not in data  # the task's own target
    assert (workdir / "skills" / "meld-score" / "SKILL.md").is_file()
    truth = hashlib.sha256(bundle.truth.read_bytes()).hexdigest()
    environment = _files(folder / "environment")
    assert truth not in environment.values() and truth in _files(folder / "tests").values()
    raw = exported / f"{RAW_TASK}.no-skill" / "environment" / "workdir" / "m4data"
    assert not (raw / "mimiciv_derived").exists()  # a raw task's database has no derived table


@pytest.mark.parametrize("task", [TASK, RAW_TASK])
def test_the_scripts_score_the_oracle_one_and_a_mutant_less(
    task: str, exported: Path, small_home: DataHome, tmp_path: Path
) -> None:
    folder = exported / f"{task}.no-skill"
    oracle = run_trial(folder, tmp_path / "oracle")
    assert oracle["reward"] == 1.0 and oracle["strict_pass"] == 1.0
    assert oracle["match_rate.meld"] == 1.0 and oracle["key_f1"] == 1.0
    bundle = resolve_bundle(small_home, task, source=SOURCE)
    wrong = bundle.oracle_statements(find_mutant(bundle.task, MUTANT).sql)
    mutant = run_trial(folder, tmp_path / "mutant", wrong)
    assert mutant["reward"] < 1.0 and mutant["match_rate.meld"] < 1.0
    assert (tmp_path / "mutant" / "logs" / "score.json").is_file()


def test_an_output_the_agent_linked_is_no_output(exported: Path, tmp_path: Path) -> None:
    folder = exported / f"{TASK}.no-skill"
    app = solve(folder, tmp_path)
    (app / "output.csv").rename(app / "answer.csv")
    (app / "output.csv").symlink_to(app / "answer.csv")
    rewards = verify(folder, tmp_path)
    assert rewards == {"key_f1": 0.0, "match_rate.meld": 0.0, "reward": 0.0, "strict_pass": 0.0}


def test_export_is_deterministic_and_replaces_a_folder_whole(
    exported: Path, small_home: DataHome, tmp_path: Path
) -> None:
    stray = tmp_path / f"{TASK}.no-skill" / "stray.txt"
    stray.parent.mkdir()
    stray.write_text("from an earlier export", encoding="utf-8")
    export_harbor(small_home, tmp_path, ExportRequest(tasks=[TASK], conditions=["no-skill"]))
    assert not stray.exists()
    assert _files(tmp_path / f"{TASK}.no-skill") == _files(exported / f"{TASK}.no-skill")


def test_the_command_exports_and_refuses_an_unprovisioned_task(
    small_home: DataHome, tmp_path: Path
) -> None:
    runner = CliRunner()
    home = ["--home", str(small_home.root)]
    args = ["export", "harbor", "--out", str(tmp_path), "--task", TASK, *home]
    result = runner.invoke(app, [*args, "--condition", "with-skill-rawsql"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"{TASK}.with-skill-rawsql" / "task.toml").is_file()
    refused = runner.invoke(app, ["export", "harbor", "--out", str(tmp_path / "no"),
                                  "--task", "mimic-sofa-24h", *home])  # fmt: skip
    assert isinstance(refused.exception, M4BenchError)
    assert "m4bench setup" in (refused.exception.hint or refused.exception.message)
    assert not (tmp_path / "no").exists()


def test_harbors_own_task_model_accepts_the_folders(exported: Path) -> None:
    python = harbor_python()
    if python is None:
        pytest.skip("Harbor needs Python 3.12+; set M4BENCH_HARBOR_PYTHON to a Python with harbor")
    check_with_harbor(python, sorted(exported.iterdir()))
