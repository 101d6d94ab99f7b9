"""``synthesize_mimic_iv``: a complete synthetic MIMIC-IV v3.1 source.

The cohort (patients, admissions, stays) is drawn first; then ICU stays are processed
in chunks of :data:`CHUNK_STAYS`, each chunk drawing its latent state and every event
table from its own random streams, and ward admissions in chunks of
:data:`CHUNK_ADMISSIONS`. Every table of the official schema is written, with exactly
its columns and types.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import lru_cache
from typing import Any

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from m4bench.fileio import read_model
from m4bench.home import DataHome
from m4bench.sources.datasets import DEFAULT_SOURCES
from m4bench.sources.layout import Source, SourceLayout, SourceManifest, record_table, write_catalog
from m4bench.sources.schema.mimic_iv import MIMIC_IV
from m4bench.sources.synth import mimic_admin, mimic_codes
from m4bench.sources.synth.chunk_pool import check_workers, ordered_map
from m4bench.sources.synth.core import (
    GENERATOR_VERSION,
    QuirkRates,
    TableSink,
    check_free_space,
    check_seed,
    resolve_sizes,
    staged_source,
    stream_rng,
)
from m4bench.sources.synth.coverage_needs import dataset_needs
from m4bench.sources.synth.coverage_plan import Placement, coverage_parameters
from m4bench.sources.synth.mimic_chartevents import chartevents_chunk
from m4bench.sources.synth.mimic_cohort import (
    DEFAULT_STAYS,
    REAL_PATIENTS,
    REAL_STAYS,
    Cohort,
    build_cohort,
)
from m4bench.sources.synth.mimic_dates import datetimeevents_chunk
from m4bench.sources.synth.mimic_emar import emar_tables
from m4bench.sources.synth.mimic_engineered import (
    conditions_for_needs,
    engineer_state,
    place_needs,
)
from m4bench.sources.synth.mimic_infection import (
    infection_plan,
    micro_chunk,
    prescriptions_chunk,
    ward_micro,
    ward_prescriptions,
)
from m4bench.sources.synth.mimic_ingredients import ingredientevents_chunk
from m4bench.sources.synth.mimic_lab_plan import icu_labs, ward_labs
from m4bench.sources.synth.mimic_lab_routine import AdmissionWindows
from m4bench.sources.synth.mimic_labs import LabRows
from m4bench.sources.synth.mimic_latent import StayState, stay_state, subject_conditions
from m4bench.sources.synth.mimic_orders import admission_orders, medication_orders
from m4bench.sources.synth.mimic_prescribing import pharmacy_rows
from m4bench.sources.synth.mimic_treatments import (
    inputevents_chunk,
    outputevents_chunk,
    procedureevents_chunk,
)

CHUNK_STAYS = 200
CHUNK_ADMISSIONS = 4_000
# Parquet bytes per ICU stay, measured: 115 kB at 1,000 stays, 113 kB at 3,000.
BYTES_PER_STAY = 116_000
DEFAULT_NAME = DEFAULT_SOURCES["mimic-iv"]
_CHUNK_STREAMS = {
    "chart": 10,
    "labs": 11,
    "output": 12,
    "input": 13,
    "procedure": 14,
    "datetime": 15,
    "micro": 16,
    "rx": 17,
    "ward": 18,
    "emar": 19,
    "ingredient": 20,
    "poe": 21,
    "ward_rx": 22,
    "ward_micro": 23,
}
_CHUNKED = (
    "mimiciv_icu.chartevents",
    "mimiciv_hosp.labevents",
    "mimiciv_icu.outputevents",
    "mimiciv_icu.inputevents",
    "mimiciv_icu.procedureevents",
    "mimiciv_icu.datetimeevents",
    "mimiciv_hosp.microbiologyevents",
    "mimiciv_hosp.prescriptions",
    "mimiciv_hosp.pharmacy",
    "mimiciv_icu.ingredientevents",
    "mimiciv_hosp.emar",
    "mimiciv_hosp.emar_detail",
    "mimiciv_hosp.poe",
    "mimiciv_hosp.poe_detail",
)


class _Sinks:
    """One open :class:`TableSink` per chunked table, plus running id counters."""

    def __init__(self, layout: SourceLayout, stack: ExitStack) -> None:
        self.sinks: dict[str, TableSink] = {}
        for qualified in _CHUNKED:
            table = MIMIC_IV.table(qualified)
            path = layout.table_path(table.schema_name, table.name)
            self.sinks[qualified] = stack.enter_context(TableSink(table, path))
        self.counters = {
            "labevent": 1,
            "specimen": 0,
            "microevent": 1,
            "micro_specimen": 0,
            "order": 1_000_000,
            "pharmacy": 1_000_000,
            "emar": 1,
            "poe": 100_000_000,  # orders other than prescription lines (those use pharmacy_id)
        }

    def write(self, qualified: str, columns: dict[str, Any], counter: str | None = None) -> None:
        self.sinks[qualified].write(columns)
        if counter is not None and columns:
            self.counters[counter] += len(next(iter(columns.values())))


def _stay_ids(cohort: Cohort, stays: np.ndarray) -> dict[str, np.ndarray]:
    s = cohort.stays
    return {
        "subject_id": cohort.patients.subject_id[s.subj[stays]],
        "hadm_id": cohort.admissions.hadm_id[s.adm[stays]],
        "stay_id": s.stay_id[stays],
    }


ChartSpec = tuple[int, int, int, QuirkRates]  # seed, chunk, stays in the source, quirks


@lru_cache(maxsize=1)
def _context(seed: int, n_stays: int, quirks: QuirkRates) -> tuple[Cohort, np.ndarray, Placement]:
    """The cohort, its chronic conditions and the hosts of the coverage needs (the same in
    every process that draws them)."""
    cohort = build_cohort(seed, n_stays, quirks)
    placement = place_needs(seed, cohort)
    conditions = subject_conditions(seed, cohort)
    conditions_for_needs(cohort, placement, conditions)
    return cohort, conditions, placement


def _state(seed: int, chunk: int, n_stays: int, quirks: QuirkRates) -> StayState:
    """The latent state of one chunk of stays, its engineered stays included."""
    cohort, conditions, placement = _context(seed, n_stays, quirks)
    stays = _chunk_stays(cohort, chunk)
    return engineer_state(stay_state(seed, chunk, cohort, stays, conditions), placement, stays)


def _chunk_stays(cohort: Cohort, chunk: int) -> np.ndarray:
    return np.arange(chunk * CHUNK_STAYS, min((chunk + 1) * CHUNK_STAYS, len(cohort.stays)))


def chart_chunk(spec: ChartSpec) -> dict[str, Any]:
    """The chartevents columns of one chunk of stays; any process can build any chunk."""
    seed, chunk, n_stays, quirks = spec
    cohort, _, _ = _context(seed, n_stays, quirks)
    stays = _chunk_stays(cohort, chunk)
    state = _state(seed, chunk, n_stays, quirks)
    rng = stream_rng(seed, _CHUNK_STREAMS["chart"], chunk)
    return chartevents_chunk(rng, state, _stay_ids(cohort, stays), quirks)


def _stay_chunk(
    seed: int, chunk: int, n_stays: int, sinks: _Sinks, quirks: QuirkRates, acute: np.ndarray
) -> None:
    """Every event table but chartevents of one chunk of ICU stays."""
    cohort, _, _ = _context(seed, n_stays, quirks)
    stays = _chunk_stays(cohort, chunk)
    state = _state(seed, chunk, n_stays, quirks)
    ids = _stay_ids(cohort, stays)
    adm = cohort.stays.adm[stays]
    admit, disch = cohort.admissions.admittime[adm], cohort.admissions.dischtime[adm]

    def rng(name: str) -> np.random.Generator:
        return stream_rng(seed, _CHUNK_STREAMS[name], chunk)

    labs = LabRows()
    icu_labs(rng("labs"), state, admit, disch, labs, quirks, hadm=ids["hadm_id"])
    lab_rng = rng("labs")
    _write_labs(sinks, labs, lab_rng, ids)
    sinks.write("mimiciv_icu.outputevents", outputevents_chunk(rng("output"), state, ids, quirks))
    inputs = inputevents_chunk(rng("input"), state, ids, quirks, sinks.counters["order"])
    sinks.write("mimiciv_icu.inputevents", inputs, "order")
    sinks.write("mimiciv_icu.ingredientevents", ingredientevents_chunk(rng("ingredient"), inputs))
    procedures = procedureevents_chunk(rng("procedure"), state, ids)
    sinks.write("mimiciv_icu.procedureevents", procedures)
    dates = datetimeevents_chunk(rng("datetime"), state, ids, procedures, admit)
    sinks.write("mimiciv_icu.datetimeevents", dates)
    infection_rng = rng("micro")
    culture_h, antibiotic_h = infection_plan(infection_rng, state)
    micro = micro_chunk(
        infection_rng, state, culture_h, ids, admit, quirks,
        sinks.counters["microevent"], sinks.counters["micro_specimen"], antibiotic_h,
    )  # fmt: skip
    _write_micro(sinks, micro)
    rx_rng = rng("rx")
    rx = prescriptions_chunk(
        rx_rng, state, antibiotic_h, ids, quirks, sinks.counters["pharmacy"], admit, disch
    )
    sinks.write("mimiciv_hosp.pharmacy", pharmacy_rows(rx_rng, rx))
    sinks.write("mimiciv_hosp.prescriptions", rx, "pharmacy")
    _write_medication_orders(rng("emar"), sinks, rx, ids["hadm_id"], disch)
    _mark_acute(state, adm, acute)


def _write_medication_orders(
    rng: np.random.Generator,
    sinks: _Sinks,
    rx: dict[str, Any],
    stay_hadm: np.ndarray,
    disch: np.ndarray,
) -> None:
    """The poe orders and emar administrations of a chunk's prescription lines."""
    sinks.write("mimiciv_hosp.poe", medication_orders(rng, rx, sinks.counters["poe"]), "poe")
    emar, detail = emar_tables(rng, rx, stay_hadm, disch, sinks.counters["emar"])
    sinks.write("mimiciv_hosp.emar", emar, "emar")
    sinks.write("mimiciv_hosp.emar_detail", detail)


