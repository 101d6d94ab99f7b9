"""OpenAI Codex CLI (``codex exec --json``).

``CODEX_HOME`` is ``<workdir>/.codex`` and skills go to ``.codex/skills``. Web search
is disabled and Codex's own sandbox and approvals are bypassed, because the m4bench
sandbox wraps it (nested user namespaces are disabled there anyway). Only
``OPENAI_API_KEY`` / ``CODEX_API_KEY`` are passed.

Token accounting: ``turn.completed.usage.input_tokens`` already includes
``cached_input_tokens``; uncached input is the difference, so the buckets stay
disjoint.
"""

from __future__ import annotations

from datetime import datetime
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
    step_metrics,
    with_instruction,
)
from m4bench.agents.outcome import (
    InfraFailure,
    classify_lines,
    classify_message,
    infra_failure,
    text_tail,
)
from m4bench.agents.usage import Usage


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    total_input = as_int(raw.get("input_tokens"))
    cached = min(as_int(raw.get("cached_input_tokens")), total_input)
    return Usage(
        input_uncached=total_input - cached,
        input_cache_read=cached,
        output=as_int(raw.get("output_tokens")),
    )


class CodexAdapter(CliAdapter):
    name = "codex"
    credential_env: tuple[str, ...] = ("OPENAI_API_KEY", "CODEX_API_KEY")
    skills_subdir = ".codex/skills"

    def command(self, ctx: AgentContext) -> list[str]:
        argv = ["codex", "exec", "--json", "--skip-git-repo-check"]
        argv += ["--dangerously-bypass-approvals-and-sandbox"]
        argv += ["-c", 'web_search="disabled"', "-c", "tools.web_search=false"]
        if ctx.model:
            argv += ["-m", ctx.model]
        if ctx.reasoning_effort:
            argv += ["-c", f'model_reasoning_effort="{ctx.reasoning_effort}"']
        return with_instruction([*argv, "-C", str(ctx.workdir), "--"], ctx.instruction_path)

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        env = self.base_environment(ctx)
        env["CODEX_HOME"] = str(ctx.workdir / ".codex")
        if ctx.endpoint:
            env["OPENAI_BASE_URL"] = ctx.endpoint
        return env

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]:
        return ("api.openai.com:443",)

    def parse_trace(self, path: Path) -> TraceSummary:
        events, bad = read_jsonl(path)
        summary = TraceSummary(agent=self.name, unparsed_lines=bad)
        models: set[str] = set()
        for event in events:
            kind = event.get("type")
            if isinstance(event.get("model"), str):
                models.add(event["model"])
            if kind == "turn.completed":
                summary.usage.turns += 1
                summary.usage = summary.usage.plus(_usage(event.get("usage")))
            elif kind in ("turn.failed", "error"):
                summary.errors.append(_error_text(event))
            elif kind == "item.completed":
                item = event.get("item") or {}
                item_type = item.get("type")
                if item_type in ("command_execution", "file_change", "mcp_tool_call"):
                    summary.usage.tool_calls += 1
                elif item_type == "web_search":
                    summary.usage.tool_calls += 1
                    summary.web_tool_uses += 1
        summary.model_strings = sorted(models)
        return summary

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        events, _ = read_jsonl(path)
        builder = StepBuilder()
        session = None
        turn_start = 0
        for event in events:
            kind = event.get("type")
            if kind == "thread.started":
                session = event.get("thread_id")
            elif kind == "turn.started":
                turn_start = len(builder.drafts)
            elif kind == "item.completed":
                _item_step(builder, event.get("item") or {}, event_time(event.get("timestamp")))
            elif kind == "turn.completed" and len(builder.drafts) > turn_start:
                builder.drafts[-1].metrics = step_metrics(_usage(event.get("usage")))
        summary = self.parse_trace(path)
        model = summary.model_strings[0] if summary.model_strings else None
        return assemble(
            builder.steps(),
            agent=Agent(name=self.name, version=UNKNOWN_VERSION, model_name=model),
            context=context or TrajectoryContext(),
            totals=final_metrics(summary),
            session_id=session if isinstance(session, str) else None,
        )

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        """A run Codex ended on a failed model request: its last turn failed (``turn.failed``
        or a fatal ``error`` event) with the provider's words ("exceeded retry limit, last
        status: 429 Too Many Requests", "unexpected status 401 Unauthorized", "Quota
        exceeded", "stream disconnected before completion"). A completed last turn, or a
        request the API refused as malformed (400, context window exceeded, model not
        found), is the agent's end. Without any event (the CLI died at start), its
        standard error says why."""
        events = read_jsonl(trace)[0] if trace.is_file() else []
        words = _final_failure(events)
        if words is None:
            if returncode == 0 or any(e.get("type") == "turn.completed" for e in events):
                return None
            found = classify_lines(text_tail(stderr))
            return infra_failure(found[0], found[1], ctx.credentials.values()) if found else None
        kind = classify_message(words)
        return infra_failure(kind, words, ctx.credentials.values()) if kind else None


def _final_failure(events: list[dict[str, Any]]) -> str | None:
    """The words of the failure the run ended on: the last ``turn.failed`` (or fatal
    ``error``) with no completed turn after it. Codex also reports the retries it makes
    as ``error`` events ("Reconnecting... 2/5"); a turn that then completes clears them."""
    failure: str | None = None
    for event in events:
        kind = event.get("type")
        if kind in ("turn.failed", "error"):
            failure = _error_text(event)
        elif kind == "turn.completed":
            failure = None
    return failure


def _error_text(event: dict[str, Any]) -> str:
    error = event.get("error")
    if isinstance(error, dict):
        return str(error.get("message", error))
    return str(event.get("message", error or event.get("type")))


def _item_step(builder: StepBuilder, item: dict[str, Any], at: datetime | None) -> None:
    item_type = item.get("type")
    item_id = str(item.get("id", len(builder.drafts)))
    if item_type == "agent_message":
        builder.add("agent", message=str(item.get("text", "")), at=at)
    elif item_type == "reasoning":
        builder.add("agent", reasoning=str(item.get("text", "")), at=at)
    elif item_type == "command_execution":
        call = ToolCall(
            tool_call_id=item_id,
            function_name="shell",
            arguments={"command": item.get("command", "")},
        )
        builder.add("agent", calls=[call], at=at)
        builder.observe(item_id, str(item.get("aggregated_output", "")))
    elif item_type in ("file_change", "mcp_tool_call", "web_search"):
        arguments = {k: v for k, v in item.items() if k not in ("id", "type")}
        call = ToolCall(tool_call_id=item_id, function_name=str(item_type), arguments=arguments)
        builder.add("agent", calls=[call], at=at)
