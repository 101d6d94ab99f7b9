"""Infrastructure outcomes: a run that failed because of the model provider, not the model.

Every adapter sorts what it sees (HTTP statuses and provider error bodies for the
built-in agent; each CLI's own error lines and exit codes for the others) into the
model's outcomes (it answered, or the agent failed: scored) and the infrastructure's:

* ``rate_limited``: the provider said "too many requests" (HTTP 429, "rate limit");
* ``provider_error``: the provider failed or was overloaded (HTTP 5xx, "overloaded");
* ``auth_error``: the credentials were missing, wrong or not allowed (HTTP 401/403);
* ``quota_exhausted``: the account has no credit or quota left ("insufficient_quota");
* ``endpoint_unreachable``: no request ever reached the endpoint (refused, no route).

An infrastructure outcome is never scored as the model's answer: the run did not
happen. A campaign retries the transient ones (:data:`TRANSIENT`) with backoff and
stops on the fatal ones (:data:`FATAL`), which no retry can mend.
"""

from __future__ import annotations

import re
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
    request's own fault (400, 404, 422: the agent's failure, not the provider's)."""
    text = body.lower()
    if _QUOTA.search(text):
        return "quota_exhausted"
    if status in (401, 403):
        return "auth_error"
    if status == 402:
        return "quota_exhausted"
    if status == 429:
        return "rate_limited"
    if status >= 500 or status == 408:
        return "provider_error"
    return None


def classify_message(text: str) -> InfraKind | None:
    """The infrastructure kind a provider's or a CLI's error message names, if any.

    Order matters: a quota message often says 429 too, and an overload message may
    mention the rate; the more specific reading wins.
    """
    lowered = text.lower()
    for kind, pattern in _MESSAGE_RULES:
        if pattern.search(lowered):
            return kind
    return None


_QUOTA = re.compile(
    r"insufficient[_ ]quota|quota[_ ]exceeded|exceeded your (current )?quota|"
    r"credit balance is too low|billing|out of credits?|resource[_ ]exhausted.*quota|"
    r"usage limit|payment required"
)
_MESSAGE_RULES: tuple[tuple[InfraKind, re.Pattern[str]], ...] = (
    ("quota_exhausted", _QUOTA),
    (
        "auth_error",
        re.compile(
            r"\b401\b|\b403\b|unauthori[sz]ed|invalid[_ ]api[_ ]key|incorrect api key|"
            r"authentication[_ ]error|api key not valid|permission[_ ]denied|not logged in|"
            r"please run /login|missing api key|no api key"
        ),
    ),
    (
        "rate_limited",
        re.compile(r"\b429\b|rate[_ ]limit|too many requests|rate_limit_exceeded"),
    ),
    (
        "endpoint_unreachable",
        re.compile(
            r"connection refused|econnrefused|name or service not known|enotfound|"
            r"could not resolve|no route to host|network is unreachable|failed to connect"
        ),
    ),
    (
        "provider_error",
        re.compile(
            r"\b5\d\d\b|overloaded|internal server error|service unavailable|bad gateway|"
            r"gateway timeout|server[_ ]error|api_error|unavailable"
        ),
    ),
)
