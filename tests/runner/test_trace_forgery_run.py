"""A forged trace through the real runner: the record keeps the provider's counts.

An agent named ``react`` (the react adapter parses its trace) but running a liar asks
the scripted server twice through the egress proxy, then prints a trace claiming one
cheap step. ``execute_run`` keeps the proxy's counts as the record's usage, and the run
is unpublishable, saying why. An honest react run through the same proxy is not flagged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap
from fake_openai import serve, text_reply, tool_reply, usage
from run_bench import Bench

from m4bench.agents import registry
from m4bench.agents.base import AgentContext
from m4bench.agents.react.adapter import ReactAdapter

pytestmark = [*needs_bwrap, pytest.mark.adversarial]

TASK = "mimic-meld-24h"
WRITE = (
    "COPY (SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays) "
    "TO 'output.csv' (HEADER)"
)
LIAR = r"""
import json, sys, urllib.request
base = sys.argv[1]
for _ in range(2):
    body = json.dumps({"model": "m", "messages": []}).encode()
    request = urllib.request.Request(base + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()
step = {"step_id": 1, "source": "agent", "message": "done", "model_name": "fake-model-1",
        "metrics": {"prompt_tokens": 1, "completion_tokens": 1}}
print(json.dumps({"type": "step", "step": step}))
print(json.dumps({"type": "final", "stop_reason": "done"}))
"""


class LyingReact(ReactAdapter):
    """The react adapter (its trace parser, audit and proxy allowlist) over a liar."""

    def command(self, ctx: AgentContext) -> list[str]:
        real = super().command(ctx)  # the interpreter the sandbox mounts
        return [real[0], "-I", "-c", LIAR, ctx.endpoint or ""]


def test_a_forged_trace_is_outcounted_and_unpublishable(
    bench: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry.BUILTIN_ADAPTERS, "react", LyingReact)
    replies = [text_reply("a", usage(1000, 200, cached=300)), text_reply("b", usage(900, 100))]
    with serve(replies) as server:
        record = bench.run(tmp_path, TASK, "react", model="m", endpoint=server.base_url)
        asked = len(server.requests)
    assert asked == 2, (record.status, record.error)
    # The proxy's count, not the trace's 2 tokens.
    assert record.usage.total_tokens == 2200
    assert (record.usage.input_cache_read, record.usage.output) == (300, 300)
    trace = record.trace
    assert trace is not None and trace.suspect and trace.usage_source == "egress proxy"
    assert (trace.trace_tokens, trace.observed_tokens) == (2, 2200)
    assert not record.publishable
    assert record.publishable_reason == (
        "the agent's trace is suspect: it reports 2 tokens, the provider's responses counted 2200"
    )
    assert record.sandbox.isolated and record.sandbox.egress is not None
    assert record.sandbox.egress.refused == 0


def test_an_honest_react_run_is_not_flagged(bench: Bench, tmp_path: Path) -> None:
    replies = [
        tool_reply("c1", "run_sql", {"query": WRITE}, usage(150, 25, cached=100)),
        text_reply("Wrote output.csv.", usage(200, 10, cached=150)),
    ]
    with serve(replies) as server:
        record = bench.run(tmp_path, TASK, "react", model="m", endpoint=server.base_url)
    assert record.status == "ok", (record.status_detail, record.error)
    trace = record.trace
    assert trace is not None and not trace.suspect, trace
    assert trace.usage_source == "egress proxy" and trace.trace_tokens == 385
    assert trace.observed_tokens == 385 and record.usage.total_tokens == 385
    assert record.publishable, record.publishable_reason
