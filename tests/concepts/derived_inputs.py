"""Helpers for tests that feed a concept hand-made rows of its input concepts.

``prepare_inputs(build, "first_day_lab", ...)`` creates the named input concepts as empty
tables (built from the still empty source tables), so a test can INSERT exactly the input
rows it needs and then build the concept under test with ``with_dependencies=False``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def prepare_inputs(build: Callable[..., None], *names: str) -> None:
    """Create the input concept tables, empty. Call before inserting any source row."""
    build(*names)


def by_key(rows: Sequence[Mapping[str, Any]], key: str = "stay_id") -> dict[Any, dict[str, Any]]:
    """Index table rows by one key column (which must be unique)."""
    indexed = {row[key]: dict(row) for row in rows}
    assert len(indexed) == len(rows), f"{key} is not unique"
    return indexed


Case = Mapping[str, Sequence[Mapping[str, Any]] | Mapping[str, Any]]


def case_ids(index: int) -> dict[str, int]:
    """Identifiers of the ``index``-th hand-built case: one patient, admission and stay each."""
    return {"subject_id": index + 1, "hadm_id": 10 + index, "stay_id": 100 + index}


def insert_cases(
    con: Any, cases: Sequence[Case], *, intime: Any, admittime: Any, los_hours: float = 72.0
) -> None:
    """One patient/admission/ICU stay per case, plus the case's rows table by table.

    A case maps a qualified table name to one row or a list of rows; the case's
    subject_id, hadm_id and stay_id are filled in for the columns the table has, unless the
    row sets them itself.
    """
    from datetime import timedelta

    from concept_rows import insert_rows

    for index, case in enumerate(cases):
        ids = case_ids(index)
        insert_rows(
            con,
            "mimiciv_icu.icustays",
            [
                {
                    **ids,
                    "intime": intime,
                    "outtime": intime + timedelta(hours=los_hours),
                }
            ],
        )
        insert_rows(con, "mimiciv_hosp.patients", [{"subject_id": ids["subject_id"]}])
        admission = {
            "subject_id": ids["subject_id"],
            "hadm_id": ids["hadm_id"],
            "admittime": admittime,
            "admission_type": "EW EMER.",
        }
        overrides = case.get("mimiciv_hosp.admissions", {})
        assert isinstance(overrides, Mapping)
        insert_rows(con, "mimiciv_hosp.admissions", [{**admission, **overrides}])
        for table, content in case.items():
            if table == "mimiciv_hosp.admissions":
                continue
            rows = [content] if isinstance(content, Mapping) else list(content)
            columns = {d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description}
            insert_rows(
                con,
                table,
                [{**{k: v for k, v in ids.items() if k in columns}, **row} for row in rows],
            )
