"""Whose each outcome is, and what an infrastructure outcome means for a record:
not complete, no reward counted, readable beside records written before it existed."""

from __future__ import annotations

import json

import pytest
from result_records import record, score

from m4bench.agents.outcome import INFRA_KINDS
from m4bench.results import INFRASTRUCTURE, STATUSES, UNFINISHED, RunSpec, owner, row_of
from m4bench.results.read import parse_result
from m4bench.results.reward import counted_reward

SPEC = RunSpec(task="mimic-meld-24h", agent="react", model="m")
EXPECTED = {
    "ok": "model",
    "timeout": "agent",
    "nonzero_exit": "agent",
    "no_output": "agent",
    "sandbox_violation": "agent",
    "egress_violation": "agent",
    "harness_error": "infrastructure",
    "interrupted": "infrastructure",
    "rate_limited": "infrastructure",
    "provider_error": "infrastructure",
    "auth_error": "infrastructure",
    "quota_exhausted": "infrastructure",
    "endpoint_unreachable": "infrastructure",
}


def test_every_status_has_one_owner() -> None:
    assert set(EXPECTED) == set(STATUSES)
    for status in STATUSES:
        assert owner(status) == EXPECTED[status], status
        assert record(SPEC, status=status).owner == EXPECTED[status]
    with pytest.raises(ValueError, match="is no run status"):
        owner("done")  # type: ignore[arg-type]


def test_the_infrastructure_kinds_are_statuses_of_unfinished_runs() -> None:
    assert set(INFRA_KINDS) == INFRASTRUCTURE
    assert INFRASTRUCTURE < UNFINISHED
    assert {s for s in STATUSES if EXPECTED[s] == "infrastructure"} == UNFINISHED
    for kind in INFRA_KINDS:
        kept = record(SPEC, status=kind, scored=score(1.0), retry_after=30.0, publishable=False)
        assert not kept.complete and counted_reward(kept) is None
        assert row_of(kept).reward is None and row_of(kept).failure_reason == kind


def test_records_written_before_the_new_outcomes_read_as_before() -> None:
    old = json.loads(record(SPEC, status="nonzero_exit").model_dump_json())
    del old["retry_after"]  # a format-2 record of an m4bench that had no such field
    read = parse_result(old, "old/result.json")
    assert read.status == "nonzero_exit" and read.retry_after is None and read.complete
    kept = record(SPEC, status="rate_limited", retry_after=12.5, error="HTTP 429")
    again = parse_result(json.loads(kept.model_dump_json()), "new/result.json")
    assert (again.status, again.retry_after, again.error) == ("rate_limited", 12.5, "HTTP 429")
