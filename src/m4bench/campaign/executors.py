"""Executors: where runs execute. Both hand back a ``concurrent.futures.Future``.

The driver decides *which* run goes next (slowest first, per-provider limits, budget)
and writes every record itself; an executor only executes. ``local`` is a bounded
thread pool (a run mostly waits on an agent subprocess); ``ray`` turns each run into
a Ray task (see :mod:`m4bench.campaign.ray_executor`).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from m4bench.campaign.retry import InfrastructureError, RetryPolicy, RunFn, call_with_backoff
from m4bench.results.campaign_files import PlannedRun
from m4bench.results.record import ResultRecord


class Executor(Protocol):
    name: str

    @property
    def capacity(self) -> int:
        """How many runs it executes at once."""
        ...

    def submit(self, run: PlannedRun) -> Future[ResultRecord]: ...

    def close(self) -> None: ...


def execute_with_retries(run_fn: RunFn, run: PlannedRun, policy: RetryPolicy) -> ResultRecord:
    """Transient errors back off; infrastructure errors re-execute a bounded number of times."""
    for retry in range(policy.infrastructure_retries + 1):
        try:
            return call_with_backoff(run_fn, run, policy)
        except InfrastructureError:
            if retry == policy.infrastructure_retries:
                raise
    raise AssertionError("unreachable")


class LocalExecutor:
    """A bounded pool of threads in this process."""

    name = "local"

    def __init__(self, run_fn: RunFn, jobs: int, policy: RetryPolicy) -> None:
        self._run_fn = run_fn
        self._jobs = jobs
        self._policy = policy
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="m4bench-run")

    @property
    def capacity(self) -> int:
        return self._jobs

    def submit(self, run: PlannedRun) -> Future[ResultRecord]:
        return self._pool.submit(execute_with_retries, self._run_fn, run, self._policy)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
