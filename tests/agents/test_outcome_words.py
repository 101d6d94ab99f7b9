"""How a provider's or a CLI's error words are read: the status they name, the wait they
ask for, the kind they say, and the one line a record keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.agents.outcome import (
    InfraKind,
    classify_lines,
    classify_message,
    one_line,
    retry_after_in,
    status_in,
    text_tail,
)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ('API Error: 429 {"type":"error"}', 429),
        ("API Error (529 {...}) · Retrying in 5 seconds", 529),
        ("exceeded retry limit, last status: 429 Too Many Requests", 429),
        ("unexpected status 401 Unauthorized: {}", 401),
        ("Error code: 503 - {'error': 'x'}", 503),
        ('{"error": {"code": 403, "status": "PERMISSION_DENIED"}}', 403),
        ("HTTP/1.1 502 Bad Gateway", 502),
        ("got 500 Internal Server Error from upstream", 500),
        ("the model allows max 512 tokens; 429 rows", None),
        ("status 200", None),
        ("(Status: RESOURCE_EXHAUSTED)", None),
    ],
)
def test_a_status_is_read_only_where_a_message_names_one(text: str, status: int | None) -> None:
    assert status_in(text) == status


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Retry-After: 30", 30.0),
        ('{"retry-after": "7"}', 7.0),
        ("Please try again in 1m30s.", 90.0),
        ("Please try again in 6ms.", 0.006),
        ("Please retry in 17.5s.", 17.5),
        ('"retryDelay": "41s"', 41.0),
        ("Retrying in 2892 seconds… (attempt 1/10)", 2892.0),
        ("retry after 2 minutes", 120.0),
        ("Rate limited. Please try again later.", None),
    ],
)
def test_the_wait_a_provider_asks_for(text: str, seconds: float | None) -> None:
    found = retry_after_in(text)
    assert found is None if seconds is None else found == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # quota words win over the 429 they come with
        (
            "Error code: 429 - insufficient_quota: You exceeded your current quota",
            "quota_exhausted",
        ),
        ("You've hit your usage limit. Upgrade to Pro.", "quota_exhausted"),
        # a bad key answered with 400 (Gemini) is still a bad key
        ("[API Error: API key not valid. (Status: INVALID_ARGUMENT)] code 400", "auth_error"),
        ("unexpected status 403 Forbidden", "auth_error"),
        # the request's own fault, whatever its body says
        ("unexpected status 400 Bad Request: rate limit parameter unsupported", None),
        ("Error code: 404 - The model `x` does not exist", None),
        ("prompt is too long: 215000 tokens > 200000 maximum", None),
        # a shell's "Permission denied" is no provider's refusal
        ("sh: 1: ./run.sh: Permission denied", None),
        (
            "the upstream 10.0.0.1:443 refused the connection "
            "(allowed by the m4bench egress proxy)",
            "endpoint_unreachable",
        ),
        ("API Error: Connection error.", "endpoint_unreachable"),
        ("Too many requests, slow down", "rate_limited"),
        ("The model is overloaded. Please try again later.", "provider_error"),
        ("API Error: Request timed out.", "provider_error"),
        ("max 512 tokens", None),
    ],
)
def test_what_a_message_says(text: str, kind: InfraKind | None) -> None:
    assert classify_message(text) == kind


def test_a_given_status_overrides_the_one_in_the_words() -> None:
    assert classify_message("The service is busy (code 7)", 503) == "provider_error"
    assert classify_message("API Error: 429 too many requests", 400) is None


def test_one_line_is_single_clipped_and_keyless() -> None:
    words = (
        "Incorrect API key provided: sk-proj-abcdefghijklmnop1234.\n  hunter2hunter2 AIza"
        + "x" * 30
    )
    line = one_line(words, secrets=["hunter2hunter2", "short"])
    assert line == "Incorrect API key provided: [redacted]. [redacted] [redacted]"
    assert one_line("y" * 400, limit=50) == "y" * 49 + "…"


def test_the_last_telling_line_of_stderr(tmp_path: Path) -> None:
    stderr = tmp_path / "stderr.log"
    stderr.write_text(
        "warning: config file ignored\nError: connect ECONNREFUSED 127.0.0.1:9\n    at x\n\n"
    )
    assert classify_lines(text_tail(stderr)) == (
        "endpoint_unreachable",
        "Error: connect ECONNREFUSED 127.0.0.1:9",
    )
    assert classify_lines("all good\n") is None
    assert text_tail(tmp_path / "missing") == "" and text_tail(None) == ""
    assert text_tail(stderr, limit=10) == "    at x\n\n"
