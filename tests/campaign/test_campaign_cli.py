"""The campaign commands: plan, run (rehearsed with --simulate), status, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from console_entry import m4bench
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.results import read_results

runner = CliRunner()


def test_plan_prints_every_run_and_the_count() -> None:
    result = runner.invoke(app, ["campaign", "plan", "paper-controls", "--agent", "claude-code"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "\t" in line]
    assert len(lines) == 200
    assert all("|claude-code|" in line for line in lines)
    assert result.output.rstrip().endswith("200 runs planned")


def test_plan_overrides_models_and_trials() -> None:
    result = runner.invoke(
        app,
        ["campaign", "plan", "operational-spec", "--model", "m1", "--trials", "2", "--no-runs"],
    )
    assert result.exit_code == 0, result.output
    assert "16 runs planned" in result.output


def test_run_status_and_resume(tmp_path: Path, small_profile: Path) -> None:
    results = tmp_path / "results"
    command = ["campaign", "run", str(small_profile), "--results", str(results), "--no-progress"]
    simulate = ["--simulate", "seconds=0:0.01,fail=0.3,seed=2"]
    first = runner.invoke(app, [*command, *simulate])
    assert first.exit_code == 0, first.output
    assert "24/24 complete" in first.output
    again = runner.invoke(app, [*command, *simulate])
    assert again.exit_code != 0
    assert "--resume" in str(again.exception)
    resumed = runner.invoke(app, [*command, "--resume", *simulate])
    assert resumed.exit_code == 0 and "0 done and 0 failed now, 24 before" in resumed.output
    status = runner.invoke(app, ["campaign", "status", str(results)], env={"COLUMNS": "200"})
    assert status.exit_code == 0, status.output
    summary = status.output.strip().splitlines()[-1]
    done, failed = (int(summary.split(" ")[i]) for i in (0, 2))
    assert done + failed == 24 and failed > 0
    assert summary.endswith("0 missing (0 running) of 24 planned")
    as_json = runner.invoke(app, ["campaign", "status", str(results), "--json"])
    document = json.loads(as_json.output)
    assert document["totals"] == {"done": done, "failed": failed, "missing": 0, "running": 0}
    assert len(document["cells"]) == 12
    assert sum(sum(c["failure_reasons"].values()) for c in document["cells"]) == failed
    # Each cell's mean reward is that of its complete runs, as their records say: a failed
    # run counts with its reward (0 here: no simulated output was scored).
    fields = ("task", "condition", "agent", "model", "reasoning")
    records = [item.record for item in read_results(results)]
    assert any(r.status != "ok" for r in records)
    for cell in document["cells"]:
        rewards = [
            r.reward for r in records if all(getattr(r.identity, f) == cell[f] for f in fields)
        ]
        assert cell["mean_reward"] == pytest.approx(sum(rewards) / len(rewards))
    assert "mean reward" in status.output


def test_budget_stop_exits_nonzero(tmp_path: Path, small_profile: Path) -> None:
    results = tmp_path / "results"
    result = runner.invoke(
        app,
        [
            "campaign",
            "run",
            str(small_profile),
            "--results",
            str(results),
            "--no-progress",
            "--jobs",
            "1",
            "--max-tokens",
            "1",
            "--simulate",
            "seconds=0:0",
        ],
    )
    assert result.exit_code == 1
    assert "stopped: token budget reached" in result.output
    assert "run again with --resume" in result.output


def test_infrastructure_errors_are_named_by_run_and_status(
    tmp_path: Path, small_profile: Path
) -> None:
    """Runs left missing by the harness say why, in the run's summary and in status."""
    results = tmp_path / "results"
    command = ["campaign", "run", str(small_profile), "--results", str(results), "--no-progress"]
    failed = runner.invoke(app, [*command, "--simulate", "seconds=0:0,infra=1"])
    assert failed.exit_code == 1
    # The profile's default stop: 10 in a row, plus what was in flight (4 jobs).
    errors = int(failed.output.split(" infrastructure errors;")[0].rsplit(" ", 1)[1])
    assert 10 <= errors <= 13
    assert f"  {errors}x InfrastructureError: simulated sandbox start failure" in failed.output
    stop = re.search(r"stopped: (\d+) runs in a row failed in the harness", failed.output)
    assert stop and 10 <= int(stop.group(1)) <= errors
    status = runner.invoke(app, ["campaign", "status", str(results)], env={"COLUMNS": "200"})
    assert "missing runs' last infrastructure errors" in status.output
    assert f"  {errors}x InfrastructureError: simulated sandbox start failure" in status.output
    document = json.loads(runner.invoke(app, ["campaign", "status", str(results), "--json"]).output)
    assert document["last_infrastructure_errors"] == {
        "InfrastructureError: simulated sandbox start failure": errors
    }
    assert document["totals"]["missing"] == 24
    resumed = runner.invoke(app, [*command, "--resume", "--simulate", "seconds=0:0"])
    assert resumed.exit_code == 0 and "infrastructure errors," not in resumed.output
    after = json.loads(runner.invoke(app, ["campaign", "status", str(results), "--json"]).output)
    assert after["last_infrastructure_errors"] == {}


