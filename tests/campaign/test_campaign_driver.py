"""The driver on the local executor: records, failures, retries, limits, order, budget."""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from campaign_support import write_small_profile
from result_records import record

from m4bench.agents.usage import Usage
from m4bench.campaign import (
    DriverSettings,
    InfrastructureError,
    LocalExecutor,
    PlannedRun,
    PlanOptions,
    ResultsDir,
    RetryPolicy,
    SimulatedRun,
    TransientError,
    campaign_status,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.eta import EtaModel
from m4bench.campaign.profile import Budget, Price
from m4bench.campaign.retry import call_with_backoff
from m4bench.campaign.status import status_document
from m4bench.errors import M4BenchError
from m4bench.results import ResultRecord, read_attempts, read_result
from m4bench.results.layout import CampaignFolder

FAST = RetryPolicy(base_delay_seconds=0.0, max_delay_seconds=0.0, infrastructure_retries=1)


def _plan(profile: Path, agents: tuple[str, ...] = ()) -> list[PlannedRun]:
    return plan_campaign(load_profile(str(profile)), PlanOptions(agents=agents))


def _records(root: Path) -> dict[str, ResultRecord]:
    return {
        path.parent.name: read_result(path)
        for path in sorted((root / "runs").glob("*/result.json"))
    }


def test_every_run_ends_in_one_valid_record(tmp_path: Path, small_profile: Path) -> None:
    runs = _plan(small_profile)
    fake = SimulatedRun(seed=4, max_seconds=0.01, agent_failure_rate=0.4)
    report = run_campaign(
        ResultsDir(tmp_path / "res"),
        runs,
        LocalExecutor(fake, 4, FAST),
        DriverSettings(profile="small"),
    )
    records = _records(tmp_path / "res")
    assert sorted(records) == sorted(run.run_id for run in runs)
    failed = [r for r in records.values() if r.status != "ok"]
    assert failed, "seed 4 at rate 0.4 fails some runs"
    assert all(r.reward == 0.0 and r.failure_reason for r in failed), "no output was scored"
    assert report.failed == len(failed) and report.done == len(runs) - len(failed)
    for run in runs:
        kept = records[run.run_id]
        assert (kept.identity.task, kept.identity.trial) == (run.cell.task, run.trial)
        attempts = read_attempts(CampaignFolder(tmp_path / "res"), run.run_id)
        assert [(a.attempt, a.state) for a in attempts] == [(1, "finished")]


def test_resume_skips_complete_runs_and_agent_failures(tmp_path: Path, small_profile: Path) -> None:
    runs = _plan(small_profile)
    results = ResultsDir(tmp_path / "res")
    fake = SimulatedRun(seed=1, agent_failure_rate=0.5)
    run_campaign(results, runs, LocalExecutor(fake, 2, FAST), DriverSettings(profile="small"))
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "res" / "runs").glob("*/result.json")}
    calls: list[str] = []

    def counting(run: PlannedRun) -> ResultRecord:
        calls.append(run.run_id)
        return record(run, reward=1.0)

    report = run_campaign(
        results, runs, LocalExecutor(counting, 2, FAST), DriverSettings("small", resume=True)
    )
    assert calls == []
    assert report.complete_before == len(runs) and report.missing == 0
    after = {p: p.stat().st_mtime_ns for p in (tmp_path / "res" / "runs").glob("*/result.json")}
    assert after == before


def test_infrastructure_errors_leave_runs_missing_until_resume(
    tmp_path: Path, small_profile: Path
) -> None:
    runs = _plan(small_profile)
    broken = {runs[0].run_id, runs[3].run_id}
    tries: Counter[str] = Counter()

    def flaky(run: PlannedRun) -> ResultRecord:
        tries[run.run_id] += 1
        if run.run_id in broken:
            raise InfrastructureError("sandbox failed to start")
        return record(run, reward=0.5)

    results = ResultsDir(tmp_path / "res")
    report = run_campaign(results, runs, LocalExecutor(flaky, 2, FAST), DriverSettings("small"))
    assert report.infra_errors == 2 and report.missing == 2
    assert all(tries[run_id] == 2 for run_id in broken), "one retry per policy"
    status = campaign_status(results)
    assert status.total("missing") == 2 and status.total("done") == len(runs) - 2
    attempt = results.attempts(runs[0].run_id)
    assert [a.state for a in attempt] == ["infrastructure-error"]
    broken.clear()
    report = run_campaign(
        results, runs, LocalExecutor(flaky, 2, FAST), DriverSettings("small", resume=True)
    )
    assert report.missing == 0
    attempts = read_attempts(CampaignFolder(tmp_path / "res"), runs[0].run_id)
    assert [(a.attempt, a.state) for a in attempts] == [
        (1, "infrastructure-error"),
        (2, "finished"),
    ]


