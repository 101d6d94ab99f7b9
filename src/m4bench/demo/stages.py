"""The demo's stages, each timed, each reusing what already exists.

A stage returns a one-line detail and whether it reused earlier work; a stage whose layer
or tool is missing raises :class:`Unavailable` and the demo says so instead of faking it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, sha256_file
from m4bench.home import DataHome
from m4bench.sources.layout import Source, load_source
from m4bench.tasks.catalog import Catalog, load_catalog
from m4bench.wording import counted


class Unavailable(Exception):
    """A stage cannot run here (a missing tool or an earlier stage's missing output)."""


@dataclass(frozen=True)
class Outcome:
    detail: str
    reused: bool = False


@dataclass(frozen=True)
class DemoSources:
    mimic: str
    eicu: str

    def by_dataset(self) -> dict[str, str]:
        return {"mimic-iv": self.mimic, "eicu": self.eicu}


def ensure_sources(
    home: DataHome, names: DemoSources, stays: int, seed: int, progress: bool
) -> Outcome:
    """Both synthetic sources: reused when present, else generated."""
    from m4bench.sources.synth.eicu import synthesize_eicu
    from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv

    built = []
    if not _exists(home, names.mimic):
        synthesize_mimic_iv(
            home, names.mimic, stays=stays, seed=seed, force=True, progress=progress
        )
        built.append(names.mimic)
    if not _exists(home, names.eicu):
        synthesize_eicu(home, names.eicu, stays=stays, seed=seed, force=True, progress=progress)
        built.append(names.eicu)
    if not built:
        return Outcome(f"{names.mimic}, {names.eicu} present", reused=True)
    return Outcome(f"generated {', '.join(built)} ({stays} stays each, seed {seed})")


def _exists(home: DataHome, name: str) -> bool:
    try:
        load_source(home, name)
    except M4BenchError:
        return False
    return True


def build_demo_concepts(home: DataHome, names: DemoSources, progress: bool) -> Outcome:
    from m4bench.concepts.build import BuildEvent, build_concepts

    events: list[BuildEvent] = []
    manifest = build_concepts(
        load_source(home, names.mimic), progress=progress, on_event=events.append
    )
    built = sum(1 for e in events if e.action == "built")
    detail = f"{len(manifest.concepts)} concepts, {built} built"
    return Outcome(detail, reused=built == 0)


def shipped_task_names(dataset: str | None = None) -> list[str]:
    """The shipped tasks (of ``dataset``): the demo leaves the tasks of $M4BENCH_TASKS out."""
    tasks = load_catalog(extra_roots=()).tasks
    return [task.name for task in tasks if dataset in (None, task.card.dataset)]


def tasks_of(catalog: Catalog, tasks: list[str], dataset: str) -> list[str]:
    """The tasks among ``tasks`` whose card reads ``dataset``: a task's dataset is its
    card's, never guessed from its name."""
    return [name for name in tasks if catalog.task(name).card.dataset == dataset]


def provision(home: DataHome, names: DemoSources, tasks: list[str], progress: bool) -> Outcome:
    """Ground truth and native agent catalogs of the campaign's ``tasks``, each on its
    dataset's source (the small demo runs four tasks: it sets up those four only)."""
    from m4bench.provision.provisioner import setup

    truths = catalogs = built = 0
    catalog = load_catalog(extra_roots=())
    for name, dataset in ((names.mimic, "mimic-iv"), (names.eicu, "eicu")):
        chosen = tasks_of(catalog, tasks, dataset)
        if not chosen:
            continue
        report = setup(home, name, chosen, "native", progress=progress)
        truths += len(report.truths)
        catalogs += len(report.catalogs)
        built += sum(1 for t in report.truths if t.action != "up-to-date")
        built += sum(1 for _, action in report.catalogs if action != "up-to-date")
    detail = f"{truths} ground truths, {catalogs} agent catalogs, {built} built or rebuilt"
    return Outcome(detail, built == 0)


def validity(
    home: DataHome, names: DemoSources, tasks: list[str], out: Path, small: bool = False
) -> Outcome:
    """The validity audit (references and known-wrong mutants) on the campaign's tasks;
    ``small``: the sources are the small demo's, whose expected gaps are named so."""
    from m4bench.validity import audit

    lines, reused, passed = [], True, True
    catalog = load_catalog(extra_roots=())
    for name in (names.mimic, names.eicu):
        source = load_source(home, name)
        chosen = tasks_of(catalog, tasks, source.manifest.dataset)
        report_path = out / f"validity-{name}.json"
        stamp = _stamp(source, chosen)
        stamp_path = report_path.with_suffix(".stamp")
        if not (report_path.exists() and _read(stamp_path) == stamp):
            report = audit(source, chosen, home=home)
            atomic_write_text(report_path, report.model_dump_json(indent=2) + "\n")
            atomic_write_text(stamp_path, stamp)
            reused = False
        verdict = _verdict(report_path, small)
        passed &= verdict == "passed"
        lines.append(f"{name}: {verdict}")
    return Outcome("; ".join(lines) + ("" if passed else " (see validity-*.json)"), reused)


SMALL_SIZE_REASON = (
    "the small sources hold too few of the rare rows these known-wrong answers get wrong "
    "and these bins need; the full demo reaches them all"
)


def _verdict(report_path: Path, small: bool = False) -> str:
    """The verdict: passed, or FAILED with how many mutants went uncaught and bins
    unreached. On ``small`` sources those gaps are expected and said to be; a reference
    not scoring 1.0 never is."""
    report = json.loads(report_path.read_text(encoding="utf-8"))
    if report.get("passed") is True:
        return "passed"
    tasks = report.get("tasks", [])
    uncaught = sum(len(task.get("uncaught_mutants", [])) for task in tasks)
    gaps = sum(1 for entry in report.get("coverage", []) if entry.get("passed") is not True)
    unmoved = sum(len(task.get("unmoved_columns", [])) for task in tasks)
    references = sum(task.get("reference_reward") != 1.0 for task in tasks)
    size_gaps = _named(
        (uncaught, "known-wrong answer not caught", "known-wrong answers not caught"),
        (gaps, "scoring bin not reached", "scoring bins not reached"),
        (
            unmoved,
            "scored column no known-wrong answer moves",
            "scored columns no known-wrong answer moves",
        ),
    )
    wrong = _named((references, "reference not scoring 1.0", "references not scoring 1.0"))
    if not small:
        return f"FAILED ({', '.join(size_gaps + wrong)})"
    expected = f"expected at this size ({', '.join(size_gaps)}): {SMALL_SIZE_REASON}"
    if not wrong:
        return expected
    return f"FAILED ({', '.join(wrong)})" + (f"; {expected}" if size_gaps else "")


def _named(*counts: tuple[int, str, str]) -> list[str]:
    return [counted(count, one, many) for count, one, many in counts if count]


def _stamp(source: Source, tasks: list[str]) -> str:
    digest = sha256_file(source.layout.manifest_path)
    return hashlib.sha256(f"{digest}|{','.join(sorted(tasks))}".encode()).hexdigest() + "\n"


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def reset_if_stale(results: Path, stamp_text: str) -> None:
    """Remove a demo campaign whose data changed (its ground truth no longer matches)."""
    stamp = results.parent / "data.stamp"
    if _read(stamp) != stamp_text and results.exists():
        shutil.rmtree(results)
    atomic_write_text(stamp, stamp_text)


def data_stamp(home: DataHome, names: DemoSources) -> str:
    parts = [
        sha256_file(load_source(home, n).layout.manifest_path) for n in (names.mimic, names.eicu)
    ]
    return "|".join(parts) + "\n"