def _order_chunk(seed: int, chunk: int, cohort: Cohort, acute: np.ndarray, sinks: _Sinks) -> None:
    """poe and poe_detail orders of one chunk of admissions (all of them, ICU or not)."""
    rows = np.arange(chunk * CHUNK_ADMISSIONS, min((chunk + 1) * CHUNK_ADMISSIONS, len(acute)))
    rng = stream_rng(seed, _CHUNK_STREAMS["poe"], chunk)
    poe, detail = admission_orders(rng, cohort, rows, acute[rows, 2], sinks.counters["poe"])
    sinks.write("mimiciv_hosp.poe", poe, "poe")
    sinks.write("mimiciv_hosp.poe_detail", detail)


def _write_labs(
    sinks: _Sinks, labs: LabRows, rng: np.random.Generator, ids: dict[str, np.ndarray]
) -> None:
    columns = labs.finish(rng, sinks.counters["labevent"], sinks.counters["specimen"], ids)
    sinks.write("mimiciv_hosp.labevents", columns, "labevent")
    sinks.counters["specimen"] += labs.next_specimen


def _mark_acute(state: StayState, adm: np.ndarray, acute: np.ndarray) -> None:
    """Record the stays' acute problems on their admissions (for the diagnosis codes)."""
    np.logical_or.at(acute[:, 0], adm, state.aki_stage >= 1)
    np.logical_or.at(acute[:, 1], adm, state.infection & (state.sev0 > 0.35))
    np.logical_or.at(acute[:, 2], adm, state.vent)


