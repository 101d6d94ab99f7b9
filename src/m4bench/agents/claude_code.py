"""Claude Code (``claude -p ... --output-format stream-json``).

Skills go to ``<workdir>/.claude/skills`` (project skills); ``CLAUDE_CONFIG_DIR`` is
the same ``.claude`` directory so session files stay with the run. Its own web tools
are disallowed, and its permission prompts are bypassed because the m4bench sandbox
wraps it. Only ``ANTHROPIC_API_KEY`` is passed.

Token accounting: the final ``result`` event carries the session totals; when present
it is the only source (summing it with the per-message usage would count every token
twice). Without it, usage is summed once per assistant message id (Claude Code repeats
a message's usage on every content block of that message). Cache reads and cache
writes are separate buckets, disjoint from uncached input.
"""

from __future__ import annotations

import json
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
from m4bench.agents.atif_steps import DraftStep, StepBuilder
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
    InfraKind,
    classify_lines,
    classify_message,
    infra_failure,
    text_tail,
)
from m4bench.agents.usage import Usage

WEB_TOOLS = ("WebFetch", "WebSearch")
ALLOWED_TOOLS = ("Bash", "Read", "Write", "Edit", "Glob", "Grep", "Skill")


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_uncached=as_int(raw.get("input_tokens")),
        input_cache_read=as_int(raw.get("cache_read_input_tokens")),
        input_cache_write=as_int(raw.get("cache_creation_input_tokens")),
        output=as_int(raw.get("output_tokens")),
    )


class ClaudeCodeAdapter(CliAdapter):
    name = "claude-code"
    credential_env: tuple[str, ...] = ("ANTHROPIC_API_KEY",)
    skills_subdir = ".claude/skills"

    def command(self, ctx: AgentContext) -> list[str]:
        argv = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
        argv += ["--permission-mode", "bypassPermissions"]
        argv += ["--allowedTools", ",".join(ALLOWED_TOOLS)]
        argv += ["--disallowedTools", ",".join(WEB_TOOLS)]
        if ctx.model:
            argv += ["--model", ctx.model]
        if ctx.reasoning_effort:
            argv += ["--effort", ctx.reasoning_effort]
        return with_instruction([*argv, "--"], ctx.instruction_path)

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        env = self.base_environment(ctx)
        env["CLAUDE_CONFIG_DIR"] = str(ctx.workdir / ".claude")
        env["DISABLE_AUTOUPDATER"] = "1"
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        if ctx.endpoint:
            env["ANTHROPIC_BASE_URL"] = ctx.endpoint
        return env

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]:
        return ("api.anthropic.com:443",)

    def parse_trace(self, path: Path) -> TraceSummary:
        events, bad = read_jsonl(path)
        summary = TraceSummary(agent=self.name, unparsed_lines=bad)
        per_message: dict[str, Usage] = {}
        models: set[str] = set()
        tool_ids: set[str] = set()
        final: dict[str, Any] | None = None
        for index, event in enumerate(events):
            kind = event.get("type")
            if kind == "system" and isinstance(event.get("model"), str):
                models.add(event["model"])
            elif kind == "assistant":
                message = event.get("message") or {}
                if isinstance(message.get("model"), str):
                    models.add(message["model"])
                message_id = str(message.get("id") or f"#{index}")
                per_message[message_id] = _usage(message.get("usage"))
                for block in _blocks(message):
                    if block.get("type") == "tool_use":
                        tool_ids.add(str(block.get("id")))
                        if block.get("name") in WEB_TOOLS:
                            summary.web_tool_uses += 1
            elif kind == "result":
                final = event
        summary.model_strings = sorted(models)
        total = Usage()
        for usage in per_message.values():
            total = total.plus(usage)
        summary.usage = total.model_copy(
            update={"turns": len(per_message), "tool_calls": len(tool_ids)}
        )
        if final is not None:
            _apply_result(summary, final)
        return summary

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        events, _ = read_jsonl(path)
        builder = StepBuilder()
        seen: dict[str, DraftStep] = {}
        init: dict[str, Any] = {}
        for event in events:
            kind = event.get("type")
            if kind == "system" and event.get("subtype", "init") == "init":
                init = event
            elif kind == "assistant":
                message = event.get("message") or {}
                _assistant_step(builder, message, seen, event_time(event.get("timestamp")))
            elif kind == "user":
                for block in _blocks(event.get("message") or {}):
                    if block.get("type") == "tool_result":
                        builder.observe(str(block.get("tool_use_id")), _text(block.get("content")))
        version = init.get("claude_code_version")
        agent = Agent(
            name=self.name,
            version=version if isinstance(version, str) and version else UNKNOWN_VERSION,
            model_name=init.get("model") if isinstance(init.get("model"), str) else None,
        )
        session = init.get("session_id")
        return assemble(
            builder.steps(),
            agent=agent,
            context=context or TrajectoryContext(),
            totals=final_metrics(self.parse_trace(path)),
            session_id=session if isinstance(session, str) else None,
        )

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        """A run Claude Code ended on a failed API call: its ``result`` event is an error
        whose text is the API's (``API Error: 429 {...}``, "Invalid API key · Please run
        /login", "Credit balance is too low"), and the assistant message it made of the
        failure names Claude Code's own category (``rate_limit``, ``authentication_failed``,
        ...). A successful result, a turn or budget limit, or a request the API refused as
        malformed (400, prompt too long) is the agent's end, not the provider's. Without a
        result event (the CLI died), its standard error says why."""
        events = read_jsonl(trace)[0] if trace.is_file() else []
        final = next((e for e in reversed(events) if e.get("type") == "result"), None)
        if final is not None and not _is_error(final):
            return None
        category, words = _api_error(events)
        if final is not None:
            if str(final.get("subtype", "")) in _OWN_LIMITS:
                return None
            result = final.get("result")
            words = result if isinstance(result, str) and result.strip() else words
        elif returncode == 0:
            return None
        if not words.strip():
            found = classify_lines(text_tail(stderr))
            return infra_failure(found[0], found[1], ctx.credentials.values()) if found else None
        kind = _kind_of(category, words)
        return infra_failure(kind, words, ctx.credentials.values()) if kind else None


