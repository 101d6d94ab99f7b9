"""Figures: per-task forest plot, arms overlaid, schema probe and skill-effect slopes,
task x condition heatmap.

Rendered with matplotlib's Agg backend, with fixed metadata (no dates, a fixed SVG
hash salt) so equal inputs give byte-equal files. Each builder returns the matplotlib
figure (tests read what it draws from its axes); a figure with nothing to draw says in
its ``needs`` which runs it needs, and the report prints that instead of the image.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from m4bench.analysis.estimands import TASK_BALANCED, Estimate, TaskDelta
from m4bench.analysis.group import GroupResult, TaskInterval
from m4bench.analysis.pipeline import AnalysisResult
from m4bench.analysis.schema import TRANSFORMED
from m4bench.analysis.settings import AnalysisSettings
from m4bench.fileio import write_shareable

FIGURE_NAMES = (
    "forest_task_deltas",
    "arm_task_deltas",
    "schema_probe_slopes",
    "schema_slope",
    "task_condition_heatmap",
)


@dataclass
class Drawn:
    """A figure, and when it has nothing to draw, the runs it needs (else empty)."""

    figure: Figure
    needs: str = ""


@dataclass(frozen=True)
class Rendered:
    """A written figure: its PNG bytes and what it needs when empty."""

    png: bytes
    needs: str = ""


def _needs_figure(title: str, needs: str) -> Drawn:
    fig = plt.figure(figsize=(6.0, 1.6))
    fig.text(0.5, 0.6, title, ha="center", fontsize=10)
    fig.text(0.5, 0.3, needs, ha="center", fontsize=8, wrap=True)
    return Drawn(fig, needs)


def forest_figure(
    deltas: Sequence[TaskDelta], intervals: Sequence[TaskInterval], pooled: Estimate | None
) -> Figure:
    """Per-task deltas with within-task intervals, sorted, and the pooled estimate."""
    bounds = {item.task: (item.ci_low, item.ci_high) for item in intervals}
    ordered = sorted(deltas, key=lambda item: (item.delta, item.task))
    rows = len(ordered) + (2 if pooled else 0)
    fig = plt.figure(figsize=(8.0, 0.28 * rows + 1.4))
    ax = fig.add_subplot(1, 1, 1)
    for position, item in enumerate(ordered):
        colour = "#1f77b4" if item.mode == "standard" else "#d95f02"
        ax.errorbar(
            item.delta,
            position,
            xerr=_error_bar(item.delta, bounds.get(item.task)),
            fmt="o",
            color=colour,
            ecolor=colour,
            capsize=2,
            markersize=4,
        )
    labels = [item.task for item in ordered]
    if pooled:
        y = len(ordered) + 1
        diamond_x = [pooled.ci_low, pooled.delta, pooled.ci_high, pooled.delta]
        ax.fill(diamond_x, [y, y + 0.4, y, y - 0.4], color="#333333")
        labels += ["", f"{pooled.scope} mean"]
    ax.axvline(0.0, linestyle="--", color="#888888", linewidth=0.8)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel(f"{pooled.comparison if pooled else 'delta'}: mean reward difference")
    agent = f"{pooled.agent}: " if pooled and pooled.agent else ""
    ax.set_title(f"{agent}Per-task reward delta (95% interval; blue standard, orange raw)")
    fig.tight_layout()
    return fig


def _error_bar(centre: float, bounds: tuple[float, float] | None) -> list[list[float]] | None:
    """Matplotlib's ``xerr`` for an interval around ``centre``: None (no bar) when there
    is no interval; a bound a rounding error past the centre draws no arm."""
    if bounds is None or any(math.isnan(bound) for bound in bounds):
        return None
    low, high = bounds
    return [[max(0.0, centre - low)], [max(0.0, high - centre)]]


def arm_delta_figure(groups: Sequence[GroupResult], settings: AnalysisSettings) -> Drawn:
    """Per-task skill delta, one point series per (agent, model) arm, overlaid."""
    series: list[tuple[str, dict[str, float]]] = []
    for group in groups:
        for model in group.models:
            own = {
                d.task: d.pairs[model][1] - d.pairs[model][0]
                for d in group.task_deltas
                if model in d.pairs
            }
            if own:
                label = f"{group.agent} · {model}" if group.agent else model
                series.append((label, own))
    if not series:
        return _needs_figure("Per-task skill delta by arm", "needs: " + _primary_runs(settings))
    tasks = sorted(
        {task for _, own in series for task in own},
        key=lambda task: (np.mean([own[task] for _, own in series if task in own]), task),
    )
    fig = plt.figure(figsize=(8.0, 0.3 * len(tasks) + 1.8))
    ax = fig.add_subplot(1, 1, 1)
    step = 0.6 / max(len(series), 1)
    for index, (label, own) in enumerate(series):
        shown = [task for task in tasks if task in own]
        offset = (index - (len(series) - 1) / 2) * step
        ys = [tasks.index(task) + offset for task in shown]
        ax.plot([own[task] for task in shown], ys, "o", markersize=4, label=label)
    ax.axvline(0.0, linestyle="--", color="#888888", linewidth=0.8)
    ax.set_yticks(range(len(tasks)), tasks)
    ax.set_xlabel(f"{settings.treatment} − {settings.baseline}: mean reward difference")
    ax.set_title(f"Per-task skill delta by arm ({settings.native_schema} schema)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return Drawn(fig)


def _primary_runs(settings: AnalysisSettings) -> str:
    return (
        f"'{settings.baseline}' and '{settings.treatment}' runs of one model on the same "
        f"task, {settings.native_schema} schema"
    )


def _probe_axes(ax: Axes, group: GroupResult, settings: AnalysisSettings) -> None:
    """One line per task over the schemas it has, and the task mean, on 0-1."""
    levels = group.schemas.probe_levels
    order = [settings.native_schema, *(s for s in TRANSFORMED), *_others(levels, settings)]
    shown = [s for s in order if any(s in row for row in levels.values())]
    for _task, row in sorted(levels.items()):
        xs = [i for i, schema in enumerate(shown) if schema in row]
        ax.plot(xs, [row[shown[i]] for i in xs], "-", color="#9aa5b1", linewidth=0.8, marker=".")
    means = [
        float(np.mean([row[schema] for row in levels.values() if schema in row]))
        for schema in shown
    ]
    ax.plot(range(len(shown)), means, "-", color="#111111", linewidth=2.2, marker="o",
            label="task mean")  # fmt: skip
    ax.set_xticks(range(len(shown)), shown)
    ax.set_xlim(-0.3, len(shown) - 0.7)
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel(f"'{settings.baseline}' mean reward")
    ax.set_title(group.agent or "runs", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")


def _others(levels: dict[str, dict[str, float]], settings: AnalysisSettings) -> list[str]:
    known = {settings.native_schema, *TRANSFORMED}
    return sorted({s for row in levels.values() for s in row} - known)


def probe_figure(groups: Sequence[GroupResult], settings: AnalysisSettings) -> Drawn:
    """Schema probe: the baseline reward per task, native -> obfuscated -> restructured,
    and the mean over the tasks at each schema; one panel per agent with probe runs."""
    probed = [group for group in groups if group.schemas.probe_levels]
    if not probed:
        needs = (
            f"needs: '{settings.baseline}' runs on the obfuscated or restructured schema of "
            f"tasks that have '{settings.baseline}' runs on the {settings.native_schema} schema"
        )
        return _needs_figure("Schema probe", needs)
    fig = plt.figure(figsize=(4.2 * len(probed) + 0.6, 4.0))
    for index, group in enumerate(probed):
        _probe_axes(fig.add_subplot(1, len(probed), index + 1), group, settings)
    fig.suptitle(f"Schema probe: '{settings.baseline}' reward by schema (one line per task)")
    fig.tight_layout()
    return Drawn(fig)


def slope_figure(estimates: Sequence[Estimate], baseline: str, treatment: str) -> Figure:
    """Baseline -> treatment levels per schema and scope on a fixed 0-1 axis; the bar at
    the treatment end is the 95% interval of the delta, placed on the baseline level."""
    fig = plt.figure(figsize=(6.5, 4.2))
    ax = fig.add_subplot(1, 1, 1)
    for item in estimates:
        style = "-" if item.scope == TASK_BALANCED else ":"
        who = f"{item.agent} · {item.scope}" if item.agent else item.scope
        (line,) = ax.plot(
            [0, 1],
            [item.baseline, item.treatment],
            style,
            marker="o",
            label=f"{item.comparison} · {who} ({item.delta:+.3f})",
        )
        if not (math.isnan(item.ci_low) or math.isnan(item.ci_high)):
            low, high = item.baseline + item.ci_low, item.baseline + item.ci_high
            ax.errorbar(
                [1.0], [item.treatment], yerr=[[item.treatment - low], [high - item.treatment]],
                fmt="none", ecolor=line.get_color(), capsize=3,
            )  # fmt: skip
    ax.set_xticks([0, 1], [baseline, treatment])
    ax.set_xlim(-0.2, 1.2)
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel("task-balanced mean reward")
    ax.set_title("Skill effect by schema (bar: 95% interval of the delta)")
    ax.legend(fontsize=6, loc="lower left")
    fig.tight_layout()
    return fig


def heatmap_figure(levels: dict[str, dict[str, float]], schema: str = "native") -> Figure:
    """Model-averaged mean reward for every task (rows) and condition (columns)."""
    tasks = sorted(levels)
    conditions = sorted({condition for row in levels.values() for condition in row})
    grid = np.full((len(tasks), len(conditions)), np.nan)
    for i, task in enumerate(tasks):
        for j, condition in enumerate(conditions):
            grid[i, j] = levels[task].get(condition, np.nan)
    fig = plt.figure(figsize=(1.3 * len(conditions) + 4.0, 0.28 * len(tasks) + 1.6))
    ax = fig.add_subplot(1, 1, 1)
    image = ax.imshow(np.ma.masked_invalid(grid), vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    for i in range(len(tasks)):
        for j in range(len(conditions)):
            if not np.isnan(grid[i, j]):
                shade = "white" if grid[i, j] < 0.6 else "black"
                ax.text(
                    j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=6, color=shade
                )
    ax.set_xticks(range(len(conditions)), conditions, rotation=30, ha="right")
    ax.set_yticks(range(len(tasks)), tasks)
    fig.colorbar(image, ax=ax, label="mean reward")
    ax.set_title(f"Mean reward by task and condition ({schema} schema)")
    fig.tight_layout()
    return fig


def _slug(agent: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", agent) or "runs"


def _per_agent(name: str, groups: Sequence[GroupResult]) -> list[tuple[str, GroupResult]]:
    """The figure name of each group: ``name`` alone for one group, else one per agent."""
    if len(groups) == 1:
        return [(name, groups[0])]
    return [(f"{name}-{_slug(group.agent)}", group) for group in groups]


def build_figures(result: AnalysisResult) -> dict[str, Drawn]:
    settings = result.settings
    groups = [group for group in result.groups if group.task_deltas]
    figures: dict[str, Drawn] = {}
    for name, group in _per_agent("forest_task_deltas", groups):
        pooled = next((e for e in group.headline if e.scope == TASK_BALANCED), None)
        figures[name] = Drawn(forest_figure(group.task_deltas, group.task_intervals, pooled))
    figures["arm_task_deltas"] = arm_delta_figure(result.groups, settings)
    figures["schema_probe_slopes"] = probe_figure(result.groups, settings)
    primary = f"{settings.treatment} vs {settings.baseline}"
    rows = [e for e in result.comparisons if e.comparison.startswith(primary)]
    figures["schema_slope"] = Drawn(slope_figure(rows, settings.baseline, settings.treatment))
    for name, group in _per_agent("task_condition_heatmap", result.groups):
        figures[name] = Drawn(heatmap_figure(group.cell_rewards, settings.native_schema))
    return figures


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes, with no date or software stamps."""
    buffer = io.BytesIO()
    metadata: dict[str, str | None] = (
        {"Date": None, "Creator": None} if fmt == "svg" else {"Software": None}
    )
    fig.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    return buffer.getvalue()


def write_figures(result: AnalysisResult, directory: Path) -> dict[str, Rendered]:
    """Write every figure as PNG and SVG; return each one's PNG bytes and needs."""
    written: dict[str, Rendered] = {}
    with plt.rc_context(
        {
            "svg.hashsalt": "m4bench",
            "svg.fonttype": "path",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        for name, drawn in build_figures(result).items():
            try:
                for fmt in ("png", "svg"):
                    data = render(drawn.figure, fmt)
                    write_shareable(directory / f"{name}.{fmt}", data)
                    if fmt == "png":
                        written[name] = Rendered(data, drawn.needs)
            finally:
                plt.close(drawn.figure)
    return written
