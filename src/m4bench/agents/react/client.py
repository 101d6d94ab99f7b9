"""A minimal client for OpenAI-compatible ``/v1/chat/completions`` endpoints.

Standard library only. Proxies come from the environment (``HTTP(S)_PROXY``), which
is how the sandbox routes the agent through the egress proxy.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from m4bench.egress_marker import UNREACHABLE_HEADER, UNREACHABLE_VALUE

_RETRY_STATUS = (429, 500, 502, 503, 504)


class ChatError(RuntimeError):
    """The endpoint failed or answered something that is not a chat completion."""


class EndpointUnreachable(ChatError):
    """No attempt reached the endpoint: no connection (refused, DNS failure, no route)
    or the egress proxy's own 502 for an upstream it could not reach."""


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
        last, reached = "", False
        for attempt in range(self.attempts):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}: {exc.read()[:500].decode('utf-8', 'replace').strip()}"
                marker = exc.headers.get(UNREACHABLE_HEADER) if exc.headers else None
                reached = reached or marker != UNREACHABLE_VALUE
                if exc.code not in _RETRY_STATUS:
                    break
            except urllib.error.URLError as exc:  # no connection was made (urllib wraps it)
                last = f"{type(exc).__name__}: {exc.reason}"
            except (TimeoutError, ConnectionError) as exc:  # connected, then no answer
                last, reached = f"{type(exc).__name__}: {exc}", True
            except json.JSONDecodeError as exc:
                raise ChatError(f"{self.url}: response is not JSON: {exc}") from exc
            if attempt + 1 < self.attempts:
                time.sleep(min(2.0**attempt, 10.0))
        raise (ChatError if reached else EndpointUnreachable)(f"{self.url}: {last}")
