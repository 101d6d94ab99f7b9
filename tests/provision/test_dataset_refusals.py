"""A source of the wrong dataset, or a schema its dataset does not have, is refused
before anything is built or written: `m4bench reference` as `score` and `setup` do, and
`setup --schema obfuscated` on an eICU source (perturbed schemas are MIMIC-IV only)."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_entry import m4bench
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome

MIMIC = "tiny-mimic"
EICU = "tiny-eicu"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    """One small source of each dataset; nothing set up."""
    data = DataHome(tmp_path_factory.mktemp("datasets-home"))
    synthetic_sources.copy(data, MIMIC, "mimic-iv", 5, 1)
    synthetic_sources.copy(data, EICU, "eicu", 5, 1)
    return data


def test_reference_refuses_a_source_of_another_dataset(
    home: DataHome,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "y.csv"
    args = ["reference", "mimic-meld-24h", "--source", EICU, "--out", str(out)]
    code, err = m4bench([*args, "--home", str(home.root)], monkeypatch, capsys)
    assert code == 2
    assert f"task mimic-meld-24h reads mimic-iv data, but source '{EICU}' holds eicu" in err
    assert "pick a mimic-iv source with --source" in err
    assert "lacks" not in err
    assert not out.exists()
    eicu_task = ["reference", "eicu-gcs", "--source", MIMIC, "--out", str(out)]
    code, err = m4bench([*eicu_task, "--home", str(home.root)], monkeypatch, capsys)
    assert code == 2 and f"reads eicu data, but source '{MIMIC}' holds mimic-iv" in err
    assert not out.exists()


def test_setup_refuses_a_perturbed_schema_for_an_eicu_source(
    home: DataHome, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused, not built and then skipped (which left `m4bench run` asking for it)."""
    for schema in ("obfuscated", "restructured"):
        args = ["setup", "--source", EICU, "--schema", schema, "--quiet"]
        code, err = m4bench([*args, "--home", str(home.root)], monkeypatch, capsys)
        assert code == 2
        assert f"source '{EICU}' holds eicu data: the {schema} schema exists for MIMIC-IV" in err
        assert "use --schema native for eicu tasks" in err
    assert not (home.tasks / EICU).exists(), "nothing was built"
