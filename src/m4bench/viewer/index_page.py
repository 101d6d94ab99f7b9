"""The index of a view: every run in one table, filtered in the browser by task,
condition, schema, agent, model and status. The filters live in the page's fragment
(``#task=...&model=...``), so a link can open the index on one cell's runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from m4bench.viewer.collect import Unreadable
from m4bench.viewer.html_kit import Page, Value, cells, esc
from m4bench.viewer.links import FILTERS, RUN_PAGES_DIR

SCRIPT = """(function () {
  var facets = %FACETS%;
  var selects = {};
  facets.forEach(function (name) { selects[name] = document.getElementById('filter-' + name); });
  var rows = Array.prototype.slice.call(document.querySelectorAll('#runs tbody tr'));
  var shown = document.getElementById('shown');
  function wanted() {
    var found = {};
    window.location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      var at = part.indexOf('=');
      if (at < 1) { return; }
      try {
        var name = decodeURIComponent(part.slice(0, at));
        if (selects.hasOwnProperty(name)) { found[name] = decodeURIComponent(part.slice(at + 1)); }
      } catch (error) { /* a malformed part filters nothing */ }
    });
    return found;
  }
  function apply() {
    var chosen = wanted();
    facets.forEach(function (name) {
      var select = selects[name], value = chosen[name] || '';
      var known = Array.prototype.some.call(select.options, function (option) {
        return option.value === value;
      });
      if (!known) {
        var option = document.createElement('option');
        option.value = value;
        option.textContent = value + ' (no run)';
        select.appendChild(option);
      }
      select.value = value;
    });
    var count = 0;
    rows.forEach(function (row) {
      var keep = facets.every(function (name) {
        return !chosen[name] || row.getAttribute('data-' + name) === chosen[name];
      });
      row.hidden = !keep;
      if (keep) { count += 1; }
    });
    shown.textContent = count + ' of ' + rows.length + ' runs shown';
  }
  function update() {
    var parts = [];
    facets.forEach(function (name) {
      if (selects[name].value) { parts.push(name + '=' + encodeURIComponent(selects[name].value)); }
    });
    window.location.hash = parts.join('&');
  }
  facets.forEach(function (name) { selects[name].addEventListener('change', update); });
  window.addEventListener('hashchange', apply);
  apply();
})();
"""


@dataclass(frozen=True)
class IndexRow:
    """One run as the index lists it; ``page`` is its page's file name."""

    page: str
    run_id: str
    task: str
    condition: str
    schema: str
    agent: str
    model: str
    trial: int
    status: str
    reward: float
    strict_pass: bool | None
    publishable: bool
    tokens: int
    cost_usd: float | None
    seconds: float

    def facet(self, name: str) -> str:
        return str(getattr(self, name))


@dataclass(frozen=True)
class IndexContext:
    """What the index says about the folder beside its rows."""

    title: str
    with_truth: bool
    planned: int | None = None
    unreadable: Sequence[Unreadable] = ()


def _filters(rows: Sequence[IndexRow]) -> str:
    controls = []
    for name in FILTERS:
        values = sorted({row.facet(name) for row in rows})
        options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
        controls.append(
            f'<label>{esc(name)} <select id="filter-{name}"><option value="">all</option>'
            f"{options}</select></label>"
        )
    return f'<p>{"".join(controls)}</p><p id="shown" class="meta">{len(rows)} runs</p>'


_HEAD = ("run", "task", "condition", "schema", "agent", "model", "trial", "status",
         "reward", "strict", "publishable", "tokens", "cost (USD)", "seconds")  # fmt: skip


def _row(row: IndexRow) -> str:
    data = " ".join(f'data-{name}="{esc(row.facet(name))}"' for name in FILTERS)
    href = f"{RUN_PAGES_DIR}/{row.page}"
    values: list[Value] = [row.task, row.condition, row.schema, row.agent, row.model, row.trial,
                           row.status, row.reward, row.strict_pass, row.publishable, row.tokens,
                           row.cost_usd, round(row.seconds, 1)]  # fmt: skip
    link = f'<td><a href="{esc(href)}">{esc(row.run_id)}</a></td>'
    return f"<tr {data}>{link}{cells(values)}</tr>"


def index_page(rows: Sequence[IndexRow], context: IndexContext) -> Page:
    """The index page of ``rows``."""
    intro = [f"<h1>{esc(context.title)}</h1>"]
    if context.with_truth:
        intro.append(
            '<p class="warn">This view shows truth values (built with --with-truth): '
            "do not share it.</p>"
        )
    if context.planned is not None:
        intro.append(f"<p>{len(rows):,} runs with a record of {context.planned:,} planned.</p>")
    if context.unreadable:
        items = "".join(
            f"<li><code>{esc(item.path)}</code>: {esc(item.error)}</li>"
            for item in context.unreadable
        )
        intro.append(f"<h2>Records that could not be read</h2><ul>{items}</ul>")
    head = "".join(f"<th>{esc(name)}</th>" for name in _HEAD)
    listing = (
        f'<table id="runs"><thead><tr>{head}</tr></thead><tbody>'
        f"{''.join(_row(row) for row in rows)}</tbody></table>"
    )
    facets = "[" + ", ".join(f"'{name}'" for name in FILTERS) + "]"
    return Page(
        title=context.title,
        body="".join(intro) + _filters(rows) + listing,
        script=SCRIPT.replace("%FACETS%", facets),
    )
