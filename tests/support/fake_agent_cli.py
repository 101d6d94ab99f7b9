"""Stand-ins for the agent CLIs that end a run the way each really does.

``python fake_agent_cli.py CLI [the CLI's own arguments]`` acts as ``claude``, ``codex``,
``gemini`` or ``mini`` (CLI) playing the scenario named by ``$FAKE_CLI_SCENARIO``: it
prints what that CLI prints on stdout (its JSON-lines trace) and stderr, writes
mini-swe-agent's trajectory to its ``--output`` path, and exits with the status the CLI
exits with. The words are the CLIs' and the providers' own (rate limits, overloads and
5xx, bad keys, exhausted quota, unreachable endpoints), beside runs where the model
answered and runs the agent ended by itself. ``$FAKE_CLI_KEY`` is a credential value a
provider may echo back (a bad key it names). Standard library only: it runs as
``python -I -S``.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KEY = os.environ.get("FAKE_CLI_KEY", "sk-fake-0000")


@dataclass(frozen=True)
class Ending:
    """What a CLI printed and how it exited."""

    events: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    code: int = 0
    trajectory: dict[str, Any] | None = None


# ---------------------------------------------------------------- Claude Code
_CLAUDE_INIT = {
    "type": "system",
    "subtype": "init",
    "session_id": "s-1",
    "model": "claude-sonnet-4-5",
    "claude_code_version": "2.0.14",
}
_CLAUDE_TURN = {
    "type": "assistant",
    "session_id": "s-1",
    "message": {
        "id": "msg_1",
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
        "usage": {"input_tokens": 10, "output_tokens": 20},
    },
}
_ZERO = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0}


def _anthropic(status: int, kind: str, message: str) -> str:
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}
    return f"API Error: {status} {json.dumps(body, separators=(',', ':'))}"


def _claude_failed(text: str, category: str | None, turns: int = 0) -> Ending:
    """Claude Code after its own retries: the failure as a synthetic assistant message
    (with its category), then an error result carrying the same text; exit 1."""
    message = {
        "id": "msg_err",
        "model": "<synthetic>",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "usage": _ZERO,
    }
    failed: dict[str, Any] = {"type": "assistant", "session_id": "s-1", "message": message}
    if category is not None:
        failed["error"] = category
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "num_turns": turns + 1,
        "result": text,
        "session_id": "s-1",
        "total_cost_usd": 0,
        "usage": _ZERO,
    }
    return Ending([_CLAUDE_INIT] + [_CLAUDE_TURN] * turns + [failed, result], code=1)


def _claude_result(subtype: str, is_error: bool, code: int) -> Ending:
    result = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "num_turns": 3,
        "session_id": "s-1",
        "total_cost_usd": 0.01,
        "usage": {"input_tokens": 30, "output_tokens": 60},
    }
    if subtype == "success":
        result["result"] = "Wrote output.csv."
    return Ending([_CLAUDE_INIT, _CLAUDE_TURN, result], code=code)


CLAUDE: dict[str, Ending] = {
    "answered": _claude_result("success", False, 0),
    "agent_failed": _claude_result("error_max_turns", True, 1),
    "bad_request": _claude_failed(
        _anthropic(
            400, "invalid_request_error", "prompt is too long: 215000 tokens > 200000 maximum"
        ),
        "invalid_request",
    ),
    "rate_limited": _claude_failed(
        _anthropic(
            429,
            "rate_limit_error",
            "This request would exceed your account's rate limit. Please try again later.",
        ),
        "rate_limit",
    ),
    "overloaded": _claude_failed(_anthropic(529, "overloaded_error", "Overloaded"), None, 2),
    "server_error": _claude_failed(
        _anthropic(500, "api_error", "Internal server error"), "server_error"
    ),
    "auth": _claude_failed("Invalid API key · Please run /login", "authentication_failed"),
    "quota": _claude_failed(
        "Credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
        "billing_error",
    ),
    "unreachable": _claude_failed("API Error: Connection error.", "unknown"),
    "died_unreachable": Ending(
        [_CLAUDE_INIT],
        "Error: connect ECONNREFUSED 127.0.0.1:9\n    at TCPConnectWrap.afterConnect\n",
        1,
    ),
}

# ---------------------------------------------------------------------- Codex
_CODEX_START = [{"type": "thread.started", "thread_id": "th-1"}, {"type": "turn.started"}]
_CODEX_WORK = [
    {
        "type": "item.completed",
        "item": {
            "id": "item_0",
            "type": "command_execution",
            "command": "ls",
            "aggregated_output": "database.duckdb\n",
            "exit_code": 0,
            "status": "completed",
        },
    },
    {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "Done."}},
    {"type": "turn.completed", "usage": {"input_tokens": 900, "cached_input_tokens": 0}},
]


def _codex_failed(message: str) -> Ending:
    """Codex after its own retries: a fatal ``error`` event, then ``turn.failed``; exit 1."""
    failed = [
        {"type": "error", "message": message},
        {"type": "turn.failed", "error": {"message": message}},
    ]
    return Ending(_CODEX_START + failed, code=1)


_OPENAI_401 = json.dumps(
    {
        "error": {
            "message": f"Incorrect API key provided: {KEY}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    },
    indent=2,
)
CODEX: dict[str, Ending] = {
    "answered": Ending(_CODEX_START + _CODEX_WORK),
    "retried_then_answered": Ending(
        [
            *_CODEX_START,
            {
                "type": "error",
                "message": "Reconnecting... 1/5 (stream disconnected before completion: "
                "idle timeout waiting for SSE)",
            },
            *_CODEX_WORK,
        ]
    ),
    "agent_failed": _codex_failed(
        "Codex ran out of room in the model's context window. Start a new thread or clear "
        "earlier history before retrying."
    ),
    "bad_request": _codex_failed(
        "unexpected status 400 Bad Request: "
        + json.dumps({"error": {"message": "Unsupported parameter: 'max 512 tokens'"}})
    ),
    "rate_limited": _codex_failed(
        "exceeded retry limit, last status: 429 Too Many Requests, request id: 9c84b52ce87f"
    ),
    "rate_limited_wait": _codex_failed(
        "stream error: Rate limit reached for gpt-5 in organization org-x on tokens per min "
        "(TPM): Limit 30000, Used 29100, Requested 2000. Please try again in 2.5s. Visit "
        "https://platform.openai.com/account/rate-limits to learn more."
    ),
    "overloaded": _codex_failed(
        "stream disconnected before completion: An error occurred while processing your "
        "request. You can retry your request."
    ),
    "server_error": _codex_failed(
        "exceeded retry limit, last status: 500 Internal Server Error, request id: 1f2e"
    ),
    "auth": _codex_failed(f"unexpected status 401 Unauthorized: {_OPENAI_401}"),
    "quota": _codex_failed("Quota exceeded. Check your plan and billing details."),
    "unreachable": _codex_failed(
        "stream disconnected before completion: error sending request for url "
        "(https://api.openai.com/v1/responses)"
    ),
    "died_unreachable": Ending(
        [],
        "Error: error sending request for url (http://127.0.0.1:9/v1/responses): "
        "client error (Connect): tcp connect error: Connection refused (os error 111)\n",
        1,
    ),
}

# ----------------------------------------------------------------- Gemini CLI
_GEMINI_START = [
    {"type": "init", "timestamp": "2026-01-01T00:00:00Z", "session_id": "g-1", "model": "m"},
    {"type": "message", "role": "user", "content": "Compute the score."},
]
_GEMINI_STATS = {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0, "cached": 0}


def _gemini_failed(message: str, error_type: str, code: int) -> Ending:
    """Gemini CLI's handled error: a ``result`` event with status ``error``; the exit
    status is the error's code (an HTTP status, modulo 256) or its own (41, 53)."""
    result = {
        "type": "result",
        "timestamp": "2026-01-01T00:00:09Z",
        "status": "error",
        "error": {"type": error_type, "message": message},
        "stats": _GEMINI_STATS,
    }
    return Ending([*_GEMINI_START, result], code=code)


