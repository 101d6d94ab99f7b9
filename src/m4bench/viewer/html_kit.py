"""HTML building blocks of the viewer: escaping, bounded text, tables, the page shell.

Everything a run carries is hostile text (an agent's messages, its SQL, its output): it
reaches a page only through :func:`esc` (or :func:`text_block`, which escapes). Pages
carry a Content-Security-Policy that runs no script but the page's own (by its hash),
loads nothing from anywhere, and so works offline from ``file://`` as well as served.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Value = str | int | float | bool | None

TEXT_LIMIT = 20_000
"""Characters of one text block (a message, an observation, a query) shown in full."""
PAGE_BUDGET = 1_500_000
"""Characters of agent text one page shows; past it, steps are left out with a note."""

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5rem auto;
max-width:1200px;color:#1d1d1f;line-height:1.45;padding:0 1rem}
h1{font-size:1.4rem;word-break:break-all}h2{margin-top:2rem;border-bottom:1px solid #ddd}
h3{font-size:1rem;margin:1rem 0 .3rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
thead th{background:#f4f4f6}td.num{text-align:right}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:.5rem;overflow-x:auto;
white-space:pre-wrap;word-break:break-word;font-size:.8rem;margin:.3rem 0}
details{margin:.3rem 0}summary{cursor:pointer;font-weight:600}
.step{border:1px solid #ddd;border-radius:6px;padding:.5rem .8rem;margin:.6rem 0}
.step.agent{border-left:4px solid #4a7bd0}.step.user{border-left:4px solid #3a9a5b}
.step.system{border-left:4px solid #999}
.meta{color:#666;font-size:.8rem}.note{color:#8a5a00;font-size:.85rem}
.bad{color:#b00020;font-weight:600}.good{color:#1b7a3a;font-weight:600}
.warn{background:#fff4e5;border:1px solid #f0c36d;padding:.5rem .8rem}
nav a{margin-right:1rem}label{margin-right:.8rem;font-size:.85rem}
tr[hidden]{display:none}
"""


def esc(value: object) -> str:
    """Any value as HTML text: markup characters and quotes escaped."""
    return html.escape(str(value), quote=True)


def fmt(value: Value, digits: int = 3) -> str:
    """A value for a table cell: floats with fixed decimals, '–' for nothing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def clip(text: str, limit: int = TEXT_LIMIT) -> tuple[str, int]:
    """``text`` cut to ``limit`` characters, and how many were left out."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def text_block(text: str, *, limit: int = TEXT_LIMIT, css: str = "") -> str:
    """Preformatted, escaped text, cut to ``limit`` with a note saying how much was cut."""
    shown, cut = clip(text, limit)
    klass = f' class="{esc(css)}"' if css else ""
    note = f'<p class="note">… {cut:,} more characters not shown</p>' if cut else ""
    return f"<pre{klass}>{esc(shown)}</pre>{note}"


def verdict(passed: bool | None, yes: str = "passed", no: str = "failed") -> str:
    if passed is None:
        return '<span class="meta">not checked</span>'
    return (
        f'<span class="good">{esc(yes)}</span>' if passed else f'<span class="bad">{esc(no)}</span>'
    )


def cells(values: Sequence[Value]) -> str:
    """Table cells of escaped values; numbers are right-aligned."""
    return "".join(
        f'<td class="num">{esc(fmt(v))}</td>'
        if isinstance(v, int | float) and not isinstance(v, bool)
        else f"<td>{esc(fmt(v))}</td>"
        for v in values
    )


def table(columns: Sequence[str], rows: Iterable[Sequence[Value]], *, caption: str = "") -> str:
    """A table of escaped values; numbers are right-aligned."""
    head = "".join(f"<th>{esc(column)}</th>" for column in columns)
    body = [f"<tr>{cells(row)}</tr>" for row in rows]
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def pairs(items: Iterable[tuple[str, Value]]) -> str:
    """A two-column table of names and values."""
    return table(("field", "value"), ([name, value] for name, value in items))


def _digest(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()


@dataclass(frozen=True)
class Page:
    """One page: its title, body HTML and an optional script of its own."""

    title: str
    body: str
    script: str = ""

    def render(self) -> str:
        """The whole document; the CSP admits exactly this page's style and script."""
        script_src = f"'{_digest(self.script)}'" if self.script else "'none'"
        csp = (
            f"default-src 'none'; style-src '{_digest(CSS)}'; script-src {script_src}; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        )
        script = f"<script>{self.script}</script>" if self.script else ""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="referrer" content="no-referrer">\n'
            f"<title>{esc(self.title)}</title><style>{CSS}</style></head>\n"
            f"<body>\n{self.body}\n{script}\n</body></html>\n"
        )