def _ward_chunk(
    seed: int, chunk: int, cohort: Cohort, conditions: np.ndarray, sinks: _Sinks, quirks: QuirkRates
) -> None:
    ward = np.flatnonzero(~cohort.admissions.is_icu)
    rows = ward[chunk * CHUNK_ADMISSIONS : (chunk + 1) * CHUNK_ADMISSIONS]
    a = cohort.admissions
    rng = stream_rng(seed, _CHUNK_STREAMS["ward"], chunk)
    subj = a.subj[rows]
    ckd = conditions[subj, 13]
    severe = conditions[subj, 14]
    cr_base = np.where(
        severe,
        rng.uniform(2.2, 6.0, len(rows)),
        np.where(
            ckd, rng.uniform(1.2, 2.4, len(rows)), rng.lognormal(np.log(0.85), 0.25, len(rows))
        ),
    )
    labs = LabRows()
    windows = AdmissionWindows.of(a)
    ward_labs(rng, a.admittime[rows], a.dischtime[rows], cr_base, subj, windows, labs, quirks)
    ids = {"subject_id": cohort.patients.subject_id[subj], "hadm_id": a.hadm_id[rows]}
    _write_labs(sinks, labs, rng, ids)
    _write_ward_medications(seed, chunk, sinks, quirks, ids, a.admittime[rows], a.dischtime[rows])


