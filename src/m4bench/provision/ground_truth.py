"""Ground truth: each reference file run once on the full source, written reproducibly.

The answer is a typed Parquet file sorted by the task's key columns, then every other
column, written with fixed writer options so equal data gives equal bytes. Its manifest
records everything the answer depends on: the reference SQL's hash, the source
fingerprint (from the source manifest, never re-hashed), the output hashes of the
concepts the reference depends on (from ``concepts.json``) and the engine version.
When any of them changes the ground truth is stale and is rebuilt. Tasks sharing a
reference file (a raw task and its standard sibling) share one ground truth.

A reference that depends on tie points (orders the clinical definition leaves open,
``m4bench.concepts.ties``) gets its admissible alternatives computed and written beside
the truth (``m4bench.provision.alternatives``); the tie declarations are an input too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from m4bench.concepts.build import read_build_manifest
from m4bench.concepts.library import ConceptLibrary
from m4bench.concepts.ties import ties_sha256
from m4bench.errors import M4BenchError
from m4bench.fileio import (
    atomic_path,
    private_dir,
    read_model,
    sha256_file,
    sha256_text,
    write_model,
)
from m4bench.home import DataHome
from m4bench.provision.alternatives import (
    ComputedAlternatives,
    TieAlternativesEntry,
    compute_alternatives,
    write_alternatives,
)
from m4bench.provision.layout import ground_truth_dir, reference_key
from m4bench.provision.tie_scenarios import ScenarioDatabases, task_tie_files, task_ties
from m4bench.scoring.alternatives_file import alternatives_path
from m4bench.scoring.truth_facts import TruthFacts, measure_truth, with_facts
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.sources.layout import Source
from m4bench.sources.parquet_check import damaged_file_error
from m4bench.tasks.catalog import Task, load_catalog
from m4bench.tasks.reference import repeated_key_problem, run_reference

# 2: the Parquet footer carries the scorer's truth facts; 128 Ki-row groups.
# 3: LZ4 pages without dictionaries, which the scorer's join reads far faster.
GROUND_TRUTH_FORMAT_VERSION = 3
ENGINE = f"duckdb-{duckdb.__version__}+pyarrow-{pa.__version__}"
GroundTruthAction = Literal["built", "rebuilt", "up-to-date"]


class OutputColumn(BaseModel):
    name: str
    type: str


class GroundTruthInputs(BaseModel):
    """Everything a ground truth is computed from; any change makes it stale."""

    reference_file: str = Field(description="<family>/<file> inside the task catalog")
    reference_sql_sha256: str
    source: str
    source_fingerprint: str
    concepts: dict[str, str] = Field(description="concept -> output sha256")
    engine: str
    ties_sha256: str = Field(
        default="", description="the tie declarations the answer depends on; '' for none"
    )


class GroundTruthManifest(BaseModel):
    """``<key>.manifest.json`` beside ``<key>.parquet``."""

    format_version: int = GROUND_TRUTH_FORMAT_VERSION
    key: str
    inputs: GroundTruthInputs
    rows: int
    columns: list[OutputColumn]
    sort_keys: list[str]
    output_sha256: str
    output_bytes: int
    alternatives: TieAlternativesEntry | None = Field(
        default=None, description="admissible alternatives; None: no tie point applies"
    )


@dataclass(frozen=True)
class GroundTruthResult:
    key: str
    path: Path
    manifest: GroundTruthManifest
    action: GroundTruthAction


def task_key(task: Task) -> str:
    return reference_key(task.family, task.card.reference.file)


def ground_truth_path(home: DataHome, source: str, task: Task | str) -> Path:
    """The typed Parquet answer of ``task`` on ``source`` (what the scorer reads)."""
    resolved = load_catalog().task(task) if isinstance(task, str) else task
    return ground_truth_dir(home, source) / f"{task_key(resolved)}.parquet"


def manifest_path_for(truth: Path) -> Path:
    return truth.with_name(truth.name.removesuffix(".parquet") + ".manifest.json")


def expected_inputs(task: Task, source: Source) -> GroundTruthInputs:
    concepts = read_build_manifest(source)
    built = concepts.concepts if concepts else {}
    missing = [name for name in task.depends_on if name not in built]
    if missing:
        raise M4BenchError(
            f"source {source.name!r} lacks the concepts {', '.join(missing)} "
            f"that {task.name} depends on",
            hint=f"build them with `m4bench concepts build --source {source.name}`",
        )
    return GroundTruthInputs(
        reference_file=f"{task.family}/{task.card.reference.file}",
        reference_sql_sha256=sha256_text(task.reference_sql),
        source=source.name,
        source_fingerprint=source.manifest.fingerprint(),
        concepts={name: built[name].file.sha256 for name in task.depends_on},
        engine=ENGINE,
        ties_sha256=ties_sha256(task_tie_files(task)),
    )


def stale_reason(task: Task, source: Source, truth: Path) -> str | None:
    """Why the ground truth at ``truth`` cannot be used as is; None when it is current."""
    manifest_file = manifest_path_for(truth)
    if not truth.exists() or not manifest_file.exists():
        return "not built"
    manifest = read_model(manifest_file, GroundTruthManifest)
    if manifest.format_version != GROUND_TRUTH_FORMAT_VERSION:
        return f"file format {manifest.format_version}, now {GROUND_TRUTH_FORMAT_VERSION}"
    expected = expected_inputs(task, source)
    for field, value in expected.model_dump().items():
        if getattr(manifest.inputs, field) != value:
            return f"{field} changed"
    if truth.stat().st_size != manifest.output_bytes or sha256_file(truth) != (
        manifest.output_sha256
    ):
        return "output file differs from its manifest"
    entry = manifest.alternatives
    if entry is not None and entry.file is not None:
        beside = alternatives_path(truth)
        if not beside.is_file() or sha256_file(beside) != entry.sha256:
            return "alternatives file differs from its manifest"
    return None


def compute_ground_truth(task: Task, source: Source) -> pa.Table:
    """Run the task's reference on the full source (derived tables present), sorted."""
    con = source.connect(read_only=True)
    try:
        return run_reference(task, con)
    except M4BenchError as exc:
        cause = exc.__cause__
        named = damaged_file_error(cause, source) if isinstance(cause, duckdb.Error) else None
        if named is not None:  # the file is damaged, not the reference
            raise named from cause
        raise
    finally:
        con.close()


