"""The result record: everything known about one run, whatever happened.

One model for every producer: the runner (``m4bench run``, a campaign's real runs) and
a campaign's simulated runs (``simulated`` true) write it, and every reader (campaign
status and budgets, the analysis, the evidence audit) reads it. Format 2; format-1
records are read through :mod:`m4bench.results.legacy`.

A record whose status is ``harness_error``, ``interrupted`` or one of the infrastructure
outcomes (:data:`INFRASTRUCTURE`: the model provider or its endpoint failed) is not
complete: the run did not happen as the model's, and a campaign runs it again.
:func:`owner` says whose each outcome is.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from m4bench.agents.outcome import INFRA_KINDS, InfraKind
from m4bench.agents.usage import Usage
from m4bench.results.identity import RunSpec
from m4bench.results.verdicts import CanaryVerdict, EgressVerdict, LintVerdict, TraceVerdict
from m4bench.scoring import Score

RESULT_FORMAT_VERSION: Literal[2] = 2

Status = Literal[
    "ok",
    "timeout",
    "nonzero_exit",
    "no_output",
    "sandbox_violation",
    "egress_violation",
    "harness_error",
    "interrupted",
    "rate_limited",
    "provider_error",
    "auth_error",
    "quota_exhausted",
    "endpoint_unreachable",
]
STATUSES: tuple[Status, ...] = get_args(Status)
INFRASTRUCTURE: frozenset[Status] = frozenset(INFRA_KINDS)
"""The infrastructure outcomes (see :mod:`m4bench.agents.outcome`): the model provider
or its endpoint failed (rate limit, 5xx, refused credentials, exhausted quota, no
connection). Never scored as the model's answer."""
UNFINISHED: frozenset[Status] = frozenset({"harness_error", "interrupted", *INFRASTRUCTURE})
"""Statuses of a run that did not happen: the harness, the sandbox, the model provider or
its endpoint failed, or the user stopped it. Such a run is not complete and is retried."""

Owner = Literal["model", "agent", "infrastructure"]
_AGENT_OWNED: frozenset[Status] = frozenset(
    {"timeout", "nonzero_exit", "no_output", "sandbox_violation", "egress_violation"}
)


def owner(status: Status) -> Owner:
    """Whose an outcome is: ``model`` (it answered: ``ok``), ``agent`` (it timed out,
    failed, wrote nothing, or broke the sandbox's rules: scored by the reward rule) or
    ``infrastructure`` (the harness, the provider or the user ended the run: not a
    complete run, retried, never scored)."""
    if status == "ok":
        return "model"
    if status in _AGENT_OWNED:
        return "agent"
    if status in UNFINISHED:
        return "infrastructure"
    raise ValueError(f"{status!r} is no run status ({', '.join(STATUSES)})")


def infra_kind(status: Status) -> InfraKind | None:
    """The infrastructure kind a status is, if it is one of :data:`INFRASTRUCTURE`."""
    return next((kind for kind in INFRA_KINDS if kind == status), None)


class Versions(BaseModel):
    m4bench: str
    python: str
    duckdb: str
    agent: str | None = Field(default=None, description="the agent's own version, if known")
    models_reported: list[str] = Field(
        default_factory=list, description="model strings as the agent's trace reports them"
    )


class SkillRecord(BaseModel):
    folder: str
    origin: str
    sha256: str


class SandboxRecord(BaseModel):
    backend: str
    isolated: bool
    limits: dict[str, int | None]
    returncode: int | None = None
    timed_out: bool = False
    killed: bool = False
    canary: CanaryVerdict | None = None
    egress: EgressVerdict | None = None
    lint: LintVerdict | None = None
    limit_exceeded: str | None = Field(
        default=None, description="the sandbox-wide limit the agent went past (it was stopped)"
    )


class Timings(BaseModel):
    """Seconds per phase; ``harness`` is everything but the agent."""

    prepare: float = 0.0
    canary: float = 0.0
    agent: float = 0.0
    score: float = 0.0
    finish: float = 0.0
    total: float = 0.0
    harness: float = 0.0
    timeout: float = 0.0


class GroundTruthRecord(BaseModel):
    """The ground truth a run's output was scored against, from its provisioning
    manifest: two runs compare only when these agree."""

    key: str = Field(description="its name in the source; tasks sharing a reference share it")
    sha256: str = Field(description="of the truth's Parquet file")
    rows: int = Field(ge=0)
    source_fingerprint: str = Field(description="the data the truth was computed from")


class Artifact(BaseModel):
    path: str = Field(description="relative to the folder of the runner's files of the run")
    sha256: str
    bytes: int
    truncated_lines: int = Field(
        default=0,
        ge=0,
        description="lines of the agent's log cut at the line cap or dropped past the "
        "size cap when it was stored (m4bench.runner.contamination.LogLimits)",
    )


class ResultRecord(BaseModel):
    """Everything known about one run."""

    model_config = ConfigDict(extra="forbid")

    format_version: Literal[2] = RESULT_FORMAT_VERSION
    run_id: str
    attempt: int = Field(ge=1, description="which start of the run, as its producer counts")
    identity: RunSpec
    simulated: bool = Field(
        default=False, description="a rehearsal (campaign run --simulate): no agent ran"
    )
    source: str
    versions: Versions
    skills: list[SkillRecord] = Field(default_factory=list)
    sandbox: SandboxRecord
    status: Status
    status_detail: str = ""
    timings: Timings = Field(default_factory=Timings)
    usage: Usage = Field(default_factory=Usage)
    score: Score | None = None
    ground_truth: GroundTruthRecord | None = Field(
        default=None,
        description="what the score was computed against; None when the output was not "
        "scored or the truth has no manifest",
    )
    reward: float = Field(ge=0.0, le=1.0, default=0.0, description="see m4bench.results.reward")
    publishable: bool = False
    publishable_reason: str = ""
    trace: TraceVerdict | None = Field(
        default=None, description="whether the agent's trace was believed about tokens"
    )
    artifacts: dict[str, Artifact] = Field(default_factory=dict)
    error: str | None = None
    retry_after: float | None = Field(
        default=None,
        ge=0,
        description="seconds the provider asked to wait before trying again (its "
        "Retry-After), for an infrastructure outcome whose provider said so",
    )

    @property
    def complete(self) -> bool:
        """The run happened (its status is not one of :data:`UNFINISHED`)."""
        return self.status not in UNFINISHED

    @property
    def owner(self) -> Owner:
        """Whose the run's outcome is (see :func:`owner`)."""
        return owner(self.status)

    @property
    def failure_reason(self) -> str | None:
        """The status when the agent failed (or the run did not happen); None when ok."""
        return None if self.status == "ok" else self.status
