"""A simulated run function: no agent, no model, just time, tokens and failures.

It rehearses a campaign end to end (planning, executors, resume, budgets, a Ray
cluster's setup) without spending a token. Its records say ``simulated`` and are never
publishable (their ``publishable_reason`` says why), so analysis leaves them out unless
asked to include unpublishable runs. Durations, rewards, token counts and agent
failures are drawn from a generator seeded by the run id, so they repeat exactly;
transient and infrastructure errors are drawn fresh on every call, as in real life.
"""

from __future__ import annotations

import hashlib
import platform
import random
import time

import duckdb
from pydantic import BaseModel, ConfigDict, Field

import m4bench
from m4bench.agents.usage import Usage
from m4bench.campaign.retry import InfrastructureError, TransientError
from m4bench.results.campaign_files import PlannedRun
from m4bench.results.identity import spec_of
from m4bench.results.record import ResultRecord, SandboxRecord, Status, Timings, Versions

AGENT_FAILURES: tuple[Status, ...] = ("timeout", "nonzero_exit", "no_output")
"""Agent failures it simulates, named as the runner names them."""
NOT_PUBLISHABLE = "simulated run (campaign run --simulate): no agent ran, nothing was scored"
SIMULATED = "simulated"
_EXIT_STATUS = 1
_KILLED_BY_SIGTERM = -15


class SimulatedRun(BaseModel):
    """A picklable run function; rates are probabilities per call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 0
    min_seconds: float = Field(0.0, ge=0)
    max_seconds: float = Field(0.0, ge=0)
    agent_failure_rate: float = Field(0.0, ge=0, le=1)
    transient_rate: float = Field(0.0, ge=0, le=1)
    infrastructure_rate: float = Field(0.0, ge=0, le=1)
    tokens_per_second: int = Field(1000, ge=0)

    def __call__(self, run: PlannedRun) -> ResultRecord:
        fresh = random.Random()
        if fresh.random() < self.transient_rate:
            raise TransientError("simulated rate limit", retry_after=0.0)
        if fresh.random() < self.infrastructure_rate:
            raise InfrastructureError("simulated sandbox start failure")
        fixed = random.Random(self._seed_for(run))
        duration = fixed.uniform(self.min_seconds, max(self.min_seconds, self.max_seconds))
        fails = fixed.random() < self.agent_failure_rate
        status: Status = fixed.choice(AGENT_FAILURES) if fails else "ok"
        reward = round(fixed.random(), 6)
        time.sleep(duration)
        tokens = int(duration * self.tokens_per_second) + fixed.randrange(1000)
        cached = tokens // 2
        usage = Usage(input_uncached=tokens - cached, input_cache_read=cached, output=tokens // 10)
        return simulated_record(run, status, 0.0 if fails else reward, usage, duration)

    def _seed_for(self, run: PlannedRun) -> int:
        text = f"{self.seed}:{run.run_id}"
        return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def simulated_record(
    run: PlannedRun, status: Status, reward: float, usage: Usage, seconds: float
) -> ResultRecord:
    """The record of a simulated run: no output was scored, so a failed run's reward is
    0 as the reward rule gives it; the agent's exit is the one the status implies (a
    timeout is a kill, as the sandbox reports it)."""
    returncode = {"nonzero_exit": _EXIT_STATUS, "timeout": _KILLED_BY_SIGTERM}.get(status, 0)
    return ResultRecord(
        run_id=run.run_id,
        attempt=1,
        identity=spec_of(run.cell, run.trial),
        simulated=True,
        source=SIMULATED,
        versions=Versions(
            m4bench=m4bench.__version__,
            python=platform.python_version(),
            duckdb=duckdb.__version__,
        ),
        sandbox=SandboxRecord(
            backend=SIMULATED,
            isolated=False,
            limits={},
            returncode=returncode,
            timed_out=status == "timeout",
            killed=status == "timeout",
        ),
        status=status,
        timings=Timings(agent=round(seconds, 6), total=round(seconds, 6)),
        usage=usage,
        reward=reward,
        publishable=False,
        publishable_reason=NOT_PUBLISHABLE,
    )
