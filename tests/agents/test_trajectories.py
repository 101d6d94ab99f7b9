"""Every adapter's trajectory is valid ATIF, from a recorded trace and from an empty one."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from atif_check import check_trajectory

import m4bench
from m4bench.agents.atif import (
    NO_TIMES,
    UNKNOWN_VERSION,
    TrajectoryContext,
    dump_trajectory,
    event_time,
    iso,
)
from m4bench.agents.base import AgentAdapter
from m4bench.agents.registry import get_adapter
from m4bench.runner.builtin_agents import BuiltinAdapter

TRACES = Path(__file__).parent / "traces"
STARTED = datetime(2026, 5, 2, 10, 0, 0, 250000, tzinfo=UTC)
CONTEXT = TrajectoryContext(
    started_at=STARTED, instruction="Compute MELD-Na; write output.csv.", session_id="run-1"
)
RECORDED = {
    "claude-code": "claude_stream.jsonl",
    "codex": "codex_exec.jsonl",
    "gemini-cli": "gemini_stream.jsonl",
    "mini-swe-agent": "mini_trajectory.json",
}
SQL_TRACE = [
    {
        "type": "sql",
        "index": 0,
        "statement": "CREATE VIEW v AS SELECT 1",
        "ok": True,
        "seconds": 0.5,
    },
    {"type": "sql", "index": 1, "statement": "COPY v TO 'output.csv'", "ok": True, "seconds": 1.25},
]


def oracle() -> BuiltinAdapter:
    return BuiltinAdapter("oracle", statements=["SELECT 1"])


def adapter_named(name: str) -> AgentAdapter:
    return oracle() if name == "oracle" else get_adapter(name)


def write_jsonl(path: Path, events: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_recorded_trace_gives_a_valid_deterministic_trajectory(name: str) -> None:
    adapter = get_adapter(name)
    text = dump_trajectory(adapter.to_atif(TRACES / RECORDED[name], CONTEXT))
    trajectory = check_trajectory(text)
    assert text == dump_trajectory(adapter.to_atif(TRACES / RECORDED[name], CONTEXT))
    user = next(step for step in trajectory.steps if step.source == "user")
    assert user.timestamp == "2026-05-02T10:00:00.250Z"
    assert trajectory.agent.name == name
    assert trajectory.final_metrics is not None
    assert trajectory.final_metrics.total_steps == len(trajectory.steps)
    for step in trajectory.steps:
        ids = {call.tool_call_id for call in step.tool_calls or []}
        results = step.observation.results if step.observation is not None else []
        assert all(result.source_call_id in ids for result in results)


def test_the_instruction_is_the_first_step_when_the_trace_has_none() -> None:
    trajectory = get_adapter("codex").to_atif(TRACES / "codex_exec.jsonl", CONTEXT)
    first = trajectory.steps[0]
    assert (first.step_id, first.source, first.message) == (1, "user", CONTEXT.instruction)
    assert trajectory.session_id == "thread-1"  # the trace's own session wins
    assert trajectory.agent.version == UNKNOWN_VERSION
    assert trajectory.notes == NO_TIMES


@pytest.mark.parametrize("name", ["claude-code", "codex", "gemini-cli", "react", "oracle"])
def test_a_run_with_no_answer_has_the_instruction_step(tmp_path: Path, name: str) -> None:
    empty = tmp_path / "trace.jsonl"
    empty.write_text("")
    trajectory = check_trajectory(dump_trajectory(adapter_named(name).to_atif(empty, CONTEXT)))
    [step] = trajectory.steps
    assert (step.step_id, step.source, step.message) == (1, "user", CONTEXT.instruction)
    assert step.timestamp == iso(STARTED)
    assert trajectory.session_id == "run-1"
    assert trajectory.final_metrics is not None and trajectory.final_metrics.total_steps == 1


def test_mini_with_no_message_has_the_instruction_step(tmp_path: Path) -> None:
    empty = tmp_path / "trajectory.json"
    empty.write_text(json.dumps({"info": {"exit_status": "LimitsExceeded"}, "messages": []}))
    trajectory = get_adapter("mini-swe-agent").to_atif(empty, CONTEXT)
    assert [(s.source, s.message) for s in check_trajectory(dump_trajectory(trajectory)).steps] == [
        ("user", CONTEXT.instruction)
    ]


def test_without_a_context_the_trajectory_is_still_valid() -> None:
    trajectory = get_adapter("claude-code").to_atif(TRACES / "claude_stream.jsonl")
    check_trajectory(dump_trajectory(trajectory))
    assert trajectory.steps[0].timestamp == "1970-01-01T00:00:00.000Z"


def test_claude_code_names_its_version_from_the_init_event(tmp_path: Path) -> None:
    lines = (TRACES / "claude_stream.jsonl").read_text().splitlines()
    init = json.loads(lines[0]) | {"claude_code_version": "2.1.328"}
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join([json.dumps(init), *lines[1:]]) + "\n")
    assert get_adapter("claude-code").to_atif(trace, CONTEXT).agent.version == "2.1.328"
    recorded = get_adapter("claude-code").to_atif(TRACES / "claude_stream.jsonl", CONTEXT)
    assert recorded.agent.version == UNKNOWN_VERSION


def test_gemini_steps_keep_the_times_of_their_events(tmp_path: Path) -> None:
    events = [
        {"type": "init", "timestamp": "2026-05-02T10:00:00Z", "session_id": "g", "model": "m"},
        {"type": "message", "role": "user", "content": "Go.", "timestamp": "2026-05-02T10:00:00Z"},
        {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "t1",
         "parameters": {"command": "ls"}, "timestamp": "2026-05-02T10:00:03.5+00:00"},
        {"type": "tool_result", "tool_id": "t1", "status": "success", "output": "x"},
    ]  # fmt: skip
    trajectory = get_adapter("gemini-cli").to_atif(write_jsonl(tmp_path / "t.jsonl", events))
    assert [s.timestamp for s in trajectory.steps] == [
        "2026-05-02T10:00:00.000Z",
        "2026-05-02T10:00:03.500Z",
    ]
    assert trajectory.notes is None


def test_builtin_steps_are_timed_by_the_start_plus_earlier_statements(tmp_path: Path) -> None:
    trace = write_jsonl(tmp_path / "trace.jsonl", [*SQL_TRACE])
    trajectory = check_trajectory(dump_trajectory(oracle().to_atif(trace, CONTEXT)))
    assert [s.timestamp for s in trajectory.steps] == [
        "2026-05-02T10:00:00.250Z",
        "2026-05-02T10:00:00.250Z",
        "2026-05-02T10:00:00.750Z",
    ]
    assert trajectory.agent.version == m4bench.__version__
    sql = trajectory.steps[2]
    assert sql.tool_calls is not None and sql.tool_calls[0].function_name == "run_sql"
    assert sql.observation is not None
    assert [(r.source_call_id, r.content) for r in sql.observation.results] == [("sql_1", "ok")]


def test_clock_values_of_traces() -> None:
    assert event_time("2026-05-02T10:00:00Z") == datetime(2026, 5, 2, 10, tzinfo=UTC)
    assert event_time(1777716000.5) == datetime(2026, 5, 2, 10, 0, 0, 500000, tzinfo=UTC)
    assert event_time(12.5) is None  # an offset, not a clock time
    assert event_time("soon") is None and event_time(True) is None
    assert iso(datetime(2026, 5, 2, 12, tzinfo=UTC)) == "2026-05-02T12:00:00.000Z"
