"""The results directory protocol: claims, attempts, manifests, stale temporaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from result_records import record

from m4bench.campaign import (
    PlannedRun,
    PlanOptions,
    ResultsDir,
    RunSettings,
    load_profile,
    plan_campaign,
)
from m4bench.errors import M4BenchError
from m4bench.fileio import write_model


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
    results.commit(second, record(run, reward=1.0))
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


REAL = RunSettings(
    simulated=False,
    sources={"eicu": "synthetic-eicu", "mimic-iv": "synthetic-mimic-iv"},
    sandbox="bwrap",
)


def complete(results: ResultsDir, run: PlannedRun) -> None:
    """Record ``run`` as complete: from then on the campaign's settings are fixed."""
    claim = results.try_claim(run)
    assert claim is not None
    results.commit(claim, record(run, reward=1.0))


def test_resume_with_other_settings_is_refused_naming_both(
    tmp_path: Path, small_profile: Path
) -> None:
    runs = plan_campaign(load_profile(str(small_profile)))
    results = ResultsDir(tmp_path / "res")
    results.open_campaign("small", runs, resume=False, settings=REAL)
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings == REAL
    results.open_campaign("small", runs, resume=True, settings=REAL)
    complete(results, runs[0])
    other = REAL.model_copy(update={"sources": {**REAL.sources, "mimic-iv": "mimic-iv-3.1"}})
    with pytest.raises(M4BenchError) as refused:
        results.check_campaign(runs, resume=True, settings=other)
    message = refused.value.message
    assert "--source mimic-iv: recorded 'synthetic-mimic-iv', given 'mimic-iv-3.1'" in message
    assert "eicu" not in message, "only the setting that differs is named"
    assert refused.value.hint is not None
    assert "--source mimic-iv=synthetic-mimic-iv" in refused.value.hint
    with pytest.raises(M4BenchError, match="--sandbox: recorded 'bwrap', given 'none'"):
        results.check_campaign(runs, True, REAL.model_copy(update={"sandbox": "none"}))
    with pytest.raises(M4BenchError, match="--simulate: recorded real runs, given simulated"):
        results.check_campaign(runs, True, RunSettings(simulated=True))


def test_a_campaign_recorded_without_settings_resumes_and_records_them(
    tmp_path: Path, small_profile: Path
) -> None:
    """campaign.json written before settings were recorded: the first resume is checked
    on the plan alone and records its settings, so the next one with others is refused."""
    runs = plan_campaign(load_profile(str(small_profile)))
    results = ResultsDir(tmp_path / "res")
    results.open_campaign("small", runs, resume=False)
    document = json.loads(results.manifest_path.read_text(encoding="utf-8"))
    document.pop("settings")
    results.manifest_path.write_text(json.dumps(document), encoding="utf-8")
    assert results.check_campaign(runs, resume=True, settings=REAL)
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings is None  # checking writes nothing
    results.open_campaign("small", runs, resume=True, settings=REAL)
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings == REAL
    complete(results, runs[0])
    other = REAL.model_copy(update={"sources": {**REAL.sources, "mimic-iv": "another-source"}})
    with pytest.raises(M4BenchError, match="another-source"):
        results.open_campaign("small", runs, resume=True, settings=other)


def test_settings_may_be_corrected_until_a_run_is_complete(
    tmp_path: Path, small_profile: Path
) -> None:
    """A campaign started with a wrong setting, whose every run failed in the harness,
    resumes with the right one, which is recorded; the first result fixes them."""
    runs = plan_campaign(load_profile(str(small_profile)))
    results = ResultsDir(tmp_path / "res")
    bogus = REAL.model_copy(update={"sandbox": "bogus"})
    results.open_campaign("small", runs, resume=False, settings=bogus)
    claim = results.try_claim(runs[0])
    assert claim is not None
    results.abandon(claim, "InfrastructureError: unknown sandbox 'bogus'")
    assert not results.holds_results(runs)
    assert results.check_campaign(runs, resume=True, settings=REAL)
    results.open_campaign("small", runs, resume=True, settings=REAL)
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings == REAL
    complete(results, runs[1])
    assert results.holds_results(runs)
    with pytest.raises(M4BenchError, match="--sandbox: recorded 'bwrap', given 'bogus'") as no:
        results.check_campaign(runs, resume=True, settings=bogus)
    assert no.value.hint is not None and "only while no run is complete" in no.value.hint


