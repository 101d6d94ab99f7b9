"""Shared builders for sandbox tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from m4bench.sandbox import Limits, Mount, NetworkMode, SandboxSpec


def make_spec(
    tmp_path: Path,
    *,
    mounts: tuple[Mount, ...] = (),
    env: dict[str, str] | None = None,
    network: NetworkMode = NetworkMode.NONE,
    allowed: tuple[str, ...] = (),
    limits: Limits | None = None,
    grace: float = 1.0,
    proxy_port: int = 18080,
) -> SandboxSpec:
    workdir = tmp_path / "workdir"
    workdir.mkdir(exist_ok=True)
    return SandboxSpec(
        workdir=workdir,
        log_dir=tmp_path / "logs",
        mounts=mounts,
        env=env if env is not None else {"PATH": "/usr/bin:/bin"},
        network=network,
        allowed_endpoints=allowed,
        limits=limits or Limits(),
        kill_grace_seconds=grace,
        proxy_port=proxy_port,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Hits:
    def __init__(self) -> None:
        self.count = 0
        self.port = 0


@contextmanager
def http_server(body: bytes = b"hello from upstream") -> Iterator[Hits]:
    """A host-side HTTP server on 127.0.0.1 that counts the requests it gets."""
    hits = Hits()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.count += 1
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hits.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield hits
    finally:
        httpd.shutdown()
        httpd.server_close()
