"""Sentences for the report, each computed from the analysis result."""

from __future__ import annotations

import math

from m4bench.analysis.bootstrap import p_text
from m4bench.analysis.estimands import TASK_BALANCED, Estimate
from m4bench.analysis.group import GroupResult
from m4bench.analysis.pipeline import AnalysisResult


def _num(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def _signed(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.3f}"


_METRIC_NAMES = {
    "reward": "mean reward",
    "key_f1": "key F1",
    "ordered_value_nmae": "ordered nMAE (lower is better)",
}


def estimate_sentence(item: Estimate, reps: int, permutation_reps: int = 0) -> str:
    """One sentence stating the levels, delta, interval, p and improved tasks."""
    who = "averaged over models within task" if item.scope == TASK_BALANCED else item.scope
    if item.agent:
        who = f"{item.agent}, {who}"
    name = _METRIC_NAMES.get(item.metric, item.metric)
    p = p_text(item.p_value, permutation_reps)
    p = f", two-sided sign-flip {p}" if p else ""
    return (
        f"{item.comparison} ({who}): {name} {_num(item.baseline)} → {_num(item.treatment)}, "
        f"delta {_signed(item.delta)} [95% task-bootstrap interval {_num(item.ci_low)}, "
        f"{_num(item.ci_high)}; {reps} replicates{p}]; "
        f"{item.improved} of {item.total} tasks improved."
    )


def overview_sentence(result: AnalysisResult) -> str:
    counts = dict(result.integrity)
    conditions = sorted({c for g in result.groups for row in g.cell_rewards.values() for c in row})
    families = len({info.family for info in result.meta.values()})
    arms = sum(len(group.models) for group in result.groups)
    plan = ""
    if "Runs planned" in counts:
        plan = (
            f" ({counts['Runs planned']} planned, "
            f"{counts['Planned runs without a result']} without a result)"
        )
    return (
        f"This report analyses {counts['Runs analysed']} of {counts['Runs loaded']} loaded "
        f"runs{plan} from {result.source}: {len(result.meta)} tasks in {families} families, "
        f"{counts['Task/condition/schema/model cells']} task/condition/schema/model cells, "
        f"{_count(arms, 'arm')} (agent and model) of {_count(len(result.groups), 'agent')}, "
        f"conditions {', '.join(conditions)}."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def extremes_sentence(group: GroupResult) -> str:
    """The largest gain and the largest decline among the per-task deltas, each only when
    there is one."""
    ordered = sorted(group.task_deltas, key=lambda item: (item.delta, item.task))
    if not ordered:
        return ""
    worst, best = ordered[0], ordered[-1]
    if best.delta <= 0 and worst.delta >= 0:
        return "No task's model-averaged reward changed."
    gain = (
        f"The largest per-task gain is {best.task} ({_signed(best.delta)})"
        if best.delta > 0
        else "No task improved"
    )
    decline = (
        f"the largest decline is {worst.task} ({_signed(worst.delta)})"
        if worst.delta < 0
        else f"no task declined (the smallest change is {worst.task}, {_signed(worst.delta)})"
    )
    return f"{gain}; {decline}."


def cluster_sentence(group: GroupResult) -> str:
    if not group.task_deltas:
        return ""
    rows = group.table("cluster_sensitivity").rows
    parts = [
        f"{row[0].lower()} over {row[1]}: {_signed(float(str(row[2])))} "
        f"[{_num(float(str(row[3])))}, {_num(float(str(row[4])))}]"
        for row in rows
        if isinstance(row[0], str)
    ]
    return "Cluster sensitivity — " + "; ".join(parts) + "."


def integrity_sentence(result: AnalysisResult) -> str:
    counts = dict(result.integrity)
    flagged = {
        name: value
        for name, value in counts.items()
        if value
        and name
        not in (
            "Runs planned",
            "Runs loaded",
            "Runs analysed",
            "Task/condition/schema/model cells",
            "Strict passes",
            "Diagnostics failed",
        )
    }
    issues = ", ".join(f"{name.lower()}: {value}" for name, value in flagged.items())
    strict = counts["Strict passes"]
    loaded = counts["Runs loaded"]
    head = f"{strict} of {loaded} runs pass every strict check."
    return f"{head} Audit findings — {issues}." if issues else f"{head} No audit check flagged."
