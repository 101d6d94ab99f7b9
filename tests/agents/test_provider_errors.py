"""Provider error answers as the providers write them (OpenAI, Anthropic, Google) and
as the CLIs print them, sorted into infrastructure kinds, or left to the agent."""

from __future__ import annotations

import json

import pytest

from m4bench.agents.outcome import classify_http, classify_message


def openai(message: str, kind: str, code: str | None) -> str:
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}})


def anthropic(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


def google(code: int, message: str, status: str) -> str:
    return json.dumps({"error": {"code": code, "message": message, "status": status}})


HTTP_CASES = [
    # OpenAI
    (
        401,
        openai(
            "Incorrect API key provided: sk-abc*****xyz. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        ),
        "auth_error",
    ),
    (
        429,
        openai(
            "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): "
            "Limit 30000, Used 29000, Requested 2000. Please try again in 2s.",
            "tokens",
            "rate_limit_exceeded",
        ),
        "rate_limited",
    ),
    (
        429,
        openai(
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
        ),
        "quota_exhausted",
    ),
    (
        500,
        openai("The server had an error while processing your request.", "server_error", None),
        "provider_error",
    ),
    (503, "", "provider_error"),
    (
        400,
        openai(
            "This model's maximum context length is 128000 tokens. However, your messages "
            "resulted in 130000 tokens.",
            "invalid_request_error",
            "context_length_exceeded",
        ),
        None,
    ),
    (404, openai("The model `gpt-9` does not exist.", "invalid_request_error", None), None),
    # Anthropic
    (401, anthropic("authentication_error", "invalid x-api-key"), "auth_error"),
    (
        403,
        anthropic(
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
        ),
        "auth_error",
    ),
    (
        429,
        anthropic(
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50,000 "
            "input tokens per minute.",
        ),
        "rate_limited",
    ),
    (529, anthropic("overloaded_error", "Overloaded"), "provider_error"),
    (500, anthropic("api_error", "Internal server error"), "provider_error"),
    (
        400,
        anthropic(
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to "
            "Plans & Billing to upgrade or purchase credits.",
        ),
        "quota_exhausted",
    ),
    (400, anthropic("invalid_request_error", "messages: roles must alternate"), None),
    # Google (Gemini API)
    (
        503,
        google(503, "The model is overloaded. Please try again later.", "UNAVAILABLE"),
        "provider_error",
    ),
    (500, google(500, "An internal error has occurred.", "INTERNAL"), "provider_error"),
    (
        403,
        google(
            403,
            "Method doesn't allow unregistered callers (callers without established "
            "identity). Please use API Key or other form of API consumer identity.",
            "PERMISSION_DENIED",
        ),
        "auth_error",
    ),
    (400, google(400, "Invalid JSON payload received.", "INVALID_ARGUMENT"), None),
]


@pytest.mark.parametrize(("status", "body", "kind"), HTTP_CASES)
def test_http_answers_of_the_providers(status: int, body: str, kind: str | None) -> None:
    assert classify_http(status, body) == kind


MESSAGE_CASES = [
    # as Claude Code, Codex, the OpenAI SDK and Gemini CLI print them
    (f"API Error: 401 {anthropic('authentication_error', 'invalid x-api-key')}", "auth_error"),
    (f"API Error: 529 {anthropic('overloaded_error', 'Overloaded')}", "provider_error"),
    (
        "Error code: 429 - {'error': {'message': 'You exceeded your current quota, please "
        "check your plan and billing details.', 'type': 'insufficient_quota'}}",
        "quota_exhausted",
    ),
    (
        "stream error: unexpected status 429 Too Many Requests: Rate limit reached for "
        "gpt-5 in organization org-x on tokens per min",
        "rate_limited",
    ),
    ("[API Error: API key not valid. Please pass a valid API key.]", "auth_error"),
    ("Error: connect ECONNREFUSED 127.0.0.1:11434", "endpoint_unreachable"),
    ("Your credit balance is too low to access the Anthropic API.", "quota_exhausted"),
    ("Error: the file output.csv could not be written: permission error on disk", None),
]


@pytest.mark.parametrize(("text", "kind"), MESSAGE_CASES)
def test_messages_of_the_providers_and_their_clis(text: str, kind: str | None) -> None:
    assert classify_message(text) == kind


def google_quota(quota_id: str, retry_delay: str | None) -> str:
    """Gemini API's 429 as it sends it, for a per-minute limit and a daily quota alike:
    the same message, told apart only by the quota it names and the retry delay."""
    message = (
        "You exceeded your current quota, please check your plan and billing details. For "
        "more information on this error, head to: https://ai.google.dev/gemini-api/docs/"
        "rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/"
        "generate_content_free_tier_requests, limit: 10, model: gemini-2.0-flash"
    )
    details: list[dict[str, object]] = [
        {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": "generativelanguage.googleapis.com/"
                    "generate_content_free_tier_requests",
                    "quotaId": quota_id,
                    "quotaDimensions": {"location": "global", "model": "gemini-2.0-flash"},
                    "quotaValue": "10",
                }
            ],
        }
    ]
    if retry_delay is not None:
        message += f"\nPlease retry in {retry_delay}."
        seconds = retry_delay.split(".")[0].removesuffix("s")
        details.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{seconds}s"}
        )
    error = {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED", "details": details}
    return json.dumps({"error": error}, indent=2)


PER_MINUTE = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
PER_DAY = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
QUOTA_OR_RATE_CASES = [
    # Google: a per-minute limit is a rate limit, with or without its retry delay
    (google_quota(PER_MINUTE, "41.209624233s"), "rate_limited"),
    (google_quota(PER_MINUTE, None), "rate_limited"),
    # a retry delay alone (no quota id) is a rate limit too
    (google(429, "You exceeded your current quota. Please retry in 41.2s.", "X"), "rate_limited"),
    # a daily quota is exhausted, whatever delay it names
    (google_quota(PER_DAY, "20s"), "quota_exhausted"),
    (google_quota(PER_DAY, None), "quota_exhausted"),
    # the same words with no limit named and no retry hint: the plan's quota
    (
        google(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            "RESOURCE_EXHAUSTED",
        ),
        "quota_exhausted",
    ),
    # Vertex AI: its shared capacity ran short for a moment
    (
        google(429, "Resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED"),
        "rate_limited",
    ),
    # OpenAI: insufficient_quota is the account's, whatever else it says
    (
        openai(
            "You exceeded your current quota, please check your plan and billing details. "
            "Please try again in 20s.",
            "insufficient_quota",
            "insufficient_quota",
        ),
        "quota_exhausted",
    ),
    # a per-day rate limit cannot be waited out within a campaign
    (
        openai(
            "Rate limit reached for gpt-4o in organization org-x on requests per day (RPD): "
            "Limit 200, Used 200, Requested 1. Please try again in 7m12s.",
            "requests",
            "rate_limit_exceeded",
        ),
        "quota_exhausted",
    ),
    (
        openai(
            "Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): "
            "Limit 3, Used 3, Requested 1. Please try again in 20s.",
            "requests",
            "rate_limit_exceeded",
        ),
        "rate_limited",
    ),
]


@pytest.mark.parametrize(("body", "kind"), QUOTA_OR_RATE_CASES)
def test_a_429_is_a_rate_limit_or_an_exhausted_quota_by_what_it_names(body: str, kind: str) -> None:
    assert classify_http(429, body) == kind
    # the same words as a CLI prints them, the status in the words
    assert classify_message(f"[API Error: 429 {' '.join(body.split())}]") == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # Gemini CLI's last line for a per-minute limit: retried, not a stop
        (
            "[API Error: You exceeded your current quota, please check your plan and "
            "billing details. Please retry in 41.2s.]",
            "rate_limited",
        ),
        # a wait of hours is no per-minute limit
        ("You've hit your usage limit. Try again in 5 hours.", "quota_exhausted"),
        ("Quota exceeded for quota metric 'Requests per minute'", "rate_limited"),
        # daily words without a quota or a limit are no provider's answer
        ("loaded 24 rows per day of stay", None),
    ],
)
def test_quota_words_as_the_clis_print_them(text: str, kind: str | None) -> None:
    assert classify_message(text) == kind
