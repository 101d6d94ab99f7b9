"""Token usage as the egress proxy sees it in a provider's plain-HTTP responses.

The agent's trace is written by the agent, and any process of its user id can add lines
to it. Where the proxy carries the provider's responses in the clear (a plain-HTTP
endpoint such as a local model server), it reads the OpenAI-style ``usage`` object of
each response (a JSON body, or the last ``usage`` of a server-sent event stream) and
the ``model`` it names. Those counts come from the provider, not the agent: the runner
takes them as the run's token counts. TLS traffic is opaque to the proxy.

Standard library and pydantic only: the sandbox layer imports nothing of the agents.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

MAX_CAPTURE = 32 << 20
"""Bytes of one connection's responses the proxy keeps to read (more: unreadable)."""


class ObservedUsage(BaseModel):
    """Sums over the responses the proxy could read."""

    responses: int = Field(default=0, ge=0, description="responses that carried a usage object")
    prompt_tokens: int = Field(default=0, ge=0, description="every input token, cached included")
    cached_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    models: list[str] = Field(default_factory=list)
    unreadable: int = Field(
        default=0, ge=0, description="responses the proxy could not read (cut, encoded)"
    )
    opaque: int = Field(default=0, ge=0, description="TLS tunnels, whose responses it cannot read")

    @property
    def complete(self) -> bool:
        """Every response went by in the clear and was read: the counts are the run's."""
        return self.responses > 0 and not self.unreadable and not self.opaque

    def plus(self, other: ObservedUsage) -> ObservedUsage:
        return ObservedUsage(
            responses=self.responses + other.responses,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            models=sorted(set(self.models) | set(other.models)),
            unreadable=self.unreadable + other.unreadable,
            opaque=self.opaque + other.opaque,
        )


def usage_in_responses(data: bytes, truncated: bool = False) -> ObservedUsage:
    """What the HTTP responses in ``data`` (one direction of a connection) report."""
    total = ObservedUsage(unreadable=1 if truncated else 0)
    for headers, body in _responses(data):
        try:
            decoded = _decode(headers.get("content-encoding", ""), body)
        except (OSError, EOFError, zlib.error):
            total = total.plus(ObservedUsage(unreadable=1))
            continue
        total = total.plus(_usage_of_body(decoded))
    return total


def _responses(data: bytes) -> Iterator[tuple[dict[str, str], bytes]]:
    """(headers, body) of each complete response; stops at the first incomplete one."""
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            return
        lines = data[pos:end].decode("latin-1").split("\r\n")
        status = lines[0].split(" ")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        start = end + 4
        if len(status) > 1 and status[1].startswith("1"):
            pos = start  # an interim response has no body
            continue
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body, pos = _dechunk(data, start)
        elif headers.get("content-length", "").isdigit():
            pos = start + int(headers["content-length"])
            body = data[start:pos]
        else:
            body, pos = data[start:], len(data)
        yield headers, body


def _dechunk(data: bytes, pos: int) -> tuple[bytes, int]:
    body = bytearray()
    while True:
        line_end = data.find(b"\r\n", pos)
        if line_end < 0:
            return bytes(body), len(data)
        size_text = data[pos:line_end].split(b";")[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            return bytes(body), len(data)
        pos = line_end + 2
        if size == 0:
            trailer_end = data.find(b"\r\n\r\n", pos - 2)
            return bytes(body), len(data) if trailer_end < 0 else trailer_end + 4
        body += data[pos : pos + size]
        pos += size + 2


def _decode(encoding: str, body: bytes) -> bytes:
    encoding = encoding.lower()
    if encoding in ("", "identity"):
        return body
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    raise OSError(f"content encoding {encoding!r}")


def _usage_of_body(body: bytes) -> ObservedUsage:
    """The usage of one response body: JSON, or the last usage of an event stream."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return ObservedUsage()
    objects: list[Any] = []
    if text.startswith("{"):
        objects = [_json(text)]
    else:
        for line in text.splitlines():
            if line.startswith("data:"):
                objects.append(_json(line[5:].strip()))
    usage: Any = None
    models: set[str] = set()
    for obj in objects:
        if isinstance(obj, dict):
            if isinstance(obj.get("model"), str):
                models.add(obj["model"])
            if isinstance(obj.get("usage"), dict):
                usage = obj["usage"]
    if usage is None:
        return ObservedUsage(models=sorted(models))
    counted = _counts(usage)
    if counted is None:
        return ObservedUsage(models=sorted(models), unreadable=1)
    prompt, cached, completion = counted
    return ObservedUsage(
        responses=1,
        prompt_tokens=prompt,
        cached_tokens=min(cached, prompt),
        completion_tokens=completion,
        models=sorted(models),
    )


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _counts(usage: dict[str, Any]) -> tuple[int, int, int] | None:
    """(prompt, cached, completion) of a Chat Completions or Responses usage object."""
    prompt = usage.get("prompt_tokens", usage.get("input_tokens", 0))
    completion = usage.get("completion_tokens", usage.get("output_tokens", 0))
    details = usage.get("prompt_tokens_details", usage.get("input_tokens_details"))
    cached = details.get("cached_tokens", 0) if isinstance(details, dict) else 0
    values = (prompt, cached or 0, completion)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        return None
    return values
