"""``m4bench setup`` and ``m4bench score --task`` through the command line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from provision_helpers import SOURCE, Provisioned, private_home
from typer.testing import CliRunner
from user_tasks import local_family, replace_in

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.sources.layout import load_source
from m4bench.tasks.catalog import TASKS_ENV, load_catalog
from m4bench.tasks.reference import write_reference

pytestmark = pytest.mark.xdist_group("provision-synthetic")

runner = CliRunner()


def test_setup_reports_and_verifies(provisioned: Provisioned) -> None:
    home = str(provisioned.home.root)
    args = ["setup", "--source", SOURCE, "--task", "mimic-meld-24h", "--quiet", "--home", home]
    result = runner.invoke(app, [*args, "--verify"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "verified mimic-meld-24h" in result.output
    assert "0 built, 1 up to date" in result.output


def test_setup_warns_of_a_truth_without_rows(
    provisioned: Provisioned, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = local_family(tmp_path / "ours")
    reference = task.parent / "reference.sql"
    replace_in(reference, "FROM initial", "FROM initial WHERE stay_id < 0")
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    home = str(private_home(provisioned, tmp_path).root)
    args = ["setup", "--source", SOURCE, "--task", task.name, "--quiet", "--home", home]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"warning meld-local: the reference returns no rows on {SOURCE}" in result.output
    plain = runner.invoke(app, [*args[:4], "mimic-meld-24h", *args[5:]], env={"COLUMNS": "200"})
    assert plain.exit_code == 0 and "warning" not in plain.output


def test_setup_rejects_bad_arguments(provisioned: Provisioned) -> None:
    home = str(provisioned.home.root)
    both = runner.invoke(
        app, ["setup", "--source", SOURCE, "--task", "mimic-meld-24h", "--all", "--home", home]
    )
    assert isinstance(both.exception, M4BenchError)
    schema = runner.invoke(app, ["setup", "--schema", "scrambled", "--home", home])
    assert schema.exit_code == 2 and "--schema" in schema.output
    unknown = runner.invoke(app, ["setup", "--source", "nowhere", "--home", home])
    assert isinstance(unknown.exception, M4BenchError)
    assert "no source named 'nowhere'" in unknown.exception.message


def test_score_by_task_reads_the_provisioned_truth(
    provisioned: Provisioned, tmp_path: Path
) -> None:
    truth = ground_truth_path(provisioned.home, SOURCE, "mimic-kdigo-48h")
    output = tmp_path / "output.csv"
    write_reference(pq.read_table(truth), output)
    result = runner.invoke(
        app,
        [
            "score",
            "--task",
            "mimic-kdigo-48h",
            "--source",
            SOURCE,
            "--output",
            str(output),
            "--home",
            str(provisioned.home.root),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["reward"] == 1.0
    lines = output.read_text().splitlines()
    output.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    half = runner.invoke(
        app,
        [
            "score",
            "--task",
            "mimic-kdigo-48h",
            "--source",
            SOURCE,
            "--output",
            str(output),
            "--home",
            str(provisioned.home.root),
            "--json",
        ],
    )
    assert json.loads(half.output)["reward"] < 1.0


def test_source_defaults_follow_the_tasks_dataset(provisioned: Provisioned, tmp_path: Path) -> None:
    """Without --source, setup and score read the synthetic source of the task's dataset;
    a source of the other dataset is named as the mistake."""
    home = ["--home", str(provisioned.home.root)]
    eicu = runner.invoke(app, ["setup", "--task", "eicu-gcs", "--quiet", *home])
    assert isinstance(eicu.exception, M4BenchError)
    assert eicu.exception.message.startswith("no eICU-CRD source in ")
    assert f"(found: {SOURCE})" in eicu.exception.message  # the sources there are named
    mixed = runner.invoke(app, ["setup", "--task", "eicu-gcs", "--task", "mimic-meld-24h", *home])
    assert isinstance(mixed.exception, M4BenchError)
    assert "span MIMIC-IV and eICU" in mixed.exception.message
    assert "once for the eICU tasks" in (mixed.exception.hint or "")
    output = tmp_path / "out.csv"  # score checks that its output exists before the truth
    output.write_text("patientunitstayid,gcs_min\n", encoding="utf-8")
    score = ["score", "--task", "eicu-gcs", "--output", str(output), *home]
    unset = runner.invoke(app, score)
    assert isinstance(unset.exception, M4BenchError)
    assert unset.exception.message == eicu.exception.message  # one rule for every command
    wrong = runner.invoke(app, [*score, "--source", SOURCE])
    assert isinstance(wrong.exception, M4BenchError)
    assert wrong.exception.message == (
        f"task eicu-gcs reads eicu data, but source '{SOURCE}' holds mimic-iv"
    )


@pytest.mark.parametrize("typo", ["mimiciv_derived.meldx", "mimiciv_hosp.nosuch"])
def test_setup_refuses_a_drop_table_the_source_lacks(
    provisioned: Provisioned, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typo: str
) -> None:
    """A misspelt drop_tables entry drops nothing: setup stops before any catalog exists."""
    task = local_family(tmp_path / "ours")
    replace_in(task / "task.toml", '"mimiciv_derived.meld"', f'"{typo}"')
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    home = private_home(provisioned, tmp_path)
    args = ["setup", "--source", SOURCE, "--task", task.name, "--quiet", "--home", str(home.root)]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert isinstance(result.exception, M4BenchError), result.output
    assert result.exception.message.startswith(f"{task / 'task.toml'}: drop_tables names {typo},")
    assert not (home.tasks / SOURCE / "native" / task.name).exists()


def test_an_official_table_a_partial_source_lacks_is_no_typo(
    provisioned: Provisioned, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropping a real table the source happens not to hold leaks nothing: setup goes on;
    a name the dataset does not have is still refused."""
    from m4bench.provision import provisioner

    source = load_source(provisioned.home, SOURCE)
    full = provisioner.native_view(source)
    lacking = dataclasses.replace(
        full, files={k: v for k, v in full.files.items() if k != "mimiciv_hosp.omr"}
    )
    monkeypatch.setattr(provisioner, "native_view", lambda _source: lacking)
    task = local_family(tmp_path / "ours")
    replace_in(
        task / "task.toml", '"mimiciv_derived.meld"', '"mimiciv_derived.meld", "mimiciv_hosp.omr"'
    )
    monkeypatch.setenv(TASKS_ENV, str(tmp_path / "ours"))
    user_task = load_catalog().task(task.name)
    provisioner.refuse_absent_drop_tables(source, [user_task])
    replace_in(task / "task.toml", '"mimiciv_hosp.omr"', '"mimiciv_hosp.omrr"')
    with pytest.raises(M4BenchError, match=r"drop_tables names mimiciv_hosp\.omrr,"):
        provisioner.refuse_absent_drop_tables(source, [load_catalog().task(task.name)])