# Claude Code's category of a failed API call (the ``error`` of the assistant message
# it makes of the failure); None: the request's own fault.
_CATEGORIES: dict[str, InfraKind | None] = {
    "authentication_failed": "auth_error",
    "oauth_org_not_allowed": "auth_error",
    "cloud_credential_error": "auth_error",
    "invalid_grant": "auth_error",
    "billing_error": "quota_exhausted",
    "rate_limit": "rate_limited",
    "overloaded": "provider_error",
    "server_error": "provider_error",
    "invalid_request": None,
    "max_output_tokens": None,
}
_OWN_LIMITS = frozenset(
    {"error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"}
)


def _is_error(final: dict[str, Any]) -> bool:
    return bool(final.get("is_error")) or final.get("subtype", "success") != "success"


def _api_error(events: list[dict[str, Any]]) -> tuple[str | None, str]:
    """The category and text of the last assistant message when it stands for a failed
    API call (Claude Code marks it with ``error`` or an ``API Error`` text); an answer
    of the model after a failed call means that failure did not end the run."""
    last = next((e for e in reversed(events) if e.get("type") == "assistant"), None)
    if last is None:
        return None, ""
    message = last.get("message") or {}
    text = "\n".join(str(b.get("text", "")) for b in _blocks(message) if b.get("type") == "text")
    category = last.get("error")
    if isinstance(category, str) and category:
        return category, text
    if last.get("isApiErrorMessage") or text.lstrip().startswith("API Error"):
        return None, text
    return None, ""


def _kind_of(category: str | None, words: str) -> InfraKind | None:
    said = classify_message(words)
    if category in _CATEGORIES:
        kind = _CATEGORIES[category]
        return "quota_exhausted" if kind is not None and said == "quota_exhausted" else kind
    return said


def _apply_result(summary: TraceSummary, final: dict[str, Any]) -> None:
    if isinstance(final.get("usage"), dict):
        summary.usage = summary.usage.with_tokens_of(_usage(final["usage"]))
    cost = final.get("total_cost_usd", final.get("cost_usd"))
    if isinstance(cost, int | float):
        summary.usage.cost_usd = float(cost)
        summary.usage.cost_source = "reported by the agent"
    if as_int(final.get("num_turns")):
        summary.usage.turns = as_int(final.get("num_turns"))
    if final.get("is_error") or final.get("subtype", "success") != "success":
        summary.errors.append(str(final.get("subtype") or final.get("result") or "error"))


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(part.get("text", "")) for part in content if isinstance(part, dict))
    return json.dumps(content)


def _assistant_step(
    builder: StepBuilder,
    message: dict[str, Any],
    seen: dict[str, DraftStep],
    at: datetime | None,
) -> None:
    blocks = _blocks(message)
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    thinking = [str(b.get("thinking", "")) for b in blocks if b.get("type") == "thinking"]
    calls = [
        ToolCall(
            tool_call_id=str(b.get("id")),
            function_name=str(b.get("name")),
            arguments=b.get("input") if isinstance(b.get("input"), dict) else {},
        )
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    message_id = str(message.get("id", ""))
    if message_id and message_id in seen:
        draft = seen[message_id]
        draft.message = "\n".join(filter(None, [draft.message, *texts]))
        draft.reasoning = "\n".join(filter(None, [draft.reasoning, *thinking])) or None
        builder.attach_calls(draft, calls)
        return
    model = message.get("model")
    draft = builder.add(
        "agent",
        model_name=model if isinstance(model, str) else None,
        message="\n".join(texts),
        reasoning="\n".join(thinking) or None,
        calls=calls,
        metrics=step_metrics(_usage(message.get("usage"))),
        at=at,
    )
    if message_id:
        seen[message_id] = draft
