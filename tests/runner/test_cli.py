"""``m4bench run`` end to end: a recorded oracle run, a recorded harness error."""

from __future__ import annotations

import json
from pathlib import Path

from bwrap_probe import needs_bwrap
from run_bench import SOURCE, Bench
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.runner import RunSpec, read_result

pytestmark = needs_bwrap


def test_run_command_records_an_oracle_run(bench: Bench, tmp_path: Path) -> None:
    args = [
        "run",
        "--task",
        "mimic-meld-24h",
        "--agent",
        "oracle",
        "--source",
        SOURCE,
        "--home",
        str(bench.home.root),
        "--results",
        str(tmp_path),
        "--trial",
        "3",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "status ok" in result.output and "reward 1.0000" in result.output
    run_id = RunSpec(task="mimic-meld-24h", agent="oracle", trial=3).run_id
    record = read_result(tmp_path / run_id)
    assert record.reward == 1.0 and record.identity.trial == 3
    stored = json.loads((tmp_path / run_id / "result.json").read_text())
    assert stored["format_version"] == 2 and stored["status"] == "ok"


def test_run_command_shows_what_a_wrong_output_got_wrong(bench: Bench, tmp_path: Path) -> None:
    sql = tmp_path / "wrong.sql"  # the right stays, every MELD a constant 6
    sql.write_text("SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays")
    args = ["run", "--task", "mimic-meld-24h", "--agent", "replay", "--replay", str(sql)]
    places = ["--source", SOURCE, "--home", str(bench.home.root), "--results", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, *places], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    shown = result.output.split("first disagreements:\n")[1].splitlines()
    assert shown[0].startswith("  meld at stay_id=")
    assert shown[0].endswith("agent 6.0 (outside the tolerance)")
    assert not shown[1].startswith("  meld at")  # one sample per column in a run's summary


def test_run_command_rejects_an_unknown_condition(bench: Bench, tmp_path: Path) -> None:
    args = [
        "run",
        "--task",
        "mimic-meld-24h",
        "--agent",
        "oracle",
        "--condition",
        "magic",
        "--home",
        str(bench.home.root),
        "--results",
        str(tmp_path),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert not list(tmp_path.iterdir())


def test_run_command_rejects_an_unknown_agent_without_a_record(
    bench: Bench, tmp_path: Path
) -> None:
    args = ["run", "--task", "mimic-meld-24h", "--agent", "cluade-code", "--source", SOURCE]
    result = CliRunner().invoke(
        app, [*args, "--home", str(bench.home.root), "--results", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "unknown agent 'cluade-code'" in result.output
    for name in ("oracle", "replay", "mutant:NAME", "claude-code", "react"):
        assert name in result.output
    assert not list(tmp_path.iterdir())
