"""``audit``: every task's reference and mutants through the real scorer, plus rule coverage.

For each reference file the reference query and each of its mutants run once on the
source (in-process, read-only; no sandbox) and are written as CSV exactly like the
oracle agent writes its output. Each output is then scored by :class:`Scorer` against
the provisioned ground truth of every task sharing that reference. A task passes when
its reference scores 1.0, every mutant scores below 1.0 and every scored column is
moved (a value differs on a key both share) by at least one mutant. A task whose answer
depends on tie points (orders the clinical definition leaves open) also reports how many
cells have admissible alternatives, and passes only when the reference run with every
tie point in its other order scores 1.0 and passes strictly.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4bench.concepts.build import build_concepts
from m4bench.concepts.library import ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.provision.ground_truth import GroundTruthResult, build_ground_truth, task_key
from m4bench.provision.tie_scenarios import ScenarioDatabases
from m4bench.scoring import Score, Scorer
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.sources.layout import Source
from m4bench.sql import quote_literal
from m4bench.tasks.catalog import Catalog, Task, load_catalog
from m4bench.tasks.mutants import Mutant, exempt_columns, task_mutants
from m4bench.tasks.reference import ordered_query, output_columns
from m4bench.validity.coverage import task_bins
from m4bench.validity.model import AuditReport, BinCoverage, MutantResult, TaskAudit
from m4bench.validity.ties import TieBreakOutput, tie_audit, tie_break_output

StepHook = Callable[[str, int], None]  # (what is being done, total steps)


@dataclass(frozen=True)
class _Output:
    """One query's rows written as CSV, or why it could not run."""

    path: Path | None
    error: str | None


def select_audit_tasks(catalog: Catalog, dataset: str, names: Sequence[str] | None) -> list[Task]:
    """The named tasks (all of ``dataset`` when None); a task of another dataset is an error."""
    if names is None:
        return [t for t in catalog.tasks if t.card.dataset == dataset]
    tasks = [catalog.task(name) for name in dict.fromkeys(names)]
    for task in tasks:
        if task.card.dataset != dataset:
            raise M4BenchError(
                f"task {task.name} is a {task.card.dataset} task, the source is {dataset}",
                hint="pick a source of the task's dataset with --source",
            )
    return tasks


def audit(
    source: Source,
    tasks: Sequence[str] | None = None,
    *,
    home: DataHome,
    catalog: Catalog | None = None,
    on_step: StepHook | None = None,
) -> AuditReport:
    """Audit ``tasks`` (default: every task of the source's dataset) on ``source``."""
    chosen = select_audit_tasks(catalog or load_catalog(), source.manifest.dataset, tasks)
    if source.manifest.dataset == "mimic-iv":
        build_concepts(source, progress=False)
    groups: dict[str, list[Task]] = {}
    for task in chosen:
        groups.setdefault(task_key(task), []).append(task)
    total = sum(2 + len(task_mutants(g[0])) for g in groups.values()) + len(groups)
    step = _counter(on_step, total)
    results: list[TaskAudit] = []
    coverage: list[BinCoverage] = []
    dataset = source.manifest.dataset
    library = ConceptLibrary.load(dataset) if DERIVED_SCHEMAS[dataset] else None
    con = source.connect(read_only=True)
    con.execute("SET enable_progress_bar = false")
    try:
        with (
            tempfile.TemporaryDirectory(prefix="m4bench-audit-") as scratch,
            ScenarioDatabases(source, library, Path(scratch)) as databases,
        ):
            for key in sorted(groups):
                group = groups[key]
                built = build_ground_truth(home, source, group[0], databases=databases)
                folder = Path(scratch) / key.replace("/", "__")
                outputs = _run_all(con, group[0], folder, step)
                step(f"{group[0].name}: other tie-break")
                ties = tie_break_output(group[0], databases, folder)
                results += [_audit_task(task, built, outputs, ties) for task in group]
                step(f"coverage {key}")
                coverage += task_bins(group[0], built.path, con)
    finally:
        con.close()
    return AuditReport(
        source=source.name,
        dataset=source.manifest.dataset,
        tasks=sorted(results, key=lambda t: t.task),
        coverage=coverage,
    )


