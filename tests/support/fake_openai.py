"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests (agents and runner).

Each POST to ``/v1/chat/completions`` gets the next scripted reply; every request
body is recorded so tests can check what the agent sent. A reply is a chat completion
(a JSON object), a bare HTTP status (an empty error answer), or an :class:`ErrorReply`
(a status with a provider's error body and headers, e.g. ``Retry-After``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def tool_reply(call_id: str, name: str, arguments: dict[str, Any], usage: dict[str, Any]) -> Any:
    return {
        "id": f"chatcmpl-{call_id}",
        "model": "fake-model-1",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": usage,
    }


def text_reply(text: str, usage: dict[str, Any]) -> Any:
    return {
        "id": "chatcmpl-final",
        "model": "fake-model-1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
        "usage": usage,
    }


def usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer: ``status``, a JSON ``body`` (or text), extra ``headers``."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def payload(self) -> bytes:
        if self.body is None:
            return b""
        text = self.body if isinstance(self.body, str) else json.dumps(self.body)
        return text.encode()


class FakeServer:
    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with server.lock:
                server.requests.append(body)
                reply = server.script.pop(0) if server.script else None
            if reply is None or isinstance(reply, int):
                reply = ErrorReply(reply or 500)
            if isinstance(reply, ErrorReply):
                data = reply.payload()
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            data = b"pong"
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return

    return Handler


@contextmanager
def serve(script: list[Any]) -> Iterator[FakeServer]:
    fake = FakeServer(script)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()
