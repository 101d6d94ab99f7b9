"""The allowlisting egress proxy that runs outside the sandbox.

It listens on a Unix socket; the sandbox gets the socket bind-mounted and a small
bridge (``egress_bridge.py``) that exposes it as ``127.0.0.1:<port>`` inside the
sandbox's own network namespace. It speaks HTTP ``CONNECT`` (for TLS) and plain-HTTP
forwarding with absolute URIs. A connection is allowed only to an exact ``host:port``
on the allowlist; every attempt, allowed or refused, is appended to a JSONL log that
lives outside the workdir.

At most ``max_connections`` connections are served at once (one host thread each);
further ones wait in the socket's backlog for a free slot, and the first wait of each
busy spell is logged (method ``QUEUED``). Responses carried in the clear (plain-HTTP
forwarding, or a tunnel whose client does not start TLS) are read for the provider's
token counts (:mod:`m4bench.sandbox.observed`).
"""

from __future__ import annotations

import contextlib
import selectors
import shutil
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel

from m4bench.egress_marker import UNREACHABLE_HEADER, UNREACHABLE_VALUE
from m4bench.errors import M4BenchError
from m4bench.sandbox.observed import MAX_CAPTURE, ObservedUsage, usage_in_responses

_MAX_HEAD = 64 * 1024
_CONNECT_TIMEOUT = 15.0
_BUFFER = 64 * 1024
_TLS_HANDSHAKE = 0x16
QUEUED = "QUEUED"


class EgressEvent(BaseModel):
    """One connection attempt seen by the proxy."""

    ts: float
    method: str
    host: str
    port: int
    allowed: bool
    reason: str


def read_egress_log(path: Path) -> list[EgressEvent]:
    """The events of an egress log; a damaged line is an error naming file and line."""
    events = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: egress log not found", hint="was the proxy started?") from exc
    for number, line in enumerate(lines, start=1):
        try:
            events.append(EgressEvent.model_validate_json(line))
        except ValueError as exc:
            raise M4BenchError(
                f"{path}:{number}: not an egress event: {line[:80]!r}",
                hint="the log is written only by the harness; a damaged line means "
                "the file was changed after the run",
            ) from exc
    return events


def refused(events: list[EgressEvent]) -> list[EgressEvent]:
    """Attempts the proxy refused (each one is an egress violation)."""
    return [event for event in events if not event.allowed]


def proxy_environment(port: int) -> dict[str, str]:
    """Variables that point HTTP clients inside the sandbox at the bridge."""
    url = f"http://127.0.0.1:{port}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
    env = dict.fromkeys(names, url)
    env["NO_PROXY"] = env["no_proxy"] = ""
    return env


class _Request(BaseModel):
    method: str
    host: str
    port: int
    head: bytes
    rest: bytes


