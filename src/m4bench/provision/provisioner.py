"""``setup``: everything a set of tasks needs on one source, built once and kept current.

Order: the concept library (incremental), one ground truth per reference file, the
perturbed schema when asked for (built once per source), then one agent catalog per
task. Each step skips what is already current; ``verify`` re-runs references,
``verify_equivalence`` proves the perturbed references equal the native answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from m4bench.concepts.build import build_concepts
from m4bench.concepts.library import ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, read_model, sha256_file
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import (
    AgentCatalogManifest,
    build_agent_catalog,
    card_sha256,
)
from m4bench.provision.dictionary import schema_dictionary
from m4bench.provision.equivalence import (
    EquivalenceResult,
    load_mapping,
    verify_equivalence,
    verify_round_trip,
)
from m4bench.provision.ground_truth import (
    GroundTruthResult,
    build_ground_truth,
    representatives,
    verify_ground_truth,
)
from m4bench.provision.layout import (
    DICTIONARY_FILE,
    PerturbedVariant,
    SchemaVariant,
    check_schema_exists,
    ground_truth_dir,
    task_catalog_paths,
)
from m4bench.provision.perturb import (
    DEFAULT_SEED,
    PerturbedManifest,
    build_obfuscated,
    build_restructured,
    ensure_mapping,
    is_current,
    load_perturbed,
    perturbed_view,
)
from m4bench.provision.progress import progress_bar
from m4bench.provision.relations import SchemaView, absent_drop_tables, native_view
from m4bench.provision.setup_lock import setup_lock
from m4bench.provision.tie_scenarios import ScenarioDatabases
from m4bench.sources.datasets import DERIVED_SCHEMAS, PERTURBED_DATASETS
from m4bench.sources.defaults import check_same_dataset
from m4bench.sources.layout import Source, load_source
from m4bench.sources.parquet_check import check_source
from m4bench.tasks.catalog import Task, load_catalog
from m4bench.tasks.drop_tables_lint import known_tables, names_no_table


@dataclass
class SetupReport:
    catalogs: list[tuple[str, str]] = field(default_factory=list)  # (task, action)
    truths: list[GroundTruthResult] = field(default_factory=list)
    verified: list[tuple[str, str | None]] = field(default_factory=list)  # (key, problem)
    equivalence: list[EquivalenceResult] = field(default_factory=list)


def select_tasks(source: Source, names: Sequence[str] | None) -> list[Task]:
    """The named tasks (all of the source's dataset when None); a named task of another
    dataset is an error."""
    catalog = load_catalog()
    dataset = source.manifest.dataset
    if names is None:
        return [task for task in catalog.tasks if task.card.dataset == dataset]
    tasks = [catalog.task(name) for name in dict.fromkeys(names)]
    for task in tasks:
        check_same_dataset(task.name, task.card.dataset, source.name, dataset)
    return tasks


def schema_view(
    home: DataHome, source: Source, schema: SchemaVariant, seed: int, progress: bool
) -> tuple[SchemaView, Callable[[str], str]]:
    """The view of ``schema`` (building a perturbed one if stale) and its rename rule."""
    native = native_view(source)
    if schema == "native":
        return native, lambda name: name
    ensure_perturbed(home, source, native, schema, seed, progress)
    mapping = load_mapping(home, source.name)
    # a card may name a table this source never built: it has no opaque name, and is absent
    return perturbed_view(home, source.name, schema), mapping.opaque_or_same


def ensure_perturbed(
    home: DataHome,
    source: Source,
    native: SchemaView,
    variant: PerturbedVariant,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
) -> PerturbedManifest:
    """Build ``variant`` (and the obfuscated schema it rests on) unless current."""
    if source.manifest.dataset != "mimic-iv":
        raise M4BenchError(
            f"source {source.name!r} is {source.manifest.dataset}: schema perturbations "
            "exist for MIMIC-IV only",
            hint="use --schema native for this source",
        )
    mapping = ensure_mapping(home, source.name, native, seed)
    obfuscated = _current(home, source.name, "obfuscated", native)
    if obfuscated is None:
        obfuscated = build_obfuscated(home, source.name, native, mapping, progress)
    if variant == "obfuscated":
        return obfuscated
    restructured = _current(home, source.name, "restructured", native)
    if restructured is None:
        restructured = build_restructured(home, source.name, native, mapping, obfuscated, progress)
    return restructured


def _current(
    home: DataHome, source: str, variant: PerturbedVariant, native: SchemaView
) -> PerturbedManifest | None:
    try:
        manifest = load_perturbed(home, source, variant)
    except M4BenchError:
        return None
    return manifest if is_current(home, manifest, native) else None


def catalog_is_current(home: DataHome, source: str, task: Task, view: SchemaView) -> bool:
    paths = task_catalog_paths(home, source, view.variant, task.name)
    if not paths.manifest.exists() or not paths.catalog.exists():
        return False
    manifest = read_model(paths.manifest, AgentCatalogManifest)
    return (
        manifest.data_fingerprint == view.fingerprint
        and manifest.card_sha256 == card_sha256(task)
        and manifest.catalog_sha256 == sha256_file(paths.catalog)
    )


def setup(
    home: DataHome,
    source_name: str,
    task_names: Sequence[str] | None = None,
    schema: SchemaVariant = "native",
    *,
    verify: bool = False,
    check_equivalence: bool = False,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
) -> SetupReport:
    """Provision ``task_names`` (every task of the source's dataset when None)."""
    source = load_source(home, source_name)
    check_source(source)  # a damaged file is named, never blamed on a reference query
    # Refused before anything is built: a source holds one dataset, so no task of it
    # could get the schema (a skip would leave `m4bench run` asking for it again).
    check_schema_exists(source.manifest.dataset, schema, f"source {source.name!r} holds")
    tasks = select_tasks(source, task_names)
    report = SetupReport()
    with setup_lock(home, source.name):  # a second setup of the source waits
        if source.manifest.dataset == "mimic-iv":
            build_concepts(source, progress=progress)
        refuse_absent_drop_tables(source, tasks)
        _build_truths(home, source, tasks, report, progress)
        if tasks:
            view, rename = schema_view(home, source, schema, seed, progress)
            _build_catalogs(home, source, tasks, view, rename, report, progress)
        if verify:
            for task in representatives(tasks):
                report.verified.append((task.name, verify_ground_truth(home, source, task)))
        if check_equivalence:
            report.equivalence += equivalence_checks(home, source, tasks, schema, seed, progress)
    return report


def refuse_absent_drop_tables(source: Source, tasks: Sequence[Task]) -> None:
    """Stop before anything is built for a card whose ``drop_tables`` names a table that
    neither the source and its concepts hold nor the dataset has (a misspelling): the
    table meant would reach the agent. An official table a source lacks (a partial
    ingest) is no leak, and passes."""
    native = native_view(source)
    dataset = source.manifest.dataset
    known = known_tables(dataset, _concept_names(dataset))
    for task in tasks:
        absent = [
            name for name in absent_drop_tables(task.card, native) if names_no_table(name, known)
        ]
        if absent:
            raise M4BenchError(
                f"{task.card_path}: drop_tables names {', '.join(absent)}, which source "
                f"{source.name!r} does not hold, so the table meant would reach the agent",
                hint="correct the name in the card (`m4bench tasks lint` suggests the "
                "closest table); no ground truth or agent catalog was built",
            )


def _concept_names(dataset: str) -> list[str]:
    """The concept library's names for ``dataset`` (none where it has no library)."""
    return sorted(ConceptLibrary.load(dataset).concepts) if DERIVED_SCHEMAS[dataset] else []


def equivalence_checks(
    home: DataHome,
    source: Source,
    tasks: Sequence[Task],
    schema: SchemaVariant,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
) -> list[EquivalenceResult]:
    """Equivalence of every MIMIC-IV reference under ``schema`` (both perturbations
    when ``schema`` is native), plus the restructured round trip."""
    variants: list[PerturbedVariant] = (
        ["obfuscated", "restructured"] if schema == "native" else [schema]
    )
    mimic = representatives(t for t in tasks if t.card.dataset in PERTURBED_DATASETS)
    native = native_view(source)
    results: list[EquivalenceResult] = []
    for variant in variants:
        ensure_perturbed(home, source, native, variant, seed, progress)
        with progress_bar(progress, f"equivalence {variant}", len(mimic)) as advance:
            for task in mimic:
                results.append(verify_equivalence(home, source.name, task, variant))
                advance(task.name)
    if "restructured" in variants:
        results += verify_round_trip(home, source.name)
    return results


def write_dictionary(home: DataHome, source: str, task: Task, variant: PerturbedVariant) -> Path:
    """``dictionary.md`` beside the task's perturbed catalog: what the agent is told."""
    paths = task_catalog_paths(home, source, variant, task.name)
    text = schema_dictionary(
        load_mapping(home, source), variant, include_derived=task.card.mode == "standard"
    )
    atomic_write_text(paths.root / DICTIONARY_FILE, text)
    return paths.root / DICTIONARY_FILE


def _build_truths(
    home: DataHome, source: Source, tasks: Sequence[Task], report: SetupReport, progress: bool
) -> None:
    chosen = representatives(tasks)
    dataset = source.manifest.dataset
    library = ConceptLibrary.load(dataset) if DERIVED_SCHEMAS[dataset] else None
    # Concepts rebuilt under another tie order are shared by every reference reading them.
    scratch = ground_truth_dir(home, source.name)
    with (
        ScenarioDatabases(source, library, scratch) as databases,
        progress_bar(progress, "ground truth", len(chosen)) as advance,
    ):
        for task in chosen:
            result = build_ground_truth(home, source, task, databases=databases)
            report.truths.append(result)
            advance(f"{result.key} ({result.action})")


def _build_catalogs(
    home: DataHome,
    source: Source,
    tasks: Sequence[Task],
    view: SchemaView,
    rename: Callable[[str], str],
    report: SetupReport,
    progress: bool,
) -> None:
    with progress_bar(progress, f"agent catalogs ({view.variant})", len(tasks)) as advance:
        for task in tasks:
            if catalog_is_current(home, source.name, task, view):
                action = "up-to-date"
            else:
                build_agent_catalog(home, source.name, task, view, rename)
                action = "built"
            if view.variant != "native":
                write_dictionary(home, source.name, task, view.variant)
            report.catalogs.append((task.name, action))
            advance(f"{task.name} ({action})")
