"""`m4bench run` on a run the provider ended: it says whose the outcome is (the
provider's, not the model's), its cause and what to do, and exits 3; a run the agent
failed still exits 0 with its scored record."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_entry import run_main
from fake_openai import ErrorReply, serve, text_reply, usage
from run_bench import SOURCE, Bench

from m4bench.cli.run_outcome import INFRASTRUCTURE_EXIT, whose
from m4bench.results import read_result
from m4bench.results.record import STATUSES, owner

TASK = "mimic-meld-24h"
BAD_KEY = {"error": {"message": "Incorrect API key provided.", "code": "invalid_api_key"}}


def react_run(bench: Bench, results: Path, endpoint: str) -> list[str]:
    return [
        "run", "--task", TASK, "--agent", "react", "--model", "m", "--source", SOURCE,
        "--sandbox", "none", "--endpoint", endpoint, "--timeout", "60",
        "--home", str(bench.home.root), "--results", str(results),
    ]  # fmt: skip


def test_a_refused_key_is_the_providers_outcome_and_exits_3(
    bench: Bench,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("M4BENCH_REACT_API_KEY", raising=False)
    with serve([ErrorReply(401, BAD_KEY)]) as server:
        ran = run_main(react_run(bench, tmp_path, server.base_url), monkeypatch, capsys)
        requests = len(server.requests)
    assert requests == 1, "a refused key is not asked again"
    assert ran.code == INFRASTRUCTURE_EXIT == 3, ran.err
    assert "status auth_error" in ran.out
    lines = ran.err.splitlines()
    assert (
        "auth_error is the model provider's failure, not the model's: the run did not "
        "happen (no score, no reward; a campaign would run it again)"
    ) in lines
    assert f"cause: auth_error: the provider refused the credentials: {server.base_url}: " in (
        ran.err
    )
    assert "Incorrect API key provided." in ran.err
    assert (
        "what to do: fix the agent's API key (M4BENCH_REACT_API_KEY) or its permissions, "
        "then run the same command again"
    ) in lines
    (run_dir,) = tmp_path.iterdir()
    record = read_result(run_dir / "result.json")
    assert record.status == "auth_error" and record.owner == "infrastructure"
    assert record.score is None and not record.publishable


def test_an_agent_failure_keeps_exit_0(
    bench: Bench,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The model answered without writing output.csv: the model's and agent's outcome,
    scored by the reward rule; nothing is said of a provider."""
    monkeypatch.delenv("M4BENCH_REACT_API_KEY", raising=False)
    with serve([text_reply("I am done.", usage(10, 2))]) as server:
        ran = run_main(react_run(bench, tmp_path, server.base_url), monkeypatch, capsys)
    assert ran.code == 0, ran.err
    assert "status no_output" in ran.out
    assert "not the model's" not in ran.err and "what to do" not in ran.err


def test_every_infrastructure_outcome_but_an_interruption_exits_3() -> None:
    """The provider's kinds and the harness's failure exit 3; the model's and the
    agent's outcomes keep exit 0; an interruption keeps its 130."""
    for status in STATUSES:
        said = whose(status)
        assert (said is not None) == (owner(status) == "infrastructure" and status != "interrupted")
    assert whose("harness_error") == "the harness's"
    assert whose("rate_limited") == whose("endpoint_unreachable") == "the model provider's"
