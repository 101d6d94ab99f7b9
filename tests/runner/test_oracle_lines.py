"""The oracle's query keeps the reference's lines where they are in its file, so a
DuckDB error's ``LINE n`` in an oracle or mutant run is line n of reference.sql."""

from __future__ import annotations

import pytest

from m4bench.runner.oracle_plan import oracle_statements
from m4bench.tasks.catalog import load_catalog


@pytest.mark.parametrize("name", ["mimic-meld-24h", "eicu-gcs"])
def test_the_oracle_copy_keeps_the_reference_lines(name: str) -> None:
    task = load_catalog().task(name)
    reference = task.reference_sql.rstrip().rstrip(";").rstrip().splitlines()
    copy = oracle_statements(task, present=set(task.direct_dependencies))[-1].splitlines()
    assert copy[1 : len(reference)] == reference[1:]
    assert copy[0].endswith(reference[0])
