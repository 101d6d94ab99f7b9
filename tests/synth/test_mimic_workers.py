"""Chunks built by worker processes give the same files as chunks built one by one."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.sources.layout import Source
from m4bench.sources.synth import synthesize_mimic_iv
from m4bench.sources.synth.mimic_iv import CHUNK_STAYS


def _file_hashes(source: Source) -> dict[str, str]:
    files = sorted(source.layout.parquet_dir.rglob("*.parquet"))
    return {str(p.relative_to(source.layout.root)): sha256_file(p) for p in files}


def test_two_workers_give_identical_files(tmp_path: Path) -> None:
    stays = 2 * CHUNK_STAYS + 37  # three chunks, the last one short
    one = synthesize_mimic_iv(DataHome(tmp_path / "a"), stays=stays, seed=5, progress=False)
    two = synthesize_mimic_iv(
        DataHome(tmp_path / "b"), stays=stays, seed=5, progress=False, workers=2
    )
    first, second = _file_hashes(one), _file_hashes(two)
    assert len(first) == 31
    assert first == second
    assert one.manifest.fingerprint() == two.manifest.fingerprint()


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_bad_worker_counts_are_clear_errors(tmp_path: Path, workers: object) -> None:
    home = DataHome(tmp_path)
    with pytest.raises(M4BenchError, match="--workers"):
        synthesize_mimic_iv(home, stays=10, progress=False, workers=workers)  # type: ignore[arg-type]
    assert not home.source_dir("synthetic-mimic-iv").exists()


def test_cli_workers_option(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["data", "synth", "mimic-iv", "--home", str(tmp_path), "--quiet", "--stays", "15"]
    bad = runner.invoke(app, [*base, "--workers", "0"])
    assert isinstance(bad.exception, M4BenchError)
    assert "--workers" in str(bad.exception)
    assert not (tmp_path / "sources" / "synthetic-mimic-iv").exists()
    ok = runner.invoke(app, [*base, "--workers", "2"])
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "sources" / "synthetic-mimic-iv" / "catalog.duckdb").exists()
