"""mini-swe-agent (``mini -y -m MODEL -t TASK -o TRAJ --exit-immediately``).

Its only tool is a shell, so there is no web tool to disable; it runs its commands
directly (no inner sandbox). Models go through LiteLLM: ``--endpoint`` becomes
``OPENAI_API_BASE`` for OpenAI-compatible servers. The trajectory is written to
``<workdir>/.mini/trajectory.json``; skills go to ``.mini/skills`` and are named in
the instruction by the runner (mini has no skill loader).

Token accounting: usage is summed over the model responses stored with each
assistant message (OpenAI shape: ``prompt_tokens`` includes
``prompt_tokens_details.cached_tokens``); cost is the agent's own
``info.model_stats.instance_cost``.
"""

from __future__ import annotations

import json
import re
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
    endpoint_of,
    final_metrics,
    openai_usage,
    step_metrics,
    with_instruction,
)
from m4bench.agents.outcome import (
    InfraFailure,
    InfraKind,
    classify_message,
    infra_failure,
    text_tail,
)
from m4bench.errors import M4BenchError

TRAJECTORY = Path(".mini/trajectory.json")


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: trajectory not found", hint="did the agent start?") from exc
    except json.JSONDecodeError as exc:
        raise M4BenchError(
            f"{path}: not JSON (line {exc.lineno})", hint="the agent stopped mid-write"
        ) from exc
    if not isinstance(data, dict):
        raise M4BenchError(f"{path}: expected a JSON object at the top level")
    return data


def _messages(data: dict[str, Any]) -> list[dict[str, Any]]:
    messages = data.get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def _response(message: dict[str, Any]) -> dict[str, Any]:
    extra = message.get("extra")
    response = extra.get("response") if isinstance(extra, dict) else None
    return response if isinstance(response, dict) else {}


class MiniSweAgentAdapter(CliAdapter):
    name = "mini-swe-agent"
    credential_env: tuple[str, ...] = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")
    skills_subdir = ".mini/skills"

    def command(self, ctx: AgentContext) -> list[str]:
        argv = ["mini", "--yolo", "--exit-immediately"]
        if ctx.model:
            argv += ["--model", ctx.model]
        argv += ["--output", str(ctx.workdir / TRAJECTORY)]
        return with_instruction([*argv, "--task"], ctx.instruction_path)

    def environment(self, ctx: AgentContext) -> dict[str, str]:
        env = self.base_environment(ctx)
        env["MSWEA_CONFIGURED"] = "true"
        env["MSWEA_GLOBAL_CONFIG_DIR"] = str(ctx.workdir / ".mini")
        if ctx.endpoint:
            env["OPENAI_API_BASE"] = ctx.endpoint
        return env

    def trace_file(self, ctx: AgentContext) -> Path | None:
        return ctx.workdir / TRAJECTORY

    def default_endpoints(self, ctx: AgentContext) -> tuple[str, ...]:
        if ctx.endpoint:
            return (endpoint_of(ctx.endpoint),)
        return ("api.openai.com:443",)

    def parse_trace(self, path: Path) -> TraceSummary:
        data = _load(path)
        summary = TraceSummary(agent=self.name)
        models: set[str] = set()
        for message in _messages(data):
            if message.get("role") != "assistant":
                continue
            summary.usage.turns += 1
            response = _response(message)
            if isinstance(response.get("model"), str):
                models.add(response["model"])
            summary.usage = summary.usage.plus(openai_usage(response.get("usage")))
            summary.usage.tool_calls += len(message.get("tool_calls") or []) or 1
        info = data.get("info") if isinstance(data.get("info"), dict) else {}
        assert isinstance(info, dict)
        stats = info.get("model_stats")
        if isinstance(stats, dict) and isinstance(stats.get("instance_cost"), int | float):
            summary.usage.cost_usd = float(stats["instance_cost"])
            summary.usage.cost_source = "reported by the agent"
        configured = ((info.get("config") or {}).get("model") or {}).get("model_name")
        if not models and isinstance(configured, str):
            models.add(configured)
        exit_status = info.get("exit_status")
        if exit_status not in (None, "Submitted"):
            summary.errors.append(str(exit_status))
        summary.model_strings = sorted(models)
        return summary

    def to_atif(self, path: Path, context: TrajectoryContext | None = None) -> Trajectory:
        data = _load(path)
        builder = StepBuilder()
        for message in _messages(data):
            _message_step(builder, message)
        summary = self.parse_trace(path)
        info = data.get("info") if isinstance(data.get("info"), dict) else {}
        version = info.get("mini_version") if isinstance(info, dict) else None
        return assemble(
            builder.steps(),
            agent=Agent(
                name=self.name,
                version=version if isinstance(version, str) and version else UNKNOWN_VERSION,
                model_name=summary.model_strings[0] if summary.model_strings else None,
            ),
            context=context or TrajectoryContext(),
            totals=final_metrics(summary),
        )

    def infrastructure_failure(
        self, ctx: AgentContext, returncode: int | None, trace: Path, stderr: Path | None = None
    ) -> InfraFailure | None:
        """A run mini-swe-agent ended on a model call LiteLLM gave up on: the trajectory's
        exit status is the exception's class (``RateLimitError``, ``AuthenticationError``,
        ``ServiceUnavailableError``, ``InternalServerError``, ``APIConnectionError``) and
        its text the provider's words; without a trajectory, the traceback on standard
        error names it (``litellm.RateLimitError: ...``). ``Submitted``, its own limits,
        and a request the API refused as malformed (``BadRequestError``,
        ``ContextWindowExceededError``, ``NotFoundError``: a model that does not exist)
        are the agent's end."""
        status, words = _exit_of(_load_quietly(trace)) if trace.is_file() else (None, "")
        if status in _OWN_EXITS:
            return None
        if status is None:
            if returncode == 0:
                return None
            status, words = _raised(text_tail(stderr))
        kind = _mini_kind(status, words) if status else None
        return infra_failure(kind, words, ctx.credentials.values()) if kind else None


