"""The typed readers: which files a folder holds, what format they are, and errors that
name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from result_records import record, score

from m4bench.errors import M4BenchError
from m4bench.fileio import write_model
from m4bench.results import (
    RunSpec,
    is_complete,
    parse_result,
    read_manifest,
    read_result,
    result_files,
    run_id,
)
from m4bench.results.layout import CampaignFolder, RunFolder
from m4bench.results.read import read_attempt

SPEC = RunSpec(task="mimic-sofa-24h", condition="with-skill", agent="codex", model="gpt-5.5")


def _write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _document() -> dict[str, object]:
    return record(SPEC, scored=score(0.5)).model_dump(mode="json")


def test_a_record_round_trips_and_its_identity_reads_under_either_name(tmp_path: Path) -> None:
    written = record(SPEC, scored=score(0.5))
    path = tmp_path / "result.json"
    write_model(path, written)
    assert read_result(path) == written
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format_version"] == 2 and document["identity"]["schema"] == "native"
    identity = document["identity"]
    identity["schema_name"] = identity.pop("schema")  # how format-1 runner records spell it
    assert parse_result(document, "here").identity == SPEC


def test_a_newer_format_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    path = _write(tmp_path / "run" / "result.json", {**_document(), "format_version": 3})
    with pytest.raises(M4BenchError, match=r"run/result\.json: result record of format 3") as no:
        read_result(path)
    assert "this m4bench reads format 1 and 2" in no.value.message
    assert no.value.hint is not None and "newer m4bench" in no.value.hint


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format_version": None}, "not an m4bench result record"),
        ({"format_version": "2"}, "unknown format '2'"),
        ({"reward": 1.5}, "field 'reward'"),
        ({"status": "done"}, "field 'status'"),
    ],
)
def test_a_bad_record_names_the_file_and_the_field(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _write(tmp_path / "result.json", {**_document(), **change})
    with pytest.raises(M4BenchError, match=message) as refused:
        read_result(path)
    assert str(path) in refused.value.message
    assert not is_complete(path)


def test_a_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text("{half", encoding="utf-8")
    with pytest.raises(M4BenchError, match=rf"{path}: not readable JSON"):
        read_result(path)


def test_a_campaign_record_of_format1_with_an_unknown_failure_is_refused(tmp_path: Path) -> None:
    campaign_record = {
        "format_version": 1, "run_id": "r", "task": "t", "condition": "no-skill",
        "schema": "native", "agent": "a", "model": "m", "reasoning": "auto", "trial": 1,
        "attempt": 1, "status": "failed", "reward": 0.0, "failure_reason": "gremlins",
        "publishable": False, "elapsed_seconds": 1.0,
        "token_usage": {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                        "cost_usd": 0.0},
        "score": None, "record": {},
    }  # fmt: skip
    path = _write(tmp_path / "result.json", campaign_record)
    with pytest.raises(M4BenchError, match="field 'failure_reason': 'gremlins' is no run status"):
        read_result(path)


def test_newer_campaign_files_are_refused(tmp_path: Path) -> None:
    manifest = _write(tmp_path / "campaign.json", {"format_version": 2, "profile": "p"})
    with pytest.raises(M4BenchError, match="campaign manifest of format 2"):
        read_manifest(manifest)
    attempt = _write(tmp_path / "1.json", {"format_version": 9, "run_id": "r", "attempt": 1})
    with pytest.raises(M4BenchError, match="attempt record of format 9"):
        read_attempt(attempt)
    old = _write(tmp_path / "2.json", {"run_id": "r", "attempt": 2, "state": "finished"})
    assert read_attempt(old).state == "finished", "attempt records of format 1 had no version"


def test_a_campaign_folder_gives_its_runs_records_only(tmp_path: Path) -> None:
    folder = CampaignFolder(tmp_path / "campaign")
    write_model(folder.result("a"), record(SPEC))
    write_model(folder.runner_folder("b").result, record(SPEC))  # the runner's, not yet kept
    assert result_files(folder.root) == [folder.result("a")]


def test_other_folders_give_every_run_folder_below_them(tmp_path: Path) -> None:
    runs = tmp_path / "runs-of-mine"
    for name in ("b", "a"):
        write_model(RunFolder(runs / name).result, record(SPEC))
    campaign = CampaignFolder(tmp_path / "nested" / "campaign")
    write_model(campaign.result("c"), record(SPEC))
    (runs / "a" / "attempt-1").mkdir()
    found = result_files(tmp_path)
    assert found == [campaign.result("c"), runs / "a" / "result.json", runs / "b" / "result.json"]
    assert result_files(tmp_path / "missing") == []


def test_run_ids_of_runs_already_recorded_never_change() -> None:
    """Ids name folders on disk: the formula may not drift (docs/campaigns.md's example)."""
    assert SPEC.model_copy(update={"trial": 3}).run_id == (
        "mimic-sofa-24h.with-skill.native.gpt-5.5.t3-5fff3c2fc2"
    )
    oracle = RunSpec(task="mimic-meld-24h", agent="oracle")
    assert oracle.run_id == "mimic-meld-24h.no-skill.native.default.t1-8ab5aff2c6"
    assert run_id(oracle.cell(), 1) == oracle.run_id
    # Sanitising merges a/b and a_b in the slug; the hash keeps them apart.
    slash, underscore = (RunSpec(task="t", agent="x", model=m) for m in ("a/b", "a_b"))
    assert slash.run_id.split("-")[0] == underscore.run_id.split("-")[0]
    assert slash.run_id != underscore.run_id
