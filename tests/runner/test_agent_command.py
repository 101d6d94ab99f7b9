"""A CLI agent that is not installed stops the run before it starts, with the fix."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from run_bench import Bench

from m4bench.agents.base import agent_executable, with_instruction
from m4bench.errors import M4BenchError
from m4bench.runner.agent_command import check_agent_command

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


def test_the_wrapped_program_is_the_one_looked_up(tmp_path: Path) -> None:
    argv = with_instruction(["codex", "exec", "--json"], tmp_path / "instruction.md")
    assert agent_executable(argv) == "codex"
    assert agent_executable(["/opt/venv/bin/python", "-m", "agent"]) == "/opt/venv/bin/python"
    assert agent_executable(["mini", "--yolo"]) == "mini"


def test_a_program_is_found_only_on_the_given_path(tmp_path: Path) -> None:
    program = tmp_path / "bin" / "fake-agent"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    argv = with_instruction(["fake-agent", "--go"], tmp_path / "instruction.md")
    check_agent_command("fake", argv, str(program.parent), "bwrap")
    with pytest.raises(M4BenchError) as missing:
        check_agent_command("fake", argv, str(tmp_path), "none")
    assert "program 'fake-agent' not found" in missing.value.message
    assert "docs/agents.md" in (missing.value.hint or "")
    check_agent_command("fake", argv, str(tmp_path), "docker")  # the image decides
    check_agent_command("fake", ["/nowhere/python", "-m", "x"], str(tmp_path), "bwrap")


@needs_bwrap[0]
@needs_bwrap[1]
def test_a_missing_cli_is_a_harness_error_not_an_agent_failure(
    bench: Bench, tmp_path: Path
) -> None:
    if shutil.which("codex", path=SANDBOX_PATH):
        pytest.skip("the Codex CLI is installed here")
    record = bench.run(tmp_path, "mimic-meld-24h", "codex")
    assert record.status == "harness_error" and not record.publishable
    assert record.error and "program 'codex' not found" in record.error
    assert record.sandbox is None or record.sandbox.returncode is None
    assert record.timings.agent == 0.0
