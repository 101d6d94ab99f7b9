"""``m4bench tasks list|show|lint`` and ``m4bench reference`` through the CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from synthetic_sources import SyntheticSources
from typer.testing import CliRunner
from user_tasks import local_family, replace_in

from m4bench import __version__
from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.tasks.catalog import TASKS_ENV

runner = CliRunner()


def test_list_json_has_every_task_with_its_depth() -> None:
    result = runner.invoke(app, ["tasks", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)}
    assert len(rows) == 28
    assert len({row["family"] for row in rows.values()}) == 15
    databases = [row["database"] for row in rows.values()]
    assert (databases.count("mimic-iv"), databases.count("eicu")) == (26, 2)
    modes = [row["mode"] for row in rows.values()]
    assert (modes.count("standard"), modes.count("raw")) == (11, 17)
    assert rows["mimic-kdigo-48h"]["dependency_depth"] >= 3
    assert rows["mimic-sofa-24h-raw"]["sentinel"] is True
    depends_on = set(rows["mimic-meld-24h"]["depends_on"])
    assert depends_on >= {"first_day_lab", "first_day_rrt", "chemistry", "rrt"}


def test_list_table_and_show() -> None:
    listed = runner.invoke(app, ["tasks", "list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "mimic-urine-output-rate-raw" in listed.output
    shown = runner.invoke(app, ["tasks", "show", "mimic-meld-24h"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "first_day_rrt" in shown.output and "meld=1.0" in shown.output
    assert "Output a CSV file to `{output_path}`" in shown.output


def test_list_written_to_a_pipe_is_not_cut_short() -> None:
    """Captured output is no terminal: without COLUMNS the table keeps whole names."""
    piped = runner.invoke(app, ["tasks", "list"], env={"COLUMNS": None})
    assert piped.exit_code == 0, piped.output
    assert "\u2026" not in piped.output
    for line in piped.output.splitlines()[3:-1]:
        name, family = (cell.strip() for cell in line.split("\u2502")[1:3])
        assert name.startswith(("mimic-", "eicu-")) and family
    assert "mimic-creatinine-baseline-raw" in piped.output and "urine-output-rate" in piped.output
    narrow = runner.invoke(app, ["tasks", "list"], env={"COLUMNS": "80"})
    assert "\u2026" in narrow.output


def test_show_unknown_task_is_a_user_error() -> None:
    result = runner.invoke(app, ["tasks", "show", "mimic-nothing"])
    assert isinstance(result.exception, M4BenchError)


def test_lint_passes_on_the_catalog() -> None:
    result = runner.invoke(app, ["tasks", "lint", "--no-run"])
    assert result.exit_code == 0, result.output
    assert "28 tasks: 0 errors" in result.output


def test_reference_writes_csv_and_parquet(
    tmp_path: Path, synthetic_sources: SyntheticSources
) -> None:
    home = tmp_path / "home"
    # named as `m4bench demo --small` names it: the only MIMIC-IV source is read by default
    source = synthetic_sources.copy(
        DataHome(home), "demo-small-mimic-iv", "mimic-iv", 60, 5, concepts=True
    )
    out = tmp_path / "meld.csv"
    args = ["reference", "mimic-meld-24h", "--home", str(home), "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 60 and list(rows[0]) == ["subject_id", "hadm_id", "stay_id", "meld"]
    assert [int(r["stay_id"]) for r in rows] == sorted(int(r["stay_id"]) for r in rows)
    parquet = tmp_path / "meld.parquet"
    again = runner.invoke(app, [*args[:-1], str(parquet), "--source", source.name])
    assert again.exit_code == 0 and parquet.stat().st_size > 0


def test_reference_without_sources_says_how_to_build_one(tmp_path: Path) -> None:
    result = runner.invoke(app, ["reference", "mimic-meld-24h", "--home", str(tmp_path)])
    assert isinstance(result.exception, M4BenchError)
    assert "`m4bench data synth mimic-iv`" in (result.exception.hint or "")


def test_lint_of_named_tasks_reads_only_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = local_family(tmp_path / "ours")
    replace_in(task / "task.toml", 'difficulty = "medium"', 'difficulty = "trivial"')
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    env = {"COLUMNS": "300"}
    shipped = runner.invoke(app, ["tasks", "lint", "--no-run", "mimic-meld-24h"], env=env)
    assert shipped.exit_code == 0, shipped.output
    assert shipped.output.endswith("1 task: 0 errors, 0 warnings\n")
    ours = runner.invoke(app, ["tasks", "lint", "--no-run", task.name], env=env)
    assert ours.exit_code == 1 and "[metadata.difficulty]" in ours.output
    assert ours.output.endswith("1 task: 1 error, 0 warnings\n")
    by_path = runner.invoke(app, ["tasks", "lint", "--no-run", "--path", str(task.parent)], env=env)
    assert by_path.output == ours.output
    unknown = runner.invoke(app, ["tasks", "lint", "mimic-nothing"])
    assert isinstance(unknown.exception, M4BenchError)
    assert "no task named 'mimic-nothing'" in unknown.exception.message
    (tmp_path / "drafts").mkdir()
    elsewhere = runner.invoke(app, ["tasks", "lint", "--path", str(tmp_path / "drafts")])
    assert isinstance(elsewhere.exception, M4BenchError)
    assert "no task folder of the catalog lies here" in elsewhere.exception.message


def test_version_flag_prints_what_the_version_command_prints() -> None:
    flag, command = runner.invoke(app, ["--version"]), runner.invoke(app, ["version"])
    assert flag.exit_code == 0 and flag.output == command.output
    assert flag.output.strip() == __version__


def test_lint_counts_what_it_linted_when_a_card_is_broken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = local_family(tmp_path / "ours")
    replace_in(task / "task.toml", 'difficulty = "medium"', 'difficulty = "trivial"')
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    result = runner.invoke(app, ["tasks", "lint", "--no-run"], env={"COLUMNS": "300"})
    assert result.exit_code == 1, result.output
    assert result.output.count("Input should be 'easy', 'medium', 'hard' or 'expert'") == 1
    assert result.output.endswith("29 tasks: 1 error, 0 warnings\n")


def test_show_prints_relative_tolerances(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = local_family(tmp_path / "ours")
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    shown = {}
    for rule in ("{relative = 0.05}", "{absolute = 0.5, relative = 0.05}"):
        replace_in(task / "task.toml", "\nmeld = ", f"\nmeld = {rule}\n# was: ")
        result = runner.invoke(app, ["tasks", "show", task.name], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        shown[rule] = next(line for line in result.output.splitlines() if "tolerance" in line)
    assert shown["{relative = 0.05}"].split() == ["tolerance", "meld=5%", "relative"]
    assert shown["{absolute = 0.5, relative = 0.05}"].split() == [
        "tolerance", "meld=0.5", "or", "5%", "relative",
    ]  # fmt: skip


def test_reference_refuses_an_output_it_would_not_write_as_named(tmp_path: Path) -> None:
    out = tmp_path / "meld.json"
    result = runner.invoke(
        app, ["reference", "mimic-meld-24h", "--home", str(tmp_path), "--out", str(out)],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "written as .csv or .parquet" in result.output
    assert not out.exists()
