"""Rule coverage: how many rows of a source reach each named scoring bin of a reference.

A family's ``coverage.toml`` names the bins and branches of its references as data::

    format_version = 1

    [[bin]]
    name = "cardiovascular-4"
    reference = "reference.sql"          # whose output the predicate reads (default)
    where = "cardiovascular = 4"         # a predicate over that reference's rows

    [[bin]]
    name = "date-only-culture"
    query = "SELECT COUNT(*) FROM mimiciv_hosp.microbiologyevents WHERE charttime IS NULL"

    [[bin]]
    name = "liver-4"
    where = "liver = 4"
    exception = "why no row may reach it on some source"

``where`` counts rows of the reference's ground truth; ``query`` is a count over the
source itself (its tables and derived concepts). A bin no row reaches is a gap in the
data, unless an ``exception`` gives the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import duckdb
from pydantic import BaseModel, ConfigDict, Field, model_validator

from m4bench.fileio import read_toml_model, reject_duplicate_names
from m4bench.sql import quote_literal
from m4bench.tasks.catalog import Task
from m4bench.validity.model import BinCoverage

COVERAGE_FILE = "coverage.toml"


class BinSpec(BaseModel):
    """One ``[[bin]]`` of ``coverage.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9]+([-_.][a-z0-9]+)*$")
    reference: str = "reference.sql"
    where: str | None = None
    query: str | None = None
    exception: str | None = Field(default=None, min_length=10)

    @model_validator(mode="after")
    def _one_predicate(self) -> BinSpec:
        if (self.where is None) == (self.query is None):
            raise ValueError(f"bin {self.name!r}: give exactly one of 'where' and 'query'")
        return self


class CoverageFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = 1
    bin: list[BinSpec] = Field(default_factory=list)


def load_coverage(family_dir: Path) -> list[BinSpec]:
    """The bins of a family (none when it has no ``coverage.toml``)."""
    path = family_dir / COVERAGE_FILE
    parsed = read_toml_model(path, CoverageFile, "docs/validity.md")
    if parsed is None:
        return []
    reject_duplicate_names(path, [b.name for b in parsed.bin], "bin")
    return list(parsed.bin)


def count_bin(
    family: str, spec: BinSpec, truth: Path, source_con: duckdb.DuckDBPyConnection
) -> BinCoverage:
    """Rows reaching ``spec``: over the ground truth at ``truth`` or over the source."""
    if spec.where is not None:
        sql = f"SELECT COUNT(*) FROM read_parquet({quote_literal(truth)}) WHERE {spec.where}"
    else:
        sql = str(spec.query)
    rows: int | None = None
    error: str | None = None
    try:
        found = source_con.execute(sql).fetchone()
        rows = int(found[0]) if found is not None and found[0] is not None else 0
    except (duckdb.Error, TypeError, ValueError) as exc:
        error = f"the predicate failed: {str(exc).splitlines()[0]}"
    return BinCoverage(
        family=family,
        name=spec.name,
        reference=spec.reference,
        rows=rows,
        exception=spec.exception,
        error=error,
    )


def task_bins(task: Task, truth: Path, con: duckdb.DuckDBPyConnection) -> list[BinCoverage]:
    """Rows reaching each bin of ``task``'s reference, its ground truth at ``truth``."""
    reference = task.card.reference.file
    bins = [b for b in load_coverage(task.family_dir) if b.reference == reference]
    return [count_bin(task.family, b, truth, con) for b in bins]
