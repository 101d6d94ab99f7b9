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
from pathlib import Path
from typing import Any

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
