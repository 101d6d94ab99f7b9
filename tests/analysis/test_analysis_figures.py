"""What each figure draws, read from the matplotlib objects the builders return."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from analysis_campaign import grid, write_runs_csv
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from m4bench.analysis import AnalysisResult, AnalysisSettings, Estimate, analyze, analyze_runs
from m4bench.analysis.bootstrap import p_text
from m4bench.analysis.figures import arm_delta_figure, probe_figure, slope_figure
from m4bench.analysis.narrative import estimate_sentence
from m4bench.results import RunRow

FAST = AnalysisSettings(reps=200, permutation_reps=200, use_catalog=False)
# task -> no-skill reward on native, obfuscated, restructured (every model and trial)
PROBE = {
    "mimic-sofa-24h": (0.8, 0.6, 0.5),
    "mimic-meld-24h": (0.9, 0.4, 0.3),
    "eicu-gcs": (0.7, 0.7, 0.2),
}
SCHEMAS = ("native", "obfuscated", "restructured")


def _row(agent: str, model: str, task: str, condition: str, schema: str, reward: float) -> RunRow:
    return RunRow(
        run_id=f"{agent}-{model}-{task}-{condition}-{schema}",
        task=task,
        condition=condition,
        schema_name=schema,
        agent=agent,
        model=model,
        trial=1,
        reward=reward,
    )


def probe_runs() -> list[RunRow]:
    """Two arms of agent-a and one of agent-b: no-skill on every schema, with-skill on
    native (each arm's effect on each task known)."""
    runs = []
    arms = (("agent-a", "m1", 0.1), ("agent-a", "m2", 0.2), ("agent-b", "m1", -0.1))
    for agent, model, effect in arms:
        for task, levels in PROBE.items():
            for schema, level in zip(SCHEMAS, levels, strict=True):
                runs.append(_row(agent, model, task, "no-skill", schema, level))
            with_skill = min(1.0, levels[0] + effect)
            runs.append(_row(agent, model, task, "with-skill", "native", with_skill))
    return runs


@pytest.fixture(scope="module")
def probed() -> AnalysisResult:
    return analyze_runs(probe_runs(), FAST, "probe")


@pytest.fixture
def closing() -> Iterator[list[Figure]]:
    figures: list[Figure] = []
    yield figures
    for fig in figures:
        plt.close(fig)


def test_arm_deltas_overlay_one_series_per_arm(
    probed: AnalysisResult, closing: list[Figure]
) -> None:
    drawn = arm_delta_figure(probed.groups, FAST)
    closing.append(drawn.figure)
    (ax,) = drawn.figure.axes
    series = {line.get_label(): line for line in ax.get_lines() if line.get_marker() == "o"}
    assert set(series) == {"agent-a · m1", "agent-a · m2", "agent-b · m1"}
    assert drawn.needs == ""
    tasks = [label.get_text() for label in ax.get_yticklabels()]
    for label, effect in (("agent-a · m1", 0.1), ("agent-a · m2", 0.2)):
        xs = series[label].get_xdata()
        assert len(xs) == 3
        # every task's delta is the arm's effect, except where the reward hit 1.0
        expected = [min(1.0, PROBE[task][0] + effect) - PROBE[task][0] for task in tasks]
        assert list(xs) == pytest.approx(expected)
    assert list(series["agent-b · m1"].get_xdata()) == pytest.approx([-0.1] * 3)


def test_schema_probe_slopes_draw_each_task_and_the_mean(
    probed: AnalysisResult, closing: list[Figure]
) -> None:
    drawn = probe_figure(probed.groups, FAST)
    closing.append(drawn.figure)
    assert len(drawn.figure.axes) == 2  # one panel per agent with probe runs
    ax = drawn.figure.axes[0]
    assert ax.get_title() == "agent-a"
    assert [label.get_text() for label in ax.get_xticklabels()] == list(SCHEMAS)
    assert ax.get_ylim() == (0.0, 1.0)
    lines = ax.get_lines()
    mean = next(line for line in lines if line.get_label() == "task mean")
    tasks = [line for line in lines if line is not mean]
    assert len(tasks) == len(PROBE)
    drawn_levels = sorted(tuple(round(float(y), 9) for y in line.get_ydata()) for line in tasks)
    assert drawn_levels == sorted(PROBE.values())
    hand = [sum(levels[i] for levels in PROBE.values()) / len(PROBE) for i in range(3)]
    assert list(mean.get_ydata()) == pytest.approx(hand)


def test_schema_probe_without_transformed_runs_says_what_it_needs(closing: list[Figure]) -> None:
    result = analyze_runs([r for r in probe_runs() if r.schema_name == "native"], FAST, "x")
    drawn = probe_figure(result.groups, FAST)
    closing.append(drawn.figure)
    assert drawn.needs.startswith("needs: 'no-skill' runs on the obfuscated or restructured")
    assert drawn.figure.axes == []


def test_skill_slopes_use_a_fixed_axis_and_draw_the_interval(closing: list[Figure]) -> None:
    low = Estimate(
        comparison="with-skill vs no-skill", metric="reward", scope="task-balanced",
        tasks=5, baseline=0.10, treatment=0.18, delta=0.08, ci_low=0.02, ci_high=0.15,
        improved=4, total=5, agent="agent-a",
    )  # fmt: skip
    fig = slope_figure([low], "no-skill", "with-skill")
    closing.append(fig)
    (ax,) = fig.axes
    assert ax.get_ylim() == (0.0, 1.0)  # not scaled to the 0.10-0.18 levels
    (line,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert list(line.get_ydata()) == pytest.approx([0.10, 0.18])
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    (segment,) = bars.lines[2][0].get_segments()
    # the delta's interval placed on the baseline level, at the treatment end
    assert [tuple(point) for point in segment] == [
        pytest.approx((1.0, 0.12)),
        pytest.approx((1.0, 0.25)),
    ]


def test_p_values_at_the_resolution_limit_print_as_bounds() -> None:
    assert p_text(1 / 200_001, 200_000) == "p < 1e-5"
    assert p_text(1 / 20_001, 20_000) == "p < 1e-4"
    assert p_text(3 / 20_001, 20_000) == "p = 0.00015"
    assert p_text(None, 100) == "" and p_text(math.nan, 100) == ""
    item = Estimate(
        comparison="with-skill vs no-skill", metric="reward", scope="task-balanced",
        tasks=28, baseline=0.7, treatment=0.84, delta=0.14, ci_low=0.09, ci_high=0.19,
        improved=26, total=28, p_value=1 / 200_001,
    )  # fmt: skip
    sentence = estimate_sentence(item, 20_000, 200_000)
    assert "two-sided sign-flip p < 1e-5]" in sentence and "5e-06" not in sentence


def test_sections_without_data_say_what_they_need(tmp_path: Path) -> None:
    csv_path = write_runs_csv(tmp_path / "runs.csv", grid())
    analyze(csv_path, tmp_path / "out", FAST)
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "<p>–</p>" not in page
    assert "No other comparison: needs runs of another condition" in page
    assert "schema probe (obfuscated): needs" in page
    assert "<title>m4bench analysis — runs.csv</title>" in page
