"""Figures: per-task forest plot, schema slope plot, task x condition heatmap.

Rendered with matplotlib's Agg backend, with fixed metadata (no dates, a fixed SVG
hash salt) so equal inputs give byte-equal files.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from m4bench.analysis.estimands import TASK_BALANCED, Estimate, TaskDelta
from m4bench.analysis.pipeline import AnalysisResult, TaskInterval
from m4bench.fileio import atomic_write_bytes


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
    ax.set_title("Per-task reward delta (95% interval; blue standard, orange raw)")
    fig.tight_layout()
    return fig


def _error_bar(centre: float, bounds: tuple[float, float] | None) -> list[list[float]] | None:
    """Matplotlib's ``xerr`` for an interval around ``centre``: None (no bar) when there
    is no interval; a bound a rounding error past the centre draws no arm."""
    if bounds is None or any(math.isnan(bound) for bound in bounds):
        return None
    low, high = bounds
    return [[max(0.0, centre - low)], [max(0.0, high - centre)]]


def slope_figure(estimates: Sequence[Estimate], baseline: str, treatment: str) -> Figure:
    """Baseline -> treatment levels per schema (one line per schema and scope)."""
    fig = plt.figure(figsize=(6.0, 4.0))
    ax = fig.add_subplot(1, 1, 1)
    for item in estimates:
        style = "-" if item.scope == TASK_BALANCED else ":"
        ax.plot(
            [0, 1],
            [item.baseline, item.treatment],
            style,
            marker="o",
            label=f"{item.comparison} · {item.scope} ({item.delta:+.3f})",
        )
    ax.set_xticks([0, 1], [baseline, treatment])
    ax.set_xlim(-0.2, 1.2)
    ax.set_ylabel("task-balanced mean reward")
    ax.set_title("Skill effect by schema")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


def heatmap_figure(levels: dict[str, dict[str, float]]) -> Figure:
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
    ax.set_title("Mean reward by task and condition")
    fig.tight_layout()
    return fig


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes, with no date or software stamps."""
    buffer = io.BytesIO()
    metadata: dict[str, str | None] = (
        {"Date": None, "Creator": None} if fmt == "svg" else {"Software": None}
    )
    fig.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    return buffer.getvalue()


def build_figures(result: AnalysisResult) -> dict[str, Figure]:
    pooled = next(
        (e for e in result.headline if e.metric == "reward" and e.scope == TASK_BALANCED), None
    )
    schema_rows = [
        e
        for e in result.comparisons
        if e.comparison.startswith(f"{result.settings.treatment} vs {result.settings.baseline}")
    ]
    return {
        "forest_task_deltas": forest_figure(result.task_deltas, result.task_intervals, pooled),
        "schema_slope": slope_figure(
            schema_rows, result.settings.baseline, result.settings.treatment
        ),
        "task_condition_heatmap": heatmap_figure(result.cell_rewards),
    }


def write_figures(result: AnalysisResult, directory: Path) -> dict[str, bytes]:
    """Write every figure as PNG and SVG; return the PNG bytes by figure name."""
    pngs: dict[str, bytes] = {}
    with plt.rc_context(
        {
            "svg.hashsalt": "m4bench",
            "svg.fonttype": "path",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        for name, fig in build_figures(result).items():
            try:
                for fmt in ("png", "svg"):
                    data = render(fig, fmt)
                    atomic_write_bytes(directory / f"{name}.{fmt}", data)
                    if fmt == "png":
                        pngs[name] = data
            finally:
                plt.close(fig)
    return pngs
