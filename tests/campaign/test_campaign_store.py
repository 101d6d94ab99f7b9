"""The results directory protocol: claims, attempts, manifests, stale temporaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.campaign import PlanOptions, ResultsDir, RunOutcome, load_profile, plan_campaign
from m4bench.campaign.records import result_from_outcome
from m4bench.errors import M4BenchError


def test_a_claimed_run_cannot_be_claimed_twice(tmp_path: Path, small_profile: Path) -> None:
    run = plan_campaign(load_profile(str(small_profile)))[0]
    results = ResultsDir(tmp_path)
    first = results.try_claim(run)
    assert first is not None and first.attempt == 1
    assert results.try_claim(run) is None
    assert results.is_running(run.run_id)
    first.release()
    assert not results.is_running(run.run_id)
    second = results.try_claim(run)
    assert second is not None and second.attempt == 2, "a released claim counts as an attempt"
    results.commit(second, result_from_outcome(run, second.attempt, RunOutcome(reward=1.0), 0.0))
    assert results.try_claim(run) is None, "a complete run is never claimed again"
    assert [a.state for a in results.attempts(run.run_id)] == ["started", "finished"]


def test_claim_removes_temporaries_of_a_crashed_write(tmp_path: Path, small_profile: Path) -> None:
    run = plan_campaign(load_profile(str(small_profile)))[0]
    results = ResultsDir(tmp_path)
    stale = results.run_dir(run.run_id) / ".result.json.abc123.tmp"
    stale.parent.mkdir(parents=True)
    stale.write_text('{"half": ', encoding="utf-8")
    claim = results.try_claim(run)
    assert claim is not None
    assert not stale.exists()
    assert results.read_result(run.run_id) is None


def test_manifest_guards_the_planned_set(tmp_path: Path, small_profile: Path) -> None:
    profile = load_profile(str(small_profile))
    runs = plan_campaign(profile)
    results = ResultsDir(tmp_path / "res")
    results.open_campaign("small", runs, resume=False)
    with pytest.raises(M4BenchError, match="pass --resume"):
        results.open_campaign("small", runs, resume=False)
    results.open_campaign("small", runs, resume=True)
    fewer = plan_campaign(profile, PlanOptions(trials=1))
    with pytest.raises(M4BenchError, match="planned runs differ"):
        results.open_campaign("small", fewer, resume=True)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(M4BenchError, match="not empty"):
        ResultsDir(other).open_campaign("small", runs, resume=False)


def test_a_damaged_record_is_reported_with_its_path(tmp_path: Path, small_profile: Path) -> None:
    run = plan_campaign(load_profile(str(small_profile)))[0]
    results = ResultsDir(tmp_path)
    path = results.result_path(run.run_id)
    path.parent.mkdir(parents=True)
    path.write_text('{"run_id": 3}', encoding="utf-8")
    with pytest.raises(M4BenchError, match=str(path)):
        results.read_result(run.run_id)
