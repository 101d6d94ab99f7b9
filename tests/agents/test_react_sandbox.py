"""The react agent inside bwrap reaches its scripted model only through the egress proxy."""

from __future__ import annotations

import json
from pathlib import Path

from bwrap_probe import needs_bwrap
from fake_openai import serve
from test_react import EXPECTED_CSV, EXPECTED_USAGE, make_database, script

from m4bench.agents.base import AgentContext
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.sandbox import BwrapSandbox, Mount, NetworkMode, SandboxSpec

pytestmark = needs_bwrap


def test_react_in_bwrap_through_the_proxy(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    make_database(data / "task.duckdb")
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    (workdir / "instruction.md").write_text("Double every age and write output.csv.")
    adapter = ReactAdapter()
    with serve(script("output.csv")) as server:
        ctx = AgentContext(
            workdir=Path("/workdir"),
            instruction_path=Path("/workdir/instruction.md"),
            model="fake-model-1",
            endpoint=server.base_url,
            database=Path("/data/task.duckdb"),
            max_steps=10,
        )
        adapter.prepare(ctx, workdir)
        mounts = [Mount(host=h, sandbox=s) for h, s in adapter.runtime_mounts()]
        mounts.append(Mount(host=data, sandbox=Path("/data")))
        spec = SandboxSpec(
            workdir=workdir,
            log_dir=tmp_path / "logs",
            mounts=tuple(mounts),
            env=adapter.environment(ctx),
            network=NetworkMode.PROXY,
            allowed_endpoints=adapter.default_endpoints(ctx),
        )
        result = BwrapSandbox().run(adapter.command(ctx), spec, timeout=60)
        requests = len(server.requests)
    stderr = result.stderr_path.read_text()
    assert result.returncode == 0, stderr
    assert requests == 3
    assert (workdir / "output.csv").read_text() == EXPECTED_CSV
    summary = adapter.parse_trace(result.stdout_path)
    assert summary.usage == EXPECTED_USAGE
    assert (workdir / ".react/trajectory.json").is_file()
    egress = [json.loads(line) for line in spec.egress_log_path.read_text().splitlines()]
    assert len(egress) == 3 and all(event["allowed"] for event in egress)
    assert {event["port"] for event in egress} == {server.port}
