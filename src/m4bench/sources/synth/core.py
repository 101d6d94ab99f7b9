"""The generator core shared by the synthetic MIMIC-IV and eICU sources.

Randomness: one :class:`numpy.random.Generator` per (table, chunk), derived from
``SeedSequence([seed, table_index, chunk_index])``. A chunk's data therefore depends
only on the seed and the chunk, never on the order chunks are produced in, so chunks
can be built in parallel and the output stays byte-identical.

Writing: each table is streamed chunk by chunk through a pyarrow ``ParquetWriter``
(zstd, no timestamps in the file metadata) into a temporary file that is renamed into
place when the table is complete. A whole source is built in a staging directory and
swapped in only when every table and the catalog are written, so a failed or interrupted
build never touches an existing source. The source's lock is held from before the staging
folder is made until after the swap, so two builds of one name never share that folder
and a source is never replaced while another process writes it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model
from m4bench.home import DataHome
from m4bench.sources.layout import SourceLayout, SourceManifest
from m4bench.sources.lock import source_lock
from m4bench.sources.names import check_source_name
from m4bench.sources.schema.base import Table

GENERATOR_VERSION = "1"
ROW_GROUP_ROWS = 262_144
_US_PER_SECOND = 1_000_000


def stream_rng(seed: int, table_index: int, chunk_index: int) -> np.random.Generator:
    """The random stream of one (table, chunk): independent of every other stream."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence([seed, table_index, chunk_index]))
    )


class QuirkRates(BaseModel):
    """How often each deliberate real-data quirk is injected (fractions in [0, 1]).

    Each rate is the share of the rows (or stays, specimens, ...) named in its
    description that carry the quirk. ``m4bench data profile`` reports the rates
    actually present.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature_unit_swap: float = Field(
        0.01, ge=0, le=1, description="temperature rows charted in the other unit's item"
    )
    fio2_fraction: float = Field(
        0.08, ge=0, le=1, description="FiO2 rows (223835, lab 50816) written as a fraction 0.21-1.0"
    )
    fio2_flow_typo: float = Field(
        0.02, ge=0, le=1, description="FiO2 rows holding an O2 flow (1-20) typed by mistake"
    )
    gcs_partial: float = Field(
        0.1, ge=0, le=1, description="GCS charttimes with only one or two of the three components"
    )
    chart_duplicate: float = Field(
        0.02, ge=0, le=1, description="vital and device rows re-entered with a later storetime"
    )
    lab_text_value: float = Field(
        0.01, ge=0, le=1, description="lab rows with a text value ('<0.2', 'HEMOLYZED', ...)"
    )
    lab_out_of_range: float = Field(
        0.003, ge=0, le=1, description="lab rows beyond the concepts' validity filters"
    )
    lab_null_hadm: float = Field(
        0.03, ge=0, le=1, description="in-admission lab rows with a NULL hadm_id"
    )
    micro_null_hadm: float = Field(
        0.03, ge=0, le=1, description="microbiology specimens with a NULL hadm_id"
    )
    micro_date_only: float = Field(
        0.08, ge=0, le=1, description="microbiology specimens with charttime NULL (date only)"
    )
    bg_simultaneous_venous: float = Field(
        0.05, ge=0, le=1, description="arterial blood gases with a venous gas at the same time"
    )
    device_without_flow: float = Field(
        0.3,
        ge=0,
        le=1,
        description="O2 device rows (other than 'None') charted without an O2 flow at that time",
    )
    vasopressor_unit_variant: float = Field(
        0.01,
        ge=0,
        le=1,
        description="vasoactive rows in a rare rate unit (mg/kg/min, mcg/min, units/min)",
    )
    vasopressor_overlap: float = Field(
        0.1, ge=0, le=1, description="vasopressor infusions with a second overlapping order"
    )
    absurd_weight: float = Field(
        0.01, ge=0, le=1, description="weight rows with an absurd value (0-1 kg, 1500+ kg, lbs)"
    )
    off_hour_time: float = Field(0.2, ge=0, le=1, description="charted times not on the hour")
    icu_before_admission: float = Field(
        0.04, ge=0, le=1, description="ICU stays whose intime precedes the admission time"
    )
    null_route_antibiotic: float = Field(
        0.02, ge=0, le=1, description="prescriptions (antibiotics among them) with a NULL route"
    )
    organ_donor_admission: float = Field(
        0.05, ge=0, le=1, description="in-hospital deaths followed by an organ-donor admission"
    )
    deathtime_typo: float = Field(
        0.03, ge=0, le=1, description="in-hospital deaths whose deathtime differs from dischtime"
    )


@dataclass(frozen=True)
class Sizes:
    """How many ICU stays to generate and the scale it corresponds to."""

    stays: int
    scale: float


def resolve_sizes(
    real_stays: int,
    real_patients: int,
    default_stays: int,
    *,
    stays: int | None,
    patients: int | None,
    scale: float | None,
) -> Sizes:
    """Pick the stay count from exactly one of stays / patients / scale (else the default)."""
    given = {
        k: v
        for k, v in (("stays", stays), ("patients", patients), ("scale", scale))
        if v is not None
    }
    if len(given) > 1:
        raise M4BenchError(
            f"give only one of {', '.join('--' + k for k in given)}",
            hint="the size is set by the number of stays, of patients, or a scale factor",
        )
    for key, value in given.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise M4BenchError(
                f"--{key} must be a positive number, got {value!r}",
                hint="use e.g. --scale 0.01 (1 % of the real dataset) or --patients 500",
            )
    if scale is not None:
        n = round(real_stays * float(scale))
    elif patients is not None:
        n = round(int(patients) * real_stays / real_patients)
    elif stays is not None:
        n = int(stays)
    else:
        n = default_stays
    n = max(n, 1)
    return Sizes(stays=n, scale=n / real_stays)


def check_free_space(home: DataHome, sizes: Sizes, bytes_per_stay: int, dataset: str) -> None:
    """Refuse, before anything is written, a build the data home's disk cannot hold.

    ``bytes_per_stay`` is the generator's measured Parquet size per stay; a scale-1.0
    MIMIC-IV source takes about 11 GB, and a mistyped ``--scale 5`` would fill most disks
    over the better part of an hour before failing.
    """
    needed = sizes.stays * bytes_per_stay
    probe = home.sources
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if needed > free:
        raise M4BenchError(
            f"a synthetic {dataset} source of {sizes.stays:,} stays (scale "
            f"{sizes.scale:.3g}) needs about {needed / 1e9:,.1f} GB; {probe} has "
            f"{free / 1e9:,.1f} GB free",
            hint="choose a smaller --scale or --stays, free some space, or point "
            "M4BENCH_HOME (or --home) at a larger disk",
        )


def check_seed(seed: object) -> int:
    """Seeds are non-negative integers (they feed numpy's SeedSequence)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise M4BenchError(
            f"the seed must be a non-negative integer, got {seed!r}",
            hint="use e.g. --seed 0",
        )
    return seed


