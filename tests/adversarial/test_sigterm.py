"""At the timeout the agent gets SIGTERM and its grace period before SIGKILL.

bwrap does not forward SIGTERM to the sandbox, and SIGTERM to bwrap itself would end
the sandbox with SIGKILL at once; the harness signals the processes inside the
sandbox's PID namespace instead. An agent that traps SIGTERM writes a file during its
grace period, with and without the egress bridge between it and bwrap.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adversarial_helpers import adversarial, make_spec

from m4bench.sandbox import BwrapSandbox, NetworkMode

pytestmark = adversarial

TRAPPER = "trap 'echo saved > term.txt; exit 7' TERM; touch ready; while :; do sleep 0.05; done"


@pytest.mark.parametrize("network", [NetworkMode.NONE, NetworkMode.PROXY])
def test_agent_sees_sigterm_and_uses_its_grace(network: NetworkMode, tmp_path: Path) -> None:
    spec = make_spec(tmp_path, network=network, grace=10.0)
    result = BwrapSandbox().run(["sh", "-c", TRAPPER], spec, timeout=1.5)
    assert (spec.workdir / "ready").exists(), spec.stderr_path.read_text()
    assert result.timed_out and result.killed
    assert (spec.workdir / "term.txt").read_text() == "saved\n"
    assert result.returncode == 7


def test_agent_ignoring_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, grace=0.5)
    script = "trap '' TERM; (trap '' TERM; while :; do echo x >> beat; sleep 0.05; done) & wait"
    result = BwrapSandbox().run(["sh", "-c", script], spec, timeout=1.0)
    assert result.timed_out and result.killed and result.returncode != 0
    size = (spec.workdir / "beat").stat().st_size
    again = BwrapSandbox().run(["sh", "-c", "sleep 0.3; stat -c %s beat"], spec, timeout=10)
    assert again.stdout_path.read_text().strip() == str(size)
