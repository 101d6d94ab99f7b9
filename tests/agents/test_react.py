"""The react agent against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from fake_openai import serve, text_reply, tool_reply, usage

import m4bench
from m4bench.agents.atif import Step, ToolCall, Trajectory
from m4bench.agents.react.adapter import ReactAdapter
from m4bench.agents.react.loop import ReactConfig, run_react
from m4bench.agents.usage import Usage


def make_database(path: Path) -> Path:
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE patients (subject_id INTEGER, age INTEGER)")
        con.execute("INSERT INTO patients VALUES (2, 65), (1, 40)")
    return path


def script(output: str) -> list[Any]:
    copy = (
        "COPY (SELECT subject_id, age * 2 AS doubled FROM patients ORDER BY subject_id) "
        f"TO '{output}' (HEADER)"
    )
    return [
        tool_reply(
            "c1", "run_sql", {"query": "SELECT count(*) AS n FROM patients"}, usage(100, 10)
        ),
        tool_reply("c2", "run_sql", {"query": copy}, usage(150, 20, cached=100)),
        text_reply("Wrote output.csv.", usage(200, 5, cached=150)),
    ]


def stop_reason(trajectory: Trajectory) -> object:
    return (trajectory.extra or {}).get("stop_reason")


def calls(step: Step) -> list[ToolCall]:
    return step.tool_calls or []


def results(step: Step) -> list[tuple[str | None, object]]:
    """The step's observation results as (call id, content) pairs."""
    found = step.observation.results if step.observation is not None else []
    return [(result.source_call_id, result.content) for result in found]


EXPECTED_CSV = "subject_id,doubled\n1,80\n2,130\n"
EXPECTED_USAGE = Usage(input_uncached=200, input_cache_read=250, output=35, turns=3, tool_calls=2)


def test_react_runs_sql_writes_output_and_records_tokens(tmp_path: Path) -> None:
    database = make_database(tmp_path / "task.duckdb")
    workdir = tmp_path / "work"
    workdir.mkdir()
    stdout = io.StringIO()
    with serve(script(str(workdir / "output.csv"))) as server:
        config = ReactConfig(
            endpoint=server.base_url,
            model="fake-model-1",
            instruction="Double every age and write output.csv.",
            workdir=workdir,
            database=database,
            trajectory_path=workdir / ".react" / "trajectory.json",
        )
        trajectory = run_react(config, out=stdout)
        requests = server.requests
    assert (workdir / "output.csv").read_text() == EXPECTED_CSV
    assert len(requests) == 3
    tool_message = requests[1]["messages"][-1]
    assert tool_message == {"role": "tool", "tool_call_id": "c1", "content": "n\n2"}
    assert requests[0]["tools"][0]["function"]["name"] == "run_sql"
    assert stop_reason(trajectory) == "done"
    assert trajectory.final_metrics is not None
    assert trajectory.final_metrics.total_prompt_tokens == 450
    assert trajectory.final_metrics.total_cached_tokens == 250
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "agent", "agent"]
    assert trajectory.steps[1].message == "Double every age and write output.csv."
    assert trajectory.agent.version == m4bench.__version__
    assert calls(trajectory.steps[2])[0].arguments == {
        "query": "SELECT count(*) AS n FROM patients"
    }
    assert results(trajectory.steps[2]) == [("c1", "n\n2")]
    saved = Trajectory.model_validate_json((workdir / ".react/trajectory.json").read_text())
    assert saved.final_metrics is not None and saved.final_metrics.total_completion_tokens == 35
    trace = tmp_path / "stdout.jsonl"
    trace.write_text(stdout.getvalue())
    summary = ReactAdapter().parse_trace(trace)
    assert summary.usage == EXPECTED_USAGE and summary.errors == []
    assert len(ReactAdapter().to_atif(trace).steps) == 5


def test_step_limit_stops_the_loop(tmp_path: Path) -> None:
    replies = [
        tool_reply(f"c{i}", "run_shell", {"command": "echo hi"}, usage(10, 1)) for i in range(5)
    ]
    with serve(replies) as server:
        config = ReactConfig(
            endpoint=server.base_url,
            model="m",
            instruction="loop",
            workdir=tmp_path,
            max_steps=2,
        )
        trajectory = run_react(config, out=io.StringIO())
        assert len(server.requests) == 2
    assert stop_reason(trajectory) == "step_limit"
    assert results(trajectory.steps[2]) == [("c0", "exit code 0\nhi\n")]


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("drop_tables", "{}", "error: unknown tool 'drop_tables'"),
        ("read_file", "{not json", "error: arguments are not JSON"),
        ("write_file", '{"path": "x.txt"}', "error: missing argument 'content'"),
        ("run_sql", '{"query": "SELECT 1"}', "error: no database was given"),
    ],
)
def test_bad_tool_calls_become_error_observations(
    tmp_path: Path, name: str, arguments: str, expected: str
) -> None:
    reply = tool_reply("c1", name, {}, usage(10, 1))
    reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = arguments
    with serve([reply, text_reply("ok", usage(10, 1))]) as server:
        config = ReactConfig(endpoint=server.base_url, model="m", instruction="x", workdir=tmp_path)
        trajectory = run_react(config, out=io.StringIO())
    [(call_id, content)] = results(trajectory.steps[2])
    assert call_id == "c1" and str(content).startswith(expected)


def test_tool_calls_without_ids_or_with_object_arguments(tmp_path: Path) -> None:
    reply = tool_reply("unused", "write_file", {}, usage(10, 1))
    call = reply["choices"][0]["message"]["tool_calls"][0]
    del call["id"]
    call["function"]["arguments"] = {"path": "note.txt", "content": "hello"}
    with serve([reply, text_reply("done", usage(10, 1))]) as server:
        config = ReactConfig(endpoint=server.base_url, model="m", instruction="x", workdir=tmp_path)
        trajectory = run_react(config, out=io.StringIO())
        sent = server.requests[1]["messages"]
    assert (tmp_path / "note.txt").read_text() == "hello"
    assistant, tool = sent[-2], sent[-1]
    assert assistant["tool_calls"][0]["id"] == tool["tool_call_id"] == "call_1_0"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"])["path"] == "note.txt"
    assert calls(trajectory.steps[2])[0].arguments == {"path": "note.txt", "content": "hello"}


def test_a_failing_endpoint_ends_the_run_with_a_model_error(tmp_path: Path) -> None:
    stdout = io.StringIO()
    with serve([400]) as server:
        config = ReactConfig(endpoint=server.base_url, model="m", instruction="x", workdir=tmp_path)
        trajectory = run_react(config, out=stdout)
        assert len(server.requests) == 1
    assert stop_reason(trajectory) == "model_error"
    assert [s.source for s in trajectory.steps] == ["system", "user"]
    trace = tmp_path / "trace.jsonl"
    trace.write_text(stdout.getvalue())
    errors = ReactAdapter().parse_trace(trace).errors
    assert any("HTTP 400" in error for error in errors) and "stopped: model_error" in errors
