"""Gemini CLI (``gemini -p ... --output-format stream-json``).

Skills go to ``<workdir>/.gemini/skills``; ``prepare`` writes the workspace
``.gemini/settings.json`` that excludes the web tools (``google_web_search``,
``web_fetch``), turns telemetry and auto-update off and selects API-key auth. Approvals
are skipped (``--approval-mode yolo``) because the m4bench sandbox wraps it. Only
``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` are passed.

Token accounting: the final ``result`` event's ``stats`` hold the totals; Gemini's
input count includes cached input, so uncached input is the difference.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from m4bench.agents.atif import (
    UNKNOWN_VERSION,
    Agent,
    ToolCall,
    Trajectory,
    TrajectoryContext,
    assemble,
    event_time,
)
from m4bench.agents.atif_steps import StepBuilder
from m4bench.agents.base import (
    AgentContext,
    CliAdapter,
    TraceSummary,
    as_int,
    final_metrics,
    read_jsonl,
    with_instruction,
)
from m4bench.agents.outcome import (
    InfraFailure,
    InfraKind,
    classify_lines,
    classify_message,
    infra_failure,
    text_tail,
)
from m4bench.agents.usage import Usage
from m4bench.fileio import atomic_write_text

WEB_TOOLS = ("google_web_search", "web_fetch")

SETTINGS: dict[str, Any] = {
    "tools": {"exclude": list(WEB_TOOLS)},
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"disableAutoUpdate": True},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
    "experimental": {"skills": True},
}


def _usage(stats: Any) -> Usage:
    if not isinstance(stats, dict):
        return Usage()
    total_input = as_int(stats.get("input_tokens", stats.get("input")))
    cached = as_int(stats.get("cached", stats.get("cached_input_tokens")))
    cached = min(cached, total_input)
    return Usage(
        input_uncached=total_input - cached,
        input_cache_read=cached,
        output=as_int(stats.get("output_tokens", stats.get("output"))),
    )


class GeminiCliAdapter(CliAdapter):
    name = "gemini-cli"
    credential_env: tuple[str, ...] = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    skills_subdir = ".gemini/skills"

    def command(self, ctx: AgentContext) -> list[str]:
        argv = ["gemini", "--approval-mode", "yolo", "--output-format", "stream-json"]
        if ctx.model:
            argv += ["-m", ctx.model]
        return with_instruction([*argv, "-p"], ctx.instruction_path)

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        env = self.base_environment(ctx)
        if ctx.endpoint:
            env["GOOGLE_GEMINI_BASE_URL"] = ctx.endpoint
        return env

    def prepare(self, ctx: AgentContext, host_workdir: Path) -> None:
        super().prepare(ctx, host_workdir)
        text = json.dumps(SETTINGS, indent=2, sort_keys=True) + "\n"
        atomic_write_text(host_workdir / ".gemini" / "settings.json", text)

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]:
        return ("generativelanguage.googleapis.com:443",)

    def parse_trace(self, path: Path) -> TraceSummary:
        events, bad = read_jsonl(path)
        summary = TraceSummary(agent=self.name, unparsed_lines=bad)
        models: set[str] = set()
        previous = None
        for event in events:
            kind = event.get("type")
            speaking = kind == "message" and event.get("role") == "assistant"
            if speaking and previous != "assistant":
                summary.usage.turns += 1
            previous = "assistant" if speaking else kind
            if isinstance(event.get("model"), str):
                models.add(event["model"])
            if kind == "tool_use":
                summary.usage.tool_calls += 1
                if event.get("tool_name") in WEB_TOOLS:
                    summary.web_tool_uses += 1
            elif kind == "error":
                summary.errors.append(str(event.get("message", "error")))
            elif kind == "result":
                _apply_result(summary, event, models)
        summary.model_strings = sorted(models)
        return summary

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        events, _ = read_jsonl(path)
        builder = StepBuilder()
        init: dict[str, Any] = {}
        for event in events:
            kind = event.get("type")
            if kind == "init":
                init = event
            elif kind == "message":
                _message_step(builder, event)
            elif kind == "tool_use":
                params = event.get("parameters")
                call = ToolCall(
                    tool_call_id=str(event.get("tool_id")),
                    function_name=str(event.get("tool_name")),
                    arguments=params if isinstance(params, dict) else {},
                )
                builder.add("agent", calls=[call], at=event_time(event.get("timestamp")))
            elif kind == "tool_result":
                builder.observe(str(event.get("tool_id")), str(event.get("output", "")))
        model, session = init.get("model"), init.get("session_id")
        return assemble(
            builder.steps(),
            agent=Agent(
                name=self.name,
                version=UNKNOWN_VERSION,
                model_name=model if isinstance(model, str) else None,
            ),
            context=context or TrajectoryContext(),
            totals=final_metrics(self.parse_trace(path)),
            session_id=session if isinstance(session, str) else None,
        )

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        """A run Gemini CLI ended on a failed API call: its ``result`` event has status
        ``error`` and the API's words (``[API Error: ... (Status: RESOURCE_EXHAUSTED)]``,
        "API key not valid", ``PERMISSION_DENIED``, ``UNAVAILABLE``, a 5xx), or it exited
        41 (authentication). A per-minute quota is a rate limit, a per-day one exhausted
        quota. A successful result, its turn limit, a fatal tool error or a request the
        API refused as malformed is the agent's end."""
        events = read_jsonl(trace)[0] if trace.is_file() else []
        printed = text_tail(stderr)
        ending = _final_error(events, printed)
        if ending is None or (returncode == 0 and not ending.words):
            return None
        secrets = ctx.credentials.values()
        if returncode == EXIT_AUTH and ending.error_type not in _ERROR_TYPES:
            words = ending.words or printed.strip() or "authentication failed"
            return infra_failure("auth_error", words, secrets)
        if not ending.words.strip():
            found = classify_lines(printed)
            return infra_failure(found[0], found[1], secrets) if found else None
        kind = _gemini_kind(ending)
        return infra_failure(kind, ending.words, secrets) if kind else None


