"""A simulated run function: no agent, no model, just time, tokens and failures.

It rehearses a campaign end to end (planning, executors, resume, budgets, a Ray
cluster's setup) without spending a token. Its records are never publishable (their
``publishable_reason`` says they are simulated), so analysis leaves them out unless
asked to include unpublishable runs. Durations, rewards, token counts and agent
failures are drawn from a generator seeded by the run id, so they repeat exactly;
transient and infrastructure errors are drawn fresh on every call, as in real life.
"""

from __future__ import annotations

import hashlib
import random
import time

from pydantic import BaseModel, ConfigDict, Field

from m4bench.campaign.identity import PlannedRun
from m4bench.campaign.records import RunOutcome, Usage
from m4bench.campaign.retry import InfrastructureError, TransientError

AGENT_FAILURES = ("timeout", "nonzero_exit", "no_output")
"""Agent failures it simulates, named as the runner names them."""
NOT_PUBLISHABLE = "simulated run (campaign run --simulate): no agent ran, nothing was scored"
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

    def __call__(self, run: PlannedRun) -> RunOutcome:
        fresh = random.Random()
        if fresh.random() < self.transient_rate:
            raise TransientError("simulated rate limit", retry_after=0.0)
        if fresh.random() < self.infrastructure_rate:
            raise InfrastructureError("simulated sandbox start failure")
        fixed = random.Random(self._seed_for(run))
        duration = fixed.uniform(self.min_seconds, max(self.min_seconds, self.max_seconds))
        fails = fixed.random() < self.agent_failure_rate
        reason = fixed.choice(AGENT_FAILURES) if fails else None
        reward = round(fixed.random(), 6)
        time.sleep(duration)
        tokens = int(duration * self.tokens_per_second) + fixed.randrange(1000)
        return RunOutcome(
            reward=None if reason else reward,
            failure_reason=reason,
            publishable=False,
            usage=Usage(
                input_tokens=tokens, cached_input_tokens=tokens // 2, output_tokens=tokens // 10
            ),
            elapsed_seconds=round(duration, 6),
            record=simulated_record(self.seed, reason),
        )

    def _seed_for(self, run: PlannedRun) -> int:
        text = f"{self.seed}:{run.run_id}"
        return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def simulated_record(seed: int, failure: str | None) -> dict[str, object]:
    """The record a simulated run keeps in place of the runner's, laid out as the
    runner's is where readers look: not publishable and why, and the agent's exit as
    the simulated failure implies (a timeout is a kill, as the sandbox reports it)."""
    returncode = {"nonzero_exit": _EXIT_STATUS, "timeout": _KILLED_BY_SIGTERM}.get(failure or "", 0)
    return {
        "simulated": True,
        "seed": seed,
        "status": failure or "ok",
        "publishable": False,
        "publishable_reason": NOT_PUBLISHABLE,
        "sandbox": {
            "backend": "simulated",
            "returncode": returncode,
            "timed_out": failure == "timeout",
            "killed": failure == "timeout",
        },
    }
