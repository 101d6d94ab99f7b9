"""The MIMIC ``lab_text_value`` detector leaves blood-gas specimen-type rows out."""

from __future__ import annotations

from pathlib import Path

import duckdb

from m4bench.home import DataHome
from m4bench.sources.layout import (
    SourceLayout,
    SourceManifest,
    load_source,
    record_table,
    write_catalog,
    write_parquet,
)
from m4bench.sources.profile import profile_source
from m4bench.sources.schema import MIMIC_IV, create_empty_tables

T0 = "2150-01-01 10:00:00"


def _labs_source(home: DataHome, rows: list[tuple[int, str, float | None]]) -> None:
    layout = SourceLayout(home.source_dir("labs"))
    manifest = SourceManifest(
        name="labs", dataset="mimic-iv", dataset_version="3.1", kind="ingested", public=True
    )
    con = duckdb.connect()
    create_empty_tables(con, MIMIC_IV, {"mimiciv_hosp.labevents": []})
    for n, (itemid, value, valuenum) in enumerate(rows, start=1):
        con.execute(
            "INSERT INTO mimiciv_hosp.labevents (labevent_id, subject_id, specimen_id, itemid, "
            "charttime, value, valuenum) VALUES (?, 1, ?, ?, ?, ?, ?)",
            [n, n, itemid, T0, value, valuenum],
        )
    path = layout.table_path("mimiciv_hosp", "labevents")
    count = write_parquet(con, "SELECT * FROM mimiciv_hosp.labevents", path)
    record_table(layout, manifest, "mimiciv_hosp.labevents", count)
    write_catalog(layout, manifest)


def test_specimen_type_rows_are_not_lab_text_values(tmp_path: Path) -> None:
    home = DataHome(tmp_path)
    rows: list[tuple[int, str, float | None]] = [
        # creatinine: three numbers and one text value (the quirk)
        (50912, "1.1", 1.1),
        (50912, "0.9", 0.9),
        (50912, "2.4", 2.4),
        (50912, "<0.2", None),
        # specimen type: text by design; one odd numeric row makes the item look numeric
        (52033, "ART.", None),
        (52033, "VEN.", None),
        (52033, "ART.", None),
        (52033, "1", 1.0),
    ]
    _labs_source(home, rows)
    stat = profile_source(load_source(home, "labs")).quirk("lab_text_value")
    assert (stat.numerator, stat.denominator) == (1, 4)
