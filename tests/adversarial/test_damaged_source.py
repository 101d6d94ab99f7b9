"""A source Parquet file cut short is an infrastructure error naming the file, in every
command that reads it and in runs: never a traceback, never the agent's failure."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_entry import run_main
from hostile_runs import SOURCE, hostile_run, private_home, shared_home
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.adversarial

TABLE = Path("parquet") / "mimiciv_hosp" / "labevents.parquet"


@pytest.fixture
def damaged_home(
    tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources, tmp_path: Path
) -> tuple[DataHome, Path]:
    home = private_home(shared_home(tmp_path_factory, synthetic_sources), tmp_path / "home")
    damaged = home.source_dir(SOURCE) / TABLE
    with damaged.open("r+b") as handle:
        handle.truncate(damaged.stat().st_size // 2)
    return home, damaged


@pytest.mark.parametrize(
    "command",
    [
        ["concepts", "build", "--source", SOURCE],
        ["setup", "--source", SOURCE, "--task", "mimic-meld-24h", "--quiet"],
    ],
    ids=["concepts-build", "setup"],
)
def test_commands_name_the_damaged_file_and_exit_2(
    damaged_home: tuple[DataHome, Path],
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home, damaged = damaged_home
    ran = run_main([*command, "--home", str(home.root)], monkeypatch, capsys)
    assert ran.code == 2, ran.err
    assert "Traceback" not in ran.err + ran.out
    said = ran.err_line
    assert said.startswith(f"error: {damaged}: does not end with the Parquet magic bytes")
    assert "reference" not in said.split("hint:")[0]
    assert f"m4bench data synth mimic-iv --name {SOURCE} --force" in said


def test_a_run_over_it_is_a_harness_error_naming_the_file(
    damaged_home: tuple[DataHome, Path], catalog: Catalog, tmp_path: Path
) -> None:
    home, damaged = damaged_home
    marker = tmp_path / "agent-ran"
    record = hostile_run(home, tmp_path / "results", f"touch {marker}\n", catalog)
    assert record.status == "harness_error"
    assert str(damaged) in (record.error or "")
    assert not marker.exists()  # found before the agent started: never its failure