def _google(message: str, status: str) -> str:
    return f"[API Error: {message} (Status: {status})]"


_FREE_TIER = (
    "You exceeded your current quota, please check your plan and billing details. For "
    "more information on this error, head to: https://ai.google.dev/gemini-api/docs/"
    "rate-limits. * Quota exceeded for metric: generativelanguage.googleapis.com/"
    "generate_content_free_tier_requests, limit: {limit}, model: gemini-2.5-pro{tail}"
)
GEMINI: dict[str, Ending] = {
    "answered": Ending(
        [
            *_GEMINI_START,
            {"type": "message", "role": "assistant", "content": "Done.", "delta": True},
            {"type": "result", "status": "success", "stats": _GEMINI_STATS},
        ]
    ),
    "agent_failed": _gemini_failed(
        "Reached max session turns for this session. Increase the number of turns by "
        "specifying maxSessionTurns in settings.json.",
        "FatalTurnLimitedError",
        53,
    ),
    "bad_request": _gemini_failed(
        _google(
            "models/gemini-9 is not found for API version v1beta, or is not supported for "
            "generateContent.",
            "NOT_FOUND",
        ),
        "ApiError",
        404 % 256,
    ),
    "rate_limited": _gemini_failed(
        _google(_FREE_TIER.format(limit=5, tail=" Please retry in 41.2s."), "RESOURCE_EXHAUSTED"),
        "ApiError",
        429 % 256,
    ),
    "overloaded": _gemini_failed(
        _google("The model is overloaded. Please try again later.", "UNAVAILABLE"),
        "ApiError",
        503 % 256,
    ),
    "server_error": _gemini_failed(
        _google("An internal error has occurred. Please retry or report.", "INTERNAL"),
        "ApiError",
        500 % 256,
    ),
    "auth": _gemini_failed(
        _google("API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT"),
        "ApiError",
        400 % 256,
    ),
    "auth_denied": _gemini_failed(
        _google("Permission denied: Consumer 'api_key:x' has been suspended.", "PERMISSION_DENIED"),
        "ApiError",
        403 % 256,
    ),
    "auth_missing_key": Ending(
        [],
        "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\n"
        "Update your environment and try again (no reload needed if using .env)!\n",
        41,
    ),
    "quota": _gemini_failed(
        _google(
            _FREE_TIER.format(
                limit=100, tail=", quota_id: GenerateRequestsPerDayPerProjectPerModel-FreeTier"
            ),
            "RESOURCE_EXHAUSTED",
        ),
        "ApiError",
        429 % 256,
    ),
    "unreachable": _gemini_failed(
        "[API Error: exception TypeError: fetch failed sending request]", "Error", 1
    ),
}

