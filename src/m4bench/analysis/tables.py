"""Result tables and their CSV, Markdown, LaTeX and HTML renderings."""

from __future__ import annotations

import csv
import html
import io
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from m4bench.fileio import write_shareable

Value = str | int | float | None

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


class Table(BaseModel):
    """A named table: ``name`` is the file stem, ``caption`` says what it shows."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    caption: str
    columns: list[str]
    rows: list[list[Value]]
    digits: int = 3

    @model_validator(mode="after")
    def _check_shape(self) -> Table:
        if len(set(self.columns)) != len(self.columns):
            raise ValueError(f"table {self.name}: duplicate column names {self.columns}")
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.name}: row {row} does not match the columns")
        return self

    def column(self, name: str) -> list[Value]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]


def format_value(value: Value, digits: int = 3) -> str:
    """Human formatting: fixed decimals for floats, thousands kept plain, '–' for none."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _csv_value(value: Value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)


def to_csv(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([_csv_value(value) for value in row])
    return buffer.getvalue()


def to_markdown(table: Table) -> str:
    def cell(value: Value) -> str:
        return format_value(value, table.digits).replace("|", "\\|")

    lines = [f"### {table.title}", "", table.caption, ""]
    lines.append("| " + " | ".join(column.replace("|", "\\|") for column in table.columns) + " |")
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    lines.extend("| " + " | ".join(cell(value) for value in row) + " |" for row in table.rows)
    return "\n".join(lines) + "\n"


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def to_latex(table: Table) -> str:
    align = "l" + "r" * (len(table.columns) - 1)
    lines = [
        "\\begin{table}[t]",
        "\\centering",
        f"\\caption{{{latex_escape(table.caption)}}}",
        f"\\label{{tab:{table.name}}}",
        f"\\begin{{tabular}}{{{align}}}",
        "\\toprule",
        " & ".join(latex_escape(column) for column in table.columns) + " \\\\",
        "\\midrule",
    ]
    for row in table.rows:
        cells = (latex_escape(format_value(value, table.digits)) for value in row)
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def to_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(column)}</th>" for column in table.columns)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(format_value(value, table.digits))}</td>" for value in row)
        + "</tr>"
        for row in table.rows
    )
    return (
        f'<table id="table-{html.escape(table.name)}"><caption>{html.escape(table.caption)}'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def write_table(table: Table, directory: Path) -> list[Path]:
    """Write ``<name>.csv``, ``.md`` and ``.tex`` atomically; return the paths."""
    written: list[Path] = []
    for suffix, render in (("csv", to_csv), ("md", to_markdown), ("tex", to_latex)):
        path = directory / f"{table.name}.{suffix}"
        write_shareable(path, render(table))
        written.append(path)
    return written
