"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1 for runner tests.

Each POST to ``/v1/chat/completions`` gets the next scripted reply and is recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def tool_call(call_id: str, name: str, arguments: dict[str, Any], tokens: dict[str, Any]) -> Any:
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {
        "model": "scripted-model-7",
        "choices": [{"index": 0, "message": message}],
        "usage": tokens,
    }


def answer(text: str, tokens: dict[str, Any]) -> Any:
    message = {"role": "assistant", "content": text}
    return {
        "model": "scripted-model-7",
        "choices": [{"index": 0, "message": message}],
        "usage": tokens,
    }


class ScriptedModel:
    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with model.lock:
                model.requests.append(body)
                reply = model.replies.pop(0) if model.replies else None
            data = json.dumps(reply).encode()
            self.send_response(200 if reply is not None else 500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return

    return Handler


@contextmanager
def serve(replies: list[Any]) -> Iterator[ScriptedModel]:
    model = ScriptedModel(replies)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    model.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        httpd.shutdown()
        httpd.server_close()
