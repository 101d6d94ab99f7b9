"""Retries: transient provider errors back off and retry; agent failures never retry.

Four kinds of trouble, kept apart:

* an agent failure (timeout, nonzero exit, no output) is a :class:`ResultRecord` with
  that status: recorded, rewarded by the reward rule (:mod:`m4bench.results.reward`),
  never retried;
* a run the model provider ended (a record whose status is an infrastructure outcome:
  ``rate_limited``, ``provider_error``, ``auth_error``, ...) is retried by the driver
  under this policy, or stops the campaign (see
  :mod:`m4bench.campaign.provider_outcomes`);
* a :class:`TransientError` a run function raises (rate limit, provider overload, 5xx)
  is retried here with exponential backoff, honouring a provider's ``retry_after``;
* an :class:`InfrastructureError` (sandbox could not start, node lost, disk full) is
  retried by the executor a bounded number of times, then the run stays missing so a
  later ``--resume`` tries again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from m4bench.results.campaign_files import PlannedRun
from m4bench.results.record import ResultRecord

RunFn = Callable[[PlannedRun], ResultRecord]
"""A run function: executes a planned run and returns its result record."""


class TransientError(Exception):
    """The provider asked us to come back later; the run itself did not happen."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InfrastructureError(Exception):
    """The run could not be executed for reasons outside the agent."""


class RetryPolicy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    transient_attempts: int = Field(6, ge=1, description="tries per run on transient errors")
    base_delay_seconds: float = Field(15.0, ge=0)
    max_delay_seconds: float = Field(600.0, ge=0)
    infrastructure_retries: int = Field(2, ge=0, description="re-executions on infra errors")
    stop_after_infra_errors: int = Field(
        10,
        ge=0,
        description="runs in a row that end in infrastructure errors before the campaign "
        "stops starting runs (0: never stop)",
    )

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Backoff before retry number ``retry`` (1-based): exponential, jittered, capped."""
        exponential = self.base_delay_seconds * (2 ** (retry - 1))
        jittered = exponential * (0.5 + rng.random() / 2)
        wait = max(jittered, retry_after or 0.0)
        return float(min(wait, self.max_delay_seconds))


def call_with_backoff(
    run_fn: RunFn,
    run: PlannedRun,
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
) -> ResultRecord:
    """Call ``run_fn``, retrying transient errors; the last one becomes infrastructure."""
    rng = random.Random(run.run_id)
    for retry in range(1, policy.transient_attempts + 1):
        try:
            return run_fn(run)
        except TransientError as exc:
            if retry == policy.transient_attempts:
                raise InfrastructureError(f"still transient after {retry} tries: {exc}") from exc
            sleep(policy.delay(retry, exc.retry_after, rng))
    raise AssertionError("unreachable")
