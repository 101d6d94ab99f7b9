"""Command lines, environments and skill directories of the CLI adapters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from m4bench.agents.base import AgentContext, endpoint_of, with_instruction
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.agents.registry import adapter_names, get_adapter
from m4bench.errors import M4BenchError

CREDENTIALS = {
    "ANTHROPIC_API_KEY": "sk-ant-1",
    "OPENAI_API_KEY": "sk-openai-2",
    "GEMINI_API_KEY": "gem-3",
}


def inner(argv: list[str], ctx: AgentContext) -> list[str]:
    """The agent's own command line inside the instruction-reading shell wrapper."""
    assert argv[:2] == ["/bin/sh", "-c"] and argv[4] == str(ctx.instruction_path)
    return argv[5:]


def context(tmp_path: Path, **fields: object) -> AgentContext:
    (tmp_path / "instruction.md").write_text("Compute SOFA and write output.csv.")
    return AgentContext(
        workdir=tmp_path,
        instruction_path=tmp_path / "instruction.md",
        credentials=CREDENTIALS,
        **fields,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("name", "own_key"),
    [
        ("claude-code", "ANTHROPIC_API_KEY"),
        ("codex", "OPENAI_API_KEY"),
        ("gemini-cli", "GEMINI_API_KEY"),
    ],
)
def test_only_the_agents_own_credential_is_passed(tmp_path: Path, name: str, own_key: str) -> None:
    env = get_adapter(name).environment(context(tmp_path))
    secrets = {key for key in env if key in CREDENTIALS}
    assert secrets == {own_key}
    assert env["HOME"] == "/tmp"


def test_claude_command_disables_web_tools_and_inner_permissions(tmp_path: Path) -> None:
    ctx = context(tmp_path, model="claude-sonnet-4-5")
    argv = inner(get_adapter("claude-code").command(ctx), ctx)
    assert argv[:2] == ["claude", "-p"]
    assert argv[argv.index("--disallowedTools") + 1] == "WebFetch,WebSearch"
    assert argv[argv.index("--permission-mode") + 1] == "bypassPermissions"
    assert argv[argv.index("--output-format") + 1] == "stream-json"
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    assert argv[-1] == "--"
    assert get_adapter("claude-code").skills_dir(tmp_path) == tmp_path / ".claude/skills"


def test_codex_command_bypasses_its_sandbox_and_search(tmp_path: Path) -> None:
    ctx = context(tmp_path, model="gpt-5.4-mini", reasoning_effort="medium")
    argv = inner(get_adapter("codex").command(ctx), ctx)
    assert argv[:4] == ["codex", "exec", "--json", "--skip-git-repo-check"]
    assert "--dangerously-bypass-approvals-and-sandbox" in argv
    assert 'web_search="disabled"' in argv and "tools.web_search=false" in argv
    assert argv[argv.index("-C") + 1] == str(tmp_path)
    env = get_adapter("codex").environment(ctx)
    assert env["CODEX_HOME"] == str(tmp_path / ".codex")
    assert get_adapter("codex").skills_dir(tmp_path) == tmp_path / ".codex/skills"


def test_gemini_prepare_writes_settings_excluding_web_tools(tmp_path: Path) -> None:
    adapter = get_adapter("gemini-cli")
    ctx = context(tmp_path)
    adapter.prepare(ctx, tmp_path)
    settings = json.loads((tmp_path / ".gemini/settings.json").read_text())
    assert settings["tools"]["exclude"] == ["google_web_search", "web_fetch"]
    assert (tmp_path / ".gemini/skills").is_dir()
    argv = inner(adapter.command(ctx), ctx)
    assert argv[argv.index("--approval-mode") + 1] == "yolo"
    assert argv[-1] == "-p"


def test_mini_and_react_endpoints_follow_the_configured_server(tmp_path: Path) -> None:
    ctx = context(tmp_path, model="qwen3", endpoint="http://10.0.0.5:8000/v1")
    assert get_adapter("mini-swe-agent").default_endpoints(ctx) == ("10.0.0.5:8000",)
    assert get_adapter("react").default_endpoints(ctx) == ("10.0.0.5:8000",)
    assert get_adapter("mini-swe-agent").environment(ctx)["OPENAI_API_BASE"] == ctx.endpoint
    assert get_adapter("mini-swe-agent").trace_file(ctx) == tmp_path / ".mini/trajectory.json"
    assert endpoint_of("https://api.openai.com/v1") == "api.openai.com:443"


def test_react_needs_an_endpoint_and_mounts_no_task_catalog(tmp_path: Path) -> None:
    adapter = ReactAdapter()
    with pytest.raises(M4BenchError, match="needs an endpoint"):
        adapter.command(context(tmp_path))
    sandbox_paths = [str(inner) for _, inner in adapter.runtime_mounts()]
    assert not any("tasks" in path or "scoring" in path for path in sandbox_paths)
    assert any(path.endswith("m4bench/agents") for path in sandbox_paths)


def test_registry(tmp_path: Path) -> None:
    assert adapter_names() == ["claude-code", "codex", "gemini-cli", "mini-swe-agent", "react"]
    with pytest.raises(M4BenchError, match="unknown agent 'nope'"):
        get_adapter("nope")
    extra = {"oracle": ReactAdapter}
    assert "oracle" in adapter_names(extra)
    assert isinstance(get_adapter("oracle", extra), ReactAdapter)


def test_instruction_reaches_the_agent_verbatim(tmp_path: Path) -> None:
    text = "Use $(rm -rf /) and `x` and \"quotes\" and 'single'; * ?\nline two"
    (tmp_path / "instruction.md").write_text(text + "\n")
    probe = [sys.executable, "-c", "import sys, json; print(json.dumps(sys.argv[1:]))", "--"]
    argv = with_instruction(probe, tmp_path / "instruction.md")
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == ["--", text]
