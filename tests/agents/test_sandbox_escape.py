"""An adversarial script, run with the react agent's mounts and proxy, cannot get out.

It tries to read the ground truth, the task catalog, the package source and the user's
home; to write outside its workdir; to reach a non-allowlisted endpoint through the
proxy and a harness port directly; to read secrets it was not given; to fork-bomb and
to fill the disk. Every attempt must fail, and the proxy must log the refused one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai import serve
from test_react_sandbox import pytestmark as bwrap_marks

import m4bench
from m4bench.agents.base import AgentContext
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.sandbox import (
    BwrapSandbox,
    Limits,
    Mount,
    NetworkMode,
    SandboxSpec,
    read_egress_log,
    refused,
)

pytestmark = bwrap_marks

PROBE = r"""
import json, os, socket, sys, urllib.request
report = {}
def attempt(name, action):
    try:
        action()
        report[name] = "SUCCEEDED"
    except BaseException as exc:
        report[name] = f"failed: {type(exc).__name__}"
truth, package, home, harness_port, other_url = sys.argv[1:6]
attempt("read_truth", lambda: open(truth).read())
attempt("read_catalog", lambda: os.listdir(os.path.join(package, "tasks")))
attempt("read_scoring", lambda: os.listdir(os.path.join(package, "scoring")))
try:
    report["home_entries"] = sorted(os.listdir(home))
except OSError:
    report["home_entries"] = []
attempt("write_usr", lambda: open("/usr/escape", "w").write("x"))
attempt("write_venv", lambda: open(os.path.join(sys.prefix, "escape"), "w").write("x"))
attempt("write_root", lambda: open("/escape", "w").write("x"))
attempt("direct_harness_port",
        lambda: socket.create_connection(("127.0.0.1", int(harness_port)), timeout=2))
attempt("proxy_other_endpoint", lambda: urllib.request.urlopen(other_url, timeout=5).read())
leaked = "sk-harness-secret" in json.dumps(dict(os.environ))
report["secret_in_env"] = "SUCCEEDED" if leaked else "failed"
children = 0
try:
    for _ in range(500):
        if os.fork() == 0:
            import time; time.sleep(20); os._exit(0)
        children += 1
    report["fork_bomb"] = "SUCCEEDED"
except OSError:
    report["fork_bomb"] = f"failed after {children}"
try:
    with open("filler", "wb") as handle:
        for _ in range(64):
            handle.write(b"\0" * (1 << 20))
    report["fill_disk"] = "SUCCEEDED"
except OSError as exc:
    report["fill_disk"] = f"failed: {exc.errno}"
print(json.dumps(report), flush=True)
os._exit(0)
"""


def test_every_escape_attempt_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("M4BENCH_SECRET_FOR_TEST", "sk-harness-secret")
    truth = tmp_path / "ground_truth.csv"
    truth.write_text("stay_id,sofa\n1,7\n")
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    (workdir / "probe.py").write_text(PROBE)
    adapter = ReactAdapter()
    package = Path(m4bench.__file__).parent
    with serve([]) as model, serve([]) as other:
        ctx = AgentContext(
            workdir=Path("/workdir"),
            instruction_path=Path("/workdir/instruction.md"),
            model="m",
            endpoint=model.base_url,
        )
        spec = SandboxSpec(
            workdir=workdir,
            log_dir=tmp_path / "logs",
            mounts=tuple(Mount(host=h, sandbox=s) for h, s in adapter.runtime_mounts()),
            env=adapter.environment(ctx),
            network=NetworkMode.PROXY,
            allowed_endpoints=adapter.default_endpoints(ctx),
            limits=Limits(processes=40, file_size_bytes=8 << 20),
        )
        argv = [sys.executable, "probe.py", str(truth), str(package), str(Path.home())]
        argv += [str(model.port), f"http://127.0.0.1:{other.port}/"]
        result = BwrapSandbox().run(argv, spec, timeout=60)
        hits = (len(model.requests), len(other.requests))
    report = json.loads(result.stdout_path.read_text().strip().splitlines()[-1])
    home_entries = report.pop("home_entries")
    succeeded = sorted(name for name, verdict in report.items() if verdict == "SUCCEEDED")
    assert succeeded == [], report
    # Only the interpreter's own install (mounted in place) may show under the home.
    home = Path.home()
    runtime = {
        inner.relative_to(home).parts[0]
        for _, inner in adapter.runtime_mounts()
        if inner.is_relative_to(home)
    }
    assert set(home_entries) <= runtime
    assert hits == (0, 0)
    assert (workdir / "filler").stat().st_size <= 8 << 20
    assert not Path("/usr/escape").exists() and not Path(sys.prefix, "escape").exists()
    blocked = refused(read_egress_log(spec.egress_log_path))
    assert [(event.host, event.port) for event in blocked] == [("127.0.0.1", other.port)]


HARNESS = """
import sys, time
from pathlib import Path
from m4bench.sandbox import BwrapSandbox, SandboxSpec
root = Path(sys.argv[1])
spec = SandboxSpec(workdir=root / "workdir", log_dir=root / "logs", env={"PATH": "/usr/bin:/bin"})
BwrapSandbox().start(["sh", "-c", "while true; do echo x >> beat; sleep 0.05; done"], spec)
print("started", flush=True)
time.sleep(60)
"""


def test_sandbox_dies_with_the_harness(tmp_path: Path) -> None:
    (tmp_path / "workdir").mkdir()
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert harness.stdout is not None and harness.stdout.readline().strip() == "started"
    beat = tmp_path / "workdir" / "beat"
    deadline = time.monotonic() + 10
    while not beat.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(harness.pid, signal.SIGKILL)
    harness.wait()
    time.sleep(0.3)
    size = beat.stat().st_size
    time.sleep(0.4)
    assert beat.stat().st_size == size
