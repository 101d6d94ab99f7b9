"""The react agent, driven by a scripted model on loopback through the egress proxy."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from atif_check import check_trajectory
from bwrap_probe import needs_bwrap
from fake_openai import ErrorReply, serve, text_reply, tool_reply, usage
from run_bench import Bench

from m4bench.runner import is_complete

pytestmark = needs_bwrap

TASK = "mimic-meld-24h"
EXPLORE = "SELECT count(*) AS stays FROM mimiciv_icu.icustays"
WRITE = (
    "COPY (SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays) "
    "TO 'output.csv' (HEADER)"
)


def test_react_explores_writes_output_and_is_scored(bench: Bench, tmp_path: Path) -> None:
    replies = [
        tool_reply("c1", "run_sql", {"query": EXPLORE}, usage(100, 20, cached=30)),
        tool_reply("c2", "run_sql", {"query": WRITE}, usage(150, 25, cached=100)),
        text_reply("Wrote output.csv.", usage(200, 10, cached=150)),
    ]
    with serve(replies) as model:
        record = bench.run(
            tmp_path,
            TASK,
            "react",
            condition="with-skill",
            model="scripted-model",
            endpoint=model.base_url,
            timeout=120,
        )
        requests = model.requests
    assert record.status == "ok", (record.status_detail, record.error)
    assert len(requests) == 3
    # The condition's skill sits where the react agent loads skills from.
    system = requests[0]["messages"][0]["content"]
    assert "- meld-score:" in system and "/workdir/.react/skills/meld-score/SKILL.md" in system
    # The model saw the database answer its exploring query.
    observation = json.dumps(requests[1]["messages"])
    assert "stays" in observation and "error" not in observation.lower()
    assert record.score is not None and 0.0 <= record.reward < 1.0
    assert record.usage.input_uncached == 70 + 50 + 50
    assert record.usage.input_cache_read == 30 + 100 + 150
    assert record.usage.output == 55
    assert record.usage.turns == 3 and record.usage.tool_calls == 2
    assert record.versions.models_reported == ["fake-model-1"]
    egress = record.sandbox.egress
    assert egress is not None and egress.connections == 3 and egress.refused == 0
    assert egress.allowed_endpoints == [f"127.0.0.1:{model.port}"]
    run_dir = tmp_path / record.run_id
    trajectory = check_trajectory((run_dir / record.artifacts["trajectory.json"].path).read_text())
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "agent", "agent"]
    assert trajectory.session_id == record.run_id
    assert trajectory.final_metrics is not None
    assert trajectory.final_metrics.total_prompt_tokens == 450
    calls = trajectory.steps[2].tool_calls
    assert calls is not None and calls[0].arguments == {"query": EXPLORE}
    assert "egress.jsonl" in record.artifacts
    instruction = (run_dir / record.artifacts["instruction.md"].path).read_text()
    assert instruction.startswith("Work only with the files in your working directory")


def test_an_unreachable_endpoint_is_an_infrastructure_outcome(bench: Bench, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    record = bench.run(tmp_path, TASK, "react", model="m", endpoint=endpoint, timeout=60)
    assert record.status == "endpoint_unreachable" and record.owner == "infrastructure"
    assert record.sandbox.returncode == 5
    assert record.error is not None and record.error == record.status_detail
    assert record.error.startswith(f"the model endpoint could not be reached: {endpoint} (")
    assert "refused the connection" in record.error
    assert record.error.endswith("start the model server or fix --endpoint")
    assert not record.publishable
    assert record.publishable_reason == (
        "not the model's answer: the model endpoint could not be reached"
    )
    assert not is_complete(tmp_path / record.run_id)  # a campaign retries it
    egress = record.sandbox.egress
    assert egress is not None and egress.connections >= 1 and egress.refused == 0


def test_a_provider_failing_after_the_output_is_written_is_not_scored(
    bench: Bench, tmp_path: Path
) -> None:
    """The model wrote a complete output, then the provider failed for good: the run is
    the provider's failure (no score, no reward), its tokens are still recorded."""
    busy = ErrorReply(503, {"error": {"message": "overloaded"}}, {"Retry-After": "0"})
    replies = [tool_reply("c1", "run_sql", {"query": WRITE}, usage(150, 25)), busy, busy, busy]
    with serve(replies) as model:
        record = bench.run(tmp_path, TASK, "react", model="m", endpoint=model.base_url, timeout=120)
        requests = len(model.requests)
    assert requests == 4
    assert record.status == "provider_error", (record.status_detail, record.error)
    assert record.error == record.status_detail
    assert record.status_detail.startswith("the provider failed or was overloaded: ")
    assert "HTTP 503" in record.status_detail and record.retry_after == 0.0
    assert "output.csv" in record.artifacts, "the output is kept, but not scored"
    assert record.score is None and record.reward == 0.0 and not record.complete
    assert not record.publishable
    assert (
        record.publishable_reason == "not the model's answer: the provider failed or was overloaded"
    )
    assert (record.usage.input_uncached, record.usage.output, record.usage.turns) == (150, 25, 1)
