"""What a campaign writes to disk, and what a run function hands back.

``result.json`` (:class:`RunResult`) is the commit point of a run: it is written once,
atomically, and its presence with valid content is what "complete" means. Attempt
records and the campaign manifest are bookkeeping around it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.campaign.identity import Cell, Condition, PlannedRun, Schema

RESULT_FORMAT_VERSION: Literal[1] = 1
HINT_PREFIX = "hint:"
"""How an error text marks its hint (see :class:`m4bench.errors.M4BenchError`)."""


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(0, ge=0)
    cached_input_tokens: int = Field(0, ge=0)
    output_tokens: int = Field(0, ge=0)
    cost_usd: float | None = Field(None, ge=0)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class RunOutcome(BaseModel):
    """What a run function returns when the agent ran, whatever the agent did.

    An agent failure (timeout, nonzero exit, no output, ...) is an outcome with a
    ``failure_reason``, never an exception: it is recorded and never retried.
    ``record`` is the runner's own full result record, kept verbatim.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    reward: float | None = None
    failure_reason: str | None = None
    publishable: bool = False
    usage: Usage = Field(default_factory=Usage)
    elapsed_seconds: float = Field(0.0, ge=0)
    record: dict[str, Any] = Field(default_factory=dict)


class TokenUsage(BaseModel):
    """Token usage as stored in result.json (the layout the analysis reads)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(ge=0)
    cached_input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    cost_usd: float = Field(ge=0)


class RunResult(BaseModel):
    """``<results>/runs/<run_id>/result.json``: one complete run.

    Identity fields sit at the top level so the analysis reads them directly.
    """

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_by_name=True, serialize_by_alias=True
    )

    format_version: Literal[1] = RESULT_FORMAT_VERSION
    run_id: str
    task: str
    condition: Condition
    schema_name: Schema = Field(alias="schema")
    agent: str
    model: str
    reasoning: str
    trial: int = Field(ge=1)
    attempt: int = Field(ge=1)
    status: Literal["done", "failed"]
    reward: float | None
    failure_reason: str | None
    publishable: bool
    elapsed_seconds: float = Field(ge=0)
    token_usage: TokenUsage
    score: dict[str, Any] | None = Field(
        None, description="the scorer's record, lifted from the runner's for readers"
    )
    record: dict[str, Any]

    @property
    def cell(self) -> Cell:
        return Cell(
            task=self.task,
            condition=self.condition,
            schema_name=self.schema_name,
            agent=self.agent,
            model=self.model,
            reasoning=self.reasoning,
        )


def result_from_outcome(
    run: PlannedRun, attempt: int, outcome: RunOutcome, cost_usd: float
) -> RunResult:
    usage = outcome.usage
    return RunResult(
        run_id=run.run_id,
        task=run.cell.task,
        condition=run.cell.condition,
        schema_name=run.cell.schema_name,
        agent=run.cell.agent,
        model=run.cell.model,
        reasoning=run.cell.reasoning,
        trial=run.trial,
        attempt=attempt,
        status="failed" if outcome.failure_reason else "done",
        reward=0.0 if outcome.failure_reason else outcome.reward,
        failure_reason=outcome.failure_reason,
        publishable=outcome.publishable,
        elapsed_seconds=outcome.elapsed_seconds,
        token_usage=TokenUsage(
            input_tokens=usage.input_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=cost_usd,
        ),
        score=_score_of(outcome.record),
        record=outcome.record,
    )


def _score_of(record: dict[str, Any]) -> dict[str, Any] | None:
    score = record.get("score")
    return score if isinstance(score, dict) else None


class AttemptRecord(BaseModel):
    """``<results>/runs/<run_id>/attempts/<n>.json``: one start of a run.

    Written ``started`` before the run function is called and rewritten when it ends.
    A ``started`` record left behind marks an attempt cut short by a crash.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    attempt: int = Field(ge=1)
    state: Literal["started", "finished", "infrastructure-error"]
    error: str | None = None


def error_headline(error: str) -> str:
    """The first line of an error text (its hint and traceback stay in the record)."""
    return error.strip().splitlines()[0] if error.strip() else "no detail"


def error_hint(error: str) -> str | None:
    """The ``hint: ...`` line of an error text (what to do about it), if it has one."""
    for line in error.splitlines():
        text = line.strip()
        if text.startswith(HINT_PREFIX):
            return text[len(HINT_PREFIX) :].strip() or None
    return None


class RunSettings(BaseModel):
    """The options a campaign's runs were executed with that change their results.

    Recorded in ``campaign.json`` when a campaign starts; ``--resume`` with different
    ones is refused, so one campaign never mixes data sources, sandboxes, model
    endpoints, or simulated and real runs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    simulated: bool = Field(description="runs are simulated (--simulate): no agent ran")
    sources: dict[str, str] = Field(
        default_factory=dict, description="data source per dataset (none when simulated)"
    )
    sandbox: str | None = Field(None, description="sandbox backend (none when simulated)")
    endpoint: str | None = Field(None, description="model endpoint of the react agent")

    def differences(self, given: RunSettings) -> list[tuple[str, str, str]]:
        """``(option, recorded, given)`` for every option that differs, in a fixed order."""
        if self.simulated != given.simulated:  # the other options follow from this one
            return [("--simulate", _simulation(self), _simulation(given))]
        found: list[tuple[str, str, str]] = []
        for dataset in sorted({*self.sources, *given.sources}):
            recorded, now = self.sources.get(dataset), given.sources.get(dataset)
            if recorded != now:
                found.append((f"--source {dataset}", _shown(recorded), _shown(now)))
        if self.sandbox != given.sandbox:
            found.append(("--sandbox", _shown(self.sandbox), _shown(given.sandbox)))
        if self.endpoint != given.endpoint:
            found.append(("--endpoint", _shown(self.endpoint), _shown(given.endpoint)))
        return found

    def as_options(self) -> str:
        """The ``campaign run`` options that give these settings."""
        if self.simulated:
            return "--simulate SPEC"
        parts = [f"--source {dataset}={name}" for dataset, name in sorted(self.sources.items())]
        if self.sandbox is not None:
            parts.append(f"--sandbox {self.sandbox}")
        if self.endpoint is not None:
            parts.append(f"--endpoint {self.endpoint}")
        return " ".join(parts) or "no options"


def _simulation(settings: RunSettings) -> str:
    return "simulated runs" if settings.simulated else "real runs"


def _shown(value: str | None) -> str:
    return "(none)" if value is None else repr(value)


class CampaignManifest(BaseModel):
    """``<results>/campaign.json``: the planned set a results directory must reach."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = 1
    profile: str
    plan_sha256: str
    settings: RunSettings | None = Field(
        None,
        description="what the runs are executed with; None in campaigns recorded before "
        "it was (their resume checks the planned set only)",
    )
    runs: list[PlannedRun]
