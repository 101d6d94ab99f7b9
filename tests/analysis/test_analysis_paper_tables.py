"""The paper's tables, reproduced from its own released runs.

Every expected number below is typed from the M4Bench paper's tables; the paper is
the independent oracle. Point estimates must agree to 3 decimals; bootstrap interval
bounds within 0.005 (the paper drew its replicates with another generator).
"""

from __future__ import annotations

import pytest

from m4bench.analysis import AnalysisResult, Estimate
from m4bench.analysis.tables import Table

CI_TOLERANCE = 0.005


def _close3(value: object, expected: float) -> None:
    assert isinstance(value, float)
    assert round(value, 3) == pytest.approx(expected, abs=1e-9), (value, expected)


def _bound(value: object, expected: float) -> None:
    assert isinstance(value, float)
    assert abs(value - expected) <= CI_TOLERANCE, (value, expected)


def _headline(result: AnalysisResult, metric: str, scope: str) -> Estimate:
    return next(e for e in result.headline if e.metric == metric and e.scope == scope)


# Table 3: measure -> (no skill, with skill, delta, ci low, ci high, improved, total)
TABLE_3 = {
    ("reward", "gpt-5.4-mini"): (0.639, 0.802, 0.162, 0.099, 0.232, 26, 28),
    ("reward", "gpt-5.5"): (0.767, 0.876, 0.109, 0.060, 0.166, 24, 28),
    ("reward", "task-balanced"): (0.703, 0.839, 0.136, 0.085, 0.191, 26, 28),
    ("key_f1", "task-balanced"): (0.962, 0.965, 0.003, -0.010, 0.018, 5, 28),
    ("ordered_value_nmae", "task-balanced"): (0.116, 0.060, -0.056, -0.085, -0.029, 23, 26),
}


@pytest.mark.parametrize(("key", "expected"), list(TABLE_3.items()))
def test_table_3_headline(
    paper: AnalysisResult, key: tuple[str, str], expected: tuple[float, ...]
) -> None:
    estimate = _headline(paper, *key)
    base, treat, delta, low, high, improved, total = expected
    _close3(estimate.baseline, base)
    _close3(estimate.treatment, treat)
    _close3(estimate.delta, delta)
    _bound(estimate.ci_low, low)
    _bound(estimate.ci_high, high)
    assert (estimate.improved, estimate.total) == (improved, total)


def test_headline_has_a_small_sign_flip_p(paper: AnalysisResult) -> None:
    p_value = _headline(paper, "reward", "task-balanced").p_value
    assert p_value is not None and p_value < 0.001


# Table 18: (scope, mode) -> (tasks, mean delta, positive tasks)
TABLE_18 = {
    ("gpt-5.4-mini", "standard"): (11, 0.203, 10),
    ("gpt-5.4-mini", "raw"): (17, 0.136, 16),
    ("gpt-5.5", "standard"): (11, 0.105, 9),
    ("gpt-5.5", "raw"): (17, 0.112, 15),
    ("task-balanced", "standard"): (11, 0.154, 10),
    ("task-balanced", "raw"): (17, 0.124, 16),
}


def _row(table: Table, **match: object) -> dict[str, object]:
    for row in table.rows:
        record = dict(zip(table.columns, row, strict=True))
        if all(record[key] == value for key, value in match.items()):
            return record
    raise AssertionError(f"no row {match} in {table.name}")


@pytest.mark.parametrize(("key", "expected"), list(TABLE_18.items()))
def test_table_18_by_mode(
    paper: AnalysisResult, key: tuple[str, str], expected: tuple[int, float, int]
) -> None:
    record = _row(paper.table("by_mode"), Scope=key[0], Mode=key[1])
    tasks, delta, positive = expected
    assert record["Tasks"] == tasks and record["Total"] == tasks
    _close3(record["Delta"], delta)
    assert record["Improved"] == positive


# Table 19: analysis -> (units, mean delta, ci low, ci high)
TABLE_19 = {
    "Task-cluster bootstrap": ("28 tasks", 0.136, 0.085, 0.191),
    "Family-cluster bootstrap": ("15 families", 0.136, 0.065, 0.207),
    "Family-balanced bootstrap": ("15 families", 0.120, 0.057, 0.190),
}


@pytest.mark.parametrize(("analysis", "expected"), list(TABLE_19.items()))
def test_table_19_cluster_sensitivity(
    paper: AnalysisResult, analysis: str, expected: tuple[str, float, float, float]
) -> None:
    record = _row(paper.table("cluster_sensitivity"), Analysis=analysis)
    units, delta, low, high = expected
    assert record["Units"] == units
    _close3(record["Delta"], delta)
    _bound(record["CI low"], low)
    _bound(record["CI high"], high)


# Table 22: control -> (tasks, no skill, targeted, control, control-targeted, control-no)
TABLE_22 = {
    "with-skill-rawsql": (10, 0.553, 0.833, 0.837, 0.003, 0.283),
    "with-skill-decoy": (10, 0.553, 0.833, 0.554, -0.280, 0.000),
}


