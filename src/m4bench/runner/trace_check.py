"""The run's token counts: the agent's trace, checked, or the provider's own responses.

The trace is written by the agent (and by anything of its user id that writes into
it), so the runner does not take its counts on trust. :func:`check_trace` audits the
stored trace (:mod:`m4bench.agents.trace_audit`) and compares it with what the egress
proxy read in the provider's plain-HTTP responses (:class:`m4bench.sandbox.observed`):

* When the proxy read every response (no TLS tunnel, nothing unreadable), the
  provider's counts are the record's (``usage_source: "egress proxy"``) and its model
  names replace the trace's.
* A trace that reports fewer tokens than the proxy saw, or names a model no response
  named, is suspect, as is a trace the audit finds malformed, negative or
  inconsistent, and a run with a plain-HTTP response the proxy could not read (an
  unknown encoding, past the capture cap). A suspect run is unpublishable, and a
  budget counts its allowance.
"""

from __future__ import annotations

from pathlib import Path

from m4bench.agents.base import TraceSummary
from m4bench.agents.trace_audit import audit_trace
from m4bench.agents.usage import Usage
from m4bench.results.verdicts import TraceVerdict
from m4bench.sandbox.observed import ObservedUsage

SUSPECT_REASON = "the agent's trace is suspect: {reason}"


def observed_tokens(seen: ObservedUsage) -> Usage:
    """The proxy's counts as the usage model's disjoint buckets."""
    cached = min(seen.cached_tokens, seen.prompt_tokens)
    return Usage(
        input_uncached=seen.prompt_tokens - cached,
        input_cache_read=cached,
        output=seen.completion_tokens,
    )


def check_trace(
    agent: str,
    trace: Path,
    summary: TraceSummary,
    observed: ObservedUsage | None,
    allowance: int,
) -> tuple[TraceSummary, TraceVerdict]:
    """The summary the record keeps (its tokens and models from the proxy when it read
    every response) and the verdict on the trace."""
    reasons = audit_trace(agent, trace, summary) if trace.is_file() else []
    claimed = summary.usage.total_tokens
    kept = summary
    if observed is not None and observed.responses:
        seen = observed_tokens(observed)
        if claimed < seen.total_tokens:
            reasons.append(
                f"it reports {claimed} tokens, the provider's responses counted {seen.total_tokens}"
            )
        unseen = sorted(set(summary.model_strings) - set(observed.models))
        if observed.complete and observed.models and unseen:
            reasons.append(f"it names model(s) no response named: {', '.join(unseen)}")
        if observed.complete:
            kept = summary.model_copy(
                update={
                    "usage": summary.usage.with_tokens_of(seen),
                    "model_strings": observed.models or summary.model_strings,
                }
            )
    if observed is not None and observed.unreadable:
        reasons.append(f"the proxy could not read {observed.unreadable} response(s)")
    verdict = TraceVerdict(
        suspect=bool(reasons),
        reasons=reasons,
        usage_source="egress proxy" if kept is not summary else "trace",
        trace_tokens=claimed,
        observed_tokens=None if observed is None else observed_tokens(observed).total_tokens,
        token_allowance=allowance,
    )
    return kept, verdict


def suspect_reason(verdict: TraceVerdict) -> str:
    """The record's ``publishable_reason`` for a suspect trace."""
    return SUSPECT_REASON.format(reason=verdict.reasons[0] if verdict.reasons else "unknown")
