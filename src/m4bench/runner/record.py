"""The result record: ``<results>/<run_id>/result.json``, one per run, whatever happened.

Written atomically by the harness, outside the agent's workdir, after everything else;
its presence with valid content and a status other than ``harness_error`` or
``interrupted`` is what "complete" means (:func:`is_complete`). Versioned: a reader
refuses a format it does not know.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, write_model
from m4bench.runner.canary import CanaryVerdict
from m4bench.runner.contamination import LintVerdict
from m4bench.runner.identity import RunSpec
from m4bench.runner.workdir import RESULT_FILE
from m4bench.scoring import Score

RESULT_FORMAT_VERSION: Literal[1] = 1

Status = Literal[
    "ok",
    "timeout",
    "nonzero_exit",
    "no_output",
    "sandbox_violation",
    "egress_violation",
    "harness_error",
    "interrupted",
]
STATUSES: tuple[Status, ...] = (
    "ok",
    "timeout",
    "nonzero_exit",
    "no_output",
    "sandbox_violation",
    "egress_violation",
    "harness_error",
    "interrupted",
)
# Statuses of a run that did not happen: the harness, the sandbox or the model endpoint
# failed, or the user stopped it. Such a run is not complete and is retried.
UNFINISHED: frozenset[Status] = frozenset({"harness_error", "interrupted"})


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


class EgressVerdict(BaseModel):
    network: str
    allowed_endpoints: list[str]
    connections: int = 0
    refused: int = 0
    refused_sample: list[str] = Field(default_factory=list)


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


class UsageRecord(BaseModel):
    """Disjoint token buckets (no token counted twice) and cost as the trace reports it."""

    input_uncached: int = 0
    input_cache_read: int = 0
    input_cache_write: int = 0
    output: int = 0
    turns: int = 0
    tool_calls: int = 0
    cost_usd: float | None = None
    cost_source: str = "not reported"


class GroundTruthRecord(BaseModel):
    """The ground truth a run's output was scored against, from its provisioning
    manifest: two runs compare only when these agree."""

    key: str = Field(description="its name in the source; tasks sharing a reference share it")
    sha256: str = Field(description="of the truth's Parquet file")
    rows: int = Field(ge=0)
    source_fingerprint: str = Field(description="the data the truth was computed from")


class Artifact(BaseModel):
    path: str = Field(description="relative to the run's directory")
    sha256: str
    bytes: int


class ResultRecord(BaseModel):
    """Everything known about one run."""

    model_config = ConfigDict(extra="forbid")

    format_version: Literal[1] = RESULT_FORMAT_VERSION
    run_id: str
    attempt: int = Field(ge=1)
    identity: RunSpec
    source: str
    versions: Versions
    skills: list[SkillRecord] = Field(default_factory=list)
    sandbox: SandboxRecord
    status: Status
    status_detail: str = ""
    timings: Timings = Field(default_factory=Timings)
    usage: UsageRecord = Field(default_factory=UsageRecord)
    score: Score | None = None
    ground_truth: GroundTruthRecord | None = Field(
        default=None,
        description="what the score was computed against; None when the output was not "
        "scored or the truth has no manifest",
    )
    reward: float = Field(ge=0.0, le=1.0, default=0.0)
    publishable: bool = False
    publishable_reason: str = ""
    artifacts: dict[str, Artifact] = Field(default_factory=dict)
    error: str | None = None


def write_result(run_dir: Path, record: ResultRecord) -> Path:
    path = run_dir / RESULT_FILE
    write_model(path, record)
    return path


def load_result(path: Path) -> ResultRecord:
    """A ``result.json`` (or the run directory holding it), validated."""
    target = path / RESULT_FILE if path.is_dir() else path
    if not target.exists():
        raise M4BenchError(f"{target}: no result record", hint="the run has not finished")
    return read_model(target, ResultRecord)


def is_complete(result_dir: Path) -> bool:
    """True when the run directory holds a valid record of a run the harness finished
    (a ``harness_error`` or ``interrupted`` record counts as incomplete, so the run may
    be retried)."""
    try:
        record = load_result(result_dir)
    except (M4BenchError, ValueError, OSError):
        return False
    return record.status not in UNFINISHED
