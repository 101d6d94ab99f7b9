"""A campaign of the built-in react agent against a scripted provider that fails: every
run ends scored on a real model answer or recorded as an infrastructure outcome, retried
as the profile says, its failed attempts' tokens counted; the campaign stops on refused
credentials with one line, and the analysis estimates none of the provider's failures."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import ErrorReply, serve, text_reply, tool_reply, usage
from profile_text import local_profile
from synthetic_sources import SyntheticSources
from typer.testing import CliRunner

from m4bench.campaign import ResultsDir, campaign_status
from m4bench.cli import app
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.results import read_results

SOURCE = "provider-mimic"
TASK = "mimic-meld-24h"
RETRY = """\
[concurrency]
jobs = 1
[retry]
transient_attempts = 2
base_delay_seconds = 0.0
max_delay_seconds = 0.0
"""
PROFILE = local_profile(
    "provider",
    [TASK],
    ["react"],
    ["no-skill", "with-skill"],
    extra=RETRY,
    trials=3,
    model="m",
)
WRITE = (
    "COPY (SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays) "
    "TO 'output.csv' (HEADER)"
)
SERVER_ERROR = {"error": {"message": "The server had an error.", "type": "server_error"}}
RATE_LIMIT = {"error": {"message": "Rate limit reached for m.", "code": "rate_limit_exceeded"}}
BAD_KEY = {"error": {"message": "Incorrect API key provided.", "code": "invalid_api_key"}}


def answer() -> list[Any]:
    """A real model answer: the output written, then done (175 + 210 tokens)."""
    return [
        tool_reply("c1", "run_sql", {"query": WRITE}, usage(150, 25)),
        text_reply("Wrote output.csv.", usage(200, 10)),
    ]


def script() -> list[Any]:
    """The provider's answers in the order the runs ask (one run at a time, slowest
    first: the two conditions of trial 1, then of trial 2, ...). ``Retry-After: 0``
    keeps the agent's own retries instant."""
    now = {"Retry-After": "0"}
    failing = [ErrorReply(500, SERVER_ERROR, now)] * 3
    limited = [ErrorReply(429, RATE_LIMIT, now)] * 3
    return [
        # run 1: the model answers, then the provider fails for good (3 tries in the
        # agent); the campaign's second attempt gets a real answer
        answer()[0],
        *failing,
        *answer(),
        *answer(),  # run 2: a real answer
        *limited,  # run 3: rate-limited on both of its attempts: recorded so
        *limited,
        *answer(),  # run 4: a real answer
        ErrorReply(401, BAD_KEY),  # run 5: the key is refused: the campaign stops
    ]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, synthetic_sources: SyntheticSources) -> DataHome:
    data = DataHome(tmp_path_factory.mktemp("provider-home"))
    synthetic_sources.copy(data, SOURCE, "mimic-iv", 40, 3, concepts=True)
    setup(data, SOURCE, [TASK], "native", progress=False)
    return data