class EgressProxy:
    """A threaded allowlisting proxy on a Unix socket. ``start()`` then ``stop()``."""

    def __init__(
        self, socket_path: Path, allowlist: set[str], log_path: Path, max_connections: int = 32
    ) -> None:
        self.socket_path = socket_path
        self.allowlist = {item.lower() for item in allowlist}
        self.log_path = log_path
        self.max_connections = max_connections
        self._slots = threading.BoundedSemaphore(max_connections)
        self._workers: set[threading.Thread] = set()
        self._observed = ObservedUsage()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()
        self._open: set[socket.socket] = set()

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.touch()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(str(self.socket_path))
        except OSError as exc:
            server.close()
            raise M4BenchError(
                f"{self.socket_path}: cannot listen for the egress proxy: {exc}",
                hint="the path must be short (under 108 bytes) and its directory writable",
            ) from exc
        # The directory (mode 0700) guards the socket on the host; inside the sandbox an
        # unprivileged user must be able to connect.
        self.socket_path.chmod(0o666)
        server.listen(128)
        server.settimeout(0.2)
        self._server = server
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None and self._thread.is_alive():
            # Wake the blocking accept() so the loop sees the stop flag at once.
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as waker:
                waker.connect(str(self.socket_path))
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._server is not None:
            self._server.close()
        with self._lock:
            for conn in list(self._open):
                with contextlib.suppress(OSError):
                    conn.close()
            workers = list(self._workers)
        for worker in workers:  # each reads what its connection carried, then ends
            worker.join(timeout=2)
        with contextlib.suppress(OSError):
            self.socket_path.unlink()
        if self.socket_path.parent.name.startswith("m4bench-egress-"):
            shutil.rmtree(self.socket_path.parent, ignore_errors=True)

    def __enter__(self) -> EgressProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def observed_usage(self) -> ObservedUsage | None:
        """Token counts read in responses so far; None when no response carried any."""
        with self._lock:
            seen = self._observed
        return seen if seen.responses or seen.unreadable or seen.opaque else None

    def _accept_loop(self) -> None:
        assert self._server is not None
        while not self._stopping.is_set():
            if not self._free_slot():
                return
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                self._slots.release()
                continue
            except OSError:
                self._slots.release()
                return
            if self._stopping.is_set():
                client.close()
                self._slots.release()
                return
            worker = threading.Thread(target=self._serve, args=(client,), daemon=True)
            with self._lock:
                self._workers.add(worker)
            worker.start()

    def _free_slot(self) -> bool:
        """Wait for a free connection slot (False: the proxy is stopping)."""
        if self._slots.acquire(blocking=False):
            return True
        self._log(QUEUED, "", 0, True, f"connection cap ({self.max_connections}) reached: waiting")
        while not self._stopping.is_set():
            if self._slots.acquire(timeout=0.2):
                return True
        return False

    def _log(self, method: str, host: str, port: int, allowed: bool, reason: str) -> None:
        event = EgressEvent(
            ts=round(time.monotonic() - self._started, 3),
            method=method,
            host=host,
            port=port,
            allowed=allowed,
            reason=reason,
        )
        with self._lock, self.log_path.open("a", encoding="utf-8") as handle:
            handle.write(event.model_dump_json() + "\n")

    def _serve(self, client: socket.socket) -> None:
        with self._lock:
            self._open.add(client)
        try:
            self._handle(client)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(client)
                self._workers.discard(threading.current_thread())
            with contextlib.suppress(OSError):
                client.close()
            self._slots.release()

    def _note(self, tap: _Tap) -> None:
        if tap.reading and tap.data:
            seen = usage_in_responses(bytes(tap.data), truncated=tap.truncated)
        elif tap.reading is False:
            seen = ObservedUsage(opaque=1)
        else:
            return
        with self._lock:
            self._observed = self._observed.plus(seen)

    def _handle(self, client: socket.socket) -> None:
        client.settimeout(_CONNECT_TIMEOUT)
        request, problem = _read_request(client)
        if request is None:
            self._log("?", "", 0, False, problem)
            _reply(client, 400, "Bad Request", f"refused by the m4bench egress proxy: {problem}")
            return
        target = f"{request.host}:{request.port}"
        if target not in self.allowlist:
            self._log(request.method, request.host, request.port, False, "not on the allowlist")
            _reply(
                client,
                403,
                "Forbidden",
                f"blocked by the m4bench egress proxy: {target} is not on the allowlist",
            )
            return
        try:
            upstream = socket.create_connection(
                (request.host, request.port), timeout=_CONNECT_TIMEOUT
            )
        except OSError as exc:
            self._log(request.method, request.host, request.port, True, f"upstream error: {exc}")
            _reply(client, 502, "Bad Gateway", _upstream_failure(target, exc), unreachable=True)
            return
        self._log(request.method, request.host, request.port, True, "allowlisted")
        tap = _Tap(reading=None if request.method == "CONNECT" else True)
        with upstream:
            if request.method == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if request.rest:
                    tap.first_sent(request.rest)
                    upstream.sendall(request.rest)
            else:
                upstream.sendall(request.head + request.rest)
            try:
                _relay(client, upstream, self._stopping, tap)
            finally:
                self._note(tap)


