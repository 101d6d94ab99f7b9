"""Serving a view on this machine only: the standard library's HTTP server, bound to
127.0.0.1, serving the view's folder and nothing above it."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from m4bench.errors import M4BenchError
from m4bench.viewer.links import INDEX_FILE

HOST = "127.0.0.1"
DEFAULT_PORT = 8765


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves files; keeps the terminal for the URL instead of one line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        return


def view_server(folder: Path, port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    """A server of ``folder`` on 127.0.0.1 (``port`` 0 picks a free port); call its
    ``serve_forever`` and, when done, ``server_close``."""
    if not (folder / INDEX_FILE).is_file():
        raise M4BenchError(
            f"{folder}: no {INDEX_FILE} to serve", hint="build the view first (m4bench view)"
        )
    handler = functools.partial(_QuietHandler, directory=str(folder))
    try:
        return ThreadingHTTPServer((HOST, port), handler)
    except OSError as exc:
        raise M4BenchError(
            f"cannot serve on {HOST}:{port}: {exc.strerror or exc}",
            hint="choose another --port (0 picks a free one)",
        ) from exc


def server_url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}/{INDEX_FILE}"
