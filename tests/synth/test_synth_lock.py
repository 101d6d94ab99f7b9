"""Synthetic builds take the source's write lock: concurrent builds and --force replacing a
source being written are refused, and only complete sources are ever committed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.sources.layout import SourceLayout, load_source
from m4bench.sources.lock import source_lock
from m4bench.sources.schema import MIMIC_IV
from m4bench.sources.synth import core as synth_core
from m4bench.sources.synth import synthesize_mimic_iv
from m4bench.sources.synth.eicu import synthesize_eicu

# A first `data synth` that stops, once every table is staged, until it is told to go on.
_PAUSED_BUILD = """
import sys, time
from pathlib import Path
from m4bench.sources.synth import core

ready, go = Path(sys.argv[1]), Path(sys.argv[2])
real_commit = core.StagingDir.commit

def commit(self):
    ready.write_text(str(self.staging))
    while not go.exists():
        time.sleep(0.05)
    return real_commit(self)

core.StagingDir.commit = commit
from m4bench.cli import main
sys.argv = ["m4bench", *sys.argv[3:]]
main()
"""


def _files(root: Path) -> dict[Path, str]:
    return {p.relative_to(root): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the first build never reached its commit"
        time.sleep(0.05)


def test_two_builds_of_one_name_at_once_the_second_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ready, go = tmp_path / "ready", tmp_path / "go"
    command = ["data", "synth", "mimic-iv", "--patients", "60", "--name", "s1"]
    command += ["--quiet", "--home", str(home)]
    first = subprocess.Popen([sys.executable, "-c", _PAUSED_BUILD, str(ready), str(go), *command])
    try:
        _wait_for(ready, first)
        staging = Path(ready.read_text())
        staged = _files(staging)
        second = subprocess.run(
            [sys.executable, "-m", "m4bench", *command],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "300"},
            timeout=120,
        )
        assert second.returncode == 2, second.stderr
        assert second.stderr.splitlines() == [
            "error: source 's1' is being written by another m4bench process",
            "hint: wait for it to finish, then run the command again",
        ]
        assert _files(staging) == staged  # the first build's staging folder is untouched
        assert not (home / "sources" / "s1").exists()
    finally:
        go.touch()
        first.wait(timeout=120)
    assert first.returncode == 0
    source = load_source(DataHome(home), "s1")
    assert set(source.manifest.tables) == {t.qualified for t in MIMIC_IV.tables}
    for qualified in source.manifest.tables:
        assert source.table_file(qualified).is_file(), qualified
    assert source.connect().execute("SELECT COUNT(*) FROM mimiciv_hosp.patients").fetchone()
    assert sorted(p.name for p in (home / "sources").iterdir()) == ["s1"]


def test_a_name_being_written_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    with source_lock(SourceLayout(home.source_dir("s1"))):  # e.g. an ingest of that name
        with pytest.raises(M4BenchError, match="'s1' is being written by another m4bench"):
            synthesize_mimic_iv(home, "s1", stays=5, progress=False)
        assert sorted(p.name for p in home.sources.iterdir()) == [".s1.lock"]
    synthesize_mimic_iv(home, "s1", stays=5, progress=False)


def test_force_does_not_replace_a_source_another_process_writes(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    source = synthesize_eicu(home, "s1", stays=20, seed=1, progress=False)
    before = _files(source.layout.root)
    with source_lock(source.layout):  # as `concepts build --source s1` holds it
        with pytest.raises(M4BenchError, match="being written by another"):
            synthesize_eicu(home, "s1", stays=30, seed=2, force=True, progress=False)
        with pytest.raises(M4BenchError, match="being written by another"):
            synthesize_mimic_iv(home, "s1", stays=5, force=True, progress=False)
        assert _files(source.layout.root) == before
    replaced = synthesize_eicu(home, "s1", stays=30, seed=2, force=True, progress=False)
    assert replaced.manifest.parameters["stays"] == 30


def test_a_commit_cut_between_its_renames_gets_the_previous_source_back(tmp_path: Path) -> None:
    """Killed after moving the old source aside and before moving the new one in."""
    home = DataHome(tmp_path)
    source = synthesize_eicu(home, "s1", stays=20, seed=1, progress=False)
    before = _files(source.layout.root)
    source.layout.root.rename(home.sources / ".s1.old")
    with pytest.raises(M4BenchError, match="already exists"):
        synthesize_eicu(home, "s1", stays=30, seed=2, progress=False)
    assert _files(home.source_dir("s1")) == before
    assert sorted(p.name for p in home.sources.iterdir()) == ["s1"]


def test_a_staged_source_missing_a_table_is_never_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = DataHome(tmp_path)
    source = synthesize_eicu(home, "s1", stays=20, seed=1, progress=False)
    before = _files(source.layout.root)
    real_commit = synth_core.StagingDir.commit

    def lose_a_table(self: synth_core.StagingDir) -> Path:
        (self.staging / "parquet" / "eicu_crd" / "lab.parquet").unlink()
        return real_commit(self)

    monkeypatch.setattr(synth_core.StagingDir, "commit", lose_a_table)
    with pytest.raises(M4BenchError, match=r"incomplete \(missing: eicu_crd.lab\)"):
        synthesize_eicu(home, "s1", stays=30, seed=2, force=True, progress=False)
    assert _files(source.layout.root) == before
    assert sorted(p.name for p in home.sources.iterdir()) == ["s1"]