@pytest.mark.parametrize(("control", "expected"), list(TABLE_22.items()))
def test_table_22_matched_controls(
    paper: AnalysisResult, control: str, expected: tuple[float, ...]
) -> None:
    record = _row(paper.table("matched_controls"), Condition=control)
    tasks, base, targeted, ctrl, vs_targeted, vs_base = expected
    assert record["Tasks"] == tasks
    for column, value in (
        ("Baseline", base),
        ("Targeted", targeted),
        ("Control", ctrl),
        ("Control-targeted", vs_targeted),
        ("Control-baseline", vs_base),
    ):
        _close3(record[column], value)


TABLE_16 = [
    ("mimic-urine-output-rate-raw", 0.471),
    ("mimic-urine-output-rate", 0.460),
    ("mimic-meld-24h", 0.354),
    ("mimic-oasis-24h", 0.296),
    ("mimic-suspicion-infection-raw", 0.291),
    ("mimic-meld-24h-raw", 0.283),
]
TABLE_17 = [
    ("mimic-kdigo-48h-raw", -0.040),
    ("mimic-kdigo-48h", -0.002),
    ("mimic-charlson-raw", 0.001),
    ("mimic-vasopressor-equivalents", 0.006),
    ("mimic-sofa-24h", 0.010),
    ("mimic-sirs-24h-raw", 0.016),
]


@pytest.mark.parametrize(
    ("name", "expected"), [("largest_gains", TABLE_16), ("largest_declines", TABLE_17)]
)
def test_tables_16_17_gains_and_declines(
    paper: AnalysisResult, name: str, expected: list[tuple[str, float]]
) -> None:
    table = paper.table(name)
    shown = list(zip(table.column("Task"), table.column("Mean delta"), strict=True))
    assert [task for task, _ in shown[: len(expected)]] == [task for task, _ in expected]
    for (_, value), (_, paper_value) in zip(shown, expected, strict=False):
        _close3(value, paper_value)


# Table 20, first two rows: condition -> (cells, key F1, key precision, extra keys)
TABLE_20 = {
    "no-skill": (56, 0.962, 0.967, 2384458),
    "with-skill": (56, 0.965, 0.976, 2087534),
}
TABLE_20_WORST = [
    ("mimic-ventilation-raw / no-skill / gpt-5.4-mini", 5, 0.700, 0.559, 555030),
    ("mimic-ventilation-raw / no-skill / gpt-5.5", 5, 0.717, 0.573, 525311),
    ("mimic-ventilation-raw / with-skill / gpt-5.4-mini", 5, 0.720, 0.583, 505933),
    ("mimic-ventilation-raw / with-skill / gpt-5.5", 5, 0.740, 0.603, 459225),
]


def test_table_20_key_diagnostics(paper: AnalysisResult) -> None:
    table = paper.table("key_diagnostics")
    for condition, (cells, f1, precision, extra) in TABLE_20.items():
        record = _row(table, **{"Condition or cell": condition})
        assert record["N"] == cells and record["Extra keys"] == extra
        _close3(record["Key F1"], f1)
        _close3(record["Key precision"], precision)
    for label, runs, f1, precision, extra in TABLE_20_WORST:
        record = _row(table, **{"Condition or cell": label})
        assert record["N"] == runs and record["Extra keys"] == extra
        _close3(record["Key F1"], f1)
        _close3(record["Key precision"], precision)


# Table 21 rows shown: task -> (reward delta, key F1 delta, nMAE delta, ordered cols)
TABLE_21 = {
    "eicu-gcs": (0.054, 0.000, -0.029, 4),
    "eicu-oasis": (0.272, 0.000, -0.189, 11),
    "mimic-apsiii-24h": (0.023, 0.000, -0.013, 17),
    "mimic-apsiii-24h-raw": (0.055, 0.000, -0.036, 17),
    "mimic-charlson-raw": (0.001, 0.000, -0.001, 19),
    "mimic-creatinine-baseline": (0.142, -0.073, 0.015, 3),
}


@pytest.mark.parametrize(("task", "expected"), list(TABLE_21.items()))
def test_table_21_secondary_diagnostics(
    paper: AnalysisResult, task: str, expected: tuple[float, float, float, int]
) -> None:
    record = _row(paper.table("secondary_by_task"), Task=task)
    reward, key_f1, nmae, ordered = expected
    _close3(record["Reward delta"], reward)
    _close3(record["Key F1 delta"], key_f1)
    _close3(record["nMAE delta"], nmae)
    assert record["Ordered cols"] == ordered


def test_integrity_and_strict_passes_match_the_paper(paper: AnalysisResult) -> None:
    counts = dict(paper.integrity)
    # Table 15 and the abstract: 760 runs, 152 cells, no flag failures; 87 strict passes,
    # 25 of 280 with-skill and 13 of 280 no-skill.
    assert counts["Runs loaded"] == 760
    assert counts["Task/condition/schema/model cells"] == 152
    assert counts["Publishable flag failures"] == 0
    assert counts["Isolation flag failures"] == 0
    assert counts["Filesystem canary failures"] == 0
    assert counts["Strict passes"] == 87
    strict = paper.table("strict_passes")
    for condition, passes in (("no-skill", 13), ("with-skill", 25)):
        rows = [dict(zip(strict.columns, r, strict=True)) for r in strict.rows]
        rows = [r for r in rows if r["Condition"] == condition]
        assert {r["Schema"] for r in rows} == {"native"}
        assert sum(int(str(r["Runs"])) for r in rows) == 280
        assert sum(int(str(r["Strict passes"])) for r in rows) == passes