def test_status_of_a_directory_without_campaign(tmp_path: Path) -> None:
    result = runner.invoke(app, ["campaign", "status", str(tmp_path)])
    assert result.exit_code != 0
    assert "no campaign here" in str(result.exception)


REAL_TASKS = """
format_version = 1
name = "real-tasks"
default_agent = "oracle"
trials = 2
[agents.oracle]
provider = "local"
models = { primary = ["default"] }
[[blocks]]
name = "pair"
tasks = ["mimic-meld-24h", "TASK"]
conditions = ["no-skill"]
"""


def _real_tasks_profile(directory: Path, second: str = "mimic-kdigo-48h") -> Path:
    path = directory / "real-tasks.toml"
    path.write_text(REAL_TASKS.replace("TASK", second), encoding="utf-8")
    return path


def _attempt_files(results: Path) -> list[Path]:
    return sorted(results.glob("runs/*/attempts/*.json"))


def test_a_simulated_campaign_is_not_resumed_with_real_runs(tmp_path: Path) -> None:
    profile = _real_tasks_profile(tmp_path)
    results = tmp_path / "results"
    command = ["campaign", "run", str(profile), "--results", str(results), "--no-progress"]
    partial = runner.invoke(
        app, [*command, "--jobs", "1", "--max-tokens", "1", "--simulate", "seconds=0:0"]
    )
    assert partial.exit_code == 1 and "runs missing" in partial.output, partial.output
    before = _attempt_files(results)
    empty_home = ["--home", str(tmp_path / "home"), "--sandbox", "none"]
    real = runner.invoke(app, [*command, "--resume", *empty_home])
    assert isinstance(real.exception, M4BenchError), real.output
    assert "--simulate: recorded simulated runs, given real runs" in real.exception.message
    assert _attempt_files(results) == before, "refused before any run started"
    # Left out, the recorded simulation (and profile) is taken again.
    resumed = runner.invoke(app, ["campaign", "run", "--results", str(results), "--resume"])
    assert resumed.exit_code == 0, resumed.output
    status = runner.invoke(app, ["campaign", "status", str(results)], env={"COLUMNS": "200"})
    assert "runs executed with: --simulate (simulated runs: not publishable" in status.output
    document = json.loads(runner.invoke(app, ["campaign", "status", str(results), "--json"]).output)
    assert document["settings"]["simulated"] is True


def test_plan_refuses_a_task_not_in_the_catalog_with_a_suggestion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, naming the file, the block and the task, with the catalog's did-you-mean."""
    profile = _real_tasks_profile(tmp_path, second="mimic-kdigo-48")
    code, err = m4bench(["campaign", "plan", str(profile)], monkeypatch, capsys)
    assert code == 2
    where = f"{profile}: field blocks[0] ('pair').tasks"
    assert f"{where}: not in the task catalog: mimic-kdigo-48" in err
    assert "hint: did you mean mimic-kdigo-48h" in err
    run = runner.invoke(
        app, ["campaign", "run", str(profile), "--results", str(tmp_path / "r"), "--no-progress"]
    )
    assert isinstance(run.exception, M4BenchError), run.output
    assert "did you mean mimic-kdigo-48h" in str(run.exception), "run refuses it the same way"
    assert not (tmp_path / "r").exists()
