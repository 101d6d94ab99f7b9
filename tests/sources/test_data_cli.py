"""The ``m4bench data`` commands over the source library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from m4bench.cli.data import app
from m4bench.home import DataHome

runner = CliRunner()


def test_ingest_list_info_tables(home: DataHome, eicu_tree: Path) -> None:
    args = ["--home", str(home.root)]
    result = runner.invoke(app, ["ingest", "eicu", str(eicu_tree), "--name", "e1", *args])
    assert result.exit_code == 0, result.output
    assert "31 table(s) ingested" in result.output

    listed = runner.invoke(app, ["list", "--json", *args])
    assert listed.exit_code == 0
    (entry,) = json.loads(listed.output)
    assert (entry["name"], entry["dataset"], entry["kind"], entry["tables"]) == (
        "e1", "eicu", "ingested", 31,
    )  # fmt: skip
    assert entry["rows"] == 8

    info = runner.invoke(app, ["info", "e1", "--json", *args])
    manifest = json.loads(info.output)
    assert manifest["tables"]["eicu_crd.patient"]["rows"] == 3
    assert manifest["parameters"]["input_root"] == str(eicu_tree.resolve())
    text = runner.invoke(app, ["info", "e1", *args], terminal_width=200)
    assert "eicu_crd.patient" in text.output and "fingerprint" in text.output

    again = runner.invoke(app, ["ingest", "eicu", str(eicu_tree), "--name", "e1", *args])
    assert "0 table(s) ingested" in again.output and "31 unchanged" in again.output

    tables = runner.invoke(app, ["tables", "mimic-iv", "--columns"], terminal_width=200)
    assert "mimiciv_icu.chartevents 11 columns" in tables.output
    assert "valuenum DOUBLE" in tables.output


def test_user_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "400"}
    done = subprocess.run(
        [sys.executable, "-m", "m4bench", "data", "ingest", "eicu", str(tmp_path / "none"),
         "--home", str(tmp_path / "home")],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and "not a directory" in done.stderr
    assert "hint:" in done.stderr
    assert "Traceback" not in done.stderr
    empty = subprocess.run(
        [sys.executable, "-m", "m4bench", "data", "info", "nope", "--home", str(tmp_path)],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert empty.returncode == 2 and "no source named 'nope'" in empty.stderr


def test_list_shows_a_damaged_source_instead_of_failing(home: DataHome, eicu_tree: Path) -> None:
    from m4bench.sources.ingest import ingest_dataset
    from m4bench.sources.inventory import list_sources

    ingest_dataset(home, "eicu", eicu_tree, name="good", tables=["patient"])
    broken = home.source_dir("broken")
    broken.mkdir(parents=True)
    (broken / "source.json").write_text('{"name": "broken"}')
    summaries = {s.name: s for s in list_sources(home)}
    assert summaries["good"].rows == 3 and summaries["good"].problem is None
    assert "invalid SourceManifest record" in (summaries["broken"].problem or "")
    result = runner.invoke(app, ["list", "--home", str(home.root)], terminal_width=200)
    assert result.exit_code == 0 and "damaged" in result.output


def test_an_empty_home_lists_the_commands_that_make_a_source(tmp_path: Path) -> None:
    result = runner.invoke(app, ["list", "--home", str(tmp_path)], terminal_width=200)
    assert result.exit_code == 0
    assert "m4bench data synth mimic-iv" in result.output
    assert "m4bench data ingest" in result.output
