"""Runs the model provider ended: retried with backoff, kept per attempt, or a stop.

A run function hands back a record whose status is an infrastructure outcome
(:data:`m4bench.results.record.INFRASTRUCTURE`) when the provider or its endpoint failed
(rate limit, 5xx, refused credentials, exhausted quota, no connection). The driver

* keeps every such attempt's record beside the run, ``attempts/<n>.result.json``
  (its tokens were spent: the budget and the report count them), with the attempt
  marked ``infrastructure-error`` and the cause in words;
* tries a transient kind again (``rate_limited``, ``provider_error``,
  ``endpoint_unreachable``) after the profile's backoff (:class:`RetryPolicy`, waiting
  at least what the provider's ``Retry-After`` asked), up to ``transient_attempts``
  tries in one invocation; when they run out the run's ``result.json`` is that record:
  not complete, so it never enters the analysis and a later ``--resume`` tries again;
* stops the campaign on a fatal kind (``auth_error``, ``quota_exhausted``): no new run
  starts, and one line names the agent, the provider's words and what to do.

A complete record is never replaced (see :mod:`m4bench.campaign.store`).
"""

from __future__ import annotations

import random
from pathlib import Path

from m4bench.agents.outcome import FATAL
from m4bench.agents.registry import BUILTIN_ADAPTERS, get_adapter
from m4bench.campaign.retry import RetryPolicy
from m4bench.campaign.store import Claim, ResultsDir
from m4bench.errors import M4BenchError
from m4bench.fileio import write_model
from m4bench.results.campaign_files import AttemptRecord
from m4bench.results.layout import RESULT_FILE
from m4bench.results.read import read_result
from m4bench.results.record import INFRASTRUCTURE, ResultRecord

_WORDS_SHOWN = 400
ATTEMPT_RESULT_SUFFIX = f".{RESULT_FILE}"
"""``attempts/<n>.result.json``: an attempt's own record, kept beside the run's."""
RESUME = "then run again with --resume"


def is_provider_outcome(record: ResultRecord) -> bool:
    """Whether the provider or its endpoint ended the run (not the harness, not the user)."""
    return record.status in INFRASTRUCTURE


def is_fatal(record: ResultRecord) -> bool:
    """Whether no retry can mend the run's outcome (credentials, quota)."""
    return record.status in FATAL


def backoff(policy: RetryPolicy, record: ResultRecord, tries: int) -> float:
    """Seconds before the next try of a run that failed transiently ``tries`` times in
    this invocation: the policy's jittered exponential backoff, at least the provider's
    ``Retry-After`` (both capped at ``max_delay_seconds``)."""
    rng = random.Random(f"{record.run_id}/{tries}")
    return policy.delay(tries, record.retry_after, rng)


def cause(record: ResultRecord) -> str:
    """The outcome in words, on one line: ``kind: what happened: the provider's words``."""
    words = " ".join((record.status_detail or record.error or "").split())
    if len(words) > _WORDS_SHOWN:
        words = words[: _WORDS_SHOWN - 1].rstrip() + "…"
    return f"{record.status}: {words}" if words else str(record.status)


def what_to_do(record: ResultRecord, then: str = RESUME) -> str:
    """What the user does about the outcome, ending in how to continue: ``then`` (the
    campaign's ``--resume``; ``m4bench run`` says to run the command again)."""
    if record.status == "auth_error":
        keys = _credential_names(record.identity.agent)
        where = f" ({' or '.join(keys)})" if keys else ""
        return f"fix the agent's API key{where} or its permissions, {then}"
    if record.status == "quota_exhausted":
        return f"add credit or raise the quota of the provider account, {then}"
    if record.status == "endpoint_unreachable":
        return f"start the model server or fix --endpoint, {then}"
    wait = f" (the provider asked to wait {record.retry_after:g} s)" if record.retry_after else ""
    return f"the provider's trouble, not the model's: {then} later{wait}"


def stop_line(record: ResultRecord) -> str:
    """The one line a fatal outcome stops the campaign with."""
    identity = record.identity
    return f"agent {identity.agent} (model {identity.model}): {cause(record)}; {what_to_do(record)}"


def attempt_error(record: ResultRecord) -> str:
    """The attempt's error text: the cause, then its hint (what to do)."""
    return f"{cause(record)}\nhint: {what_to_do(record)}"


def keep_attempt(results: ResultsDir, claim: Claim, record: ResultRecord, final: bool) -> None:
    """Keep a provider-ended attempt: its record beside the run, the attempt closed as an
    infrastructure error naming the cause; ``final`` (no more tries now): the record is
    also the run's ``result.json`` (not complete: a later ``--resume`` replaces it),
    unless that holds a complete record already, which is never replaced."""
    run_id = claim.run.run_id
    write_model(attempt_result(results, run_id, claim.attempt), record)
    if final and complete_result(results, run_id) is None:
        write_model(results.result_path(run_id), record)
    results.folder.runner_folder(run_id).result.unlink(missing_ok=True)
    closed = AttemptRecord(
        run_id=run_id,
        attempt=claim.attempt,
        state="infrastructure-error",
        error=attempt_error(record),
    )
    results.write_attempt(closed)
    claim.release()


def complete_result(results: ResultsDir, run_id: str) -> ResultRecord | None:
    """The run's record when it is complete; None while it is missing or only records
    an outcome that did not make it complete (the provider ended it)."""
    existing = results.read_result(run_id)
    return existing if existing is not None and existing.complete else None


def attempt_result(results: ResultsDir, run_id: str, attempt: int) -> Path:
    """Where attempt ``attempt`` of a run keeps its record beside the run's."""
    return results.attempts_dir(run_id) / f"{attempt}{ATTEMPT_RESULT_SUFFIX}"


def attempt_records(results: ResultsDir, run_id: str) -> list[ResultRecord]:
    """The records kept beside a run, one per attempt that was not (only) its result:
    each one's tokens were spent."""
    directory = results.attempts_dir(run_id)
    if not directory.is_dir():
        return []
    files = sorted(directory.glob(f"*{ATTEMPT_RESULT_SUFFIX}"), key=lambda p: p.name)
    return [read_result(path) for path in files]


def _credential_names(agent: str) -> tuple[str, ...]:
    if agent not in BUILTIN_ADAPTERS:
        return ()
    try:
        return tuple(get_adapter(agent).credential_env)
    except M4BenchError:
        return ()
