"""A minimal client for OpenAI-compatible ``/v1/chat/completions`` endpoints.

Standard library only. Proxies come from the environment (``HTTP(S)_PROXY``), which
is how the sandbox routes the agent through the egress proxy.

Every failed request is sorted (:mod:`m4bench.agents.outcome`): an HTTP error answer by
its status and body, no connection at all (or the egress proxy's marked 502) as
``endpoint_unreachable``, a connection that gave no answer as ``provider_error``. Those
are :class:`ProviderFailure`\\ s: the transient ones are tried again (``attempts`` in
all, waiting the provider's ``Retry-After`` when it gives one, else 1 s, 2 s, ...), the
fatal ones (refused credentials, exhausted quota) at once end the call. A 400, 404 or
422 is the request's own fault: a :class:`ChatError`, never retried.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from email.message import Message
from email.utils import parsedate_to_datetime
from typing import Any

from m4bench.agents.outcome import FATAL, InfraKind, classify_http, classify_message
from m4bench.egress_marker import UNREACHABLE_HEADER, UNREACHABLE_VALUE

MAX_WAIT_SECONDS = 60.0
"""The longest ``Retry-After`` waited for inside a run; a longer one ends the call at
once (the campaign waits it out between attempts of the run)."""


class ChatError(RuntimeError):
    """The endpoint answered something that is not a chat completion, or refused the
    request as malformed: the agent's failure."""


class ProviderFailure(ChatError):
    """The model provider or its endpoint failed: ``kind`` is an infrastructure outcome,
    ``retry_after`` the seconds the provider asked to wait (when it said)."""

    def __init__(self, message: str, kind: InfraKind, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind: InfraKind = kind
        self.retry_after = retry_after


class ChatClient:
    """POSTs chat requests to ``<base_url>/chat/completions``."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 300.0,
        attempts: int = 3,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.attempts = attempts

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        for attempt in range(1, self.attempts + 1):
            try:
                return self._post(data, headers)
            except ProviderFailure as failure:
                wait = _wait(attempt, failure.retry_after)
                if failure.kind in FATAL or attempt == self.attempts or wait is None:
                    raise
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _post(self, data: bytes, headers: dict[str, str]) -> Any:
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise _http_failure(self.url, exc) from exc
        except urllib.error.URLError as exc:  # no connection was made (urllib wraps it)
            message = f"{self.url}: {type(exc).__name__}: {exc.reason}"
            raise ProviderFailure(message, "endpoint_unreachable") from exc
        except (TimeoutError, ConnectionError) as exc:  # connected, then no answer
            message = f"{self.url}: {type(exc).__name__}: {exc}"
            raise ProviderFailure(message, "provider_error") from exc
        try:
            return json.loads(raw.decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ChatError(f"{self.url}: response is not JSON: {exc}") from exc


def _http_failure(url: str, exc: urllib.error.HTTPError) -> ChatError:
    """The error an HTTP error answer is: a provider failure of its kind, or the
    request's own fault."""
    body = exc.read()[:4000].decode("utf-8", "replace").strip()
    message = f"{url}: HTTP {exc.code}: {' '.join(body.split())[:500]}"
    kind: InfraKind | None
    if exc.headers is not None and exc.headers.get(UNREACHABLE_HEADER) == UNREACHABLE_VALUE:
        kind = "endpoint_unreachable"  # the egress proxy's own 502: no upstream
    else:
        kind = classify_http(exc.code, body)
        if kind is None and 400 <= exc.code < 500:
            # Some providers (Google) answer a bad key with 400: its words decide.
            named = classify_message(body)
            kind = named if named in FATAL else None
    if kind is None:
        return ChatError(message)
    return ProviderFailure(message, kind, retry_after(exc.headers))


def retry_after(headers: Message | None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date)."""
    value = headers.get("Retry-After") if headers is not None else None
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _wait(attempt: int, asked: float | None) -> float | None:
    """Seconds before try ``attempt + 1``: what the provider asked, else 1 s, 2 s, 4 s
    (at most 10 s); None when the provider asked for longer than a run waits."""
    if asked is not None:
        return asked if asked <= MAX_WAIT_SECONDS else None
    return min(2.0 ** (attempt - 1), 10.0)