def _counter(on_step: StepHook | None, total: int) -> Callable[[str], None]:
    def step(label: str) -> None:
        if on_step is not None:
            on_step(label, total)

    return step


@dataclass(frozen=True)
class _Outputs:
    """The reference's output and each mutant's, for one reference file."""

    reference: _Output
    mutants: list[tuple[Mutant, _Output]]


def _run_all(
    con: duckdb.DuckDBPyConnection, task: Task, folder: Path, step: Callable[[str], None]
) -> _Outputs:
    """Run the reference and each mutant of ``task``, writing CSVs under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    step(f"{task.name}: reference")
    reference = run_query(con, task, task.reference_sql, folder / "reference.csv")
    mutants: list[tuple[Mutant, _Output]] = []
    for mutant in task_mutants(task):
        step(f"{task.name}: mutant {mutant.name}")
        target = folder / f"mutant-{mutant.name}.csv"
        mutants.append((mutant, run_query(con, task, mutant.sql, target)))
    return _Outputs(reference, mutants)


def run_query(con: duckdb.DuckDBPyConnection, task: Task, sql: str, target: Path) -> _Output:
    """Write ``sql``'s rows, sorted like the ground truth, as the oracle's CSV would be."""
    try:
        columns = output_columns(sql, str(target.name))
        query = ordered_query(sql, task.card.evaluation.key_columns, columns)
        con.execute(f"COPY (\n{query}\n) TO {quote_literal(target)} (FORMAT CSV, HEADER)")
    except (M4BenchError, duckdb.Error) as exc:
        return _Output(None, str(exc).splitlines()[0])
    return _Output(target, None)


def _audit_task(
    task: Task, built: GroundTruthResult, outputs: _Outputs, ties: TieBreakOutput
) -> TaskAudit:
    spec = task.card.evaluation
    mutants: list[MutantResult] = []
    reference = outputs.reference
    with Scorer(spec, built.path) as scorer:
        ref_score = scorer.score(reference.path) if reference.path is not None else None
        for mutant, output in outputs.mutants:
            score = scorer.score(output.path) if output.path is not None else None
            mutants.append(_mutant_result(mutant, score, output.error))
        tie_score = scorer.score(ties.path) if ties.path is not None else None
    moved = {c for m in mutants for c in m.moved_columns}
    exempt = exempt_columns(task)
    unmoved = [c for c in spec.scored_columns if c not in moved and c not in exempt]
    uncaught = [m.name for m in mutants if not m.caught]
    return TaskAudit(
        task=task.name,
        family=task.family,
        reference_reward=ref_score.reward if ref_score is not None else None,
        reference_error=reference.error,
        scored_columns=list(spec.scored_columns),
        mutants=mutants,
        unmoved_columns=unmoved,
        exempt_columns=exempt,
        uncaught_mutants=uncaught,
        all_mutants_below_one=bool(mutants) and not uncaught,
        all_columns_moved=not unmoved,
        ties=tie_audit(built.manifest.alternatives, ties, tie_score),
    )


def _mutant_result(mutant: Mutant, score: Score | None, error: str | None) -> MutantResult:
    if score is None:
        return MutantResult(
            name=mutant.name,
            rationale=mutant.spec.rationale,
            reward=None,
            expected_moves=list(mutant.spec.moves),
            error=error or "the mutant produced no output",
        )
    return MutantResult(
        name=mutant.name,
        rationale=mutant.spec.rationale,
        reward=score.reward,
        strict_pass=score.strict_pass,
        moved_columns=[c.column for c in score.columns if c.mismatched > 0],
        expected_moves=list(mutant.spec.moves),
        missing_keys=score.keys.missing_keys,
        extra_keys=score.keys.extra_keys,
        duplicate_rows=score.keys.duplicate_rows,
        error=f"scoring failed: {score.failure}" if score.failure is not None else None,
    )