def test_settings_are_fixed_by_a_run_executing_or_waiting_to_be_adopted(
    tmp_path: Path, small_profile: Path
) -> None:
    runs = plan_campaign(load_profile(str(small_profile)))
    results = ResultsDir(tmp_path / "res")
    results.open_campaign("small", runs, resume=False, settings=REAL)
    other = REAL.model_copy(update={"sandbox": "none"})
    claim = results.try_claim(runs[0])
    assert claim is not None and results.holds_results(runs), "a run executes now"
    with pytest.raises(M4BenchError, match="--sandbox: recorded 'bwrap', given 'none'"):
        results.check_campaign(runs, resume=True, settings=other)
    claim.release()
    assert results.check_campaign(runs, resume=True, settings=other)
    runner_record = results.root / "work" / runs[2].run_id / "result.json"
    runner_record.parent.mkdir(parents=True)
    unfinished = record(runs[2], status="harness_error", reward=0.0)
    write_model(runner_record, unfinished)  # the runner failed: nothing to adopt
    assert results.check_campaign(runs, resume=True, settings=other)
    write_model(runner_record, record(runs[2], reward=1.0))  # finished; not adopted yet
    with pytest.raises(M4BenchError, match="ran with other settings"):
        results.open_campaign("small", runs, resume=True, settings=other)
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings == REAL


def test_an_incomplete_record_is_run_again_and_replaced_but_a_complete_one_stays(
    tmp_path: Path, small_profile: Path
) -> None:
    """The runner's rule under runs/: a record of a run that did not happen is replaced
    by the complete one; a complete record is never replaced, the later attempt's goes
    beside it."""
    run = plan_campaign(load_profile(str(small_profile)))[0]
    results = ResultsDir(tmp_path)
    path = results.result_path(run.run_id)
    path.parent.mkdir(parents=True)
    write_model(path, record(run, status="harness_error", reward=0.0))
    assert results.read_result(run.run_id) is None, "incomplete: the run is missing"
    claim = results.try_claim(run)
    assert claim is not None, "a run whose record is incomplete is run again"
    results.commit(claim, record(run, reward=1.0))
    assert results.read_result(run.run_id) == record(run, reward=1.0)
    assert results.try_claim(run) is None
    # A complete record written while an attempt ran (without the claim) stays.
    write_model(path, record(run, status="harness_error", reward=0.0))
    late = results.try_claim(run)
    assert late is not None
    write_model(path, record(run, reward=0.5))
    results.commit(late, record(run, reward=0.25))
    kept = results.read_result(run.run_id)
    assert kept is not None and kept.reward == 0.5
    beside = results.folder.attempt_result(run.run_id, late.attempt)
    assert json.loads(beside.read_text(encoding="utf-8"))["reward"] == 0.25
    assert [a.state for a in results.attempts(run.run_id)][-1] == "finished"


def test_a_corrected_replay_path_replans_until_a_run_is_complete(
    tmp_path: Path, small_profile: Path
) -> None:
    """The replay path enters the runs' ids: corrected before any result, the new
    planned set is recorded; once a run is complete, the option is refused by name."""
    runs = plan_campaign(load_profile(str(small_profile)))
    moved = [
        r.model_copy(update={"cell": r.cell.model_copy(update={"replay_sha256": "a" * 64})})
        for r in runs
    ]
    results = ResultsDir(tmp_path / "res")
    wrong = REAL.model_copy(update={"replay": "/answers/wrong"})
    right = REAL.model_copy(update={"replay": "/answers/right"})
    results.open_campaign("small", runs, resume=False, settings=wrong)
    with pytest.raises(M4BenchError, match="planned runs differ"):
        results.check_campaign(moved, resume=True, settings=wrong)
    results.open_campaign("small", moved, resume=True, settings=right)
    manifest = results.read_manifest()
    assert manifest is not None and manifest.settings == right
    assert [r.run_id for r in manifest.runs] == [r.run_id for r in moved]
    complete(results, moved[0])
    with pytest.raises(M4BenchError, match="--replay: recorded '/answers/right', given "):
        results.check_campaign(runs, resume=True, settings=wrong)


def test_the_endpoint_is_recorded_and_compared_without_credentials() -> None:
    keyed = REAL.model_copy(update={"endpoint": "http://user:key@host:8000/v1/"})
    plain = REAL.model_copy(update={"endpoint": "http://host:8000/v1"})
    assert keyed.differences(plain) == []
    assert "key" not in keyed.as_options()
