"""Runs the model provider ended, in the driver: transient ones are tried again under the
profile's retry policy and kept per attempt (tokens counted); when the tries run out the
run is recorded as that outcome and stays missing; a fatal one stops the campaign with
one line; a complete record is never replaced."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from campaign_support import write_small_profile
from result_records import record

from m4bench.agents.usage import Usage
from m4bench.campaign import (
    DriverSettings,
    LocalExecutor,
    PlannedRun,
    PlanOptions,
    ResultsDir,
    RetryPolicy,
    campaign_status,
    load_profile,
    plan_campaign,
    run_campaign,
)
from m4bench.campaign.profile import Price
from m4bench.campaign.provider_outcomes import attempt_result, backoff, keep_attempt
from m4bench.campaign.status import status_document
from m4bench.campaign.store import Claim
from m4bench.results import ResultRecord, read_result
from m4bench.results.record import Status

FAST = RetryPolicy(base_delay_seconds=0.0, max_delay_seconds=0.0, transient_attempts=3)
SPENT = Usage(input_uncached=1000, output=100)


def plan(tmp_path: Path) -> list[PlannedRun]:
    profile = write_small_profile(tmp_path, trials=1)
    return plan_campaign(load_profile(str(profile)), PlanOptions(agents=("codex",)))


def ended(run: PlannedRun, status: Status, detail: str, **fields: object) -> ResultRecord:
    """The runner's record of a run the provider ended (as finish_run writes it)."""
    return record(
        run,
        status=status,
        status_detail=detail,
        error=detail,
        reward=0.0,
        publishable=False,
        usage=SPENT,
        **fields,
    )


class Scripted:
    """Each run's outcomes in order (the last one repeats); calls counted per run."""

    def __init__(self, outcomes: dict[str, list[Status]]) -> None:
        self.outcomes = outcomes
        self.calls: Counter[str] = Counter()

    def __call__(self, run: PlannedRun) -> ResultRecord:
        self.calls[run.run_id] += 1
        script = self.outcomes.get(run.run_id, ["ok"])
        status = script[min(self.calls[run.run_id], len(script)) - 1]
        if status == "ok":
            return record(run, reward=1.0, usage=SPENT)
        return ended(run, status, f"the provider said no ({status})", retry_after=0.0)


def test_a_transient_failure_is_tried_again_and_each_attempt_is_kept(tmp_path: Path) -> None:
    runs = plan(tmp_path)
    first, second = runs[0].run_id, runs[1].run_id
    agent = Scripted({first: ["rate_limited", "provider_error", "ok"], second: ["ok"]})
    results = ResultsDir(tmp_path / "res")
    prices = {m: Price(input=1.0, output=10.0) for m in ("model-a", "model-b")}
    settings = DriverSettings("small", retry=FAST, prices=prices)
    report = run_campaign(results, runs, LocalExecutor(agent, 1, FAST), settings)
    assert agent.calls[first] == 3 and agent.calls[second] == 1
    assert report.missing == 0 and report.infra_errors == 0 and report.stopped is None
    assert report.provider_retries == {"rate_limited": 1, "provider_error": 1}
    # Every attempt's tokens are spent and counted, the failed ones too.
    assert report.tokens == SPENT.total_tokens * (len(runs) + 2)
    assert report.cost_usd == pytest.approx((len(runs) + 2) * (1000 * 1.0 + 100 * 10.0) / 1e6)
    states = [(a.attempt, a.state) for a in results.attempts(first)]
    assert states == [(1, "infrastructure-error"), (2, "infrastructure-error"), (3, "finished")]
    kept = [read_result(attempt_result(results, first, n)).status for n in (1, 2)]
    assert kept == ["rate_limited", "provider_error"]
    assert read_result(results.result_path(first)).status == "ok"
    # A later invocation counts what the failed attempts spent.
    again = run_campaign(
        results, runs, LocalExecutor(agent, 1, FAST), DriverSettings("small", resume=True)
    )
    assert again.tokens == report.tokens and again.missing == 0


