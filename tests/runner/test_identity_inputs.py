"""The inputs that enter a run's identity: the replayed file's digest and the endpoint
(credentials left out), for the agents that have them; every other id stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from m4bench.errors import M4BenchError
from m4bench.results import Cell, RunSpec, run_id
from m4bench.results.identity import public_endpoint
from m4bench.runner.identity_inputs import check_identified, identified

TASK = "mimic-meld-24h"


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    one, copy, other = tmp_path / "one.sql", tmp_path / "copy" / "one.sql", tmp_path / "two.sql"
    copy.parent.mkdir()
    one.write_text("SELECT 1 AS stay_id", encoding="utf-8")
    copy.write_text("SELECT 1 AS stay_id", encoding="utf-8")
    other.write_text("SELECT 2 AS stay_id", encoding="utf-8")
    return one, copy, other


def test_two_replay_files_give_two_ids_and_one_file_one_id(tmp_path: Path) -> None:
    one, copy, other = _files(tmp_path)
    spec = RunSpec(task=TASK, agent="replay", model="mine")
    first, again, second = (identified(spec, None, path) for path in (one, copy, other))
    assert first.run_id == again.run_id, "the content decides, not where the file is"
    assert first.run_id != second.run_id
    assert first.run_id != spec.run_id
    assert first.replay_sha256 is not None and len(first.replay_sha256) == 64
    assert first.key.endswith(f"|replay={first.replay_sha256}")
    assert first.run_id.startswith(f"{TASK}.no-skill.native.mine.t1-")


def test_ids_without_these_inputs_are_the_ids_on_disk() -> None:
    """An oracle run given an endpoint keeps its id (it reaches none): the ids pinned in
    tests/results and the campaign's stay as they were."""
    spec = RunSpec(task=TASK, agent="oracle")
    assert identified(spec, "http://127.0.0.1:9/v1", None) == spec
    assert spec.run_id == "mimic-meld-24h.no-skill.native.default.t1-8ab5aff2c6"
    assert spec.model_dump(by_alias=True) == {
        "task": TASK,
        "condition": "no-skill",
        "schema": "native",
        "agent": "oracle",
        "model": "default",
        "reasoning": "auto",
        "trial": 1,
    }, "a planned cell's JSON (hashed into campaign.json) has no new keys"


def test_the_endpoint_enters_without_credentials(tmp_path: Path) -> None:
    spec = RunSpec(task=TASK, agent="react", model="qwen3:8b")
    secret = identified(spec, "HTTP://user:s3cret@Host:80/v1/?key=abc", None)
    assert secret.endpoint == "http://host/v1"
    assert "s3cret" not in secret.key and "abc" not in secret.key
    plain = identified(spec, "http://host/v1", None)
    assert plain.run_id == secret.run_id
    assert identified(spec, "http://other:8000/v1", None).run_id != plain.run_id
    assert identified(spec, None, None) == spec
    one, _, _ = _files(tmp_path)
    sql = identified(RunSpec(task=TASK, agent="replay"), "http://host/v1", one)
    assert sql.endpoint is None, "a replayed .sql file reaches no endpoint"
    script = one.with_suffix(".py")
    script.write_text("print(1)", encoding="utf-8")
    py = identified(RunSpec(task=TASK, agent="replay"), "http://host/v1", script)
    assert py.endpoint == "http://host/v1"


@pytest.mark.parametrize(
    ("given", "public"),
    [
        ("https://api.example.org:443/", "https://api.example.org"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
        ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
        ("http://k:v@h/a|b?x=1#frag", "http://h/a%7Cb"),
    ],
)
def test_public_endpoint(given: str, public: str) -> None:
    assert public_endpoint(given) == public


def test_a_replay_file_changed_after_planning_is_refused(tmp_path: Path) -> None:
    one, _, other = _files(tmp_path)
    planned = identified(RunSpec(task=TASK, agent="replay"), None, one)
    assert check_identified(planned, None, one) == planned
    with pytest.raises(M4BenchError, match="replay_sha256"):
        check_identified(planned, None, other)
    bare = RunSpec(task=TASK, agent="replay")
    assert check_identified(bare, None, other) == identified(bare, None, other)


def test_a_cell_key_and_id_follow_the_rule_of_appended_parts() -> None:
    cell = Cell(task=TASK, agent="replay", replay_sha256="a" * 64)
    assert cell.parts()[-1] == "replay=" + "a" * 64
    assert run_id(cell, 1) != run_id(cell.model_copy(update={"replay_sha256": None}), 1)
    with pytest.raises(ValueError):
        Cell(task=TASK, agent="react", endpoint="http://user:pw@host/v1")
