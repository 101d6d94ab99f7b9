"""The demo's validity line says why an audit failed, not only that it did."""

from __future__ import annotations

import json
from pathlib import Path

from user_tasks import local_family

from m4bench.demo.stages import _verdict, tasks_of
from m4bench.tasks.catalog import load_catalog
from m4bench.validity.model import AuditReport, BinCoverage, MutantResult, TaskAudit


def _report(
    uncaught: list[str], gap_rows: int | None, unmoved: tuple[str, ...] = ()
) -> AuditReport:
    mutants = [MutantResult(name=name, rationale="wrong", reward=1.0) for name in uncaught]
    task = TaskAudit(
        task="mimic-kdigo-48h",
        family="kdigo",
        reference_reward=1.0,
        scored_columns=["aki_stage"],
        mutants=mutants,
        unmoved_columns=list(unmoved),
        uncaught_mutants=uncaught,
        all_mutants_below_one=not uncaught,
        all_columns_moved=not unmoved,
    )
    coverage = [
        BinCoverage(family="kdigo", name="stage-3-rrt", reference="kdigo", rows=gap_rows),
        BinCoverage(family="kdigo", name="stage-1", reference="kdigo", rows=5),
    ]
    return AuditReport(source="s", dataset="mimic-iv", tasks=[task], coverage=coverage)


def test_a_failed_audit_is_counted_by_kind(tmp_path: Path) -> None:
    path = tmp_path / "validity-s.json"
    path.write_text(_report(["a", "b"], 0).model_dump_json(), encoding="utf-8")
    assert _verdict(path) == "FAILED (2 known-wrong answers not caught, 1 scoring bin not reached)"
    path.write_text(_report([], 3).model_dump_json(), encoding="utf-8")
    assert _verdict(path) == "passed"


def test_a_column_no_mutant_moves_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "validity-s.json"
    path.write_text(_report([], 3, ("liver",)).model_dump_json(), encoding="utf-8")
    assert _verdict(path) == "FAILED (1 scored column no known-wrong answer moves)"


def test_the_audit_splits_tasks_by_their_cards_dataset(tmp_path: Path) -> None:
    """A task's dataset is its card's: a MIMIC-IV task whose name starts like an eICU one,
    and one with no dataset prefix at all, are audited on the MIMIC-IV source."""
    local_family(tmp_path / "ours", family="lookalike", task="eicu-meld-lookalike")
    local_family(tmp_path / "ours", family="plain", task="meld-plain-24h")
    catalog = load_catalog(extra_roots=[tmp_path / "ours"])
    tasks = ["eicu-meld-lookalike", "meld-plain-24h", "eicu-gcs", "mimic-sofa-24h"]
    assert tasks_of(catalog, tasks, "mimic-iv") == [
        "eicu-meld-lookalike",
        "meld-plain-24h",
        "mimic-sofa-24h",
    ]
    assert tasks_of(catalog, tasks, "eicu") == ["eicu-gcs"]


def test_the_small_demo_marks_the_gaps_its_size_explains(tmp_path: Path) -> None:
    """At the small size a mutant left uncaught and a bin unreached are expected (too few
    rare rows); a reference that does not score 1.0 is a failure at any size."""
    path = tmp_path / "validity-s.json"
    path.write_text(_report(["a"], 0).model_dump_json(), encoding="utf-8")
    small = _verdict(path, small=True)
    assert small.startswith(
        "expected at this size (1 known-wrong answer not caught, 1 scoring bin not reached): "
    )
    assert "FAILED" not in small and "too few of the rare rows" in small
    broken = _report(["a"], 0).model_dump(mode="json")
    broken["tasks"][0]["reference_reward"] = 0.5
    path.write_text(json.dumps(broken), encoding="utf-8")
    assert _verdict(path, small=True).startswith(
        "FAILED (1 reference not scoring 1.0); expected at this size (1 known-wrong"
    )
    assert _verdict(path) == (
        "FAILED (1 known-wrong answer not caught, 1 scoring bin not reached, "
        "1 reference not scoring 1.0)"
    )
