"""The harness's verdicts on a run's isolation, as its result record keeps them.

Each is decided outside the agent's reach (see :mod:`m4bench.runner`): the filesystem
canary before the agent starts, the egress log of the proxy, the contamination lint of
the workdir after the agent stops.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class CanaryVerdict(BaseModel):
    """What the canary probed and what it could see."""

    ran: bool
    passed: bool
    enforced: bool
    probed: list[str] = Field(default_factory=list)
    visible: list[str] = Field(default_factory=list)
    detail: str = ""


class EgressVerdict(BaseModel):
    """The connections the egress proxy logged, and those it refused."""

    network: str
    allowed_endpoints: list[str]
    connections: int = 0
    refused: int = 0
    refused_sample: list[str] = Field(default_factory=list)


class LintFinding(BaseModel):
    path: str = Field(description="relative to the workdir")
    kind: str
    detail: str


class LintVerdict(BaseModel):
    """The contamination lint of the workdir: files read, and what they held. The lint
    reads within caps (``caps``); a walk stopped by them fails it (``complete`` false)."""

    passed: bool
    files: int
    bytes: int
    findings: list[LintFinding] = Field(default_factory=list)
    skipped: int = Field(
        default=0, description="entries not read: links, FIFOs, sockets, devices, unreadable"
    )
    truncated: int = Field(default=0, description="files read only up to the per-file cap")
    complete: bool = Field(default=True, description="false: the walk stopped at a cap")
    caps: str = Field(default="", description="the caps the lint read within")


class TraceVerdict(BaseModel):
    """Whether the agent's trace can be believed about tokens, and where the record's
    token counts come from.

    The trace is the agent's own output (a tool of the same user id can write into it);
    where the egress proxy read the provider's plain-HTTP responses, their ``usage`` is
    the count the record keeps. A suspect trace makes the run unpublishable, and a
    budget counts ``token_allowance`` for it (the worst case).
    """

    suspect: bool = False
    reasons: list[str] = Field(default_factory=list)
    usage_source: str = Field(
        default="trace", description="'trace', or 'egress proxy' (the provider's responses)"
    )
    trace_tokens: int = Field(default=0, description="every token the trace reports")
    observed_tokens: int | None = Field(
        default=None, description="every token the proxy read in responses; None: it saw none"
    )
    token_allowance: int | None = Field(
        default=None, description="the run's token allowance: what a budget counts if suspect"
    )