def _write_ward_medications(
    seed: int,
    chunk: int,
    sinks: _Sinks,
    quirks: QuirkRates,
    ids: dict[str, np.ndarray],
    admit: np.ndarray,
    disch: np.ndarray,
) -> None:
    """Prescriptions, pharmacy orders, their poe orders, emar and cultures of ward admissions."""
    rng = stream_rng(seed, _CHUNK_STREAMS["ward_rx"], chunk)
    rx = ward_prescriptions(rng, admit, disch, ids, quirks, sinks.counters["pharmacy"])
    sinks.write("mimiciv_hosp.pharmacy", pharmacy_rows(rng, rx))
    sinks.write("mimiciv_hosp.prescriptions", rx, "pharmacy")
    _write_medication_orders(rng, sinks, rx, ids["hadm_id"], disch)
    rng = stream_rng(seed, _CHUNK_STREAMS["ward_micro"], chunk)
    counters = sinks.counters["microevent"], sinks.counters["micro_specimen"]
    _write_micro(sinks, ward_micro(rng, admit, disch, ids, quirks, *counters))


def _write_micro(sinks: _Sinks, micro: dict[str, Any]) -> None:
    sinks.write("mimiciv_hosp.microbiologyevents", micro, "microevent")
    sinks.counters["micro_specimen"] += len(np.unique(micro["micro_specimen_id"]))


@contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Any]:
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, disable=not enabled, transient=False) as progress:
        yield progress, progress.add_task("synthesizing MIMIC-IV", total=total)


def synthesize_mimic_iv(
    home: DataHome,
    name: str = DEFAULT_NAME,
    *,
    stays: int | None = None,
    patients: int | None = None,
    scale: float | None = None,
    seed: int = 0,
    force: bool = False,
    quirks: QuirkRates | None = None,
    progress: bool = True,
    workers: int = 1,
) -> Source:
    """Generate a synthetic MIMIC-IV v3.1 source named ``name`` in ``home``.

    Size: one of ``stays``, ``patients`` or ``scale`` (1.0 = the real cardinalities);
    default about 1,000 ICU stays. Same version, seed and size give byte-identical files.
    With ``workers`` > 1, that many processes build the chartevents of chunks of stays
    while this one builds the other tables and writes; the files do not depend on it.
    """
    seed = check_seed(seed)
    workers = check_workers(workers)
    sizes = resolve_sizes(
        REAL_STAYS, REAL_PATIENTS, DEFAULT_STAYS, stays=stays, patients=patients, scale=scale
    )
    check_free_space(home, sizes, BYTES_PER_STAY, "MIMIC-IV")
    quirks = quirks or QuirkRates()
    with staged_source(home, name, force) as stage:
        layout = SourceLayout(stage.staging)
        manifest = SourceManifest(
            name=name,
            dataset="mimic-iv",
            dataset_version="3.1",
            kind="synthetic",
            public=True,
            parameters={
                "generator": "m4bench-synthetic-mimic-iv",
                "generator_version": GENERATOR_VERSION,
                "seed": seed,
                "stays": sizes.stays,
                "scale": round(sizes.scale, 6),
                "quirks": quirks.model_dump_json(),
            },
        )
        _build(seed, sizes.stays, quirks, layout, manifest, progress, workers)
        write_catalog(layout, read_model(layout.manifest_path, SourceManifest))
        final = SourceLayout(stage.commit())
        return Source(final, read_model(final.manifest_path, SourceManifest))


