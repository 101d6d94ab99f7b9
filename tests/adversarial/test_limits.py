"""Loads the timeout does not bound: proxy connections, memory, processes, workdir bytes.

Each test plays the load against the sandbox's cap and checks the cap held; the last
checks that a run record keeps every cap.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from adversarial_helpers import adversarial, make_spec

from m4bench.sandbox import BwrapSandbox, EgressProxy, Limits, SandboxResult, read_egress_log

pytestmark = adversarial


@contextmanager
def holding_upstream() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts every connection and keeps it open."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for conn in held:
            conn.close()


def answered(conn: socket.socket, wait: float) -> bool:
    conn.settimeout(wait)
    try:
        return conn.recv(64).startswith(b"HTTP/1.1 200")
    except TimeoutError:
        return False


def test_proxy_serves_at_most_its_cap_and_queues_the_rest(tmp_path: Path) -> None:
    cap, attempts = 6, 40
    with holding_upstream() as port, ExitStack() as stack:
        log = tmp_path / "egress.jsonl"
        proxy = stack.enter_context(
            EgressProxy(tmp_path / "egress.sock", {f"127.0.0.1:{port}"}, log, cap)
        )
        before = threading.active_count()
        clients = []
        for _ in range(attempts):
            conn = stack.enter_context(socket.socket(socket.AF_UNIX))
            conn.connect(str(proxy.socket_path))
            conn.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
            clients.append(conn)
        served = [answered(conn, 2.0) for conn in clients[:cap]]
        waiting = [answered(conn, 0.01) for conn in clients[cap:]]
        assert all(served) and not any(waiting)
        assert threading.active_count() - before <= cap
        for conn in clients[:cap]:
            conn.close()
        assert answered(clients[cap], 5.0)
    events = read_egress_log(log)
    queued = [event for event in events if event.method == "QUEUED"]
    assert queued and all(event.allowed for event in queued)
    assert f"({cap})" in queued[0].reason


def run(
    tmp_path: Path, limits: Limits, script: str, timeout: float = 30
) -> tuple[str, SandboxResult]:
    spec = make_spec(tmp_path, limits=limits)
    result = BwrapSandbox().run(["sh", "-c", script], spec, timeout=timeout)
    return result.stdout_path.read_text() + result.stderr_path.read_text(), result


def test_memory_grab_fails_at_the_data_cap(tmp_path: Path) -> None:
    grab = "/usr/bin/python3 -c 'b = bytearray(1 << 30); print(\"held\")' 2>&1; echo rc=$?"
    out, _ = run(tmp_path, Limits(data_bytes=256 << 20), grab)
    assert "MemoryError" in out and "held" not in out and "rc=1" in out


def test_fork_flood_stops_at_the_process_cap(tmp_path: Path) -> None:
    flood = (
        "/usr/bin/python3 -c '\n"
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    for _ in range(300):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(20); os._exit(0)\n"
        "        n += 1\n"
        "except OSError:\n"
        "    pass\n"
        'print("forked", n, flush=True)\n'
        "os._exit(0)'"
    )
    out, _ = run(tmp_path, Limits(processes=25), flood)
    assert 0 < int(out.split("forked")[1].split()[0]) < 25


def test_workdir_filler_is_stopped_at_the_byte_cap(tmp_path: Path) -> None:
    limits = Limits(workdir_bytes=8 << 20, file_size_bytes=1 << 20)
    fill = "i=0; while :; do i=$((i+1)); head -c 1048576 /dev/zero > f$i; sleep 0.05; done"
    started = time.monotonic()
    _, result = run(tmp_path, limits, fill, timeout=60)
    assert time.monotonic() - started < 50
    assert result.limit_exceeded is not None and "size limit" in result.limit_exceeded
    assert result.killed and not result.timed_out


def test_workdir_file_flood_is_stopped_at_the_entry_cap(tmp_path: Path) -> None:
    batch = "mkdir d$i; (cd d$i && touch a b c d e f g h)"
    flood = f"i=0; while :; do i=$((i+1)); {batch}; sleep 0.01; done"
    _, result = run(tmp_path, Limits(workdir_entries=500), flood, timeout=60)
    assert result.limit_exceeded is not None and "entries" in result.limit_exceeded


def test_a_burst_between_two_polls_is_still_caught(tmp_path: Path) -> None:
    burst = "for i in 1 2 3 4 5 6; do head -c 1048576 /dev/zero > b$i; done"
    _, result = run(tmp_path, Limits(workdir_bytes=4 << 20), burst)
    assert result.returncode == 0
    assert result.limit_exceeded is not None
