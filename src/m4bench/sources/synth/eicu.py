"""The synthetic eICU-CRD v2.0 source: every table of ``eicu_crd``, deterministic.

Stays are generated in chunks of :data:`CHUNK_STAYS`. Each chunk draws its latent
cohort from one seeded stream and each table of the chunk from its own stream
(``stream_rng(seed, table stream, chunk)``), so a table's bytes depend only on the
seed, the size and the generator version. Tables stream chunk by chunk into Parquet;
the source is built in a staging directory and swapped in when complete.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
from rich.progress import Progress

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.datasets import DEFAULT_SOURCES
from m4bench.sources.layout import (
    Source,
    SourceLayout,
    SourceManifest,
    load_source,
    record_table,
    write_catalog,
)
from m4bench.sources.schema import EICU
from m4bench.sources.schema.base import Table
from m4bench.sources.synth import (
    eicu_apache,
    eicu_bedside_volume,
    eicu_filler,
    eicu_intakeoutput,
    eicu_labs_vitals,
    eicu_nurse_volume,
    eicu_nursecharting,
    eicu_patient,
    eicu_physicalexam,
    eicu_records,
    eicu_respiratory,
)
from m4bench.sources.synth.chunk_pool import check_workers, ordered_map
from m4bench.sources.synth.core import (
    GENERATOR_VERSION,
    TableSink,
    arrow_schema,
    check_free_space,
    check_seed,
    resolve_sizes,
    staged_source,
    stream_rng,
    to_arrow,
)
from m4bench.sources.synth.coverage_needs import dataset_needs
from m4bench.sources.synth.coverage_plan import coverage_parameters
from m4bench.sources.synth.eicu_cohort import EicuCohort, draw_cohort
from m4bench.sources.synth.eicu_engineered import engineer_cohort, unplaced_needs
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates

REAL_STAYS = 200_859
REAL_PATIENTS = 139_367
DEFAULT_STAYS = 1_000
# Parquet bytes per unit stay, measured: 17.0 kB at 1,000 stays, 17.1 kB at 4,000.
BYTES_PER_STAY = 17_500
CHUNK_STAYS = 2_000
DATASET_VERSION = "2.0"

Builder = Callable[[EicuCohort, np.random.Generator, EicuQuirkRates], dict[str, Any]]
VolumeBuilder = Callable[[EicuCohort, np.random.Generator], dict[str, Any]]

BUILDERS: dict[str, Builder] = {
    "patient": lambda c, r, q: eicu_patient.patient(c, r),
    "apacheapsvar": eicu_apache.apacheapsvar,
    "apachepredvar": eicu_apache.apachepredvar,
    "apachepatientresult": lambda c, r, q: eicu_apache.apachepatientresult(c, r),
    "nursecharting": eicu_nursecharting.nursecharting,
    "physicalexam": eicu_physicalexam.physicalexam,
    "intakeoutput": eicu_intakeoutput.intakeoutput,
    "respiratorycare": eicu_respiratory.respiratorycare,
    "respiratorycharting": lambda c, r, q: eicu_respiratory.respiratorycharting(c, r),
    "lab": eicu_labs_vitals.lab,
    "vitalperiodic": lambda c, r, q: eicu_labs_vitals.vitalperiodic(c, r),
    "vitalaperiodic": lambda c, r, q: eicu_labs_vitals.vitalaperiodic(c, r),
    "infusiondrug": lambda c, r, q: eicu_labs_vitals.infusiondrug(c, r),
}


def _records(build: VolumeBuilder) -> Builder:
    return lambda c, r, q: build(c, r)


BUILDERS.update({name: _records(build) for name, build in eicu_records.BUILDERS.items()})


# Documentation rows added to a table from a stream of their own, so the rows the eICU
# tasks read are the same with or without them; with the column the merge sorts by.
VOLUME: dict[str, tuple[VolumeBuilder, str]] = {
    "nursecharting": (eicu_nurse_volume.nursecharting_volume, "nursingchartoffset"),
    "vitalaperiodic": (eicu_bedside_volume.vitalaperiodic_volume, "observationoffset"),
    "respiratorycharting": (eicu_bedside_volume.respiratorycharting_volume, "respchartoffset"),
    "physicalexam": (eicu_bedside_volume.physicalexam_volume, "physicalexamoffset"),
    "infusiondrug": (eicu_bedside_volume.infusiondrug_volume, "infusionoffset"),
}


def table_stream(table: str) -> int:
    """The stable stream number of a table (the cohort uses stream 0)."""
    return zlib.crc32(f"eicu_crd.{table}".encode()) or 1


def id_column(table: Table) -> str | None:
    """The leading surrogate key filled by a running counter, if the table has one."""
    first = table.columns[0].name
    return None if first in ("patientunitstayid", "hospitalid") else first


def synthesize_eicu(
    home: DataHome,
    name: str = DEFAULT_SOURCES["eicu"],
    *,
    stays: int | None = None,
    scale: float | None = None,
    seed: int = 0,
    force: bool = False,
    quirks: EicuQuirkRates | None = None,
    progress: bool = True,
    workers: int = 1,
) -> Source:
    """Generate a synthetic eICU-CRD v2.0 source named ``name`` under ``home``.

    Give at most one of ``stays`` (unit stays) or ``scale`` (1.0 = the real 200,859
    stays); the default is about 1,000 stays. An existing source of that name is
    replaced only with ``force``; a failed build leaves it untouched. With
    ``workers`` > 1, chunks of stays are built by that many processes while this one
    writes; the files are the same for any number of workers.
    """
    seed = check_seed(seed)
    try:
        sizes = resolve_sizes(
            REAL_STAYS, REAL_PATIENTS, DEFAULT_STAYS, stays=stays, patients=None, scale=scale
        )
    except M4BenchError as exc:
        hint = "use e.g. --stays 500, or --scale 0.01 (1 % of the 200,859 real unit stays)"
        raise M4BenchError(exc.message, hint=hint) from exc
    check_free_space(home, sizes, BYTES_PER_STAY, "eICU-CRD")
    rates = quirks or EicuQuirkRates()
    needs = dataset_needs("eicu")
    parameters: dict[str, str | int | float | bool | None] = {
        "stays": sizes.stays,
        "scale": round(sizes.scale, 6),
        "seed": seed,
        "generator": "m4bench-synthetic-eicu",
        "generator_version": GENERATOR_VERSION,
        "quirks": rates.model_dump_json(),
        **coverage_parameters(needs, unplaced_needs(seed, _chunk_sizes(sizes.stays), rates)),
    }
    with staged_source(home, name, force) as stage:
        layout = SourceLayout(stage.staging)
        manifest = SourceManifest(
            name=name,
            dataset="eicu",
            dataset_version=DATASET_VERSION,
            kind="synthetic",
            public=True,
            parameters=parameters,
        )
        rows = _write_tables(layout, sizes.stays, seed, rates, progress, check_workers(workers))
        for table in EICU.tables:
            record_table(layout, manifest, table.qualified, rows[table.name])
        write_catalog(layout, manifest)
        stage.commit()
        return load_source(home, name)


def _chunk_sizes(n_stays: int) -> list[int]:
    return [min(CHUNK_STAYS, n_stays - start) for start in range(0, n_stays, CHUNK_STAYS)]


def _write_tables(
    layout: SourceLayout,
    n_stays: int,
    seed: int,
    rates: EicuQuirkRates,
    progress: bool,
    workers: int,
) -> dict[str, int]:
    """Stream every table chunk by chunk; return the row count of each."""
    sinks = {t.name: TableSink(t, layout.table_path(t.schema_name, t.name)) for t in EICU.tables}
    next_id = dict.fromkeys(sinks, 1)
    specs = [
        (seed, chunk, start, min(CHUNK_STAYS, n_stays - start), rates)
        for chunk, start in enumerate(range(0, n_stays, CHUNK_STAYS))
    ]
    try:
        with Progress(disable=not progress, transient=True) as bar:
            task = bar.add_task("synthesizing eICU-CRD", total=len(specs))
            sinks["hospital"].write(
                eicu_patient.hospital(stream_rng(seed, table_stream("hospital"), 0))
            )
            for tables in _chunks_in_order(specs, workers):
                for name, columns in tables.items():
                    _append(sinks[name], columns, next_id)
                bar.advance(task)
    except BaseException:
        for sink in sinks.values():
            sink.abort()
        raise
    return {name: sink.close() for name, sink in sinks.items()}


ChunkSpec = tuple[int, int, int, int, EicuQuirkRates]
ChunkTables = dict[str, dict[str, pa.Array]]


def _chunks_in_order(specs: list[ChunkSpec], workers: int) -> Iterator[ChunkTables]:
    """Each chunk's tables, in chunk order; a single chunk is built in this process."""
    return ordered_map(_build_chunk, specs, workers if len(specs) > 1 else 1)


