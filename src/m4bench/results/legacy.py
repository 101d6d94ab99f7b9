"""Result records of format 1, read as records of today's format.

Format 1 had two shapes under one version number:

* the runner's record (``m4bench run``): today's record without ``simulated``; read
  as is;
* a campaign's record: the run's identity at the top level, the campaign's own
  ``status`` (``done``/``failed``), ``reward`` (0 for every failed run),
  ``token_usage`` (with the cost as the campaign counted it) and the runner's record
  nested under ``record`` (for a simulated run, a stub saying so).

A campaign record is read as the runner's record it nests, so its reward is the one the
reward rule gives (:mod:`m4bench.results.reward`): a run killed at its timeout after a
complete output keeps its output's score, not the campaign's 0. The campaign's cost
fills in a cost the runner's record does not report. A campaign record whose nested
record is no runner's (a simulated run) becomes a record built from its top-level
fields. Nothing is written back: format-1 files stay as they are.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.agents.usage import Usage
from m4bench.errors import M4BenchError
from m4bench.results.identity import RunSpec
from m4bench.results.record import (
    STATUSES,
    ResultRecord,
    SandboxRecord,
    Status,
    Timings,
    Versions,
)
from m4bench.results.validation import validated

NOT_RECORDED = "not recorded"
CAMPAIGN_COST = "as the campaign counted it"


class _CampaignUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_tokens: int = Field(ge=0)
    cached_input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)
    cost_usd: float = Field(ge=0)


class _CampaignRecord(BaseModel):
    """A campaign's ``result.json`` of format 1."""

    model_config = ConfigDict(extra="forbid", validate_by_name=True)

    format_version: Literal[1]
    run_id: str
    task: str
    condition: str
    schema_name: str = Field(alias="schema")
    agent: str
    model: str
    reasoning: str
    trial: int = Field(ge=1)
    attempt: int = Field(ge=1)
    status: Literal["done", "failed"]
    reward: float | None = Field(ge=0.0, le=1.0)
    failure_reason: str | None
    publishable: bool
    elapsed_seconds: float = Field(ge=0)
    token_usage: _CampaignUsage
    score: dict[str, Any] | None = None
    record: dict[str, Any]


class _Stub(BaseModel):
    """What a format-1 simulated run kept in place of the runner's record."""

    simulated: bool = False
    publishable_reason: str = ""
    sandbox: dict[str, Any] = Field(default_factory=dict)


def from_format1(data: dict[str, Any], where: str) -> ResultRecord:
    """A format-1 record (the runner's or a campaign's) as a record of today's format."""
    if "identity" in data:  # the runner's own record
        return validated(ResultRecord, {**data, "format_version": 2}, where)
    outer = validated(_CampaignRecord, data, where)
    if "identity" in outer.record:
        inner = from_format1(outer.record, f"{where} (its 'record')")
        return _with_campaign_cost(inner, outer.token_usage)
    return _from_top_level(outer, validated(_Stub, outer.record, f"{where} (its 'record')"), where)


def _with_campaign_cost(record: ResultRecord, usage: _CampaignUsage) -> ResultRecord:
    if record.usage.cost_usd is not None:
        return record
    cost = record.usage.model_copy(
        update={"cost_usd": usage.cost_usd, "cost_source": CAMPAIGN_COST}
    )
    return record.model_copy(update={"usage": cost})


def _from_top_level(outer: _CampaignRecord, stub: _Stub, where: str) -> ResultRecord:
    spec = RunSpec.model_validate(
        {
            "task": outer.task,
            "condition": outer.condition,
            "schema": outer.schema_name,
            "agent": outer.agent,
            "model": outer.model,
            "reasoning": outer.reasoning,
            "trial": outer.trial,
        }
    )
    tokens = outer.token_usage
    sandbox = stub.sandbox
    return ResultRecord(
        run_id=outer.run_id,
        attempt=outer.attempt,
        identity=spec,
        simulated=stub.simulated,
        source=NOT_RECORDED,
        versions=Versions(m4bench=NOT_RECORDED, python=NOT_RECORDED, duckdb=NOT_RECORDED),
        sandbox=SandboxRecord(
            backend=str(sandbox.get("backend", NOT_RECORDED)),
            isolated=False,
            limits={},
            returncode=sandbox.get("returncode"),
            timed_out=bool(sandbox.get("timed_out", False)),
            killed=bool(sandbox.get("killed", False)),
        ),
        status=_status(outer, where),
        timings=Timings(agent=outer.elapsed_seconds, total=outer.elapsed_seconds),
        usage=Usage(
            input_uncached=max(tokens.input_tokens - tokens.cached_input_tokens, 0),
            input_cache_read=tokens.cached_input_tokens,
            output=tokens.output_tokens,
            cost_usd=tokens.cost_usd,
            cost_source=CAMPAIGN_COST,
        ),
        reward=outer.reward or 0.0,  # a format-1 run without a reward scored nothing
        publishable=outer.publishable,
        publishable_reason=stub.publishable_reason,
    )


def _status(outer: _CampaignRecord, where: str) -> Status:
    if outer.status == "done":
        return "ok"
    for status in STATUSES:
        if status == outer.failure_reason:
            return status
    raise M4BenchError(
        f"{where}: field 'failure_reason': {outer.failure_reason!r} is no run status "
        f"({', '.join(STATUSES)})",
        hint="the record was written by a run function of your own; give it one of "
        "these statuses, or move the run out of the results folder",
    )
