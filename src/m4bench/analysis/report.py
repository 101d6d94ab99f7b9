"""The self-contained HTML report: one page, figures embedded as data URIs."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence

from m4bench.analysis.estimands import TASK_BALANCED
from m4bench.analysis.figures import Rendered
from m4bench.analysis.group import GroupResult
from m4bench.analysis.narrative import (
    cluster_sentence,
    estimate_sentence,
    extremes_sentence,
    integrity_sentence,
    overview_sentence,
)
from m4bench.analysis.pipeline import AnalysisResult
from m4bench.analysis.tables import Table, format_value, to_html
from m4bench.analysis.view_links import cell_links

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;
max-width:1100px;color:#1d1d1f;line-height:1.45;padding:0 1rem}
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:1rem 0;font-size:.85rem}
caption{text-align:left;font-style:italic;padding:.3rem 0;color:#555}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right}
th:first-child,td:first-child{text-align:left}
thead th{background:#f4f4f6}
img{max-width:100%;border:1px solid #eee}
details{margin:.3rem 0}summary{cursor:pointer;font-weight:600}
.lead{font-size:1.05rem}.muted{color:#666;font-size:.85rem}
.needs{color:#8a4b00;font-size:.9rem}
"""

_SCRIPT = """
document.getElementById('task-filter').addEventListener('input', function (event) {
  var needle = event.target.value.toLowerCase();
  document.querySelectorAll('details.task').forEach(function (node) {
    node.style.display = node.dataset.task.indexOf(needle) >= 0 ? '' : 'none';
  });
});
"""

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


def _paragraphs(sentences: list[str]) -> str:
    return "".join(f"<p>{html.escape(text)}</p>" for text in sentences if text)


def _figures(figures: Mapping[str, Rendered]) -> str:
    parts = []
    for name, drawn in figures.items():
        label = html.escape(name.replace("_", " "))
        if drawn.needs:
            parts.append(
                f'<p class="needs"><b>{label}</b>: nothing to draw; {html.escape(drawn.needs)}</p>'
            )
            continue
        uri = "data:image/png;base64," + base64.b64encode(drawn.png).decode("ascii")
        parts.append(
            f'<figure><img alt="{label}" src="{uri}"><figcaption>{label}</figcaption></figure>'
        )
    return "".join(parts)


def _task_details(result: AnalysisResult, group: GroupResult, view: str | None) -> str:
    cells = group.table("cells")
    intervals = {item.task: item for item in group.task_intervals}
    deltas = {item.task: item for item in group.task_deltas}
    blocks = []
    tasks = sorted({str(row[0]) for row in cells.rows})
    for task in tasks:
        info = result.meta[task]
        own = Table(
            name=f"cells-{task}",
            title=task,
            caption=f"Cells of {task}" + (f" ({group.agent})" if group.agent else ""),
            columns=cells.columns[1:],
            rows=[row[1:] for row in cells.rows if row[0] == task],
        )
        who = f"{group.agent}: " if len(result.groups) > 1 else ""
        summary = f"{who}{task} — {info.family}, {info.mode}, {info.database}"
        sentence = ""
        if task in deltas:
            span = intervals.get(task)
            bounds = (
                f" (within-task trial bootstrap interval "
                f"[{format_value(span.ci_low)}, {format_value(span.ci_high)}])"
                if span
                else ""
            )
            sentence = (
                f"{result.settings.treatment} minus {result.settings.baseline}: "
                f"{deltas[task].delta:+.3f}{bounds}; dependency depth "
                f"{format_value(info.depth)}."
            )
        blocks.append(
            f'<details class="task" data-task="{html.escape(task)}"><summary>'
            f"{html.escape(summary)}</summary>{_paragraphs([sentence])}{to_html(own)}"
            f"{_runs_in_view(view, task, own, group)}</details>"
        )
    return "".join(blocks)


def _runs_in_view(view: str | None, task: str, own: Table, group: GroupResult) -> str:
    """Links from each cell (condition, schema, model) to its runs in the view."""
    if view is None:
        return ""
    return cell_links(view, [(task, *map(str, row[:3])) for row in own.rows], group.agent)


