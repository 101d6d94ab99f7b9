"""Bad sizes, seeds and names fail clearly, and never touch an existing source."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.sources.layout import load_source
from m4bench.sources.synth import QuirkRates, synthesize_mimic_iv
from m4bench.sources.synth import core as synth_core
from m4bench.sources.synth.eicu import synthesize_eicu


@pytest.mark.parametrize(
    "kwargs",
    [
        {"stays": 0},
        {"stays": -5},
        {"patients": 0},
        {"scale": 0.0},
        {"scale": -0.1},
        {"scale": float("nan")},
    ],
)
def test_non_positive_sizes_are_rejected(tmp_path: Path, kwargs: dict[str, float]) -> None:
    with pytest.raises(M4BenchError, match="positive"):
        synthesize_mimic_iv(DataHome(tmp_path), progress=False, **kwargs)  # type: ignore[arg-type]
    assert not (tmp_path / "sources" / "synthetic-mimic-iv").exists()


def test_a_build_larger_than_the_free_disk_is_refused_before_writing(tmp_path: Path) -> None:
    """A mistyped scale would fill the disk for an hour; it is refused up front."""
    home = DataHome(tmp_path / "home")
    with pytest.raises(M4BenchError, match=r"needs about [\d,.]+ GB; .* GB free") as mimic:
        synthesize_mimic_iv(home, scale=100_000, progress=False)
    assert "smaller --scale" in (mimic.value.hint or "")
    with pytest.raises(M4BenchError, match=r"eICU-CRD source of 10,000,000,000 stays"):
        synthesize_eicu(home, stays=10**10, progress=False)
    assert not (tmp_path / "home").exists()


def test_two_sizes_at_once_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(M4BenchError, match="only one"):
        synthesize_mimic_iv(DataHome(tmp_path), patients=10, scale=0.01, progress=False)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_bad_seeds_are_rejected(tmp_path: Path, seed: object) -> None:
    with pytest.raises(M4BenchError, match="seed"):
        synthesize_mimic_iv(DataHome(tmp_path), stays=5, seed=seed, progress=False)  # type: ignore[arg-type]


def test_bad_quirk_rates_are_rejected() -> None:
    with pytest.raises(ValueError):
        QuirkRates(fio2_fraction=1.5)
    with pytest.raises(ValueError):
        QuirkRates(no_such_quirk=0.1)  # type: ignore[call-arg]


def test_existing_source_is_kept_without_force(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    first = synthesize_mimic_iv(home, stays=20, seed=1, progress=False)
    before = {p: sha256_file(p) for p in first.layout.root.rglob("*.parquet")}
    with pytest.raises(M4BenchError, match="already exists"):
        synthesize_mimic_iv(home, stays=30, seed=2, progress=False)
    assert {p: sha256_file(p) for p in first.layout.root.rglob("*.parquet")} == before
    replaced = synthesize_mimic_iv(home, stays=30, seed=2, force=True, progress=False)
    assert replaced.manifest.parameters["stays"] == 30
    assert load_source(home, "synthetic-mimic-iv").manifest.parameters["seed"] == 2
    assert not [p for p in home.sources.iterdir() if p.name.startswith(".")]


def test_failed_build_leaves_old_source_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = DataHome(tmp_path)
    synthesize_mimic_iv(home, stays=20, seed=1, progress=False)
    manifest_before = (home.source_dir("synthetic-mimic-iv") / "source.json").read_text()

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(synth_core.StagingDir, "commit", broken)
    with pytest.raises(RuntimeError):
        synthesize_mimic_iv(home, stays=25, seed=3, force=True, progress=False)
    assert (home.source_dir("synthetic-mimic-iv") / "source.json").read_text() == manifest_before
    assert not [p for p in home.sources.iterdir() if p.name.startswith(".")]


def test_invalid_names_are_rejected(tmp_path: Path) -> None:
    for name in ("", "../evil", ".hidden", "a/b", "Upper", "sp ace", "x" * 65):
        with pytest.raises(M4BenchError, match="invalid source name"):
            synthesize_mimic_iv(DataHome(tmp_path), name, stays=5, progress=False)


def test_cli_reports_errors_without_traceback(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["data", "synth", "mimic-iv", "--home", str(tmp_path), "--quiet"]
    ok = runner.invoke(app, [*base, "--stays", "15", "--seed", "4"])
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "sources" / "synthetic-mimic-iv" / "catalog.duckdb").exists()
    again = runner.invoke(app, [*base, "--stays", "15"])
    assert isinstance(again.exception, M4BenchError)
    assert "already exists" in str(again.exception)
    bad_seed = runner.invoke(app, [*base, "--seed", "abc", "--force"])
    assert bad_seed.exit_code == 2
    bad_scale = runner.invoke(app, [*base, "--scale", "0", "--force"])
    assert isinstance(bad_scale.exception, M4BenchError)


def test_sizes_follow_the_real_ratios() -> None:
    sizes = synth_core.resolve_sizes(94_458, 364_627, 1_000, stays=None, patients=None, scale=0.1)
    assert sizes.stays == 9_446
    by_patients = synth_core.resolve_sizes(
        94_458, 364_627, 1_000, stays=None, patients=3_860, scale=None
    )
    assert by_patients.stays == round(3_860 * 94_458 / 364_627)
    default = synth_core.resolve_sizes(
        94_458, 364_627, 1_000, stays=None, patients=None, scale=None
    )
    assert default.stays == 1_000
