"""Process lifecycle and bad input, for every backend that can run here."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from sandbox_helpers import make_spec

from m4bench.errors import M4BenchError
from m4bench.sandbox import Mount, NoSandbox, check_bwrap_available, get_sandbox


def test_none_backend_timeout_kills_background_children(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, grace=0.3)
    script = "(while true; do echo x >> beat; sleep 0.05; done) & sleep 60"
    result = NoSandbox().run(["sh", "-c", script], spec, timeout=0.8)
    assert result.timed_out and result.killed and not result.publishable
    size = (spec.workdir / "beat").stat().st_size
    time.sleep(0.3)
    assert (spec.workdir / "beat").stat().st_size == size


def test_exit_code_and_output_files(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    result = NoSandbox().run(["sh", "-c", "echo out; echo err >&2; exit 3"], spec, timeout=10)
    assert (result.returncode, result.timed_out, result.killed) == (3, False, False)
    assert result.stdout_path.read_text() == "out\n"
    assert result.stderr_path.read_text() == "err\n"
    assert result.stdout_path.parent == tmp_path / "logs"


def test_bad_input_is_named(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    with pytest.raises(M4BenchError, match="empty command"):
        NoSandbox().start([], spec)
    missing = make_spec(tmp_path, mounts=(Mount(host=tmp_path / "absent", sandbox=Path("/d")),))
    with pytest.raises(M4BenchError, match="absent: mount source does not exist"):
        NoSandbox().start(["true"], missing)
    with pytest.raises(M4BenchError, match="cannot start"):
        NoSandbox().start(["/nonexistent/agent"], spec)
    with pytest.raises(M4BenchError, match="unknown sandbox 'jail'"):
        get_sandbox("jail")
    shutil.rmtree(spec.workdir)
    with pytest.raises(M4BenchError, match="workdir does not exist"):
        NoSandbox().start(["true"], spec)


def test_missing_bwrap_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    with pytest.raises(M4BenchError) as caught:
        check_bwrap_available()
    assert "'bwrap' not found" in caught.value.message
    assert caught.value.hint is not None and "apt-get install bubblewrap" in caught.value.hint


def test_paths_as_the_agent_sees_them(tmp_path: Path) -> None:
    data = tmp_path / "parquet"
    spec = make_spec(tmp_path, mounts=(Mount(host=data, sandbox=Path("/data")),))
    sandbox = get_sandbox("bwrap")
    assert sandbox.path_for_agent(spec, data / "icu" / "chartevents.parquet") == Path(
        "/data/icu/chartevents.parquet"
    )
    assert sandbox.path_for_agent(spec, spec.workdir / "output.csv") == Path("/workdir/output.csv")
    assert sandbox.path_for_agent(spec, tmp_path / "ground_truth.csv") is None
    assert NoSandbox().path_for_agent(spec, tmp_path / "x") == tmp_path / "x"
    assert NoSandbox().workdir_for_agent(spec) == spec.workdir
