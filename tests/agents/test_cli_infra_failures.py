"""Each CLI adapter tells a run its provider ended (rate limit, overload or 5xx, bad key,
exhausted quota, unreachable endpoint) from a run the model answered or the agent
ended by itself.

A fake of each CLI (tests/support/fake_agent_cli.py) is started with the adapter's own
command line and prints what the real CLI prints; its stdout (or mini-swe-agent's
trajectory) and stderr are stored the way the runner stores them (redacted), and
``infrastructure_failure`` reads those files with the exit status.
"""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import fake_agent_cli
import pytest

from m4bench.agents.base import AgentContext
from m4bench.agents.outcome import InfraFailure, InfraKind
from m4bench.agents.registry import get_adapter
from m4bench.runner.contamination import redact_file

FAKE = Path(fake_agent_cli.__file__)
KEY = "sk-test-0123456789abcdefABCDEF"
PROGRAMS = {
    "claude-code": "claude",
    "codex": "codex",
    "gemini-cli": "gemini",
    "mini-swe-agent": "mini",
}
TRACES = Path(__file__).parent / "traces"

CASES: list[tuple[str, str, InfraKind | None]] = [
    ("claude-code", "answered", None),
    ("claude-code", "agent_failed", None),
    ("claude-code", "bad_request", None),
    ("claude-code", "rate_limited", "rate_limited"),
    ("claude-code", "overloaded", "provider_error"),
    ("claude-code", "server_error", "provider_error"),
    ("claude-code", "auth", "auth_error"),
    ("claude-code", "quota", "quota_exhausted"),
    ("claude-code", "unreachable", "endpoint_unreachable"),
    ("claude-code", "died_unreachable", "endpoint_unreachable"),
    ("codex", "answered", None),
    ("codex", "retried_then_answered", None),
    ("codex", "agent_failed", None),
    ("codex", "bad_request", None),
    ("codex", "rate_limited", "rate_limited"),
    ("codex", "rate_limited_wait", "rate_limited"),
    ("codex", "overloaded", "provider_error"),
    ("codex", "server_error", "provider_error"),
    ("codex", "auth", "auth_error"),
    ("codex", "quota", "quota_exhausted"),
    ("codex", "unreachable", "endpoint_unreachable"),
    ("codex", "died_unreachable", "endpoint_unreachable"),
    ("gemini-cli", "answered", None),
    ("gemini-cli", "agent_failed", None),
    ("gemini-cli", "bad_request", None),
    ("gemini-cli", "rate_limited", "rate_limited"),
    ("gemini-cli", "overloaded", "provider_error"),
    ("gemini-cli", "server_error", "provider_error"),
    ("gemini-cli", "auth", "auth_error"),
    ("gemini-cli", "auth_denied", "auth_error"),
    ("gemini-cli", "auth_missing_key", "auth_error"),
    ("gemini-cli", "quota", "quota_exhausted"),
    ("gemini-cli", "unreachable", "endpoint_unreachable"),
    ("mini-swe-agent", "answered", None),
    ("mini-swe-agent", "agent_failed", None),
    ("mini-swe-agent", "bad_request", None),
    ("mini-swe-agent", "context_exceeded", None),
    ("mini-swe-agent", "rate_limited", "rate_limited"),
    ("mini-swe-agent", "overloaded", "provider_error"),
    ("mini-swe-agent", "server_error", "provider_error"),
    ("mini-swe-agent", "auth", "auth_error"),
    ("mini-swe-agent", "quota", "quota_exhausted"),
    ("mini-swe-agent", "unreachable", "endpoint_unreachable"),
    ("mini-swe-agent", "unreachable_as_5xx", "endpoint_unreachable"),
    ("mini-swe-agent", "died_rate_limited", "rate_limited"),
]


