"""The egress proxy allows exact host:port entries, refuses the rest, and logs both."""

from __future__ import annotations

import json
import socket
import tempfile
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from sandbox_helpers import free_port, http_server, make_spec

from m4bench.errors import M4BenchError
from m4bench.sandbox import (
    BwrapSandbox,
    EgressProxy,
    NetworkMode,
    NoSandbox,
    SandboxSpec,
    read_egress_log,
    refused,
)


def exchange(socket_path: Path, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        conn.connect(str(socket_path))
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        return data


def events(log: Path) -> list[dict[str, object]]:
    return [event.model_dump() for event in read_egress_log(log)]


@pytest.fixture
def short_dir() -> Path:
    # Unix socket paths must stay under 108 bytes; pytest's tmp_path can be longer.
    return Path(tempfile.mkdtemp(prefix="m4bench-egress-"))


def test_forward_allowed_and_refused(tmp_path: Path, short_dir: Path) -> None:
    log = tmp_path / "egress.jsonl"
    with http_server() as allowed, http_server() as other:
        allow = {f"127.0.0.1:{allowed.port}"}
        with EgressProxy(short_dir / "egress.sock", allow, log) as proxy:
            ok = exchange(
                proxy.socket_path,
                f"GET http://127.0.0.1:{allowed.port}/v1 HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
            )
            refused = exchange(
                proxy.socket_path,
                f"GET http://127.0.0.1:{other.port}/ HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
            )
            connect = exchange(proxy.socket_path, b"CONNECT example.org:443 HTTP/1.1\r\n\r\n")
            garbage = exchange(proxy.socket_path, b"HELLO\r\n\r\n")
        assert allowed.count == 1 and other.count == 0
    assert ok.startswith(b"HTTP/1.0 200") and ok.endswith(b"hello from upstream")
    assert refused.startswith(b"HTTP/1.1 403") and connect.startswith(b"HTTP/1.1 403")
    assert garbage.startswith(b"HTTP/1.1 400")
    logged = events(log)
    assert [(e["method"], e["port"], e["allowed"]) for e in logged] == [
        ("GET", allowed.port, True),
        ("GET", other.port, False),
        ("CONNECT", 443, False),
        ("?", 0, False),
    ]
    assert logged[2]["host"] == "example.org"


def test_connect_tunnel_to_an_allowed_endpoint(tmp_path: Path, short_dir: Path) -> None:
    log = tmp_path / "egress.jsonl"
    with http_server() as upstream:
        allow = {f"127.0.0.1:{upstream.port}"}
        with EgressProxy(short_dir / "egress.sock", allow, log) as proxy:
            request = (
                f"CONNECT 127.0.0.1:{upstream.port} HTTP/1.1\r\n\r\n"
                "GET / HTTP/1.0\r\nHost: x\r\n\r\n"
            ).encode()
            reply = exchange(proxy.socket_path, request)
    assert reply.startswith(b"HTTP/1.1 200 Connection established")
    assert reply.endswith(b"hello from upstream")
    assert events(log)[0]["allowed"] is True


def test_log_dir_inside_the_workdir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    with pytest.raises(ValueError, match="inside the workdir"):
        SandboxSpec(workdir=tmp_path / "w", log_dir=tmp_path / "w" / "logs")


def test_endpoints_must_be_host_and_port(tmp_path: Path) -> None:
    workdir, logs = tmp_path / "w", tmp_path / "logs"
    with pytest.raises(ValueError, match="host:port"):
        SandboxSpec(workdir=workdir, log_dir=logs, allowed_endpoints=("api.x.com",))
    endpoints = ("API.X.com:443", "[::1]:8080")
    spec = SandboxSpec(workdir=workdir, log_dir=logs, allowed_endpoints=endpoints)
    assert spec.allowed_endpoints == ("::1:8080", "api.x.com:443")
    with pytest.raises(ValueError, match="name 'A=B' is not valid"):
        SandboxSpec(workdir=workdir, log_dir=logs, env={"A=B": "x"})


CLIENT = """
import sys, urllib.request
for url in sys.argv[1:]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            print(url, 'OK', r.read().decode())
    except Exception as exc:
        print(url, 'FAIL', exc)
"""


def proxied_run(tmp_path: Path, sandbox: BwrapSandbox | NoSandbox) -> tuple[str, Path, int, int]:
    with http_server() as allowed, http_server() as other:
        spec = make_spec(
            tmp_path,
            network=NetworkMode.PROXY,
            allowed=(f"127.0.0.1:{allowed.port}",),
            # Without isolation the bridge listens on the host's own loopback.
            proxy_port=free_port() if isinstance(sandbox, NoSandbox) else 18080,
        )
        (spec.workdir / "client.py").write_text(CLIENT)
        urls = [f"http://127.0.0.1:{allowed.port}/", f"http://127.0.0.1:{other.port}/"]
        result = sandbox.run(["/usr/bin/python3", "client.py", *urls], spec, timeout=30)
        out = result.stdout_path.read_text() + result.stderr_path.read_text()
        return out, spec.egress_log_path, allowed.count, other.count


@pytest.mark.bwrap
@pytest.mark.parametrize("marks", [needs_bwrap])
def test_sandbox_reaches_only_the_allowlisted_endpoint(tmp_path: Path, marks: object) -> None:
    out, log, allowed_hits, other_hits = proxied_run(tmp_path, BwrapSandbox())
    lines = out.splitlines()
    assert any("OK hello from upstream" in line for line in lines), out
    assert any("FAIL" in line and "403" in line for line in lines), out
    assert (allowed_hits, other_hits) == (1, 0)
    assert [e["allowed"] for e in events(log)] == [True, False]
    assert not (tmp_path / "workdir" / "egress.jsonl").exists()


def test_none_backend_routes_through_the_proxy_but_is_not_publishable(tmp_path: Path) -> None:
    out, log, allowed_hits, other_hits = proxied_run(tmp_path, NoSandbox())
    assert (allowed_hits, other_hits) == (1, 0), out
    assert [e["allowed"] for e in events(log)] == [True, False]
    spec = make_spec(tmp_path)
    result = NoSandbox().run(["true"], spec, timeout=10)
    assert result.returncode == 0 and not result.publishable
    assert "does not isolate" in result.publishable_reason


def test_damaged_egress_log_is_named(tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    event = {"ts": 0.1, "method": "GET", "host": "a", "port": 80, "allowed": False, "reason": "x"}
    log.write_text(json.dumps(event) + "\n{broken\n")
    with pytest.raises(M4BenchError, match=r"egress\.jsonl:2: not an egress event"):
        read_egress_log(log)
    log.write_text(json.dumps(event) + "\n")
    assert [e.host for e in refused(read_egress_log(log))] == ["a"]
