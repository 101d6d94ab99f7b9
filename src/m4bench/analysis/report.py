"""The self-contained HTML report: one page, figures embedded as data URIs."""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping

from m4bench.analysis.estimands import TASK_BALANCED
from m4bench.analysis.narrative import (
    cluster_sentence,
    estimate_sentence,
    extremes_sentence,
    integrity_sentence,
    overview_sentence,
)
from m4bench.analysis.pipeline import AnalysisResult
from m4bench.analysis.tables import Table, format_value, to_html

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


def _figures(pngs: Mapping[str, bytes]) -> str:
    parts = []
    for name, data in pngs.items():
        uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
        label = name.replace("_", " ")
        parts.append(
            f'<figure><img alt="{html.escape(label)}" src="{uri}">'
            f"<figcaption>{html.escape(label)}</figcaption></figure>"
        )
    return "".join(parts)


def _task_details(result: AnalysisResult) -> str:
    cells = result.table("cells")
    intervals = {item.task: item for item in result.task_intervals}
    deltas = {item.task: item for item in result.task_deltas}
    blocks = []
    for task, info in result.meta.items():
        own = Table(
            name=f"cells-{task}",
            title=task,
            caption=f"Cells of {task}",
            columns=cells.columns[1:],
            rows=[row[1:] for row in cells.rows if row[0] == task],
        )
        summary = f"{task} — {info.family}, {info.mode}, {info.database}"
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
            f"{html.escape(summary)}</summary>{_paragraphs([sentence])}{to_html(own)}</details>"
        )
    return "".join(blocks)


def render_report(result: AnalysisResult, pngs: Mapping[str, bytes]) -> str:
    """The report page; every sentence in it is computed from ``result``."""
    reps = result.settings.reps
    headline = [estimate_sentence(item, reps) for item in result.headline]
    controls = [
        estimate_sentence(item, reps)
        for item in result.comparisons
        if item.scope == TASK_BALANCED and item.comparison != result.headline[0].comparison
    ]
    tables = "".join(
        f"<h3>{html.escape(table.title)}</h3>{to_html(table)}"
        for table in result.tables
        if table.name not in ("cells", "integrity")
    )
    title = f"m4bench analysis — {result.source}"
    settings = (
        f"Bootstrap: {reps} replicates, seed {result.settings.seed}; "
        f"sign-flip permutation: {result.settings.permutation_reps} replicates."
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{_CSS}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p class="lead">{html.escape(overview_sentence(result))}</p>
<h2 id="headline">Headline</h2>
{_paragraphs(headline)}
{_paragraphs([extremes_sentence(result), cluster_sentence(result)])}
<h2 id="comparisons">Other comparisons</h2>
{_paragraphs(controls) or "<p>–</p>"}
<h2 id="figures">Figures</h2>
{_figures(pngs)}
<h2 id="tables">Tables</h2>
{tables}
<h2 id="tasks">Per-task drill-down</h2>
<p><label>Filter tasks: <input id="task-filter" type="search"></label></p>
{_task_details(result)}
<h2 id="integrity">Integrity</h2>
{_paragraphs([integrity_sentence(result)])}
{to_html(result.table("integrity"))}
<p class="muted">{html.escape(settings)}</p>
<script>{_SCRIPT}</script>
</body></html>
"""
