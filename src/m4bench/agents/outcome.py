"""Infrastructure outcomes: a run that failed because of the model provider, not the model.

Every adapter sorts what it sees (HTTP statuses and provider error bodies for the
built-in agent; each CLI's own error lines and exit codes for the others) into the
model's outcomes (it answered, or the agent failed: scored) and the infrastructure's:

* ``rate_limited``: the provider said "too many requests" (HTTP 429, "rate limit"), or
  named a per-minute quota or a short retry delay (:func:`quota_reading`);
* ``provider_error``: the provider failed or was overloaded (HTTP 5xx, "overloaded");
* ``auth_error``: the credentials were missing, wrong or not allowed (HTTP 401/403);
* ``quota_exhausted``: the account has no credit or quota left ("insufficient_quota",
  a daily quota, "check your plan and billing" with no retry hint);
* ``endpoint_unreachable``: no request ever reached the endpoint (refused, no route).

An infrastructure outcome is never scored as the model's answer: the run did not
happen. A campaign retries the transient ones (:data:`TRANSIENT`) with backoff and
stops on the fatal ones (:data:`FATAL`), which no retry can mend.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

InfraKind = Literal[
    "rate_limited",
    "provider_error",
    "auth_error",
    "quota_exhausted",
    "endpoint_unreachable",
]
INFRA_KINDS: tuple[InfraKind, ...] = get_args(InfraKind)
TRANSIENT: frozenset[InfraKind] = frozenset(
    {"rate_limited", "provider_error", "endpoint_unreachable"}
)
"""Worth another try later, with backoff."""
FATAL: frozenset[InfraKind] = frozenset({"auth_error", "quota_exhausted"})
"""No retry can mend them: a campaign stops starting runs."""

IN_WORDS: dict[InfraKind, str] = {
    "rate_limited": "the provider rate-limited the agent",
    "provider_error": "the provider failed or was overloaded",
    "auth_error": "the provider refused the credentials",
    "quota_exhausted": "the provider account's quota or credit is exhausted",
    "endpoint_unreachable": "the model endpoint could not be reached",
}


class InfraFailure(BaseModel):
    """Why a run never got a model answer: the kind, the provider's words, and how long
    the provider asked to wait (``Retry-After``), when it said so."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: InfraKind
    detail: str = Field(default="", description="the provider's or the agent's own words")
    retry_after: float | None = Field(default=None, ge=0)

    @property
    def transient(self) -> bool:
        return self.kind in TRANSIENT

    def describe(self) -> str:
        """One line: the kind in words, then the provider's words."""
        words = IN_WORDS[self.kind]
        return f"{words}: {self.detail}" if self.detail else words


def classify_http(status: int, body: str = "") -> InfraKind | None:
    """The infrastructure kind of an HTTP error answer; None for a status that is the
    request's own fault (400, 404, 413, 422: the agent's failure, not the provider's).
    Quota words in the body are read first (:func:`quota_reading`)."""
    quota = quota_reading(body)
    if quota is not None:
        return quota
    if status in (401, 403):
        return "auth_error"
    if status == 402:
        return "quota_exhausted"
    if status == 429:
        return "rate_limited"
    if status >= 500 or status == 408:
        return "provider_error"
    return None


def classify_message(text: str, status: int | None = None) -> InfraKind | None:
    """The infrastructure kind a provider's or a CLI's error message names, if any.

    Order matters, the most specific reading first: a quota message often says 429 too,
    and a bad key is sometimes answered with 400 (Gemini); then a connection that never
    got an answer; then the HTTP status the message names (``status``, else the one
    :func:`status_in` finds), which also makes a 400 or a 404 the request's own fault
    whatever else its body says; then the words of a rate limit or a provider failure.
    A bare number is never read as a status: "max 512 tokens" is no 5xx.
    """
    quota = quota_reading(text)
    if quota is not None:
        return quota
    lowered = text.lower()
    for kind, pattern in _BEFORE_STATUS:
        if pattern.search(lowered):
            return kind
    status = status if status is not None else status_in(text)
    if status is not None:
        return classify_http(status, text)
    for kind, pattern in _AFTER_STATUS:
        if pattern.search(lowered):
            return kind
    return None


