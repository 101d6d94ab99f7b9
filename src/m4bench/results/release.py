"""The paper's released layout: a per-run CSV (one row per run) read as ``RunRow`` rows.

The M4Bench release v1 ships its runs this way (``final_codex_runs.csv``); any CSV in
the same layout reads the same. Required columns: ``task``, ``condition``, ``model``,
``trial``, ``reward``; the others of :class:`~m4bench.results.rows.RunRow` are optional
and unknown ones are ignored. Errors name the file, the line and the column.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from m4bench.errors import M4BenchError
from m4bench.results.rows import RunRow

REQUIRED_COLUMNS: tuple[str, ...] = ("task", "condition", "model", "trial", "reward")

_INT_FIELDS = (
    "trial",
    "agent_returncode",
    "passed",
    "failed",
    "errors",
    "total_tests",
    "extra_keys",
    "agent_unique_keys",
    "truth_rows",
    "ordered_value_columns",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
)
_FLOAT_FIELDS = (
    "reward",
    "key_f1",
    "key_precision",
    "key_recall",
    "ordered_value_nmae",
    "elapsed_seconds",
    "cost_usd",
)
_BOOL_FIELDS = (
    "publishable",
    "isolated",
    "filesystem_canary",
    "contamination_lint",
    "diagnostics_failed",
)
_TEXT_FIELDS = ("agent", "failure_reason")


def _parse_int(text: str) -> int:
    """An integer, also written as ``2.0`` or ``1e3``; ``1.5`` is not one."""
    if "." not in text and "e" not in text.lower():
        return int(text)
    value = float(text)
    if not value.is_integer():
        raise ValueError("not a whole number")
    return int(value)


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def _convert(path: Path, line: int, field: str, text: str, parse: Callable[[str], Any]) -> Any:
    if text.strip() == "":
        return None
    try:
        return parse(text.strip())
    except ValueError as exc:
        raise M4BenchError(
            f"{path}: line {line}, column '{field}': cannot read {text!r} ({exc})",
            hint="fix or remove that row; numbers use '.' decimals, flags are True/False",
        ) from exc


def _row_to_run(path: Path, line: int, row: dict[str, str]) -> RunRow:
    fields: dict[str, Any] = {}
    parsers: list[tuple[str, Callable[[str], Any]]] = [
        *((f, _parse_int) for f in _INT_FIELDS),
        *((f, float) for f in _FLOAT_FIELDS),
        *((f, _parse_bool) for f in _BOOL_FIELDS),
    ]
    for name, parse in parsers:
        if name in row:
            fields[name] = _convert(path, line, name, row[name], parse)
    for name in _TEXT_FIELDS:
        if row.get(name):
            fields[name] = row[name]
    for name in ("task", "condition", "model"):
        if not row[name].strip():
            raise M4BenchError(f"{path}: line {line}, column '{name}' is empty")
        fields[name] = row[name].strip()
    if fields.get("trial") is None:
        raise M4BenchError(f"{path}: line {line}, column 'trial' is empty")
    if fields.get("publishable") is None:
        fields["publishable"] = True
    fields["schema_name"] = (row.get("schema") or "native").strip() or "native"
    fields["run_id"] = row.get("run_id") or (
        f"{fields['task']}_{fields['condition']}_{fields['schema_name']}"
        f"_{fields['model']}_t{fields['trial']}"
    )
    try:
        return RunRow(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise M4BenchError(
            f"{path}: line {line}, column '{field}': {row.get(field, '')!r}: {first['msg']}",
            hint="fix or remove that row: rewards, key rates and nMAE lie in [0, 1], "
            "trials and counts are whole numbers from 0",
        ) from exc


def load_runs_csv(path: Path) -> list[RunRow]:
    """Every run of a runs CSV; errors name the file, the line and the column."""
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise M4BenchError(f"{path}: cannot open ({exc.strerror})") from exc
    with handle:
        reader = csv.DictReader(handle)
        try:
            runs = [_row_to_run(path, line, row) for line, row in _records(path, reader)]
        except csv.Error as exc:
            raise M4BenchError(
                f"{path}: line {reader.line_num + 1}: not readable as CSV ({exc})",
                hint="a runs CSV is comma-separated, one run per line, quotes closed",
            ) from exc
        except UnicodeDecodeError as exc:
            raise M4BenchError(
                f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x})",
                hint="save the runs table as a UTF-8 CSV",
            ) from exc
    if not runs:
        raise M4BenchError(f"{path}: no runs in the file")
    return runs


def _records(path: Path, reader: csv.DictReader[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line, row)`` per data row (the line where the row ends); a row with more or
    fewer cells than the header is an error naming it."""
    header = reader.fieldnames or []
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise M4BenchError(
            f"{path}: missing column(s) {', '.join(missing)}",
            hint=f"a runs CSV needs at least: {', '.join(REQUIRED_COLUMNS)}",
        )
    for row in reader:
        extra = row.pop(None, None)
        short = [key for key, value in row.items() if value is None]
        if extra or short:
            found = len(header) - len(short) + len(extra or [])
            raise M4BenchError(
                f"{path}: line {reader.line_num}: {found} cells where the header has {len(header)}",
                hint="every row needs one cell per header column (an unclosed quote "
                "joins the lines after it into one cell)",
            )
        yield reader.line_num, row
