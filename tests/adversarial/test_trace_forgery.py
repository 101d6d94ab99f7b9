"""A forged trace cannot lower a run's token count, nor pass as publishable.

The lying agent asks the scripted OpenAI server twice through the egress proxy, then
prints a trace claiming one cheap step of a model nobody served, with a malformed line
in it. The proxy's reading of the provider's responses is the count the record keeps;
the trace is suspect; a budget counts the run's allowance. Hand-made traces check the
audit's other findings, each against a clean trace of the same agent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from adversarial_helpers import make_spec
from bwrap_probe import bwrap_works
from fake_openai import serve, text_reply, usage

from m4bench.agents.registry import get_adapter
from m4bench.agents.trace_audit import audit_trace
from m4bench.agents.usage import Usage
from m4bench.campaign.budget import BudgetGuard, counted_tokens
from m4bench.campaign.profile import Budget, Price
from m4bench.results.identity import RunSpec
from m4bench.results.record import ResultRecord, SandboxRecord, Versions
from m4bench.results.verdicts import TraceVerdict
from m4bench.runner.trace_check import check_trace
from m4bench.sandbox import BwrapSandbox, NetworkMode
from m4bench.sandbox.observed import usage_in_responses

TRACES = Path(__file__).parents[1] / "agents" / "traces"
ALLOWANCE = 300

LIAR = r"""
import json, sys, urllib.request
base = sys.argv[1]
for _ in range(2):
    body = json.dumps({"model": "fake-model-1", "messages": []}).encode()
    request = urllib.request.Request(base + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json",
                                              "Accept-Encoding": "gzip"})
    urllib.request.urlopen(request, timeout=10).read()
step = {"step_id": 1, "source": "agent", "message": "done", "model_name": "free-model",
        "metrics": {"prompt_tokens": 1, "completion_tokens": 1}}