# Gemini CLI's own error classes (``error.type``) that say what failed; None: the
# agent's own end (its turn limit, its input, a fatal tool error, a cancellation).
_ERROR_TYPES: dict[str, InfraKind | None] = {
    "FatalAuthenticationError": "auth_error",
    "TerminalQuotaError": "quota_exhausted",
    "RetryableQuotaError": "rate_limited",
    "FatalTurnLimitedError": None,
    "FatalInputError": None,
    "FatalToolExecutionError": None,
    "FatalCancellationError": None,
    "FatalSandboxError": None,
    "FatalConfigError": None,
}
EXIT_AUTH = 41
"""Gemini CLI's exit status for an authentication it could not do."""
_PER_MINUTE = re.compile(r"per ?minute|retry in|retrydelay")
_PER_DAY = re.compile(r"per ?day")


class _Ending(NamedTuple):
    error_type: str | None
    words: str
    status: int | None = None


def _final_error(events: list[dict[str, Any]], stderr: str) -> _Ending | None:
    """The error type and words the run ended on: the ``result`` event's error, else (no
    result: the CLI died) its last ``error`` event, else the JSON error object it printed
    to standard error (with its ``code``). None when the result says success."""
    final = next((e for e in reversed(events) if e.get("type") == "result"), None)
    if final is not None:
        if final.get("status") in (None, "success"):
            return None
        return _ending(final.get("error"))
    for event in reversed(events):
        if event.get("type") == "error" and event.get("severity", "error") == "error":
            return _Ending(None, str(event.get("message", "")))
    start = stderr.find('{"error"')
    start = start if start >= 0 else stderr.find("{\n")
    try:
        printed = json.JSONDecoder().raw_decode(stderr[start:])[0] if start >= 0 else None
    except json.JSONDecodeError:
        printed = None
    return _ending(printed.get("error") if isinstance(printed, dict) else None)


def _ending(error: Any) -> _Ending:
    if not isinstance(error, dict):
        return _Ending(None, str(error or ""))
    kind, code = error.get("type"), error.get("code")
    status = code if isinstance(code, int) and 400 <= code <= 599 else None
    return _Ending(kind if isinstance(kind, str) else None, str(error.get("message", "")), status)


def _gemini_kind(ending: _Ending) -> InfraKind | None:
    if ending.error_type in _ERROR_TYPES:
        return _ERROR_TYPES[ending.error_type]
    kind = classify_message(ending.words, ending.status)
    lowered = ending.words.lower()
    if kind == "quota_exhausted" and _PER_MINUTE.search(lowered) and not _PER_DAY.search(lowered):
        return "rate_limited"  # a per-minute quota: Gemini's way of saying rate limit
    return kind


def _apply_result(summary: TraceSummary, event: dict[str, Any], models: set[str]) -> None:
    stats = event.get("stats") or {}
    summary.usage = summary.usage.with_tokens_of(_usage(stats))
    per_model = stats.get("models") if isinstance(stats, dict) else None
    if isinstance(per_model, dict):
        models.update(str(name) for name in per_model)
    if event.get("status") not in (None, "success"):
        error = event.get("error")
        summary.errors.append(str(error.get("message") if isinstance(error, dict) else error))


def _message_step(builder: StepBuilder, event: dict[str, Any]) -> None:
    text = str(event.get("content", ""))
    last = builder.drafts[-1] if builder.drafts else None
    if event.get("delta") and last is not None and last.source == "agent" and not last.calls:
        last.message += text
        return
    at = event_time(event.get("timestamp"))
    builder.add("agent" if event.get("role") == "assistant" else "user", message=text, at=at)
