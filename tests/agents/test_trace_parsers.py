"""Each CLI's trace, hand-written in its documented shape, gives the right accounting."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.agents.atif import Step
from m4bench.agents.registry import get_adapter
from m4bench.agents.usage import Usage
from m4bench.errors import M4BenchError

TRACES = Path(__file__).parent / "traces"


def observations(step: Step) -> list[tuple[str | None, object]]:
    """The step's observation results as (call id, content) pairs."""
    results = step.observation.results if step.observation is not None else []
    return [(result.source_call_id, result.content) for result in results]


def test_claude_uses_the_result_totals_once() -> None:
    summary = get_adapter("claude-code").parse_trace(TRACES / "claude_stream.jsonl")
    # msg_1 repeats its usage on two content-block events; the result event repeats
    # the session totals. Counted once: 10+5+3 uncached, 0+1000+1050 cache reads.
    assert summary.usage == Usage(
        input_uncached=18,
        input_cache_read=2050,
        input_cache_write=1050,
        output=55,
        turns=3,
        tool_calls=2,
        cost_usd=0.0123,
        cost_source="reported by the agent",
    )
    assert summary.web_tool_uses == 1
    assert summary.model_strings == ["claude-sonnet-4-5"]


def test_claude_without_a_result_event_counts_each_message_once(tmp_path: Path) -> None:
    lines = (TRACES / "claude_stream.jsonl").read_text().splitlines()
    truncated = tmp_path / "trace.jsonl"
    truncated.write_text("\n".join(lines[:-1]) + "\n")
    summary = get_adapter("claude-code").parse_trace(truncated)
    assert summary.usage == Usage(
        input_uncached=18,
        input_cache_read=2050,
        input_cache_write=1050,
        output=55,
        turns=3,
        tool_calls=2,
    )
    assert summary.usage.cost_usd is None and summary.usage.cost_source == "not reported"


def test_claude_trajectory_pairs_results_with_calls() -> None:
    trajectory = get_adapter("claude-code").to_atif(TRACES / "claude_stream.jsonl")
    assert trajectory.session_id == "sess-1"
    assert [(s.step_id, s.source) for s in trajectory.steps] == [
        (1, "user"),
        (2, "agent"),
        (3, "agent"),
        (4, "agent"),
    ]
    first = trajectory.steps[1]
    assert first.message == "Let me look at the database."
    assert first.tool_calls is not None and first.tool_calls[0].arguments == {"command": "ls"}
    assert observations(first) == [("toolu_1", "database.duckdb\ninstruction.md")]
    assert observations(trajectory.steps[2]) == [("toolu_2", "tool is disallowed")]
    assert trajectory.final_metrics is not None
    assert trajectory.final_metrics.total_prompt_tokens == 18 + 2050 + 1050
    assert trajectory.final_metrics.total_cached_tokens == 2050
    assert trajectory.final_metrics.total_steps == 4


def test_codex_cached_input_is_inside_input_tokens() -> None:
    summary = get_adapter("codex").parse_trace(TRACES / "codex_exec.jsonl")
    assert summary.usage == Usage(
        input_uncached=400, input_cache_read=1100, output=100, turns=2, tool_calls=2
    )
    assert summary.web_tool_uses == 1
    assert summary.unparsed_lines == 1


def test_codex_trajectory() -> None:
    trajectory = get_adapter("codex").to_atif(TRACES / "codex_exec.jsonl")
    assert trajectory.steps[0].source == "user"
    kinds = [
        (s.reasoning_content is not None, [c.function_name for c in s.tool_calls or []])
        for s in trajectory.steps[1:]
    ]
    assert kinds == [(True, []), (False, ["shell"]), (False, []), (False, ["web_search"])]
    assert observations(trajectory.steps[2]) == [("item_1", "42\n")]
    assert trajectory.steps[3].metrics is not None
    assert trajectory.steps[3].metrics.prompt_tokens == 1200
    assert trajectory.session_id == "thread-1"


def test_gemini_stats_and_web_tool() -> None:
    summary = get_adapter("gemini-cli").parse_trace(TRACES / "gemini_stream.jsonl")
    assert summary.usage == Usage(
        input_uncached=800, input_cache_read=400, output=300, turns=2, tool_calls=2
    )
    assert summary.web_tool_uses == 1
    trajectory = get_adapter("gemini-cli").to_atif(TRACES / "gemini_stream.jsonl")
    assert [s.source for s in trajectory.steps] == ["user", "agent", "agent", "agent", "agent"]
    assert trajectory.steps[0].message == "Compute the score."
    assert trajectory.steps[1].message == "I will query the tables."
    assert observations(trajectory.steps[2]) == [("t1", "database.duckdb")]


def test_mini_swe_agent_trajectory_file() -> None:
    adapter = get_adapter("mini-swe-agent")
    summary = adapter.parse_trace(TRACES / "mini_trajectory.json")
    assert summary.usage == Usage(
        input_uncached=1000,
        input_cache_read=900,
        output=50,
        turns=2,
        tool_calls=2,
        cost_usd=0.0042,
        cost_source="reported by the agent",
    )
    assert summary.errors == []
    assert summary.model_strings == ["qwen3-coder"]
    trajectory = adapter.to_atif(TRACES / "mini_trajectory.json")
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "agent"]
    calls = trajectory.steps[2].tool_calls
    assert calls is not None and calls[0].arguments == {"command": "ls"}
    assert observations(trajectory.steps[2]) == [("c1", "database.duckdb")]
    assert trajectory.agent.version == "2.4.6"


def test_missing_and_damaged_traces_are_named(tmp_path: Path) -> None:
    with pytest.raises(M4BenchError, match="trace file not found"):
        get_adapter("codex").parse_trace(tmp_path / "absent.jsonl")
    broken = tmp_path / "traj.json"
    broken.write_text('{"info": {')
    with pytest.raises(M4BenchError, match=r"traj\.json: not JSON"):
        get_adapter("mini-swe-agent").parse_trace(broken)