def test_transient_errors_back_off_then_give_up(small_profile: Path) -> None:
    run = _plan(small_profile)[0]
    waits: list[float] = []
    remaining = [2]

    def rate_limited(planned: PlannedRun) -> ResultRecord:
        if remaining[0]:
            remaining[0] -= 1
            raise TransientError("429", retry_after=30.0 if remaining[0] == 0 else None)
        return record(planned, reward=1.0)

    policy = RetryPolicy(transient_attempts=3, base_delay_seconds=10, max_delay_seconds=25)
    outcome = call_with_backoff(rate_limited, run, policy, sleep=waits.append)
    assert outcome.reward == 1.0 and outcome.run_id == run.run_id
    assert len(waits) == 2 and 5 <= waits[0] <= 10 and waits[1] == 25, waits

    def always(planned: PlannedRun) -> ResultRecord:
        raise TransientError("429")

    with pytest.raises(InfrastructureError, match="still transient after 3 tries"):
        call_with_backoff(always, run, policy, sleep=waits.append)


def test_provider_limits_hold(tmp_path: Path) -> None:
    profile = write_small_profile(tmp_path, trials=3)
    runs = _plan(profile, agents=("codex", "claude-code"))
    lock = threading.Lock()
    live: Counter[str] = Counter()
    peak: Counter[str] = Counter()

    def tracking(run: PlannedRun) -> ResultRecord:
        with lock:
            live[run.provider] += 1
            peak[run.provider] = max(peak[run.provider], live[run.provider])
        time.sleep(0.02)
        with lock:
            live[run.provider] -= 1
        return record(run, reward=1.0)

    settings = DriverSettings("small", provider_limits={"openai": 2, "anthropic": 1})
    report = run_campaign(
        ResultsDir(tmp_path / "res"), runs, LocalExecutor(tracking, 6, FAST), settings
    )
    assert report.missing == 0
    assert peak == {"openai": 2, "anthropic": 1}


def test_slowest_runs_start_first(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "p"\ndefault_agent = "codex"\ntrials = 2\n'
        '[agents.codex]\nprovider = "openai"\nmodels = { primary = ["m"] }\n'
        '[[blocks]]\nname = "b"\n'
        'tasks = ["mimic-meld-24h", "mimic-sepsis3-raw", "mimic-urine-output-rate"]\n'
        'conditions = ["with-skill"]\n',
        encoding="utf-8",
    )
    started: list[str] = []

    def record_order(run: PlannedRun) -> ResultRecord:
        started.append(f"{run.cell.task}#{run.trial}")
        return record(run, reward=1.0)

    run_campaign(
        ResultsDir(tmp_path / "res"),
        _plan(path),
        LocalExecutor(record_order, 1, FAST),
        DriverSettings("p"),
    )
    assert started == [
        "mimic-sepsis3-raw#1",
        "mimic-sepsis3-raw#2",
        "mimic-urine-output-rate#1",
        "mimic-urine-output-rate#2",
        "mimic-meld-24h#1",
        "mimic-meld-24h#2",
    ]


def test_budget_stops_new_runs_and_counts_earlier_spending(
    tmp_path: Path, small_profile: Path
) -> None:
    runs = _plan(small_profile)

    def costly(run: PlannedRun) -> ResultRecord:
        tokens = Usage(input_uncached=1_000_000, output=100_000)
        return record(run, reward=1.0, usage=tokens)

    prices = {"model-a": Price(input=2.0, output=10.0), "model-b": Price(input=2.0, output=10.0)}
    results = ResultsDir(tmp_path / "res")
    settings = DriverSettings("small", budget=Budget(max_cost_usd=9.0), prices=prices)
    report = run_campaign(results, runs, LocalExecutor(costly, 1, FAST), settings)
    assert report.complete == 3, "each run costs $3; the third reaches $9"
    assert report.stopped is not None and "cost budget" in report.stopped
    assert report.cost_usd == pytest.approx(9.0)
    resumed = DriverSettings("small", resume=True, budget=Budget(max_cost_usd=12.0), prices=prices)
    report = run_campaign(results, runs, LocalExecutor(costly, 1, FAST), resumed)
    assert report.complete == 4 and report.cost_usd == pytest.approx(12.0)
    token_budget = DriverSettings("small", resume=True, budget=Budget(max_tokens=1))
    report = run_campaign(results, runs, LocalExecutor(costly, 1, FAST), token_budget)
    assert report.complete == 4 and "token budget" in (report.stopped or "")


def test_time_left_scales_priors_by_observed_speed() -> None:
    eta = EtaModel()
    assert eta.seconds_left([600.0, 600.0], [300.0], capacity=2) == pytest.approx(675.0)
    eta.observe(prior=600.0, actual=60.0)
    eta.observe(prior=300.0, actual=30.0)
    assert eta.calibration == pytest.approx(0.1)
    assert eta.seconds_left([600.0, 600.0], [300.0], capacity=2) == pytest.approx(67.5)


