"""The oracle scores 1.0 inside bwrap; a replay is scored exactly as the scorer says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from run_bench import EICU_SOURCE, SOURCE, Bench, provision
from sweeps import SWEEP, swept

from m4bench.fileio import sha256_file
from m4bench.provision.ground_truth import ground_truth_path, task_key
from m4bench.runner import is_complete, read_result
from m4bench.scoring import score_output
from m4bench.sources.layout import load_source
from m4bench.tasks.reference import output_columns

pytestmark = needs_bwrap

# One task per kind of plan: a standard task missing one table, raw tasks rebuilding a
# chain of concepts, an episode task with ordinal keys.
REPRESENTATIVE = ["mimic-kdigo-48h", "mimic-sofa-24h-raw", "mimic-ventilation"]


@pytest.mark.parametrize("task", REPRESENTATIVE)
def test_oracle_scores_one_inside_bwrap(bench: Bench, tmp_path: Path, task: str) -> None:
    record = bench.run(tmp_path, task, "oracle", condition="with-skill")
    assert record.status == "ok", record.status_detail + str(record.error)
    assert record.reward == 1.0
    assert record.publishable, record.publishable_reason
    assert record.sandbox.canary is not None and record.sandbox.canary.passed
    assert record.sandbox.lint is not None and record.sandbox.lint.passed
    run_dir = tmp_path / record.run_id
    assert is_complete(run_dir)
    assert read_result(run_dir) == record
    kept = record.artifacts
    assert {"instruction.md", "output.csv", "trace.jsonl", "trajectory.json"} <= set(kept)
    assert not (run_dir / "attempt-1" / "workdir").exists()
    assert record.skills and all(s.origin.startswith(task) for s in record.skills)
    assert record.versions.agent == record.versions.m4bench
    truth = ground_truth_path(bench.home, SOURCE, task)
    assert record.ground_truth is not None and record.score is not None
    assert record.ground_truth.sha256 == sha256_file(truth)
    assert record.ground_truth.rows == record.score.keys.truth_rows
    assert record.ground_truth.key == task_key(bench.catalog.task(task))
    fingerprint = load_source(bench.home, SOURCE).manifest.fingerprint()
    assert record.ground_truth.source_fingerprint == fingerprint


@SWEEP
def test_oracle_scores_one_on_every_task(eicu_bench: Bench, tmp_path: Path, every: bool) -> None:
    """Every task in the heavy tier; one per dataset and mode by default (sweeps.py)."""
    tasks = swept(eicu_bench.catalog.tasks, every)
    provision(eicu_bench, tasks)
    failures = {}
    for task in tasks:
        source = EICU_SOURCE if task.card.dataset == "eicu" else SOURCE
        record = eicu_bench.run(tmp_path, task.name, "oracle", source=source)
        if record.status != "ok" or record.reward != 1.0:
            failures[task.name] = (record.status, record.reward, record.status_detail, record.error)
    assert not failures
    assert {t.card.dataset for t in tasks} == {"mimic-iv", "eicu"}
    assert len(tasks) >= (28 if every else 3)


def test_replay_of_wrong_sql_scores_what_the_scorer_says(bench: Bench, tmp_path: Path) -> None:
    task = bench.catalog.task("mimic-meld-24h")
    truth = ground_truth_path(bench.home, "run-mimic", task)
    # Every ICU stay (the right keys) with a constant MELD: a known-wrong answer.
    sql = tmp_path / "wrong.sql"
    sql.write_text(
        "-- every stay scores 6\n"
        "SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays;\n",
        encoding="utf-8",
    )
    record = bench.run(tmp_path / "results", task.name, "replay", replay_file=sql)
    assert record.status == "ok", record.status_detail
    assert record.publishable
    kept = tmp_path / "results" / record.run_id / record.artifacts["output.csv"].path
    expected = score_output(task.card.evaluation, truth, kept)
    assert record.score is not None
    assert record.score.reward == expected.reward
    assert record.score.keys.recall == 1.0
    meld = {c.column: c for c in record.score.columns}["meld"]
    assert meld.mismatched > 0 and record.reward < 1.0


def test_replay_inside_bwrap_cannot_read_the_truth(bench: Bench, tmp_path: Path) -> None:
    task = bench.catalog.task("mimic-meld-24h")
    truth = ground_truth_path(bench.home, "run-mimic", task)
    sql = tmp_path / "steal.sql"
    sql.write_text(f"SELECT * FROM read_parquet('{truth}')\n", encoding="utf-8")
    record = bench.run(tmp_path / "results", task.name, "replay", replay_file=sql)
    assert record.status == "nonzero_exit"
    assert record.score is None and record.reward == 0.0
    trace = tmp_path / "results" / record.run_id / record.artifacts["trace.jsonl"].path
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert events[-1]["ok"] is False


def test_mutant_agent_runs_the_changed_reference(bench: Bench, tmp_path: Path) -> None:
    task = bench.catalog.task("mimic-meld-24h")
    columns = output_columns(task.reference_sql)
    select = ", ".join(f"{c} + 5 AS {c}" if c == "meld" else c for c in columns)
    asked: list[tuple[str, str]] = []

    def mutants(task_name: str, mutant: str) -> str:
        asked.append((task_name, mutant))
        return f"SELECT {select} FROM (\n{task.reference_sql.strip().rstrip(';')}\n) AS ref"

    record = bench.run(tmp_path, task.name, "mutant:meld-plus-five", mutants=mutants)
    assert asked == [(task.name, "meld-plus-five")]
    assert record.status == "ok", (record.status_detail, record.error)
    assert record.reward == 0.0
    assert record.score is not None and record.score.keys.recall == 1.0
    missing = bench.run(tmp_path / "none", task.name, "mutant:meld-plus-five")
    assert missing.status == "harness_error" and "mutant" in (missing.error or "")
