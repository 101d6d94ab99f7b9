"""The demo's validity line says why an audit failed, not only that it did."""

from __future__ import annotations

from pathlib import Path

from m4bench.demo.stages import _verdict
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