# LiteLLM's exception classes (what mini-swe-agent records as its exit status when a
# model call fails for good); None: the request's own fault.
_LITELLM: dict[str, InfraKind | None] = {
    "RateLimitError": "rate_limited",
    "AuthenticationError": "auth_error",
    "PermissionDeniedError": "auth_error",
    "ServiceUnavailableError": "provider_error",
    "InternalServerError": "provider_error",
    "BadGatewayError": "provider_error",
    "Timeout": "provider_error",
    "APITimeoutError": "provider_error",
    "APIConnectionError": "endpoint_unreachable",
    "NotFoundError": None,
    "BadRequestError": None,
    "ContextWindowExceededError": None,
    "UnsupportedParamsError": None,
    "UnprocessableEntityError": None,
    "ContentPolicyViolationError": None,
}
_OWN_EXITS = frozenset(
    {"Submitted", "LimitsExceeded", "FormatError", "ExecutionTimeoutError", "UserInterruption"}
)
"""mini-swe-agent's own ends: the model answered and the agent stopped by itself."""
_RAISED = re.compile(r"^litellm\.(?:exceptions\.)?(\w+)\b.*$", re.MULTILINE)


def _load_quietly(path: Path) -> dict[str, Any]:
    """The trajectory, or {} when the agent never wrote a readable one."""
    try:
        return _load(path)
    except M4BenchError:
        return {}


def _exit_of(data: dict[str, Any]) -> tuple[str | None, str]:
    """The exit status a trajectory records and its words: ``info.exit_status`` and
    ``info.submission`` (the exception text when a model call failed), or the ``exit``
    message newer versions end on."""
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    assert isinstance(info, dict)
    status, words = info.get("exit_status"), info.get("submission")
    exits = [m for m in _messages(data) if m.get("role") == "exit"]
    extra = exits[-1].get("extra") if exits else None
    if isinstance(extra, dict):
        status = status or extra.get("exit_status")
        words = extra.get("exception_str") or words or exits[-1].get("content")
    return (str(status) if status else None), str(words or "")


def _raised(stderr: str) -> tuple[str | None, str]:
    """The LiteLLM exception a traceback on standard error ends with, and its words."""
    found = list(_RAISED.finditer(stderr))
    if not found:
        return None, ""
    last = found[-1]
    return last.group(1), last.group(0)


def _mini_kind(status: str, words: str) -> InfraKind | None:
    said = classify_message(words)
    if status in _LITELLM:
        kind = _LITELLM[status]
        if kind is not None and said in ("quota_exhausted", "endpoint_unreachable"):
            return said  # a 429 for quota; "Connection error." under InternalServerError
        return kind
    return said if "litellm" in words.lower() else None


def _message_step(builder: StepBuilder, message: dict[str, Any]) -> None:
    """One stored message: a model turn, a tool's result, or a system or user message
    (a user message right after a model turn is the feedback on that turn)."""
    role = message.get("role")
    content = _content_text(message.get("content"))
    at = _message_time(message)
    if role == "assistant":
        calls = [
            ToolCall(
                tool_call_id=str(call.get("id", index)),
                function_name=str((call.get("function") or {}).get("name", "bash")),
                arguments=_arguments((call.get("function") or {}).get("arguments")),
            )
            for index, call in enumerate(message.get("tool_calls") or [])
            if isinstance(call, dict)
        ]
        response = _response(message)
        model = response.get("model")
        builder.add(
            "agent",
            message=content,
            model_name=model if isinstance(model, str) else None,
            calls=calls,
            metrics=step_metrics(openai_usage(response.get("usage"))),
            at=at,
        )
    elif role == "tool":
        builder.observe(str(message.get("tool_call_id")), content)
    elif role == "user" and builder.drafts and builder.drafts[-1].source == "agent":
        builder.observe_last(content)
    else:
        builder.add("system" if role == "system" else "user", message=content, at=at)


def _message_time(message: dict[str, Any]) -> datetime | None:
    extra = message.get("extra")
    stamp = extra.get("timestamp") if isinstance(extra, dict) else None
    return event_time(stamp if stamp is not None else message.get("timestamp"))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(str(p) for p in parts)
    return ""


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {"raw": raw}
        return value if isinstance(value, dict) else {"raw": raw}
    return {}
