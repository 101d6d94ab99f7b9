"""The schema probe and the schema-skill effect (the paper's Table 23).

The shipped Codex file has native runs only: its native row is checked exactly against
a hand computation from the file. The transformed parts are checked on a release-format
CSV derived from the shipped one, some tasks' runs relabelled to the obfuscated and
restructured schemas with known rewards.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from m4bench.analysis import AnalysisResult, AnalysisSettings, analyze_runs, paper_release_csv
from m4bench.analysis.tables import Table
from m4bench.results import load_runs_csv

FAST = AnalysisSettings(reps=200, permutation_reps=200, use_catalog=False)
MODELS = ("gpt-5.4-mini", "gpt-5.5")
# task -> the reward every relabelled run gets: (no-skill, with-skill) on obfuscated,
# no-skill on restructured (no with-skill runs there: the skill effect needs them)
OBFUSCATED = {
    "eicu-gcs": (0.30, 0.60),
    "mimic-meld-24h": (0.20, 0.30),
    "mimic-sofa-24h": (0.50, 0.45),
}
RESTRUCTURED = {"eicu-gcs": 0.25, "mimic-meld-24h": 0.10, "mimic-sofa-24h": 0.40}


def _released() -> list[dict[str, str]]:
    with paper_release_csv().open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _native_means() -> dict[tuple[str, str, str], float]:
    """(task, condition, model) -> mean reward of the shipped file's runs, by hand."""
    sums: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for row in _released():
        sums[(row["task"], row["condition"], row["model"])].append(float(row["reward"]))
    return {key: sum(values) / len(values) for key, values in sums.items()}


def _level(means: dict[tuple[str, str, str], float], task: str, condition: str) -> float:
    return sum(means[(task, condition, model)] for model in MODELS) / len(MODELS)


def _records(table: Table) -> list[dict[str, object]]:
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]


def test_the_codex_file_gives_the_native_row_and_needs_the_rest(paper: AnalysisResult) -> None:
    means = _native_means()
    tasks = sorted({task for task, _, _ in means})
    no_skill = sum(_level(means, task, "no-skill") for task in tasks) / len(tasks)
    with_skill = sum(_level(means, task, "with-skill") for task in tasks) / len(tasks)
    rows = _records(paper.table("schema_robustness"))
    assert [(r["Scope"], r["Schema"]) for r in rows] == [
        ("gpt-5.4-mini", "native"),
        ("gpt-5.5", "native"),
        ("task-balanced", "native"),
    ]
    native = rows[-1]
    assert native["Tasks"] == 28 and native["Robustness ratio"] == pytest.approx(1.0)
    assert native["Baseline"] == pytest.approx(no_skill, abs=1e-12)
    assert native["Treatment"] == pytest.approx(with_skill, abs=1e-12)
    assert native["Delta"] == pytest.approx(with_skill - no_skill, abs=1e-12)
    assert (round(no_skill, 3), round(with_skill, 3)) == (0.703, 0.839)  # Codex alone
    (group,) = paper.groups
    assert group.schemas.probe == [] and paper.table("schema_probe").rows == []
    assert len(group.schemas.needs) == 4  # probe and skill effect, for both schemas
    assert any(line.startswith("schema probe (obfuscated): needs") for line in group.schemas.needs)
    assert "schema-skill effect (restructured): needs 'no-skill' and 'with-skill' runs" in (
        paper.table("schema_robustness").caption
    )


def _relabelled_csv(path: Path) -> Path:
    """The shipped runs plus copies of three tasks' no-skill and with-skill runs on the
    obfuscated schema and of their no-skill runs on the restructured one, rewards set."""
    released = _released()
    extra: list[dict[str, str]] = []
    for row in released:
        task, condition = row["task"], row["condition"]
        if task not in OBFUSCATED or condition not in ("no-skill", "with-skill"):
            continue
        reward = OBFUSCATED[task][0 if condition == "no-skill" else 1]
        extra.append({**row, "schema": "obfuscated", "reward": str(reward),
                      "run_id": row["run_id"] + "-obfuscated"})  # fmt: skip
        if condition == "no-skill":
            extra.append({**row, "schema": "restructured", "reward": str(RESTRUCTURED[task]),
                          "run_id": row["run_id"] + "-restructured"})  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(released[0]))
        writer.writeheader()
        writer.writerows([*released, *extra])
    return path


@pytest.fixture(scope="module")
def relabelled(tmp_path_factory: pytest.TempPathFactory) -> AnalysisResult:
    path = _relabelled_csv(tmp_path_factory.mktemp("schema") / "with-schemas.csv")
    return analyze_runs(load_runs_csv(path), FAST, "with-schemas.csv")


