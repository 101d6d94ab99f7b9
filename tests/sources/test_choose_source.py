"""The source a command reads when --source is left out: the dataset's synthetic one
when built, else its only one (as after ``m4bench demo --small``), else an error that
names the sources the data home holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.fileio import write_model
from m4bench.home import DataHome
from m4bench.sources.defaults import choose_source
from m4bench.sources.layout import SourceManifest

runner = CliRunner()


def add_source(home: DataHome, name: str, dataset: str) -> None:
    """A source's manifest alone: enough for choosing one, which reads no table."""
    manifest = SourceManifest(
        name=name, dataset=dataset, dataset_version="test", kind="synthetic", public=True
    )
    write_model(home.source_dir(name) / "source.json", manifest)


def test_the_only_source_of_a_dataset_is_chosen(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    add_source(home, "demo-small-mimic-iv", "mimic-iv")
    add_source(home, "demo-small-eicu", "eicu")
    assert choose_source(home, "mimic-iv") == "demo-small-mimic-iv"
    assert choose_source(home, "eicu") == "demo-small-eicu"


def test_the_synthetic_source_wins_over_others(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    add_source(home, "demo-small-mimic-iv", "mimic-iv")
    add_source(home, "synthetic-mimic-iv", "mimic-iv")
    assert choose_source(home, "mimic-iv") == "synthetic-mimic-iv"


def test_several_sources_are_named_in_the_error(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    add_source(home, "demo-small-mimic-iv", "mimic-iv")
    add_source(home, "mimic-iv-3.1", "mimic-iv")
    with pytest.raises(M4BenchError) as caught:
        choose_source(home, "mimic-iv")
    assert "(demo-small-mimic-iv, mimic-iv-3.1)" in caught.value.message
    assert caught.value.hint == "name one with --source (e.g. --source demo-small-mimic-iv)"


def test_no_source_of_the_dataset_names_what_exists(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    add_source(home, "demo-small-eicu", "eicu")
    with pytest.raises(M4BenchError) as caught:
        choose_source(home, "mimic-iv")
    assert "no MIMIC-IV source" in caught.value.message
    assert "(found: demo-small-eicu)" in caught.value.message
    assert "`m4bench data synth mimic-iv`" in (caught.value.hint or "")


@pytest.mark.parametrize(
    "words",
    [
        ["setup", "--task", "mimic-meld-24h"],
        ["setup"],
        ["audit", "--task", "mimic-meld-24h"],
        ["run", "--task", "mimic-meld-24h", "--agent", "oracle"],
        ["score", "--task", "mimic-meld-24h", "--output", "out.csv"],
        ["reference", "mimic-meld-24h"],
        ["concepts", "build"],
    ],
    ids=lambda words: " ".join(words[:2]),
)
def test_every_command_chooses_through_the_one_rule(
    tmp_path: Path, words: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two MIMIC-IV sources and neither synthetic, every command refuses alike,
    naming both; with one, none of them asks for synthetic-mimic-iv."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out.csv").write_text("subject_id\n", encoding="utf-8")
    home = DataHome(tmp_path / "home")
    add_source(home, "demo-small-mimic-iv", "mimic-iv")
    add_source(home, "mine", "mimic-iv")
    result = runner.invoke(app, [*words, "--home", str(home.root)])
    assert isinstance(result.exception, M4BenchError), result.output
    assert "(demo-small-mimic-iv, mine)" in result.exception.message
    (home.source_dir("mine") / "source.json").unlink()
    again = runner.invoke(app, [*words, "--home", str(home.root)])
    # A manifest without tables: each command goes on to read the one source and fails there.
    assert isinstance(again.exception, M4BenchError), again.output
    assert "synthetic-mimic-iv" not in again.exception.message
    assert "demo-small-mimic-iv" in again.exception.message or words[0] == "reference"
