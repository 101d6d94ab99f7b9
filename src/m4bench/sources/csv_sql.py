"""The DuckDB SQL that reads one official CSV file with the official types.

No type sniffing: ``read_csv`` gets every column's type from the schema, in the order
of the file's header, and the projection puts the columns back in official order.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from m4bench.errors import M4BenchError
from m4bench.sources.csv_tree import CsvInput
from m4bench.sql import quote_ident, quote_literal

# Null tokens of the official loaders: an empty field is NULL everywhere; MIMIC-IV also
# uses '___' for de-identified free text, which the reference databases load as NULL.
NULL_TOKENS: dict[str, tuple[str, ...]] = {"mimic-iv": ("", "___"), "eicu": ("",)}


def read_csv_sql(source: CsvInput, null_tokens: tuple[str, ...]) -> str:
    """``SELECT <official columns> FROM read_csv(<file>, columns=<typed header>, ...)``."""
    types = source.table.duckdb_columns()
    columns = ", ".join(
        f"{quote_literal(name)}: {quote_literal(types[name])}" for name in source.header
    )
    nulls = ", ".join(quote_literal(token) for token in null_tokens)
    projection = (
        "*"
        if source.header == source.table.column_names
        else ", ".join(quote_ident(name) for name in source.table.column_names)
    )
    return (
        f"SELECT {projection} FROM read_csv({quote_literal(source.path)}, header = true, "
        f"auto_detect = false, delim = ',', quote = '\"', escape = '\"', "
        f"nullstr = [{nulls}], columns = {{{columns}}}, "
        f"compression = {quote_literal('gzip' if source.gzipped else 'none')})"
    )


def explain_csv_error(path: Path, exc: duckdb.Error) -> M4BenchError:
    """A user-facing error for a DuckDB CSV failure: the file, the line, what went wrong."""
    text = str(exc)
    line_match = re.search(r"CSV Error on Line: (\d+)", text)
    where = f"{path} line {line_match.group(1)}" if line_match else str(path)
    detail = _first_cause(text)
    if line_match is None and isinstance(exc, duckdb.IOException) and "csv" not in detail.lower():
        return M4BenchError(
            f"{path}: writing its table failed: {detail}",
            hint="check free space and permissions in the data home, then run the same "
            "command again. Tables ingested before this one are kept",
        )
    return M4BenchError(
        f"{where}: {detail}",
        hint="the file does not match the official release (damaged, edited or another "
        "version); download it again. Tables ingested before this one are kept",
    )


def _first_cause(text: str) -> str:
    """The cause lines of a DuckDB CSV error, the offending line last."""
    cause: list[str] = []
    original: list[str] = []
    for raw in text.splitlines():
        line = _ERROR_PREFIX.sub("", raw.strip())
        if not line or line.startswith(("Possible", "*", "file =")):
            if cause or original:
                break
            continue
        if "auto-detected" in line.lower():
            continue
        (original if line.startswith("Original Line") else cause).append(line)
    return "; ".join(cause + original)[:500] or text[:500]


_ERROR_PREFIX = re.compile(r"^(?:[A-Za-z ]+Error: )?(?:CSV Error on Line: \d+\s*)?")
