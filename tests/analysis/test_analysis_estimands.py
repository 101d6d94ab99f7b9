"""Estimands on synthetic campaigns whose effects are known by construction."""

from __future__ import annotations

import pytest
from analysis_campaign import TASKS, grid

from m4bench.analysis import AnalysisResult, AnalysisSettings, RunRow, analyze_runs
from m4bench.analysis.tables import Table
from m4bench.analysis.taskmeta import builtin_meta, resolve_task_meta
from m4bench.results import ResultRecord, row_of
from m4bench.results.record import SandboxRecord
from m4bench.results.verdicts import CanaryVerdict, LintVerdict

SETTINGS = AnalysisSettings(reps=500, permutation_reps=500)
EFFECT = sum(TASKS.values()) / len(TASKS)


def _runs(records: list[ResultRecord]) -> list[RunRow]:
    return [row_of(item) for item in records]


@pytest.fixture(scope="module")
def full() -> AnalysisResult:
    records = grid(
        ("no-skill", "with-skill", "with-skill-decoy", "operational-spec"), ("native", "obfuscated")
    )
    return analyze_runs(_runs(records), SETTINGS, "synthetic")


def test_task_balanced_delta_and_levels(full: AnalysisResult) -> None:
    balanced = next(e for e in full.headline if e.metric == "reward" and e.scope == "task-balanced")
    assert balanced.delta == pytest.approx(EFFECT)
    assert balanced.baseline == pytest.approx(0.55)  # models at 0.5 and 0.6, noise cancels
    assert balanced.treatment == pytest.approx(0.55 + EFFECT)
    assert (balanced.improved, balanced.total) == (4, 5)
    assert balanced.ci_low <= EFFECT <= balanced.ci_high


def test_per_model_rows_use_their_own_cells(full: AnalysisResult) -> None:
    model_b = next(e for e in full.headline if e.metric == "reward" and e.scope == "model-b")
    assert model_b.baseline == pytest.approx(0.6)
    assert model_b.delta == pytest.approx(EFFECT)


def test_decoy_control_matches_baseline(full: AnalysisResult) -> None:
    table = full.table("matched_controls")
    row = dict(zip(table.columns, table.rows[0], strict=True))
    assert row["Condition"] == "with-skill-decoy" and row["Tasks"] == 5
    assert row["Control-baseline"] == pytest.approx(0.0)
    assert row["Control-targeted"] == pytest.approx(-EFFECT)


def test_operational_spec_comparisons(full: AnalysisResult) -> None:
    rows = {r[0]: r for r in full.table("operational_spec").rows}
    assert rows["operational-spec vs no-skill"][4] == pytest.approx(0.8 * EFFECT)
    assert rows["with-skill vs operational-spec"][4] == pytest.approx(0.2 * EFFECT)


def test_operational_spec_by_task(full: AnalysisResult) -> None:
    rows = {r[0]: r for r in full.table("operational_spec_by_task").rows}
    assert set(rows) == set(TASKS)
    assert rows["mimic-sofa-24h-raw"][4] == pytest.approx(0.8 * 0.30)  # spec - baseline
    assert rows["mimic-sofa-24h-raw"][5] == pytest.approx(0.2 * 0.30)  # targeted - spec


def test_every_task_balanced_comparison_has_a_p_value(full: AnalysisResult) -> None:
    balanced = [e for e in full.comparisons if e.scope == "task-balanced"]
    assert {e.comparison for e in balanced} >= {
        "with-skill vs no-skill",
        "with-skill-decoy vs no-skill",
        "with-skill vs operational-spec",
        "with-skill vs no-skill (obfuscated)",
    }
    decoy = next(e for e in balanced if e.comparison == "with-skill-decoy vs no-skill")
    assert decoy.p_value == pytest.approx(1.0)  # a zero effect is never exceeded


def test_schema_robustness_ratio(full: AnalysisResult) -> None:
    table = full.table("schema_robustness")
    ratios = {(r[0], r[1]): r[-1] for r in table.rows}
    assert ratios[("model-a", "native")] == pytest.approx(1.0)
    assert ratios[("model-a", "obfuscated")] == pytest.approx(0.5)