def quota_reading(text: str) -> InfraKind | None:
    """What a message that speaks of a quota means, if it does: ``quota_exhausted`` (no
    retry can mend it: the campaign stops) or ``rate_limited`` (a per-minute limit:
    tried again after a backoff); None for a message with no quota words.

    Providers word both alike: Google answers a per-minute limit with 429 "You exceeded
    your current quota, please check your plan and billing details" (RESOURCE_EXHAUSTED)
    too, and tells them apart only by the quota it names (``...PerMinute...`` or
    ``...PerDay...``) and a retry delay ("Please retry in 41.2s", ``retryDelay``).
    So, in this order: a daily quota or the account's credit (OpenAI's
    ``insufficient_quota``, a balance too low, payment required) is exhausted; quota
    words naming a per-minute, per-second or per-request limit, or asking for a wait of
    at most :data:`RATE_WAIT_LIMIT` seconds, are a rate limit; other quota words
    ("check your plan and billing", "usage limit") are exhausted.
    """
    lowered = text.lower()
    if _ACCOUNT_QUOTA.search(lowered):
        return "quota_exhausted"
    if _DAILY.search(lowered) and _LIMIT.search(lowered):
        return "quota_exhausted"
    if not _QUOTA.search(lowered):
        return None
    wait = retry_after_in(lowered)
    if _RATE_WINDOW.search(lowered) or (wait is not None and wait <= RATE_WAIT_LIMIT):
        return "rate_limited"
    return "quota_exhausted"


def status_in(text: str) -> int | None:
    """The HTTP error status (400-599) an error message names, where it names one the
    way providers and CLIs write it: ``API Error: 429``, ``last status: 429``,
    ``unexpected status 401``, ``Error code: 429``, ``"code": 503``, ``HTTP 502`` or
    ``429 Too Many Requests``. The first one in the text wins."""
    for match in _STATUS.finditer(text.lower()):
        value = int(next(group for group in match.groups() if group))
        if 400 <= value <= 599:
            return value
    return None


def retry_after_in(text: str) -> float | None:
    """The seconds a provider asked to wait, when its message says so (``Retry-After:
    30``, "try again in 1m30s", "Please retry in 17.5s", ``"retryDelay": "17s"``)."""
    match = _RETRY_AFTER.search(text.lower())
    if match is None:
        return None
    if match.group("bare") is not None:
        return float(match.group("bare"))
    seconds = 0.0
    for number, unit in _DURATION_PART.findall(match.group("duration")):
        seconds += float(number) * _unit_seconds(unit)
    return seconds


def _unit_seconds(unit: str) -> float:
    if unit == "ms" or unit.startswith("mil"):
        return 0.001
    return {"h": 3600.0, "m": 60.0}.get(unit[0], 1.0)


