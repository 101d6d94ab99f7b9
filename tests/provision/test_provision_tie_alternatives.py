"""Ground truth that admits every valid tie-break, on a source with planted ties.

Stay 100 has an arterial and a venous gas drawn at the same time and two GCS rows
sharing its lowest total with different components. A second source holds the same
data with the two gases' specimen ids swapped and the two GCS rows' components swapped:
the references, unchanged, then keep the venous gas and the later row's components,
which is what the other tie-break (highest specimen id, latest tied row) gives on the
first source. Its outputs must score 1.0 with a strict pass against the first source's
ground truth, its own reference's too, and a real error must not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from m4bench.concepts.build import build_concepts
from m4bench.concepts.library import ConceptLibrary
from m4bench.home import DataHome
from m4bench.provision.ground_truth import (
    GroundTruthManifest,
    build_ground_truth,
    ground_truth_path,
    manifest_path_for,
)
from m4bench.provision.tie_scenarios import ScenarioDatabases
from m4bench.scoring import Score, ScoreOptions, Scorer
from m4bench.scoring.alternatives_file import alternatives_path
from m4bench.sources.layout import (
    Source,
    SourceLayout,
    SourceManifest,
    load_source,
    record_table,
    write_catalog,
    write_parquet,
)
from m4bench.sources.schema import MIMIC_IV, create_empty_tables
from m4bench.tasks.catalog import Task, load_catalog
from m4bench.tasks.mutants import task_mutants
from m4bench.tasks.reference import run_reference, write_reference

pytestmark = pytest.mark.slow  # builds two small sources and provisions one

T0 = datetime(2150, 1, 1, 8, 0, 0)
TASKS = ["mimic-gcs-24h-raw", "mimic-sofa-24h", "mimic-apsiii-24h"]
GAS = {"po2": 50821, "pco2": 50818, "ph": 50820, "fio2": 50816}
ARTERIAL = {"po2": 62.0, "pco2": 31.0, "ph": 7.29, "fio2": 40.0}
VENOUS = {"po2": 38.0, "pco2": 56.0, "ph": 7.22, "fio2": 40.0}
EYES, VERBAL, MOTOR = 220739, 223900, 223901


def _at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def _people() -> dict[str, list[dict[str, Any]]]:
    patients, admissions, stays = [], [], []
    for subject in (1, 2):
        patients.append(
            {"subject_id": subject, "gender": "F", "anchor_age": 60, "anchor_year": 2150}
        )
        admissions.append(
            {
                "subject_id": subject,
                "hadm_id": subject * 10,
                "admittime": _at(-4),
                "dischtime": _at(200),
                "admission_type": "EW EMER.",
            }
        )
        stays.append(
            {
                "subject_id": subject,
                "hadm_id": subject * 10,
                "stay_id": subject * 100,
                "first_careunit": "Medical Intensive Care Unit (MICU)",
                "last_careunit": "Medical Intensive Care Unit (MICU)",
                "intime": T0,
                "outtime": _at(72),
                "los": 3.0,
            }
        )
    return {
        "mimiciv_hosp.patients": patients,
        "mimiciv_hosp.admissions": admissions,
        "mimiciv_icu.icustays": stays,
    }


def _gas(subject: int, specimen: int, kind: str, values: Mapping[str, float]) -> list[dict]:
    rows = [(52033, None, kind)] + [
        (GAS[name], value, str(value)) for name, value in values.items()
    ]
    return [
        {
            "labevent_id": specimen * 100 + index,
            "subject_id": subject,
            "hadm_id": subject * 10,
            "specimen_id": specimen,
            "itemid": itemid,
            "charttime": _at(2),
            "valuenum": valuenum,
            "value": value,
        }
        for index, (itemid, valuenum, value) in enumerate(rows)
    ]


def _gcs(stay: int, hours: float, eyes: int, verbal: int, motor: int) -> list[dict]:
    return [
        {
            "subject_id": stay // 100,
            "hadm_id": stay // 10,
            "stay_id": stay,
            "itemid": itemid,
            "charttime": _at(hours),
            "storetime": _at(hours),
            "valuenum": float(value),
            "value": str(value),
        }
        for itemid, value in ((EYES, eyes), (VERBAL, verbal), (MOTOR, motor))
    ]


def _tables(swapped: bool) -> dict[str, list[dict[str, Any]]]:
    """The planted ties; ``swapped``: resolved the other way by the data itself."""
    arterial, venous = (12, 11) if swapped else (11, 12)
    # totals 11 both; APS III scores them 8 and 13
    first, later = ((3, 3, 5), (2, 4, 5)) if swapped else ((2, 4, 5), (3, 3, 5))
    labs = _gas(1, arterial, "ART.", ARTERIAL) + _gas(1, venous, "VEN.", VENOUS)
    labs += _gas(2, 21, "ART.", ARTERIAL)
    charts = _gcs(100, 1, 4, 5, 6) + _gcs(100, 3, *first) + _gcs(100, 8, *later)
    charts += _gcs(200, 2, 3, 4, 6)
    return {**_people(), "mimiciv_hosp.labevents": labs, "mimiciv_icu.chartevents": charts}


def _hand_made(home: DataHome, name: str, tables: Mapping[str, Sequence[Mapping]]) -> Source:
    """A MIMIC-IV source holding ``tables`` and every other table of the dataset, empty."""
    layout = SourceLayout(home.source_dir(name))
    manifest = SourceManifest(
        name=name, dataset="mimic-iv", dataset_version="3.1", kind="ingested", public=True
    )
    with duckdb.connect() as con:
        create_empty_tables(con, MIMIC_IV)
        for qualified, rows in tables.items():
            for row in rows:
                names = ", ".join(f'"{column}"' for column in row)
                marks = ", ".join("?" for _ in row)
                con.execute(f"INSERT INTO {qualified} ({names}) VALUES ({marks})", [*row.values()])
        for table in MIMIC_IV.tables:
            path = layout.table_path(table.schema_name, table.name)
            count = write_parquet(con, f"SELECT * FROM {table.qualified}", path)
            record_table(layout, manifest, table.qualified, count)
    write_catalog(layout, manifest)
    return load_source(home, name)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[DataHome, Path]:
    """The planted source provisioned for ``TASKS``; the swapped source's outputs."""
    root = tmp_path_factory.mktemp("ties")
    home = DataHome(root / "home")
    source = _hand_made(home, "planted", _tables(swapped=False))
    swapped = _hand_made(home, "swapped", _tables(swapped=True))
    catalog = load_catalog()
    needed = sorted({name for task in TASKS for name in catalog.task(task).depends_on})
    build_concepts(source, only=needed, jobs=2, progress=False)
    build_concepts(swapped, only=needed, jobs=2, progress=False)
    library = ConceptLibrary.load("mimic-iv")
    with ScenarioDatabases(source, library, root / "scratch") as databases:
        for name in TASKS:
            build_ground_truth(home, source, catalog.task(name), databases=databases)
    outputs = root / "outputs"
    con = swapped.connect()
    try:
        for name in TASKS:
            write_reference(run_reference(load_catalog().task(name), con), outputs / f"{name}.csv")
    finally:
        con.close()
    return home, outputs