# --- Arrow types -------------------------------------------------------------------------

_SIMPLE_TYPES: dict[str, pa.DataType] = {
    "BIGINT": pa.int64(),
    "INTEGER": pa.int32(),
    "INT": pa.int32(),
    "SMALLINT": pa.int16(),
    "TINYINT": pa.int8(),
    "DOUBLE": pa.float64(),
    "FLOAT": pa.float32(),
    "REAL": pa.float32(),
    "VARCHAR": pa.string(),
    "TEXT": pa.string(),
    "BOOLEAN": pa.bool_(),
    "TIMESTAMP": pa.timestamp("us"),
    "DATE": pa.date32(),
    "TIME": pa.time64("us"),
}


def arrow_type(duckdb_type: str) -> pa.DataType:
    """The Arrow type that DuckDB reads back as ``duckdb_type``."""
    text = duckdb_type.strip().upper()
    base = text.split("(", 1)[0].strip()
    if base in ("DECIMAL", "NUMERIC"):
        if "(" in text:
            precision, _, scale = text.split("(", 1)[1].rstrip(")").partition(",")
            return pa.decimal128(int(precision), int(scale or 0))
        return pa.decimal128(18, 3)
    if base in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[base]
    raise M4BenchError(f"unsupported column type {duckdb_type!r} in a schema definition")


def arrow_schema(table: Table) -> pa.Schema:
    return pa.schema(
        [pa.field(c.name, arrow_type(c.type), nullable=c.nullable) for c in table.columns]
    )


def to_arrow(values: Any, target: pa.DataType, length: int, where: str) -> pa.Array:
    """Convert one generated column (numpy array, list, Arrow array or None) to ``target``."""
    if values is None:
        return pa.nulls(length, type=target)
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, np.ndarray) and values.dtype.kind == "M":
        values = values.astype("datetime64[us]")
    array = values if isinstance(values, pa.Array) else pa.array(values, from_pandas=True)
    if len(array) != length:
        raise ValueError(f"{where}: {len(array)} values, expected {length}")
    if array.type != target:
        array = array.cast(target)
    return array


# --- Writing -----------------------------------------------------------------------------


class TableSink:
    """Streams record batches of one table into a Parquet file, renamed into place on close."""

    def __init__(self, table: Table, target: Path) -> None:
        self.table = table
        self.target = target
        self.schema = arrow_schema(table)
        self.rows = 0
        target.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = target.with_name(f".{target.name}.tmp")
        self._writer = pq.ParquetWriter(
            self._tmp,
            self.schema,
            compression="zstd",
            compression_level=3,
            use_dictionary=True,
            write_statistics=True,
            store_schema=True,
        )

    def write(self, columns: Mapping[str, Any]) -> None:
        """Append rows; columns not given are NULL. Every given column must have one length."""
        unknown = set(columns) - set(self.table.column_names)
        if unknown:
            raise ValueError(f"{self.table.qualified}: unknown columns {sorted(unknown)}")
        lengths = {len(v) for v in columns.values() if v is not None}
        if len(lengths) != 1:
            raise ValueError(f"{self.table.qualified}: columns of unequal length {lengths}")
        length = lengths.pop()
        if length == 0:
            return
        arrays = [
            to_arrow(columns.get(f.name), f.type, length, f"{self.table.qualified}.{f.name}")
            for f in self.schema
        ]
        batch = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        self._writer.write_batch(batch, row_group_size=ROW_GROUP_ROWS)
        self.rows += length

    def close(self) -> int:
        self._writer.close()
        os.replace(self._tmp, self.target)
        return self.rows

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._writer.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> TableSink:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


