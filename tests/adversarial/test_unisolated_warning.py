"""``--sandbox none`` says up front what it leaves open, and the records say so too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from console_entry import run_main
from hostile_runs import SOURCE, TASK, shared_home
from profile_text import local_profile
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome

pytestmark = pytest.mark.adversarial

OPEN = ("filesystem", "ground truth", "network", "other runs")
PROFILE = local_profile("unisolated", [TASK])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    return shared_home(tmp_path_factory, synthetic_sources)


def _warned(err: str) -> str:
    said = " ".join(err.split())
    assert said.startswith("warning: --sandbox none isolates nothing."), said
    return said


def _records(results: Path) -> list[dict[str, object]]:
    found = [json.loads(p.read_text()) for p in results.rglob("result.json")]
    assert found
    return found


def test_run_warns_before_running_and_the_record_says_why(
    home: DataHome,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = tmp_path / "results"
    args = ["run", "--task", TASK, "--agent", "oracle", "--sandbox", "none"]
    args += ["--source", SOURCE, "--home", str(home.root), "--results", str(results)]
    ran = run_main(args, monkeypatch, capsys)
    assert ran.code == 0, ran.err
    said = _warned(ran.err)
    assert all(words in said for words in OPEN)
    assert "status ok" in ran.out
    (record,) = _records(results)
    assert record["publishable"] is False
    assert all(words in str(record["publishable_reason"]) for words in OPEN)


def test_campaign_run_warns_before_running(
    home: DataHome,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    profile = tmp_path / "unisolated.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    results = tmp_path / "results"
    args = ["campaign", "run", str(profile), "--results", str(results), "--no-progress"]
    args += ["--sandbox", "none", "--source", f"mimic-iv={SOURCE}", "--home", str(home.root)]
    ran = run_main(args, monkeypatch, capsys)
    assert ran.code == 0, ran.err + ran.out
    said = _warned(ran.err)
    assert all(words in said for words in OPEN)
    assert all(r["publishable"] is False for r in _records(results / "runs"))


def test_a_rehearsal_gives_no_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "unisolated.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    args = ["campaign", "run", str(profile), "--results", str(tmp_path / "r"), "--no-progress"]
    ran = run_main([*args, "--simulate", "seconds=0:0", "--sandbox", "none"], monkeypatch, capsys)
    assert ran.code == 0, ran.err + ran.out
    assert "warning" not in ran.err  # a rehearsal runs no agent