def test_a_failing_provider_never_counts_as_the_models_answer(
    tmp_path: Path, home: DataHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("M4BENCH_REACT_API_KEY", raising=False)  # a local server: no key
    profile = tmp_path / "provider.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    results = tmp_path / "results"
    with serve(script()) as server:
        where = ["--results", str(results), "--home", str(home.root), "--no-progress"]
        how = ["--source", f"mimic-iv={SOURCE}", "--sandbox", "none"]
        command = ["campaign", "run", str(profile), *where, *how, "--endpoint", server.base_url]
        ran = CliRunner().invoke(app, command)
        requests = len(server.requests)
    assert ran.exit_code == 1, ran.output
    # 4 + 2 (run 1, retried), 2 (run 2), 3 + 3 (run 3, two attempts), 2 (run 4), 1 (run 5)
    assert requests == 17 and not server.script
    stopped = [line for line in ran.output.splitlines() if line.startswith("stopped: ")]
    assert stopped == [
        "stopped: agent react (model m): auth_error: the provider refused the credentials: "
        f"{server.base_url}: HTTP 401: "
        '{"error": {"message": "Incorrect API key provided.", "code": "invalid_api_key"}}; '
        "fix the agent's API key (M4BENCH_REACT_API_KEY) or its permissions, then run "
        "again with --resume"
    ]
    # The failed attempt's tokens count: 3 answers (385 each) and run 1's first turn.
    assert "3/6 complete (3 done and 0 failed now, 0 before)" in ran.output
    assert "1,330 tokens" in ran.output
    # Run 1's first attempt and run 3's were tried again; run 3 then ran out of tries
    # and run 5 stopped the campaign: said by kind, in words.
    assert (
        "provider retries: 2 attempts the provider ended were tried again (1 provider_error: "
        "the provider failed or was overloaded; 1 rate_limited: the provider rate-limited "
        "the agent)"
    ) in ran.output.splitlines()
    assert (
        "runs the provider ended: 2, not the model's failures, missing until --resume runs "
        "them (1 auth_error: the provider refused the credentials; 1 rate_limited: the "
        "provider rate-limited the agent)"
    ) in ran.output.splitlines()

    records = {item.record.run_id: item.record for item in read_results(results)}
    by_status: dict[str, list[str]] = {}
    for run_id, record in records.items():
        by_status.setdefault(record.status, []).append(run_id)
        if record.status == "ok":
            assert record.score is not None and record.owner == "model"
        else:
            assert record.owner == "infrastructure" and not record.complete
            assert record.score is None and not record.publishable
    assert {k: len(v) for k, v in by_status.items()} == {
        "ok": 3,
        "rate_limited": 1,
        "auth_error": 1,
    }
    folder = ResultsDir(results)
    (limited,) = by_status["rate_limited"]
    assert [a.state for a in folder.attempts(limited)] == ["infrastructure-error"] * 2
    retried = next(r for r in by_status["ok"] if len(folder.attempts(r)) == 2)
    assert [a.state for a in folder.attempts(retried)] == ["infrastructure-error", "finished"]

    status = campaign_status(folder)
    assert (status.total("done"), status.total("failed"), status.total("missing")) == (3, 0, 3)
    assert sum(cell.infrastructure.get("rate_limited", 0) for cell in status.cells) == 1
    shown = CliRunner().invoke(app, ["campaign", "status", str(results)], env={"COLUMNS": "300"})
    header = next(line for line in shown.output.splitlines() if "failure reasons" in line)
    assert "provider ended (missing)" in header
    rows = [line for line in shown.output.splitlines() if "-skill" in line]
    ended = sorted(
        kind for line in rows for kind in ("rate_limited x1", "auth_error x1") if kind in line
    )
    assert ended == ["auth_error x1", "rate_limited x1"], shown.output
    assert "rate_limited: the provider rate-limited the agent: " in shown.output
    assert "auth_error: the provider refused the credentials: " in shown.output

    out = tmp_path / "analysis"
    options = ["--include-unpublishable", "--reps", "100", "--permutation-reps", "100", "--json"]
    analysed = CliRunner().invoke(app, ["analyze", str(results), "--out", str(out), *options])
    assert analysed.exit_code == 0, analysed.output
    document = json.loads(analysed.output[analysed.output.index("{") :])
    assert document, "the headline estimands"
    with (out / "tables" / "cells.csv").open(encoding="utf-8") as table:
        estimated = {row["Condition"]: int(row["Runs"]) for row in csv.DictReader(table)}
    assert estimated == {"no-skill": 2, "with-skill": 1} or estimated == {
        "no-skill": 1,
        "with-skill": 2,
    }, "only the 3 runs scored on a real answer are estimated"
    with (out / "tables" / "integrity.csv").open(encoding="utf-8") as table:
        audit = {row["Audit quantity"]: int(row["Count"]) for row in csv.DictReader(table)}
    assert (audit["Runs loaded"], audit["Runs analysed"], audit["Missing rewards"]) == (5, 3, 2)
