"""Coverage bins: parsed from coverage.toml, counted over a reference's output or a source."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import CATALOG_ROOT, load_catalog
from m4bench.validity.coverage import BinSpec, count_bin, load_coverage


@pytest.fixture
def truth_and_source(tmp_path: Path) -> tuple[Path, duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.gases AS SELECT * FROM (VALUES ('ART.'), ('VEN.'), ('ART.')) t(x)")
    truth = tmp_path / "truth.parquet"
    con.execute(
        "COPY (SELECT * FROM (VALUES (1, 0), (2, 4), (3, 4)) t(stay_id, renal)) "
        f"TO '{truth}' (FORMAT PARQUET)"
    )
    return truth, con


def test_bins_count_rows_of_the_truth_or_the_source(
    truth_and_source: tuple[Path, duckdb.DuckDBPyConnection],
) -> None:
    truth, con = truth_and_source
    four = count_bin("sofa", BinSpec(name="renal-4", where="renal = 4"), truth, con)
    assert (four.rows, four.reached, four.passed) == (2, True, True)
    venous = BinSpec(name="venous", query="SELECT COUNT(*) FROM s.gases WHERE x = 'VEN.'")
    assert count_bin("sofa", venous, truth, con).rows == 1


def test_an_empty_bin_is_a_gap_unless_excused(
    truth_and_source: tuple[Path, duckdb.DuckDBPyConnection],
) -> None:
    truth, con = truth_and_source
    empty = count_bin("sofa", BinSpec(name="renal-3", where="renal = 3"), truth, con)
    assert (empty.rows, empty.reached, empty.passed) == (0, False, False)
    reason = "no stay of this source reaches stage three"
    excused = BinSpec(name="renal-3", where="renal = 3", exception=reason)
    assert count_bin("sofa", excused, truth, con).passed


def test_a_failing_predicate_fails_even_with_an_exception(
    truth_and_source: tuple[Path, duckdb.DuckDBPyConnection],
) -> None:
    truth, con = truth_and_source
    spec = BinSpec(name="typo", where="renall = 4", exception="a reason long enough")
    found = count_bin("sofa", spec, truth, con)
    assert found.rows is None and not found.passed
    assert found.error is not None and "renall" in found.error


def test_a_bin_needs_exactly_one_predicate() -> None:
    with pytest.raises(ValueError):
        BinSpec(name="both", where="a = 1", query="SELECT 1")
    with pytest.raises(ValueError):
        BinSpec(name="neither")


def test_the_catalog_bins_load_and_name_used_references() -> None:
    catalog = load_catalog()
    for family in catalog.families:
        references = {t.card.reference.file for t in catalog.family(family)}
        bins = load_coverage(CATALOG_ROOT / family)
        assert bins, family
        assert {b.reference for b in bins} <= references
        assert {b.reference for b in bins} == references, family  # every reference has bins


def test_a_malformed_coverage_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "coverage.toml").write_text('format_version = 1\n[[bin]]\nname = "x"\n')
    with pytest.raises(M4BenchError) as err:
        load_coverage(tmp_path)
    assert "coverage.toml" in err.value.message