def write_truth_file(
    table: pa.Table, target: Path, key_columns: list[str], facts: TruthFacts | None = None
) -> None:
    """Parquet with fixed writer options: the same table always gives the same bytes.

    The footer carries the facts the scorer would otherwise establish for every output
    (unique keys, column ranges; see ``m4bench.scoring.truth_facts``), measured here
    unless given. The truth's folder is private (0700), the file 0600."""
    private_dir(target.parent)
    with atomic_path(target) as tmp:
        pq.write_table(
            with_facts(table, facts or measure_truth(table, key_columns)),
            tmp,
            # Read at every score, written once: LZ4 without dictionaries decodes
            # straight into the join (zstd with dictionaries cost the 4 M-row bench
            # about 0.4 s per score) for about a quarter more disk.
            compression="lz4",
            row_group_size=1 << 17,
            use_dictionary=False,
            write_statistics=True,
            version="2.6",
        )


def build_ground_truth(
    home: DataHome,
    source: Source,
    task: Task,
    force: bool = False,
    databases: ScenarioDatabases | None = None,
) -> GroundTruthResult:
    """Build the ground truth of ``task``'s reference, and its admissible alternatives,
    unless it is current. ``databases`` holds concepts rebuilt under other tie orders
    (shared by the tasks of one setup; made for this call when None)."""
    truth = ground_truth_path(home, source.name, task)
    reason = stale_reason(task, source, truth)
    key = task_key(task)
    if reason is None and not force:
        manifest = read_model(manifest_path_for(truth), GroundTruthManifest)
        return GroundTruthResult(key, truth, manifest, "up-to-date")
    inputs = expected_inputs(task, source)
    table = compute_ground_truth(task, source)
    keys = list(task.card.evaluation.key_columns)
    facts = measure_truth(table, keys)
    if facts.unique_keys is None:
        refuse_repeated_keys(task, table)
    computed = tie_alternatives(task, source, table, databases, truth.parent)
    alternatives_path(truth).unlink(missing_ok=True)  # never beside the wrong truth
    write_truth_file(table, truth, keys, facts)
    entry = write_alternatives(computed, truth, table.num_rows) if computed else None
    manifest = GroundTruthManifest(
        key=key,
        inputs=inputs,
        rows=table.num_rows,
        columns=[OutputColumn(name=f.name, type=str(f.type)) for f in table.schema],
        sort_keys=list(task.card.evaluation.key_columns),
        output_sha256=sha256_file(truth),
        output_bytes=truth.stat().st_size,
        alternatives=entry,
    )
    write_model(manifest_path_for(truth), manifest)
    action: GroundTruthAction = "built" if reason == "not built" else "rebuilt"
    return GroundTruthResult(key, truth, manifest, action)


def tie_alternatives(
    task: Task,
    source: Source,
    truth: pa.Table,
    databases: ScenarioDatabases | None,
    scratch: Path,
) -> ComputedAlternatives | None:
    """The rows other tie orders give ``task``'s reference; None without tie points."""
    library = databases.library if databases is not None else _library(task)
    ties = task_ties(task, library)
    if not ties:
        return None
    if databases is not None:
        return compute_alternatives(task, truth, ties, databases)
    with ScenarioDatabases(source, library, scratch) as own:
        return compute_alternatives(task, truth, ties, own)


def _library(task: Task) -> ConceptLibrary | None:
    dataset = task.card.dataset
    return ConceptLibrary.load(dataset) if DERIVED_SCHEMAS[dataset] else None


def refuse_repeated_keys(task: Task, table: pa.Table) -> None:
    """Stop before writing a truth the scorer would refuse: a key column the reference
    does not return, or a key it returns more than once."""
    problem = repeated_key_problem(task, table)
    if problem is not None:
        raise M4BenchError(
            f"{task.reference_path}: {problem}",
            hint="fix the reference (a join that fans out, a missing tie-break); "
            "nothing was written",
        )


def representatives(tasks: Iterable[Task]) -> list[Task]:
    """One task per reference file (the standard sibling when there is one)."""
    chosen: dict[str, Task] = {}
    for task in sorted(tasks, key=lambda t: (t.card.mode != "standard", t.name)):
        chosen.setdefault(task_key(task), task)
    return [chosen[key] for key in sorted(chosen)]


def verify_ground_truth(home: DataHome, source: Source, task: Task) -> str | None:
    """Re-run the reference and compare with the stored answer; None when they agree."""
    truth = ground_truth_path(home, source.name, task)
    reason = stale_reason(task, source, truth)
    if reason is not None:
        return f"{truth}: {reason}"
    fresh = compute_ground_truth(task, source)
    stored = pq.read_table(truth)
    if not fresh.equals(stored):
        return (
            f"{truth}: re-running the reference gives a different answer "
            f"({fresh.num_rows} rows now, {stored.num_rows} stored)"
        )
    return None
