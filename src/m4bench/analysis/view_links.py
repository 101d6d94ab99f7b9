"""Links from the report's cells to the run viewer's index, filtered to each cell.

A view sits beside the report when ``<out>/view/index.html`` exists (``analyze --view``
writes it, or ``m4bench view RESULTS --out <out>/view``); the report then links each
cell of its per-task tables to that index, filtered to the cell's runs.
"""

from __future__ import annotations

import html
from pathlib import Path

from m4bench.viewer.links import INDEX_FILE, VIEW_DIR, index_link

CELL_FACETS = ("task", "condition", "schema", "model")
"""What a row of the cells table names, in its column order."""


def view_beside(out: Path) -> str | None:
    """The report's link to the view beside it, or None when there is none."""
    if (out / VIEW_DIR / INDEX_FILE).is_file():
        return f"{VIEW_DIR}/{INDEX_FILE}"
    return None


def cell_links(view: str, cells: list[tuple[str, ...]], agent: str | None = None) -> str:
    """One link per cell (task, condition, schema, model) to its runs in the view."""
    links = []
    for cell in cells:
        filters = dict(zip(CELL_FACETS, cell, strict=True))
        if agent:
            filters["agent"] = agent
        label = " / ".join(cell[1:])
        href = index_link(view, filters)
        links.append(f'<a href="{html.escape(href)}">{html.escape(label)}</a>')
    return f'<p class="muted">Runs in the viewer: {" · ".join(links)}</p>' if links else ""
