"""An API key never shows on the host's process table while the agent runs.

Every adapter's credential goes into the sandbox through the runner's spec; bwrap gets
it as its own environment, not as ``--setenv`` arguments. While the sandboxed command
waits, every ``/proc/*/cmdline`` is scanned (as root), and every ``cmdline`` and
``environ`` an unprivileged user can read (as ``nobody``); the marker is in none of them,
and the command inside still sees it.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import pytest
from adversarial_helpers import adversarial, make_spec, scan_proc

from m4bench.agents.base import AgentContext
from m4bench.agents.registry import BUILTIN_ADAPTERS, get_adapter
from m4bench.sandbox import BwrapSandbox, NetworkMode

pytestmark = adversarial

WAIT = "env > seen.txt; touch ready; while [ ! -e go ]; do sleep 0.05; done"


@pytest.mark.parametrize("agent", sorted(BUILTIN_ADAPTERS))
def test_credentials_stay_off_the_process_table(agent: str, tmp_path: Path) -> None:
    marker = "sk-m4bench-" + secrets.token_hex(16)
    adapter = get_adapter(agent)
    ctx = AgentContext(
        workdir=Path("/workdir"),
        instruction_path=Path("/workdir/instruction.md"),
        model="m",
        endpoint="http://127.0.0.1:9/v1",
        credentials=dict.fromkeys(adapter.credential_env, marker),
    )
    assert not any(marker in part for part in adapter.command(ctx))
    spec = make_spec(
        tmp_path,
        env=adapter.environment(ctx),
        network=NetworkMode.PROXY,
        allowed=("127.0.0.1:9",),
    )
    process = BwrapSandbox().start(["sh", "-c", WAIT], spec)
    try:
        deadline = time.monotonic() + 30
        while not (spec.workdir / "ready").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (spec.workdir / "ready").exists(), spec.stderr_path.read_text()
        cmdlines, _, launchers, hits = scan_proc(marker, as_nobody=False)
        assert launchers >= 1 and cmdlines > launchers
        assert hits == [] or all(hit.endswith("/environ") for hit in hits)
        if os.geteuid() == 0:
            # Root-owned launchers and the sandbox user's processes keep their environ
            # from any other user; their command lines are read.
            _, _, launchers, hits = scan_proc(marker, as_nobody=True)
            assert launchers >= 1 and hits == []
    finally:
        (spec.workdir / "go").touch()
        result = process.wait(timeout=30)
    assert result.returncode == 0
    seen = (spec.workdir / "seen.txt").read_text()
    for name in adapter.credential_env:
        assert f"{name}={marker}" in seen
