"""The react agent sorts every failed request the way the rest of m4bench does: the
provider's failures end the run as infrastructure outcomes (transient ones tried again,
waiting what ``Retry-After`` asks), the request's own faults as the agent's."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import ErrorReply, serve, text_reply, tool_reply, usage

from m4bench.agents.base import AgentContext
from m4bench.agents.outcome import InfraFailure
from m4bench.agents.react import client as react_client
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.agents.react.loop import EXIT_CODES, ReactConfig, run_react

OPENAI_500 = {
    "error": {
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
        "param": None,
        "code": None,
    }
}
OPENAI_QUOTA = {
    "error": {
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota",
        "param": None,
        "code": "insufficient_quota",
    }
}
OPENAI_CONTEXT = {
    "error": {
        "message": "This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 130000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
ANTHROPIC_RATE = {
    "type": "error",
    "error": {
        "type": "rate_limit_error",
        "message": "This request would exceed the rate limit for your organization of "
        "50,000 input tokens per minute.",
    },
}
GOOGLE_BAD_KEY = [
    {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
            ],
        }
    }
]


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The client's waits between tries, recorded instead of slept."""
    slept: list[float] = []
    monkeypatch.setattr(react_client.time, "sleep", slept.append)
    return slept


def run(tmp_path: Path, replies: list[Any]) -> tuple[str, int, InfraFailure | None, list[Any]]:
    """The agent against ``replies``: its stop reason, the requests the server got, what
    the adapter reads from the trace, and the trace's error events."""
    out = io.StringIO()
    with serve(replies) as server:
        config = ReactConfig(endpoint=server.base_url, model="m", instruction="x", workdir=tmp_path)
        stop = str((run_react(config, out=out).extra or {}).get("stop_reason"))
        requests = len(server.requests)
    trace = tmp_path / "trace.jsonl"
    trace.write_text(out.getvalue())
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    ctx = AgentContext(workdir=tmp_path, instruction_path=tmp_path / "i", endpoint="E")
    failure = ReactAdapter().infrastructure_failure(ctx, EXIT_CODES.get(stop, 3), trace)
    return stop, requests, failure, [e for e in events if e["type"] == "error"]


def test_a_5xx_is_tried_three_times_with_backoff(tmp_path: Path, waits: list[float]) -> None:
    stop, requests, failure, errors = run(tmp_path, [ErrorReply(500, OPENAI_500)] * 3)
    assert (stop, requests, waits) == ("provider_error", 3, [1.0, 2.0])
    assert failure is not None and failure.kind == "provider_error"
    assert "The server had an error while processing your request" in failure.detail
    assert errors[0]["kind"] == "provider_error" and errors[0]["retry_after"] is None


def test_a_rate_limit_waits_what_retry_after_asks_then_goes_on(
    tmp_path: Path, waits: list[float]
) -> None:
    limited = ErrorReply(429, ANTHROPIC_RATE, {"Retry-After": "0"})
    stop, requests, failure, _ = run(tmp_path, [limited, text_reply("done", usage(1, 1))])
    assert (stop, requests, waits, failure) == ("done", 2, [0.0], None)


def test_a_wait_longer_than_a_run_waits_ends_the_run_with_it(
    tmp_path: Path, waits: list[float]
) -> None:
    limited = ErrorReply(429, ANTHROPIC_RATE, {"Retry-After": "120"})
    stop, requests, failure, errors = run(tmp_path, [limited, text_reply("done", usage(1, 1))])
    assert (stop, requests, waits) == ("rate_limited", 1, [])
    assert failure is not None and failure.kind == "rate_limited"
    assert failure.retry_after == errors[0]["retry_after"] == 120.0
    assert failure.describe().startswith("the provider rate-limited the agent: E: HTTP 429: ")


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (ErrorReply(429, OPENAI_QUOTA), "quota_exhausted"),
        (ErrorReply(401, {"error": {"code": "invalid_api_key"}}), "auth_error"),
        (ErrorReply(400, GOOGLE_BAD_KEY), "auth_error"),  # Google's answer to a bad key
    ],
)
def test_refused_credentials_and_exhausted_quota_are_not_tried_again(
    tmp_path: Path, waits: list[float], reply: ErrorReply, kind: str
) -> None:
    answered = tool_reply("c1", "read_file", {"path": "none"}, usage(10, 1))
    stop, requests, failure, _ = run(tmp_path, [answered, reply, text_reply("x", usage(1, 1))])
    assert (stop, requests, waits) == (kind, 2, [])  # after the model's first answer too
    assert failure is not None and failure.kind == kind


def test_a_request_refused_as_malformed_is_the_agents_failure(
    tmp_path: Path, waits: list[float]
) -> None:
    for reply in (ErrorReply(400, OPENAI_CONTEXT), 404, 422):
        stop, requests, failure, errors = run(tmp_path, [reply, text_reply("x", usage(1, 1))])
        assert (stop, requests, failure) == ("model_error", 1, None), reply
        assert "kind" not in errors[0]
    assert waits == []


def test_retry_after_reads_seconds_and_http_dates() -> None:
    from email.message import Message

    headers = Message()
    headers["Retry-After"] = "2.5"
    assert react_client.retry_after(headers) == 2.5
    headers.replace_header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")  # in the past
    assert react_client.retry_after(headers) == 0.0
    headers.replace_header("Retry-After", "soon")
    assert react_client.retry_after(headers) is None
    assert react_client.retry_after(None) is None