def _build_chunk(spec: ChunkSpec) -> ChunkTables:
    return chunk_tables(*spec)


def chunk_tables(seed: int, chunk: int, start: int, n: int, rates: EicuQuirkRates) -> ChunkTables:
    """Every table of one chunk (all but ``hospital``) as Arrow columns, ids not yet set.

    Depends only on its arguments: any process can build any chunk.
    """
    cohort = engineer_cohort(seed, draw_cohort(seed, chunk, start, n, rates))
    tables: ChunkTables = {}
    for table in EICU.tables:
        if table.name == "hospital":
            continue
        rng = stream_rng(seed, table_stream(table.name), chunk)
        builder = BUILDERS.get(table.name)
        columns = builder(cohort, rng, rates) if builder else eicu_filler.filler(table, cohort, rng)
        tables[table.name] = _as_arrow(table, columns)
        if table.name in VOLUME:
            build, offset = VOLUME[table.name]
            volume_rng = stream_rng(seed, table_stream(f"{table.name}.volume"), chunk)
            more = _as_arrow(table, build(cohort, volume_rng))
            tables[table.name] = merge_rows(table, tables[table.name], more, offset)
    return tables


def merge_rows(
    table: Table, first: dict[str, pa.Array], second: dict[str, pa.Array], offset: str
) -> dict[str, pa.Array]:
    """Both row sets in one, sorted by stay and ``offset`` (stable: ``first`` leads on ties)."""
    schema = arrow_schema(table)
    names = [c for c in table.column_names if c in first or c in second]
    length = {
        id(first): len(first["patientunitstayid"]),
        id(second): len(second["patientunitstayid"]),
    }

    def column(part: dict[str, pa.Array], name: str) -> pa.Array:
        found = part.get(name)
        return found if found is not None else pa.nulls(length[id(part)], schema.field(name).type)

    merged = pa.table(
        {name: pa.concat_arrays([column(first, name), column(second, name)]) for name in names}
    )
    merged = merged.sort_by([("patientunitstayid", "ascending"), (offset, "ascending")])
    return {name: merged.column(name).combine_chunks() for name in names}


def _as_arrow(table: Table, columns: dict[str, Any]) -> dict[str, pa.Array]:
    unknown = set(columns) - set(table.column_names)
    if unknown:
        raise ValueError(f"{table.qualified}: unknown columns {sorted(unknown)}")
    schema = arrow_schema(table)
    length = len(columns["patientunitstayid"])
    return {
        name: to_arrow(values, schema.field(name).type, length, f"{table.qualified}.{name}")
        for name, values in columns.items()
    }


def _append(sink: TableSink, columns: dict[str, pa.Array], next_id: dict[str, int]) -> None:
    """Write one chunk of a table, numbering its surrogate key after the previous chunk's."""
    name = sink.table.name
    key = id_column(sink.table)
    if key is not None:
        count = len(columns["patientunitstayid"])
        columns = {**columns, key: np.arange(next_id[name], next_id[name] + count, dtype=np.int64)}
        next_id[name] += count
    sink.write(columns)
