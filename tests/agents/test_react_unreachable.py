"""An endpoint the react agent never reaches is a provider failure (its own exit status,
the kind in the trace), as a server failing with 5xx is; the egress proxy says why it
could not connect. (More provider failures: test_react_provider_failures.py.)"""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest
from fake_openai import serve, text_reply, tool_reply, usage

from m4bench.agents.base import AgentContext
from m4bench.agents.react import client as react_client
from m4bench.agents.react.__main__ import main
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.agents.react.loop import EXIT_PROVIDER, ReactConfig, run_react
from m4bench.sandbox import egress


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(react_client.time, "sleep", lambda seconds: None)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_main(tmp_path: Path, endpoint: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, Path]:
    """``python -m m4bench.agents.react`` in process; its stdout is the trace."""
    (tmp_path / "instruction.md").write_text("Write output.csv.")
    argv = ["--endpoint", endpoint, "--model", "m", "--instruction"]
    argv += [str(tmp_path / "instruction.md"), "--workdir", str(tmp_path)]
    code = main(argv)
    trace = tmp_path / "trace.jsonl"
    trace.write_text(capsys.readouterr().out)
    return code, trace


def test_a_refused_connection_exits_with_the_unreachable_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}/v1"
    code, trace = run_main(tmp_path, endpoint, capsys)
    assert code == EXIT_PROVIDER == 5
    ctx = AgentContext(workdir=tmp_path, instruction_path=tmp_path / "i", endpoint=endpoint)
    failure = ReactAdapter().infrastructure_failure(ctx, code, trace)
    assert failure is not None and failure.kind == "endpoint_unreachable"
    message = failure.describe()
    assert message.startswith(f"the model endpoint could not be reached: {endpoint} (")
    assert "Connection refused" in message
    assert message.endswith("start the model server or fix --endpoint")


def test_a_server_that_answers_5xx_is_a_provider_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve([502, 502, 502]) as server:  # the server's own 502, not the proxy's
        code, trace = run_main(tmp_path, server.base_url, capsys)
        requests = len(server.requests)
    assert (code, requests) == (EXIT_PROVIDER, 3)  # tried three times, then gave up
    ctx = AgentContext(workdir=tmp_path, instruction_path=tmp_path / "i", endpoint="x")
    failure = ReactAdapter().infrastructure_failure(ctx, code, trace)
    assert failure is not None and failure.kind == "provider_error"
    assert failure.describe() == "the provider failed or was overloaded: x: HTTP 502:"


def test_an_endpoint_lost_after_the_first_answer_is_still_the_providers_failure(
    tmp_path: Path,
) -> None:
    replies = [tool_reply("c1", "read_file", {"path": "none"}, usage(10, 1)), 401]
    with serve(replies) as server:
        config = ReactConfig(endpoint=server.base_url, model="m", instruction="x", workdir=tmp_path)
        trajectory = run_react(config, out=io.StringIO())
        requests = len(server.requests)
    assert (trajectory.extra or {}).get("stop_reason") == "auth_error"
    assert requests == 2, "refused credentials are never tried again"
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent"]
    # and a model that finishes is not affected
    with serve([text_reply("done", usage(1, 1))]) as server:
        config = ReactConfig(endpoint=server.base_url, model="m", instruction="x", workdir=tmp_path)
        assert run_react(config, out=io.StringIO()).extra["stop_reason"] == "done"


def test_the_proxys_502_says_the_upstream_refused_and_is_marked(tmp_path: Path) -> None:
    port = closed_port()
    log = tmp_path / "egress.jsonl"
    proxy = egress.EgressProxy(tmp_path / "e.sock", {f"127.0.0.1:{port}"}, log)
    with proxy, socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(proxy.socket_path))
        request = f"POST http://127.0.0.1:{port}/v1/chat/completions HTTP/1.1\r\n"
        conn.sendall(f"{request}Host: 127.0.0.1\r\nContent-Length: 0\r\n\r\n".encode())
        reply = b""
        while chunk := conn.recv(4096):
            reply += chunk
    text = reply.decode()
    assert text.startswith("HTTP/1.1 502 Bad Gateway\r\n")
    assert f"the upstream 127.0.0.1:{port} refused the connection" in text
    assert "blocked" not in text
    assert f"\r\n{egress.UNREACHABLE_HEADER}: {egress.UNREACHABLE_VALUE}\r\n" in text
    # the agent's client reads the very marker the proxy writes
    assert (react_client.UNREACHABLE_HEADER, react_client.UNREACHABLE_VALUE) == (
        egress.UNREACHABLE_HEADER,
        egress.UNREACHABLE_VALUE,
    )
    assert '"allowed":true' in log.read_text()


def test_a_refused_host_is_still_reported_as_blocked(tmp_path: Path) -> None:
    log = tmp_path / "egress.jsonl"
    proxy = egress.EgressProxy(tmp_path / "e.sock", {"127.0.0.1:1"}, log)
    with proxy, socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(proxy.socket_path))
        conn.sendall(b"CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example\r\n\r\n")
        reply = conn.recv(4096).decode()
    assert reply.startswith("HTTP/1.1 403 Forbidden\r\n")
    assert "blocked by the m4bench egress proxy: evil.example:443 is not on the allowlist" in reply
    assert egress.UNREACHABLE_HEADER not in reply
