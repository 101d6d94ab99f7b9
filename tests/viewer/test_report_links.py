"""The analysis report's links into a view beside it: present only when the view is,
each naming one cell, escaped."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import unquote

from result_records import record, score
from viewer_runs import spec, write_run

from m4bench.analysis.view_links import cell_links, view_beside
from m4bench.viewer import VIEW_DIR, build_view


def test_cells_link_to_the_view_beside_the_report_only_when_it_exists(tmp_path: Path) -> None:
    out = tmp_path / "analysis"
    out.mkdir()
    assert view_beside(out) is None
    write_run(tmp_path / "results", record(spec(model="m<1>"), scored=score(1.0)), {})
    build_view(tmp_path / "results", out / VIEW_DIR)
    view = view_beside(out)
    assert view == "view/index.html"
    cells = [("mimic-meld-24h", "no-skill", "native", "m<1>")]
    found = cell_links(view, cells, agent="codex")
    [href] = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', found)]
    page, fragment = href.split("#")
    assert (out / page).is_file()
    assert [unquote(part) for part in fragment.split("&")] == [
        "task=mimic-meld-24h", "condition=no-skill", "schema=native", "agent=codex", "model=m<1>"
    ]  # fmt: skip
    assert "m&lt;1&gt;" in found and "<1>" not in found
    assert cell_links(view, []) == ""