print(json.dumps({"type": "step", "step": step}))
print("{not json")
print(json.dumps({"type": "final", "stop_reason": "done"}))
"""

pytestmark = pytest.mark.adversarial


@pytest.mark.bwrap
@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here")
def test_a_lying_trace_is_outcounted_by_the_proxy(tmp_path: Path) -> None:
    replies = [text_reply("a", usage(1000, 200, cached=300)), text_reply("b", usage(900, 100))]
    with serve(replies) as server:
        spec = make_spec(
            tmp_path,
            network=NetworkMode.PROXY,
            allowed=(f"127.0.0.1:{server.port}",),
        )
        (spec.workdir / "liar.py").write_text(LIAR)
        command = ["/usr/bin/python3", "-I", "liar.py", server.base_url]
        result = BwrapSandbox().run(command, spec, timeout=30)
        assert len(server.requests) == 2, result.stderr_path.read_text()
    assert result.returncode == 0
    observed = result.observed_usage
    assert observed is not None and observed.complete
    assert (observed.prompt_tokens, observed.completion_tokens) == (1900, 300)
    adapter = get_adapter("react")
    summary = adapter.parse_trace(result.stdout_path)
    assert summary.usage.total_tokens == 2  # what the agent claims
    kept, verdict = check_trace("react", result.stdout_path, summary, observed, ALLOWANCE)
    assert kept.usage.total_tokens == 2200
    assert (kept.usage.input_cache_read, kept.usage.output) == (300, 300)
    assert kept.model_strings == ["fake-model-1"]
    assert verdict.suspect and verdict.usage_source == "egress proxy"
    text = " ".join(verdict.reasons)
    assert "malformed JSON" in text and "2200" in text and "free-model" in text
    assert (verdict.trace_tokens, verdict.observed_tokens) == (2, 2200)


def test_an_honest_trace_seen_by_the_proxy_is_not_suspect(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    step = {
        "step_id": 1,
        "source": "agent",
        "message": "x",
        "model_name": "fake-model-1",
        "metrics": {"prompt_tokens": 1000, "completion_tokens": 200, "cached_tokens": 300},
    }
    trace.write_text(json.dumps({"type": "step", "step": step}) + "\n")
    summary = get_adapter("react").parse_trace(trace)
    body = json.dumps(text_reply("a", usage(1000, 200, cached=300))).encode()
    raw = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    observed = usage_in_responses(raw)
    kept, verdict = check_trace("react", trace, summary, observed, ALLOWANCE)
    assert not verdict.suspect, verdict.reasons
    assert kept.usage.total_tokens == summary.usage.total_tokens == 1200


def test_chunked_event_stream_usage_is_read() -> None:
    events = [
        {"model": "m1", "choices": [{"delta": {"content": "hi"}}], "usage": None},
        {"model": "m1", "choices": [], "usage": usage(50, 7)},
    ]
    stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    data = stream.encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    raw = head + b"Transfer-Encoding: chunked\r\n\r\n" + chunked
    seen = usage_in_responses(raw + raw)
    assert (seen.responses, seen.prompt_tokens, seen.completion_tokens) == (2, 100, 14)
    assert seen.models == ["m1"] and seen.complete


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def forged(tmp_path: Path, name: str, rows: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n")
    return path


def audit(agent: str, path: Path) -> list[str]:
    return audit_trace(agent, path, get_adapter(agent).parse_trace(path))


@pytest.mark.parametrize(
    ("agent", "fixture"),
    [
        ("claude-code", "claude_stream.jsonl"),
        ("codex", "codex_exec.jsonl"),
        ("gemini-cli", "gemini_stream.jsonl"),
        ("mini-swe-agent", "mini_trajectory.json"),
    ],
)
def test_the_shipped_traces_are_clean(agent: str, fixture: str) -> None:
    assert audit(agent, TRACES / fixture) == []


def test_claude_result_below_its_messages_is_suspect(tmp_path: Path) -> None:
    rows = lines(TRACES / "claude_stream.jsonl")
    result = json.loads(rows[-1])
    result["usage"]["output_tokens"] = 1
    path = forged(tmp_path, "claude.jsonl", [*rows[:-1], json.dumps(result)])
    assert any("output_tokens 1 <" in problem for problem in audit("claude-code", path))


def test_claude_message_counts_going_down_are_suspect(tmp_path: Path) -> None:
    rows = lines(TRACES / "claude_stream.jsonl")
    again = json.loads(next(row for row in rows if '"msg_2"' in row))
    again["message"]["usage"]["output_tokens"] = 0
    path = forged(tmp_path, "claude.jsonl", [*rows[:-1], json.dumps(again), rows[-1]])
    assert any("went down" in problem for problem in audit("claude-code", path))


def test_negative_and_non_numeric_counts_are_suspect(tmp_path: Path) -> None:
    rows = lines(TRACES / "codex_exec.jsonl")
    negative = {"type": "turn.completed", "usage": {"input_tokens": -5000, "output_tokens": 1}}
    text = {"type": "turn.completed", "usage": {"input_tokens": "lots", "output_tokens": 1}}
    path = forged(tmp_path, "codex.jsonl", [*rows, json.dumps(negative), json.dumps(text)])
    found = " ".join(audit("codex", path))
    assert "negative count usage.input_tokens=-5000" in found and "not a number" in found


def test_gemini_total_below_its_parts_is_suspect(tmp_path: Path) -> None:
    rows = lines(TRACES / "gemini_stream.jsonl")
    result = json.loads(rows[-1])
    result["stats"]["total_tokens"] = 10
    path = forged(tmp_path, "gemini.jsonl", [*rows[:-1], json.dumps(result)])
    assert any("total_tokens 10 <" in problem for problem in audit("gemini-cli", path))


def test_react_final_totals_below_the_steps_are_suspect(tmp_path: Path) -> None:
    step = {
        "step_id": 1,
        "source": "agent",
        "message": "x",
        "metrics": {"prompt_tokens": 500, "completion_tokens": 50},
    }
    final = {
        "type": "final",
        "stop_reason": "done",
        "final_metrics": {"total_prompt_tokens": 5, "total_completion_tokens": 50},
    }
    path = forged(
        tmp_path, "react.jsonl", [json.dumps({"type": "step", "step": step}), json.dumps(final)]
    )
    assert audit("react", path) == ["final total_prompt_tokens 5 < the steps' sum 500"]


def test_a_malformed_json_line_is_suspect_and_a_stray_text_line_is_not(tmp_path: Path) -> None:
    rows = lines(TRACES / "codex_exec.jsonl")
    assert any(not row.startswith("{") for row in rows)  # the CLI's own stray line
    path = forged(tmp_path, "codex.jsonl", [*rows[:3], '{"type": "turn.completed", "usage": {'])
    assert audit("codex", path) == ["1 trace line(s) are malformed JSON"]


def record(suspect: bool, tokens: int) -> ResultRecord:
    spec = RunSpec(task="t", condition="no-skill", agent="react", model="m")
    return ResultRecord(
        run_id=spec.run_id,
        attempt=1,
        identity=spec,
        source="s",
        versions=Versions(m4bench="0", python="3", duckdb="1"),
        sandbox=SandboxRecord(backend="bwrap", isolated=True, limits={}),
        status="ok",
        usage=Usage(input_uncached=tokens),
        trace=TraceVerdict(
            suspect=suspect, reasons=["x"] if suspect else [], token_allowance=ALLOWANCE
        ),
    )


def test_the_budget_counts_a_suspect_run_at_its_allowance() -> None:
    assert counted_tokens(record(suspect=False, tokens=0)) == 0
    assert counted_tokens(record(suspect=True, tokens=0)) == ALLOWANCE
    assert counted_tokens(record(suspect=True, tokens=ALLOWANCE * 2)) == ALLOWANCE * 2
    prices = {"m": Price(input=1.0, output=4.0)}
    guard = BudgetGuard(Budget(max_tokens=ALLOWANCE, max_cost_usd=1.0), prices=prices)
    guard.add(record(suspect=True, tokens=0))
    assert guard.tokens == ALLOWANCE and guard.cost_usd == pytest.approx(ALLOWANCE * 4e-6)
    assert guard.exceeded() is not None