def test_mode_and_group_splits(full: AnalysisResult) -> None:
    mode = {(r[0], r[1]): r for r in full.table("by_mode").rows}
    assert mode[("task-balanced", "standard")][3] == pytest.approx((0.10 - 0.05) / 2)
    assert mode[("task-balanced", "raw")][2] == 3  # two -raw tasks and eicu-gcs
    groups = full.table("by_group")
    families = {r[1] for r in groups.rows if r[0] == "family"}
    assert families == {"sofa", "kdigo", "meld", "gcs"}


def _records(table: Table) -> list[dict[str, object]]:
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]


def test_resources_and_strict_passes_are_split_by_schema(full: AnalysisResult) -> None:
    resources = {(r["Condition"], r["Schema"]): r for r in _records(full.table("resources"))}
    assert set(resources) == {
        (condition, schema)
        for condition in ("no-skill", "with-skill", "with-skill-decoy", "operational-spec")
        for schema in ("native", "obfuscated")
    }
    native = resources[("no-skill", "native")]
    assert native["Mean wall-clock s"] == pytest.approx(120.0)  # mean of 110, 120, 130 s
    assert native["Runs"] == 30 and native["Hours imputed"] == 0
    assert native["Agent hours"] == pytest.approx(30 * 120.0 / 3600)
    assert resources[("with-skill", "native")]["Mean input tokens"] == pytest.approx(2000.0)
    strict = _records(full.table("strict_passes"))
    assert {(r["Condition"], r["Schema"]) for r in strict[:-1]} == set(resources)
    total = strict[-1]
    assert total["Condition"] == "all" and total["Runs"] == 240
    assert 0 < int(str(total["Strict passes"])) < 240


def test_agent_hours_of_runs_without_wall_clock_are_marked_imputed() -> None:
    runs = _runs(grid())
    untimed = [
        run.model_copy(update={"elapsed_seconds": None}) if run.trial == 3 else run for run in runs
    ]
    result = analyze_runs(untimed, SETTINGS, "synthetic")
    rows = {r["Condition"]: r for r in _records(result.table("resources"))}
    # trials 1 and 2 ran 110 s and 120 s; the 10 trial-3 runs are filled with 115 s
    assert rows["no-skill"]["Hours imputed"] == 10
    assert rows["no-skill"]["Agent hours"] == pytest.approx(30 * 115.0 / 3600)
    assert "filled with the mean" in result.table("resources").caption


def test_builtin_task_metadata() -> None:
    sepsis = builtin_meta("mimic-sepsis3-raw")
    assert (sepsis.family, sepsis.mode, sepsis.database, sepsis.depth) == (
        "sepsis3",
        "raw",
        "mimic-iv",
        4,
    )
    eicu = builtin_meta("eicu-oasis")
    assert (eicu.mode, eicu.database, eicu.depth) == ("raw", "eicu", 1)
    novel = builtin_meta("mimic-new-thing-24h-raw")
    assert (novel.family, novel.mode, novel.depth) == ("new-thing", "raw", None)
    meta = resolve_task_meta(["mimic-kdigo-48h"], use_catalog=False)
    assert meta["mimic-kdigo-48h"].family == "kdigo"


def test_catalog_metadata_agrees_with_the_builtin_table() -> None:
    from m4bench.analysis.taskmeta import _BUILTIN_FAMILY, _catalog_entries

    listed = sorted(set(_catalog_entries()) & set(_BUILTIN_FAMILY))
    if not listed:
        pytest.skip("the task catalog lists none of the benchmark tasks yet")
    from_catalog = resolve_task_meta(listed, use_catalog=True)
    for task in listed:
        assert from_catalog[task] == builtin_meta(task), task


def test_records_carry_their_sandbox_verdicts_into_rows() -> None:
    sandbox = SandboxRecord(
        backend="docker",
        isolated=False,
        limits={},
        returncode=3,
        canary=CanaryVerdict(ran=True, passed=False, enforced=True),
        lint=LintVerdict(passed=False, files=1, bytes=10),
    )
    base = grid()[0]
    row = row_of(base.model_copy(update={"sandbox": sandbox, "status": "nonzero_exit"}))
    assert row.isolated is False
    assert row.filesystem_canary is False
    assert row.contamination_lint is False
    assert (row.agent_returncode, row.failure_reason) == (3, "nonzero_exit")
    # A simulated run had no sandbox: its missing isolation is not a finding.
    simulated = row_of(base.model_copy(update={"sandbox": sandbox, "simulated": True}))
    assert simulated.isolated is None and simulated.simulated
