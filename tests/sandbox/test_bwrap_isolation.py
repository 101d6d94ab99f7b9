"""Inside bwrap a command sees only what the spec gives it and cannot escape its limits."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from sandbox_helpers import http_server, make_spec

from m4bench.sandbox import BwrapSandbox, Limits, Mount, SandboxResult, SandboxSpec

pytestmark = needs_bwrap


def run(spec: SandboxSpec, script: str, timeout: float = 20) -> tuple[SandboxResult, str]:
    result = BwrapSandbox().run(["sh", "-c", script], spec, timeout=timeout)
    out = result.stdout_path.read_text() + result.stderr_path.read_text()
    return result, out


def test_unmounted_host_paths_are_invisible(tmp_path: Path) -> None:
    truth = tmp_path / "ground_truth.csv"
    # A value that cannot occur in the error text (the tmp path holds digits like 42).
    truth.write_text("subject_id,answer\n1,answer-only-in-the-truth\n")
    home = Path.home()
    spec = make_spec(tmp_path)
    script = f"cat {truth}; echo rc=$?; ls {home}; echo home=$?; ls {tmp_path}; echo tmp=$?"
    result, out = run(spec, script)
    assert result.returncode == 0
    assert "answer-only-in-the-truth" not in out
    assert "rc=1" in out and "home=2" in out and "tmp=2" in out, out


def test_mounts_are_read_only_and_writes_stay_in_the_workdir(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "table.parquet").write_text("rows")
    spec = make_spec(tmp_path, mounts=(Mount(host=data, sandbox=Path("/data")),))
    script = (
        "cat /data/table.parquet; echo; echo x > /data/table.parquet; echo data=$?; "
        "touch /usr/evil; echo usr=$?; touch /evil; echo root=$?; "
        "echo private > /tmp/scratch; echo tmp=$?; echo ok > out.txt; pwd"
    )
    result, out = run(spec, script)
    assert result.returncode == 0
    assert "rows" in out
    assert "data=0" not in out and "usr=0" not in out and "root=0" not in out
    assert "tmp=0" in out and "/workdir" in out
    assert (data / "table.parquet").read_text() == "rows"
    assert (spec.workdir / "out.txt").read_text() == "ok\n"
    assert not Path("/usr/evil").exists()
    assert not list(Path("/tmp").glob("scratch"))


def test_only_loopback_and_no_route_to_host_ports(tmp_path: Path) -> None:
    with http_server() as hits:
        probe = (
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {hits.port}), timeout=2)\n"
            "    print('connected')\n"
            "except OSError as exc:\n"
            "    print('refused', exc)\n"
        )
        spec = make_spec(tmp_path)
        result, out = run(spec, f'cat /proc/net/dev; /usr/bin/python3 -c "{probe}"')
        assert hits.count == 0
    assert result.returncode == 0
    interfaces = [line.split(":")[0].strip() for line in out.splitlines() if ":" in line]
    assert interfaces[-1:] == ["lo"] and "refused" in out
    assert [name for name in interfaces if name.isalnum()] == ["lo"]


def test_environment_is_only_what_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("M4BENCH_TEST_SECRET", "sk-should-not-leak")
    spec = make_spec(tmp_path, env={"PATH": "/usr/bin:/bin", "GIVEN": "yes"})
    result, out = run(spec, "env")
    assert result.returncode == 0
    names = {line.split("=", 1)[0] for line in out.splitlines() if "=" in line}
    assert "sk-should-not-leak" not in out
    assert names <= {"PATH", "GIVEN", "PWD", "SHLVL", "_"}
    assert "GIVEN=yes" in out


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, grace=0.5)
    script = "(while true; do echo x >> beat; sleep 0.05; done) & sleep 60"
    result, _ = run(spec, script, timeout=1.0)
    assert result.timed_out and result.killed
    assert result.elapsed_seconds < 5
    beat = spec.workdir / "beat"
    size = beat.stat().st_size
    time.sleep(0.4)
    assert beat.stat().st_size == size


def test_fork_bomb_is_contained_by_the_process_limit(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, limits=Limits(processes=20))
    bomb = (
        "import os, time\n"
        "count = 0\n"
        "try:\n"
        "    for _ in range(2000):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30); os._exit(0)\n"
        "        count += 1\n"
        "    print('unbounded', count, flush=True)\n"
        "except OSError as exc:\n"
        "    print('blocked after', count, exc.errno, flush=True)\n"
        "os._exit(0)\n"
    )
    (spec.workdir / "bomb.py").write_text(bomb)
    result, out = run(spec, "/usr/bin/python3 bomb.py", timeout=20)
    assert "blocked after" in out, out
    assert int(out.split("blocked after")[1].split()[0]) <= 20
    assert result.returncode == 0


def test_file_size_limit_stops_a_disk_filler(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, limits=Limits(file_size_bytes=1 << 20))
    result, _ = run(spec, "dd if=/dev/zero of=filler bs=64K count=100 2>/dev/null; echo dd=$?")
    assert (spec.workdir / "filler").stat().st_size <= 1 << 20
    assert "dd=0" not in result.stdout_path.read_text()


def test_private_tmp_has_its_size_cap(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, limits=Limits(tmp_size_bytes=4 << 20))
    result, out = run(spec, "dd if=/dev/zero of=/tmp/fill bs=1M count=16 2>&1; ls -l /tmp/fill")
    assert result.returncode == 0
    size = int(out.split()[-5]) if "/tmp/fill" in out else 0
    assert 0 < size <= 4 << 20


def test_harness_processes_are_not_visible(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    result, out = run(spec, "ls /proc | grep -c '^[0-9]'")
    assert result.returncode == 0
    assert int(out.strip()) < 10
    assert str(os.getpid()) not in out.split()


def test_setup_failure_is_told_apart_from_the_commands_exit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    broken = make_spec(tmp_path, mounts=(Mount(host=data, sandbox=Path("/usr/m4bench-x")),))
    result, _ = run(broken, "exit 1")
    assert not result.sandbox_started
    assert result.sandbox_error is not None and "bwrap" in result.sandbox_error
    (tmp_path / "second").mkdir()
    ok = make_spec(tmp_path / "second")
    result, _ = run(ok, "exit 1")
    assert (result.returncode, result.sandbox_started, result.sandbox_error) == (1, True, None)


def test_cpu_time_and_address_space_limits(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    spec = make_spec(tmp_path / "cpu", limits=Limits(cpu_seconds=1))
    result, _ = run(spec, "while :; do :; done", timeout=20)
    assert not result.timed_out and result.returncode != 0 and result.elapsed_seconds < 10
    (tmp_path / "memory").mkdir()
    spec = make_spec(tmp_path / "memory", limits=Limits(address_space_bytes=256 << 20))
    grab = "/usr/bin/python3 -c 'b = bytearray(1 << 30)' 2>&1; echo rc=$?"
    result, out = run(spec, grab)
    assert "MemoryError" in out and "rc=1" in out


def test_a_mount_deep_under_tmp_is_reachable(tmp_path: Path) -> None:
    # A checkout or virtual environment living under /tmp (as CI clones may) is bound
    # at its own path; its parents must be traversable inside the fresh /tmp tmpfs.
    runtime = Path("/tmp") / f"m4bench-mount-{os.getpid()}" / "deep" / "venv"
    runtime.mkdir(parents=True)
    try:
        (runtime / "marker.txt").write_text("reachable")
        spec = make_spec(tmp_path, mounts=(Mount(host=runtime, sandbox=runtime),))
        result, out = run(spec, f"cat {runtime}/marker.txt")
        assert result.returncode == 0, out
        assert "reachable" in out
    finally:
        (runtime / "marker.txt").unlink()
        for path in (runtime, runtime.parent, runtime.parent.parent):
            path.rmdir()