def _group_heading(result: AnalysisResult, group: GroupResult) -> str:
    if len(result.groups) == 1 and not group.agent:
        return ""
    about = f"models {', '.join(group.models)}; from {', '.join(group.inputs)}"
    return (
        f"<h3>{html.escape(group.agent or 'runs without an agent name')}</h3>"
        f'<p class="muted">{html.escape(about)}; {group.runs} runs analysed</p>'
    )


def _headline_section(result: AnalysisResult) -> str:
    settings = result.settings
    parts = []
    for group in result.groups:
        sentences = [
            estimate_sentence(item, settings.reps, settings.permutation_reps)
            for item in group.headline
        ]
        sentences += [extremes_sentence(group), cluster_sentence(group)]
        parts.append(_group_heading(result, group) + _paragraphs(sentences) + _needs(group.needs))
    return "".join(parts)


def _needs(lines: Sequence[str]) -> str:
    return "".join(f'<p class="needs">{html.escape(line)}</p>' for line in lines)


def _comparisons_section(result: AnalysisResult) -> str:
    settings = result.settings
    primary = f"{settings.treatment} vs {settings.baseline}"
    sentences = [
        estimate_sentence(item, settings.reps, settings.permutation_reps)
        for item in result.comparisons
        if item.scope == TASK_BALANCED and item.comparison != primary
    ]
    if sentences:
        return _paragraphs(sentences)
    return _needs(
        [
            f"No other comparison: needs runs of another condition beside '{settings.baseline}' "
            f"and '{settings.treatment}' (a matched control such as with-skill-decoy, or "
            f"{settings.operational_spec}), or both conditions on a transformed schema."
        ]
    )


def _schema_section(result: AnalysisResult) -> str:
    settings = result.settings
    parts = []
    for group in result.groups:
        sentences = [
            estimate_sentence(item, settings.reps, settings.permutation_reps)
            for item in group.schemas.probe
            if item.scope == TASK_BALANCED
        ]
        sentences += [
            f"Schema-skill effect on {row.schema_name} ({row.estimate.scope}, "
            f"{row.estimate.tasks} shared tasks): {row.estimate.baseline:.3f} → "
            f"{row.estimate.treatment:.3f}, delta {row.estimate.delta:+.3f}"
            + (f", {row.ratio:.2f} of the native delta." if row.ratio is not None else ".")
            for row in group.schemas.skill
            if row.estimate.scope == TASK_BALANCED
        ]
        parts.append(
            _group_heading(result, group) + _paragraphs(sentences) + _needs(group.schemas.needs)
        )
    return "".join(parts)


def render_report(
    result: AnalysisResult, figures: Mapping[str, Rendered], view: str | None = None
) -> str:
    """The report page; every sentence in it is computed from ``result``. With ``view``
    (the run viewer's index beside the report), each cell links to its runs there."""
    tables = "".join(
        f"<h3>{html.escape(table.title)}</h3>{to_html(table)}"
        for table in result.tables
        if table.name not in ("cells", "integrity")
    )
    title = f"m4bench analysis — {result.source}"
    settings = (
        f"Bootstrap: {result.settings.reps} replicates, seed {result.settings.seed}; "
        f"sign-flip permutation: {result.settings.permutation_reps} replicates."
    )
    details = "".join(_task_details(result, group, view) for group in result.groups)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{_CSS}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p class="lead">{html.escape(overview_sentence(result))}</p>
<h2 id="arms">Arms side by side</h2>
{to_html(result.table("arms"))}
<h2 id="headline">Headline</h2>
{_headline_section(result)}
<h2 id="comparisons">Other comparisons</h2>
{_comparisons_section(result)}
<h2 id="schemas">Transformed schemas</h2>
{_schema_section(result)}
<h2 id="figures">Figures</h2>
{_figures(figures)}
<h2 id="tables">Tables</h2>
{tables}
<h2 id="tasks">Per-task drill-down</h2>
<p><label>Filter tasks: <input id="task-filter" type="search"></label></p>
{details}
<h2 id="integrity">Integrity</h2>
{_paragraphs([integrity_sentence(result)])}
{to_html(result.table("integrity"))}
<p class="muted">{html.escape(settings)}</p>
<script>{_SCRIPT}</script>
</body></html>
"""