def _build(
    seed: int,
    n_stays: int,
    quirks: QuirkRates,
    layout: SourceLayout,
    manifest: SourceManifest,
    show: bool,
    workers: int,
) -> None:
    try:
        _build_chunks(seed, n_stays, quirks, layout, manifest, show, workers)
    finally:
        _context.cache_clear()


def _build_chunks(
    seed: int,
    n_stays: int,
    quirks: QuirkRates,
    layout: SourceLayout,
    manifest: SourceManifest,
    show: bool,
    workers: int,
) -> None:
    cohort, conditions, placement = _context(seed, n_stays, quirks)
    needs = dataset_needs("mimic-iv")
    manifest.parameters.update(coverage_parameters(needs, placement.unplaced))
    acute = np.zeros((len(cohort.admissions), 3), dtype=bool)
    n_chunks = -(-len(cohort.stays) // CHUNK_STAYS)
    n_ward = -(-int((~cohort.admissions.is_icu).sum()) // CHUNK_ADMISSIONS)
    n_orders = -(-len(cohort.admissions) // CHUNK_ADMISSIONS)
    specs = [(seed, chunk, n_stays, quirks) for chunk in range(n_chunks)]
    with _progress(show, n_chunks + n_ward + n_orders + 1) as (bar, task), ExitStack() as stack:
        sinks = _Sinks(layout, stack)
        charts = ordered_map(chart_chunk, specs, workers if n_chunks > 1 else 1)
        for chunk, chart in enumerate(charts):
            sinks.write("mimiciv_icu.chartevents", chart)
            _stay_chunk(seed, chunk, n_stays, sinks, quirks, acute)
            bar.advance(task)
        for chunk in range(n_ward):
            _ward_chunk(seed, chunk, cohort, conditions, sinks, quirks)
            bar.advance(task)
        for chunk in range(n_orders):
            _order_chunk(seed, chunk, cohort, acute, sinks)
            bar.advance(task)
        stack.close()
        for qualified, sink in sinks.sinks.items():
            record_table(layout, manifest, qualified, sink.rows)
        _write_whole_tables(seed, cohort, conditions, acute, layout, manifest)
        bar.advance(task)


def _write_whole_tables(
    seed: int,
    cohort: Cohort,
    conditions: np.ndarray,
    acute: np.ndarray,
    layout: SourceLayout,
    manifest: SourceManifest,
) -> None:
    # a table is one dict of columns, or an iterator of such chunks (built only when written)
    tables: dict[str, dict[str, Any] | Iterator[dict[str, Any]]] = {
        "mimiciv_hosp.patients": mimic_admin.patients_table(cohort),
        "mimiciv_hosp.admissions": mimic_admin.admissions_table(seed, cohort),
        "mimiciv_icu.icustays": mimic_admin.icustays_table(cohort),
        "mimiciv_hosp.transfers": mimic_admin.transfers_table(seed, cohort),
        "mimiciv_hosp.services": mimic_admin.services_table(seed, cohort),
        "mimiciv_hosp.diagnoses_icd": mimic_codes.diagnoses_table(seed, cohort, conditions, acute),
        "mimiciv_hosp.procedures_icd": mimic_codes.procedures_table(seed, cohort, acute[:, 2]),
        "mimiciv_hosp.d_icd_diagnoses": mimic_codes.d_icd_diagnoses_table(),
        "mimiciv_hosp.d_icd_procedures": mimic_codes.d_icd_procedures_table(),
        "mimiciv_icu.d_items": mimic_codes.d_items_table(),
        "mimiciv_hosp.d_labitems": mimic_codes.d_labitems_table(),
        "mimiciv_hosp.omr": mimic_codes.omr_table(seed, cohort, conditions),
        "mimiciv_hosp.drgcodes": mimic_codes.drgcodes_table(seed, cohort),
        "mimiciv_hosp.hcpcsevents": mimic_codes.hcpcsevents_table(cohort),
        **mimic_codes.small_tables(cohort),
    }
    for table in MIMIC_IV.tables:
        if table.qualified in manifest.tables:
            continue
        columns = tables.get(table.qualified, {})
        parts = [columns] if isinstance(columns, dict) else columns
        with TableSink(table, layout.table_path(table.schema_name, table.name)) as sink:
            for part in parts:
                if part:
                    sink.write(part)
        record_table(layout, manifest, table.qualified, sink.rows)
