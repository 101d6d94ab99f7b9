"""Agents apart: a folder mixing a model with the oracle and a mutant, the folder
``m4bench run --results DIR`` writes, and several inputs in one call."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_campaign import write_results_dir, write_runs_csv
from result_records import record as make_record
from result_records import score
from typer.testing import CliRunner

from m4bench.analysis import AnalysisResult, AnalysisSettings, analyze, load_source
from m4bench.analysis.tables import Table
from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.fileio import write_model
from m4bench.results import ResultRecord, RunSpec

FAST = AnalysisSettings(reps=200, permutation_reps=200)
TASKS = ("mimic-sofa-24h", "mimic-meld-24h-raw", "eicu-gcs")
# the model's no-skill / with-skill reward on each task (every trial alike)
MODEL_REWARDS = {
    "mimic-sofa-24h": (0.40, 0.70),
    "mimic-meld-24h-raw": (0.50, 0.60),
    "eicu-gcs": (0.60, 0.50),
}
MODEL_DELTA = (0.30 + 0.10 - 0.10) / 3


def run_record(
    task: str, condition: str, agent: str, model: str, trial: int, reward: float
) -> ResultRecord:
    spec = RunSpec.model_validate(
        {"task": task, "condition": condition, "agent": agent, "model": model, "trial": trial}
    )
    return make_record(spec, scored=score(reward))


def mixed_records() -> list[ResultRecord]:
    """A model under both conditions, the oracle (always right) under both, and a
    mutant (always 0.2) under no-skill only: what a validation run folder holds."""
    found = []
    for task in TASKS:
        for trial in (1, 2):
            low, high = MODEL_REWARDS[task]
            found.append(run_record(task, "no-skill", "codex", "gpt-x", trial, low))
            found.append(run_record(task, "with-skill", "codex", "gpt-x", trial, high))
            found.append(run_record(task, "no-skill", "oracle", "default", trial, 1.0))
            found.append(run_record(task, "with-skill", "oracle", "default", trial, 1.0))
            found.append(run_record(task, "no-skill", "mutant:window", "default", trial, 0.2))
    return found


def _records(table: Table) -> list[dict[str, object]]:
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]


def _reward(result: AnalysisResult, agent: str, scope: str) -> float:
    found = [e for e in result.headline if (e.agent, e.metric, e.scope) == (agent, "reward", scope)]
    assert len(found) == 1, found
    return found[0].delta


@pytest.fixture
def shared_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_mixed_agent_folder_keeps_agents_apart(tmp_path: Path, shared_umask: None) -> None:
    folder = write_results_dir(tmp_path / "validation", mixed_records())
    result = analyze(folder, tmp_path / "out", FAST)
    assert [group.agent for group in result.groups] == ["codex", "mutant:window", "oracle"]
    # pooled with the oracle (delta 0) the model's effect would be halved
    assert _reward(result, "codex", "task-balanced") == pytest.approx(MODEL_DELTA)
    assert _reward(result, "codex", "gpt-x") == pytest.approx(MODEL_DELTA)
    assert _reward(result, "oracle", "task-balanced") == pytest.approx(0.0)
    assert {e.agent for e in result.headline} == {"codex", "oracle"}
    arms = {(r["Agent"], r["Model"]): r for r in _records(result.table("arms"))}
    assert set(arms) == {("codex", "gpt-x"), ("oracle", "default"), ("mutant:window", "default")}
    assert arms[("codex", "gpt-x")]["Delta"] == pytest.approx(MODEL_DELTA)
    assert arms[("codex", "gpt-x")]["Runs"] == 12 and arms[("codex", "gpt-x")]["Tasks"] == 3
    assert arms[("mutant:window", "default")]["Delta"] is None  # no with-skill runs
    assert all(row["Inputs"] == "validation" for row in arms.values())
    assert "mutant:window" in result.table("arms").caption
    # every joined table names the agent of each row; none pools two agents
    cells = _records(result.table("cells"))
    assert {row["Agent"] for row in cells} == {"codex", "oracle", "mutant:window"}
    headline = _records(result.table("headline"))
    assert {row["Agent"] for row in headline} == {"codex", "oracle"}
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "<title>m4bench analysis — validation</title>" in page
    assert str(tmp_path) not in page
    assert "needs: &#x27;no-skill&#x27; and &#x27;with-skill&#x27; runs" in page  # the mutant
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():  # statistics only: readable as any new file under umask 022
            assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def write_run_folder(root: Path, records: list[ResultRecord]) -> Path:
    """The folder ``m4bench run --results DIR`` writes: each run's record beside its
    attempt folder (instruction, output, a trajectory JSON that is no record, logs)."""
    for item in records:
        run = root / item.run_id
        write_model(run / "result.json", item)
        attempt = run / "attempt-1"
        (attempt / "logs").mkdir(parents=True)
        (attempt / "instruction.md").write_text("# task\n", encoding="utf-8")
        (attempt / "output.csv").write_text("stay_id,value\n1,2\n", encoding="utf-8")
        (attempt / "trajectory.json").write_text('{"schema_version": "ATIF-v1.4"}', "utf-8")
    return root


def test_analyze_reads_the_folder_m4bench_run_writes(tmp_path: Path) -> None:
    records = [r for r in mixed_records() if r.identity.agent == "codex"]
    folder = write_run_folder(tmp_path / "results", records)
    result = analyze(folder, tmp_path / "out", FAST)
    assert dict(result.integrity)["Runs loaded"] == 12
    assert "Runs planned" not in dict(result.integrity)
    assert _reward(result, "codex", "gpt-x") == pytest.approx(MODEL_DELTA)
    # one run's folder, or its result.json, is an input too
    one = folder / records[0].run_id
    for source in (one, one / "result.json"):
        runs, label = load_source(source)
        assert [run.run_id for run in runs] == [records[0].run_id]
        assert label == source.name


def test_two_inputs_keep_arms_apart_and_name_their_inputs(tmp_path: Path) -> None:
    records = mixed_records()
    primary = write_run_folder(
        tmp_path / "primary", [r for r in records if r.identity.agent == "codex"]
    )
    follow_up = write_runs_csv(
        tmp_path / "follow-up.csv", [r for r in records if r.identity.agent == "oracle"]
    )
    runner = CliRunner()
    out = tmp_path / "out"
    done = runner.invoke(
        app,
        ["analyze", str(primary), str(follow_up), "--out", str(out),
         "--reps", "200", "--permutation-reps", "200"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    arms = {(r[0], r[1]): r[2] for r in _csv_rows(out / "tables" / "arms.csv")}
    # the CSV carries no agent column: its runs' agent is unnamed
    assert arms == {("codex", "gpt-x"): "primary", ("(unnamed)", "default"): "follow-up.csv"}
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<title>m4bench analysis — primary, follow-up.csv</title>" in page


def _csv_rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split(",") for line in lines]


def test_one_arm_from_two_inputs_lists_both(tmp_path: Path) -> None:
    records = [r for r in mixed_records() if r.identity.agent == "codex"]
    natives = write_results_dir(tmp_path / "a" / "runs-1", records[:6])
    rest = write_results_dir(tmp_path / "b" / "runs-1", records[6:])
    result = analyze([natives, rest], tmp_path / "out", FAST)
    assert result.inputs == ["a/runs-1", "b/runs-1"]  # same folder name: parents tell apart
    (arm,) = _records(result.table("arms"))
    assert arm["Inputs"] == "a/runs-1, b/runs-1" and arm["Runs"] == 12
    assert arm["Delta"] == pytest.approx(MODEL_DELTA)


def test_a_run_id_in_two_inputs_is_an_error_unless_the_same_record(tmp_path: Path) -> None:
    records = [r for r in mixed_records() if r.identity.agent == "codex"]
    first = write_results_dir(tmp_path / "first", records)
    copy = write_results_dir(tmp_path / "copy", records[:2])
    result = analyze([first, copy], tmp_path / "out", FAST)
    assert dict(result.integrity)["Runs loaded"] == 12  # the copied records count once
    changed = records[0].model_copy(update={"reward": 0.99, "score": score(0.99)})
    other = write_results_dir(tmp_path / "other", [changed])
    with pytest.raises(M4BenchError, match=rf"{records[0].run_id} is in first and in other"):
        analyze([first, other], tmp_path / "out2", FAST)