def test_the_schema_probe_is_the_hand_computed_means(relabelled: AnalysisResult) -> None:
    means = _native_means()
    native = {task: _level(means, task, "no-skill") for task in OBFUSCATED}
    table = relabelled.table("schema_probe_by_task")
    by_task = {(r["Task"], r["Schema"]): r for r in _records(table)}
    assert set(by_task) == {(t, s) for t in OBFUSCATED for s in ("obfuscated", "restructured")}
    for task, (obfuscated, _) in OBFUSCATED.items():
        assert by_task[(task, "obfuscated")]["Native"] == pytest.approx(native[task])
        assert by_task[(task, "obfuscated")]["Delta"] == pytest.approx(obfuscated - native[task])
        assert by_task[(task, "restructured")]["Transformed"] == pytest.approx(RESTRUCTURED[task])
    probe = {(e.comparison, e.scope): e for e in relabelled.groups[0].schemas.probe}
    balanced = probe[("no-skill: obfuscated vs native", "task-balanced")]
    expected = sum(OBFUSCATED[t][0] - native[t] for t in OBFUSCATED) / 3
    assert balanced.tasks == 3 and balanced.delta == pytest.approx(expected)
    assert balanced.baseline == pytest.approx(sum(native.values()) / 3)
    assert balanced.ci_low <= balanced.delta <= balanced.ci_high and balanced.p_value is not None
    mini = probe[("no-skill: restructured vs native", "gpt-5.4-mini")]
    own = [RESTRUCTURED[t] - means[(t, "no-skill", "gpt-5.4-mini")] for t in OBFUSCATED]
    assert mini.delta == pytest.approx(sum(own) / 3)


def test_the_schema_skill_effect_and_its_ratio_are_the_hand_computed_means(
    relabelled: AnalysisResult,
) -> None:
    means = _native_means()
    native = (
        sum(_level(means, t, "with-skill") - _level(means, t, "no-skill") for t in OBFUSCATED) / 3
    )
    obfuscated = sum(high - low for low, high in OBFUSCATED.values()) / 3
    rows = {(r["Scope"], r["Schema"]): r for r in _records(relabelled.table("schema_robustness"))}
    assert {schema for _, schema in rows} == {"native", "obfuscated"}  # no restructured pair
    assert rows[("task-balanced", "native")]["Tasks"] == 3  # the tasks both schemas share
    assert rows[("task-balanced", "native")]["Delta"] == pytest.approx(native)
    assert rows[("task-balanced", "obfuscated")]["Treatment"] == pytest.approx(
        sum(high for _, high in OBFUSCATED.values()) / 3
    )
    assert rows[("task-balanced", "obfuscated")]["Delta"] == pytest.approx(obfuscated)
    ratio = rows[("task-balanced", "obfuscated")]["Robustness ratio"]
    assert ratio == pytest.approx(obfuscated / native)
    needs = relabelled.groups[0].schemas.needs
    assert needs == [
        "schema-skill effect (restructured): needs 'no-skill' and 'with-skill' runs on the "
        "restructured schema of tasks that have both on the native schema"
    ]


def test_transformed_runs_leave_the_native_estimates_alone(
    relabelled: AnalysisResult, paper: AnalysisResult
) -> None:
    def rewards(result: AnalysisResult) -> dict[str, tuple[float, float]]:
        found = (e for e in result.headline if e.metric == "reward")
        return {e.scope: (e.baseline, e.delta) for e in found}

    expected, found = rewards(paper), rewards(relabelled)
    assert set(found) == set(expected) == {"gpt-5.4-mini", "gpt-5.5", "task-balanced"}
    for scope, levels in expected.items():
        assert found[scope] == pytest.approx(levels, abs=1e-12)
    strict = _records(relabelled.table("strict_passes"))
    assert {r["Schema"] for r in strict} == {"native", "obfuscated", "restructured", "all"}
    assert "native schema" in relabelled.table("per_task").caption
    assert "native schema only" in relabelled.table("matched_controls").caption


def test_an_empty_schema_skill_table_says_what_it_needs() -> None:
    """An agent with no baseline/treatment pair on the native schema (a mutant run under
    no-skill only) has no skill effect to compare schemas by."""
    codex = [
        run
        for run in load_runs_csv(paper_release_csv())
        if run.condition in ("no-skill", "with-skill")
    ]
    mutant = [
        run.model_copy(update={"agent": "mutant:x", "run_id": f"{run.run_id}-mutant"})
        for run in codex
        if run.condition == "no-skill"
    ]
    result = analyze_runs([*codex, *mutant], FAST, "mutant")
    mutant = next(group for group in result.groups if group.agent == "mutant:x")
    table = mutant.table("schema_robustness")
    assert table.rows == []
    assert "Empty: needs 'no-skill' and 'with-skill' runs of a model on the native schema" in (
        table.caption
    )
    assert "[mutant:x]" in result.table("schema_robustness").caption
