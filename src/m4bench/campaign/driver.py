"""The campaign driver: decides what runs next, hands runs to an executor, records them.

One driver process owns a campaign invocation. It skips complete runs, orders the rest
slowest first, keeps each provider under its concurrency limit, stops starting runs
once the budget is spent, and writes every record through the results directory's
crash-safe protocol (see :mod:`m4bench.campaign.store`). A run the model provider ended
is tried again after a backoff, kept per attempt, or stops the campaign (see
:mod:`m4bench.campaign.provider_outcomes`).
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

from m4bench.campaign.budget import BudgetGuard, priced
from m4bench.campaign.error_text import error_headline, error_hint
from m4bench.campaign.eta import EtaModel
from m4bench.campaign.executors import Executor
from m4bench.campaign.plan import schedule_order
from m4bench.campaign.profile import Budget, Price
from m4bench.campaign.progress import ProgressSink, Tally
from m4bench.campaign.provider_outcomes import (
    attempt_error,
    attempt_records,
    backoff,
    complete_result,
    is_fatal,
    is_provider_outcome,
    keep_attempt,
    stop_line,
)
from m4bench.campaign.retry import RetryPolicy
from m4bench.campaign.store import Claim, ResultsDir
from m4bench.results.campaign_files import PlannedRun, RunSettings
from m4bench.results.record import ResultRecord

POLL_SECONDS = 0.5
INTERRUPTED = "interrupted: runs in flight finish and are recorded (interrupt again to abort)"


@dataclass(frozen=True)
class DriverSettings:
    """What the driver needs beyond the runs: the profile's name, limits and budget.

    A first interrupt (Ctrl-C) stops new runs and lets the running ones finish and be
    recorded; a second one aborts, and any run it cuts short stays missing.
    """

    profile: str
    resume: bool = False
    provider_limits: dict[str, int] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)
    prices: dict[str, Price] = field(default_factory=dict)
    stop_after_infra_errors: int = 10
    """Runs in a row ending in infrastructure errors (each after its retries) before no
    new run starts: a harness that cannot run anything (a missing source or agent
    program) does not churn through the whole plan. 0: never stop."""
    run_settings: RunSettings | None = None
    """What the runs are executed with (sources, sandbox, ...): recorded in a new
    campaign, checked against the recorded ones on resume. None: neither."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    """How a run the provider ended transiently is tried again (tries, backoff)."""


@dataclass
class CampaignReport:
    planned: int
    complete_before: int
    done: int = 0
    failed: int = 0
    infra_errors: int = 0
    infra_reasons: Counter[str] = field(default_factory=Counter)
    """Infrastructure errors by the first line of their message."""
    infra_hints: dict[str, str] = field(default_factory=dict)
    """What to do about an error of ``infra_reasons`` (its hint), by the same first line."""
    infra_streak: int = 0
    """Infrastructure errors since the last run that completed."""
    held_elsewhere: int = 0
    completed_elsewhere: int = 0
    """Runs another driver on the same results directory completed meanwhile."""
    stopped: str | None = None
    cost_usd: float = 0.0
    tokens: int = 0
    provider_retries: Counter[str] = field(default_factory=Counter)
    """Attempts the provider ended and that were tried again, by kind."""
    provider_outcomes: Counter[str] = field(default_factory=Counter)
    """Runs left as an outcome the provider ended (tries spent, or fatal), by kind."""

    def infra_error(self, error: str) -> None:
        self.infra_errors += 1
        self.infra_streak += 1
        headline = error_headline(error)
        self.infra_reasons[headline] += 1
        hint = error_hint(error)
        if hint is not None:
            self.infra_hints.setdefault(headline, hint)

    @property
    def complete(self) -> int:
        return self.complete_before + self.done + self.failed + self.completed_elsewhere

    @property
    def missing(self) -> int:
        return self.planned - self.complete


@dataclass(frozen=True)
class _Settled:
    """A finished run whose record is still to be written; ``final``: a provider-ended
    attempt that is not tried again now (its record becomes the run's)."""

    claim: Claim
    result: ResultRecord | None
    error: str | None
    final: bool = True


@dataclass
class _State:
    todo: list[PlannedRun]
    capacity: int
    in_flight: dict[Future[ResultRecord], Claim] = field(default_factory=dict)
    per_provider: Counter[str] = field(default_factory=Counter)
    eta: EtaModel = field(default_factory=EtaModel)
    interrupted: bool = False
    settled: list[_Settled] = field(default_factory=list)
    waiting: list[tuple[float, PlannedRun]] = field(default_factory=list)
    """Runs the provider ended transiently, each with when it may start again."""
    tries: Counter[str] = field(default_factory=Counter)
    """Provider-ended attempts of each run in this invocation."""


def run_campaign(
    results: ResultsDir,
    runs: list[PlannedRun],
    executor: Executor,
    settings: DriverSettings,
    progress: ProgressSink | None = None,
) -> CampaignReport:
    """Execute every planned run that has no complete record; return what happened.

    The executor is closed on return, whatever happens.
    """
    state: _State | None = None
    try:
        results.open_campaign(settings.profile, runs, settings.resume, settings.run_settings)
        guard = BudgetGuard(settings.budget, prices=settings.prices)
        todo = _missing_runs(results, runs, guard)
        report = CampaignReport(planned=len(runs), complete_before=len(runs) - len(todo))
        capacity = _effective_capacity(executor.capacity, todo, settings.provider_limits)
        state = _State(todo=schedule_order(todo), capacity=capacity)
        with _graceful_interrupt(state):
            _loop(results, executor, settings, guard, state, report, progress)
    finally:
        if state is not None:
            _write_settled(results, state)
            for claim in state.in_flight.values():
                claim.release()
        executor.close()
    report.cost_usd, report.tokens = guard.cost_usd, guard.tokens
    if report.missing:  # another driver of this directory may have completed them
        still = sum(complete_result(results, run.run_id) is None for run in runs)
        report.completed_elsewhere = max(0, report.missing - still)
    return report


def _missing_runs(
    results: ResultsDir, runs: list[PlannedRun], guard: BudgetGuard
) -> list[PlannedRun]:
    """Runs without a complete record; the spending of the complete ones, and of every
    attempt kept beside a run (the provider ended it), goes to the guard."""
    todo: list[PlannedRun] = []
    for run in runs:
        for attempt in attempt_records(results, run.run_id):
            guard.add(attempt)
        existing = complete_result(results, run.run_id)
        if existing is None:
            todo.append(run)
        else:
            guard.add(existing)
    return todo


def _loop(
    results: ResultsDir,
    executor: Executor,
    settings: DriverSettings,
    guard: BudgetGuard,
    state: _State,
    report: CampaignReport,
    progress: ProgressSink | None,
) -> None:
    while True:
        if state.interrupted:
            report.stopped = INTERRUPTED
        report.stopped = report.stopped or guard.exceeded() or _harness_stop(settings, report)
        if report.stopped is None:
            _fill(results, executor, settings, state, report)
        _write_settled(results, state)
        _show(progress, report, state, guard)
        if not state.in_flight:
            if report.stopped or not state.waiting:
                return
            _pause_until_due(state)
            continue
        for future in _wait_any(state):
            claim = state.in_flight.pop(future)
            state.per_provider[claim.run.provider] -= 1
            state.settled.append(_settle(settings, guard, claim, future, report, state))


def _harness_stop(settings: DriverSettings, report: CampaignReport) -> str | None:
    limit = settings.stop_after_infra_errors
    if limit == 0 or report.infra_streak < limit:
        return None
    return (
        f"{report.infra_streak} runs in a row failed in the harness (errors above); fix the "
        "cause, then run again with --resume"
    )


@contextmanager
def _graceful_interrupt(state: _State) -> Iterator[None]:
    """First SIGINT: flag it (no new runs start); second: KeyboardInterrupt as usual.

    A flag, not an exception, so the first interrupt can never land halfway through
    recording a run. Only the main thread can own signal handlers.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if state.interrupted:
            raise KeyboardInterrupt
        state.interrupted = True

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _pause_until_due(state: _State) -> None:
    """Nothing runs and runs wait for their retry: sleep until the first is due (at most
    a poll interval, so an interrupt is heard)."""
    due = min(when for when, _ in state.waiting)
    time.sleep(min(max(due - time.monotonic(), 0.0), POLL_SECONDS))


def _take_due(results: ResultsDir, state: _State) -> None:
    """Runs whose retry is due go first in the queue; a last attempt of theirs still to
    be written is written first (its claim released)."""
    now = time.monotonic()
    due = [run for when, run in state.waiting if when <= now]
    if not due:
        return
    state.waiting = [(when, run) for when, run in state.waiting if when > now]
    ids = {run.run_id for run in due}
    for settled in [s for s in state.settled if s.claim.run.run_id in ids]:
        state.settled.remove(settled)
        _write_one(results, settled)
    state.todo[:0] = due


def _wait_any(state: _State) -> set[Future[ResultRecord]]:
    pending = list(state.in_flight)
    finished, _ = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
    return finished


def _fill(
    results: ResultsDir,
    executor: Executor,
    settings: DriverSettings,
    state: _State,
    report: CampaignReport,
) -> None:
    """Start runs in schedule order (retries that are due first) while the executor and
    providers have room."""
    _take_due(results, state)
    index = 0
    while index < len(state.todo) and len(state.in_flight) < executor.capacity:
        run = state.todo[index]
        limit = settings.provider_limits.get(run.provider)
        if limit is not None and state.per_provider[run.provider] >= limit:
            index += 1
            continue
        state.todo.pop(index)
        claim = results.try_claim(run)
        if claim is None:
            if complete_result(results, run.run_id) is None:
                report.held_elsewhere += 1
            else:
                report.complete_before += 1
            continue
        try:
            future = executor.submit(run)
        except Exception as exc:  # the executor could not take the run: infrastructure
            error = f"{type(exc).__name__}: {exc}"
            results.abandon(claim, error)
            report.infra_error(error)
            continue
        state.in_flight[future] = claim
        state.per_provider[run.provider] += 1


def _settle(
    settings: DriverSettings,
    guard: BudgetGuard,
    claim: Claim,
    future: Future[ResultRecord],
    report: CampaignReport,
    state: _State,
) -> _Settled:
    """Account for a finished run (budget, counts, ETA); writing it comes after the
    freed slot is refilled, so the next run does not wait on this one's disk writes."""
    try:
        record = future.result()
        _check_record(claim.run, record)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        report.infra_error(error)
        return _Settled(claim, None, error)
    result = priced(record, settings.prices)
    guard.add(result)
    if is_provider_outcome(result):
        return _provider_ended(settings, claim, result, report, state)
    state.eta.observe(claim.run.prior_seconds, result.timings.total)
    report.infra_streak = 0
    if result.status == "ok":
        report.done += 1
    else:
        report.failed += 1
    return _Settled(claim, result, None)


def _provider_ended(
    settings: DriverSettings,
    claim: Claim,
    result: ResultRecord,
    report: CampaignReport,
    state: _State,
) -> _Settled:
    """A run the provider ended: stop the campaign (fatal), try it again after a
    backoff (transient, tries left), or record it as that outcome (tries spent)."""
    run = claim.run
    state.tries[run.run_id] += 1
    tries = state.tries[run.run_id]
    if is_fatal(result):
        report.stopped = report.stopped or stop_line(result)
    elif tries < settings.retry.transient_attempts:
        report.provider_retries[result.status] += 1
        wait = backoff(settings.retry, result, tries)
        state.waiting.append((time.monotonic() + wait, run))
        return _Settled(claim, result, None, final=False)
    report.provider_outcomes[result.status] += 1
    report.infra_error(attempt_error(result))
    return _Settled(claim, result, None)


def _check_record(run: PlannedRun, record: ResultRecord) -> None:
    """A run function hands back a complete record of the run it was given, or one the
    model provider ended."""
    if record.run_id != run.run_id:
        raise ValueError(f"the run function returned the record of {record.run_id!r}")
    if not record.complete and not is_provider_outcome(record):
        raise ValueError(f"the run function returned an unfinished run ({record.status})")


def _write_settled(results: ResultsDir, state: _State) -> None:
    while state.settled:
        _write_one(results, state.settled.pop(0))


def _write_one(results: ResultsDir, settled: _Settled) -> None:
    if settled.result is None:
        results.abandon(settled.claim, settled.error or "unknown error")
    elif is_provider_outcome(settled.result):
        keep_attempt(results, settled.claim, settled.result, settled.final)
    else:
        results.commit(settled.claim, settled.result)


def _effective_capacity(jobs: int, runs: list[PlannedRun], limits: dict[str, int]) -> int:
    """Runs that can execute at once: the executor's slots, or the providers' limits."""
    providers = {run.provider for run in runs}
    if not providers or any(p not in limits for p in providers):
        return jobs
    return max(1, min(jobs, sum(limits[p] for p in providers)))


def _seconds_left(state: _State) -> float:
    waiting = (run.prior_seconds for run in state.todo)
    running = (claim.run.prior_seconds for claim in state.in_flight.values())
    return state.eta.seconds_left(waiting, running, state.capacity)


def _show(
    progress: ProgressSink | None, report: CampaignReport, state: _State, guard: BudgetGuard
) -> None:
    if progress is None:
        return
    progress.update(
        Tally(
            planned=report.planned,
            complete=report.complete,
            running=len(state.in_flight),
            failed=report.failed,
            infra_errors=report.infra_errors,
            cost_usd=guard.cost_usd,
            eta_seconds=None if report.stopped else _seconds_left(state),
        )
    )
