"""A scores-only ``output.csv``: what a reviewer may see of an agent's answer.

Kept: a synthetic ``row_id`` (1..n in file order), optionally ``row_key_hash`` (a salted
HMAC-SHA256 of the row's key values, so two packages built with the same private salt
can be joined without revealing keys), and the task's scored columns whose every value
is a number. Dropped: keys and identifiers, anything time-like, demographic and free-text
columns, and any column holding a non-numeric value.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import re
from dataclasses import dataclass, field

from m4bench.tasks.evaluation import IDENTIFIER_COLUMNS, EvaluationSpec

SENSITIVE_TOKENS = frozenset(
    {
        "age", "dob", "dod", "gender", "sex", "race", "ethnicity", "weight", "height",
        "time", "date", "offset", "antibiotic", "specimen", "culture", "organism",
        "text", "note", "name", "id", "route", "label", "comment",
    }
)  # fmt: skip
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$")
ROW_ID = "row_id"
KEY_HASH = "row_key_hash"


@dataclass
class OutputSanitization:
    """What happened to one ``output.csv``."""

    rows: int = 0
    kept: list[str] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)
    key_hash: bool = False


def is_sensitive_name(column: str) -> bool:
    """Identifier, time, demographic or free-text by name (``charttime``, ``anchor_age``)."""
    lowered = column.lower()
    if lowered in IDENTIFIER_COLUMNS or lowered.endswith(("time", "date", "_id")):
        return True
    return any(token in SENSITIVE_TOKENS for token in re.split(r"[^a-z0-9]+", lowered))


def scores_only(
    text: str, evaluation: EvaluationSpec, salt: bytes | None
) -> tuple[str, OutputSanitization]:
    """The sanitized CSV text of an output and the record of every column's fate."""
    report = OutputSanitization()
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    rows = [row for row in reader if row]
    report.rows = len(rows)
    scored = set(evaluation.scored_columns)
    keep: list[int] = []
    for index, column in enumerate(header):
        reason = _drop_reason(column, index, rows, scored, evaluation.key_columns)
        if reason is None:
            keep.append(index)
            report.kept.append(column)
        else:
            report.dropped[column] = reason
    key_index = [header.index(k) for k in evaluation.key_columns if k in header]
    report.key_hash = salt is not None and bool(key_index)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([ROW_ID, *([KEY_HASH] if report.key_hash else []), *report.kept])
    for number, row in enumerate(rows, start=1):
        cells = [row[i] if i < len(row) else "" for i in keep]
        extra = [key_hash(salt, [_cell(row, i) for i in key_index])] if report.key_hash else []
        writer.writerow([str(number), *extra, *cells])
    return out.getvalue(), report


def key_hash(salt: bytes | None, values: list[str]) -> str:
    message = "\x1f".join(values).encode("utf-8")
    return hmac.new(salt or b"", message, hashlib.sha256).hexdigest()[:16]


def _cell(row: list[str], index: int) -> str:
    return row[index] if index < len(row) else ""


def _drop_reason(
    column: str, index: int, rows: list[list[str]], scored: set[str], keys: list[str]
) -> str | None:
    if column in keys:
        return "key column"
    if column not in scored:
        return "not a scored column"
    if is_sensitive_name(column):
        return "identifier, time, demographic or free-text column"
    for row in rows:
        value = _cell(row, index).strip()
        if value and not _NUMBER.match(value):
            return "holds non-numeric values"
    return None