def _upstream_failure(target: str, exc: OSError) -> str:
    """What went wrong reaching an allowlisted upstream (the proxy allowed it)."""
    if isinstance(exc, ConnectionRefusedError):
        what = f"the upstream {target} refused the connection"
    elif isinstance(exc, socket.gaierror):
        what = f"the upstream host of {target} could not be resolved ({exc})"
    elif isinstance(exc, TimeoutError):
        what = f"the upstream {target} did not accept the connection in {_CONNECT_TIMEOUT:g} s"
    else:
        what = f"the upstream {target} could not be reached ({exc})"
    return f"{what} (allowed by the m4bench egress proxy)"


def _reply(
    client: socket.socket, code: int, text: str, detail: str, unreachable: bool = False
) -> None:
    body = f"{code} {text}: {detail}\n".encode()
    lines = [f"HTTP/1.1 {code} {text}", f"Content-Length: {len(body)}", "Connection: close"]
    if unreachable:
        lines.append(f"{UNREACHABLE_HEADER}: {UNREACHABLE_VALUE}")
    head = "\r\n".join([*lines, "", ""])
    with contextlib.suppress(OSError):
        client.sendall(head.encode() + body)


def _read_request(client: socket.socket) -> tuple[_Request | None, str]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(4096)
        if not chunk:
            return None, "connection closed before a complete request head"
        data += chunk
        if len(data) > _MAX_HEAD:
            return None, "request head too large"
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None, f"malformed request line {lines[0][:80]!r}"
    method, target, version = parts
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        if not port.isdigit():
            return None, f"CONNECT target without a port: {target[:80]!r}"
        return _Request(method=method, host=_host(host), port=int(port), head=b"", rest=rest), ""
    return _forward_request(method, target, version, lines[1:], rest)


def _forward_request(
    method: str, target: str, version: str, headers: list[str], rest: bytes
) -> tuple[_Request | None, str]:
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        return None, f"only absolute http:// URIs can be forwarded, got {target[:80]!r}"
    try:
        port = url.port or 80
    except ValueError:
        return None, f"bad port in {target[:80]!r}"
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    # Identity encoding, so the proxy can read the provider's usage in the response.
    dropped = ("proxy-", "connection:", "accept-encoding:")
    kept = [h for h in headers if not h.lower().startswith(dropped)]
    lines = [f"{method} {path} {version}", *kept, "Connection: close", "", ""]
    head = "\r\n".join(lines).encode("latin-1")
    return _Request(method=method, host=_host(url.hostname), port=port, head=head, rest=rest), ""


def _host(raw: str) -> str:
    return raw.strip("[]").lower()


class _Tap:
    """What came back over one connection, kept (up to a cap) when it is not TLS.

    ``reading``: True for plain-HTTP forwarding; None for a tunnel until its client's
    first bytes tell whether it starts TLS.
    """

    def __init__(self, reading: bool | None) -> None:
        self.reading = reading
        self.data = bytearray()
        self.truncated = False

    def first_sent(self, chunk: bytes) -> None:
        if self.reading is None and chunk:
            self.reading = chunk[0] != _TLS_HANDSHAKE

    def received(self, chunk: bytes) -> None:
        if not self.reading or self.truncated:
            return
        if len(self.data) + len(chunk) > MAX_CAPTURE:
            self.truncated = True
            return
        self.data += chunk


def _relay(a: socket.socket, b: socket.socket, stopping: threading.Event, tap: _Tap) -> None:
    """Copy bytes both ways (``a`` the client) until either side closes."""
    a.settimeout(None)
    b.settimeout(None)
    with selectors.DefaultSelector() as selector:
        selector.register(a, selectors.EVENT_READ, b)
        selector.register(b, selectors.EVENT_READ, a)
        while not stopping.is_set():
            for key, _ in selector.select(timeout=0.5):
                source: socket.socket = key.fileobj  # type: ignore[assignment]
                sink: socket.socket = key.data
                chunk = source.recv(_BUFFER)
                if not chunk:
                    return
                if source is a:
                    tap.first_sent(chunk)
                else:
                    tap.received(chunk)
                sink.sendall(chunk)