@dataclass
class StagingDir:
    """A source built beside its final place and swapped in only when complete.

    Create it only while holding the source's lock (:func:`staged_source` does): the
    staging folder ``sources/.<name>.building`` belongs to the one process building
    that name, and one left by a killed build is removed here.
    """

    home: DataHome
    name: str
    force: bool
    staging: Path = field(init=False)

    def __post_init__(self) -> None:
        final = self.home.source_dir(self.name)
        self._recover_interrupted_commit()
        if final.exists() and not self.force:
            raise M4BenchError(
                f"a source named {self.name!r} already exists at {final}",
                hint="pick another --name, or pass --force to replace it",
            )
        self.staging = self.home.sources / f".{self.name}.building"
        if self.staging.exists():
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)

    @property
    def _old(self) -> Path:
        return self.home.sources / f".{self.name}.old"

    def _recover_interrupted_commit(self) -> None:
        """Undo a commit cut between its two renames: the previous source is whole."""
        final, old = self.home.source_dir(self.name), self._old
        if old.exists() and not final.exists():
            os.replace(old, final)
        elif old.exists():
            shutil.rmtree(old)

    def commit(self) -> Path:
        """Swap the staged source into place; the old one (if any) is removed afterwards."""
        _check_complete(self.staging, self.name)
        final, old = self.home.source_dir(self.name), self._old
        if old.exists():
            shutil.rmtree(old)
        if final.exists():
            os.replace(final, old)
        os.replace(self.staging, final)
        if old.exists():
            shutil.rmtree(old)
        return final

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def _check_complete(staging: Path, name: str) -> None:
    """Refuse to commit a staged source whose manifest or table files are missing."""
    layout = SourceLayout(staging)
    manifest = read_model(layout.manifest_path, SourceManifest)
    missing = [q for q, e in manifest.tables.items() if not layout.resolve(e.file).is_file()]
    if missing or not layout.catalog_path.is_file():
        raise M4BenchError(
            f"the synthetic build of {name!r} is incomplete "
            f"(missing: {', '.join(missing) or 'catalog.duckdb'}); nothing was replaced",
            hint="run the command again",
        )


@contextlib.contextmanager
def staged_source(home: DataHome, name: str, force: bool) -> Iterator[StagingDir]:
    """Build in a staging directory; commit on success, discard on any failure.

    The source's lock is held throughout (and until the caller leaves the block, so it
    can read back what it committed): a second build, ingest or concept build of the
    same name is refused at once instead of sharing the staging folder or replacing
    a source being written.
    """
    name = check_source_name(name)
    with source_lock(SourceLayout(home.source_dir(name))):
        stage = StagingDir(home, name, force)
        try:
            yield stage
        except BaseException:
            stage.discard()
            raise


# --- Vectorised helpers ------------------------------------------------------------------


def seconds_to_us(seconds: np.ndarray) -> np.ndarray:
    """Epoch seconds (int64) to ``datetime64[us]``."""
    return (seconds.astype(np.int64) * _US_PER_SECOND).astype("datetime64[us]")


def group_arange(counts: np.ndarray) -> np.ndarray:
    """``[0..c0-1, 0..c1-1, ...]`` for group sizes ``counts``, without a Python loop."""
    counts = counts.astype(np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    out: np.ndarray = np.arange(total, dtype=np.int64) - starts
    return out


def scrambled_ids(serial: np.ndarray, multiplier: int) -> np.ndarray:
    """Distinct 8-digit ids that look random: a bijection of serial numbers below 89,999,999."""
    ids: np.ndarray = 10_000_000 + (serial.astype(np.int64) * multiplier) % 89_999_999
    return ids


def at_least_one(mask: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``mask``, or (when it is empty) the first candidate, so rare items occur in every chunk."""
    if mask.any() or not candidates.any():
        return mask
    out = mask.copy()
    out[int(np.argmax(candidates))] = True
    return out


def unique_ids(rng: np.random.Generator, n: int, low: int, high: int) -> np.ndarray:
    """``n`` distinct sorted integers in ``[low, high)``."""
    if n > high - low:
        raise M4BenchError(f"cannot draw {n} distinct ids from a range of {high - low}")
    picked = rng.choice(high - low, size=n, replace=False)
    return np.sort(picked).astype(np.int64) + low