def run_fake(tmp_path: Path, agent: str, scenario: str) -> tuple[InfraFailure | None, int]:
    """Run the fake CLI as the adapter starts its agent (sandbox ``none``: agent paths are
    host paths), store its trace and stderr as the runner does, and ask the adapter."""
    adapter = get_adapter(agent)
    workdir = tmp_path / "workdir"
    workdir.mkdir(parents=True)
    (workdir / "instruction.md").write_text("Compute the score.\n", encoding="utf-8")
    ctx = AgentContext(
        workdir=workdir,
        instruction_path=workdir / "instruction.md",
        model="m",
        credentials={name: KEY for name in adapter.credential_env},
    )
    adapter.prepare(ctx, workdir)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    program = bindir / PROGRAMS[agent]
    program.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -I -S "{FAKE}" {PROGRAMS[agent]} "$@"\n',
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    env = adapter.environment(ctx)
    env.update(PATH=f"{bindir}:{env['PATH']}", FAKE_CLI_SCENARIO=scenario, FAKE_CLI_KEY=KEY)
    stdout, stderr = tmp_path / "stdout.raw", tmp_path / "stderr.raw"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        done = subprocess.run(
            adapter.command(ctx), env=env, stdout=out, stderr=err, cwd=workdir, timeout=60
        )
    raw = adapter.trace_file(ctx) or stdout
    if not raw.exists():
        raw.write_bytes(b"")  # the runner keeps an empty trace when the agent wrote none
    trace, errors = tmp_path / "trace.jsonl", tmp_path / "stderr.log"
    redact_file(raw, trace, [KEY], [str(tmp_path)])
    redact_file(stderr, errors, [KEY], [str(tmp_path)])
    return adapter.infrastructure_failure(ctx, done.returncode, trace, errors), done.returncode


@pytest.mark.parametrize(("agent", "scenario", "kind"), CASES)
def test_each_cli_ending_maps_to_its_outcome(
    tmp_path: Path, agent: str, scenario: str, kind: InfraKind | None
) -> None:
    failure, code = run_fake(tmp_path, agent, scenario)
    if kind is None:
        assert failure is None, failure
        return
    assert code != 0, "a provider failure ends the CLI with a failing status"
    assert failure is not None and failure.kind == kind, failure
    assert failure.detail and "\n" not in failure.detail and len(failure.detail) <= 300
    assert KEY not in failure.detail and "sk-test" not in failure.detail


@pytest.mark.parametrize(
    ("agent", "scenario", "wait"),
    [
        ("codex", "rate_limited_wait", 2.5),
        ("gemini-cli", "rate_limited", 41.2),
        ("mini-swe-agent", "rate_limited", 2.4),
        ("claude-code", "rate_limited", None),
    ],
)
def test_the_wait_a_provider_asks_for_is_kept(
    tmp_path: Path, agent: str, scenario: str, wait: float | None
) -> None:
    failure, _ = run_fake(tmp_path, agent, scenario)
    assert failure is not None and failure.retry_after == wait


def test_the_detail_is_the_providers_words(tmp_path: Path) -> None:
    claude, _ = run_fake(tmp_path / "claude", "claude-code", "auth")
    assert claude is not None and claude.detail == "Invalid API key · Please run /login"
    assert claude.describe() == (
        "the provider refused the credentials: Invalid API key · Please run /login"
    )
    codex, _ = run_fake(tmp_path / "codex", "codex", "rate_limited")
    assert codex is not None and codex.detail.startswith("exceeded retry limit, last status: 429")
    mini, _ = run_fake(tmp_path / "mini", "mini-swe-agent", "auth")
    assert mini is not None and mini.detail.startswith("litellm.AuthenticationError:")


def test_a_provider_failure_mid_run_still_ended_the_run(tmp_path: Path) -> None:
    """Claude answered two turns, then the API stayed overloaded: the provider ended it."""
    failure, _ = run_fake(tmp_path, "claude-code", "overloaded")
    assert failure is not None and failure.kind == "provider_error"
    assert '"type":"overloaded_error"' in failure.detail


@pytest.mark.parametrize(
    ("agent", "fixture"),
    [
        ("claude-code", "claude_stream.jsonl"),
        ("codex", "codex_exec.jsonl"),
        ("gemini-cli", "gemini_stream.jsonl"),
        ("mini-swe-agent", "mini_trajectory.json"),
    ],
)
def test_the_parsers_fixture_runs_are_the_models(tmp_path: Path, agent: str, fixture: str) -> None:
    ctx = AgentContext(workdir=tmp_path, instruction_path=tmp_path / "instruction.md")
    adapter = get_adapter(agent)
    assert adapter.infrastructure_failure(ctx, 0, TRACES / fixture, None) is None
    assert adapter.infrastructure_failure(ctx, 1, TRACES / fixture, None) is None


@pytest.mark.parametrize("agent", sorted(PROGRAMS))
def test_an_empty_trace_and_stderr_name_no_cause(tmp_path: Path, agent: str) -> None:
    """A CLI that died saying nothing: not the provider's failure as far as anyone knows."""
    ctx = AgentContext(workdir=tmp_path, instruction_path=tmp_path / "instruction.md")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert get_adapter(agent).infrastructure_failure(ctx, 1, empty, empty) is None
    assert get_adapter(agent).infrastructure_failure(ctx, 1, tmp_path / "missing", None) is None