def one_line(text: str, secrets: Iterable[str] = (), limit: int = 300) -> str:
    """A provider's words as one line for a record: whitespace collapsed, anything that
    looks like an API key (and every value of ``secrets``) replaced by ``[redacted]``,
    clipped to ``limit`` characters."""
    for secret in secrets:
        if len(secret) >= 8:
            text = text.replace(secret, "[redacted]")
    text = _KEY_LIKE.sub("[redacted]", " ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def infra_failure(kind: InfraKind, words: str, secrets: Iterable[str] = ()) -> InfraFailure:
    """The failure of ``kind`` with the provider's ``words`` on one line and the wait
    they ask for, if any."""
    return InfraFailure(
        kind=kind, detail=one_line(words, secrets), retry_after=retry_after_in(words)
    )


def text_tail(path: Path | None, limit: int = 65_536) -> str:
    """The last ``limit`` bytes of a stored file as text ("" when there is none): where
    a CLI's last words are."""
    if path is None or not path.is_file():
        return ""
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(max(size - limit, 0))
        return handle.read().decode("utf-8", errors="replace")


def classify_lines(text: str) -> tuple[InfraKind, str] | None:
    """The kind the last telling line of a CLI's standard error names, and that line:
    where a CLI that died before its trace could say why leaves its last words."""
    for line in reversed(text.splitlines()):
        kind = classify_message(line) if line.strip() else None
        if kind is not None:
            return kind, line
    return None


RATE_WAIT_LIMIT = 900.0
"""The longest wait (seconds) a quota message may ask for and still be a rate limit."""
_ACCOUNT_QUOTA = re.compile(
    r"insufficient[_ ]quota|credit balance is too low|out of credits?|payment required|"
    r"out of (extra )?usage"
)
"""An account's credit: exhausted whatever wait the message names."""
_DAILY = re.compile(r"per ?day|per_day|\bdaily\b|\brpd\b")
_LIMIT = re.compile(r"quota|limit")
"""A daily quota or limit (``GenerateRequestsPerDay...``, "requests per day (RPD)")."""
_QUOTA = re.compile(
    r"quota[_ ]exceeded|exceeded your (current )?quota|billing|resource[_ ]exhausted.*quota|"
    r"usage limit|hit your limit"
)
"""Quota words that a rate limit's message uses too (Google's per-minute 429)."""
_RATE_WINDOW = re.compile(
    r"per ?(minute|second|request)|per_(minute|second|request)|per min\b|"
    r"\b[rt]pm\b|rate[_ ]limit|resource has been exhausted"
)
"""A per-minute, per-second or per-request limit, as quota ids and messages name it
(Vertex AI's 429 "Resource has been exhausted (e.g. check quota)." is its shared
capacity running short for a moment: retried, not a stop)."""
_Rules = tuple[tuple[InfraKind, re.Pattern[str]], ...]
_BEFORE_STATUS: _Rules = (
    (
        "auth_error",
        re.compile(
            r"unauthori[sz]ed|invalid[_ ]api[_ ]key|incorrect api key|invalid x-api-key|"
            r"authentication[_ ]error|authentication[_ ]failed|failed to authenticate|"
            r"api key not valid|permission_denied|permission_error|not logged in|"
            r"please run /login|missing api key|no api key|api key (is )?(missing|required)"
        ),
    ),
    (
        "endpoint_unreachable",
        re.compile(
            r"connection refused|econnrefused|name or service not known|enotfound|"
            r"could not resolve|no route to host|network is unreachable|failed to connect|"
            r"connection error|fetch failed|error sending request|unable to connect|"
            r"allowed by the m4bench egress proxy"
        ),
    ),
)
"""Words read before any status a message names: they say more than the status."""
_AFTER_STATUS: _Rules = (
    (
        "rate_limited",
        re.compile(r"rate[_ ]limit|too many requests|rate_limit_exceeded"),
    ),
    (
        "provider_error",
        re.compile(
            r"overloaded|internal (server )?error|service unavailable|temporarily unavailable|"
            r"status\W{0,4}unavailable|bad gateway|gateway timeout|server[_ ]error|api_error|"
            r"request timed out|idle timeout|stream disconnected|connection reset|econnreset|"
            r"socket hang up"
        ),
    ),
)
_STATUS = re.compile(
    r"api error:? \(?(\d{3})\b|"
    r"\bstatus(?: code)?\W{0,3}(\d{3})\b|"
    r"error code:? (\d{3})\b|"
    r"\"code\"\s*:\s*(\d{3})\b|"
    r"\bhttp(?:/\d(?:\.\d)?)? (\d{3})\b|"
    r"\b(\d{3}) (?:too many requests|unauthorized|forbidden|internal server error|"
    r"bad gateway|service unavailable|gateway timeout|payment required|bad request|not found)"
)
_UNITS = r"milliseconds?|ms|hours?|h|minutes?|mins?|m|seconds?|secs?|s"
_DURATION_PART = re.compile(rf"(\d+(?:\.\d+)?)\s*({_UNITS})(?![a-z])")
_RETRY_AFTER = re.compile(
    r"retry-after[\"']?\s*[:=]\s*[\"']?(?P<bare>\d+(?:\.\d+)?)[\"']?(?=$|[\s,;\"'}])|"
    r"(?:retry[- ]after|try again in|retry in|retrying in|retrydelay\W{0,4})\W{0,3}"
    rf"(?P<duration>(?:\d+(?:\.\d+)?\s*(?:{_UNITS})(?![a-z])\s*)+)"
)
_KEY_LIKE = re.compile(r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{12,}|AIza[0-9A-Za-z_\-]{20,})")
