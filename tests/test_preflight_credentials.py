"""Preflight checks each planned agent's API key is set, naming the variable and the
agent and never a value; the react agent needs none for a local endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.agents.react.adapter import ReactAdapter
from m4bench.home import DataHome
from m4bench.preflight import PreflightOptions, run_preflight
from m4bench.preflight.checks import check_credentials
from m4bench.runner.credentials import is_local_endpoint, missing_credentials

KEYS = ("OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "M4BENCH_REACT_API_KEY")
SECRET = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def test_a_missing_key_names_the_variable_and_the_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_credentials(["codex", "claude-code", "oracle"])
    assert not check.ok
    assert check.detail == (
        "agent claude-code: no API key: ANTHROPIC_API_KEY is not set; "
        "agent codex: no API key: OPENAI_API_KEY or CODEX_API_KEY is not set"
    )
    assert "export" in check.fix
    monkeypatch.setenv("CODEX_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    check = check_credentials(["codex", "claude-code"])
    assert check.ok, check.detail
    assert check.detail == "claude-code: ANTHROPIC_API_KEY set; codex: CODEX_API_KEY set"
    assert SECRET not in check.detail + check.fix


def test_react_needs_a_key_only_for_a_remote_endpoint() -> None:
    for local in ("http://127.0.0.1:11434/v1", "http://localhost:8000/v1", "http://10.0.0.5/v1"):
        assert is_local_endpoint(local)
        assert check_credentials(["react"], local).ok
    remote = "https://api.example.org/v1"
    assert not is_local_endpoint(remote)
    check = check_credentials(["react"], remote)
    assert not check.ok
    assert check.detail == "agent react: no API key: M4BENCH_REACT_API_KEY is not set"
    given = {"M4BENCH_REACT_API_KEY": SECRET}
    assert missing_credentials("react", ReactAdapter(), remote, given) is None


def test_preflight_of_a_profile_checks_its_agents_keys(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(
        'name = "p"\ndefault_agent = "codex"\ntrials = 1\n'
        '[agents.codex]\nprovider = "openai"\nmodels = { primary = ["gpt-5"] }\n'
        '[[blocks]]\nname = "b"\ntasks = ["mimic-meld-24h"]\nconditions = ["no-skill"]\n',
        encoding="utf-8",
    )
    options = PreflightOptions(profile=str(profile), sandbox="none", lint=False)
    checks = {c.name: c for c in run_preflight(DataHome(tmp_path / "home"), options)}
    assert not checks["agent credentials"].ok
    assert "OPENAI_API_KEY or CODEX_API_KEY" in checks["agent credentials"].detail