def test_ray_executor_without_ray_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from m4bench.campaign.ray_executor import RayExecutor
    from m4bench.errors import M4BenchError

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(M4BenchError, match="ray executor needs Ray") as info:
        RayExecutor(SimulatedRun(), FAST)
    assert info.value.hint is not None and "m4bench[ray]" in info.value.hint


def test_status_lists_cells_by_task_then_condition(tmp_path: Path) -> None:
    """A task named like another plus a suffix comes after it, conditions in order."""
    profile = tmp_path / "prefix.toml"
    text = write_small_profile(tmp_path).read_text(encoding="utf-8")
    profile.write_text(
        text.replace('"mimic-alpha", "mimic-beta-raw", "eicu-gamma"', '"mimic-b-raw", "mimic-b"'),
        encoding="utf-8",
    )
    runs = _plan(profile)
    results = ResultsDir(tmp_path / "res")
    run_campaign(results, runs, LocalExecutor(SimulatedRun(seed=2), 2, FAST), DriverSettings("p"))
    order = [(cell.cell.task, cell.cell.condition) for cell in campaign_status(results).cells]
    assert order[0] == ("mimic-b", "no-skill") and order[-1] == ("mimic-b-raw", "with-skill")
    assert order == sorted(order)


def test_a_harness_that_runs_nothing_stops_the_campaign(
    tmp_path: Path, small_profile: Path
) -> None:
    """Infrastructure errors in a row stop new runs; any completed run resets the count."""
    runs = _plan(small_profile)
    calls: list[str] = []

    def broken(run: PlannedRun) -> ResultRecord:
        calls.append(run.run_id)
        raise InfrastructureError("no source named 'synthetic-mimic-iv'")

    settings = DriverSettings("small", stop_after_infra_errors=3)
    report = run_campaign(
        ResultsDir(tmp_path / "a"), runs, LocalExecutor(broken, 1, FAST), settings
    )
    assert report.stopped and "3 runs in a row failed in the harness" in report.stopped
    assert report.infra_errors == 3 and len(calls) == 3 * 2  # each run and its one retry
    assert report.infra_reasons == {"InfrastructureError: no source named 'synthetic-mimic-iv'": 3}

    started: dict[str, int] = {}

    def every_third_works(run: PlannedRun) -> ResultRecord:
        """The third, sixth, ... run to start completes (one run at a time)."""
        if started.setdefault(run.run_id, len(started)) % 3 == 2:
            return record(run, reward=1.0)
        raise InfrastructureError("flaky sandbox")

    report = run_campaign(
        ResultsDir(tmp_path / "b"), runs, LocalExecutor(every_third_works, 1, FAST), settings
    )
    assert report.stopped is None and report.done == len(runs) // 3
    never = DriverSettings("small", stop_after_infra_errors=0)
    report = run_campaign(ResultsDir(tmp_path / "c"), runs, LocalExecutor(broken, 2, FAST), never)
    assert report.stopped is None and report.infra_errors == len(runs)


def test_infrastructure_errors_keep_their_hint(tmp_path: Path, small_profile: Path) -> None:
    """The run summary and the status say what to do, as the error's hint does."""
    runs = _plan(small_profile)
    setup = "build it with `m4bench setup --source s --task mimic-alpha`"

    def never_set_up(run: PlannedRun) -> ResultRecord:
        error = M4BenchError("tasks/s/ground-truth/alpha.parquet: no ground truth", hint=setup)
        raise InfrastructureError(str(error))

    report = run_campaign(
        ResultsDir(tmp_path / "a"),
        runs,
        LocalExecutor(never_set_up, 1, FAST),
        DriverSettings("small", stop_after_infra_errors=1),
    )
    headline = "InfrastructureError: tasks/s/ground-truth/alpha.parquet: no ground truth"
    assert report.infra_reasons == {headline: 1}
    assert report.infra_hints == {headline: setup}
    status = campaign_status(ResultsDir(tmp_path / "a"))
    assert status.infra_errors == {headline: 1} and status.infra_hints == {headline: setup}
    document = status_document(status)
    assert document["last_infrastructure_error_hints"] == {headline: setup}


def test_runs_another_driver_completes_meanwhile_are_not_called_missing(
    tmp_path: Path, small_profile: Path
) -> None:
    """A second driver on the same directory holds one run and finishes it while this
    one works: the summary counts it complete, not missing."""
    runs = _plan(small_profile)
    results = ResultsDir(tmp_path / "res")
    results.open_campaign("small", runs, resume=False)
    held = results.try_claim(runs[0])
    assert held is not None

    def other_driver_finishes(run: PlannedRun) -> ResultRecord:
        if not held.handle.closed:
            results.commit(held, record(held.run, reward=1.0))
            held.release()
        return record(run, reward=1.0)

    report = run_campaign(
        results,
        runs,
        LocalExecutor(other_driver_finishes, 1, FAST),
        DriverSettings("small", resume=True),
    )
    assert report.held_elsewhere == 1 and report.completed_elsewhere == 1
    assert report.missing == 0 and report.complete == len(runs)
