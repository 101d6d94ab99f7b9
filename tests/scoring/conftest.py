"""Small truths and outputs built by the tests themselves."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from scoring_helpers import OutputMaker, TruthMaker


@pytest.fixture
def make_truth(tmp_path: Path) -> TruthMaker:
    """Write ``SELECT ...`` (DuckDB SQL) as a typed Parquet truth."""
    counter = iter(range(1000))

    def make(select: str) -> Path:
        path = tmp_path / f"truth{next(counter)}.parquet"
        with duckdb.connect() as con:
            con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet)")
        return path

    return make


@pytest.fixture
def make_output(tmp_path: Path) -> OutputMaker:
    counter = iter(range(1000))

    def make(text: str) -> Path:
        path = tmp_path / f"output{next(counter)}.csv"
        path.write_text(text, encoding="utf-8")
        return path

    return make