def _truth(home: DataHome, task: Task) -> Path:
    return ground_truth_path(home, "planted", task)


def _score(home: DataHome, task: Task, output: Path, ties: str = "admit") -> Score:
    options = ScoreOptions(ties=ties)  # type: ignore[arg-type]
    with Scorer(task.card.evaluation, _truth(home, task), options) as scorer:
        return scorer.score(output)


def test_provisioning_stores_the_cells_of_the_other_order(
    planted: tuple[DataHome, Path],
) -> None:
    home, _ = planted
    entries = {}
    for name in TASKS:
        truth = _truth(home, load_catalog().task(name))
        manifest = GroundTruthManifest.model_validate_json(manifest_path_for(truth).read_text())
        assert manifest.alternatives is not None and alternatives_path(truth).is_file()
        entries[name] = manifest.alternatives
    gcs = entries["mimic-gcs-24h-raw"]
    assert gcs.tie_points == ["gcs/reference.sql:equally-low-gcs"]
    assert gcs.cells == {"gcs_eyes": 1, "gcs_verbal": 1}
    assert entries["mimic-sofa-24h"].effective == ["bg:simultaneous-gases"]
    apsiii = entries["mimic-apsiii-24h"]
    assert apsiii.effective == ["bg:simultaneous-gases", "first_day_gcs:equally-low-gcs"]
    assert {"gcs_score", "pao2_aado2_score", "acidbase_score"} <= set(apsiii.cells)
    assert len(apsiii.scenarios) == 3  # each order alone, then both


@pytest.mark.parametrize("name", TASKS)
def test_either_tie_break_scores_one_with_a_strict_pass(
    planted: tuple[DataHome, Path], name: str
) -> None:
    home, outputs = planted
    task = load_catalog().task(name)
    other = _score(home, task, outputs / f"{name}.csv")
    assert other.reward == 1.0 and other.strict_pass
    assert sum(c.matched_by_alternative for c in other.columns) > 0
    strict = _score(home, task, outputs / f"{name}.csv", ties="strict")
    assert strict.reward < 1.0


def test_the_reference_and_a_mutant_score_as_before(
    planted: tuple[DataHome, Path], tmp_path: Path
) -> None:
    home, _ = planted
    task = load_catalog().task("mimic-gcs-24h-raw")
    con = load_source(home, "planted").connect()
    try:
        write_reference(run_reference(task, con), tmp_path / "reference.csv")
    finally:
        con.close()
    reference = _score(home, task, tmp_path / "reference.csv")
    assert reference.reward == 1.0 and reference.strict_pass
    assert all(c.matched_by_alternative == 0 for c in reference.columns)
    assert [m.name for m in task_mutants(task)]  # the family has mutants to catch


def test_a_real_error_beside_the_other_tie_break_is_caught(
    planted: tuple[DataHome, Path], tmp_path: Path
) -> None:
    home, outputs = planted
    task = load_catalog().task("mimic-gcs-24h-raw")
    lines = (outputs / "mimic-gcs-24h-raw.csv").read_text().splitlines()
    header = lines[0].split(",")
    wrong = []
    for line in lines[1:]:
        cells = dict(zip(header, line.split(","), strict=True))
        if cells["stay_id"] == "200":
            cells["gcs_motor"] = "5.0"  # stay 200 has no tie: its motor is 6
        wrong.append(",".join(cells[column] for column in header))
    output = tmp_path / "wrong.csv"
    output.write_text("\n".join([lines[0], *wrong]) + "\n")
    score = _score(home, task, output)
    assert score.reward < 1.0 and not score.strict_pass
    motor = next(c for c in score.columns if c.column == "gcs_motor")
    assert [m.key for m in motor.mismatch_sample] == [{"stay_id": "200"}]