def test_when_tries_run_out_the_run_is_that_outcome_and_resume_tries_again(
    tmp_path: Path,
) -> None:
    runs = plan(tmp_path)
    down = runs[0].run_id
    agent = Scripted({down: ["provider_error"]})
    results = ResultsDir(tmp_path / "res")
    report = run_campaign(
        results, runs, LocalExecutor(agent, 2, FAST), DriverSettings("small", retry=FAST)
    )
    assert agent.calls[down] == FAST.transient_attempts == 3
    assert report.missing == 1 and report.stopped is None
    cause = "provider_error: the provider said no (provider_error)"
    assert report.infra_reasons == {cause: 1}
    assert report.infra_hints[cause].endswith("run again with --resume later")
    recorded = read_result(results.result_path(down))
    assert recorded.status == "provider_error" and not recorded.complete
    status = campaign_status(results)
    assert status.total("missing") == 1 and status.total("failed") == 0
    assert status.infra_errors == {cause: 1}
    cells = status_document(status)["cells"]
    assert isinstance(cells, list)
    assert [c["infrastructure_outcomes"] for c in cells if c["missing"]] == [{"provider_error": 1}]
    # The provider is back: --resume runs it again, and its complete record replaces it.
    agent.outcomes[down] = ["ok"]
    resumed = run_campaign(
        results, runs, LocalExecutor(agent, 2, FAST), DriverSettings("small", resume=True)
    )
    assert resumed.missing == 0 and read_result(results.result_path(down)).status == "ok"


def test_a_fatal_failure_stops_the_campaign_with_one_line(tmp_path: Path) -> None:
    runs = plan(tmp_path)
    agent = Scripted({runs[0].run_id: ["auth_error"], runs[1].run_id: ["quota_exhausted"]})
    results = ResultsDir(tmp_path / "res")
    report = run_campaign(
        results, runs, LocalExecutor(agent, 1, FAST), DriverSettings("small", retry=FAST)
    )
    assert sum(agent.calls.values()) == 1, "no run starts after it, and it is not retried"
    (started,) = agent.calls
    assert report.stopped is not None and "\n" not in report.stopped
    kind = agent.outcomes[started][0]
    model = next(run.cell.model for run in runs if run.run_id == started)
    if kind == "auth_error":
        assert report.stopped == (
            f"agent codex (model {model}): auth_error: the provider said no (auth_error); "
            "fix the agent's API key (OPENAI_API_KEY or CODEX_API_KEY) or its permissions, "
            "then run again with --resume"
        )
    else:
        assert report.stopped.endswith(
            "add credit or raise the quota of the provider account, then run again with --resume"
        )
    assert read_result(results.result_path(started)).status == kind
    assert report.missing == len(runs)


def test_a_complete_record_is_never_replaced_by_a_provider_attempt(tmp_path: Path) -> None:
    (run, *_) = plan(tmp_path)
    results = ResultsDir(tmp_path / "res")
    results.open_campaign("small", [run], resume=False)
    claim = results.try_claim(run)
    assert claim is not None
    results.commit(claim, record(run, reward=1.0))
    # A stale claim's late attempt, ended by the provider: kept beside, not over it.
    late = results.try_claim(run)
    assert late is None, "a complete run is not claimed again"
    stale = Claim(run=run, attempt=2, handle=(tmp_path / "h").open("ab"))
    keep_attempt(results, stale, ended(run, "provider_error", "503"), final=True)
    assert read_result(results.result_path(run.run_id)).status == "ok"
    kept = read_result(attempt_result(results, run.run_id, 2))
    assert kept.status == "provider_error"


def test_backoff_waits_what_the_provider_asked_within_the_bound(tmp_path: Path) -> None:
    (run, *_) = plan(tmp_path)
    policy = RetryPolicy(base_delay_seconds=1.0, max_delay_seconds=60.0)
    asked = ended(run, "rate_limited", "429", retry_after=30.0)
    assert backoff(policy, asked, 1) == 30.0
    assert 4.0 <= backoff(policy, ended(run, "rate_limited", "429"), 4) <= 8.0
    assert backoff(policy, ended(run, "rate_limited", "429", retry_after=3600.0), 1) == 60.0