# ------------------------------------------------------------- mini-swe-agent
_MINI_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Compute the score and write output.csv."},
    {
        "role": "assistant",
        "content": "List the files.",
        "extra": {"response": {"model": "m", "usage": {"prompt_tokens": 900}}},
    },
    {"role": "user", "content": "database.duckdb"},
]


def _mini(status: str, words: str, code: int = 0, exit_message: bool = False) -> Ending:
    """mini-swe-agent's trajectory after it stopped: ``info.exit_status`` and its words
    (older versions), or an ``exit`` message (newer ones); a model call LiteLLM gave up
    on also leaves its traceback on stderr and exit status 1."""
    messages = list(_MINI_MESSAGES)
    info: dict[str, Any] = {"mini_version": "2.4.6", "exit_status": status}
    if exit_message:
        extra = {"exit_status": status, "submission": "", "exception_str": words}
        messages.append({"role": "exit", "content": words, "extra": extra})
    else:
        info["submission"] = words
    raised = words.split(":", 1)[0].replace("litellm.", "litellm.exceptions.", 1)
    stderr = (
        'Traceback (most recent call last):\n  File "mini", line 8, in <module>\n'
        f"{raised}: {words}\n"
        if code
        else ""
    )
    return Ending([], stderr, code, {"info": info, "messages": messages})


def _litellm(name: str, words: str) -> str:
    return f"litellm.{name}: {name}: OpenAIException - {words}"


MINI: dict[str, Ending] = {
    "answered": _mini("Submitted", "id,score\n1,3\n"),
    "agent_failed": _mini("LimitsExceeded", ""),
    "bad_request": _mini(
        "NotFoundError",
        _litellm("NotFoundError", "The model `gpt-9` does not exist or you do not have access."),
        1,
    ),
    "context_exceeded": _mini(
        "ContextWindowExceededError",
        _litellm("ContextWindowExceededError", "This model's maximum context length is 8192."),
        1,
    ),
    "rate_limited": _mini(
        "RateLimitError",
        _litellm(
            "RateLimitError",
            "Rate limit reached for gpt-4.1 on tokens per min (TPM): Limit 30000, Used 30000, "
            "Requested 1200. Please try again in 2.4s.",
        ),
        1,
    ),
    "overloaded": _mini(
        "ServiceUnavailableError",
        _litellm("ServiceUnavailableError", "The server is overloaded or not ready yet."),
        1,
    ),
    "server_error": _mini(
        "InternalServerError",
        _litellm("InternalServerError", "Error code: 500 - {'error': 'upstream failed'}"),
        1,
        exit_message=True,
    ),
    "auth": _mini(
        "AuthenticationError",
        _litellm(
            "AuthenticationError",
            f"Incorrect API key provided: {KEY}. You can permanently set your API key with "
            "`mini-extra config set KEY VALUE`.",
        ),
        1,
    ),
    "quota": _mini(
        "RateLimitError",
        _litellm(
            "RateLimitError",
            "You exceeded your current quota, please check your plan and billing details.",
        ),
        1,
    ),
    "unreachable": _mini(
        "APIConnectionError", _litellm("APIConnectionError", "Connection error."), 1
    ),
    "unreachable_as_5xx": _mini(
        "InternalServerError", _litellm("InternalServerError", "Connection error."), 1
    ),
    "died_rate_limited": Ending(
        [],
        'Traceback (most recent call last):\n  File "mini", line 8, in <module>\n'
        + "litellm.exceptions.RateLimitError: "
        + _litellm("RateLimitError", "Error code: 429 - rate limit exceeded")
        + "\n",
        1,
    ),
}

CLIS: dict[str, dict[str, Ending]] = {
    "claude": CLAUDE,
    "codex": CODEX,
    "gemini": GEMINI,
    "mini": MINI,
}


def main(argv: list[str]) -> int:
    cli, args = argv[0], argv[1:]
    ending = CLIS[cli][os.environ["FAKE_CLI_SCENARIO"]]
    for event in ending.events:
        sys.stdout.write(json.dumps(event) + "\n")
    sys.stderr.write(ending.stderr)
    if ending.trajectory is not None and "--output" in args:
        output = Path(args[args.index("--output") + 1])
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(ending.trajectory, indent=2), encoding="utf-8")
    return ending.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
